/* newton.c — Newton iterations x ← x − α J⁻¹ r(x), α halved until the
 * residual decreases (Armijo on ½‖r‖², at most 12 halvings).  The
 * workspace is allocated once per run; an iteration allocates nothing. */
#include <config.h>

#include "newton.h"
#include "la.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct newton {
	int N;
	double *J, *r, *dx, *xt, *rt;
	struct la_factor *f;
	const double *terms;   /* fn's size of the residual's terms, or NULL */
};

struct newton *newton_alloc(int N)
{
	struct newton *nw = calloc(1, sizeof *nw);
	if (!nw)
		return NULL;
	nw->N = N;
	nw->J = malloc(sizeof(double) * (size_t)N * (size_t)N);
	nw->r = malloc(sizeof(double) * (size_t)N);
	nw->dx = malloc(sizeof(double) * (size_t)N);
	nw->xt = malloc(sizeof(double) * (size_t)N);
	nw->rt = malloc(sizeof(double) * (size_t)N);
	nw->f = la_factor_alloc(N, LA_DENSE_GENERAL, 0, 0);
	if (!nw->J || !nw->r || !nw->dx || !nw->xt || !nw->rt || !nw->f) {
		newton_free(nw);
		return NULL;
	}
	return nw;
}

void newton_free(struct newton *nw)
{
	if (!nw)
		return;
	free(nw->J);
	free(nw->r);
	free(nw->dx);
	free(nw->xt);
	free(nw->rt);
	la_factor_free(nw->f);
	free(nw);
}

void newton_set_terms(struct newton *nw, const double *terms)
{
	nw->terms = terms;
}

static double norm_inf(int n, const double *x)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		double a = fabs(x[i]);
		if (!(a <= s))
			s = a;   /* NaN propagates */
	}
	return s;
}

/* The largest component of r, or the first that is not finite. */
static int worst_of(int n, const double *r)
{
	int w = -1;
	double s = -1;
	for (int i = 0; i < n; i++) {
		if (!isfinite(r[i]))
			return i;
		if (fabs(r[i]) > s) {
			s = fabs(r[i]);
			w = i;
		}
	}
	return w;
}

int newton_solve(struct newton *nw, newton_fn fn, void *ctx, double *x, double tol, double scale,
                 int maxit, struct newton_report *rep)
{
	int N = nw->N;
	size_t NN = (size_t)N * (size_t)N;
	if (!(scale > 0))
		scale = 1;
	/* The bound at an iterate: tol times the larger of the caller's scale
	 * (the forces before the step, which no guess can change) and the
	 * size of the terms at that iterate, which is what rounding allows
	 * there.  An iterate is judged by its own terms, never by the guess's:
	 * a wild predictor used to set the bound for the whole iteration, and
	 * a residual of 1e12 passed.  A residual below tol times its own terms
	 * makes x the exact solution of equations perturbed by tol relative
	 * (a backward error), whatever x is.
	 *
	 * The noise exits accept a residual that no Newton direction
	 * decreases, up to 1000 tol (the discrete gradient's cancellation, a
	 * few hundred ulps) but never above 1e-10 relative nor below tol:
	 * with a loose tol they are the convergence test itself. */
	double noise = fmax(tol, fmin(1e3 * tol, 1e-10));
	memset(nw->J, 0, sizeof(double) * NN);
	fn(ctx, x, nw->r, nw->J);
	double res = norm_inf(N, nw->r), terms = nw->terms ? *nw->terms : 0;
	double bound = tol * fmax(scale, terms);
	rep->iterations = 0;
	rep->residual = res;
	rep->initial = res;
	rep->bound = bound;
	rep->worst = worst_of(N, nw->r);
	if (!isfinite(res))
		return -3;
	for (int it = 0; it < maxit; it++) {
		if (res <= bound) {
			/* Converged: one more Newton step takes a quadratically
			 * convergent iteration down to rounding, which is what exact
			 * energy balances over 10⁴ steps need; kept only if it helps. */
			if (la_factor(nw->f, nw->J) == 0) {
				for (int i = 0; i < N; i++)
					nw->dx[i] = nw->r[i];
				la_solve(nw->f, nw->dx);
				for (int i = 0; i < N; i++)
					nw->xt[i] = x[i] - nw->dx[i];
				fn(ctx, nw->xt, nw->rt, NULL);
				double rt = norm_inf(N, nw->rt);
				if (rt < res) {
					memcpy(x, nw->xt, sizeof(double) * (size_t)N);
					res = rt;
				}
			}
			rep->residual = res;
			return 0;
		}
		if (la_factor(nw->f, nw->J) != 0)
			return -2;
		for (int i = 0; i < N; i++)
			nw->dx[i] = nw->r[i];
		la_solve(nw->f, nw->dx);
		/* backtracking: accept the first α with a sufficient decrease */
		double alpha = 1, rt = INFINITY;
		int decreased = 0;
		for (int k = 0; k < 13; k++) {
			for (int i = 0; i < N; i++)
				nw->xt[i] = x[i] - alpha * nw->dx[i];
			fn(ctx, nw->xt, nw->rt, NULL);
			rt = norm_inf(N, nw->rt);
			if (rt <= (1 - 1e-4 * alpha) * res) {
				decreased = 1;
				break;
			}
			alpha *= 0.5;
		}
		/* No direction decreases a residual this small: it is at the noise
		 * level of its evaluation (e.g. the cancellation in a discrete
		 * gradient), so x is as converged as it can be. */
		if (!decreased && res <= noise / tol * bound) {
			rep->residual = res;
			return 0;
		}
		double dxn = alpha * norm_inf(N, nw->dx), xn = norm_inf(N, x);
		memcpy(x, nw->xt, sizeof(double) * (size_t)N);
		rep->iterations = it + 1;
		memset(nw->J, 0, sizeof(double) * NN);
		fn(ctx, x, nw->r, nw->J);
		res = norm_inf(N, nw->r);
		terms = nw->terms ? *nw->terms : 0;
		bound = tol * fmax(scale, terms);
		rep->residual = res;
		rep->bound = bound;
		rep->worst = worst_of(N, nw->r);
		if (!isfinite(res) || !isfinite(terms))
			return -3;
		/* a step at round-off level: nothing more to gain */
		if (dxn <= 4e-16 * xn && res <= noise / tol * bound)
			return 0;
	}
	/* the line search keeps the residual from growing (each step takes
	 * the first α that decreases it, or a step of 2⁻¹² at worst), so an
	 * iteration that ends here is slow, not divergent */
	return res <= bound ? 0 : -1;
}
