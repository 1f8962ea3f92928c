/* nl_euler.c — backward Euler on (u, v), Rothe's method of seed 001
 * (DESIGN.md, "Schemes", backward_euler = rothe):
 *
 *   (uʲ − uʲ⁻¹)/τ = vʲ,   M(vʲ − vʲ⁻¹)/τ + ∂Ψ(vʲ) + ∂ᵤΦ(uʲ, zʲ) ∋ Fʲ
 *   ∂Ψ((zʲ − zʲ⁻¹)/τ) + ∂_zΦ(uʲ, zʲ) ∋ gʲ
 *
 * First order; dissipates high frequencies strongly.  The unknowns of the
 * stage are vʲ and żʲ; the ledger pairs with the end-of-step forces:
 * ΔW = Δu·Fʲ + Δz·gʲ, ΔD = Δu·∇ᵥΨ(vʲ) + Δz·∇_żΨ(żʲ) + Σσ|Δz|. */
#include <config.h>

#include "nlstep.h"
#include "stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct euler {
	struct rt_problem *pb;
	struct nl_common c;
	struct stage st;
	double *in0, *zero, *uprev, *zprev, *vprev, *du, *dz;
};

static void be_free(void *p)
{
	struct euler *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	stage_free(&s->st);
	free(s->in0); free(s->zero); free(s->uprev); free(s->zprev); free(s->vprev); free(s->du); free(s->dz);
	free(s);
}

static void *be_alloc(struct rt_problem *pb, const double *p, const struct nl_options *opt, struct rt_error *err)
{
	(void)p;
	if (pb->varmass) {
		snprintf(err->msg, sizeof err->msg, "backward_euler needs a constant mass: "
		         "for a mass depending on u use midpoint or discrete_gradient");
		err->code = 3;
		return NULL;
	}
	struct euler *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	if (nl_vectors((size_t)pb->N, &s->in0, &s->zero, &s->uprev, &s->zprev, &s->vprev, &s->du, &s->dz,
	               (double **)NULL) ||
	    nl_common_alloc(&s->c, pb) || stage_alloc(&s->st, pb)) {
		be_free(s);
		snprintf(err->msg, sizeof err->msg, "out of memory for the step");
		err->code = 3;
		return NULL;
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
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
	for (int k = 0; k < pb->N; k++)
		st->e[k] = -s->c.f1[k];
	st->u0 = s->uprev;
	st->cu = tau;
	st->v0 = s->zero;
	st->cv = 1;
	st->in0 = s->in0;
	st->cm = 1 / tau;
	st->z0 = s->zprev;
	st->cz = tau;
	st->zd0 = s->zero;
	st->czd = 1;
	st->ue0 = s->uprev;
	st->cue = tau;
	st->tc = t1;
	for (int k = 0; k < pb->nc; k++)
		st->x[pb->N + k] = x->lam[k];
	for (int i = 0; i < n; i++)
		st->x[i] = x->v[i] + tau * x->a[i];
	for (int j = 0; j < m; j++)
		st->x[n + j] = x->zd[j];
	problem_phi(pb, x->u, x->z, s->c.g);
	double scale = nl_maxabs(pb->N, s->c.f1), sg = nl_maxabs(pb->N, s->c.g);
	double sm = nl_maxabs(n, x->v) / tau * nl_maxabs(n * n, pb->M);
	scale = fmax(scale, fmax(sg, sm));
	if (!(scale > 0))
		scale = 1;
	int iters;
	double res;
	int rc = stage_solve(st, scale, &iters, &res);
	if (rc)
		return nl_fail(err, iters, res, rc);
	for (int k = 0; k < pb->nc; k++)
		x->lam[k] = st->x[pb->N + k];
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		double du = st->u[i] - s->uprev[i];
		s->du[i] = du;
		w += du * s->c.f1[i];
		d += du * st->gpsi[i];
		x->u[i] = st->u[i];
		x->v[i] = st->v[i];
		x->a[i] = (st->v[i] - s->vprev[i]) / tau;
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

const struct nl_stepper_type nl_backward_euler = {
	.name = "backward_euler",
	.alloc = be_alloc,
	.step = be_step,
	.free = be_free,
};
