//! Values named by a word: the enums that the command line, files and engine options spell by
//! name (`--rules classic`, `proto=uci`, `--only movegen`). One trait ([`Named`]), one macro
//! that writes it with `ALL`, `name()`, [`Display`](std::fmt::Display) and
//! [`FromStr`](std::str::FromStr) ([`named_enum!`](crate::named_enum)), and one error for a word
//! that names none of the values ([`UnknownName`]), which says what was given and what is
//! accepted.
//!
//! For users, the names each flag accepts are in its `--help` and in the guide
//! (`docs/guide/tournaments.md` for `--rules`, `proto=` and `--pgn-comments`).
//!
//! Names are compared ignoring ASCII case (engine option values are, and `--rules Classic` has
//! one meaning), and a value may have other spellings it is also read from (`round-robin`).
//!
//! ```
//! use bt_arena::named::{Named, UnknownName};
//! use bt_arena::rules::Rules;
//!
//! assert_eq!("classic".parse::<Rules>(), Ok(Rules::Classic));
//! assert_eq!(Rules::Classic.to_string(), "classic");
//! let err: UnknownName = "chess".parse::<Rules>().unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "unknown rule set 'chess' (expected capture-only or classic)"
//! );
//! assert_eq!(Rules::names(), ["capture-only", "classic"]);
//! ```

use std::fmt;

/// An enum whose values are named by a word. Implemented by [`named_enum!`](crate::named_enum).
pub trait Named: Sized + Copy + 'static {
    /// What a value is, in an error message: `rule set`, `protocol`.
    const KIND: &'static str;

    /// Every value, in the order they are documented.
    fn all() -> &'static [Self];

    /// The value's name, as written on the command line and in files.
    fn name(self) -> &'static str;

    /// Other spellings the value is read from (none by default).
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// Every value's name, in [`all`](Named::all)'s order.
    fn names() -> Vec<&'static str> {
        Self::all().iter().map(|value| value.name()).collect()
    }

    /// The value named `text` (its name or an alias, ignoring ASCII case).
    ///
    /// # Errors
    /// [`UnknownName`] naming `text` and the accepted names.
    fn from_name(text: &str) -> Result<Self, UnknownName> {
        Self::all()
            .iter()
            .copied()
            .find(|value| {
                value.name().eq_ignore_ascii_case(text)
                    || value.aliases().iter().any(|a| a.eq_ignore_ascii_case(text))
            })
            .ok_or_else(|| UnknownName {
                kind: Self::KIND,
                value: text.to_string(),
                expected: Self::names(),
            })
    }
}

/// A word that names none of the values of a [`Named`] enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What the word should name: `rule set`.
    pub kind: &'static str,
    /// The word given.
    pub value: String,
    /// The accepted names, in the order they are documented.
    pub expected: Vec<&'static str>,
}

impl fmt::Display for UnknownName {
    /// `unknown rule set 'chess' (expected capture-only or classic)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} '{}' (expected {})",
            self.kind,
            self.value,
            one_of(&self.expected)
        )
    }
}

impl std::error::Error for UnknownName {}

/// `a`, `a or b`, `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [only] => (*only).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Implements [`Named`] for a field-less enum, with an inherent `ALL` array and `const fn
/// name`, [`Display`](std::fmt::Display) (the name) and [`FromStr`](std::str::FromStr) (the
/// name or an alias, ignoring ASCII case; the error [`UnknownName`]):
///
/// ```
/// # use bt_arena::named_enum;
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// enum Shape { Round, Square }
/// named_enum!(Shape, "shape", [Round => "round" | "circle", Square => "square"]);
///
/// assert_eq!(Shape::ALL, [Shape::Round, Shape::Square]);
/// assert_eq!("Circle".parse::<Shape>(), Ok(Shape::Round));
/// assert_eq!(Shape::Square.to_string(), "square");
/// assert_eq!(
///     "oval".parse::<Shape>().unwrap_err().to_string(),
///     "unknown shape 'oval' (expected round or square)"
/// );
/// ```
#[macro_export]
macro_rules! named_enum {
    ($type:ident, $kind:literal, [$($variant:ident => $name:literal $(| $alias:literal)*),+ $(,)?]) => {
        impl $type {
            #[doc = concat!("Every ", $kind, ", in the order they are documented.")]
            pub const ALL: [$type; [$(stringify!($variant)),+].len()] = [$($type::$variant),+];

            #[doc = concat!("The ", $kind, "'s name, as written on the command line and in files.")]
            pub const fn name(self) -> &'static str {
                match self {
                    $($type::$variant => $name),+
                }
            }
        }

        impl $crate::named::Named for $type {
            const KIND: &'static str = $kind;

            fn all() -> &'static [Self] {
                &$type::ALL
            }

            fn name(self) -> &'static str {
                $type::name(self)
            }

            fn aliases(self) -> &'static [&'static str] {
                match self {
                    $($type::$variant => &[$($alias),*]),+
                }
            }
        }

        impl ::std::fmt::Display for $type {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $type {
            type Err = $crate::named::UnknownName;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                <$type as $crate::named::Named>::from_name(text)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Colour {
        Red,
        Green,
        Blue,
    }
    crate::named_enum!(Colour, "colour", [Red => "red", Green => "green" | "verde", Blue => "blue"]);

    #[test]
    fn names_and_aliases_parse_ignoring_case() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::Green, Colour::Blue]);
        assert_eq!("RED".parse::<Colour>(), Ok(Colour::Red));
        assert_eq!("Verde".parse::<Colour>(), Ok(Colour::Green));
        assert_eq!(Colour::Blue.to_string(), "blue");
        assert_eq!(Colour::names(), ["red", "green", "blue"]);
    }

    #[test]
    fn an_unknown_name_says_what_is_accepted() {
        let err = "mauve".parse::<Colour>().unwrap_err();
        assert_eq!(
            err,
            UnknownName {
                kind: "colour",
                value: "mauve".into(),
                expected: vec!["red", "green", "blue"],
            }
        );
        assert_eq!(
            err.to_string(),
            "unknown colour 'mauve' (expected red, green or blue)"
        );
        assert_eq!(one_of(&["a"]), "a");
        assert_eq!(one_of(&["a", "b"]), "a or b");
    }
}
