/* stepper_newmark.c — the Newmark family and generalized-α (Chung &
 * Hulbert 1993) on linear models with constant operators (DESIGN.md,
 * "Schemes"):
 *
 *   uᵏ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²[(½−β)aᵏ⁻¹ + βaᵏ]
 *   vᵏ = vᵏ⁻¹ + τ[(1−γ)aᵏ⁻¹ + γaᵏ]
 *   M[(1−α_m)aᵏ + α_m aᵏ⁻¹] + (1−α_f)(C vᵏ + K uᵏ) + α_f(C vᵏ⁻¹ + K uᵏ⁻¹) = f(t_{k−α_f})
 *
 * Newmark is α_m = α_f = 0.  In acceleration form, with the predictors
 * ũ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²(½−β)aᵏ⁻¹ and ṽ = vᵏ⁻¹ + τ(1−γ)aᵏ⁻¹, the step
 * matrix (1−α_m)M + (1−α_f)(γτC + βτ²K) is factored once per step size
 * (Cholesky for Newmark with symmetric operators).  β = 0 is explicit in K
 * and is the central-difference scheme (stepper_central.c).  The same
 * scheme as runtime/nl_alpha.c, without Newton. */
#include <config.h>

#include "scheme.h"
#include "la.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct newmark {
	const struct rt_system *sys;
	double am, af, beta, gamma, tau;
	struct step_matrix *f;
	double *ut, *vt, *rhs, *tmp, *w;
};

static void nm_free(void *p)
{
	struct newmark *s = p;
	if (!s)
		return;
	step_matrix_free(s->f);
	free(s->ut);
	free(s->vt);
	free(s->rhs);
	free(s->tmp);
	free(s->w);
	free(s);
}

/* par: struct alpha_params */
static void *alpha_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	const struct alpha_params *q = par;
	struct newmark *s = calloc(1, sizeof *s);
	int n = sys->n;
	if (!s)
		goto oom;
	s->sys = sys;
	s->am = q->alpha_m;
	s->af = q->alpha_f;
	s->beta = q->beta;
	s->gamma = q->gamma;
	/* M + γτC + βτ²K is symmetric positive definite for symmetric
	 * non-negative C and K; the general factorization covers the rest. */
	int sym = s->am == 0 && s->af == 0 && sys->M->sym && sys->K->sym && (!sys->C || sys->C->sym);
	/* with constraints the saddle point [S wBᵀ; B 0] is indefinite
	 * (step_matrix_alloc knows) */
	size_t nt = (size_t)n + (size_t)sys->nc;
	s->f = step_matrix_alloc(sys, sym);
	s->ut = malloc(sizeof(double) * (size_t)n);
	s->vt = malloc(sizeof(double) * (size_t)n);
	s->rhs = malloc(sizeof(double) * nt);
	s->tmp = malloc(sizeof(double) * (size_t)n);
	s->w = malloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->ut || !s->vt || !s->rhs || !s->tmp || !s->w)
		goto oom;
	return s;
oom:
	nm_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

/* midpoint, discrete_gradient and staggered_midpoint on linear models */
static void *tr_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	static const struct alpha_params trapezoidal = { 0, 0, 0.25, 0.5 };
	return alpha_alloc(sys, &trapezoidal, err);
}

static int nm_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	s->tau = tau;
	int info = step_factor(s->f, 1, s->gamma * tau, s->beta * tau * tau, 1);
	if (info < 0) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", s->sys->n);
		err->code = 3;
		return -1;
	}
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg,
		         "the step matrix M + gamma*tau*C + beta*tau^2*K is singular or not positive definite "
		         "at pivot %d (dof %s)", info, step_pivot_name(s->sys, info));
		err->code = 3;
		return -1;
	}
	return 0;
}

static int ga_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	double c = 1 - s->af;
	s->tau = tau;
	int info = step_factor(s->f, 1 - s->am, c * s->gamma * tau, c * s->beta * tau * tau, c);
	if (info < 0) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", s->sys->n);
		err->code = 3;
		return -1;
	}
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the step matrix of generalized_alpha is singular at pivot %d (dof %s)",
		         info, step_pivot_name(s->sys, info));
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
	double b = s->beta, g = s->gamma, am = s->am, af = s->af;
	(void)err;
	for (int i = 0; i < n; i++) {
		s->ut[i] = u[i] + tau * v[i] + tau * tau * (0.5 - b) * a[i];
		s->vt[i] = v[i] + tau * (1 - g) * a[i];
		/* w = (1−α_f)ũ + α_f uᵏ⁻¹ for K, likewise for C below (ũ itself
		 * for Newmark, to the last bit) */
		s->w[i] = af != 0 ? (1 - af) * s->ut[i] + af * u[i] : s->ut[i];
	}
	sys->load(sys->load_ctx, t - af * tau, s->rhs);
	la_mat_mul(sys->K, s->w, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	if (sys->C) {
		for (int i = 0; i < n; i++)
			s->w[i] = af != 0 ? (1 - af) * s->vt[i] + af * v[i] : s->vt[i];
		la_mat_mul(sys->C, s->w, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= s->tmp[i];
	}
	if (am != 0) {
		la_mat_mul(sys->M, a, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= am * s->tmp[i];
	}
	if (sys->nc) {
		/* (1−α_f)Bᵀλᵏ is in the step matrix; α_f Bᵀλᵏ⁻¹ goes right, as
		 * the Newton path's α-weighted constraint force */
		for (int q = 0; q < sys->nb && af != 0; q++)
			s->rhs[sys->bi[q]] -= af * sys->bv[q] * sys->lam[sys->bk[q]];
		if (b != 0)
			step_solve_saddle(s->f, t, s->ut, b * tau * tau, s->rhs);
		else {
			/* central differences: uᵏ = ũ does not depend on aᵏ, which
			 * the constraint on the next position fixes instead,
			 * B uᵏ⁺¹ = G(tₖ₊₁) with uᵏ⁺¹ = uᵏ + τṽ + τ²aᵏ (γ = ½) — the
			 * second difference of G, as SHAKE does for linear
			 * constraints (Ryckaert, Ciccotti and Berendsen 1977) */
			for (int i = 0; i < n; i++)
				s->tmp[i] = s->ut[i] + tau * s->vt[i];
			step_solve_saddle(s->f, t + tau, s->tmp, tau * tau, s->rhs);
		}
	} else
		step_solve(s->f, s->rhs);
	for (int i = 0; i < n; i++) {
		a[i] = s->rhs[i];
		u[i] = s->ut[i] + b * tau * tau * a[i];
		v[i] = s->vt[i] + g * tau * a[i];
	}
	return 0;
}

const struct scheme_linear step_newmark = {
	.alloc = alpha_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.free = nm_free,
};

const struct scheme_linear step_trapezoidal = {
	.alloc = tr_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.free = nm_free,
};

const struct scheme_linear step_generalized_alpha = {
	.alloc = alpha_alloc,
	.set_step = ga_set_step,
	.step = nm_step,
	.free = nm_free,
};
