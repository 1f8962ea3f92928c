/* stepper_alpha.c — generalized-α (Chung & Hulbert 1993) on linear models
 * with constant operators (DESIGN.md, "Schemes"):
 *
 *   M[(1−α_m)aᵏ + α_m aᵏ⁻¹] + (1−α_f)(C vᵏ + K uᵏ) + α_f(C vᵏ⁻¹ + K uᵏ⁻¹) = f(t_{k−α_f})
 *
 * with Newmark's updates, in acceleration form: the step matrix
 * (1−α_m)M + (1−α_f)(γτC + βτ²K) is factored once per step size.  The
 * same scheme as runtime/nl_alpha.c, without Newton. */
#include <config.h>

#include "stepper.h"
#include "la.h"

#include <stdio.h>
#include <stdlib.h>

struct alpha_lin {
	const struct rt_system *sys;
	double am, af, beta, gamma;
	struct la_factor *f;
	double *work, *ut, *vt, *rhs, *tmp, *w;
};

static void ga_free(void *p)
{
	struct alpha_lin *s = p;
	if (!s)
		return;
	la_factor_free(s->f);
	free(s->work);
	free(s->ut);
	free(s->vt);
	free(s->rhs);
	free(s->tmp);
	free(s->w);
	free(s);
}

static void *ga_alloc(const struct rt_system *sys, const double *p, struct rt_error *err)
{
	int n = sys->n;
	struct alpha_lin *s = calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->sys = sys;
	s->am = p[0];
	s->af = p[1];
	s->beta = p[2];
	s->gamma = p[3];
	s->f = la_factor_alloc(n, sys->banded ? LA_BAND_GENERAL : LA_DENSE_GENERAL, sys->kl, sys->ku);
	s->work = malloc(sizeof(double) * (size_t)n * (size_t)n);
	s->ut = malloc(sizeof(double) * (size_t)n);
	s->vt = malloc(sizeof(double) * (size_t)n);
	s->rhs = malloc(sizeof(double) * (size_t)n);
	s->tmp = malloc(sizeof(double) * (size_t)n);
	s->w = malloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->work || !s->ut || !s->vt || !s->rhs || !s->tmp || !s->w)
		goto oom;
	return s;
oom:
	ga_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int ga_set_step(void *p, double tau, struct rt_error *err)
{
	struct alpha_lin *s = p;
	double c = 1 - s->af;
	int info = step_factor(s->sys, s->f, s->work, 1 - s->am, c * s->gamma * tau, c * s->beta * tau * tau);
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the step matrix of generalized_alpha is singular at pivot %d (dof %s)",
		         info, s->sys->dof_name[info - 1]);
		err->code = 3;
		return -1;
	}
	return 0;
}

static int ga_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct alpha_lin *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double b = s->beta, g = s->gamma, am = s->am, af = s->af;
	(void)err;
	for (int i = 0; i < n; i++) {
		s->ut[i] = u[i] + tau * v[i] + tau * tau * (0.5 - b) * a[i];
		s->vt[i] = v[i] + tau * (1 - g) * a[i];
		/* w = (1−α_f)ũ + α_f uᵏ⁻¹ for K, likewise for C below */
		s->w[i] = (1 - af) * s->ut[i] + af * u[i];
	}
	sys->load(sys->load_ctx, t - af * tau, s->rhs);
	la_gemv_band(n, sys->kl, sys->ku, sys->K, s->w, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	if (sys->C) {
		for (int i = 0; i < n; i++)
			s->w[i] = (1 - af) * s->vt[i] + af * v[i];
		la_gemv_band(n, sys->kl, sys->ku, sys->C, s->w, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= s->tmp[i];
	}
	if (am != 0) {
		la_gemv_band(n, sys->kl, sys->ku, sys->M, a, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= am * s->tmp[i];
	}
	la_solve(s->f, s->rhs);
	for (int i = 0; i < n; i++) {
		a[i] = s->rhs[i];
		u[i] = s->ut[i] + b * tau * tau * a[i];
		v[i] = s->vt[i] + g * tau * a[i];
	}
	return 0;
}

static const struct stepper_type alpha_type = {
	.name = "generalized_alpha",
	.order = 2,
	.flags = STEP_IMPLICIT | STEP_DISSIPATIVE,
	.alloc = ga_alloc,
	.set_step = ga_set_step,
	.step = ga_step,
	.free = ga_free,
};

const struct stepper_type *const step_generalized_alpha = &alpha_type;
