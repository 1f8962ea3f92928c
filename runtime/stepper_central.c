/* stepper_central.c — explicit central differences (DESIGN.md, "Schemes"):
 *
 *   uᵏ⁺¹ − 2uᵏ + uᵏ⁻¹ = τ²aᵏ,  vᵏ = (uᵏ⁺¹ − uᵏ⁻¹)/2τ,  M aᵏ + C vᵏ + K uᵏ = fᵏ
 *
 * which is Newmark with β = 0, γ = ½ exactly (eliminating vᵏ gives the
 * same recurrence), so the step reuses the Newmark stepper: each step
 * solves with M + (τ/2)C = τ²(M/τ² + C/2τ), factored once.  What is
 * particular is stability: τ must stay below 2/ω_max, ω_max² the largest
 * eigenvalue of K φ = ω² M φ, and a larger step is refused. */
#include <config.h>

#include "scheme.h"
#include "la.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct central {
	void *newmark;
	double tau_crit, omega_max;
};

static void cd_free(void *p)
{
	struct central *s = p;
	if (!s)
		return;
	step_newmark.free(s->newmark);
	free(s);
}

/* Up to this order ω_max comes from the dense generalized eigensolver
 * (dsygvd, O(n³) once); above, from power iterations. */
enum { CD_DENSE_MAX = 1000 };

/* The largest eigenvalue of K φ = λ M φ by power iteration on M⁻¹K with
 * the Rayleigh quotient θ = xᵀKx / xᵀMx (Golub and Van Loan, "Matrix
 * Computations", §8.2.1; §7.3.1 for its convergence), a solve with M per
 * iteration.  θ approaches λ_max from below; the iteration stops when it
 * changes by less than 1e-10 relatively, or after 1000 iterations.  The
 * start vector alternates in sign, rich in the highest modes of a chain.
 * 0, or -1 when out of memory or M cannot be factored. */
static int power_lambda_max(const struct rt_system *sys, double *lmax)
{
	int n = sys->n, rc = -1;
	double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
	struct la_solver *mf = x && y ? la_solver_alloc(sys->M, sys->M->sym ? LA_AUTO : LA_UMFPACK,
	                                                 sys->M->sym ? LA_SPD : 0) : NULL;
	if (mf && la_solver_factor(mf, sys->M) == 0) {
		double theta = 0;
		for (int i = 0; i < n; i++)
			x[i] = (i % 2 ? -1 : 1) * (1 + 0.1 * sin(i));
		for (int it = 0; it < 1000; it++) {
			la_mat_mul(sys->K, x, y);
			double xkx = 0, xmx = la_mat_dot(sys->M, x, x);
			for (int i = 0; i < n; i++)
				xkx += x[i] * y[i];
			double th = xkx / xmx;
			la_solver_solve(mf, y);
			double nrm = 0;
			for (int i = 0; i < n; i++)
				nrm = fmax(nrm, fabs(y[i]));
			if (!(nrm > 0) || !isfinite(nrm)) {
				theta = th;
				break;
			}
			for (int i = 0; i < n; i++)
				x[i] = y[i] / nrm;
			int done = fabs(th - theta) <= 1e-10 * fabs(th);
			theta = th;
			if (done)
				break;
		}
		*lmax = theta;
		rc = 0;
	}
	la_solver_free(mf);
	free(x);
	free(y);
	return rc;
}

static void *cd_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	int n = sys->n;
	struct central *s = calloc(1, sizeof *s);
	double *w = malloc(sizeof(double) * (size_t)n);
	if (!s || !w) {
		free(s);
		free(w);
		snprintf(err->msg, sizeof err->msg, "out of memory");
		err->code = 3;
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		/* A dof without mass has no finite critical step. */
		if (la_mat_get(sys->M, i, i) == 0) {
			snprintf(err->msg, sizeof err->msg,
			         "central_difference needs a mass for every dof: dof %s has none", sys->dof_name[i]);
			err->code = 3;
			free(s);
			free(w);
			return NULL;
		}
	}
	int info = -1;
	double lmax = 0;
	if (n <= CD_DENSE_MAX) {
		double *k = malloc(sizeof(double) * (size_t)n * (size_t)n), *m = malloc(sizeof(double) * (size_t)n * (size_t)n);
		if (k && m) {
			la_mat_to_dense(sys->K, k);
			la_mat_to_dense(sys->M, m);
			info = la_sygv(n, k, m, w, NULL);
			lmax = info == 0 ? w[n - 1] : 0;
		}
		free(k);
		free(m);
	} else {
		info = power_lambda_max(sys, &lmax);
	}
	if (info != 0) {
		snprintf(err->msg, sizeof err->msg, "central_difference: the eigenvalues of K φ = ω² M φ "
		         "could not be computed (the mass matrix is not positive definite?)");
		err->code = 3;
		free(s);
		free(w);
		return NULL;
	}
	s->omega_max = sqrt(lmax > 0 ? lmax : 0);
	s->tau_crit = s->omega_max > 0 ? 2 / s->omega_max : INFINITY;
	free(w);
	static const struct alpha_params half = { 0, 0, 0, 0.5 };
	s->newmark = step_newmark.alloc(sys, &half, err);
	if (!s->newmark) {
		free(s);
		return NULL;
	}
	return s;
}

static int cd_set_step(void *p, double tau, struct rt_error *err)
{
	struct central *s = p;
	if (tau > s->tau_crit) {
		snprintf(err->msg, sizeof err->msg,
		         "step %.6g exceeds the critical step 2/omega_max = %.6g of central_difference "
		         "(omega_max = %.6g rad/s): take a step below %.6g or an implicit scheme",
		         tau, s->tau_crit, s->omega_max, s->tau_crit);
		err->code = 3;
		return -1;
	}
	return step_newmark.set_step(s->newmark, tau, err);
}

static int cd_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct central *s = p;
	return step_newmark.step(s->newmark, t, tau, u, v, a, err);
}

const struct scheme_linear step_central_difference = {
	.alloc = cd_alloc,
	.set_step = cd_set_step,
	.step = cd_step,
	.free = cd_free,
};
