//! Where games start in their files, kept compactly to read them again in game-id order:
//! a sharded run's rows ([`super::games`]) and its shards' PGN games ([`super::merge`]).

/// Where games start in several files, to read them in game-id order: 12 bytes a game (its
/// id less one as 32 bits, its file's index as 16 bits and its byte offset as 48 bits) when
/// the ids fit in 32 bits, else 16.
pub(crate) enum Rows {
    /// `[id − 1, file << 16 | offset >> 32, offset as 32 bits]`.
    Narrow(Vec<[u32; 3]>),
    /// `(id, file << 48 | offset)`.
    Wide(Vec<(u64, u64)>),
}

/// Most files [`Rows`] tell apart.
const MAX_FILES: usize = 1 << 16;
/// Bytes of a file [`Rows`] can point into.
const MAX_OFFSET: u64 = 1 << 48;

impl Rows {
    /// Rows of a schedule of `games` games.
    pub(crate) fn new(games: u64) -> Rows {
        if games <= u64::from(u32::MAX) {
            Rows::Narrow(Vec::new())
        } else {
            Rows::Wide(Vec::new())
        }
    }

    /// Notes that game `id` starts at byte `byte` of file `file`.
    ///
    /// # Errors
    /// Why it cannot be noted: more than [`MAX_FILES`] files or a file larger than
    /// [`MAX_OFFSET`], or an id beyond the narrow rows' (0, or above 2³²).
    pub(crate) fn push(&mut self, id: u64, file: usize, byte: u64) -> Result<(), RowsError> {
        if file >= MAX_FILES || byte >= MAX_OFFSET {
            return Err(RowsError::TooLarge);
        }
        let location = (file as u64) << 48 | byte;
        match self {
            Rows::Narrow(rows) => {
                let id =
                    u32::try_from(id.wrapping_sub(1)).map_err(|_| RowsError::BeyondSchedule(id))?;
                let high = u32::try_from(location >> 32).unwrap_or(u32::MAX);
                let low = u32::try_from(location & u64::from(u32::MAX)).unwrap_or(u32::MAX);
                rows.push([id, high, low]);
            }
            Rows::Wide(rows) => rows.push((id, location)),
        }
        Ok(())
    }

    /// Sorts by game id (then file and offset).
    pub(crate) fn sort(&mut self) {
        match self {
            Rows::Narrow(rows) => rows.sort_unstable(),
            Rows::Wide(rows) => rows.sort_unstable(),
        }
    }

    /// The rows as (game id, file index, byte offset), in the order they are kept.
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = (u64, usize, u64)> + '_> {
        let split = |location: u64| ((location >> 48) as usize, location & (MAX_OFFSET - 1));
        match self {
            Rows::Narrow(rows) => Box::new(rows.iter().map(move |&[id, high, low]| {
                let (file, byte) = split(u64::from(high) << 32 | u64::from(low));
                (u64::from(id) + 1, file, byte)
            })),
            Rows::Wide(rows) => Box::new(rows.iter().map(move |&(id, location)| {
                let (file, byte) = split(location);
                (id, file, byte)
            })),
        }
    }

    /// The first row of game `id`, as (file index, byte offset), once [sorted](Rows::sort).
    pub(crate) fn find(&self, id: u64) -> Option<(usize, u64)> {
        let split = |location: u64| ((location >> 48) as usize, location & (MAX_OFFSET - 1));
        match self {
            Rows::Narrow(rows) => {
                let key = u32::try_from(id.checked_sub(1)?).ok()?;
                let at = rows.partition_point(|row| row[0] < key);
                let &[found, high, low] = rows.get(at)?;
                (found == key).then(|| split(u64::from(high) << 32 | u64::from(low)))
            }
            Rows::Wide(rows) => {
                let at = rows.partition_point(|row| row.0 < id);
                let &(found, location) = rows.get(at)?;
                (found == id).then(|| split(location))
            }
        }
    }
}

/// Why a game's place cannot be noted ([`Rows::push`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowsError {
    /// More than [`MAX_FILES`] files, or a file larger than [`MAX_OFFSET`].
    TooLarge,
    /// A game id beyond the narrow rows' (0, or above 2³²).
    BeyondSchedule(u64),
}

impl std::fmt::Display for RowsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowsError::TooLarge => write!(
                f,
                "more than {MAX_FILES} shard files or a file over {MAX_OFFSET} bytes"
            ),
            RowsError::BeyondSchedule(id) => {
                write!(f, "game id {id} is beyond the run's schedule")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sort_by_id_and_find_the_first_of_an_id() {
        for mut rows in [Rows::new(1000), Rows::new(u64::MAX)] {
            let big = MAX_OFFSET - 1;
            rows.push(7, 2, big).unwrap();
            rows.push(3, 0, 10).unwrap();
            rows.push(7, 1, 5).unwrap();
            rows.sort();
            let all: Vec<_> = rows.iter().collect();
            assert_eq!(all, [(3, 0, 10), (7, 1, 5), (7, 2, big)]);
            assert_eq!(rows.find(7), Some((1, 5)));
            assert_eq!(rows.find(3), Some((0, 10)));
            assert_eq!(rows.find(4), None);
            assert_eq!(rows.find(0), None);
            assert!(rows.push(1, MAX_FILES, 0).is_err());
            assert!(rows.push(1, 0, MAX_OFFSET).is_err());
        }
        let mut narrow = Rows::new(10);
        assert!(narrow.push(0, 0, 0).is_err());
        assert!(narrow.push(1 << 33, 0, 0).is_err());
    }
}
