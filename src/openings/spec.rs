//! Where a run's openings come from (`--openings file=PATH order=sequential|random`) and the
//! order in which its units (game pairs, iterations, datagen games) take them: settings every
//! kind of run shares.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// The order in which game pairs take openings from the book.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningOrder {
    /// Book order, wrapping around.
    #[default]
    Sequential,
    /// A seeded shuffle of the book, each opening used once before any repeats.
    Random,
}

/// Where openings come from (`--openings file=PATH order=sequential|random`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningsSpec {
    /// The book; `None` means the start position only.
    pub file: Option<PathBuf>,
    /// How pairs take openings from it.
    #[serde(default)]
    pub order: OpeningOrder,
    /// The SHA-256 of the book's bytes, in hexadecimal, taken when the run starts: part of
    /// the run's identity, so that a shard or a resume reading a book changed since (or
    /// another book at the same path) is refused, and the same book at another path (a
    /// shared filesystem mounted elsewhere) is the same run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl OpeningsSpec {
    /// Parses `file=PATH order=sequential|random` tokens (`format=epd` is accepted).
    ///
    /// # Errors
    /// [`BadOpeningsToken`] naming the bad token.
    pub fn parse<S: AsRef<str>>(tokens: &[S]) -> Result<OpeningsSpec, BadOpeningsToken> {
        let mut spec = OpeningsSpec::default();
        for token in tokens {
            let token = token.as_ref();
            match token.split_once('=') {
                Some(("file", path)) => spec.file = Some(PathBuf::from(path)),
                Some(("order", "sequential")) => spec.order = OpeningOrder::Sequential,
                Some(("order", "random")) => spec.order = OpeningOrder::Random,
                Some(("format", "epd")) => {}
                _ => return Err(BadOpeningsToken(token.to_string())),
            }
        }
        Ok(spec)
    }

    /// Takes the SHA-256 of the book's bytes into [`digest`](Self::digest) (no book: nothing
    /// to take). `resuming` a run whose saved digest is not the book's now is refused: the
    /// book changed since the run started.
    ///
    /// # Errors
    /// [`DigestError`] naming the book: it cannot be read, or it changed since the run
    /// started.
    pub fn take_digest(&mut self, resuming: bool) -> Result<(), DigestError> {
        use sha2::Digest;
        let Some(path) = &self.file else {
            return Ok(());
        };
        let bytes = super::book_bytes(path).map_err(|source| DigestError::Unreadable {
            path: path.clone(),
            source,
        })?;
        let digest: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        match &self.digest {
            Some(saved) if resuming && *saved != digest => Err(DigestError::Changed {
                path: path.clone(),
                saved: saved.clone(),
                now: digest,
            }),
            _ => {
                self.digest = Some(digest);
                Ok(())
            }
        }
    }
}

/// Why a book's digest cannot be taken.
#[derive(Debug)]
pub enum DigestError {
    /// The book cannot be read.
    Unreadable {
        /// The book.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A resumed run's book is not the one it started with.
    Changed {
        /// The book.
        path: PathBuf,
        /// The SHA-256 saved when the run started.
        saved: String,
        /// Its SHA-256 now.
        now: String,
    },
}

impl fmt::Display for DigestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DigestError::Unreadable { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            DigestError::Changed { path, saved, now } => write!(
                f,
                "the book {} changed since the run started (its SHA-256 was {saved}, is \
                 {now}): restore it to continue the run, or start another run",
                path.display()
            ),
        }
    }
}

impl std::error::Error for DigestError {}

/// An `--openings` token other than `file=PATH`, `order=sequential|random` or `format=epd`
/// (the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadOpeningsToken(pub String);

impl fmt::Display for BadOpeningsToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad --openings token '{}' (expected file=PATH, order=sequential|random)",
            self.0
        )
    }
}

impl std::error::Error for BadOpeningsToken {}

/// The order in which pairs take openings: the book order, or a seeded shuffle of it.
pub fn opening_sequence(order: OpeningOrder, book_len: usize, seed: u64) -> Vec<usize> {
    let mut sequence: Vec<usize> = (0..book_len).collect();
    if order == OpeningOrder::Random {
        fastrand::Rng::with_seed(seed).shuffle(&mut sequence);
    }
    sequence
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_tokens_parse() {
        let spec = OpeningsSpec::parse(&["file=openings/x.epd", "order=random"]).unwrap();
        assert_eq!(spec.file, Some(PathBuf::from("openings/x.epd")));
        assert_eq!(spec.order, OpeningOrder::Random);
        let err = OpeningsSpec::parse(&["file=x.epd", "order=shuffled"]).unwrap_err();
        assert!(
            matches!(&err, BadOpeningsToken(token) if token == "order=shuffled"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "bad --openings token 'order=shuffled' (expected file=PATH, order=sequential|random)"
        );
    }
}
