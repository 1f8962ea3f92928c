/* stepper_euler.c — backward Euler (Rothe's method, Altmann 2015) on linear
 * models with constant operators: (uʲ − uʲ⁻¹)/τ = vʲ and
 * M(vʲ − vʲ⁻¹)/τ + C vʲ + K uʲ = fʲ, so that
 * (M/τ + C + τK) vʲ = M vʲ⁻¹/τ + fʲ − K uʲ⁻¹, the matrix factored once per
 * step size.  The ledger pairs with the end of the step (IR_SCHEME_ENDPOINT):
 * ΔW = Δu·fʲ, ΔD = Δu·C vʲ, as runtime/nl_euler.c. */
#include <config.h>

#include "stepper.h"
#include "la.h"

#include <stdio.h>
#include <stdlib.h>

struct euler_lin {
	const struct rt_system *sys;
	double tau;
	struct step_matrix *f;
	double *rhs, *tmp, *vprev;
};

static void be_free(void *p)
{
	struct euler_lin *s = p;
	if (!s)
		return;
	step_matrix_free(s->f);
	free(s->rhs);
	free(s->tmp);
	free(s->vprev);
	free(s);
}

static void *be_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	int n = sys->n;
	struct euler_lin *s = calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->sys = sys;
	size_t nt = (size_t)n + (size_t)sys->nc;
	/* M/τ + C + τK: LU, as before (C need not be symmetric) */
	s->f = step_matrix_alloc(sys, 0);
	s->rhs = malloc(sizeof(double) * nt);
	s->tmp = malloc(sizeof(double) * (size_t)n);
	s->vprev = malloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->rhs || !s->tmp || !s->vprev)
		goto oom;
	return s;
oom:
	be_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int be_set_step(void *p, double tau, struct rt_error *err)
{
	struct euler_lin *s = p;
	s->tau = tau;
	int info = step_factor(s->f, 1 / tau, 1, tau, 1);
	if (info < 0) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", s->sys->n);
		err->code = 3;
		return -1;
	}
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the step matrix of backward_euler is singular at pivot %d (dof %s)",
		         info, step_pivot_name(s->sys, info));
		err->code = 3;
		return -1;
	}
	return 0;
}

static int be_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct euler_lin *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	(void)err;
	sys->load(sys->load_ctx, t, s->rhs);
	la_mat_mul(sys->M, v, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] += s->tmp[i] / tau;
	la_mat_mul(sys->K, u, s->tmp);
	for (int i = 0; i < n; i++) {
		s->rhs[i] -= s->tmp[i];
		s->vprev[i] = v[i];
	}
	/* with constraints B uʲ = Gʲ, uʲ = uʲ⁻¹ + τvʲ */
	if (sys->nc)
		step_solve_saddle(s->f, t, u, tau, s->rhs);
	else
		step_solve(s->f, s->rhs);
	for (int i = 0; i < n; i++) {
		v[i] = s->rhs[i];
		u[i] += tau * v[i];
		a[i] = (v[i] - s->vprev[i]) / tau;
	}
	return 0;
}

const struct scheme_linear step_backward_euler = {
	.alloc = be_alloc,
	.set_step = be_set_step,
	.step = be_step,
	.free = be_free,
};
