/* newton.h — Newton's method with backtracking line search for the
 * implicit steps of nonlinear models (dense Jacobian, LU). */
#ifndef DYN_NEWTON_H
#define DYN_NEWTON_H

/* Residual r(x) (N entries) and, when J is non-NULL, its Jacobian (N×N,
 * column-major, zeroed by the caller of fn).  Returns 0. */
typedef int (*newton_fn)(void *ctx, const double *x, double *r, double *J);

struct newton;

struct newton *newton_alloc(int N);
void newton_free(struct newton *nw);

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
 * (divergence), -2 for a singular Jacobian. */
int newton_solve(struct newton *nw, newton_fn fn, void *ctx, double *x, double tol, double scale,
                 int maxit, struct newton_report *rep);

#endif
