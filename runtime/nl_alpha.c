/* nl_alpha.c — the Newmark family for nonlinear models: newmark(β, γ),
 * central differences (β = 0, γ = ½) and generalized-α (Chung–Hulbert
 * 1993), DESIGN.md, "Schemes":
 *
 *   uᵏ = ũ + βτ²aᵏ,  vᵏ = ṽ + γτaᵏ  (Newmark's updates)
 *   M[(1−α_m)aᵏ + α_m aᵏ⁻¹] + (1−α_f)F(uᵏ, vᵏ) + α_f F(uᵏ⁻¹, vᵏ⁻¹) = f(t_{k−α_f})
 *
 * with F = ∇ᵤΦ + ∇ᵥΨ (+ Gᵀλ with constraints, and cᵏ(uᵏ) = 0) combined,
 * not evaluated at a combined state (code aster's HHT with MODI_EQUI).  Internal variables follow the backward-
 * Euler return mapping at tₖ: 0 ∈ ∂Ψ(żᵏ) + ∂_zΦ(uᵏ, zᵏ) − gᵏ, zᵏ = zᵏ⁻¹ + τżᵏ.
 * The ledger uses code_aster's pairing: ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2,
 * ΔD = Δu·(∇ᵥΨᵏ⁻¹ + ∇ᵥΨᵏ)/2 (+ τ żᵏ·∇_żΨᵏ + Σσ|Δz| for z). */
#include <config.h>

#include "nlstep.h"
#include "stage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct alpha {
	struct rt_problem *pb;
	struct nl_common c;
	struct stage st;
	double am, af, beta, gamma;
	double *ut, *vt, *in0, *Fprev, *gpsiprev, *zprev, *uprev, *zero, *fa, *vprev, *zdprev, *du, *dz;
	double *G;            /* nc × n: the constraint gradient at uᵏ⁻¹ */
};

static void al_free(void *p)
{
	struct alpha *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	stage_free(&s->st);
	free(s->ut); free(s->vt); free(s->in0); free(s->Fprev); free(s->gpsiprev);
	free(s->zprev); free(s->uprev); free(s->zero); free(s->fa); free(s->vprev); free(s->zdprev); free(s->du);
	free(s->dz); free(s->G);
	free(s);
}

static void *al_alloc(struct rt_problem *pb, const double *p, const struct nl_options *opt, struct rt_error *err)
{
	if (pb->varmass) {
		return nl_refuse(err, "the Newmark family needs a constant mass: "
		                      "for a mass depending on u use midpoint or discrete_gradient");
	}
	if (pb->nc > 0 && p[2] == 0) {
		return nl_refuse(err, "an explicit scheme (beta = 0) cannot enforce constraints: "
		                      "use an implicit one");
	}
	struct alpha *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	s->am = p[0];
	s->af = p[1];
	s->beta = p[2];
	s->gamma = p[3];
	if (nl_vectors((size_t)pb->N, &s->ut, &s->vt, &s->in0, &s->Fprev, &s->gpsiprev, &s->zprev, &s->uprev,
	               &s->zero, &s->fa, &s->vprev, &s->zdprev, &s->du, &s->dz, (double **)NULL) ||
	    !(s->G = calloc((size_t)pb->nc * (size_t)pb->n + 1, sizeof(double))) ||
	    nl_common_alloc(&s->c, pb) || stage_alloc(&s->st, pb)) {
		al_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
	return s;
}

static int al_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD, double *dterm, struct rt_error *err)
{
	struct alpha *s = p;
	struct rt_problem *pb = s->pb;
	struct stage *st = &s->st;
	int n = pb->n, m = pb->m;
	double b = s->beta, g = s->gamma;

	/* the previous step's forces: F(uᵏ⁻¹, vᵏ⁻¹) and ∇ᵥΨᵏ⁻¹ */
	problem_phi(pb, x->u, x->z, s->Fprev);
	problem_psi(pb, x->v, x->zd, s->gpsiprev);
	for (int i = 0; i < n; i++)
		s->Fprev[i] += s->gpsiprev[i];
	/* constraint forces are weighted as the other forces are:
	 * (1−α_f)G(uᵏ)ᵀλᵏ + α_f G(uᵏ⁻¹)ᵀλᵏ⁻¹, so λᵏ is the multiplier at tₖ
	 * (with G(uᵏ)ᵀλᵏ alone, the force would point along the constraint
	 * gradient of the wrong time and the scheme drop to first order) */
	if (pb->nc && s->af != 0) {
		int nc = pb->nc;
		problem_constraints(pb, t0, x->u, NULL, s->G);
		for (int i = 0; i < n; i++)
			for (int k = 0; k < nc; k++)
				s->Fprev[i] += s->G[k + (size_t)i * nc] * x->lam[k];
	}
	problem_load(pb, t0, s->c.f0);
	problem_load(pb, t1, s->c.f1);
	if (s->af != 0)
		problem_load(pb, t1 - s->af * tau, s->fa);
	else
		memcpy(s->fa, s->c.f1, sizeof(double) * (size_t)pb->N);

	for (int i = 0; i < n; i++) {
		s->ut[i] = x->u[i] + tau * x->v[i] + tau * tau * (0.5 - b) * x->a[i];
		s->vt[i] = x->v[i] + tau * (1 - g) * x->a[i];
		s->in0[i] = s->am * x->a[i];
		s->uprev[i] = x->u[i];
		st->e[i] = s->af * s->Fprev[i] - s->fa[i];
	}
	for (int j = 0; j < m; j++) {
		s->zprev[j] = x->z[j];
		st->e[n + j] = -s->c.f1[n + j];
	}
	st->u0 = s->ut;
	st->v0 = s->vt;
	st->z0 = s->zprev;
	st->zd0 = s->zero;
	st->in0 = s->in0;
	st->cu = b * tau * tau;
	st->cv = g * tau;
	st->cz = tau;
	st->czd = 1;
	stage_constraints(st, s->ut, b * tau * tau, t1, x->lam);
	st->cm = 1 - s->am;
	st->wu = 1 - s->af;
	for (int i = 0; i < n; i++)
		st->x[i] = x->a[i];
	for (int j = 0; j < m; j++)
		st->x[n + j] = x->zd[j];
	double scale = nl_maxabs(pb->N, s->c.f1);
	double sf = nl_maxabs(n, s->Fprev);
	if (sf > scale)
		scale = sf;
	for (int i = 0; i < n; i++)
		s->c.Ma[i] = x->a[i];
	double sa = nl_maxabs(n, x->a) * nl_maxabs(n * n, pb->M);
	if (sa > scale)
		scale = sa;
	if (!(scale > 0))
		scale = 1;
	int iters;
	double res;
	int rc = stage_solve(st, scale, &iters, &res);
	if (rc)
		return nl_fail(err, iters, res, rc);
	/* moving constraints: the work of the α-weighted constraint force,
	 * (1−α_f)G(uᵏ)ᵀλᵏ (in the stage) + α_f G(uᵏ⁻¹)ᵀλᵏ⁻¹ */
	double wc = 0;
	if (pb->nc && pb->ir->constraint_moving) {
		for (int i = 0; i < n; i++)
			s->du[i] = st->u[i] - x->u[i];
		wc = stage_constraint_work(st, s->du);
		for (int k = 0; k < pb->nc && s->af != 0; k++)
			for (int i = 0; i < n; i++)
				wc -= s->af * x->lam[k] * s->G[k + (size_t)i * pb->nc] * s->du[i];
	}
	stage_multipliers(st, x->lam);

	memcpy(s->vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(s->zdprev, x->zd, sizeof(double) * (size_t)m);
	double w = wc, d = 0;
	for (int i = 0; i < n; i++) {
		double du = st->u[i] - x->u[i];
		s->du[i] = du;
		w += du * 0.5 * (s->c.f0[i] + s->c.f1[i]);
		d += du * 0.5 * (s->gpsiprev[i] + st->gpsi[i]);
		x->a[i] = st->x[i];
		x->u[i] = st->u[i];
		x->v[i] = st->v[i];
	}
	for (int j = 0; j < m; j++) {
		double dz = st->z[j] - x->z[j];
		s->dz[j] = dz;
		w += dz * 0.5 * (s->c.f0[n + j] + s->c.f1[n + j]);
		d += dz * st->gpsi[n + j];
		x->z[j] = st->z[j];
		x->zd[j] = st->zd[j];
	}
	d += nl_sigma_dissipation(pb, s->zprev, x->z);
	/* per term, in the same pairing */
	problem_dissipation_terms(pb, s->vprev, s->zdprev, 0.5, 0, s->du, s->dz, dterm);
	problem_dissipation_terms(pb, x->v, x->zd, 0.5, 1, s->du, s->dz, dterm);
	problem_sigma_terms(pb, s->dz, dterm);
	d += problem_friction_terms(pb, s->du, st->xiu, dterm);
	*dW = w;
	*dD = d;
	return 0;
}

const struct nl_stepper_type nl_generalized_alpha = {
	.name = "generalized_alpha",
	.alloc = al_alloc,
	.step = al_step,
	.free = al_free,
};
