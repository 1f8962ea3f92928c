/* midpoint_varmass.c — the midpoint rule (Crank–Nicolson on the
 * first-order system, Roubíček 2017, eq. 3) for a kinetic energy
 * T(u, v) = ½ vᵀM(u)v, in the momentum form of dyn(5) ("midpoint"):
 *
 *   uᵏ − uᵏ⁻¹ = τ v^½,   v^½ = M(u^½)⁻¹ p^½,
 *   pᵏ − pᵏ⁻¹ = τ (∂ᵤT(u^½, v^½) − ∇Φ(u^½) − ∇Ψ(v^½) + f̄ + f_s),
 *
 * with p^½ = (pᵏ⁻¹ + pᵏ)/2 and u^½ = (uᵏ⁻¹ + uᵏ)/2.  Taking w = v^½ as
 * the one unknown (uᵏ = uᵏ⁻¹ + τw, pᵏ = 2M(u^½)w − pᵏ⁻¹) leaves n
 * equations with no inverse of M in them,
 *
 *   R(w) = 2M(u^½)w − 2pᵏ⁻¹ + τ(−∂ᵤT(u^½, w) + ∇Φ(u^½) + ∇Ψ(w) − f̄ − f_s),
 *
 * whose Jacobian has the sparsity of M, of M's dependence on u
 * (jacobian_kinetic_entries) and of ∇²Φ and ∇²Ψ: the parts of Φ and Ψ
 * from their Hessians (jacobian_add_phi/psi), the kinetic part by
 * central differences over groups of columns that share no row
 * (Curtis, Powell and Reid's estimation of sparse Jacobians), a few
 * evaluations of T per iteration whatever n.  The same solution as the
 * (u, p) iteration of scheme_midpoint.c, to Newton's tolerance; vᵏ
 * solves M(uᵏ) vᵏ = pᵏ (varmass.h). */
#include <config.h>

#include "midpoint_varmass.h"
#include "jacobian.h"
#include "newton.h"
#include "stage.h"
#include "varmass.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mpv {
	struct rt_problem *pb;
	struct nl_options opt;
	struct jacobian *J;
	struct newton *nw;
	/* the kinetic entries' distinct slots, grouped by the colour of
	 * their column: slot[cptr[c] .. cptr[c+1]) */
	int ncolor, *color;
	size_t *cptr;
	ptrdiff_t *slot;
	double tau, ag;
	double *u0, *p0, *uh, *p, *dT, *gp, *gs, *fs, *f0, *f1, *fm, *zero, *ctau, *chalf, *one;
	double *wd, *rp, *rm, *h, *vprev, *mw;
};

void mpv_free(struct mpv *s)
{
	if (!s)
		return;
	newton_free(s->nw);
	if (s->J)
		jacobian_free(s->J);
	free(s->J);
	free(s->color); free(s->cptr); free(s->slot);
	free(s->u0); free(s->p0); free(s->uh); free(s->p); free(s->dT); free(s->gp); free(s->gs); free(s->fs);
	free(s->f0); free(s->f1); free(s->fm); free(s->zero); free(s->ctau); free(s->chalf); free(s->one);
	free(s->wd); free(s->rp); free(s->rm); free(s->h); free(s->vprev); free(s->mw);
	free(s);
}

static int cmp_slot(const void *a, const void *b)
{
	ptrdiff_t x = *(const ptrdiff_t *)a, y = *(const ptrdiff_t *)b;
	return x < y ? -1 : x > y;
}

/* Colour the columns of the kinetic entries so that two columns of one
 * colour share no row (greedy, in column order), and group the entries'
 * distinct slots by colour. */
static int colour(struct mpv *s)
{
	const struct jacobian *J = s->J;
	int n = s->pb->n;
	size_t ne = 0;
	ptrdiff_t *u = mem_alloc((J->nkin + 1) * sizeof *u);
	size_t *rptr = mem_calloc((size_t)n + 2, sizeof *rptr), *cp = mem_calloc((size_t)n + 2, sizeof *cp);
	int *rcol = NULL, *crow = NULL, *mark = mem_alloc(((size_t)n + 1) * sizeof *mark);
	s->color = mem_alloc(((size_t)n + 1) * sizeof *s->color);
	int rc = -1;
	if (!u || !rptr || !cp || !mark || !s->color)
		goto out;
	for (size_t q = 0; q < J->nkin; q++)
		if (J->skin[q] >= 0)
			u[ne++] = J->skin[q];
	qsort(u, ne, sizeof *u, cmp_slot);
	size_t m = 0;
	for (size_t q = 0; q < ne; q++)
		if (m == 0 || u[m - 1] != u[q])
			u[m++] = u[q];
	ne = m;
	/* the entries by row (their columns) and by column (their rows) */
	rcol = mem_alloc((ne + 1) * sizeof *rcol);
	crow = mem_alloc((ne + 1) * sizeof *crow);
	if (!rcol || !crow)
		goto out;
	for (size_t q = 0; q < ne; q++) {
		rptr[J->row[u[q]] + 2]++;
		cp[J->col[u[q]] + 2]++;
	}
	for (int i = 0; i < n; i++) {
		rptr[i + 2] += rptr[i + 1];
		cp[i + 2] += cp[i + 1];
	}
	for (size_t q = 0; q < ne; q++) {
		rcol[rptr[J->row[u[q]] + 1]++] = J->col[u[q]];
		crow[cp[J->col[u[q]] + 1]++] = J->row[u[q]];
	}
	for (int j = 0; j < n; j++)
		mark[j] = -1;
	s->ncolor = 0;
	for (int j = 0; j < n; j++) {
		/* the colours of the columns met in j's rows are taken */
		for (size_t a = cp[j]; a < cp[j + 1]; a++) {
			int i = crow[a];
			for (size_t b = rptr[i]; b < rptr[i + 1]; b++) {
				int j2 = rcol[b];
				if (j2 < j)
					mark[s->color[j2]] = j;
			}
		}
		int c = 0;
		while (c < s->ncolor && mark[c] == j)
			c++;
		s->color[j] = c;
		if (c == s->ncolor)
			s->ncolor++;
	}
	s->cptr = mem_calloc((size_t)s->ncolor + 2, sizeof *s->cptr);
	s->slot = mem_alloc((ne + 1) * sizeof *s->slot);
	if (!s->cptr || !s->slot)
		goto out;
	for (size_t q = 0; q < ne; q++)
		s->cptr[s->color[J->col[u[q]]] + 2]++;
	for (int c = 0; c < s->ncolor; c++)
		s->cptr[c + 2] += s->cptr[c + 1];
	for (size_t q = 0; q < ne; q++)
		s->slot[s->cptr[s->color[J->col[u[q]]] + 1]++] = u[q];
	rc = 0;
out:
	free(u);
	free(rptr);
	free(cp);
	free(rcol);
	free(crow);
	free(mark);
	return rc;
}

struct mpv *mpv_alloc(struct rt_problem *pb, const struct nl_options *opt)
{
	struct mpv *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	s->opt = *opt;
	size_t n = (size_t)pb->N;
	if (nl_vectors(n, &s->u0, &s->p0, &s->uh, &s->p, &s->dT, &s->gp, &s->gs, &s->fs, &s->f0, &s->f1, &s->fm,
	               &s->zero, &s->ctau, &s->chalf, &s->one, &s->wd, &s->rp, &s->rm, &s->h, &s->vprev, &s->mw,
	               (double **)NULL) ||
	    !(s->nw = stage_newton_mat(pb, 0, 0, &s->J)) || colour(s)) {
		mpv_free(s);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		s->one[i] = 1;
	return s;
}

/* u^½ = u⁰ + τw/2; the kinetic part 2M(u^½)w − τ(∂ᵤT(u^½, w) + f_s)
 * into r (the momentum p = M(u^½)w and ∂ᵤT kept in s); with vary, less
 * 2M̄w, M̄ the constant mass: what the differences estimate, on the
 * pattern of the kinetic's entries (2M̄ enters the Jacobian exactly; a
 * constant entry outside that pattern was lost, or leaked into another
 * column of its colour). */
static void kinetic_part(struct mpv *s, const double *w, double *r, int vary)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	for (int i = 0; i < n; i++)
		s->uh[i] = s->u0[i] + 0.5 * s->tau * w[i];
	problem_kinetic(pb, s->uh, w, s->p, s->dT);
	memset(s->fs, 0, sizeof(double) * (size_t)n);
	problem_support_load(pb, s->uh, s->ag, s->fs);
	for (int i = 0; i < n; i++)
		r[i] = 2 * s->p[i] - s->tau * (s->dT[i] + s->fs[i]);
	if (vary && pb->Mm.x) {
		la_mat_mul(&pb->Mm, w, s->mw);
		for (int i = 0; i < n; i++)
			r[i] -= 2 * s->mw[i];
	}
}

static int residual(void *ctx, const double *w, double *r, double *Jx)
{
	struct mpv *s = ctx;
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	double tau = s->tau;
	kinetic_part(s, w, r, 0);
	/* ∇Φ(u^½) and ∇Ψ(w): their Hessians stay for jacobian_add_* */
	problem_phi(pb, s->uh, s->zero, s->gp);
	problem_psi(pb, w, s->zero, s->gs);
	for (int i = 0; i < n; i++)
		r[i] += -2 * s->p0[i] + tau * (s->gp[i] + s->gs[i] - s->fm[i]);
	if (!Jx)
		return 0;
	/* τ ∇²Φ(u^½) · ∂u^½/∂w = τ·τ/2 ∇²Φ, and τ ∇²Ψ(w) */
	jacobian_add_phi(s->J, pb, s->ctau, s->chalf, Jx);
	jacobian_add_psi(s->J, pb, s->ctau, s->one, Jx);
	jacobian_add_mass(s->J, pb, 2, Jx);
	/* the kinetic part by central differences, one colour at a time */
	for (int j = 0; j < n; j++)
		s->h[j] = 1e-7 * (1 + fabs(w[j]));
	for (int c = 0; c < s->ncolor; c++) {
		memcpy(s->wd, w, sizeof(double) * (size_t)n);
		for (int j = 0; j < n; j++)
			if (s->color[j] == c)
				s->wd[j] = w[j] + s->h[j];
		kinetic_part(s, s->wd, s->rp, 1);
		for (int j = 0; j < n; j++)
			if (s->color[j] == c)
				s->wd[j] = w[j] - s->h[j];
		kinetic_part(s, s->wd, s->rm, 1);
		for (size_t q = s->cptr[c]; q < s->cptr[c + 1]; q++) {
			ptrdiff_t k = s->slot[q];
			int i = s->J->row[k], j = s->J->col[k];
			Jx[k] += (s->rp[i] - s->rm[i]) / (2 * s->h[j]);
		}
	}
	/* r, p and ∂ᵤT at w again (the differences overwrote them) */
	kinetic_part(s, w, s->rp, 0);
	return 0;
}

int mpv_step(struct mpv *s, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
             double *dterm, struct rt_error *err)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	/* the Hessians' row and column weights, τ and τ/2: refilled only
	 * when the step changes (the last, shortened one) */
	if (tau != s->tau)
		for (int i = 0; i < n; i++) {
			s->ctau[i] = tau;
			s->chalf[i] = 0.5 * tau;
		}
	s->tau = tau;
	problem_load(pb, t0, s->f0);
	problem_load(pb, t1, s->f1);
	for (int k = 0; k < pb->N; k++)
		s->fm[k] = 0.5 * (s->f0[k] + s->f1[k]);
	s->ag = 0.5 * (problem_support(pb, t0) + problem_support(pb, t1));
	memcpy(s->u0, x->u, sizeof(double) * (size_t)n);
	problem_kinetic(pb, x->u, x->v, s->p0, NULL);
	problem_phi(pb, x->u, s->zero, s->gp);
	/* R is a momentum change times 2 */
	double scale = fmax(2 * nl_maxabs(n, s->p0), tau * fmax(nl_maxabs(n, s->gp), nl_maxabs(n, s->f1)));
	if (!(scale > 0))
		scale = 1;
	/* w from vᵏ⁻¹ */
	double *w = x->a;
	memcpy(s->vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(w, x->v, sizeof(double) * (size_t)n);
	struct newton_report rep;
	int rc = newton_solve(s->nw, residual, s, w, s->opt.tol, scale, s->opt.maxit, &rep);
	if (rc == -1 && rep.worst >= 0 && rep.worst < n) {
		/* as the stage's failures: the equation to look at */
		char nm[IR_NAME_SIZE];
		int it = rep.iterations;
		snprintf(err->msg, sizeof err->msg, "Newton did not converge in %d iteration%s, residual %.2g (largest "
		         "in the equation of %s)", it, it == 1 ? "" : "s", rep.residual / scale,
		         ir_dof_name(pb->ir, rep.worst, nm, sizeof nm));
		return -1;
	}
	if (rc)
		return nl_fail(err, rep.iterations, rep.residual / scale, rc);
	residual(s, w, s->rp, NULL);   /* p = M(u^½)w, ∇Ψ(w), f_s at the solution */
	double wk = 0, d = 0;
	for (int i = 0; i < n; i++) {
		double du = tau * w[i];
		s->wd[i] = du;
		wk += du * (s->fm[i] + s->fs[i]);
		d += du * s->gs[i];
	}
	problem_dissipation_terms(pb, w, s->zero, 1, 0, s->wd, s->zero, dterm);
	/* uᵏ, pᵏ = 2M(u^½)w − pᵏ⁻¹, vᵏ = M(uᵏ)⁻¹pᵏ */
	for (int i = 0; i < n; i++) {
		x->u[i] = s->u0[i] + s->wd[i];
		x->v[i] = 2 * s->p[i] - s->p0[i];
	}
	int info = varmass_factor(pb->vm, pb, x->u);
	if (info != 0)
		return nl_fail(err, rep.iterations, rep.residual / scale, info < 0 ? -4 : -2);
	varmass_solve(pb->vm, x->v);
	for (int i = 0; i < n; i++)
		x->a[i] = (x->v[i] - s->vprev[i]) / tau;
	*dW = wk;
	*dD = d;
	return 0;
}
