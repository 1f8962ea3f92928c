/* stepper_midpoint.c — the midpoint rule (Crank–Nicolson on the first-order
 * system, Roubíček 2017, eq. 3) on linear models with linear constraints
 * B u = G(t), in the convention of its Newton path (runtime/nl_midpoint.c,
 * nl_midpoint_begin): the forces at the half step, the constraint at the
 * step's end,
 *
 *   (uᵏ − uᵏ⁻¹)/τ = y,  M(vᵏ − vᵏ⁻¹)/τ + C y + K u^{k−½} + Bᵀλ^{k−½} = f^{k−½}
 *   B uᵏ = G(tₖ),  vᵏ = 2y − vᵏ⁻¹,  f^{k−½} = ½(f(tₖ₋₁) + f(tₖ))
 *
 * so each step solves the saddle point [(2/τ)M + C + (τ/2)K  Bᵀ; B 0] for
 * (y, λ^{k−½}), factored once per step size.  The acceleration and the
 * multiplier reported at tₖ are those of the equation of motion there,
 * [M Bᵀ; B 0] [aᵏ; λᵏ] = [f(tₖ) − C vᵏ − K uᵏ; G̈(tₖ)] (factored once), as
 * nl_acceleration does on the Newton path; the ledger pairs the constraint
 * force of the step, Bᵀλ^{k−½}, with Δu (sys->lamh).  discrete_gradient
 * and staggered_midpoint without internal variables are this scheme on a
 * quadratic energy.  Without constraints the midpoint rule is newmark(¼, ½),
 * and this stepper is step_trapezoidal (stepper_newmark.c). */
#include <config.h>

#include "scheme.h"
#include "la.h"

#include <stdio.h>
#include <stdlib.h>

struct midpoint_lin {
	const struct rt_system *sys;
	void *tr;                   /* without constraints: step_trapezoidal's */
	double tau;
	struct step_matrix *f, *fa; /* the step's saddle point; [M Bᵀ; B 0] */
	double *rhs, *tmp, *f0, *gdd;
};

static void ml_free(void *p)
{
	struct midpoint_lin *s = p;
	if (!s)
		return;
	if (s->tr)
		step_trapezoidal.free(s->tr);
	step_matrix_free(s->f);
	step_matrix_free(s->fa);
	free(s->rhs);
	free(s->tmp);
	free(s->f0);
	free(s->gdd);
	free(s);
}

static void *ml_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	int n = sys->n, nc = sys->nc;
	size_t nt = (size_t)n + (size_t)nc;
	struct midpoint_lin *s = calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->sys = sys;
	if (nc == 0) {
		if (!(s->tr = step_trapezoidal.alloc(sys, par, err))) {
			free(s);
			return NULL;
		}
		return s;
	}
	if (!sys->gddfun || !sys->lamh)
		goto oom;
	s->f = step_matrix_alloc(sys, 0);
	s->fa = step_matrix_alloc(sys, 0);
	s->rhs = malloc(sizeof(double) * nt);
	s->tmp = malloc(sizeof(double) * (size_t)n);
	s->f0 = malloc(sizeof(double) * nt);
	s->gdd = malloc(sizeof(double) * (size_t)nc);
	if (!s->f || !s->fa || !s->rhs || !s->tmp || !s->f0 || !s->gdd)
		goto oom;
	/* nonsingular for M positive definite and B of full rank, which the
	 * run checks before stepping (a defence only) */
	int info = step_factor(s->fa, 1, 0, 0, 1);
	if (info < 0)
		goto oom;
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the matrix [M B^T; B 0] of the accelerations is singular "
		         "at pivot %d: the constraints are dependent or a dof has no mass", info);
		err->code = 3;
		ml_free(s);
		return NULL;
	}
	return s;
oom:
	ml_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int ml_set_step(void *p, double tau, struct rt_error *err)
{
	struct midpoint_lin *s = p;
	if (s->tr)
		return step_trapezoidal.set_step(s->tr, tau, err);
	s->tau = tau;
	int info = step_factor(s->f, 2 / tau, 1, tau / 2, 1);
	if (info < 0) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", s->sys->n);
		err->code = 3;
		return -1;
	}
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the step matrix of the midpoint rule is singular at pivot %d",
		         info);
		err->code = 3;
		return -1;
	}
	return 0;
}

static int ml_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct midpoint_lin *s = p;
	if (s->tr)
		return step_trapezoidal.step(s->tr, t, tau, u, v, a, err);
	const struct rt_system *sys = s->sys;
	int n = sys->n, nc = sys->nc;
	/* y: [(2/τ)M + C + (τ/2)K] y + Bᵀλ = f^{k−½} + (2/τ)M vᵏ⁻¹ − K uᵏ⁻¹ */
	sys->load(sys->load_ctx, t - tau, s->f0);
	sys->load(sys->load_ctx, t, s->rhs);
	la_mat_mul(sys->M, v, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] = 0.5 * (s->f0[i] + s->rhs[i]) + 2 * s->tmp[i] / tau;
	la_mat_mul(sys->K, u, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	/* B(uᵏ⁻¹ + τ y) = G(tₖ); the multipliers of the step's force */
	step_solve_saddle(s->f, t, u, tau, s->rhs);
	for (int k = 0; k < nc; k++)
		sys->lamh[k] = sys->lam[k];
	for (int i = 0; i < n; i++) {
		u[i] += tau * s->rhs[i];
		v[i] = 2 * s->rhs[i] - v[i];
	}
	/* aᵏ, λᵏ from the equation of motion at tₖ with B aᵏ = G̈(tₖ) */
	sys->load(sys->load_ctx, t, s->rhs);
	la_mat_mul(sys->K, u, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	if (sys->C) {
		la_mat_mul(sys->C, v, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= s->tmp[i];
	}
	sys->gddfun(sys->load_ctx, t, s->gdd);
	for (int k = 0; k < nc; k++)
		s->rhs[n + k] = step_matrix_scale(s->fa) * s->gdd[k];
	step_solve(s->fa, s->rhs);
	for (int i = 0; i < n; i++)
		a[i] = s->rhs[i];
	for (int k = 0; k < nc; k++)
		sys->lam[k] = step_matrix_scale(s->fa) * s->rhs[n + k];
	return 0;
}

const struct scheme_linear step_midpoint = {
	.alloc = ml_alloc,
	.set_step = ml_set_step,
	.step = ml_step,
	.free = ml_free,
	.halfstep_work = 1,
};
