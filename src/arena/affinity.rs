//! `--affinity`: each game's engines pinned to CPUs of their own, for every kind of run (as
//! fastchess's `-use-affinity`).

use std::fmt;

/// A CPU list for `--affinity`, as `taskset -c` takes it, read by [`CpuList::parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList(pub Vec<usize>);

/// Why an `--affinity` list is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AffinityError {
    /// A word that is no CPU number or range (the word).
    BadWord(String),
    /// A list too short for the games played at once.
    TooShort {
        /// Games played at once.
        concurrency: usize,
        /// Threads per engine (`option.Threads`, 1 when not given).
        threads: usize,
        /// CPUs needed: concurrency × 2 engines × threads.
        needed: usize,
        /// CPUs in the list.
        given: usize,
    },
}

impl fmt::Display for AffinityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AffinityError::BadWord(part) => {
                write!(f, "'{part}' is not a CPU or a range of CPUs (e.g. 0,2,4-7)")
            }
            AffinityError::TooShort {
                concurrency,
                threads,
                needed,
                given,
            } => write!(
                f,
                "--affinity: {concurrency} games at a time x 2 engines x {} need {needed} CPUs, \
                 the list has {given}: lower --concurrency or give more CPUs",
                crate::records::plural(*threads as u64, "thread"),
            ),
        }
    }
}

impl std::error::Error for AffinityError {}

impl CpuList {
    /// Reads `--affinity`'s list: `all` (every CPU this process may use), or CPUs and ranges
    /// separated by commas (`0,2,4-7`), as `taskset -c` takes them.
    ///
    /// # Errors
    /// [`AffinityError::BadWord`] naming a word that is no CPU number or range, or a CPU
    /// past 1023.
    pub fn parse(text: &str) -> Result<CpuList, AffinityError> {
        if text == "all" {
            return Ok(CpuList((0..super::cores()).collect()));
        }
        let mut cpus = Vec::new();
        for part in text.split(',') {
            let bad = || AffinityError::BadWord(part.to_string());
            let (first, last) = match part.split_once('-') {
                Some((a, b)) => (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?),
                None => {
                    let cpu: usize = part.parse().map_err(|_| bad())?;
                    (cpu, cpu)
                }
            };
            if first > last || last >= 1024 {
                return Err(bad());
            }
            for cpu in first..=last {
                if !cpus.contains(&cpu) {
                    cpus.push(cpu);
                }
            }
        }
        Ok(CpuList(cpus))
    }

    /// Refuses a list too short for `concurrency` games of two engines of `threads` threads
    /// each (each engine of a game gets cores of its own).
    ///
    /// # Errors
    /// [`AffinityError::TooShort`], naming what is needed and what was given.
    pub fn check(&self, concurrency: usize, threads: usize) -> Result<(), AffinityError> {
        let needed = concurrency.saturating_mul(2).saturating_mul(threads);
        match needed <= self.0.len() {
            true => Ok(()),
            false => Err(AffinityError::TooShort {
                concurrency,
                threads,
                needed,
                given: self.0.len(),
            }),
        }
    }

    /// The CPUs of engine `engine`'s process in worker thread `worker`: each worker has
    /// 2 × `threads` CPUs of the list in turn, the first half for engines of even index, the
    /// second for odd ones, so the two engines of a match (and of most games of a
    /// round-robin) never share a core.
    pub fn cpus_of(&self, threads: usize, worker: usize, engine: usize) -> Vec<usize> {
        let start = worker * 2 * threads + (engine % 2) * threads;
        self.0.iter().skip(start).take(threads).copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affinity_lists_read_are_checked_and_shared_out() {
        assert_eq!(CpuList::parse("0,2,4-6,2").unwrap().0, [0, 2, 4, 5, 6]);
        assert_eq!(
            CpuList::parse("1-x").unwrap_err().to_string(),
            "'1-x' is not a CPU or a range of CPUs (e.g. 0,2,4-7)"
        );
        assert!(CpuList::parse("3-1").is_err());
        assert!(!CpuList::parse("all").unwrap().0.is_empty());
        let list = CpuList(vec![0, 1, 2, 3]);
        assert_eq!(list.check(2, 1), Ok(()));
        assert_eq!(
            list.check(2, 2).unwrap_err().to_string(),
            "--affinity: 2 games at a time x 2 engines x 2 threads need 8 CPUs, the list has 4: \
             lower --concurrency or give more CPUs"
        );
        assert_eq!(list.cpus_of(1, 0, 0), [0]);
        assert_eq!(list.cpus_of(1, 0, 1), [1]);
        assert_eq!(list.cpus_of(1, 1, 2), [2]);
        assert_eq!(list.cpus_of(2, 0, 1), [2, 3]);
    }
}
