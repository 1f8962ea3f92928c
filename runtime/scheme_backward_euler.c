/* scheme_backward_euler.c — backward Euler on (u, v), Rothe's method of
 * Altmann (2015) (dyn(5), SCHEMES, backward_euler = rothe), both paths:
 *
 *   (uʲ − uʲ⁻¹)/τ = vʲ,   M(vʲ − vʲ⁻¹)/τ + ∂Ψ(vʲ) + ∂ᵤΦ(uʲ, zʲ) ∋ Fʲ
 *   ∂Ψ((zʲ − zʲ⁻¹)/τ) + ∂_zΦ(uʲ, zʲ) ∋ gʲ
 *
 * First order; dissipates high frequencies strongly.  The unknowns of the
 * stage are vʲ and żʲ; the ledger pairs with the end-of-step forces:
 * ΔW = Δu·Fʲ + Δz·gʲ, ΔD = Δu·∇ᵥΨ(vʲ) + Δz·∇_żΨ(żʲ) + Σσ|Δz|.
 *
 * formulation = ggl (Gear, Gupta & Leimkuhler 1985) through the stage
 * (stage_ggl): (uʲ − uʲ⁻¹)/τ = vʲ + G(ū)ᵀμ/τ with ū = uʲ⁻¹ + τvʲ, and
 * G(uʲ)vʲ + ∂ₜc(uʲ, tʲ) = 0 held with c(uʲ, tʲ) = 0.
 *
 * formulation = regularized, for linear constraints B u = G(t) (Altmann 2015,
 * eq. 3.4): u = u₁ + u₂ with u₁ ∈ ker B and the particular part
 * u₂ = B⁺G, v₂ = B⁺Ġ, w₂ = B⁺G̈ (B⁺ = Bᵀ(BBᵀ)⁻¹, Ġ and G̈ the derivatives
 * of the declared expression), and
 *   M(D²u₁ʲ + w₂ʲ) + ∂Ψ(Du₁ʲ + v₂ʲ) + ∂Φ(u₁ʲ + u₂ʲ) + Bᵀλʲ = Fʲ
 * with D the backward difference: only u₁ is differenced, so the
 * constrained motion has its exact velocity and acceleration (no drift,
 * no O(τ) error in λ from differencing G).  In the stage's unknown
 * v = Du₁ + v₂: u = uʲ⁻¹ + (u₂ʲ − u₂ʲ⁻¹) + τ(v − v₂ʲ), and the inertia
 * M[(v − v₂ʲ) − (vʲ⁻¹ − v₂ʲ⁻¹)]/τ + M w₂ʲ. */
#include <config.h>

#include "scheme.h"
#include "stage.h"
#include "la.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the linear path: constant operators ---- */

/* On linear models with constant operators: (uʲ − uʲ⁻¹)/τ = vʲ and
 * M(vʲ − vʲ⁻¹)/τ + C vʲ + K uʲ = fʲ, so that
 * (M/τ + C + τK) vʲ = M vʲ⁻¹/τ + fʲ − K uʲ⁻¹, the matrix factored once per
 * step size.  The ledger pairs with the end of the step (IR_SCHEME_ENDPOINT):
 * ΔW = Δu·fʲ, ΔD = Δu·C vʲ, as the Newton path. */

struct euler_lin {
	const struct rt_system *sys;
	double tau;
	struct step_matrix *f;
	double *rhs, *tmp, *vprev;
};

static void bl_free(void *p)
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

static void *bl_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	int n = sys->n;
	struct euler_lin *s = mem_calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->sys = sys;
	size_t nt = (size_t)n + (size_t)sys->nc;
	/* M/τ + C + τK: LU, as before (C need not be symmetric) */
	s->f = step_matrix_alloc(sys, 0, 1);
	s->rhs = mem_alloc(sizeof(double) * nt);
	s->tmp = mem_alloc(sizeof(double) * (size_t)n);
	s->vprev = mem_alloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->rhs || !s->tmp || !s->vprev)
		goto oom;
	return s;
oom:
	bl_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int bl_set_step(void *p, double tau, struct rt_error *err)
{
	struct euler_lin *s = p;
	s->tau = tau;
	return step_factor_checked(s->f, s->sys, 1 / tau, 1, tau, 1, "the step matrix of backward_euler is singular",
	                           err);
}

static int bl_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
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

static const struct scheme_linear backward_euler_linear = {
	.alloc = bl_alloc,
	.set_step = bl_set_step,
	.step = bl_step,
	.free = bl_free,
};

/* ---- the Newton path: energies, internal variables, constraints ---- */

struct euler {
	struct rt_problem *pb;
	struct nl_common c;
	struct stage st;
	double *in0, *zero, *uprev, *zprev, *vprev, *du, *dz;
	/* formulation = regularized */
	int reg;
	double *B;                  /* nc × n */
	struct la_factor *bbt;      /* B Bᵀ, nc × nc */
	double *bb, *cb, *ct, *ctt, *Gt, *z;   /* nc × nc, nc ×3, nc × n, nc */
	double *u2a, *v2a, *u2b, *v2b, *w2b, *ushift;   /* n */
};

/* B⁺ r = Bᵀ(BBᵀ)⁻¹ r, into out (n) */
static void pseudo_inverse(struct euler *s, const double *r, double *out)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nc = pb->nc;
	for (int k = 0; k < nc; k++)
		s->z[k] = r[k];
	la_solve(s->bbt, s->z);
	for (int i = 0; i < n; i++) {
		double v = 0;
		for (int k = 0; k < nc; k++)
			v += s->B[k + (size_t)i * nc] * s->z[k];
		out[i] = v;
	}
}

/* the particular motion u₂ = B⁺G(t), v₂ = B⁺Ġ, w₂ = B⁺G̈, with
 * G(t) = −c(0, t) for c = B u − G(t) */
static void particular(struct euler *s, double t, double *u2, double *v2, double *w2)
{
	struct rt_problem *pb = s->pb;
	int nc = pb->nc;
	problem_constraints(pb, t, s->zero, s->cb, s->Gt);
	problem_constraint_rates(pb, s->ct, s->ctt, s->Gt);
	for (int k = 0; k < nc; k++) {
		s->cb[k] = -s->cb[k];
		s->ct[k] = -s->ct[k];
		s->ctt[k] = -s->ctt[k];
	}
	pseudo_inverse(s, s->cb, u2);
	pseudo_inverse(s, s->ct, v2);
	if (w2)
		pseudo_inverse(s, s->ctt, w2);
}

static void be_free(void *p)
{
	struct euler *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	stage_free(&s->st);
	free(s->in0); free(s->zero); free(s->uprev); free(s->zprev); free(s->vprev); free(s->du); free(s->dz);
	free(s->B); free(s->bb); free(s->cb); free(s->ct); free(s->ctt); free(s->Gt); free(s->z);
	free(s->u2a); free(s->v2a); free(s->u2b); free(s->v2b); free(s->w2b); free(s->ushift);
	la_factor_free(s->bbt);
	free(s);
}

static void *be_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	(void)par;
	if (opt->check_only)
		return NULL;
	struct euler *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	if (nl_vectors((size_t)pb->N, &s->in0, &s->zero, &s->uprev, &s->zprev, &s->vprev, &s->du, &s->dz,
	               (double **)NULL) ||
	    nl_common_alloc(&s->c, pb) || stage_alloc(&s->st, pb)) {
		be_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	if (opt->ggl && stage_ggl(&s->st)) {
		be_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
	if (opt->regularized && pb->nc > 0) {
		int n = pb->n, nc = pb->nc;
		if (!pb->ir->constraint_linear) {
			be_free(s);
			snprintf(err->msg, sizeof err->msg, "formulation = regularized needs constraints linear in "
			         "the dofs, B u == G(t) with B constant (Altmann 2015): use index3 for these");
			err->loc = pb->ir->constraint_loc[0];
			err->code = 3;
			return NULL;
		}
		s->reg = 1;
		if (nl_vectors((size_t)nc * (size_t)n, &s->B, &s->Gt, (double **)NULL) ||
		    nl_vectors((size_t)nc * (size_t)nc, &s->bb, (double **)NULL) ||
		    nl_vectors((size_t)nc, &s->cb, &s->ct, &s->ctt, &s->z, (double **)NULL) ||
		    nl_vectors((size_t)n, &s->u2a, &s->v2a, &s->u2b, &s->v2b, &s->w2b, &s->ushift, (double **)NULL) ||
		    !(s->bbt = la_factor_alloc(nc, LA_DENSE_SPD, 0, 0))) {
			be_free(s);
			return nl_refuse(err, "out of memory for the step");
		}
		/* B = ∂c/∂u, constant; BBᵀ is positive definite for independent
		 * constraints (checked when the run starts) */
		problem_constraints(pb, 0, s->zero, NULL, s->B);
		for (int a = 0; a < nc; a++)
			for (int b = 0; b < nc; b++) {
				double v = 0;
				for (int i = 0; i < n; i++)
					v += s->B[a + (size_t)i * nc] * s->B[b + (size_t)i * nc];
				s->bb[a + (size_t)b * nc] = v;
			}
		/* cannot fail once the run's start has checked the constraints'
		 * independence (check_initial_constraints, before the steppers
		 * are made); kept so that a caller that skips it gets an error */
		if (la_factor(s->bbt, s->bb) != 0) {
			be_free(s);
			return nl_refuse(err, "formulation = regularized: the constraints are not "
			                      "independent (B Bᵀ is singular)");
		}
	}
	return s;
}

static int be_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD, double *dterm, struct rt_error *err)
{
	struct euler *s = p;
	struct rt_problem *pb = s->pb;
	struct stage *st = &s->st;
	int n = pb->n, m = pb->m;
	problem_load(pb, t1, s->c.f1);
	memcpy(s->uprev, x->u, sizeof(double) * (size_t)n);
	memcpy(s->vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(s->zprev, x->z, sizeof(double) * (size_t)m);
	for (int i = 0; i < n; i++)
		s->in0[i] = -x->v[i] / tau;
	if (s->reg) {
		/* the particular motion at both ends; see the header */
		particular(s, t0, s->u2a, s->v2a, NULL);
		particular(s, t1, s->u2b, s->v2b, s->w2b);
		for (int i = 0; i < n; i++) {
			s->in0[i] = -(x->v[i] - s->v2a[i]) / tau - s->v2b[i] / tau + s->w2b[i];
			s->ushift[i] = x->u[i] + s->u2b[i] - s->u2a[i] - tau * s->v2b[i];
		}
	}
	for (int k = 0; k < pb->N; k++)
		st->e[k] = -s->c.f1[k];
	st->u0 = s->reg ? s->ushift : s->uprev;
	st->cu = tau;
	st->v0 = s->zero;
	st->cv = 1;
	st->in0 = s->in0;
	st->cm = 1 / tau;
	st->z0 = s->zprev;
	st->cz = tau;
	st->zd0 = s->zero;
	st->czd = 1;
	stage_constraints(st, s->reg ? s->ushift : s->uprev, tau, t1, x->lam);
	stage_velocity_constraints(st, 0, s->zero, 1);   /* formulation = ggl: vʲ = y */
	for (int i = 0; i < n; i++)
		st->x[i] = x->v[i] + tau * x->a[i];
	for (int j = 0; j < m; j++)
		st->x[n + j] = x->zd[j];
	problem_phi(pb, x->u, x->z, s->c.g);
	double scale = nl_maxabs(pb->N, s->c.f1), sg = nl_maxabs(pb->N, s->c.g);
	double sm = nl_maxabs(n, x->v) / tau * la_mat_maxabs(&pb->Mm);
	scale = fmax(scale, fmax(sg, sm));
	if (!(scale > 0))
		scale = 1;
	int iters;
	double res;
	int rc = stage_solve(st, scale, &iters, &res);
	if (rc)
		return stage_failure(st, rc, err);
	stage_multipliers(st, x->lam);
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		double du = st->u[i] - s->uprev[i];
		s->du[i] = du;
		w += du * s->c.f1[i];
		d += du * st->gpsi[i];
		x->u[i] = st->u[i];
		x->v[i] = st->v[i];
		x->a[i] = s->reg ? (st->v[i] - s->v2b[i] - (s->vprev[i] - s->v2a[i])) / tau + s->w2b[i]
		                 : (st->v[i] - s->vprev[i]) / tau;
	}
	for (int j = 0; j < m; j++) {
		double dz = st->z[j] - s->zprev[j];
		s->dz[j] = dz;
		w += dz * s->c.f1[n + j];
		d += dz * st->gpsi[n + j];
		x->z[j] = st->z[j];
		x->zd[j] = st->zd[j];
	}
	d += nl_sigma_dissipation(pb, s->zprev, x->z);
	problem_dissipation_terms(pb, x->v, x->zd, 1, 1, s->du, s->dz, dterm);
	problem_sigma_terms(pb, s->dz, dterm);
	d += problem_friction_terms(pb, s->du, st->xiu, dterm);
	w += stage_constraint_work(st, s->du);
	*dW = w;
	*dD = d;
	return 0;
}

static const struct scheme_newton nl_backward_euler = {
	.alloc = be_alloc,
	.step = be_step,
	.free = be_free,
};

const struct scheme_type scheme_backward_euler = {
	.family = IR_BACKWARD_EULER,
	.linear = &backward_euler_linear,
	.newton = &nl_backward_euler,
};
