/* scheme_newmark.c — the Newmark family, newmark(β, γ) and generalized-α
 * (Chung–Hulbert 1993), both paths (dyn(5), SCHEMES); central differences
 * (β = 0, γ = ½) borrow them (scheme_central_difference.c).  The Newton
 * path:
 *
 *   uᵏ = ũ + βτ²aᵏ,  vᵏ = ṽ + γτaᵏ  (Newmark's updates)
 *   M[(1−α_m)aᵏ + α_m aᵏ⁻¹] + (1−α_f)F(uᵏ, vᵏ) + α_f F(uᵏ⁻¹, vᵏ⁻¹) = f(t_{k−α_f})
 *
 * with F = ∇ᵤΦ + ∇ᵥΨ (+ Gᵀλ with constraints, and cᵏ(uᵏ) = 0) combined,
 * not evaluated at a combined state (code aster's HHT with MODI_EQUI).  Internal variables follow the backward-
 * Euler return mapping at tₖ: 0 ∈ ∂Ψ(żᵏ) + ∂_zΦ(uᵏ, zᵏ) − gᵏ, zᵏ = zᵏ⁻¹ + τżᵏ.
 * The ledger uses code_aster's pairing: ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2,
 * ΔD = Δu·(∇ᵥΨᵏ⁻¹ + ∇ᵥΨᵏ)/2 (+ τ żᵏ·∇_żΨᵏ + Σσ|Δz| for z); the residual
 * of generalized-α's dissipative members is taken against its algorithmic
 * energy (alpha_energy_init, at the end). */
#include <config.h>

#include "scheme.h"
#include "stage.h"
#include "la.h"
#include "la_rows.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the linear path: constant operators ---- */

/* On linear models with constant operators:
 *
 *   uᵏ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²[(½−β)aᵏ⁻¹ + βaᵏ]
 *   vᵏ = vᵏ⁻¹ + τ[(1−γ)aᵏ⁻¹ + γaᵏ]
 *   M[(1−α_m)aᵏ + α_m aᵏ⁻¹] + (1−α_f)(C vᵏ + K uᵏ) + α_f(C vᵏ⁻¹ + K uᵏ⁻¹) = f(t_{k−α_f})
 *
 * Newmark is α_m = α_f = 0.  In acceleration form, with the predictors
 * ũ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²(½−β)aᵏ⁻¹ and ṽ = vᵏ⁻¹ + τ(1−γ)aᵏ⁻¹, the step
 * matrix (1−α_m)M + (1−α_f)(γτC + βτ²K) is factored once per step size
 * (Cholesky for Newmark with symmetric operators).  β = 0 is explicit in K
 * and is the central-difference scheme (scheme_central_difference.c).  The
 * same scheme as the Newton path below, without Newton. */

/* rows per block of nm_step_pass: its windows stay in the first-level
 * cache */
enum { PASS_BLOCK = 256 };
/* pass_chain's arrays of a block: the windows W, X1, X2 and the rows'
 * terms of ½vᵀMv, ½uᵀKu and the dissipation */
enum { CHAIN_ARRAYS = 6 };

struct newmark {
	const struct rt_system *sys;
	double am, af, beta, gamma, tau;
	struct step_matrix *f;
	double *ut, *vt, *rhs, *tmp, *w;
	int rows;             /* K and C dense or banded: nm_step_to's one pass */
	/* β = 0, α_f = 0, no C, K in compressed columns: predict leaves K ũ
	 * in tmp, and uᵏ = ũ: the last step's ½uᵀKu (nm_potential_end) */
	int has_p;
	double p_end;
	/* nm_step_pass (α_m = α_f = 0, M, K, C dense or banded, no
	 * constraints): rhs holds the next step's right-hand side when prep,
	 * for steps of prep_tau; ring: three windows of the rows whose
	 * products are being formed (vᵏ⁻¹ + vᵏ and the next predictors),
	 * row j at [j & mask], so that they never go to memory */
	int pass;
	int prep;
	double prep_tau;
	double *ring;
	size_t mask;
	double *blk;          /* pass_chain's block arrays (CHAIN_ARRAYS) */
	struct la_rows Mr, Kr, Cr;   /* M, K, C row by row (C: M's without C) */
};

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static void nm_free(void *p)
{
	struct newmark *s = p;
	if (!s)
		return;
	step_matrix_free(s->f);
	free(s->ut);
	free(s->vt);
	free(s->rhs);
	free(s->tmp);
	free(s->w);
	free(s->ring);
	free(s->blk);
	free(s);
}

/* par: struct alpha_params */
static void *alpha_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	const struct alpha_params *q = par;
	struct newmark *s = mem_calloc(1, sizeof *s);
	int n = sys->n;
	if (!s)
		goto oom;
	s->sys = sys;
	s->am = q->alpha_m;
	s->af = q->alpha_f;
	s->beta = q->beta;
	s->gamma = q->gamma;
	/* M + γτC + βτ²K is symmetric positive definite for symmetric
	 * non-negative C and K; the general factorization covers the rest. */
	int sym = s->am == 0 && s->af == 0 && sys->M->sym && sys->K->sym && (!sys->C || sys->C->sym);
	/* with constraints the saddle point [S wBᵀ; B 0] is indefinite
	 * (step_matrix_alloc knows) */
	size_t nt = (size_t)n + (size_t)sys->nc;
	/* β = 0 (central differences): the step matrix has no K term */
	s->f = step_matrix_alloc(sys, sym, s->beta != 0);
	s->rows = (sys->K->kind == LA_MAT_DENSE || sys->K->kind == LA_MAT_BAND) &&
	          (!sys->C || sys->C->kind == LA_MAT_DENSE || sys->C->kind == LA_MAT_BAND);
	s->ut = mem_alloc(sizeof(double) * (size_t)n);
	s->vt = mem_alloc(sizeof(double) * (size_t)n);
	s->rhs = mem_alloc(sizeof(double) * nt);
	s->tmp = mem_alloc(sizeof(double) * (size_t)n);
	s->w = mem_alloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->ut || !s->vt || !s->rhs || !s->tmp || !s->w)
		goto oom;
	const struct la_mat *C = sys->C;
	s->pass = s->rows && s->am == 0 && s->af == 0 && sys->nc == 0 &&
	          (sys->M->kind == LA_MAT_DENSE || sys->M->kind == LA_MAT_BAND);
	if (s->pass) {
		/* a window holds rows i0 − lo .. i1 + hi of a block */
		int lo = imax(sys->K->kl, imax(sys->M->kl, C ? C->kl : 0));
		int hi = imax(sys->K->ku, imax(sys->M->ku, C ? C->ku : 0));
		size_t w = 1;
		while (w < (size_t)PASS_BLOCK + (size_t)lo + (size_t)hi + 1)
			w *= 2;
		s->mask = w - 1;
		/* formed once: a struct of two ints written just before it is
		 * read stalls the loads of its fields */
		s->Mr = la_rows_of(sys->M);
		s->Kr = la_rows_of(sys->K);
		s->Cr = la_rows_of(C ? C : sys->M);
		s->ring = mem_alloc(3 * w * sizeof(double));
		s->blk = mem_alloc(CHAIN_ARRAYS * (PASS_BLOCK + 2) * sizeof(double));
		if (!s->ring || !s->blk)
			goto oom;
	}
	return s;
oom:
	nm_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

/* midpoint, discrete_gradient and staggered_midpoint on linear models */
static void *tr_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	static const struct alpha_params trapezoidal = { 0, 0, 0.25, 0.5 };
	return alpha_alloc(sys, &trapezoidal, err);
}

static int nm_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	s->tau = tau;
	return step_factor_checked(s->f, s->sys, 1, s->gamma * tau, s->beta * tau * tau, 1,
	                           "the step matrix M + gamma*tau*C + beta*tau^2*K is singular or not positive definite",
	                           err);
}

static int ga_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	double c = 1 - s->af;
	s->tau = tau;
	return step_factor_checked(s->f, s->sys, 1 - s->am, c * s->gamma * tau, c * s->beta * tau * tau, c,
	                           "the step matrix of generalized_alpha is singular", err);
}

/* The predictors ũ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²(½−β)aᵏ⁻¹, ṽ = vᵏ⁻¹ + τ(1−γ)aᵏ⁻¹,
 * and rhs −= K w + C w' with w = (1−α_f)ũ + α_f uᵏ⁻¹, w' likewise (ũ
 * and ṽ themselves for Newmark: no copy), subtracted as they are formed */
static void predict(struct newmark *s, double tau, const double *u0, const double *v0, const double *a0)
{
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double af = s->af, cu = tau * tau * (0.5 - s->beta), cv = tau * (1 - s->gamma);
	for (int i = 0; i < n; i++) {
		s->ut[i] = u0[i] + tau * v0[i] + cu * a0[i];
		s->vt[i] = v0[i] + cv * a0[i];
	}
	const double *w = s->ut;
	if (af != 0) {
		for (int i = 0; i < n; i++)
			s->w[i] = (1 - af) * s->ut[i] + af * u0[i];
		w = s->w;
	}
	la_mat_mulsub(sys->K, w, s->rhs, s->tmp);
	if (sys->C) {
		w = s->vt;
		if (af != 0) {
			for (int i = 0; i < n; i++)
				s->w[i] = (1 - af) * s->vt[i] + af * v0[i];
			w = s->w;
		}
		la_mat_mulsub(sys->C, w, s->rhs, s->tmp);
	}
}

/* The same for α_f = 0 and dense or banded K and C: the predictors
 * formed a block of rows ahead and subtracted while in cache, one pass
 * over the state instead of three, the same arithmetic row by row */
static void predict_rows(struct newmark *s, double tau, const double *u0, const double *v0, const double *a0)
{
	const struct rt_system *sys = s->sys;
	const struct la_mat *C = sys->C;
	int n = sys->n, ahead = imax(sys->K->ku, C ? C->ku : 0), done = 0;
	double cu = tau * tau * (0.5 - s->beta), cv = tau * (1 - s->gamma);
	for (int i0 = 0; i0 < n; i0 += 512) {
		int i1 = imin(n, i0 + 512), p1 = imin(n, i1 + ahead);
		for (int i = done; i < p1; i++) {
			s->ut[i] = u0[i] + tau * v0[i] + cu * a0[i];
			s->vt[i] = v0[i] + cv * a0[i];
		}
		done = p1;
		la_mat_mulsub_rows(sys->K, s->ut, s->rhs, i0, i1);
		if (C)
			la_mat_mulsub_rows(C, s->vt, s->rhs, i0, i1);
	}
}

/* From (u0, v0, a0) at t − τ into (u, v, a), which are either the same
 * vectors (in place) or do not overlap them: every entry of the step
 * before is read before the step's end is written. */
static int nm_step_to(void *p, double t, double tau, const double *u0, const double *v0, const double *a0, double *u,
                      double *v, double *a, struct rt_error *err)
{
	struct newmark *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double b = s->beta, g = s->gamma, am = s->am, af = s->af;
	(void)err;
	s->prep = 0;
	sys->load(sys->load_ctx, t - af * tau, s->rhs);
	if (af == 0 && s->rows)
		predict_rows(s, tau, u0, v0, a0);
	else
		predict(s, tau, u0, v0, a0);
	if (am != 0) {
		la_mat_mul(sys->M, a0, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= am * s->tmp[i];
	}
	if (sys->nc) {
		/* (1−α_f)Bᵀλᵏ is in the step matrix; α_f Bᵀλᵏ⁻¹ goes right, as
		 * the Newton path's α-weighted constraint force */
		for (int q = 0; q < sys->nb && af != 0; q++)
			s->rhs[sys->bi[q]] -= af * sys->bv[q] * sys->lam[sys->bk[q]];
		if (b != 0)
			step_solve_saddle(s->f, t, s->ut, b * tau * tau, s->rhs);
		else {
			/* central differences: uᵏ = ũ does not depend on aᵏ, which
			 * the constraint on the next position fixes instead,
			 * B uᵏ⁺¹ = G(tₖ₊₁) with uᵏ⁺¹ = uᵏ + τṽ + τ²aᵏ (γ = ½) — the
			 * second difference of G, as SHAKE does for linear
			 * constraints (Ryckaert, Ciccotti and Berendsen 1977) */
			for (int i = 0; i < n; i++)
				s->tmp[i] = s->ut[i] + tau * s->vt[i];
			step_solve_saddle(s->f, t + tau, s->tmp, tau * tau, s->rhs);
		}
	} else
		step_solve(s->f, s->rhs);
	/* an explicit step ends at uᵏ = ũ (β = 0), whose K ũ predict left in
	 * tmp when K is in compressed columns (la_mat_mulsub) and no C
	 * product overwrote it: ½uᵀKu for the ledger without a product */
	s->has_p = b == 0 && af == 0 && !sys->nc && !sys->C && !s->rows && sys->K->kind == LA_MAT_CSC;
	if (s->has_p) {
		double p2 = 0;
		for (int i = 0; i < n; i++) {
			a[i] = s->rhs[i];
			u[i] = s->ut[i] + b * tau * tau * a[i];
			v[i] = s->vt[i] + g * tau * a[i];
			p2 += u[i] * s->tmp[i];
		}
		s->p_end = 0.5 * p2;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		a[i] = s->rhs[i];
		u[i] = s->ut[i] + b * tau * tau * a[i];
		v[i] = s->vt[i] + g * tau * a[i];
	}
	return 0;
}

static int nm_potential_end(void *p, double *P)
{
	struct newmark *s = p;
	if (!s->has_p)
		return 0;
	*P = s->p_end;
	return 1;
}

static int nm_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	return nm_step_to(p, t, tau, u, v, a, u, v, a, err);
}

/* Σ_j a_ij x_j as la_row_dot, x_j in a window at [j & m] */
static inline double ring_dot(const struct la_rows *R, int n, int i, const double *x, size_t m)
{
	const double *a = R->a + i;
	double s = 0;
	for (int j = i - R->kl < 0 ? 0 : i - R->kl, hi = i + R->ku < n ? i + R->ku : n - 1; j <= hi; j++)
		s += a[(size_t)j * R->s] * x[(size_t)j & m];
	return s;
}

/* What the pass forms from row i's products (nm_step_pass), any band */
struct pass_rows {
	struct la_rows M, K, C;
	int n, hasC, next;
	const double *u0, *u, *v, *W, *X1, *X2;
	/* the next load on its pattern: row pat[pq] is the next with one */
	const int *pat;
	const double *fn;
	int npat, pq;
	double *rhs;
	size_t m;
	double t2, p2, d;
};

static void rows_any(struct pass_rows *q, int i0, int i1)
{
	int n = q->n;
	size_t m = q->m;
	for (int i = i0; i < i1; i++) {
		q->t2 += q->v[i] * la_row_dot(&q->M, n, i, q->v);
		q->p2 += q->u[i] * la_row_dot(&q->K, n, i, q->u);
		if (q->hasC)
			q->d += (q->u[i] - q->u0[i]) * 0.5 * ring_dot(&q->C, n, i, q->W, m);
		if (q->next) {
			double r = 0;
			if (q->pq < q->npat && q->pat[q->pq] == i)
				r = q->fn[q->pq++];
			r -= ring_dot(&q->K, n, i, q->X1, m);
			if (q->hasC)
				r -= ring_dot(&q->C, n, i, q->X2, m);
			q->rhs[i] = r;
		}
	}
}

/* The same for a chain's inner rows, M diagonal, K and C tridiagonal,
 * written out: the same terms in the same order.  hasC and next are
 * constants where it is called, so that each case compiles to a loop
 * without branches. */
static inline void rows_chain(struct pass_rows *q, int i0, int i1, int hasC, int next)
{
	const double *ma = q->M.a, *ka = q->K.a, *ca = q->C.a;
	const double *u0 = q->u0, *u = q->u, *v = q->v, *W = q->W, *X1 = q->X1, *X2 = q->X2, *fn = q->fn;
	const int *pat = q->pat;
	int pq = q->pq, npat = q->npat;
	size_t ms = q->M.s, ks = q->K.s, cs = q->C.s, m = q->m;
	double t2 = q->t2, p2 = q->p2, d = q->d;
	for (int i = i0; i < i1; i++) {
		size_t im = (size_t)i - 1, ii = (size_t)i, ip = (size_t)i + 1;
		double mv = 0, ku = 0;
		mv += ma[ii + ii * ms] * v[i];
		t2 += v[i] * mv;
		ku += ka[ii + im * ks] * u[im];
		ku += ka[ii + ii * ks] * u[ii];
		ku += ka[ii + ip * ks] * u[ip];
		p2 += u[i] * ku;
		if (hasC) {
			double cw = 0;
			cw += ca[ii + im * cs] * W[im & m];
			cw += ca[ii + ii * cs] * W[ii & m];
			cw += ca[ii + ip * cs] * W[ip & m];
			d += (u[i] - u0[i]) * 0.5 * cw;
		}
		if (next) {
			double r = 0, sk = 0;
			if (pq < npat && pat[pq] == i)
				r = fn[pq++];
			sk += ka[ii + im * ks] * X1[im & m];
			sk += ka[ii + ii * ks] * X1[ii & m];
			sk += ka[ii + ip * ks] * X1[ip & m];
			r -= sk;
			if (hasC) {
				double sc = 0;
				sc += ca[ii + im * cs] * X2[im & m];
				sc += ca[ii + ii * cs] * X2[ii & m];
				sc += ca[ii + ip * cs] * X2[ip & m];
				r -= sc;
			}
			q->rhs[i] = r;
		}
	}
	q->t2 = t2;
	q->p2 = p2;
	q->d = d;
	q->pq = pq;
}

/* rows i0 .. i1 − 1 of the pass's products */
static void pass_rows(struct pass_rows *q, int chain, int i0, int i1)
{
	if (!chain) {
		rows_any(q, i0, i1);
		return;
	}
	/* the chain's end rows have two terms: the general rows */
	int c0 = i0 > 1 ? i0 : 1, c1 = i1 < q->n - 1 ? i1 : q->n - 1;
	if (c0 >= c1) {
		rows_any(q, i0, i1);
		return;
	}
	rows_any(q, i0, c0);
	if (q->hasC && q->next)
		rows_chain(q, c0, c1, 1, 1);
	else if (q->hasC)
		rows_chain(q, c0, c1, 1, 0);
	else if (q->next)
		rows_chain(q, c0, c1, 0, 1);
	else
		rows_chain(q, c0, c1, 0, 0);
	rows_any(q, c1, i1);
}

/* The step's right-hand side f − K ũ − C ṽ as the pass forms the next
 * one (the same bits as predict_rows), for a state the pass did not
 * leave: the predictors in the windows, then the rows' products. */
static void pass_prepare(struct newmark *s, double tau, const double *u0, const double *v0, const double *a0,
                         int npat, const int *pat, const double *f)
{
	int pq = 0;
	const struct rt_system *sys = s->sys;
	int n = sys->n, hi = imax(s->Kr.ku, sys->C ? s->Cr.ku : 0), done = 0;
	double cu = tau * tau * (0.5 - s->beta), cv = tau * (1 - s->gamma);
	size_t m = s->mask;
	double *X1 = s->ring + m + 1, *X2 = s->ring + 2 * (m + 1);
	for (int i0 = 0; i0 < n; i0 += PASS_BLOCK) {
		int i1 = imin(n, i0 + PASS_BLOCK), p1 = imin(n, i1 + hi);
		for (int j = done; j < p1; j++) {
			X1[(size_t)j & m] = u0[j] + tau * v0[j] + cu * a0[j];
			X2[(size_t)j & m] = v0[j] + cv * a0[j];
		}
		done = p1;
		for (int i = i0; i < i1; i++) {
			double r = 0;
			if (pq < npat && pat[pq] == i)
				r = f[pq++];
			r -= ring_dot(&s->Kr, n, i, X1, m);
			if (sys->C)
				r -= ring_dot(&s->Cr, n, i, X2, m);
			s->rhs[i] = r;
		}
	}
}

/* The pass applies when α_m = α_f = 0, M, K and C are dense or banded
 * and there are no constraints; the driver then steps by it alone, and
 * the other paths' vectors go. */
static int nm_pass_begin(void *p)
{
	struct newmark *s = p;
	if (!s->pass)
		return 0;
	free(s->ut);
	free(s->vt);
	free(s->tmp);
	free(s->w);
	s->ut = s->vt = s->tmp = s->w = NULL;
	return 1;
}

/* ---- a chain's pass ---- */

/* chain_pass is compiled twice where the compiler can (configure's
 * HAVE_TARGET_CLONES): for AVX2, chosen at start when the processor has
 * it, and for the baseline.  Its loops, inlined into each, then run four
 * doubles wide instead of two (1.25 times as fast at 10^3 unknowns, make
 * bench); AVX2 has no FMA, so each product and sum is rounded as before
 * and the bits are the same. */
#if HAVE_TARGET_CLONES
#define PASS_CLONES __attribute__((target_clones("avx2", "default")))
#define PASS_INLINE static inline __attribute__((always_inline))
#else
#define PASS_CLONES
#define PASS_INLINE static inline
#endif

/* What pass_chain needs of a step: the state before and the state it
 * writes, the constants of Newmark's updates (nm_step_pass) */
struct chain_step {
	int n, hasC, next;
	const double *ma, *ka, *ca;   /* M's diagonal; K and C packed: row i at [2i − 1 .. 2i + 1] */
	const double *u0, *v0, *a0;
	double *u, *v, *a, *rhs;
	double tau, cu, cv, btt, gt, tn, cun, cvn;
	const int *pat;
	const double *fn;
	int npat, pq;
	double t2[4], p2[4], d[4];   /* the sums of the rows' terms, by lane */
};

/* m rows of the step's end from the solution in rhs (aᵏ), and their
 * window entries W = vᵏ⁻¹ + vᵏ, X1 = ũ', X2 = ṽ': nm_step_pass's
 * updates, row by row independent.  The arrays are parameters, restrict,
 * so that the compiler vectorises the loop. */
PASS_INLINE void update_rows(const struct chain_step *c, int m, const double *restrict u0,
                        const double *restrict v0, const double *restrict a0, const double *restrict rhs,
                        double *restrict u, double *restrict v, double *restrict a, double *restrict W,
                        double *restrict X1, double *restrict X2)
{
	double tau = c->tau, cu = c->cu, cv = c->cv, btt = c->btt, gt = c->gt, tn = c->tn, cun = c->cun, cvn = c->cvn;
	for (int j = 0; j < m; j++) {
		double aj = rhs[j];
		double ut = u0[j] + tau * v0[j] + cu * a0[j];
		double vt = v0[j] + cv * a0[j];
		double uj = ut + btt * aj, vj = vt + gt * aj;
		a[j] = aj;
		u[j] = uj;
		v[j] = vj;
		W[j] = v0[j] + vj;
		X1[j] = uj + tn * vj + cun * aj;
		X2[j] = vj + cvn * aj;
	}
}

PASS_INLINE void chain_update(struct chain_step *c, int j0, int j1, double *W, double *X1, double *X2, int base)
{
	update_rows(c, j1 - j0, c->u0 + j0, c->v0 + j0, c->a0 + j0, c->rhs + j0, c->u + j0, c->v + j0, c->a + j0,
	            W + (j0 - base), X1 + (j0 - base), X2 + (j0 - base));
}

/* Row i's terms, any row of the chain (its ends have two entries): the
 * reference of chain_rows, and its end rows and loaded rows.  f: the
 * row's load. */
PASS_INLINE void chain_row(struct chain_step *c, int i, const double *W, const double *X1, const double *X2, int base,
                      double f, double *tv, double *pu, double *dd)
{
	int lo = i > 0 ? i - 1 : 0, hi = i < c->n - 1 ? i + 1 : i;
	const double *ka = c->ka, *ca = c->ca, *u = c->u;
	double mv = 0, ku = 0, cw = 0, sk = 0, sc = 0;
	mv += c->ma[i] * c->v[i];
	for (int j = lo; j <= hi; j++) {
		ku += ka[i + j] * u[j];
		sk += ka[i + j] * X1[j - base];
		if (c->hasC) {
			cw += ca[i + j] * W[j - base];
			sc += ca[i + j] * X2[j - base];
		}
	}
	*tv = c->v[i] * mv;
	*pu = u[i] * ku;
	*dd = (u[i] - c->u0[i]) * 0.5 * cw;
	if (c->next) {
		double r = f;
		r -= sk;
		if (c->hasC)
			r -= sc;
		c->rhs[i] = r;
	}
}

/* Rows i0 .. i1 − 1, inside the chain (0 < i0, i1 < n): the ledger's
 * terms of each row and the next right-hand side without its load, each
 * row's sums in the order of chain_row (vectorised: the sums over the
 * rows are chain_pass's) */
PASS_INLINE void chain_rows(struct chain_step *c, int i0, int i1, const double *restrict W,
                              const double *restrict X1, const double *restrict X2, int base, double *restrict tv,
                              double *restrict pu, double *restrict dd, int hasC, int next)
{
	const double *restrict ma = c->ma, *restrict ka = c->ka, *restrict ca = c->ca;
	const double *restrict u = c->u, *restrict v = c->v, *restrict u0 = c->u0;
	double *restrict rhs = c->rhs;
	for (int i = i0; i < i1; i++) {
		int k = i - base;
		double mv = 0, ku = 0;
		mv += ma[i] * v[i];
		tv[k] = v[i] * mv;
		ku += ka[2 * i - 1] * u[i - 1];
		ku += ka[2 * i] * u[i];
		ku += ka[2 * i + 1] * u[i + 1];
		pu[k] = u[i] * ku;
		if (hasC) {
			double cw = 0;
			cw += ca[2 * i - 1] * W[k - 1];
			cw += ca[2 * i] * W[k];
			cw += ca[2 * i + 1] * W[k + 1];
			dd[k] = (u[i] - u0[i]) * 0.5 * cw;
		}
		if (next) {
			double r = 0, sk = 0;
			sk += ka[2 * i - 1] * X1[k - 1];
			sk += ka[2 * i] * X1[k];
			sk += ka[2 * i + 1] * X1[k + 1];
			r -= sk;
			if (hasC) {
				double sc = 0;
				sc += ca[2 * i - 1] * X2[k - 1];
				sc += ca[2 * i] * X2[k];
				sc += ca[2 * i + 1] * X2[k + 1];
				r -= sc;
			}
			rhs[i] = r;
		}
	}
}

/* s[l] += x[k] for k = l mod 4 (x[0] is lane 0) */
PASS_INLINE void sum_lanes(double *restrict s, const double *restrict x, int m)
{
	double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
	int k = 0;
	for (; k + 4 <= m; k += 4) {
		s0 += x[k];
		s1 += x[k + 1];
		s2 += x[k + 2];
		s3 += x[k + 3];
	}
	if (k < m)
		s0 += x[k];
	if (k + 1 < m)
		s1 += x[k + 1];
	if (k + 2 < m)
		s2 += x[k + 2];
	s[0] = s0;
	s[1] = s1;
	s[2] = s2;
	s[3] = s3;
}

/* nm_step_pass for a chain: M diagonal (banded, kl = ku = 0), K and C
 * symmetric tridiagonal packed (la_mat_pack).  The same arithmetic row
 * by row as the general pass (the same bits of the state and of the next
 * right-hand side, with floating-point contraction off: ISO C11, which
 * AM_CFLAGS' -std=c11 selects), in three sweeps per block, the first two
 * of which a compiler vectorises: the rows' updates into the block's
 * windows (chain_update), the rows' terms (chain_rows), then the sums of
 * the terms over the rows in four lanes (sum_lanes: the ledger differs
 * from the general pass's in rounding only).  The windows hold rows i0 − 1 .. i1 of block [i0, i1) at
 * [j − i0 + 1]; the last two rows of a block are the first two of the
 * next. */
PASS_CLONES static void chain_pass(struct newmark *s, struct chain_step *c)
{
	int n = c->n, B = PASS_BLOCK, done = 0;
	double *W = s->blk, *X1 = W + (B + 2), *X2 = X1 + (B + 2);
	double *tv = X2 + (B + 2), *pu = tv + (B + 2), *dd = pu + (B + 2);
	for (int i0 = 0; i0 < n; i0 += B) {
		int i1 = imin(n, i0 + B), p1 = imin(n, i1 + 1), base = i0 - 1;
		if (i0 > 0) {
			/* rows i0 − 1 and i0, formed by the block before */
			W[0] = W[B];
			W[1] = W[B + 1];
			X1[0] = X1[B];
			X1[1] = X1[B + 1];
			X2[0] = X2[B];
			X2[1] = X2[B + 1];
		}
		chain_update(c, done, p1, W, X1, X2, base);
		done = p1;
		int c0 = imax(i0, 1), c1 = imin(i1, n - 1);
		if (i0 == 0)
			chain_row(c, 0, W, X1, X2, base, 0, &tv[0 - base], &pu[0 - base], &dd[0 - base]);
		if (c0 < c1) {
			if (c->hasC && c->next)
				chain_rows(c, c0, c1, W, X1, X2, base, tv, pu, dd, 1, 1);
			else if (c->hasC)
				chain_rows(c, c0, c1, W, X1, X2, base, tv, pu, dd, 1, 0);
			else if (c->next)
				chain_rows(c, c0, c1, W, X1, X2, base, tv, pu, dd, 0, 1);
			else
				chain_rows(c, c0, c1, W, X1, X2, base, tv, pu, dd, 0, 0);
		}
		if (i1 == n)
			chain_row(c, n - 1, W, X1, X2, base, 0, &tv[n - 1 - base], &pu[n - 1 - base], &dd[n - 1 - base]);
		/* the loaded rows, formed again with their load */
		for (; c->pq < c->npat && c->pat[c->pq] < i1; c->pq++) {
			int i = c->pat[c->pq];
			chain_row(c, i, W, X1, X2, base, c->fn[c->pq], &tv[i - base], &pu[i - base], &dd[i - base]);
		}
		/* row i into lane i mod 4 (i0 is a multiple of 4): four sums
		 * that do not wait on each other */
		sum_lanes(c->t2, tv + (i0 - base), i1 - i0);
		sum_lanes(c->p2, pu + (i0 - base), i1 - i0);
		if (c->hasC)
			sum_lanes(c->d, dd + (i0 - base), i1 - i0);
	}
}

/* Newmark's step (α_m = α_f = 0) in one pass (struct rt_step_pass): the
 * right-hand side f − K ũ − C ṽ comes formed by the step before (or is
 * formed here, predict_rows, when the state did not come from it); the
 * solve; then block by block, the block's rows of the step's end
 * (nm_step_to's updates, ũ and ṽ formed again from the state before,
 * the same bits) and a few rows ahead, then the block's products: the
 * ledger's, and the next right-hand side's, from the next predictors
 * ũ' = uᵏ + τ'vᵏ + τ'²(½−β)aᵏ, ṽ' = vᵏ + τ'(1−γ)aᵏ.  Each row of rhs is
 * read (as aᵏ) before the pass overwrites it with the next step's.  K
 * and C are read once per step instead of twice, and the state once
 * instead of three times. */
static int nm_step_pass(void *p, struct rt_step_pass *sp, struct rt_error *err)
{
	struct newmark *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double tau = sp->tau, b = s->beta, g = s->gamma;
	(void)err;
	if (!(sp->continues && s->prep && s->prep_tau == tau))
		pass_prepare(s, tau, sp->u0, sp->v0, sp->a0, sp->npat, sp->pat, sp->f);
	step_solve(s->f, s->rhs);
	const struct la_mat *M = sys->M, *K = sys->K, *C = sys->C;
	if (M->kind == LA_MAT_BAND && M->kl == 0 && M->ku == 0 && K->packed && (!C || C->packed)) {
		double tn = sp->tau_next;
		struct chain_step c = { n, C != NULL, tn > 0, s->Mr.a, s->Kr.a, C ? s->Cr.a : NULL, sp->u0, sp->v0,
		                        sp->a0, sp->u, sp->v, sp->a, s->rhs, tau, tau * tau * (0.5 - b), tau * (1 - g),
		                        b * tau * tau, g * tau, tn, tn * tn * (0.5 - b), tn * (1 - g), sp->pat, sp->f_next,
		                        sp->npat, 0, { 0 }, { 0 }, { 0 } };
		chain_pass(s, &c);
		s->prep = c.next;
		s->prep_tau = tn;
		sp->dD = (c.d[0] + c.d[1]) + (c.d[2] + c.d[3]);
		sp->T = 0.5 * ((c.t2[0] + c.t2[1]) + (c.t2[2] + c.t2[3]));
		sp->P = 0.5 * ((c.p2[0] + c.p2[1]) + (c.p2[2] + c.p2[3]));
		return 0;
	}
	const double *u0 = sp->u0, *v0 = sp->v0, *a0 = sp->a0;
	double *u = sp->u, *v = sp->v, *a = sp->a, *rhs = s->rhs;
	double cu = tau * tau * (0.5 - b), cv = tau * (1 - g);
	double tn = sp->tau_next, cun = tn * tn * (0.5 - b), cvn = tn * (1 - g);
	int next = tn > 0;
	struct pass_rows q = { s->Mr, s->Kr, s->Cr, n, sys->C != NULL, next, u0, u, v, NULL, NULL, NULL,
	                       sp->pat, sp->f_next, sp->npat, 0, rhs, s->mask, 0, 0, 0 };
	int hi = imax(q.K.ku, imax(q.M.ku, q.hasC ? q.C.ku : 0)), done = 0;
	int chain = q.M.kl == 0 && q.M.ku == 0 && q.K.kl == 1 && q.K.ku == 1 && (!q.hasC || (q.C.kl == 1 && q.C.ku == 1));
	size_t m = s->mask;
	double *W = s->ring, *X1 = s->ring + m + 1, *X2 = s->ring + 2 * (m + 1);
	q.W = W;
	q.X1 = X1;
	q.X2 = X2;
	for (int i0 = 0; i0 < n; i0 += PASS_BLOCK) {
		int i1 = imin(n, i0 + PASS_BLOCK), p1 = imin(n, i1 + hi);
		for (int j = done; j < p1; j++) {
			double aj = rhs[j];
			double ut = u0[j] + tau * v0[j] + cu * a0[j];
			double vt = v0[j] + cv * a0[j];
			a[j] = aj;
			u[j] = ut + b * tau * tau * aj;
			v[j] = vt + g * tau * aj;
			W[(size_t)j & m] = v0[j] + v[j];
			if (next) {
				X1[(size_t)j & m] = u[j] + tn * v[j] + cun * aj;
				X2[(size_t)j & m] = v[j] + cvn * aj;
			}
		}
		done = p1;
		pass_rows(&q, chain, i0, i1);
	}
	double t2 = q.t2, p2 = q.p2, d = q.d;
	s->prep = next;
	s->prep_tau = tn;
	sp->dD = d;
	sp->T = 0.5 * t2;
	sp->P = 0.5 * p2;
	return 0;
}

const struct scheme_linear step_newmark = {
	.alloc = alpha_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.step_to = nm_step_to,
	.free = nm_free,	.step_pass = nm_step_pass,
	.pass_begin = nm_pass_begin,
	.potential_end = nm_potential_end,
	.parts = 1,
};

const struct scheme_linear step_trapezoidal = {
	.alloc = tr_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.step_to = nm_step_to,
	.free = nm_free,	.step_pass = nm_step_pass,
	.pass_begin = nm_pass_begin,
	.parts = 1,
};

static const struct scheme_linear generalized_alpha_linear = {
	.alloc = alpha_alloc,
	.set_step = ga_set_step,
	.step = nm_step,
	.step_to = nm_step_to,
	.free = nm_free,
	.parts = 1,
};

/* ---- the Newton path: energies, internal variables, constraints ---- */

struct alpha {
	struct rt_problem *pb;
	struct nl_common c;
	struct stage st;
	double am, af, beta, gamma;
	double *ut, *vt, *in0, *Fprev, *gpsiprev, *zprev, *uprev, *zero, *fa, *vprev, *zdprev, *du, *dz;
	double *G;            /* the constraint gradient at uᵏ⁻¹: its values on
	                         the model's pattern (problem_constraint_grad) */
	/* dry friction μ_i|u_i'| under α_f ≠ 0: the friction force of the
	 * step ending at xi_t (valid when xi_ok), for the α_f ξᵏ⁻¹ part of
	 * the combined forces, and the force that the step applied */
	double *xi, *xic, xi_t;
	int xi_ok;
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
	free(s->dz); free(s->G); free(s->xi); free(s->xic);
	free(s);
}

/* The index-3 multipliers follow the step's accelerations in the
 * constrained directions, which only the position constraint c(uᵏ) = 0
 * determines there: Newmark's updates with u = 0 give
 * β zᵏ⁺² + (½ − 2β + γ) zᵏ⁺¹ + (½ + β − γ) zᵏ = 0, the scheme's
 * recurrence at infinite frequency (whose roots have modulus ρ∞ for
 * chung_hulbert(ρ∞); Arnold and Brüls 2007, "Convergence of the
 * generalized-α scheme for constrained mechanical systems").  The
 * largest modulus of its roots: */
static double multiplier_radius(double beta, double gamma)
{
	double b = (0.5 - 2 * beta + gamma) / beta, c = (0.5 + beta - gamma) / beta;
	double disc = b * b - 4 * c;
	if (disc < 0)
		return sqrt(c);
	double r = sqrt(disc);
	return fmax(fabs(-b + r), fabs(-b - r)) / 2;
}

/* With ρ > 1 the multipliers blow up.  With ρ = 1 (γ = ½, no numerical
 * dissipation) their errors are not damped: a moving constraint feeds
 * them every step, and under trapezoidal (a double root −1) λ alternates
 * with an O(1) error growing like t (measured 1.08 at every step size on
 * a pendulum whose pivot moves); for β > ¼ (roots e^{±iθ}) λ wanders even
 * with fixed constraints (errors 3e-3, 3e-4, 3e-4, 2e-5 per halving).
 * Fixed linear constraints under the double root −1 converge at second
 * order (measured), and are accepted; curved ones only over a few
 * periods, and are refused (below).  0, or 3 with the reason in err. */
static int refuse_multipliers(struct rt_problem *pb, const char *scheme, double beta, double gamma, int ggl,
                              struct rt_error *err)
{
	if (pb->nc == 0)
		return 0;
	double rho = multiplier_radius(beta, gamma);
	const char *name = scheme;
	const char *advice = "use chung_hulbert(rho_inf) with rho_inf < 1, midpoint, or formulation = ggl";
	if (ggl) {
		/* formulation = ggl: the velocity equation G vᵏ = −∂ₜc with
		 * vᵏ = ṽ + γτaᵏ fixes the constrained accelerations instead,
		 * aᵏ ≈ −(1−γ)/γ aᵏ⁻¹ + (smooth terms), so ρ = (1−γ)/γ: γ = ½
		 * does not amplify, and λ converges at second order even with a
		 * moving constraint (measured on the moving pivot over 20 s for
		 * trapezoidal, fox_goodwin, linear_acceleration and
		 * newmark(0.3, 0.5)); γ < ½ blows up (Newton fails). */
		rho = (1 - gamma) / gamma;
		if (!(rho > 1 + 1e-12))
			return 0;
		advice = "use gamma >= 1/2";
	}
	if (rho > 1 + 1e-12)
		nl_refuse(err, "%s is unstable for constraints (its multipliers grow by a factor %.3g per step): %s",
		          name, rho, advice);
	else if (rho >= 1 - 1e-12 && pb->ir->constraint_moving)
		nl_refuse(err, "%s does not converge in lambda for a moving constraint (without numerical dissipation, "
		          "rho_inf = 1, the index-3 multipliers oscillate and grow): %s", name, advice);
	else if (rho >= 1 - 1e-12 && (beta != 0.25 || gamma != 0.5))
		nl_refuse(err, "%s does not converge in lambda (without numerical dissipation, rho_inf = 1, "
		          "the index-3 multipliers oscillate): %s", name, advice);
	else if (rho >= 1 - 1e-12 && !pb->ir->constraint_linear)
		/* the double root −1 with a curved constraint: the multipliers'
		 * errors grow by a factor about 90 every 4 s whatever the step
		 * (a particle on a circle, λ = 0.5: 0.609 at t = 10, 2411 at
		 * t = 20 at τ = 1e-3, then Newton fails); linear constraints
		 * stay second order (tests/verify/linear_constraints.dyn) */
		nl_refuse(err, "%s does not keep lambda bounded for a curved constraint (without numerical "
		          "dissipation, rho_inf = 1, the index-3 multipliers' errors grow with time): %s", name, advice);
	else
		return 0;
	return 3;
}

/* par: struct alpha_params.  A mass depending on u and constraints
 * under beta = 0 are refused from the capabilities (scheme_refuse_model). */
static void *al_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	const struct alpha_params *q = par;
	if (refuse_multipliers(pb, opt->scheme, q->beta, q->gamma, opt->ggl && pb->nc > 0, err) || opt->check_only)
		return NULL;
	struct alpha *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	s->am = q->alpha_m;
	s->af = q->alpha_f;
	s->beta = q->beta;
	s->gamma = q->gamma;
	if (nl_vectors((size_t)pb->N, &s->ut, &s->vt, &s->in0, &s->Fprev, &s->gpsiprev, &s->zprev, &s->uprev,
	               &s->zero, &s->fa, &s->vprev, &s->zdprev, &s->du, &s->dz, &s->xi, &s->xic, (double **)NULL) ||
	    !(s->G = mem_calloc((size_t)pb->ir->ngrad + 1, sizeof(double))) ||
	    nl_common_alloc(&s->c, pb) || stage_alloc(&s->st, pb)) {
		al_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	if (opt->ggl && stage_ggl(&s->st)) {
		al_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
	return s;
}

/* ξᵏ⁻¹, the friction force at t0: the last step's when it ended there,
 * else (the first step) from the state, μ_i sign(v_i) on a sliding dof
 * and on one at rest the force that the equation of motion at t0 leaves
 * to friction, f − F − M a (F: s->Fprev, the other forces), within ±μ_i
 * (the initial acceleration obeys Moreau's inclusion: nl_acceleration). */
static void friction_before(struct alpha *s, double t0, const struct rt_state *x)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	if (s->xi_ok && s->xi_t == t0)
		return;
	la_mat_mul(&pb->Mm, x->a, s->xic);
	for (int i = 0; i < n; i++) {
		double mu = pb->sigma_u[i];
		if (!(mu > 0))
			s->xi[i] = 0;
		else if (x->v[i] != 0)
			s->xi[i] = x->v[i] > 0 ? mu : -mu;
		else
			s->xi[i] = fmin(mu, fmax(-mu, s->c.f0[i] - s->Fprev[i] - s->xic[i]));
	}
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
	int moving = pb->nc && pb->ir->constraint_moving;
	if (pb->nc && (s->af != 0 || moving)) {
		const int *gk, *gi;
		const double *gv;
		int ng = problem_constraint_grad(pb, &gk, &gi, &gv, NULL);
		problem_constraints(pb, t0, x->u, NULL, NULL);
		memcpy(s->G, gv, sizeof(double) * (size_t)ng);
	}
	if (pb->nc && s->af != 0)
		problem_constraint_gt(pb, s->G, x->lam, 1, s->Fprev);
	problem_load(pb, t0, s->c.f0);
	problem_load(pb, t1, s->c.f1);
	if (s->af != 0)
		problem_load(pb, t1 - s->af * tau, s->fa);
	else
		memcpy(s->fa, s->c.f1, sizeof(double) * (size_t)pb->N);
	/* dry friction is one of the combined forces: α_f ξᵏ⁻¹ with the
	 * force ξᵏ⁻¹ of the step before (without it a block pushed beyond
	 * the friction limit accelerated by f − (1 − α_f)μ) */
	if (s->af != 0 && pb->sigma_u) {
		friction_before(s, t0, x);
		for (int i = 0; i < n; i++)
			s->Fprev[i] += s->xi[i];
	}

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
	stage_velocity_constraints(st, 1, s->vt, g * tau);   /* formulation = ggl */
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
	double sa = nl_maxabs(n, x->a) * la_mat_maxabs(&pb->Mm);
	if (sa > scale)
		scale = sa;
	if (!(scale > 0))
		scale = 1;
	int iters;
	double res;
	int rc = stage_solve(st, scale, &iters, &res);
	if (rc)
		return stage_failure(st, rc, err);
	/* moving constraints: the work of the constraint forces in the
	 * pairing of the loads, −Δu·(G(uᵏ⁻¹, tₖ₋₁)ᵀλᵏ⁻¹ + G(uᵏ, tₖ)ᵀλᵏ)/2,
	 * λᵏ being the multiplier at tₖ.  The α-weighted force that the
	 * equation applies, (1−α_f)Gᵏᵀλᵏ + α_f Gᵏ⁻¹ᵀλᵏ⁻¹, is the force at
	 * t_{k−α_f}: paired with Δu it was O(τ) off the mean force over the
	 * step, and a dissipative scheme showed a positive residual (energy
	 * created, 7.5e-3 for chung_hulbert(0.8) at τ = 0.02 on a pendulum
	 * whose pivot moves; the loads' f(t_{k−α_f}) are likewise paired as
	 * (fᵏ⁻¹ + fᵏ)/2, code_aster's TRAV_EXT).  With this pairing the
	 * residual against T + Φ still keeps a term of order τ², of either
	 * sign under a driven motion (dyn(5), ENERGY LEDGER): no pairing of
	 * the work removes it; it is part of the
	 * scheme's algorithmic energy, which the ledger's residual is taken
	 * against (alpha_energy_init below), so that the residual is minus
	 * the scheme's numerical dissipation, never positive. */
	double wc = 0;
	if (moving) {
		const struct ir_model *im = pb->ir;
		for (int q = 0; q < im->ngrad; q++) {
			int k = im->gk[q], i = im->gi[q];
			double du = st->u[i] - x->u[i];
			wc -= 0.5 * du * (s->G[q] * x->lam[k] + st->gs[q] * st->x[pb->N + k]);
		}
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
	/* the friction force the step applied, (1 − α_f)ξᵏ + α_f ξᵏ⁻¹, times Δu */
	const double *xi = st->xiu;
	if (s->af != 0 && pb->sigma_u) {
		for (int i = 0; i < n; i++) {
			s->xic[i] = (1 - s->af) * st->xiu[i] + s->af * s->xi[i];
			s->xi[i] = st->xiu[i];
		}
		s->xi_t = t1;
		s->xi_ok = 1;
		xi = s->xic;
	}
	d += problem_friction_terms(pb, s->du, xi, dterm);
	*dW = w;
	*dD = d;
	return 0;
}

const struct scheme_newton nl_generalized_alpha = {
	.alloc = al_alloc,
	.step = al_step,
	.free = al_free,
};

/* ---- the algorithmic energy of generalized-α (dyn(5), ENERGY LEDGER) ----
 *
 * Chung and Hulbert's (1993) scheme, its forces combined as above, with
 * [x] = xᵏ − xᵏ⁻¹, ⟨x⟩ = (xᵏ + xᵏ⁻¹)/2, x_{k−α} = (1−α)xᵏ + αxᵏ⁻¹ =
 * ⟨x⟩ + (½ − α)[x], and eᵏ = fᵏ − ∇Φ(uᵏ) − ∇Ψ(vᵏ) − Gᵏᵀλᵏ − M aᵏ, how far
 * the step's end is from the equation of motion at tₖ (fᵏ = f(tₖ)):
 *
 * (1) the equation M a_{k−α_m} + F_{k−α_f} = f(t_{k−α_f}) is
 *     e_{k−α_f} = (α_f − α_m) M[a] when f(t_{k−α_f}) = f_{k−α_f} (no
 *     load, or one constant or linear in t), so ε = M⁻¹e follows
 *       εᵏ = ((α_f − α_m)[a] − α_f εᵏ⁻¹)/(1 − α_f),  ε⁰ = 0
 *     (a⁰ solves the equation at t₀), whatever the forces — the
 *     constraint forces of a moving constraint included;
 * (2) the ledger's increments, ΔW = Δu·⟨f − Gᵀλ⟩ and ΔD = Δu·⟨∇Ψ⟩ (the
 *     pairing above), give for the residual R = T + Φ + D − W − (T⁰ + Φ⁰)
 *       Rᵏ − Rᵏ⁻¹ = [T] − Δu·M⟨a⟩ − Δu·M⟨ε⟩ + ([Φ] − Δu·⟨∇Φ⟩),
 *     the last term zero for Φ quadratic (or linear, as gravity);
 * (3) Newmark's updates, Δu = τ⟨v⟩ + τ²(β − γ/2)[a] and [v] = τ⟨a⟩ +
 *     τ(γ − ½)[a], with γ = ½ − α_m + α_f, and (1) turn (2) into
 *       Rᵏ − Rᵏ⁻¹ = −(Cᵏ − Cᵏ⁻¹) − τ²κ ⟨ε⟩ᵀM⟨ε⟩,
 *       C = (α_f − ½)τ vᵀMε + τ²[(½ − α_f)(κ/2) εᵀMε − (½ − α_f)² aᵀMε
 *                                + ½(β − ¼ − α_f(α_f − α_m)) aᵀMa],
 *       κ = (β − α_f(1 − α_m))/(α_f − α_m),
 *     an identity in (vᵏ⁻¹, aᵏ⁻¹, εᵏ⁻¹, aᵏ) (checked symbolically, and to
 *     round-off by tests/verify/alpha_algorithmic_energy.dyn).  Under
 *     formulation = ggl, Δu also holds the correction G(U)ᵀμ, and the
 *     residual adds −G(U)ᵀμ·M(⟨a⟩ + ⟨ε⟩) = −G(U)ᵀμ·⟨f − F − Gᵀλ⟩, minus
 *     the work of the net force on it (either sign, O(τ²) over a run:
 *     dyn(5), ENERGY LEDGER).
 *
 * κ is (1 − ρ∞)/(1 + ρ∞) for chung_hulbert(ρ∞), (1 − α_f)²/(4α_f) for
 * hht(−α_f), β/(−α_m) for wbz: the step's numerical dissipation
 * τ²κ⟨ε⟩ᵀM⟨ε⟩, O(τ⁴) on a smooth motion, is never negative, and the
 * residual taken against the algorithmic energy T + Φ + C, R + Σ[C], is
 * minus its sum: ≤ 0 at every step, third order.  No other C of the
 * form τvᵀM(c₄ε + c₅a) + τ²(c₁εᵀMε + c₂aᵀMε + c₃aᵀMa) does it: c₄ and c₅
 * are forced by removing the terms linear in v, c₂ and c₃ by removing
 * those in aᵏ⁻¹ alone, and the rest of the step's balance, a quadratic
 * form in ([a], εᵏ⁻¹), has a determinant −(…)² that vanishes only for
 * this c₁.  With α_m = α_f (then ε = 0) C is ½(β − ¼)τ²aᵀMa, whose
 * change is the residual dyn(5) documents for Newmark's γ = ½: those
 * members keep their residual against T + Φ (alpha_energy_init).  The
 * physical residual itself is −Σ τ²κ|⟨ε⟩|² −
 * (Cᵏ − C⁰): C's first term, O(τ²), follows the driven motion and takes
 * either sign, and no pairing of the constraint's work removes it short of
 * adding [C], which is no work, to the work column — it is the scheme's
 * energy, and stands on the energy side (as the energy analyses of
 * generalized-α do: Erlicher, Bonaventura and Bursi 2002, "The analysis
 * of the generalized-α method for non-linear dynamic problems",
 * Comput. Mech. 28). */

int alpha_energy_init(struct alpha_energy *ae, const struct scheme_type *t, const void *par,
                      const struct la_mat *M, int n)
{
	memset(ae, 0, sizeof *ae);
	if (t->family != IR_GENERALIZED_ALPHA)
		return 0;
	const struct alpha_params *q = par;
	double am = q->alpha_m, af = q->alpha_f, b = q->beta;
	if (af == am || !(af < 1) || fabs(q->gamma - (0.5 - am + af)) > 1e-12)
		return 0;
	ae->M = M;
	ae->n = n;
	ae->am = am;
	ae->af = af;
	ae->kappa = (b - af * (1 - am)) / (af - am);
	ae->c[0] = (0.5 - af) * ae->kappa / 2;
	ae->c[1] = -(0.5 - af) * (0.5 - af);
	ae->c[2] = 0.5 * (b - 0.25 - af * (af - am));
	ae->c[3] = af - 0.5;
	ae->eps = mem_calloc((size_t)n + 1, sizeof(double));
	ae->Mx = mem_calloc((size_t)n + 1, sizeof(double));
	if (!ae->eps || !ae->Mx) {
		alpha_energy_free(ae);
		return -1;
	}
	return 1;
}

void alpha_energy_free(struct alpha_energy *ae)
{
	free(ae->eps);
	free(ae->Mx);
	memset(ae, 0, sizeof *ae);
}

static double dot(int n, const double *x, const double *y)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

/* C(τ; v, a, ε) with the current ε */
static double alpha_correction(struct alpha_energy *ae, double tau, const double *v, const double *a)
{
	int n = ae->n;
	la_mat_mul(ae->M, ae->eps, ae->Mx);
	double vMe = dot(n, v, ae->Mx), eMe = dot(n, ae->eps, ae->Mx), aMe = dot(n, a, ae->Mx);
	la_mat_mul(ae->M, a, ae->Mx);
	double aMa = dot(n, a, ae->Mx);
	return ae->c[3] * tau * vMe + tau * tau * (ae->c[0] * eMe + ae->c[1] * aMe + ae->c[2] * aMa);
}

double alpha_energy_step(struct alpha_energy *ae, double tau, const double *vprev, const double *aprev,
                         const double *v, const double *a)
{
	if (!ae->eps)
		return 0;
	double c0 = alpha_correction(ae, tau, vprev, aprev);
	double r = ae->am - ae->af, s = 1 - ae->af;
	for (int i = 0; i < ae->n; i++)
		ae->eps[i] = (-r * (a[i] - aprev[i]) - ae->af * ae->eps[i]) / s;
	double d = alpha_correction(ae, tau, v, a) - c0;
	ae->A += d;
	return d;
}

/* ---- the families: newmark(beta, gamma) and generalized_alpha ---- */

static void newmark_params(const double *p, void *par)
{
	*(struct alpha_params *)par = (struct alpha_params){ 0, 0, p[0], p[1] };
}

static void generalized_alpha_params(const double *p, void *par)
{
	*(struct alpha_params *)par = (struct alpha_params){ p[0], p[1], p[2], p[3] };
}

/* Newmark's weights: uᵏ takes (½ − β) and β of the two accelerations,
 * vᵏ (1 − γ) and γ, each pair in [0, 1] */
static int newmark_check(const double *p, char *msg, size_t size)
{
	if (p[0] < 0 || p[0] > 0.5) {
		snprintf(msg, size, "newmark: beta must lie in [0, 1/2], got %g", p[0]);
		return -1;
	}
	if (p[1] < 0 || p[1] > 1) {
		snprintf(msg, size, "newmark: gamma must lie in [0, 1], got %g", p[1]);
		return -1;
	}
	return 0;
}

/* The step matrix of M a_{k−α_m} + C v_{k−α_f} + K u_{k−α_f} weighs the
 * step's end by 1 − α_m and 1 − α_f, which must be positive, and α_f < 0
 * would extrapolate the forces beyond tₖ (Chung and Hulbert 1993). */
static int generalized_alpha_check(const double *p, char *msg, size_t size)
{
	if (p[2] < 0 || p[3] < 0) {
		snprintf(msg, size, "generalized_alpha: beta and gamma must be non-negative, got %g and %g", p[2], p[3]);
		return -1;
	}
	if (!(p[0] < 1) || p[1] < 0 || !(p[1] < 1)) {
		snprintf(msg, size, "generalized_alpha: alpha_m must be below 1 and alpha_f in [0, 1), got %g and %g",
		         p[0], p[1]);
		return -1;
	}
	return 0;
}

/* β = 0 is explicit (and cannot hold constraints); the undamped scheme
 * is stable only for β ≥ γ/2 (Hughes 1987, §9.1), and a linear step
 * with constraints needs the step matrix to hold K (β > 0) */
static unsigned alpha_caps(const void *par, unsigned caps)
{
	const struct alpha_params *q = par;
	if (q->beta == 0)
		caps &= ~(unsigned)(IR_SCHEME_IMPLICIT | IR_SCHEME_CONSTRAINTS | IR_SCHEME_LINEAR_CONSTRAINTS);
	if (q->beta < 0.5 * q->gamma || q->beta == 0)
		caps |= IR_SCHEME_CONDITIONAL;
	return caps;
}

/* the critical ω_max τ of the undamped Newmark scheme with γ ≥ ½ and
 * β < γ/2: 1/√(γ/2 − β) (2 for central differences) */
static double newmark_critical(const void *par)
{
	const struct alpha_params *q = par;
	return q->gamma >= 0.5 && q->beta < q->gamma / 2 ? 1 / sqrt(q->gamma / 2 - q->beta) : 0;
}

/* γ < ½ is negative numerical damping: the amplification matrix has
 * |λ| > 1 for every ωτ > 0 (Hughes, The Finite Element Method, §9.1),
 * so that a run grows at any step (newmark(0.25, 0) ran 1000 steps of
 * 1e-3 to a 65 % larger amplitude, exit 0). */
static int newmark_check_run(const void *par, char *msg, size_t size)
{
	const struct alpha_params *q = par;
	if (q->gamma >= 0.5)
		return 0;
	snprintf(msg, size, "newmark with gamma = %g < 1/2 amplifies every mode (negative numerical damping): "
	         "it is unstable at any step; take gamma >= 1/2", q->gamma);
	return -1;
}

/* With damping, the critical Ω = ωτ of the Newmark family is
 * [ξ(γ − ½) + √(γ/2 − β + ξ²(γ − ½)²)]/(γ/2 − β) (Hughes, The Finite
 * Element Method, §9.1): for γ = ½ it is 1/√(¼ − β) whatever ξ, so the
 * undamped bound holds for any damping; for γ > ½ damping raises it and
 * the bound depends on each mode's ξ. */
static double newmark_critical_damped(const void *par)
{
	const struct alpha_params *q = par;
	return q->gamma == 0.5 && q->beta < 0.25 ? 1 / sqrt(0.25 - q->beta) : 0;
}

const struct scheme_type scheme_newmark = {
	.family = IR_NEWMARK,
	.params_size = sizeof(struct alpha_params),
	.params = newmark_params,
	.check_params = newmark_check,
	.caps = alpha_caps,
	.check_run = newmark_check_run,
	.critical = newmark_critical,
	.critical_damped = newmark_critical_damped,
	.who = "the Newmark family",
	.linear = &step_newmark,
	.newton = &nl_newmark_watched,
};

/* Chung and Hulbert (1993), eq. 24-25: unconditionally stable for
 * α_m ≤ α_f ≤ ½ and β ≥ ¼ + ½(α_f − α_m), with γ = ½ − α_m + α_f (second
 * order); other parameters are scanned */
static int generalized_alpha_stable(const void *par)
{
	const struct alpha_params *q = par;
	return q->alpha_m <= q->alpha_f && q->alpha_f <= 0.5 && q->beta >= 0.25 + 0.5 * (q->alpha_f - q->alpha_m) &&
	       fabs(q->gamma - (0.5 - q->alpha_m + q->alpha_f)) <= 1e-12;
}

const struct scheme_type scheme_generalized_alpha = {
	.family = IR_GENERALIZED_ALPHA,
	.params_size = sizeof(struct alpha_params),
	.params = generalized_alpha_params,
	.check_params = generalized_alpha_check,
	.caps = alpha_caps,
	.stable_params = generalized_alpha_stable,
	.who = "the Newmark family",
	.linear = &generalized_alpha_linear,
	.newton = &nl_generalized_alpha,
};
