//! The little dense linear algebra the rating fit needs: symmetric positive
//! definite solves and inverses by Cholesky factorization.

use std::ops::{Index, IndexMut};

/// Dense square matrix, row-major.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Matrix {
    n: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// `n x n` zero matrix.
    pub(super) fn zeros(n: usize) -> Self {
        Self {
            n,
            data: vec![0.0; n * n],
        }
    }

    /// Dimension `n`.
    pub(super) fn dim(&self) -> usize {
        self.n
    }

    /// Cholesky factor `L` (`A = L L^T`) of a symmetric matrix, or `None` when
    /// the matrix is not numerically positive definite.
    pub(super) fn cholesky(&self) -> Option<Cholesky> {
        let n = self.n;
        let mut l = Matrix::zeros(n);
        for i in 0..n {
            for j in 0..=i {
                let dot: f64 = (0..j).map(|k| l[(i, k)] * l[(j, k)]).sum();
                let v = self[(i, j)] - dot;
                if i == j {
                    if !(v > 0.0 && v.is_finite()) {
                        return None;
                    }
                    l[(i, i)] = v.sqrt();
                } else {
                    l[(i, j)] = v / l[(j, j)];
                }
            }
        }
        Some(Cholesky { l })
    }
}

impl Index<(usize, usize)> for Matrix {
    type Output = f64;

    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.data[i * self.n + j]
    }
}

impl IndexMut<(usize, usize)> for Matrix {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.data[i * self.n + j]
    }
}

/// Cholesky factorization `A = L L^T` of a symmetric positive definite matrix.
#[derive(Debug, Clone)]
pub(super) struct Cholesky {
    l: Matrix,
}

impl Cholesky {
    /// Solves `A x = b` (`b.len()` must equal the dimension).
    pub(super) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.l.n;
        let l = &self.l;
        let mut y = vec![0.0; n];
        for i in 0..n {
            let dot: f64 = (0..i).map(|k| l[(i, k)] * y[k]).sum();
            y[i] = (b[i] - dot) / l[(i, i)];
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let dot: f64 = (i + 1..n).map(|k| l[(k, i)] * x[k]).sum();
            x[i] = (y[i] - dot) / l[(i, i)];
        }
        x
    }

    /// `A^-1`, column by column.
    pub(super) fn inverse(&self) -> Matrix {
        let n = self.l.n;
        let mut inv = Matrix::zeros(n);
        let mut unit = vec![0.0; n];
        for j in 0..n {
            unit[j] = 1.0;
            for (i, v) in self.solve(&unit).into_iter().enumerate() {
                inv[(i, j)] = v;
            }
            unit[j] = 0.0;
        }
        inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::assert_close;

    fn spd() -> Matrix {
        let mut a = Matrix::zeros(3);
        let rows = [[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]];
        for (i, row) in rows.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                a[(i, j)] = v;
            }
        }
        a
    }

    #[test]
    fn solve_and_inverse_agree_with_the_matrix() {
        let a = spd();
        let chol = a.cholesky().expect("positive definite");
        let x = chol.solve(&[1.0, 2.0, 3.0]);
        for i in 0..3 {
            let ax: f64 = (0..3).map(|k| a[(i, k)] * x[k]).sum();
            assert_close(ax, [1.0, 2.0, 3.0][i], 1e-12);
        }
        let inv = chol.inverse();
        for i in 0..3 {
            for j in 0..3 {
                let prod: f64 = (0..3).map(|k| a[(i, k)] * inv[(k, j)]).sum();
                assert_close(prod, if i == j { 1.0 } else { 0.0 }, 1e-12);
            }
        }
    }

    #[test]
    fn singular_matrix_has_no_factor() {
        let mut a = Matrix::zeros(2);
        a[(0, 0)] = 1.0;
        a[(0, 1)] = -1.0;
        a[(1, 0)] = -1.0;
        a[(1, 1)] = 1.0;
        assert!(a.cholesky().is_none());
    }
}
