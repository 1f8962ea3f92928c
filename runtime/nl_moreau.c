/* nl_moreau.c — Moreau–Jean time stepping (DESIGN.md, "Schemes";
 * Jean 1999, Acary & Brogliato 2008 §7.2): velocity-level contact with
 * Newton's impact law, one LCP per step.
 *
 *   M(v₊ − v) = τ[θF(u₊, v₊, t₊) + (1−θ)F(u, v, t)] + G_Aᵀ P
 *   u₊ = u + τ[θv₊ + (1−θ)v]
 *   0 ≤ G_A v₊ + e G_A v  ⊥  P ≥ 0   on the active contacts A
 *
 * with F = f − ∇Φ − ∇Ψ, G = ∂φ/∂u at u, and A the contacts whose gap is
 * predicted closed, φ_i(u) + τ/2 G_i v ≤ 0 (Acary & Brogliato's
 * activation with γ = ½).  The impulse P is a Lagrange multiplier of the
 * impact law at the velocity level; positions may penetrate by O(τ²) per
 * step, not more (they are never projected).
 *
 * Each Newton iteration linearises the smooth part, W = M + τθ∇²Ψ +
 * τ²θ²∇²Φ, computes the free velocity v_free = v₊ − W⁻¹R(v₊), and solves
 * the LCP y = D P + q, D = G_A W⁻¹ G_Aᵀ, q = G_A v_free + e G_A v by
 * Murty's principal pivoting (finite for the positive definite D); for
 * a linear smooth part the first iteration is exact.
 *
 * Ledger (midpoint-like pairing): ΔW = Δu·(θf₊ + (1−θ)f),
 * ΔD = Δu·(θ∇Ψ(v₊) + (1−θ)∇Ψ(v)); an impact's loss shows in the
 * residual. */
#include <config.h>

#include "scheme.h"
#include "la.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct moreau {
	struct rt_problem *pb;
	struct nl_common c;
	double theta;
	int nk;
	double *v1, *u1, *R, *F0, *gphi, *gpsi, *f0, *f1, *psi0, *du, *vold;   /* n */
	double *wpsi, *wphi;                                            /* n weights */
	double *W;                    /* n × n */
	struct la_factor *wf;
	double *G, *WG;               /* nk × n, n × nk: W⁻¹G_iᵀ in column i */
	double *phi, *q, *P, *y;      /* nk */
	int *active, *basic, *idx;    /* nk */
	double *D;                    /* nk × nk */
	struct la_factor *df;
	double *Dsub, *rhs;           /* nk × nk, nk */
};

static void mj_free(void *p)
{
	struct moreau *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	free(s->v1); free(s->u1); free(s->R); free(s->F0); free(s->gphi); free(s->gpsi); free(s->f0);
	free(s->f1); free(s->psi0); free(s->du); free(s->vold); free(s->wpsi); free(s->wphi); free(s->W);
	free(s->G); free(s->WG); free(s->phi); free(s->q); free(s->P); free(s->y); free(s->active);
	free(s->basic); free(s->idx); free(s->D); free(s->Dsub); free(s->rhs);
	la_factor_free(s->wf);
	la_factor_free(s->df);
	free(s);
}

struct moreau_params {
	double theta;
};

static void *mj_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	(void)opt;
	double theta = ((const struct moreau_params *)par)->theta;
	if (!(theta > 0 && theta <= 1)) {
		return nl_refuse(err, "moreau_jean(theta = %g): theta must lie in (0, 1]", theta);
	}
	struct moreau *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	int n = pb->n, nk = pb->ir->contact.n;
	s->pb = pb;
	s->theta = theta;
	s->nk = nk;
	if (nl_vectors((size_t)n, &s->v1, &s->u1, &s->R, &s->F0, &s->gphi, &s->gpsi, &s->f0, &s->f1, &s->psi0,
	               &s->du, &s->vold, &s->wpsi, &s->wphi, (double **)NULL) ||
	    nl_vectors((size_t)n * (size_t)n, &s->W, (double **)NULL) ||
	    nl_vectors((size_t)n * (size_t)nk, &s->G, &s->WG, (double **)NULL) ||
	    nl_vectors((size_t)nk, &s->phi, &s->q, &s->P, &s->y, &s->rhs, (double **)NULL) ||
	    nl_vectors((size_t)nk * (size_t)nk, &s->D, &s->Dsub, (double **)NULL) ||
	    !(s->active = calloc((size_t)nk + 1, sizeof(int))) || !(s->basic = calloc((size_t)nk + 1, sizeof(int))) ||
	    !(s->idx = calloc((size_t)nk + 1, sizeof(int))) ||
	    !(s->wf = la_factor_alloc(n, LA_DENSE_GENERAL, 0, 0)) ||
	    (nk > 0 && !(s->df = la_factor_alloc(nk, LA_DENSE_GENERAL, 0, 0))) ||
	    nl_common_alloc(&s->c, pb)) {
		mj_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	return s;
}

/* Murty's principal pivoting for 0 ≤ y = D P + q ⊥ P ≥ 0 over the na
 * active contacts (indices idx[0..na)): the basic set B has y_B = 0,
 * P_B = −D_BB⁻¹ q_B; the first index violating P ≥ 0 (in B) or y ≥ 0
 * (out of B) changes side.  Finite for a P-matrix (Murty 1974). */
static int lcp_solve(struct moreau *s, int na)
{
	int nk = s->nk;
	for (int a = 0; a < na; a++)
		s->basic[a] = 0;
	for (int iter = 0; iter < 1 << (na < 20 ? na : 20); iter++) {
		/* P_B from D_BB P_B = −q_B, solved in an nk × nk frame with the
		 * identity outside B */
		memset(s->Dsub, 0, sizeof(double) * (size_t)nk * (size_t)nk);
		for (int a = 0; a < nk; a++) {
			int in = a < na && s->basic[a];
			s->rhs[a] = in ? -s->q[a] : 0;
			for (int b = 0; b < nk; b++)
				s->Dsub[a + (size_t)b * nk] = in ? (b < na && s->basic[b] ? s->D[a + (size_t)b * nk] : 0)
				                                 : (a == b);
		}
		if (la_factor(s->df, s->Dsub) != 0)
			return -1;
		la_solve(s->df, s->rhs);
		for (int a = 0; a < na; a++)
			s->P[a] = s->basic[a] ? s->rhs[a] : 0;
		int flip = -1;
		for (int a = 0; a < na && flip < 0; a++) {
			double ya = s->q[a];
			for (int b = 0; b < na; b++)
				ya += s->D[a + (size_t)b * nk] * s->P[b];
			s->y[a] = ya;
			double tol = 1e-13 * (fabs(s->q[a]) + 1e-300);
			if ((s->basic[a] && s->P[a] < 0) || (!s->basic[a] && ya < -tol))
				flip = a;
		}
		if (flip < 0)
			return 0;
		s->basic[flip] = !s->basic[flip];
	}
	return -1;
}

static int mj_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct moreau *s = p;
	struct rt_problem *pb = s->pb;
	int n = pb->n, nk = s->nk;
	double th = s->theta;
	problem_load(pb, t0, s->f0);
	problem_load(pb, t1, s->f1);
	problem_phi(pb, x->u, NULL, s->gphi);
	problem_psi(pb, x->v, NULL, s->psi0);
	for (int i = 0; i < n; i++) {
		s->F0[i] = s->f0[i] - s->gphi[i] - s->psi0[i];
		s->wpsi[i] = tau * th;
		s->wphi[i] = tau * tau * th * th;
	}
	/* the active contacts and their gradients at u */
	int na = 0;
	if (nk) {
		problem_contacts(pb, x->u, s->phi, s->G);
		for (int k = 0; k < nk; k++) {
			double gv = 0;
			for (int i = 0; i < n; i++)
				gv += s->G[k + (size_t)i * nk] * x->v[i];
			s->active[k] = s->phi[k] + 0.5 * tau * gv <= 0;
			if (s->active[k])
				s->idx[na++] = k;
		}
	}
	const double *e = pb->ir->contact.restitution;
	memcpy(s->v1, x->v, sizeof(double) * (size_t)n);
	double vscale = nl_maxabs(n, x->v) + tau * nl_maxabs(n, s->F0) + DBL_MIN;
	int converged = 0, it;
	for (it = 0; it < 25 && !converged; it++) {
		/* R(v₊) = M(v₊ − v) − τ[θF(u₊, v₊) + (1−θ)F] (without the impulse) */
		for (int i = 0; i < n; i++)
			s->u1[i] = x->u[i] + tau * (th * s->v1[i] + (1 - th) * x->v[i]);
		problem_phi(pb, s->u1, NULL, s->gphi);
		problem_psi(pb, s->v1, NULL, s->gpsi);
		for (int i = 0; i < n; i++) {
			double r = 0;
			for (int j = 0; j < n; j++)
				r += pb->M[i + (size_t)j * n] * (s->v1[j] - x->v[j]);
			s->R[i] = r - tau * (th * (s->f1[i] - s->gphi[i] - s->gpsi[i]) + (1 - th) * s->F0[i]);
		}
		memcpy(s->W, pb->M, sizeof(double) * (size_t)n * (size_t)n);
		problem_add_hess_phi(pb, NULL, s->wphi, s->W, n);
		problem_add_hess_psi(pb, NULL, s->wpsi, s->W, n);
		if (la_factor(s->wf, s->W) != 0)
			return nl_fail(err, it, nl_maxabs(n, s->R), -2);
		la_solve(s->wf, s->R);
		/* v_free = v₊ − W⁻¹R; with contacts, v₊ = v_free + W⁻¹G_AᵀP */
		double change = 0;
		for (int i = 0; i < n; i++)
			s->du[i] = s->v1[i] - s->R[i];   /* v_free */
		if (na) {
			for (int a = 0; a < na; a++) {
				int k = s->idx[a];
				double *col = s->WG + (size_t)a * n;
				for (int i = 0; i < n; i++)
					col[i] = s->G[k + (size_t)i * nk];
				la_solve(s->wf, col);
			}
			for (int a = 0; a < na; a++) {
				int k = s->idx[a];
				double gf = 0, gv = 0;
				for (int i = 0; i < n; i++) {
					gf += s->G[k + (size_t)i * nk] * s->du[i];
					gv += s->G[k + (size_t)i * nk] * x->v[i];
				}
				s->q[a] = gf + e[k] * gv;
				for (int b = 0; b < na; b++) {
					double d = 0;
					for (int i = 0; i < n; i++)
						d += s->G[k + (size_t)i * nk] * s->WG[i + (size_t)b * n];
					s->D[a + (size_t)b * nk] = d;
				}
			}
			if (lcp_solve(s, na)) {
				snprintf(err->msg, sizeof err->msg, "the contact problem (LCP) has no solution found "
				         "(dependent contact gradients?)");
				err->code = 4;
				return -1;
			}
			for (int a = 0; a < na; a++)
				for (int i = 0; i < n; i++)
					s->du[i] += s->WG[i + (size_t)a * n] * s->P[a];
		}
		for (int i = 0; i < n; i++) {
			change = fmax(change, fabs(s->du[i] - s->v1[i]));
			s->v1[i] = s->du[i];
		}
		if (!isfinite(change))
			return nl_fail(err, it + 1, change, -1);
		converged = change <= 1e3 * DBL_EPSILON * vscale;
	}
	if (!converged)
		return nl_fail(err, it, nl_maxabs(n, s->R) / vscale, -1);
	/* the state at t₁ and the ledger */
	memcpy(s->vold, x->v, sizeof(double) * (size_t)n);
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		double unew = x->u[i] + tau * (th * s->v1[i] + (1 - th) * x->v[i]);
		s->du[i] = unew - x->u[i];
		x->u[i] = unew;
		x->v[i] = s->v1[i];
	}
	problem_psi(pb, x->v, NULL, s->gpsi);
	for (int i = 0; i < n; i++) {
		w += s->du[i] * (th * s->f1[i] + (1 - th) * s->f0[i]);
		d += s->du[i] * (th * s->gpsi[i] + (1 - th) * s->psi0[i]);
	}
	problem_dissipation_terms(pb, s->vold, NULL, 1 - th, 0, s->du, NULL, dterm);
	problem_dissipation_terms(pb, x->v, NULL, th, 0, s->du, NULL, dterm);
	/* the recorded acceleration: the step's mean, impulse included */
	for (int i = 0; i < n; i++)
		x->a[i] = (x->v[i] - s->vold[i]) / tau;
	*dW = w;
	*dD = d;
	return 0;
}

static const struct scheme_newton nl_moreau_jean = {
	.alloc = mj_alloc,
	.step = mj_step,
	.free = mj_free,
};

static void moreau_params(const double *p, void *par)
{
	((struct moreau_params *)par)->theta = p[0];
}

const struct scheme_type scheme_moreau_jean = {
	.family = IR_MOREAU_JEAN,
	.params_size = sizeof(struct moreau_params),
	.params = moreau_params,
	.newton = &nl_moreau_jean,
};
