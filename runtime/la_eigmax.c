/* la_eigmax.c — the largest eigenvalue of a symmetric pencil K φ = λ M φ
 * (M positive definite, K any symmetric matrix) by the Lanczos process on
 * M⁻¹K in the M inner product, without reorthogonalization (Parlett, "The
 * Symmetric Eigenvalue Problem", 1998, §13.1 for the recurrence and
 * §13.2 for the pencil; Golub and Van Loan, "Matrix Computations",
 * §10.1 for the recurrence, §10.3 for its behaviour in floating point).
 *
 * With q₁ = x₀/‖x₀‖_M and q₀ = 0, each step is
 *
 *   α_j = q_jᵀ K q_j,   w = M⁻¹K q_j − α_j q_j − β_j q_{j−1},
 *   β_{j+1} = ‖w‖_M,    q_{j+1} = w/β_{j+1},
 *
 * and the eigenvalues of the tridiagonal T_j = tridiag(β, α, β) (the Ritz
 * values) approach those of the pencil from inside its spectrum: the
 * largest, θ, from below (Courant–Fischer).  Its Ritz vector's residual in
 * the M⁻¹ norm is β_{j+1}|s_j|, s the unit eigenvector of T_j for θ (G&VL
 * (10.1.8)), and some eigenvalue lies within that of θ.  Paige's analysis
 * (G&VL §10.3.2) says the loss of orthogonality in floating point only
 * adds copies of converged Ritz values; the residual bound stays valid, so
 * no Lanczos vector is kept: three vectors of n, one product with K and
 * one solve with M per step.
 *
 * The power iteration this replaces (the same products, one per step)
 * converges as (λ₂/λ₁)^k; Lanczos as a Chebyshev polynomial of that gap,
 * roughly its square root in steps: on a chain of 10⁴ masses, whose top
 * eigenvalues are 1e-7 apart relatively, 500 power iterations stopped
 * 1.5e-3 below λ_max. */
#include <config.h>

#include "la.h"
#include "mem.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the start vector: a component along every mode of a chain or a mesh,
 * no pattern that an eigenvector could be orthogonal to */
/* rows first .. first + n − 1 of the start vector */
static void start_vector(int first, int n, double *x)
{
	for (int i = 0; i < n; i++) {
		int g = first + i;
		x[i] = (g % 2 ? -1 : 1) * (1 + 0.1 * sin(g));
	}
}

/* dstevx's scratch for T_j, j at most its size */
struct ritz_work {
	double *d, *e, *w, *z, *work;   /* j, j, j, j, 5j */
	lapack_int *iwork;              /* 5j, then ifail: j */
};

/* The largest eigenvalue θ of T_j (alpha[0 .. j−1], beta[1 .. j−1] its
 * off-diagonal) and the last component of its unit eigenvector, by
 * bisection and inverse iteration (LAPACK dstevx, only the one asked
 * for: O(j)). */
static int ritz_max(int j, const double *alpha, const double *beta, struct ritz_work *r, double *theta, double *last)
{
	lapack_int m = 0;
	memcpy(r->d, alpha, sizeof(double) * (size_t)j);
	if (j > 1)
		memcpy(r->e, beta + 1, sizeof(double) * (size_t)(j - 1));
	lapack_int info = LAPACKE_dstevx_work(LAPACK_COL_MAJOR, 'V', 'I', j, r->d, r->e, 0, 0, j, j, 0, &m, r->w, r->z,
	                                      j, r->work, r->iwork, r->iwork + 5 * (size_t)j);
	if (info != 0 || m != 1)
		return -1;
	*theta = r->w[0];
	*last = r->z[j - 1];
	return 0;
}

int la_eig_max(int n, const struct la_eigmax_ops *ops, int maxit, double rtol, double *lmax, int *steps)
{
	int rc = -1, j = 0;
	if (maxit < 1)
		return -2;
	int N = ops->sum ? ops->nglobal : n;
	if (maxit > N)
		maxit = N;
	double *q0 = mem_alloc(sizeof(double) * (size_t)n), *q = mem_alloc(sizeof(double) * (size_t)n);
	double *w = mem_alloc(sizeof(double) * (size_t)n);
	size_t mj = (size_t)maxit + 1;
	double *alpha = malloc(sizeof(double) * mj), *beta = malloc(sizeof(double) * mj);
	struct ritz_work r = { malloc(sizeof(double) * mj), malloc(sizeof(double) * mj), malloc(sizeof(double) * mj),
		               malloc(sizeof(double) * mj), malloc(sizeof(double) * 5 * mj),
		               malloc(sizeof(lapack_int) * 6 * mj) };
	if (!q0 || !q || !w || !alpha || !beta || !r.d || !r.e || !r.w || !r.z || !r.work || !r.iwork)
		goto out;
	double theta = 0;
	start_vector(ops->sum ? ops->first : 0, n, q);
	double b = ops->mdot(ops->ctx, q);
	if (!(b > 0) || !isfinite(b)) {
		rc = -2;
		goto out;
	}
	b = sqrt(b);
	for (int i = 0; i < n; i++) {
		q[i] /= b;
		q0[i] = 0;
	}
	beta[0] = 0;
	for (j = 1; j <= maxit; j++) {
		/* w = K q_j, α_j = q_jᵀ w, then w = M⁻¹ K q_j − α_j q_j − β_j q_{j−1} */
		ops->kmul(ops->ctx, q, w);
		double a = 0;
		for (int i = 0; i < n; i++)
			a += q[i] * w[i];
		if ((ops->sum && ops->sum(&a, 1)) || ops->msolve(ops->ctx, w)) {
			rc = -2;
			goto out;
		}
		double bj = beta[j - 1];
		for (int i = 0; i < n; i++)
			w[i] -= a * q[i] + bj * q0[i];
		alpha[j - 1] = a;
		double b2 = ops->mdot(ops->ctx, w);
		if (!isfinite(a) || !isfinite(b2)) {
			rc = -3;
			goto out;
		}
		double bn = b2 > 0 ? sqrt(b2) : 0, s = 0;
		if (ritz_max(j, alpha, beta, &r, &theta, &s)) {
			rc = -2;
			goto out;
		}
		/* converged, or the Krylov space is invariant (β = 0): θ is an
		 * eigenvalue of the pencil */
		if (bn * fabs(s) <= rtol * fabs(theta) || bn == 0 || j == maxit)
			break;
		beta[j] = bn;
		for (int i = 0; i < n; i++) {
			double t = w[i] / bn;
			q0[i] = q[i];
			q[i] = t;
		}
	}
	*lmax = theta;
	if (steps)
		*steps = j > maxit ? maxit : j;
	rc = 0;
out:
	free(q0);
	free(q);
	free(w);
	free(alpha);
	free(beta);
	free(r.d);
	free(r.e);
	free(r.w);
	free(r.z);
	free(r.work);
	free(r.iwork);
	return rc;
}

/* ---- the power iteration (la_eig_power) ----
 *
 * Golub and Van Loan, "Matrix Computations", §8.2.1, on M⁻¹(K + σM)
 * with the Rayleigh quotient: θ never exceeds the largest eigenvalue
 * (Courant–Fischer) and approaches it from below.  One product with K,
 * one with M and one solve a step; kept beside Lanczos for the monitors
 * that follow a slowly changing K(u) from the last step's vector, where
 * four warm iterations a step suffice. */

static void power_start(const struct la_power_ops *op, double *x)
{
	for (int i = op->lo; i < op->hi; i++)
		x[i] = 0.5 + sin(1.7 * (i + 1));
}

static int power_sum(const struct la_power_ops *op, double *s)
{
	return op->sum ? op->sum(op->ctx, s) : 0;
}

/* x := x / √(xᵀMx), *q = √(xᵀMx) (0 when xᵀMx is not positive) */
static int power_normalise(const struct la_power_ops *op, double *x, double *t, double *q)
{
	double s = 0;
	if (op->mmul(op->ctx, x, t))
		return -1;
	for (int i = op->lo; i < op->hi; i++)
		s += x[i] * t[i];
	if (power_sum(op, &s))
		return -1;
	*q = 0;
	if (!(s > 0))
		return 0;
	s = sqrt(s);
	for (int i = op->lo; i < op->hi; i++)
		x[i] /= s;
	*q = s;
	return 0;
}

/* *r = xᵀKx, K x left in y */
static int power_rayleigh(const struct la_power_ops *op, double *x, double *y, double *r)
{
	double s = 0;
	if (op->kmul(op->ctx, x, y))
		return -1;
	for (int i = op->lo; i < op->hi; i++)
		s += x[i] * y[i];
	if (power_sum(op, &s))
		return -1;
	*r = s;
	return 0;
}

int la_eig_power(const struct la_power_ops *op, double *x, double *y, double *t, double sigma, int *warm, int it,
                 double *theta)
{
	double q;
	if (!*warm)
		it = 500;
	if (power_normalise(op, x, t, &q))
		return -1;
	if (q == 0) {
		power_start(op, x);
		if (power_normalise(op, x, t, &q))
			return -1;
	}
	if (power_rayleigh(op, x, y, theta))
		return -1;
	for (int k = 0; k < it; k++) {
		if (op->kmul(op->ctx, x, y) || op->mmul(op->ctx, x, t))
			return -1;
		for (int i = op->lo; i < op->hi; i++)
			y[i] += sigma * t[i];
		if (op->msolve(op->ctx, y) || power_normalise(op, y, t, &q))
			return -1;
		if (q == 0)
			break;   /* (K + σM)x = 0: x is an eigenvector for −σ */
		memcpy(x + op->lo, y + op->lo, sizeof(double) * (size_t)(op->hi - op->lo));
		double next;
		if (power_rayleigh(op, x, y, &next))
			return -1;
		int done = fabs(next - *theta) <= 1e-10 * fabs(next);
		*theta = next;
		if (done)
			break;
	}
	*warm = 1;
	return 0;
}
