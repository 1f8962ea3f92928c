/* newton.c — Newton iterations x ← x − α J⁻¹ r(x), α halved until the
 * residual decreases (Armijo on ½‖r‖², at most 12 halvings).  The
 * workspace is allocated once per run; an iteration allocates nothing
 * (but UMFPACK's numeric object, and the LU set up once when a Jacobian
 * expected positive definite turns out not to be). */
#include <config.h>

#include "newton.h"
#include "la.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct newton {
	int N;
	double *J, *r, *dx, *xt, *rt;
	struct la_factor *f;
	const double *terms;   /* fn's size of the residual's terms, or NULL */
	/* the matrix layer (newton_alloc_mat): J is A->x */
	struct la_mat *A;
	enum la_backend backend;
	int spd;               /* Cholesky is still tried on symmetric values */
	ptrdiff_t *tslot;      /* the slot of a_ji for each slot of a_ij */
	struct la_solver *chol, *lu, *cur;
};

static struct newton *alloc_vectors(int N)
{
	struct newton *nw = mem_calloc(1, sizeof *nw);
	if (!nw)
		return NULL;
	nw->N = N;
	nw->r = mem_alloc(sizeof(double) * ((size_t)N + 1));
	nw->dx = mem_alloc(sizeof(double) * ((size_t)N + 1));
	nw->xt = mem_alloc(sizeof(double) * ((size_t)N + 1));
	nw->rt = mem_alloc(sizeof(double) * ((size_t)N + 1));
	if (!nw->r || !nw->dx || !nw->xt || !nw->rt) {
		newton_free(nw);
		return NULL;
	}
	return nw;
}

struct newton *newton_alloc(int N)
{
	struct newton *nw = alloc_vectors(N);
	if (!nw)
		return NULL;
	nw->J = mem_alloc(sizeof(double) * (size_t)N * (size_t)N);
	nw->f = la_factor_alloc(N, LA_DENSE_GENERAL, 0, 0);
	if (!nw->J || !nw->f) {
		newton_free(nw);
		return NULL;
	}
	return nw;
}

/* The backends of the two factorizations a run's solver choice allows:
 * solver = sparse forces CHOLMOD, which takes only SPD matrices; its LU
 * counterpart is UMFPACK. */
static enum la_backend spd_backend(enum la_backend b)
{
	return b == LA_UMFPACK ? LA_CHOLMOD : b;
}

static enum la_backend lu_backend(enum la_backend b)
{
	return b == LA_CHOLMOD ? LA_UMFPACK : b;
}

struct newton *newton_alloc_mat(struct la_mat *A, enum la_backend backend, int spd)
{
	struct newton *nw = alloc_vectors(A->n);
	if (!nw)
		return NULL;
	nw->A = A;
	nw->backend = backend;
	if (spd) {
		/* Cholesky needs a symmetric pattern: the transpose of each slot */
		int *row = mem_alloc((A->nx + 1) * sizeof *row), *col = mem_alloc((A->nx + 1) * sizeof *col);
		nw->tslot = mem_alloc((A->nx + 1) * sizeof *nw->tslot);
		if (!row || !col || !nw->tslot) {
			free(row);
			free(col);
			newton_free(nw);
			return NULL;
		}
		la_mat_pattern(A, row, col);
		for (size_t k = 0; k < A->nx && spd; k++) {
			nw->tslot[k] = row[k] < 0 ? (ptrdiff_t)k : la_mat_slot(A, col[k], row[k]);
			spd = nw->tslot[k] >= 0;
		}
		free(row);
		free(col);
	}
	if (spd) {
		/* the values are zero, symmetric, when the analysis is made */
		memset(A->x, 0, sizeof(double) * A->nx);
		A->sym = 1;
		nw->chol = la_solver_alloc(A, spd_backend(backend), LA_SPD);
		if (!nw->chol) {
			newton_free(nw);
			return NULL;
		}
		nw->spd = 1;
	} else {
		free(nw->tslot);
		nw->tslot = NULL;
		A->sym = 0;
		nw->lu = la_solver_alloc(A, lu_backend(backend), 0);
		if (!nw->lu) {
			newton_free(nw);
			return NULL;
		}
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
	free(nw->tslot);
	la_solver_free(nw->chol);
	la_solver_free(nw->lu);
	free(nw);
}

/* The Jacobian's values as fn fills them, and their number. */
static double *jac(struct newton *nw)
{
	return nw->A ? nw->A->x : nw->J;
}

static size_t jac_size(const struct newton *nw)
{
	return nw->A ? nw->A->nx : (size_t)nw->N * (size_t)nw->N;
}

/* Factor the Jacobian of the last fn call: 0, k > 0 singular, -1 out of
 * memory.  On the matrix layer: Cholesky while the values are exactly
 * symmetric and it succeeds, LU otherwise. */
static int factor(struct newton *nw)
{
	if (!nw->A)
		return la_factor(nw->f, nw->J);
	struct la_mat *A = nw->A;
	if (nw->spd) {
		int sym = 1;
		for (size_t k = 0; k < A->nx && sym; k++)
			sym = A->x[k] == A->x[nw->tslot[k]];
		if (sym) {
			A->sym = 1;
			int rc = la_solver_factor(nw->chol, A);
			if (rc <= 0) {
				nw->cur = nw->chol;
				return rc;
			}
			/* not positive definite (an energy not convex there): LU
			 * from now on, a failed Cholesky costing as much as one
			 * that succeeds; a backend's reason for it (PETSc's
			 * inertia) is no failure of the step's */
			la_backend_failure();
			nw->spd = 0;
		}
	}
	A->sym = 0;
	if (!nw->lu && !(nw->lu = la_solver_alloc(A, lu_backend(nw->backend), 0)))
		return -1;
	nw->cur = nw->lu;
	return la_solver_factor(nw->lu, A);
}

static void solve(struct newton *nw, double *b)
{
	if (nw->A)
		la_solver_solve(nw->cur, b);
	else
		la_solve(nw->f, b);
}

int newton_factor(struct newton *nw)
{
	return factor(nw);
}

void newton_factored_solve(struct newton *nw, double *b)
{
	solve(nw, b);
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
		if (isnan(a))
			return a;   /* a NaN anywhere is the norm: the finite
			               entries after it must not hide it */
		if (a > s)
			s = a;
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
	size_t NN = jac_size(nw);
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
	memset(jac(nw), 0, sizeof(double) * NN);
	fn(ctx, x, nw->r, jac(nw));
	double res = norm_inf(N, nw->r), terms = nw->terms ? *nw->terms : 0;
	double bound = tol * fmax(scale, terms);
	rep->iterations = 0;
	rep->residual = res;
	rep->initial = res;
	rep->bound = bound;
	rep->worst = worst_of(N, nw->r);
	if (!isfinite(res))
		return -3;
	double last = INFINITY;   /* the residual before the last iteration */
	for (int it = 0; it < maxit; it++) {
		if (res <= bound) {
			/* Converged: one more Newton step takes a quadratically
			 * convergent iteration down to rounding, which is what exact
			 * energy balances over 10⁴ steps need; kept only if it helps. */
			if (factor(nw) == 0) {
				for (int i = 0; i < N; i++)
					nw->dx[i] = nw->r[i];
				solve(nw, nw->dx);
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
		int frc = factor(nw);
		if (frc != 0)
			return frc < 0 ? -4 : -2;
		for (int i = 0; i < N; i++)
			nw->dx[i] = nw->r[i];
		solve(nw, nw->dx);
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
		last = res;
		memcpy(x, nw->xt, sizeof(double) * (size_t)N);
		rep->iterations = it + 1;
		memset(jac(nw), 0, sizeof(double) * NN);
		fn(ctx, x, nw->r, jac(nw));
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
	 * iteration that ends here is slow, not divergent.  One that ends
	 * under the noise exits' level, its last iteration gaining less than
	 * a factor 2, has crept along rounding: the soft-thresholding rows of
	 * σ|z'| on a few hundred cells whose plastic flow starts or stops
	 * within rounding of the yield stress switch back and forth, and each
	 * step "decreases" the residual by a little (a 320-cell bar crawled
	 * from 1e-11 to 3e-13 relative in 25 iterations); it is as converged
	 * as those exits would have it.  A fast iteration cut short
	 * (max_iterations = 1) still fails, and on_failure applies. */
	return res <= bound || (res <= noise / tol * bound && res > 0.5 * last) ? 0 : -1;
}
