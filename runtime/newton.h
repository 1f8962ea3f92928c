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

struct newton_report {
	int iterations;
	double residual;      /* ‖r‖∞ at the end */
};

/* Solve r(x) = 0 from the initial x (updated in place) until
 * ‖r‖∞ <= tol·scale or the step stagnates at round-off.  Returns 0, -1
 * when not converged in maxit iterations, -2 for a singular Jacobian. */
int newton_solve(struct newton *nw, newton_fn fn, void *ctx, double *x, double tol, double scale,
                 int maxit, struct newton_report *rep);

#endif
