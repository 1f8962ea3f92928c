/* scheme_paoli_schatzman.c — Paoli and Schatzman's scheme for impact with Newton's
 * restitution coefficient e (Paoli and Schatzman 2002, eq. 16; DESIGN.md, "Schemes"):
 *
 *   Uᵐ⁺¹ = −e Uᵐ⁻¹ + (1+e) P_K((2Uᵐ − (1−e)Uᵐ⁻¹ + τ² M⁻¹Fᵐ)/(1+e))
 *
 * with Fᵐ = f(tₘ) − ∇Φ(Uᵐ) − ∇Ψ(vᵐ) and P_K the projection onto
 * K = {u : φ_i(u) ≥ 0} in the metric of M(Uᵐ) (Paoli and Schatzman: the mass may
 * depend on the configuration; M⁻¹Fᵐ is then the acceleration of the
 * Euler–Lagrange equations, velocity terms included).  Without contact (P_K the
 * identity) this is central differences, Uᵐ⁺¹ − 2Uᵐ + Uᵐ⁻¹ = τ²M⁻¹Fᵐ.
 *
 * The state the driver sees is (uₘ, vₘ, aₘ) at tₘ, in the velocity-Verlet
 * form of central differences: the chord velocity of the last step is
 * Vᵐ = (Uᵐ − Uᵐ⁻¹)/τ = vₘ − τ/2 aₘ, so Uᵐ⁻¹ = Uᵐ − τVᵐ is recovered from
 * the state (no history inside the stepper: a halved step restarts
 * cleanly), and after the step vₘ₊₁ = Vᵐ⁺¹ + τ/2 aₘ₊₁ with aₘ₊₁ the
 * acceleration of the forces at Uᵐ⁺¹.  That velocity is second order in
 * free flight, and T + Φ is then exact under a constant force.  A step in
 * which the projection acted carries an impulse: its velocity is the
 * chord velocity Vᵐ⁺¹ and its recorded acceleration 0 (a body resting on
 * an obstacle has u' = u'' = 0).  The first step starts from
 * U⁻¹ = u₀ − τv₀ + τ²/2 a₀, projected onto K when only the a₀ term
 * leaves it (a body resting on an obstacle), and a body leaving an
 * obstacle takes its first step with e = 0: see start_on_obstacle.
 *
 * The projection: minimise ½(w − y)ᵀM(w − y) subject to φ_i(w) ≥ 0, by
 * an active set whose KKT system M(w − y) = Σ_A μ_i ∇φ_i(w), φ_A(w) = 0
 * is solved by Newton's method (exact in one iteration for affine φ);
 * constraints with μ_i < 0 leave the set, violated ones enter it.
 *
 * When the gaps are affine (φ(w) = φ(y) + G(w − y), G constant: contacts
 * on regions, `x >= 0`), the mass constant and there are no bilateral
 * constraints, the KKT system is solved by its Schur complement instead:
 * w = y + M⁻¹G_Aᵀμ_A with the Delassus operator S_A = G_A M⁻¹ G_Aᵀ and
 * S_A μ_A = −φ_A(y), using the factor of M that the explicit step uses
 * (diagonal for a lumped mass, sparse otherwise) and G's entries, never
 * an n × n array: the columns M⁻¹G_kᵀ are computed once per contact, the
 * first time it enters an active set, and reused.  The same active-set
 * iteration, the same solution up to rounding, at O(n) per step plus
 * O(nk³) per change of the set instead of O((n + nk)³).
 *
 * Bilateral constraints c(u) = 0 (fixed ones) restrict the admissible set
 * to K ∩ C, C = {u : c(u) = 0}, a manifold: the projection takes them as
 * equalities always active (their multipliers free), and Mᵐ⁻¹Fᵐ is the
 * constrained acceleration (the saddle point [M Cᵀ; C 0], with the
 * velocity term −vᵀ∇²c v of d²c/dt² = 0).  Without contact the step is
 * Uᵐ⁺¹ = P_C(2Uᵐ − Uᵐ⁻¹ + τ²aᵐ), central differences kept on C (the
 * projection corrects O(τ⁴)); when a contact acts it is
 * Uᵐ⁺¹ = P_C(−eUᵐ⁻¹ + (1+e)P_{K∩C}(y)), the outer P_C only removing the
 * O(τ²) by which the combination of two points of the curved C leaves
 * it.  The impact law is then Newton's for the constrained system: the
 * normal velocity, in the M-metric of the tangent space of C, reverses
 * with the factor e.  The recorded λ is the multiplier of the
 * constrained acceleration at Uᵐ⁺¹.
 *
 * Ledger (Newmark pairing): ΔW = Δu·(fₘ + fₘ₊₁)/2,
 * ΔD = Δu·(∇Ψ(vₘ) + ∇Ψ(vₘ₊₁))/2; the energy an impact with e < 1 removes
 * shows in the residual. */
#include <config.h>

#include "scheme.h"
#include "la.h"
#include "mem.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct paoli {
	struct rt_problem *pb;
	struct nl_common c;
	double e;
	int nk, nc;                 /* contacts, constraints */
	double *cval, *muc, *Gc;    /* nc, nc, nc × n */
	double *lam0;               /* nc: λ scratch at Uᵐ */
	double *uprev, *y, *w, *acc, *f0, *f1, *psi0, *vtmp, *vold;   /* n */
	double *phi, *mu;           /* nk */
	double *G;                  /* nk × n */
	/* per-contact restitution: the contacts grouped by their e_i; group 0
	 * holds contact 1, whose e is the scheme's e (alpha 1, beta 0) */
	int ng, *grp;               /* groups, nk */
	double *galpha, *gbeta;     /* ng */
	int plain;                  /* projecting onto K itself (start_on_obstacle) */
	int started;                /* a step has been taken */
	double *wk, *phig, *Gg, *mug;   /* n, nk, nk × n, nk */
	int *active;                /* nk */
	struct la_factor *kkt;      /* n + nk */
	double *J, *r;              /* (n + nk)², n + nk */
	double *Mu;                 /* n × n: M(Uᵐ) when the mass depends on u */
	const double *M;            /* the metric of the step: pb->M or Mu */
	/* the projection by the Delassus operator (affine gaps, constant
	 * mass, no constraints): G by rows (with the groups' alpha_i),
	 * the columns M⁻¹G_kᵀ (NULL until contact k is first active), S
	 * (nk × nk, identity on the inactive rows) and φ(y) */
	int sparse;
	int *grow, *gcol;           /* nk + 1, ngrad */
	double *gval;               /* ngrad */
	double **X;                 /* nk columns of n */
	double *S, *rhs, *phiy;     /* nk², nk, nk */
	int *idx;                   /* nk: the active contacts in order */
	int *fidx, fna, fplain;     /* the set whose S_A kkt holds factored
	                               (nk; fna −1: none), and its plain */
};

static void ps_free(void *p)
{
	struct paoli *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	free(s->uprev); free(s->y); free(s->w); free(s->acc); free(s->f0); free(s->f1); free(s->psi0);
	free(s->cval); free(s->muc); free(s->Gc); free(s->lam0);
	free(s->vtmp); free(s->vold); free(s->phi); free(s->mu); free(s->G); free(s->active); free(s->J); free(s->r); free(s->Mu);
	free(s->grp); free(s->galpha); free(s->gbeta); free(s->wk); free(s->phig); free(s->Gg); free(s->mug);
	la_factor_free(s->kkt);
	for (int k = 0; s->X && k < s->nk; k++)
		free(s->X[k]);
	free(s->X); free(s->grow); free(s->gcol); free(s->gval); free(s->S); free(s->rhs); free(s->phiy);
	free(s->idx); free(s->fidx);
	free(s);
}

/* G's rows for the Delassus projection: the entries of contact k at
 * grow[k] .. grow[k+1] − 1, without the alpha of its group (applied by
 * project_delassus).  G is constant (affine gaps): taken from one
 * evaluation. */
static int sparse_rows(struct paoli *s)
{
	struct rt_problem *pb = s->pb;
	int nk = s->nk;
	const int *gk, *gi;
	const double *gv;
	problem_contacts(pb, s->w, s->phi, NULL);
	int ng = problem_contact_grad(pb, &gk, &gi, &gv);
	s->grow = mem_calloc((size_t)nk + 1, sizeof(int));
	s->gcol = mem_alloc(sizeof(int) * ((size_t)ng + 1));
	s->gval = mem_alloc(sizeof(double) * ((size_t)ng + 1));
	s->X = mem_calloc((size_t)nk + 1, sizeof(double *));
	s->S = mem_alloc(sizeof(double) * ((size_t)nk * (size_t)nk + 1));
	s->rhs = mem_alloc(sizeof(double) * ((size_t)nk + 1));
	s->phiy = mem_alloc(sizeof(double) * ((size_t)nk + 1));
	s->idx = mem_alloc(sizeof(int) * ((size_t)nk + 1));
	s->fidx = mem_alloc(sizeof(int) * ((size_t)nk + 1));
	s->fna = -1;
	if (!s->grow || !s->gcol || !s->gval || !s->X || !s->S || !s->rhs || !s->phiy || !s->idx || !s->fidx)
		return -1;
	for (int q = 0; q < ng; q++)
		s->grow[gk[q] + 1]++;
	for (int k = 0; k < nk; k++)
		s->grow[k + 1] += s->grow[k];
	int *next = mem_alloc(sizeof(int) * ((size_t)nk + 1));
	if (!next)
		return -1;
	memcpy(next, s->grow, sizeof(int) * (size_t)nk);
	for (int q = 0; q < ng; q++) {
		int k = gk[q], p = next[k]++;
		s->gcol[p] = gi[q];
		s->gval[p] = gv[q];
	}
	free(next);
	return 0;
}

/* The dense KKT projection, unless the Delassus one applies (see the
 * top); the explicit step and the critical step's estimate (run.c) are
 * on the matrix layer otherwise. */
static int ps_needs_dense(const struct rt_problem *pb)
{
	const struct ir_gaps *g = &pb->ir->contact;
	return !(g->n > 0 && g->linear && !g->moving && pb->nc == 0 && !pb->varmass);
}

static void *ps_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	(void)par;
	if (pb->ir->contact.friction)
		return nl_refuse(err, "paoli_schatzman does not support friction at contacts: use moreau_jean");
	if (pb->nc > 0 && pb->ir->constraint_moving)
		return nl_refuse(err, "paoli_schatzman does not support moving constraints (c depending on t)");
	if (pb->nc > 0 && pb->varmass)
		return nl_refuse(err, "paoli_schatzman takes bilateral constraints with a constant mass only");
	const struct ir_gaps *g = &pb->ir->contact;
	/* the Delassus projection (see the top), or the dense KKT system,
	 * which needs the dense operators (problem_dense: up to
	 * IR_DENSE_MAX unknowns) */
	int sparse = !ps_needs_dense(pb);
	if (!sparse && (pb->N > IR_DENSE_MAX || !pb->M || !pb->K))
		return nl_refuse(err, "paoli_schatzman solves nonlinear models with dense matrices, limited to %d "
		                 "unknowns (this one has %d)%s", (int)IR_DENSE_MAX, pb->N,
		                 g->n > 0 ? ": use moreau_jean" : ": use an implicit scheme such as midpoint");
	if (opt->check_only)
		return NULL;
	struct paoli *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	int n = pb->n, nk = g->n, nc = pb->nc, nt = sparse ? nk : n + nc + nk;
	size_t nn = sparse ? 0 : (size_t)n;
	s->sparse = sparse;
	s->pb = pb;
	s->nk = nk;
	s->nc = nc;
	s->e = nk ? g->restitution[0] : 0;
	if (nl_vectors((size_t)n, &s->uprev, &s->y, &s->w, &s->acc, &s->f0, &s->f1, &s->psi0, &s->vtmp, &s->vold,
	               (double **)NULL) ||
	    nl_vectors((size_t)nk, &s->phi, &s->mu, (double **)NULL) ||
	    nl_vectors((size_t)nk * nn, &s->G, (double **)NULL) ||
	    nl_vectors((size_t)nc, &s->cval, &s->muc, &s->lam0, (double **)NULL) ||
	    nl_vectors((size_t)nc * (size_t)n, &s->Gc, (double **)NULL) ||
	    nl_vectors(sparse ? 0 : (size_t)nt * (size_t)nt, &s->J, (double **)NULL) ||
	    nl_vectors(pb->varmass ? (size_t)n * (size_t)n : 0, &s->Mu, (double **)NULL) ||
	    nl_vectors((size_t)nt, &s->r, (double **)NULL) ||
	    nl_vectors((size_t)n, &s->wk, (double **)NULL) ||
	    nl_vectors((size_t)nk, &s->phig, &s->mug, &s->galpha, &s->gbeta, (double **)NULL) ||
	    nl_vectors((size_t)nk * nn, &s->Gg, (double **)NULL) ||
	    !(s->grp = mem_calloc((size_t)nk + 1, sizeof(int))) ||
	    !(s->active = mem_calloc((size_t)nk + 1, sizeof(int))) ||
	    !(s->kkt = la_factor_alloc(nt, LA_DENSE_GENERAL, 0, 0)) ||
	    nl_common_alloc(&s->c, pb)) {
		ps_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	/* contact i is stated at the point w_i = alpha_i w + beta_i Uᵐ⁻¹ of
	 * the projection's variable w, alpha_i = (1 + e)/(1 + e_i),
	 * beta_i = (e_i − e)/(1 + e_i) (see gaps_at) */
	for (int k = 0; k < nk; k++) {
		int q = s->ng;
		for (int j = 0; j < k; j++)
			if (g->restitution[j] == g->restitution[k]) {
				q = s->grp[j];
				break;
			}
		if (q == s->ng) {
			double ek = g->restitution[k];
			s->galpha[q] = (1 + s->e) / (1 + ek);
			s->gbeta[q] = (ek - s->e) / (1 + ek);
			s->ng++;
		}
		s->grp[k] = q;
	}
	if (sparse && sparse_rows(s)) {
		ps_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	return s;
}

/* The gaps seen by the projection at w (and their gradients in w when
 * grad): contact i with restitution e_i at w_i = alpha_i w + beta_i Uᵐ⁻¹.
 * Per-contact restitution (Paoli and Schatzman 2002, the impact law
 * φ_i(Uᵐ⁺¹) + e_i φ_i(Uᵐ⁻¹) = 0 for an active affine gap): with
 * Uᵐ⁺¹ = −e Uᵐ⁻¹ + (1+e) w, the point (Uᵐ⁺¹ + e_i Uᵐ⁻¹)/(1 + e_i) is w_i,
 * so the step stays the M-metric projection of the same argument, onto
 * K_e = {w : φ_i(w_i) ≥ 0}, convex when K is; the reaction
 * M(Uᵐ⁺¹ − 2Uᵐ + Uᵐ⁻¹ − τ²aᵐ) = (1+e) Σ μ_i alpha_i ∇φ_i(w_i) is normal
 * to K at the contacts, μ_i ≥ 0.  With one e for all (one group,
 * alpha 1, beta 0) this is P_K itself. */
static void gaps_at(struct paoli *s, const double *w, int grad)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nk = s->nk;
	if (s->ng <= 1 || s->plain) {
		problem_contacts(pb, w, s->phi, grad ? s->G : NULL);
		return;
	}
	for (int q = 0; q < s->ng; q++) {
		for (int i = 0; i < n; i++)
			s->wk[i] = s->galpha[q] * w[i] + s->gbeta[q] * s->uprev[i];
		problem_contacts(pb, s->wk, s->phig, grad ? s->Gg : NULL);
		for (int k = 0; k < nk; k++) {
			if (s->grp[k] != q)
				continue;
			s->phi[k] = s->phig[k];
			if (grad)
				for (int i = 0; i < n; i++)
					s->G[k + (size_t)i * nk] = s->galpha[q] * s->Gg[k + (size_t)i * nk];
		}
	}
}

/* J −= Σ μ_i ∇²_w φ_i(w_i) = alpha_i² ∇²φ_i(w_i), after gaps_at(w). */
static void gaps_hess(struct paoli *s, const double *w, double *J, int ld)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nk = s->nk;
	if (s->ng <= 1 || s->plain) {
		problem_add_contact_hess(pb, s->mu, -1, J, ld);
		return;
	}
	for (int q = 0; q < s->ng; q++) {
		for (int i = 0; i < n; i++)
			s->wk[i] = s->galpha[q] * w[i] + s->gbeta[q] * s->uprev[i];
		problem_contacts(pb, s->wk, s->phig, s->Gg);
		for (int k = 0; k < nk; k++)
			s->mug[k] = s->grp[k] == q ? s->mu[k] : 0;
		problem_add_contact_hess(pb, s->mug, -s->galpha[q] * s->galpha[q], J, ld);
	}
}

/* One Newton solve of the KKT system on the active set, the constraints
 * always in it; w in, w, muc and mu out.  Unknowns (w, μ_c, μ): rows
 * M(w − y) − Σ_C μ_c ∇c − Σ_A μ_k ∇φ_k, c(w), then φ_k (active) or μ_k.
 * Returns 0, or -1 when the system is singular or does not converge (an
 * active set of dependent gradients). */
static int kkt_solve(struct paoli *s, double t)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nk = s->nk, nc = s->nc, nt = n + nc + nk, o = n + nc;
	double ymag = nl_maxabs(n, s->y) + nl_maxabs(n, s->w);
	for (int it = 0; it < 50; it++) {
		if (nk)
			gaps_at(s, s->w, 1);
		if (nc)
			problem_constraints(pb, t, s->w, s->cval, s->Gc);
		for (int i = 0; i < n; i++) {
			double r = 0;
			for (int j = 0; j < n; j++)
				r += s->M[i + (size_t)j * n] * (s->w[j] - s->y[j]);
			for (int k = 0; k < nk; k++)
				if (s->active[k])
					r -= s->mu[k] * s->G[k + (size_t)i * nk];
			for (int k = 0; k < nc; k++)
				r -= s->muc[k] * s->Gc[k + (size_t)i * nc];
			s->r[i] = r;
		}
		for (int k = 0; k < nc; k++)
			s->r[n + k] = s->cval[k];
		for (int k = 0; k < nk; k++)
			s->r[o + k] = s->active[k] ? s->phi[k] : s->mu[k];
		memset(s->J, 0, sizeof(double) * (size_t)nt * (size_t)nt);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				s->J[i + (size_t)j * nt] = s->M[i + (size_t)j * n];
		for (int k = 0; k < nk; k++)
			if (!s->active[k])
				s->mu[k] = 0;
		if (nk)
			gaps_hess(s, s->w, s->J, nt);
		if (nc)
			problem_add_constraint_hess(pb, s->muc, -1, s->J, nt);
		for (int k = 0; k < nc; k++)
			for (int i = 0; i < n; i++) {
				s->J[i + (size_t)(n + k) * nt] = -s->Gc[k + (size_t)i * nc];
				s->J[n + k + (size_t)i * nt] = s->Gc[k + (size_t)i * nc];
			}
		for (int k = 0; k < nk; k++) {
			if (s->active[k]) {
				for (int i = 0; i < n; i++) {
					s->J[i + (size_t)(o + k) * nt] = -s->G[k + (size_t)i * nk];
					s->J[o + k + (size_t)i * nt] = s->G[k + (size_t)i * nk];
				}
			} else {
				s->J[o + k + (size_t)(o + k) * nt] = 1;
			}
		}
		if (la_factor(s->kkt, s->J) != 0)
			return -1;
		la_solve(s->kkt, s->r);
		double dw = 0;
		for (int i = 0; i < n; i++) {
			s->w[i] -= s->r[i];
			dw = nl_max_keep(dw, fabs(s->r[i]));
		}
		for (int k = 0; k < nc; k++)
			s->muc[k] -= s->r[n + k];
		for (int k = 0; k < nk; k++)
			s->mu[k] -= s->r[o + k];
		if (!isfinite(dw))
			return -1;
		if (dw <= 4 * DBL_EPSILON * (ymag + nl_maxabs(n, s->w)))
			return 0;
	}
	return -1;
}

/* The active contact whose multiplier is the most negative leaves the
 * set: 1 when one did. */
static int leave_set(struct paoli *s)
{
	int worst = -1;
	double mmin = 0;
	for (int k = 0; k < s->nk; k++)
		if (s->active[k] && s->mu[k] < mmin) {
			mmin = s->mu[k];
			worst = k;
		}
	if (worst < 0)
		return 0;
	s->active[worst] = 0;
	s->mu[worst] = 0;
	return 1;
}

/* Σ_q g_kq x_q over contact k's row of G */
static double row_dot(const struct paoli *s, int k, const double *x)
{
	double d = 0;
	for (int p = s->grow[k]; p < s->grow[k + 1]; p++)
		d += s->gval[p] * x[s->gcol[p]];
	return d;
}

/* The alpha of contact k's group in K_e (1 when projecting onto K). */
static double contact_alpha(const struct paoli *s, int k)
{
	return s->ng > 1 && !s->plain ? s->galpha[s->grp[k]] : 1;
}

/* X_k = M⁻¹G_kᵀ, made the first time contact k is active; -1 when out
 * of memory. */
static int delassus_column(struct paoli *s, int k)
{
	if (s->X[k])
		return 0;
	int n = s->pb->n;
	double *x = mem_calloc((size_t)n + 1, sizeof(double));
	if (!x)
		return -1;
	for (int p = s->grow[k]; p < s->grow[k + 1]; p++)
		x[s->gcol[p]] += s->gval[p];
	nl_mass_solve(&s->c, x);
	s->X[k] = x;
	return 0;
}

/* w = P_K(y) for affine gaps, a constant mass and no constraints: the
 * active-set iteration of project() with each KKT solve by the Delassus
 * operator (see the top), S_A μ_A = −φ_A(y), w = y + Σ_A μ_k X_k; with
 * several restitution coefficients the rows are alpha_k G_k (K_e).
 *
 * S_A is formed and factored on the active contacts alone (na × na, not
 * nk × nk), kept while the set is the same (a slab resting on the
 * floor: one factorization for the run), and the set starts from every
 * contact that y violates: adding a landing slab's nodes one at a time
 * cost O(na⁴) a step (200 nodes: 80 ms a step; 1000 did not finish 200
 * steps in 600 s).  Contacts whose multiplier is negative leave one at a
 * time, the most negative first; the others that w still violates enter
 * one at a time, the most violated first.  A start whose rows are
 * dependent (a contact stated twice: S_A singular), or that has not
 * converged in 16 rounds, is dropped for the most violated contact
 * alone, from which a duplicate never enters. */
static int project_delassus(struct paoli *s, int *moved)
{
	int n = s->pb->n, nk = s->nk;
	memcpy(s->w, s->y, sizeof(double) * (size_t)n);
	*moved = 0;
	gaps_at(s, s->y, 0);
	memcpy(s->phiy, s->phi, sizeof(double) * (size_t)nk);
	int first = -1;
	for (int k = 0; k < nk; k++)
		if (s->phiy[k] < 0 && (first < 0 || s->phiy[k] < s->phiy[first]))
			first = k;
	int warm = 0;
	for (int k = 0; k < nk; k++) {
		s->active[k] = s->phiy[k] < 0;
		warm += s->active[k];
		s->mu[k] = 0;
	}
	if (first < 0)
		return 0;
	*moved = 1;
	/* more contacts than dofs are dependent: the cold start at once */
	if (warm > n)
		for (int k = 0; k < nk; k++)
			s->active[k] = k == first;
	warm = warm > 1 && warm <= n;
	double ymag = nl_maxabs(n, s->y) + 1e-300;
	for (int round = 0, cold = 0; round < cold + 4 * nk + 4; round++) {
		/* a start on dependent contacts (a bar on many points) can be
		 * singular to rounding only, and its multipliers wander: after
		 * 16 rounds, the cold start with the whole budget */
		if (warm && round == 16) {
			warm = 0;
			cold = round;
			for (int k = 0; k < nk; k++)
				s->active[k] = k == first;
		}
		int na = 0;
		for (int k = 0; k < nk; k++)
			if (s->active[k]) {
				if (delassus_column(s, k))
					return -2;
				s->idx[na++] = k;
			}
		for (int b = 0; b < na; b++)
			s->rhs[b] = -s->phiy[s->idx[b]];
		/* S_A depends on the set alone (G and M constant; the rows'
		 * alpha on plain): a body resting on the obstacle keeps its
		 * factor from step to step */
		int same = na == s->fna && s->plain == s->fplain;
		for (int a = 0; a < na && same; a++)
			same = s->idx[a] == s->fidx[a];
		for (int b = 0; b < na && !same; b++) {
			int j = s->idx[b];
			for (int a = 0; a < na; a++) {
				int i = s->idx[a];
				s->S[a + (size_t)b * na] = contact_alpha(s, i) * contact_alpha(s, j) * row_dot(s, i, s->X[j]);
			}
		}
		/* (no active contact left: nothing to factor, μ = 0) */
		if (!same && na > 0) {
			s->fna = -1;
			if (la_factor_order(s->kkt, na) == 0 && la_factor(s->kkt, s->S) == 0) {
				memcpy(s->fidx, s->idx, sizeof(int) * (size_t)na);
				s->fna = na;
				s->fplain = s->plain;
			}
		}
		if (na > 0 && s->fna != na) {
			if (!warm)
				return -1;
			/* the warm set's rows are dependent: from the most
			 * violated contact alone */
			warm = 0;
			for (int k = 0; k < nk; k++)
				s->active[k] = k == first;
			continue;
		}
		if (na > 0)
			la_solve(s->kkt, s->rhs);
		for (int k = 0; k < nk; k++)
			s->mu[k] = 0;
		for (int a = 0; a < na; a++) {
			s->mu[s->idx[a]] = s->rhs[a];
			if (!isfinite(s->rhs[a]))
				return -1;
		}
		if (leave_set(s))
			continue;
		memcpy(s->w, s->y, sizeof(double) * (size_t)n);
		for (int a = 0; a < na; a++) {
			int k = s->idx[a];
			double mk = s->mu[k] * contact_alpha(s, k);
			for (int i = 0; i < n; i++)
				s->w[i] += mk * s->X[k][i];
		}
		/* φ(w) = φ(y) + G(w − y), w − y in wk */
		for (int i = 0; i < n; i++)
			s->wk[i] = s->w[i] - s->y[i];
		double scale = ymag + nl_maxabs(n, s->w);
		int add = -1;
		for (int k = 0; k < nk; k++) {
			if (s->active[k])
				continue;
			s->phi[k] = s->phiy[k] + contact_alpha(s, k) * row_dot(s, k, s->wk);
			if (s->phi[k] < -1e-12 * scale && (add < 0 || s->phi[k] < s->phi[add]))
				add = k;
		}
		if (add < 0)
			return 0;
		s->active[add] = 1;
	}
	return -1;
}

/* w = P_{K∩C}(y) (P_C(y) without contacts, when contacts is 0); *moved
 * tells whether a contact acted. */
static int project(struct paoli *s, double t, int contacts, int *moved)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nk = contacts ? s->nk : 0;
	if (s->sparse)
		return project_delassus(s, moved);
	memcpy(s->w, s->y, sizeof(double) * (size_t)n);
	*moved = 0;
	for (int k = 0; k < s->nc; k++)
		s->muc[k] = 0;
	for (int k = 0; k < s->nk; k++) {
		s->active[k] = 0;
		s->mu[k] = 0;
	}
	if (s->nc && kkt_solve(s, t))
		return -1;
	if (nk == 0)
		return 0;
	gaps_at(s, s->w, 1);
	/* start from the most violated contact alone; the others enter one
	 * at a time, so that a redundant contact (the same gap stated twice)
	 * never makes the KKT matrix singular */
	int first = -1;
	for (int k = 0; k < nk; k++)
		if (s->phi[k] < 0 && (first < 0 || s->phi[k] < s->phi[first]))
			first = k;
	if (first < 0)
		return 0;
	s->active[first] = 1;
	*moved = 1;
	/* an active-set iteration: at most 4 nk + 4 changes of the set */
	for (int round = 0; round < 4 * nk + 4; round++) {
		if (kkt_solve(s, t))
			return -1;
		if (leave_set(s))
			continue;
		gaps_at(s, s->w, 0);
		double scale = nl_maxabs(n, s->w) + nl_maxabs(n, s->y) + 1e-300;
		int add = -1;
		for (int k = 0; k < nk; k++)
			if (!s->active[k] && s->phi[k] < -1e-12 * scale && (add < 0 || s->phi[k] < s->phi[add]))
				add = k;
		if (add < 0)
			return 0;
		s->active[add] = 1;
	}
	return -1;
}

static void smooth_acceleration(struct paoli *s, double t, const double *u, const double *v, double *a, double *lam)
{
	struct rt_state st = { (double *)u, (double *)v, a, NULL, NULL, lam };
	nl_acceleration(&s->c, t, &st);
}

/* The first step's Uᵐ⁻¹ = u₀ − τv₀ + τ²/2 a₀ (Taylor) is a history the
 * scheme did not make, and two starts on an obstacle need another one.
 *
 * A body resting on an obstacle (a weight on a floor): u₀ − τv₀ is
 * admissible, but the a₀ term takes the Taylor Uᵐ⁻¹ inside the obstacle
 * by τ²/2 |a₀|, and the impact law then throws the body up by
 * e τ²/2 |a₀| at the first step (with e = 1 it bounces for ever).  Uᵐ⁻¹
 * is projected onto K (in the metric of the step): the obstacle's
 * reaction removes the normal part of the acceleration, the tangential
 * part stays (a block sliding under a constant force keeps central
 * differences' exactness).
 *
 * A body leaving an obstacle (on it at t₀, normal velocity outwards):
 * u₀ − τv₀ lies inside the obstacle, and with e > 0 the scheme reads
 * that as an impact, the first step's velocity off by τ|a₀|.  The first
 * step is then taken with e = 0, Uᵐ⁺¹ = P_K(u₀ + τv₀ + τ²/2 a₀) (the
 * initialisation U¹ ∈ K of Paoli and Schatzman 2002, section 2): exact
 * free flight for the leaving body; it is used only when no other
 * contact is arriving at t₀, whose impact it would make plastic.
 *
 * *plastic is set to 1 for the second case.  0, -1 (projection failed),
 * -2 (out of memory). */
static int start_on_obstacle(struct paoli *s, double t0, const struct rt_state *x, double tau, int *plastic)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nk = s->nk, inside = 0, leaving = 0, arriving = 0;
	double *phi0 = s->mu;   /* scratch until the projection */
	double scale = nl_maxabs(n, x->u) + tau * nl_maxabs(n, x->v) + nl_maxabs(n, s->uprev) + 1e-300;
	double tol = 1e-12 * scale;
	*plastic = 0;
	problem_contacts(pb, x->u, phi0, NULL);
	/* u ± τv are guesses, not states of the run: a gap with no value
	 * there (sqrt(y) below 0) is no error (pb->contact_nan), and a NaN
	 * reads as neither arriving, leaving nor inside */
	int bad = pb->contact_nan;
	for (int i = 0; i < n; i++)
		s->y[i] = x->u[i] + tau * x->v[i];
	problem_contacts(pb, s->y, s->phi, NULL);
	for (int k = 0; k < nk; k++)
		arriving |= s->phi[k] < phi0[k] - tol;
	for (int i = 0; i < n; i++)
		s->y[i] = x->u[i] - tau * x->v[i];
	problem_contacts(pb, s->y, s->phi, NULL);
	pb->contact_nan = bad;
	for (int k = 0; k < nk; k++) {
		if (s->phi[k] < -tol && phi0[k] >= -tol)
			leaving = 1;
		else if (s->phi[k] < -tol)
			return 0;   /* starting inside: the Taylor start */
	}
	if (leaving) {
		*plastic = !arriving;
		return 0;
	}
	/* Uᵐ⁻¹ is the Taylor start's, a guess too */
	problem_contacts(pb, s->uprev, s->phi, NULL);
	pb->contact_nan = bad;
	for (int k = 0; k < nk; k++)
		inside |= s->phi[k] < -tol;
	if (!inside)
		return 0;
	memcpy(s->y, s->uprev, sizeof(double) * (size_t)n);
	int moved;
	s->plain = 1;
	int rc = project(s, t0, 1, &moved);
	s->plain = 0;
	if (rc)
		return rc;
	memcpy(s->uprev, s->w, sizeof(double) * (size_t)n);
	return 0;
}

static int ps_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct paoli *s = p;
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	double e = s->e;
	s->plain = 0;
	/* Uᵐ⁻¹ from the chord velocity Vᵐ = vₘ − τ/2 aₘ */
	for (int i = 0; i < n; i++)
		s->uprev[i] = x->u[i] - tau * (x->v[i] - 0.5 * tau * x->a[i]);
	/* M⁻¹Fᵐ at (Uᵐ, vₘ) (for M(u), the Euler–Lagrange acceleration with
	 * its velocity terms, and the metric M(Uᵐ)); the step's loads and
	 * ∇Ψ(vₘ) for the ledger */
	smooth_acceleration(s, t0, x->u, x->v, s->acc, s->lam0);
	s->M = pb->M;
	if (pb->varmass) {
		problem_mass(pb, x->u, s->Mu);
		s->M = s->Mu;
	}
	int plastic = 0;
	if (!s->started && s->nk) {
		int rc = start_on_obstacle(s, t0, x, tau, &plastic);
		if (rc == -2)
			goto no_memory;
		if (rc)
			goto failed;
		if (plastic) {
			e = 0;
			s->plain = 1;   /* K itself, every group's e taken as 0 */
		}
	}
	problem_load_at(pb, t0, x->u, s->f0);
	problem_psi(pb, x->v, NULL, s->psi0);
	for (int i = 0; i < n; i++)
		s->y[i] = (2 * x->u[i] - (1 - e) * s->uprev[i] + tau * tau * s->acc[i]) / (1 + e);
	int moved, rc = project(s, t1, 1, &moved);
	if (rc == -2)
		goto no_memory;
	if (rc)
		goto failed;
	/* the contacts' normal impulses of the step, after the multipliers
	 * (record impulse): M(Uᵐ⁺¹ − U_free) = (1+e) Σ μ_i alpha_i ∇φ_i, the
	 * change of momentum τM(Vᵐ⁺¹ − V_free) over τ (see gaps_at) */
	for (int k = 0; k < s->nk; k++)
		x->lam[s->nc + k] = (1 + e) * s->mu[k] * contact_alpha(s, k) / tau;
	if (s->nc) {
		/* back onto C: P_C(2Uᵐ − Uᵐ⁻¹ + τ²aᵐ) without contact,
		 * P_C(−eUᵐ⁻¹ + (1+e)w) with one */
		for (int i = 0; i < n; i++)
			s->y[i] = moved ? -e * s->uprev[i] + (1 + e) * s->w[i]
			                : 2 * x->u[i] - s->uprev[i] + tau * tau * s->acc[i];
		int dummy;
		if (project(s, t1, 0, &dummy))
			goto failed;
		/* so that the update below gives w */
		for (int i = 0; i < n; i++)
			s->w[i] = (s->w[i] + e * s->uprev[i]) / (1 + e);
	}
	double w = 0, d = 0;
	memcpy(s->vold, x->v, sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++) {
		double unew = -e * s->uprev[i] + (1 + e) * s->w[i];
		s->vtmp[i] = (unew - x->u[i]) / tau;   /* Vᵐ⁺¹ */
		s->y[i] = unew - x->u[i];              /* Δu */
		x->u[i] = unew;
	}
	smooth_acceleration(s, t1, x->u, s->vtmp, x->a, x->lam);
	for (int i = 0; i < n; i++) {
		if (moved) {
			x->v[i] = s->vtmp[i];
			x->a[i] = 0;
		} else {
			x->v[i] = s->vtmp[i] + 0.5 * tau * x->a[i];
		}
	}
	problem_load_at(pb, t1, x->u, s->f1);
	problem_psi(pb, x->v, NULL, s->w);
	for (int i = 0; i < n; i++) {
		w += s->y[i] * 0.5 * (s->f0[i] + s->f1[i]);
		d += s->y[i] * 0.5 * (s->psi0[i] + s->w[i]);
	}
	problem_dissipation_terms(pb, s->vold, NULL, 0.5, 0, s->y, NULL, dterm);
	problem_dissipation_terms(pb, x->v, NULL, 0.5, 0, s->y, NULL, dterm);
	*dW = w;
	*dD = d;
	s->started = 1;
	s->plain = 0;
	return 0;
failed:
	snprintf(err->msg, sizeof err->msg, "the projection onto the contacts failed (dependent contact "
	         "gradients, or a point too far from the admissible set)");
	err->code = 4;
	return -1;
no_memory:
	snprintf(err->msg, sizeof err->msg, "out of memory for the contacts' projection");
	err->code = 4;
	return -1;
}

static const struct scheme_newton nl_paoli_schatzman = {
	.alloc = ps_alloc,
	.step = ps_step,
	.free = ps_free,
	.needs_dense = ps_needs_dense,
};

const struct scheme_type scheme_paoli_schatzman = {
	.family = IR_PAOLI_SCHATZMAN,
	.newton = &nl_paoli_schatzman,
};
