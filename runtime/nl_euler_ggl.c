/* nl_euler_ggl.c — backward Euler with the Gear–Gupta–Leimkuhler
 * stabilised index-2 formulation of the constraints (DESIGN.md,
 * "Constraint formulations"; Gear, Leimkuhler & Gupta 1985):
 *
 *   (uʲ − uʲ⁻¹)/τ = vʲ − G(uʲ)ᵀμʲ
 *   M(vʲ − vʲ⁻¹)/τ + ∇Ψ(vʲ) + ∇Φ(uʲ) + G(uʲ)ᵀλʲ = fʲ
 *   c(uʲ, tʲ) = 0,   G(uʲ)vʲ + ∂ₜc(uʲ, tʲ) = 0
 *
 * Both the positions and the velocities satisfy the constraints at every
 * step (index 3 alone leaves G v = O(τ)); the extra multiplier μ is O(τ)
 * and vanishes for the exact solution.  Unknowns (u, v, λ, μ), solved
 * together by Newton's method; the rows are scaled to forces (m the
 * largest mass entry): m/τ·(first line), the second line, m/τ²·c and
 * m/τ·(G v + ∂ₜc).  Ledger as for backward_euler: ΔW = Δu·fʲ (+ the
 * work of moving constraints), ΔD = Δu·∇Ψ(vʲ). */
#include <config.h>

#include "nlstep.h"
#include "newton.h"
#include "stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ggl {
	struct rt_problem *pb;
	struct nl_common c;
	struct newton *nw;
	double tol;
	int maxit;
	double tau, t1, ms;
	double wa, wc, wd;                  /* row weights, see weights() */
	const double *uprev, *vprev;
	double *x;                          /* 2n + 2nc unknowns */
	double *f1, *gphi, *gpsi, *du, *vp, *up;   /* n */
	double *cv, *ct, *ctt;              /* nc */
	double *G, *Gt;                     /* nc × n */
};

static void gg_free(void *p)
{
	struct ggl *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	newton_free(s->nw);
	free(s->x); free(s->f1); free(s->gphi); free(s->gpsi); free(s->du); free(s->vp); free(s->up);
	free(s->cv); free(s->ct); free(s->ctt); free(s->G); free(s->Gt);
	free(s);
}

static void *gg_alloc(struct rt_problem *pb, const double *p, const struct nl_options *opt, struct rt_error *err)
{
	(void)p;
	if (nl_unsupported(pb, "backward_euler with formulation = ggl", NL_NO_VARMASS | NL_NO_INTERNAL | NL_NO_FRICTION,
	                   err))
		return NULL;
	struct ggl *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	int n = pb->n, nc = pb->nc, NT = 2 * n + 2 * nc;
	s->pb = pb;
	s->tol = opt->tol;
	s->maxit = opt->maxit;
	s->ms = nl_maxabs(n * n, pb->M);
	if (nl_vectors((size_t)NT, &s->x, (double **)NULL) ||
	    nl_vectors((size_t)n, &s->f1, &s->gphi, &s->gpsi, &s->du, &s->vp, &s->up, (double **)NULL) ||
	    nl_vectors((size_t)nc, &s->cv, &s->ct, &s->ctt, (double **)NULL) ||
	    nl_vectors((size_t)nc * (size_t)n, &s->G, &s->Gt, (double **)NULL) ||
	    !(s->nw = newton_alloc(NT)) || nl_common_alloc(&s->c, pb)) {
		gg_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	return s;
}

static int residual(void *ctx, const double *x, double *R, double *J)
{
	struct ggl *s = ctx;
	struct rt_problem *pb = s->pb;
	const struct ir_model *m = pb->ir;
	int n = pb->n, nc = pb->nc, NT = 2 * n + 2 * nc;
	const double *u = x, *v = x + n, *lam = x + 2 * n, *mu = x + 2 * n + nc;
	double tau = s->tau, w1 = s->wa, w3 = s->wc, w4 = s->wd;
	problem_phi(pb, u, NULL, s->gphi);
	problem_psi(pb, v, NULL, s->gpsi);
	if (J) {
		problem_add_hess_phi(pb, NULL, NULL, J + n, NT);
		problem_add_hess_psi(pb, NULL, NULL, J + n + (size_t)n * NT, NT);
	}
	problem_constraints(pb, s->t1, u, s->cv, s->G);
	problem_constraint_rates(pb, s->ct, s->ctt, s->Gt);
	for (int i = 0; i < n; i++) {
		double gm = 0, gl = 0, mv = 0;
		for (int k = 0; k < nc; k++) {
			gm += s->G[k + (size_t)i * nc] * mu[k];
			gl += s->G[k + (size_t)i * nc] * lam[k];
		}
		for (int j = 0; j < n; j++)
			mv += pb->M[i + (size_t)j * n] * (v[j] - s->vprev[j]);
		R[i] = w1 * ((u[i] - s->uprev[i]) / tau - v[i] + gm);
		R[n + i] = mv / tau + s->gpsi[i] + s->gphi[i] - s->f1[i] + gl;
	}
	for (int k = 0; k < nc; k++) {
		double gv = s->ct[k];
		for (int i = 0; i < n; i++)
			gv += s->G[k + (size_t)i * nc] * v[i];
		R[2 * n + k] = w3 * s->cv[k];
		R[2 * n + nc + k] = w4 * gv;
	}
	if (!J)
		return 0;
	/* the Hessians of c: μ in the first block, λ in the second */
	problem_add_constraint_hess(pb, mu, w1, J, NT);
	problem_add_constraint_hess(pb, lam, 1, J + n, NT);
	const double *h = pb->out_c + nc + m->ngrad;
	for (int q = 0; q < m->nhess; q++)   /* ∂(G v)/∂u = Σ_j H_k[i][j] v_j */
		J[2 * n + nc + m->hk[q] + (size_t)m->hi[q] * NT] += w4 * h[q] * v[m->hj[q]];
	for (int i = 0; i < n; i++) {
		J[i + (size_t)i * NT] += w1 / tau;
		J[i + (size_t)(n + i) * NT] = -w1;
		for (int j = 0; j < n; j++)
			J[n + i + (size_t)(n + j) * NT] += pb->M[i + (size_t)j * n] / tau;
		for (int k = 0; k < nc; k++) {
			double g = s->G[k + (size_t)i * nc];
			J[i + (size_t)(2 * n + nc + k) * NT] = w1 * g;           /* R1 / μ */
			J[n + i + (size_t)(2 * n + k) * NT] = g;                 /* R2 / λ */
			J[2 * n + k + (size_t)i * NT] = w3 * g;                  /* R3 / u */
			J[2 * n + nc + k + (size_t)(n + i) * NT] = w4 * g;       /* R4 / v */
			J[2 * n + nc + k + (size_t)i * NT] += w4 * s->Gt[k + (size_t)i * nc];
		}
	}
	return 0;
}

/* The rows in force units are m/τ·(first line), m/τ²·c and
 * m/τ·(G v + ∂ₜc); their rounding, a few ulps of their terms times those
 * factors, grows past the force tolerance for small steps.  Such a block
 * is scaled down to put its floor a decade under the tolerance (as
 * stage.c does for index 3): it changes when Newton stops, not the
 * solution. */
static void weights(struct ggl *s, const double *u, const double *v, double scale)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nc = pb->nc;
	double tau = s->tau, limit = 0.1 * s->tol * scale, eps8 = 8 * 2.220446049250313e-16;
	double umax = fmax(nl_maxabs(n, u), nl_maxabs(n, s->uprev)), vmax = nl_maxabs(n, v);
	problem_constraints(pb, s->t1, u, s->cv, s->G);
	problem_constraint_rates(pb, s->ct, s->ctt, s->Gt);
	double gmax = nl_maxabs(nc * n, s->G);
	s->wa = s->ms / tau;
	s->wc = s->ms / (tau * tau);
	s->wd = s->ms / tau;
	double fa = eps8 * umax / tau * s->wa;
	double fc = eps8 * (n * gmax * umax + nl_maxabs(nc, s->cv)) * s->wc;
	double fd = eps8 * (n * gmax * vmax + nl_maxabs(nc, s->ct)) * s->wd;
	if (fa > limit)
		s->wa *= limit / fa;
	if (fc > limit)
		s->wc *= limit / fc;
	if (fd > limit)
		s->wd *= limit / fd;
}

static int gg_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	(void)t0;
	struct ggl *s = p;
	struct rt_problem *pb = s->pb;
	int n = pb->n, nc = pb->nc;
	s->tau = tau;
	s->t1 = t1;
	memcpy(s->up, x->u, sizeof(double) * (size_t)n);
	memcpy(s->vp, x->v, sizeof(double) * (size_t)n);
	s->uprev = s->up;
	s->vprev = s->vp;
	problem_load(pb, t1, s->f1);
	/* start from the explicit prediction */
	for (int i = 0; i < n; i++) {
		s->x[n + i] = x->v[i] + tau * x->a[i];
		s->x[i] = x->u[i] + tau * s->x[n + i];
	}
	for (int k = 0; k < nc; k++) {
		s->x[2 * n + k] = x->lam[k];
		s->x[2 * n + nc + k] = 0;
	}
	problem_phi(pb, x->u, NULL, s->gphi);
	double scale = fmax(nl_maxabs(n, s->f1), nl_maxabs(n, s->gphi));
	scale = fmax(scale, s->ms * nl_maxabs(n, x->v) / tau);
	if (!(scale > 0))
		scale = 1;
	weights(s, s->x, s->x + n, scale);
	struct newton_report rep;
	int rc = newton_solve(s->nw, residual, s, s->x, s->tol, scale, s->maxit, &rep);
	if (rc)
		return nl_fail(err, rep.iterations, rep.residual / scale, rc);
	/* the final state and ∇Ψ(vʲ) */
	problem_psi(pb, s->x + n, NULL, s->gpsi);
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		s->du[i] = s->x[i] - x->u[i];
		w += s->du[i] * s->f1[i];
		d += s->du[i] * s->gpsi[i];
		x->u[i] = s->x[i];
		x->v[i] = s->x[n + i];
		x->a[i] = (x->v[i] - s->vp[i]) / tau;
	}
	/* moving constraints: the work −λ·G(uʲ)Δu of the constraint force */
	if (pb->ir->constraint_moving) {
		problem_constraints(pb, t1, x->u, NULL, s->G);
		for (int k = 0; k < nc; k++)
			for (int i = 0; i < n; i++)
				w -= s->x[2 * n + k] * s->G[k + (size_t)i * nc] * s->du[i];
	}
	for (int k = 0; k < nc; k++)
		x->lam[k] = s->x[2 * n + k];
	problem_dissipation_terms(pb, x->v, NULL, 1, 0, s->du, NULL, dterm);
	*dW = w;
	*dD = d;
	return 0;
}

const struct nl_stepper_type nl_backward_euler_ggl = {
	.name = "backward_euler (ggl)",
	.alloc = gg_alloc,
	.step = gg_step,
	.free = gg_free,
};
