/* la.h — linear algebra for the steppers: LAPACKE wrappers for the step
 * matrices (dense or banded, SPD or general) and the generalized symmetric
 * eigenproblem.  The only file that calls LAPACK.
 *
 * Matrices are given dense, column-major n×n (LAPACK layout); a banded
 * factor copies the band out of the dense matrix when it is factored.
 * Factors are allocated once per run (la_factor_alloc) and refactored in
 * place when the step changes: no allocation in la_factor or la_solve.
 */
#ifndef DYN_LA_H
#define DYN_LA_H

enum la_kind {
	LA_DENSE_SPD,       /* dpotrf/dpotrs */
	LA_DENSE_GENERAL,   /* dgetrf/dgetrs */
	LA_BAND_SPD,        /* dpbtrf/dpbtrs, kl = ku */
	LA_BAND_GENERAL     /* dgbtrf/dgbtrs */
};

struct la_factor;

struct la_factor *la_factor_alloc(int n, enum la_kind kind, int kl, int ku);
void la_factor_free(struct la_factor *f);

/* Factor the dense column-major n×n matrix a (not modified).  Returns 0, or
 * k > 0 when pivot k (1-based) is not positive (SPD kinds) or is zero
 * (general kinds), as LAPACK's info. */
int la_factor(struct la_factor *f, const double *a);

/* Solve in place with the last successful factorization: b := A⁻¹ b. */
void la_solve(const struct la_factor *f, double *b);

/* Lower and upper bandwidths of the nonzero pattern of a (entries with
 * |a_ij| > 0). */
void la_bandwidth(int n, const double *a, int *kl, int *ku);

/* Largest |a_ij - a_ji| relative to the largest |a_ij|: 0 for a symmetric
 * matrix. */
double la_asymmetry(int n, const double *a);

/* Generalized symmetric-definite eigenproblem K φ = λ M φ (dsygvd).
 * w receives the n eigenvalues in ascending order, phi (n×n, may be NULL)
 * the M-normalised eigenvectors as columns.  Returns 0, or k > 0 when M is
 * not positive definite (pivot k), or -1 when the iteration failed. */
int la_sygv(int n, const double *k, const double *m, double *w, double *phi);

/* y := A x for a dense column-major n×n A. */
void la_gemv(int n, const double *a, const double *x, double *y);

/* y := A x for a dense column-major n×n A whose nonzeros lie within the
 * band kl below and ku above the diagonal: O(n (kl + ku)) work. */
void la_gemv_band(int n, int kl, int ku, const double *a, const double *x, double *y);

/* xᵀ A y. */
double la_quad(int n, const double *a, const double *x, const double *y);

#endif
