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
		if (sys->M[i + (size_t)i * n] == 0) {
			snprintf(err->msg, sizeof err->msg,
			         "central_difference needs a mass for every dof: dof %s has none", sys->dof_name[i]);
			err->code = 3;
			free(s);
			free(w);
			return NULL;
		}
	}
	int info = la_sygv(n, sys->K, sys->M, w, NULL);
	if (info != 0) {
		snprintf(err->msg, sizeof err->msg, "central_difference: the eigenvalues of K φ = ω² M φ "
		         "could not be computed (the mass matrix is not positive definite?)");
		err->code = 3;
		free(s);
		free(w);
		return NULL;
	}
	s->omega_max = sqrt(w[n - 1] > 0 ? w[n - 1] : 0);
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
