/* scheme_staggered_midpoint.c — the fractional-step midpoint scheme of Roubíček 2017
 * ("Energy-conserving time-discretisation...", eq. 11; dyn(5),
 * staggered_midpoint): first (u, v) by the midpoint rule with z frozen at
 * zᵏ⁻¹, then z by the midpoint rule with u frozen at uᵏ.
 *
 * Each sub-step replaces the partial gradient at its midpoint by a
 * difference quotient in its own block (Roubíček's section 4, eqs. 16–17),
 * built by Gonzalez's (1996) construction restricted to that block (stage.c,
 * dg, with the frozen block's increment zero):
 *   D_uΦ·(uᵏ − uᵏ⁻¹) = Φ(uᵏ, zᵏ⁻¹) − Φ(uᵏ⁻¹, zᵏ⁻¹),
 *   D_zΦ·(zᵏ − zᵏ⁻¹) = Φ(uᵏ, zᵏ) − Φ(uᵏ, zᵏ⁻¹).
 * The two telescope, so the step balances T + Φ + dissipated − work exactly
 * for any Φ, not only for a Φ separately quadratic in u and z (where the
 * quotients are the midpoint gradients).  Gonzalez's quotient is the
 * midpoint gradient plus O(Δ²) and symmetric in its two ends, so each
 * sub-step keeps its second order: the fractional step is first order when
 * Φ couples u and z (its splitting error), and symmetric = true, Strang's
 * ordering z(τ/2), (u, v)(τ), z(τ/2), a composition of symmetric steps, is
 * second order, still exact in energy. */
#include <config.h>

#include "scheme.h"
#include "stage.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct staggered {
	struct rt_problem *pb;
	struct nl_common c;
	struct stage st;
	int symmetric;
	double *in0, *zero, *uprev, *vprev, *zprev, *vh, *du, *dz, *dterm;
};

static void sg_free(void *p)
{
	struct staggered *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	stage_free(&s->st);
	free(s->in0); free(s->zero); free(s->uprev); free(s->vprev); free(s->zprev); free(s->vh); free(s->du);
	free(s->dz);
	free(s);
}

struct staggered_params {
	int symmetric;
};

static int staggered_check(const double *p, char *msg, size_t size)
{
	if (p[0] == 0 || p[0] == 1)
		return 0;
	snprintf(msg, size, "staggered_midpoint: symmetric is true or false");
	return -1;
}

static void *sg_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	if (pb->ir->dissipation_coupled) {
		/* Roubíček's splitting (and its energy equality) assumes Ψ =
		 * Ψ₁(u') + Ψ₂(z'): each sub-step dissipates through its own rate
		 * with the other frozen, which a coupled Ψ does not separate */
		err->loc = pb->ir->dissipation_coupled_loc;
		return nl_refuse(err, "staggered_midpoint needs the dissipation to separate as "
		                      "Psi1(u') + Psi2(z'), and this one couples the rates of dofs and "
		                      "internal variables: use midpoint or discrete_gradient");
	}
	if (opt->check_only)
		return NULL;
	struct staggered *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	s->symmetric = ((const struct staggered_params *)par)->symmetric;
	if (nl_vectors((size_t)pb->N, &s->in0, &s->zero, &s->uprev, &s->vprev, &s->zprev, &s->vh, &s->du, &s->dz,
	               (double **)NULL) ||
	    nl_common_alloc(&s->c, pb) || stage_alloc(&s->st, pb)) {
		sg_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	/* formulation = ggl: the (u, v) sub-step is nl_midpoint_begin's, whose
	 * stage then holds the velocity constraints too; the z sub-step
	 * leaves u, and so both constraints, as they are */
	if (opt->ggl && stage_ggl(&s->st)) {
		sg_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
	return s;
}

static double scale_of(struct staggered *s, struct rt_state *x, double tau)
{
	struct rt_problem *pb = s->pb;
	problem_phi(pb, x->u, x->z, s->c.g);
	double sc = fmax(nl_maxabs(pb->N, s->c.fm), nl_maxabs(pb->N, s->c.g));
	sc = fmax(sc, 2 * nl_maxabs(pb->n, x->v) / tau * la_mat_maxabs(&pb->Mm));
	return sc > 0 ? sc : 1;
}

/* z over [t0, t0 + h] by the midpoint rule, u frozen: adds its work and
 * dissipation (loads g at the sub-step's mean). */
static int z_step(struct staggered *s, double t0, double t1, struct rt_state *x, double *w, double *d,
                  struct rt_error *err)
{
	double h = t1 - t0;
	struct rt_problem *pb = s->pb;
	struct stage *st = &s->st;
	int n = pb->n, m = pb->m;
	if (m == 0)
		return 0;
	problem_load(pb, t0, s->c.f0);
	problem_load(pb, t1, s->c.f1);
	for (int k = 0; k < pb->N; k++) {
		s->c.fm[k] = 0.5 * (s->c.f0[k] + s->c.f1[k]);
		st->e[k] = -s->c.fm[k];
	}
	memcpy(s->zprev, x->z, sizeof(double) * (size_t)m);
	st->solve_u = 0;
	st->solve_z = 1;
	st->u0 = x->u;
	st->cu = 0;
	st->v0 = s->vh;
	st->cv = 0;
	st->in0 = NULL;
	st->cm = 0;
	st->z0 = s->zprev;
	st->cz = h / 2;
	st->zd0 = s->zero;
	st->czd = 1;
	/* D_zΦ(uᵏ; zᵏ⁻¹, zᵏ) in the z block alone, u frozen (Δu = 0) */
	st->dg = 1;
	st->uprev = x->u;
	st->zprev = s->zprev;
	st->phiprev = problem_phi(pb, x->u, s->zprev, NULL);
	for (int i = 0; i < n; i++)
		st->x[i] = 0;
	for (int j = 0; j < m; j++)
		st->x[n + j] = x->zd[j];
	int iters;
	double res;
	int rc = stage_solve(st, scale_of(s, x, h), &iters, &res);
	if (rc)
		return stage_failure(st, rc, err);
	for (int j = 0; j < m; j++) {
		double dz = h * st->x[n + j];
		s->dz[j] = dz;
		*w += dz * s->c.fm[n + j];
		*d += dz * st->gpsi[n + j];
		x->z[j] = s->zprev[j] + dz;
		x->zd[j] = st->x[n + j];
	}
	*d += nl_sigma_dissipation(pb, s->zprev, x->z);
	problem_dissipation_terms(pb, s->vh, x->zd, 0, 1, s->zero, s->dz, s->dterm);
	problem_sigma_terms(pb, s->dz, s->dterm);
	return 0;
}

/* (u, v) over [t0, t0 + h] by the midpoint rule, z frozen. */
static int u_step(struct staggered *s, double t0, double t1, struct rt_state *x, double *w, double *d,
                  struct rt_error *err)
{
	double h = t1 - t0;
	struct rt_problem *pb = s->pb;
	struct stage *st = &s->st;
	int n = pb->n, m = pb->m;
	nl_midpoint_begin(&s->c, st, x, t0, t1, h, s->uprev, s->vprev, s->zprev, s->in0, s->zero);
	st->solve_u = 1;
	st->solve_z = 0;
	st->z0 = s->zprev;
	st->cz = 0;
	st->zd0 = x->zd;
	st->czd = 0;
	/* D_uΦ(uᵏ⁻¹, uᵏ; zᵏ⁻¹) in the u block alone, z frozen (Δz = 0) */
	st->dg = 1;
	st->uprev = s->uprev;
	st->zprev = s->zprev;
	st->phiprev = problem_phi(pb, s->uprev, s->zprev, NULL);
	for (int j = 0; j < m; j++)
		st->x[n + j] = 0;
	int iters;
	double res;
	int rc = stage_solve(st, scale_of(s, x, h), &iters, &res);
	if (rc)
		return stage_failure(st, rc, err);
	stage_multipliers(st, x->lam);
	memcpy(s->vh, st->x, sizeof(double) * (size_t)n);
	nl_midpoint_end(&s->c, st, x, h, s->uprev, s->vprev, s->du, w, d);
	problem_dissipation_terms(pb, s->vh, x->zd, 1, 0, s->du, s->zero, s->dterm);
	*w += stage_constraint_work(st, s->du);
	*d += problem_friction_terms(pb, s->du, st->xiu, s->dterm);
	return 0;
}

static int sg_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD, double *dterm, struct rt_error *err)
{
	struct staggered *s = p;
	double w = 0, d = 0;
	int rc;
	s->dterm = dterm;
	memcpy(s->vh, x->v, sizeof(double) * (size_t)s->pb->n);
	if (s->symmetric)
		rc = z_step(s, t0, t0 + tau / 2, x, &w, &d, err) || u_step(s, t0, t1, x, &w, &d, err) ||
		     z_step(s, t0 + tau / 2, t1, x, &w, &d, err);
	else
		rc = u_step(s, t0, t1, x, &w, &d, err) || z_step(s, t0, t1, x, &w, &d, err);
	if (rc)
		return -1;
	nl_acceleration(&s->c, t1, x);
	*dW = w;
	*dD = d;
	return 0;
}

static const struct scheme_newton nl_staggered_midpoint = {
	.alloc = sg_alloc,
	.step = sg_step,
	.free = sg_free,
};

static void staggered_params(const double *p, void *par)
{
	((struct staggered_params *)par)->symmetric = p[0] != 0;
}

/* without internal variables, on linear models, the trapezoidal rule */
const struct scheme_type scheme_staggered_midpoint = {
	.family = IR_STAGGERED_MIDPOINT,
	.params_size = sizeof(struct staggered_params),
	.params = staggered_params,
	.check_params = staggered_check,
	.linear = &step_midpoint,
	.newton = &nl_staggered_midpoint,
};
