/* scheme_bathe.c — Bathe's composite scheme (Bathe & Baig 2005,
 * "On a composite implicit time integration procedure for nonlinear
 * dynamics"; OpenSees' TRBDF2), both paths.  A step of size τ from tₖ is
 * two sub-steps:
 *
 * 1. the trapezoidal rule (newmark(1/4, 1/2)) over γτ, to t_{k+γ}:
 *      u¹ = uᵏ + γτ/2 (vᵏ + v¹),  v¹ = vᵏ + γτ/2 (aᵏ + a¹)
 * 2. the three-point backward difference over uᵏ, u¹, uᵏ⁺¹, to t_{k+1}:
 *      vᵏ⁺¹ = c₁uᵏ + c₂u¹ + c₃uᵏ⁺¹,  aᵏ⁺¹ = c₁vᵏ + c₂v¹ + c₃vᵏ⁺¹,
 *      c₁ = (1−γ)/(γτ),  c₂ = −1/((1−γ)γτ),  c₃ = (2−γ)/((1−γ)τ)
 *
 * each with the equation of motion at its end.  Second order for every γ
 * in (0, 1); unconditionally stable, and its amplification matrix on the
 * undamped oscillator has spectral radius → 0 as ωτ → ∞ (it annihilates
 * the high frequencies).  γ = 2 − √2, the default, makes the two step
 * matrices equal (c₃ = 2/(γτ)).
 *
 * In the acceleration of each sub-step's end as unknown y: sub-step 1 is
 * u = ũ + (γτ)²/4 y, v = ṽ + γτ/2 y (the Newmark predictors over γτ);
 * sub-step 2 is v = ṽ₂ + y/c₃, u = ũ₂ + y/c₃² with ṽ₂ = −(c₁vᵏ + c₂v¹)/c₃
 * and ũ₂ = (ṽ₂ − c₁uᵏ − c₂u¹)/c₃.  The linear path factors
 * M + γτ/2 C + (γτ)²/4 K and M + C/c₃ + K/c₃² once per step size; the
 * Newton path solves each sub-step as a stage (stage.h).
 *
 * The ledger pairs over the whole step as the trapezoidal rule does
 * (ΔW = Δu·(fᵏ + fᵏ⁺¹)/2, ΔD = Δu·(∇ᵥΨᵏ + ∇ᵥΨᵏ⁺¹)/2, the linear path's
 * pairing in run.c): on an undamped, unloaded model the residual is the
 * energy the scheme removes, ≤ 0 (tests/verify/bathe.dyn).
 *
 * Not taken (refused from the capabilities, ir_families.def): internal
 * variables, bilateral constraints, dry friction, a mass depending on u,
 * contacts. */
#include <config.h>

#include "scheme.h"
#include "stage.h"
#include "la.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bathe_params {
	double gamma;   /* the trapezoidal sub-step's share of the step */
};

static void bathe_params(const double *p, void *par)
{
	((struct bathe_params *)par)->gamma = p[0];
}

/* second order and stable for every γ in (0, 1); γ = 0 or 1 leaves one
 * sub-step of zero length, whose weights c₁..c₃ divide by zero */
static int bathe_check(const double *p, char *msg, size_t size)
{
	if (p[0] > 0 && p[0] < 1)
		return 0;
	snprintf(msg, size, "bathe(gamma = %g): gamma must lie in (0, 1)", p[0]);
	return -1;
}

/* the backward difference's weights c₁, c₂, c₃ */
static void bdf_weights(double gamma, double tau, double *c)
{
	c[0] = (1 - gamma) / (gamma * tau);
	c[1] = -1 / ((1 - gamma) * gamma * tau);
	c[2] = (2 - gamma) / ((1 - gamma) * tau);
}

/* ---- the linear path: constant operators ---- */

struct bathe_lin {
	const struct rt_system *sys;
	double gamma, c[3];
	struct step_matrix *f1, *f2;
	double *ut, *vt, *rhs, *tmp, *u1, *v1;
};

static void bl_free(void *p)
{
	struct bathe_lin *s = p;
	if (!s)
		return;
	step_matrix_free(s->f1);
	step_matrix_free(s->f2);
	free(s->ut); free(s->vt); free(s->rhs); free(s->tmp); free(s->u1); free(s->v1);
	free(s);
}

static void *bl_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	double gamma = ((const struct bathe_params *)par)->gamma;   /* in (0, 1): bathe_check */
	int n = sys->n;
	struct bathe_lin *s = mem_calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->sys = sys;
	s->gamma = gamma;
	/* both step matrices are symmetric positive definite for symmetric
	 * non-negative C and K, as the trapezoidal rule's */
	int sym = sys->M->sym && sys->K->sym && (!sys->C || sys->C->sym);
	s->f1 = step_matrix_alloc(sys, sym, 1);
	s->f2 = step_matrix_alloc(sys, sym, 1);
	if (!s->f1 || !s->f2 ||
	    nl_vectors((size_t)n, &s->ut, &s->vt, &s->rhs, &s->tmp, &s->u1, &s->v1, (double **)NULL))
		goto oom;
	return s;
oom:
	bl_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrices (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int bl_set_step(void *p, double tau, struct rt_error *err)
{
	struct bathe_lin *s = p;
	double h = s->gamma * tau;
	bdf_weights(s->gamma, tau, s->c);
	double c3 = s->c[2];
	int info = step_factor(s->f1, 1, h / 2, h * h / 4, 1);
	if (info == 0)
		info = step_factor(s->f2, 1, 1 / c3, 1 / (c3 * c3), 1);
	if (info < 0) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the step matrices (%d dofs)", s->sys->n);
		err->code = 3;
		return -1;
	}
	if (info > 0) {
		char nm[IR_NAME_SIZE];
		snprintf(err->msg, sizeof err->msg, "the step matrix of bathe is singular or not positive definite "
		         "at pivot %d (dof %s)", info, step_pivot_name(s->sys, info, nm, sizeof nm));
		err->code = 3;
		return -1;
	}
	return 0;
}

/* rhs := f(t) − C v − K u */
static void lin_residual(const struct rt_system *sys, double t, const double *u, const double *v, double *rhs,
                         double *tmp)
{
	int n = sys->n;
	sys->load(sys->load_ctx, t, rhs);
	la_mat_mul(sys->K, u, tmp);
	for (int i = 0; i < n; i++)
		rhs[i] -= tmp[i];
	if (sys->C) {
		la_mat_mul(sys->C, v, tmp);
		for (int i = 0; i < n; i++)
			rhs[i] -= tmp[i];
	}
}

static int bl_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct bathe_lin *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double h = s->gamma * tau, c1 = s->c[0], c2 = s->c[1], c3 = s->c[2];
	(void)err;
	/* 1: the trapezoidal rule over γτ */
	for (int i = 0; i < n; i++) {
		s->ut[i] = u[i] + h * v[i] + h * h / 4 * a[i];
		s->vt[i] = v[i] + h / 2 * a[i];
	}
	lin_residual(sys, t - tau + h, s->ut, s->vt, s->rhs, s->tmp);
	step_solve(s->f1, s->rhs);
	for (int i = 0; i < n; i++) {
		s->u1[i] = s->ut[i] + h * h / 4 * s->rhs[i];
		s->v1[i] = s->vt[i] + h / 2 * s->rhs[i];
	}
	/* 2: the three-point backward difference to t */
	for (int i = 0; i < n; i++) {
		s->vt[i] = -(c1 * v[i] + c2 * s->v1[i]) / c3;
		s->ut[i] = (s->vt[i] - c1 * u[i] - c2 * s->u1[i]) / c3;
	}
	lin_residual(sys, t, s->ut, s->vt, s->rhs, s->tmp);
	step_solve(s->f2, s->rhs);
	for (int i = 0; i < n; i++) {
		a[i] = s->rhs[i];
		u[i] = s->ut[i] + a[i] / (c3 * c3);
		v[i] = s->vt[i] + a[i] / c3;
	}
	return 0;
}

static const struct scheme_linear bathe_linear = {
	.alloc = bl_alloc,
	.set_step = bl_set_step,
	.step = bl_step,
	.free = bl_free,
};

/* ---- the Newton path ---- */

struct bathe_nl {
	struct rt_problem *pb;
	double gamma;
	struct nl_common c;
	struct stage st;
	double *fh, *ut, *vt, *u0, *v0, *u1, *v1, *y, *gpsi0, *zero, *du, *dz;
};

static void bn_free(void *p)
{
	struct bathe_nl *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	stage_free(&s->st);
	free(s->fh); free(s->ut); free(s->vt); free(s->u0); free(s->v0); free(s->u1); free(s->v1); free(s->y);
	free(s->gpsi0); free(s->zero); free(s->du); free(s->dz);
	free(s);
}

static void *bn_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	double gamma = ((const struct bathe_params *)par)->gamma;   /* in (0, 1): bathe_check */
	struct bathe_nl *s = mem_calloc(1, sizeof *s);
	if (!s)
		return nl_refuse(err, "out of memory for the step");
	s->pb = pb;
	s->gamma = gamma;
	if (nl_vectors((size_t)pb->N, &s->fh, &s->ut, &s->vt, &s->u0, &s->v0, &s->u1, &s->v1, &s->y, &s->gpsi0, &s->zero,
	               &s->du, &s->dz, (double **)NULL) ||
	    nl_common_alloc(&s->c, pb) || stage_alloc(&s->st, pb)) {
		bn_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
	return s;
}

/* One sub-step's stage: M y + ∇ᵤΦ(ũ + cu y) + ∇ᵥΨ(ṽ + cv y) = f, from
 * the guess y0; scale as in scheme_newmark.c (loads, forces, inertia). */
static int substep(struct bathe_nl *s, const double *f, const double *ut, double cu, const double *vt, double cv,
                   const double *y0, const struct rt_state *x, double scale, struct rt_error *err)
{
	struct rt_problem *pb = s->pb;
	struct stage *st = &s->st;
	for (int k = 0; k < pb->N; k++)
		st->e[k] = -f[k];
	st->u0 = ut;
	st->cu = cu;
	st->v0 = vt;
	st->cv = cv;
	st->z0 = x->z;
	st->cz = 0;
	st->zd0 = s->zero;
	st->czd = 1;
	st->in0 = NULL;
	st->cm = 1;
	st->wu = 1;
	memcpy(st->x, y0, sizeof(double) * (size_t)pb->n);
	int iters;
	double res;
	int rc = stage_solve(st, scale, &iters, &res);
	return rc ? stage_failure(st, rc, err) : 0;
}

static int bn_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct bathe_nl *s = p;
	struct rt_problem *pb = s->pb;
	struct stage *st = &s->st;
	int n = pb->n;
	double h = s->gamma * tau, c[3];
	bdf_weights(s->gamma, tau, c);
	problem_load(pb, t0, s->c.f0);
	problem_load(pb, t0 + h, s->fh);
	problem_load(pb, t1, s->c.f1);
	problem_psi(pb, x->v, x->zd, s->gpsi0);
	problem_phi(pb, x->u, x->z, s->c.g);
	double scale = fmax(fmax(nl_maxabs(pb->N, s->c.f1), nl_maxabs(pb->N, s->c.g)),
	                    nl_maxabs(n, x->a) * la_mat_maxabs(&pb->Mm));
	if (!(scale > 0))
		scale = 1;
	memcpy(s->u0, x->u, sizeof(double) * (size_t)n);
	memcpy(s->v0, x->v, sizeof(double) * (size_t)n);
	/* 1: the trapezoidal rule over γτ */
	for (int i = 0; i < n; i++) {
		s->ut[i] = x->u[i] + h * x->v[i] + h * h / 4 * x->a[i];
		s->vt[i] = x->v[i] + h / 2 * x->a[i];
	}
	if (substep(s, s->fh, s->ut, h * h / 4, s->vt, h / 2, x->a, x, scale, err))
		return -1;
	memcpy(s->u1, st->u, sizeof(double) * (size_t)n);
	memcpy(s->v1, st->v, sizeof(double) * (size_t)n);
	/* 2: the three-point backward difference, from the sub-step's
	 * acceleration as the guess */
	for (int i = 0; i < n; i++) {
		s->vt[i] = -(c[0] * s->v0[i] + c[1] * s->v1[i]) / c[2];
		s->ut[i] = (s->vt[i] - c[0] * s->u0[i] - c[1] * s->u1[i]) / c[2];
		s->y[i] = st->x[i];
	}
	if (substep(s, s->c.f1, s->ut, 1 / (c[2] * c[2]), s->vt, 1 / c[2], s->y, x, scale, err))
		return -1;
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		s->du[i] = st->u[i] - s->u0[i];
		w += s->du[i] * 0.5 * (s->c.f0[i] + s->c.f1[i]);
		d += s->du[i] * 0.5 * (s->gpsi0[i] + st->gpsi[i]);
		x->u[i] = st->u[i];
		x->v[i] = st->v[i];
		x->a[i] = st->x[i];
	}
	/* per term, in the same pairing (no internal variables: Δz = 0) */
	problem_dissipation_terms(pb, s->v0, x->zd, 0.5, 0, s->du, s->dz, dterm);
	problem_dissipation_terms(pb, x->v, x->zd, 0.5, 0, s->du, s->dz, dterm);
	*dW = w;
	*dD = d;
	return 0;
}

static const struct scheme_newton bathe_newton = {
	.alloc = bn_alloc,
	.step = bn_step,
	.free = bn_free,
};

const struct scheme_type scheme_bathe = {
	.family = IR_BATHE,
	.params_size = sizeof(struct bathe_params),
	.params = bathe_params,
	.check_params = bathe_check,
	.linear = &bathe_linear,
	.newton = &bathe_newton,
};
