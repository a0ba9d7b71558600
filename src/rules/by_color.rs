//! [`ByColor`]: one value per side, named rather than indexed by number (shakmaty's idea).

use super::Color;
use std::ops::{Index, IndexMut};

/// One value for each side: White's and Black's (their clocks, engines, time used...). Read
/// by field, by [`ByColor::get`] or by indexing with a [`Color`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// The values `f(Color::White)` and `f(Color::Black)`, White's computed first.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        let white = f(Color::White);
        let black = f(Color::Black);
        ByColor { white, black }
    }

    /// The value of `color`.
    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The value of `color`, to change.
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Both values passed through `f`, White's first.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        let white = f(self.white);
        let black = f(self.black);
        ByColor { white, black }
    }

    /// References to both values.
    pub fn as_ref(&self) -> ByColor<&T> {
        ByColor {
            white: &self.white,
            black: &self.black,
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_reads_and_writes_its_own_value() {
        let mut names = ByColor::from_fn(|color| color.to_string());
        assert_eq!(
            (names.white.as_str(), names.black.as_str()),
            ("White", "Black")
        );
        names[Color::Black].push('!');
        names.get_mut(Color::White).push_str("??");
        assert_eq!(names.get(Color::White), "White??");
        assert_eq!(names[Color::Black], "Black!");
        assert_eq!(
            names.as_ref().map(String::len),
            ByColor { white: 7, black: 6 }
        );
    }
}
