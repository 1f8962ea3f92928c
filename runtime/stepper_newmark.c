/* stepper_newmark.c — the Newmark family (DESIGN.md, "Schemes"):
 *
 *   uᵏ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²[(½−β)aᵏ⁻¹ + βaᵏ]
 *   vᵏ = vᵏ⁻¹ + τ[(1−γ)aᵏ⁻¹ + γaᵏ]
 *   M aᵏ + C vᵏ + K uᵏ = f(tₖ)
 *
 * in acceleration form: with the predictors ũ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²(½−β)aᵏ⁻¹
 * and ṽ = vᵏ⁻¹ + τ(1−γ)aᵏ⁻¹, (M + γτC + βτ²K) aᵏ = f(tₖ) − Cṽ − Kũ.  The
 * step matrix is factored once per step size.  β = 0 is explicit in K and
 * is the central-difference scheme (stepper_central.c). */
#include <config.h>

#include "stepper.h"
#include "la.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct newmark {
	const struct rt_system *sys;
	double beta, gamma, tau;
	struct la_factor *f;
	double *work, *ut, *vt, *rhs, *tmp;
};

static void nm_free(void *p)
{
	struct newmark *s = p;
	if (!s)
		return;
	la_factor_free(s->f);
	free(s->work);
	free(s->ut);
	free(s->vt);
	free(s->rhs);
	free(s->tmp);
	free(s);
}

int step_factor(const struct rt_system *sys, struct la_factor *f, double *work,
                double cM, double cC, double cK)
{
	size_t nn = (size_t)sys->n * (size_t)sys->n;
	for (size_t i = 0; i < nn; i++)
		work[i] = cM * sys->M[i] + (sys->C ? cC * sys->C[i] : 0) + cK * sys->K[i];
	return la_factor(f, work);
}

static void *nm_alloc(const struct rt_system *sys, const double *p, struct rt_error *err)
{
	struct newmark *s = calloc(1, sizeof *s);
	int n = sys->n;
	if (!s)
		goto oom;
	s->sys = sys;
	s->beta = p[0];
	s->gamma = p[1];
	/* M + γτC + βτ²K is symmetric positive definite for symmetric
	 * non-negative C and K; the general factorization covers the rest. */
	int sym = la_asymmetry(n, sys->K) == 0 && (!sys->C || la_asymmetry(n, sys->C) == 0);
	enum la_kind kind = sys->banded ? (sym ? LA_BAND_SPD : LA_BAND_GENERAL)
	                                : (sym ? LA_DENSE_SPD : LA_DENSE_GENERAL);
	s->f = la_factor_alloc(n, kind, sys->kl, sys->ku);
	s->work = malloc(sizeof(double) * (size_t)n * (size_t)n);
	s->ut = malloc(sizeof(double) * (size_t)n);
	s->vt = malloc(sizeof(double) * (size_t)n);
	s->rhs = malloc(sizeof(double) * (size_t)n);
	s->tmp = malloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->work || !s->ut || !s->vt || !s->rhs || !s->tmp)
		goto oom;
	return s;
oom:
	nm_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int nm_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	s->tau = tau;
	int info = step_factor(s->sys, s->f, s->work, 1, s->gamma * tau, s->beta * tau * tau);
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg,
		         "the step matrix M + gamma*tau*C + beta*tau^2*K is singular or not positive definite "
		         "at pivot %d (dof %s)", info, s->sys->dof_name[info - 1]);
		err->code = 3;
		return -1;
	}
	return 0;
}

static int nm_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct newmark *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double b = s->beta, g = s->gamma;
	(void)err;
	for (int i = 0; i < n; i++) {
		s->ut[i] = u[i] + tau * v[i] + tau * tau * (0.5 - b) * a[i];
		s->vt[i] = v[i] + tau * (1 - g) * a[i];
	}
	sys->load(sys->load_ctx, t, s->rhs);
	la_gemv_band(n, sys->kl, sys->ku, sys->K, s->ut, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	if (sys->C) {
		la_gemv_band(n, sys->kl, sys->ku, sys->C, s->vt, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= s->tmp[i];
	}
	la_solve(s->f, s->rhs);
	for (int i = 0; i < n; i++) {
		a[i] = s->rhs[i];
		u[i] = s->ut[i] + b * tau * tau * a[i];
		v[i] = s->vt[i] + g * tau * a[i];
	}
	return 0;
}

static const struct stepper_type newmark_type = {
	.name = "newmark",
	.order = 2,
	.flags = STEP_IMPLICIT | STEP_CONSERVING,
	.alloc = nm_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.free = nm_free,
};

const struct stepper_type *const step_newmark = &newmark_type;
