/* newton.h — Newton's method with backtracking line search for the
 * implicit steps of nonlinear models: a dense Jacobian factored by LU
 * (small models), or a Jacobian of fixed sparsity in the matrix layer
 * (la.h) factored by its backends. */
#ifndef DYN_NEWTON_H
#define DYN_NEWTON_H

#include "la.h"

/* Residual r(x) (N entries) and, when J is non-NULL, its Jacobian, zeroed
 * by the caller of fn: N×N column-major (newton_alloc), or the values of
 * the la_mat of newton_alloc_mat, entry a_ij at la_mat_slot(A, i, j).
 * Returns 0. */
typedef int (*newton_fn)(void *ctx, const double *x, double *r, double *J);

struct newton;

struct newton *newton_alloc(int N);
/* Newton on the matrix layer: the Jacobian is A (its pattern fixed for the
 * run, owned by the caller, which must outlive the solver; fn fills A->x).
 * The symbolic analysis is done here, once; each iteration refactors the
 * values.  backend: the run's choice (la.h; LA_AUTO: from the structure).
 * spd: the Jacobian is expected symmetric positive definite when its
 * values are symmetric (no constraint rows, no soft-thresholding rows):
 * it is then factored by Cholesky (CHOLMOD, or LAPACK's dense or banded
 * Cholesky) as long as that succeeds; a Jacobian that is not symmetric,
 * or not positive definite (a nonconvex energy), is factored by LU
 * (UMFPACK, or LAPACK's dgetrf / dgbtrf), which is set up the first time
 * it is needed and kept.  NULL when out of memory. */
struct newton *newton_alloc_mat(struct la_mat *A, enum la_backend backend, int spd);
void newton_free(struct newton *nw);

/* The factorization alone, for a caller that forms the Jacobian's values
 * itself (a linearised step with its own iteration: moreau_jean's W):
 * factor the values in A->x (newton_alloc_mat) or the dense N×N array
 * (newton_alloc), as newton_solve does at each iteration — Cholesky while
 * they are symmetric and positive definite, LU otherwise — and solve with
 * that factor.  newton_factor returns 0, k > 0 when singular, -1 when out
 * of memory. */
int newton_factor(struct newton *nw);
void newton_factored_solve(struct newton *nw, double *b);

/* Where fn leaves the size of the terms that cancel in the residual at the
 * x it was last called with (their rounding bounds the attainable
 * residual); NULL (the default) when fn does not say. */
void newton_set_terms(struct newton *nw, const double *terms);

struct newton_report {
	int iterations;
	double residual;      /* ‖r‖∞ at the end */
	double initial;       /* ‖r‖∞ at the initial guess */
	double bound;         /* the bound it was judged against (tol·scale) */
	int worst;            /* the component of r largest at the end (the
	                         first not finite), -1 when none */
};

/* Solve r(x) = 0 from the initial x (updated in place) until
 * ‖r‖∞ <= tol·max(scale, terms(x)) — scale given by the caller from the
 * state before the step, terms(x) the size of the residual's terms at the
 * accepted x itself, never at the guess — or until no step decreases a
 * residual already at its rounding level.  Returns 0, -1 when not
 * converged in maxit iterations, -3 when the residual is not finite
 * (divergence), -2 for a singular Jacobian, -4 when the factorization
 * ran out of memory. */
int newton_solve(struct newton *nw, newton_fn fn, void *ctx, double *x, double tol, double scale,
                 int maxit, struct newton_report *rep);

#endif
