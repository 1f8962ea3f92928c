/* nlstep.c — what the nonlinear steppers share: loads at both ends of a
 * step, the consistent acceleration. */
#include <config.h>

#include "nlstep.h"
#include "varmass.h"
#include "stage.h"
#include "la.h"
#include "mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The slot of entry (i, j) in the compressed columns of A (rows sorted). */
static size_t csc_slot(const struct la_mat *A, int i, int j)
{
	int lo = A->p[j], hi = A->p[j + 1] - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (A->i[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)lo;
}

/* The pattern of [M Gᵀ; G 0] at order n + nc in compressed columns: M's
 * entries with their values (the mass is constant here), G's from the
 * model's gradient pattern (problem_constraint_grad), whose values
 * nl_acceleration fills at each call.  O(nnz(M) + nnz(G)) memory: a chain
 * of 10⁵ masses with two constraints is 3·10⁵ entries, where the dense
 * saddle point was 80 GB. */
static int saddle_alloc(struct nl_common *c)
{
	struct rt_problem *pb = c->pb;
	int n = pb->n, nc = pb->nc, nt = n + nc;
	const int *gk, *gi;
	const double *gv;
	int ng = problem_constraint_grad(pb, &gk, &gi, &gv, NULL);
	size_t nm = pb->Mm.nx, ne = nm + 2 * (size_t)ng;
	int *row = mem_alloc(sizeof(int) * (ne + 1)), *col = mem_alloc(sizeof(int) * (ne + 1));
	double *val = mem_calloc(ne + 1, sizeof(double));
	c->gslot = mem_alloc(sizeof(size_t) * (2 * (size_t)ng + 1));
	int rc = -1;
	if (row && col && val && c->gslot) {
		la_mat_pattern(&pb->Mm, row, col);
		size_t e = 0;
		for (size_t k = 0; k < nm; k++)
			if (row[k] >= 0) {
				double x = la_mat_get(&pb->Mm, row[k], col[k]);
				row[e] = row[k];
				col[e] = col[k];
				val[e++] = x;
			}
		for (int q = 0; q < ng; q++) {
			row[e] = n + gk[q];
			col[e++] = gi[q];
			row[e] = gi[q];
			col[e++] = n + gk[q];
		}
		rc = la_mat_triplets(&c->Sx, LA_MAT_CSC, nt, e, row, col, val);
		for (int q = 0; q < ng && !rc; q++) {
			c->gslot[2 * q] = csc_slot(&c->Sx, n + gk[q], gi[q]);
			c->gslot[2 * q + 1] = csc_slot(&c->Sx, gi[q], n + gk[q]);
		}
		/* UMFPACK: the saddle point is indefinite */
		if (!rc && !(c->sx = la_solver_alloc(&c->Sx, LA_UMFPACK, 0)))
			rc = -1;
	}
	free(row);
	free(col);
	free(val);
	return rc;
}

/* The sparse counterpart of the dense solve in nl_acceleration: G's
 * values from the last problem_constraints into Sx, rhs := Sx⁻¹ rhs.
 * Returns la_solver_factor's status. */
static int saddle_solve(struct nl_common *c)
{
	const int *gk, *gi;
	const double *gv;
	int ng = problem_constraint_grad(c->pb, &gk, &gi, &gv, NULL);
	for (int q = 0; q < 2 * ng; q++)
		c->Sx.x[c->gslot[q]] = 0;
	for (int q = 0; q < ng; q++) {
		c->Sx.x[c->gslot[2 * q]] += gv[q];
		c->Sx.x[c->gslot[2 * q + 1]] += gv[q];
	}
	int info = la_solver_factor(c->sx, &c->Sx);
	if (info == 0)
		la_solver_solve(c->sx, c->rhs);
	return info;
}

/* What nl_acceleration needs for dry friction (struct nl_common): the
 * dofs that have it, and when M is not diagonal the columns M⁻¹e_i of the dofs with
 * friction and their block W_kl = (M⁻¹)_{f_k f_l}, when they are at most
 * NL_DRY_COLUMNS (beyond, the stick–slip decision is made per dof, on
 * the force r_i alone: dyn(5), dissipation). */
static int dry_alloc(struct nl_common *c)
{
	struct rt_problem *pb = c->pb;
	int n = pb->n, nf = 0, diag = 1;
	for (int i = 0; i < n; i++)
		nf += pb->sigma_u[i] > 0;
	if (nf == 0)
		return 0;
	if (!(c->fdof = mem_alloc(sizeof(int) * (size_t)nf)))
		return -1;
	nf = 0;
	for (int i = 0; i < n; i++)
		if (pb->sigma_u[i] > 0)
			c->fdof[nf++] = i;
	c->nf = nf;
	if (pb->nc) {
		/* the columns of [M Gᵀ; G 0]⁻¹ at the dofs at rest, made at
		 * each call (G follows the configuration): dry_constrained */
		size_t nt = (size_t)(n + pb->nc);
		if (!(c->fcol = mem_calloc(nt * (size_t)nf, sizeof(double))) ||
		    !(c->fW = mem_alloc(sizeof(double) * (size_t)nf * (size_t)nf)) ||
		    !(c->flam = mem_alloc(sizeof(double) * (size_t)nf)) || !(c->fb = mem_alloc(sizeof(double) * (size_t)nf)))
			return -1;
		return 0;
	}
	if (pb->Mm.kind == LA_MAT_BAND || pb->Mm.kind == LA_MAT_DENSE)
		diag = pb->Mm.kl == 0 && pb->Mm.ku == 0;
	else if (pb->Mm.kind == LA_MAT_CSC)
		for (int j = 0; j < n && diag; j++)
			for (int k = pb->Mm.p[j]; k < pb->Mm.p[j + 1] && diag; k++)
				diag = pb->Mm.i[k] == j || pb->Mm.x[k] == 0;
	else
		diag = n == 1;
	if (diag || nf > NL_DRY_COLUMNS)
		return 0;
	if (!(c->fcol = mem_calloc((size_t)n * (size_t)nf, sizeof(double))) ||
	    !(c->fW = mem_alloc(sizeof(double) * (size_t)nf * (size_t)nf)) ||
	    !(c->flam = mem_alloc(sizeof(double) * (size_t)nf)) || !(c->fb = mem_alloc(sizeof(double) * (size_t)nf)))
		return -1;
	for (int k = 0; k < nf; k++) {
		double *x = c->fcol + (size_t)k * n;
		x[c->fdof[k]] = 1;
		la_solver_solve(pb->Mf, x);
		for (int l = 0; l < nf; l++)
			c->fW[l + (size_t)k * nf] = x[c->fdof[l]];
	}
	return 0;
}

/* The stick–slip problem of the dofs at rest, given x = the solution
 * without their friction (stride: its length, n or n + nc) and the
 * columns fcol of unit forces at the friction dofs with their block fW:
 * a_i = 0 with |λ_i| ≤ μ_i, or |λ_i| = μ_i against a_i, by projected
 * Gauss–Seidel (Moreau 1988, Jean 1999), to rounding; x gets the
 * friction forces' response, and a dof that sticks a_i = 0 exactly. */
static void dry_stick_slip(struct nl_common *c, const double *v, double *x, int stride)
{
	const double *mu = c->pb->sigma_u;
	int nf = c->nf;
	double scale = 0;
	for (int k = 0; k < nf; k++) {
		c->flam[k] = 0;
		c->fb[k] = x[c->fdof[k]];
		scale = fmax(scale, fabs(c->fb[k]));
	}
	for (int sweep = 0; sweep < 10000; sweep++) {
		double change = 0;
		for (int k = 0; k < nf; k++) {
			int i = c->fdof[k];
			if (v[i] != 0)
				continue;
			double b = c->fb[k], w = c->fW[k + (size_t)k * nf];
			for (int l = 0; l < nf; l++)
				if (l != k)
					b += c->fW[k + (size_t)l * nf] * c->flam[l];
			double lam = fmin(mu[i], fmax(-mu[i], -b / w));
			change = fmax(change, fabs(lam - c->flam[k]) * w);
			c->flam[k] = lam;
		}
		if (change <= 1e-15 * scale)
			break;
	}
	for (int k = 0; k < nf; k++)
		for (int i = 0; i < stride && c->flam[k] != 0; i++)
			x[i] += c->fcol[i + (size_t)k * stride] * c->flam[k];
	for (int k = 0; k < nf; k++)
		if (v[c->fdof[k]] == 0 && fabs(c->flam[k]) < mu[c->fdof[k]])
			x[c->fdof[k]] = 0;
}

/* Dry friction in the acceleration, a = M⁻¹r on entry's right-hand side
 * r (struct nl_common, nl_acceleration): a sliding dof (v_i ≠ 0) is
 * braked by −μ_i sign(v_i); the dofs at rest solve the stick–slip
 * problem a_i = 0 with |λ_i| ≤ μ_i, or |λ_i| = μ_i against a_i:
 * exactly per dof for a diagonal M, by projected Gauss–Seidel on the
 * Delassus block W otherwise (Moreau 1988, Jean 1999), to rounding. */
static void dry_acceleration(struct nl_common *c, const double *v, double *a)
{
	struct rt_problem *pb = c->pb;
	const double *mu = pb->sigma_u;
	int n = pb->n, nf = c->nf;
	for (int k = 0; k < nf; k++) {
		int i = c->fdof[k];
		if (v[i] != 0)
			a[i] -= mu[i] * (v[i] > 0 ? 1 : -1);
	}
	if (!c->fcol) {
		/* per dof: the force on a dof at rest, r_i, within ±μ_i keeps it
		 * at rest (exact for a diagonal M) */
		for (int k = 0; k < nf; k++) {
			int i = c->fdof[k];
			if (v[i] == 0)
				a[i] = fabs(a[i]) <= mu[i] ? 0 : a[i] - mu[i] * (a[i] > 0 ? 1 : -1);
		}
		la_solver_solve(pb->Mf, a);
		return;
	}
	la_solver_solve(pb->Mf, a);
	dry_stick_slip(c, v, a, n);
}

/* The same with constraints, on the saddle point [M Gᵀ; G 0] just
 * factored (dense sf, or sx): x = [a; λ] is the solution with the
 * sliding dofs' friction in it; the columns for unit forces at the dofs
 * at rest are solved here (G follows the configuration), the stick–slip
 * problem on their block as without constraints, and the friction
 * forces move λ with a.  A dof that sticks has a = 0 exactly. */
static void dry_constrained(struct nl_common *c, const double *v, double *x)
{
	int n = c->pb->n, nt = n + c->pb->nc, nf = c->nf, rest = 0;
	for (int k = 0; k < nf; k++) {
		double *col = c->fcol + (size_t)k * nt;
		memset(col, 0, sizeof(double) * (size_t)nt);
		if (v[c->fdof[k]] != 0)
			continue;   /* sliding: its column is not used */
		rest = 1;
		col[c->fdof[k]] = 1;
		if (c->sx)
			la_solver_solve(c->sx, col);
		else
			la_solve(c->sf, col);
	}
	if (!rest)
		return;
	for (int k = 0; k < nf; k++)
		for (int l = 0; l < nf; l++)
			c->fW[l + (size_t)k * nf] = c->fcol[c->fdof[l] + (size_t)k * nt];
	dry_stick_slip(c, v, x, nt);
}

int nl_common_alloc(struct nl_common *c, struct rt_problem *pb)
{
	memset(c, 0, sizeof *c);
	c->pb = pb;
	size_t N = (size_t)pb->N + 1, n = (size_t)pb->n;
	c->f0 = mem_calloc(N, sizeof(double));
	c->f1 = mem_calloc(N, sizeof(double));
	c->fm = mem_calloc(N, sizeof(double));
	c->g = mem_calloc(N, sizeof(double));
	c->gu = mem_calloc(N, sizeof(double));
	c->Ma = mem_calloc(n + 1, sizeof(double));
	if (!c->f0 || !c->f1 || !c->fm || !c->g || !c->gu || !c->Ma)
		return -1;
	/* A constant mass was factored once by problem_init's check (pb->Mf,
	 * in the backend its structure calls for); M(u) is refactored at each
	 * configuration on the matrix layer (pb->vm); the dense copy is for
	 * the schemes that step it dense (pb->M: problem_dense). */
	if (pb->varmass && pb->M) {
		c->Mu = mem_calloc(n * n + 1, sizeof(double));
		c->mf = la_factor_alloc(pb->n, LA_DENSE_SPD, 0, 0);
		if (!c->Mu || !c->mf)
			return -1;
	}
	if (pb->sigma_u && !pb->varmass && dry_alloc(c))
		return -1;
	if (pb->nc) {
		size_t nt = (size_t)(pb->n + pb->nc);
		c->rhs = mem_calloc(nt, sizeof(double));
		c->ct = mem_calloc((size_t)pb->nc, sizeof(double));
		c->ctt = mem_calloc((size_t)pb->nc, sizeof(double));
		if (!c->rhs || !c->ct || !c->ctt)
			return -1;
		if (nt > LA_SMALL_N && !pb->varmass)
			return saddle_alloc(c);
		c->sf = la_factor_alloc((int)nt, LA_DENSE_GENERAL, 0, 0);
		c->S = mem_calloc(nt * nt, sizeof(double));
		c->Gd = mem_calloc((size_t)pb->nc * n + 1, sizeof(double));
		if (!c->sf || !c->S || !c->Gd)
			return -1;
	}
	return 0;
}

int nl_common_alloc_accel(struct nl_common *c, struct rt_problem *pb)
{
	if (pb->varmass || pb->nc || pb->sigma_u)
		return nl_common_alloc(c, pb);
	memset(c, 0, sizeof *c);
	c->pb = pb;
	size_t N = (size_t)pb->N + 1;
	c->f1 = mem_calloc(N, sizeof(double));
	c->g = mem_calloc(N, sizeof(double));
	c->gu = mem_calloc(N, sizeof(double));
	return c->f1 && c->g && c->gu ? 0 : -1;
}

void nl_common_free(struct nl_common *c)
{
	free(c->f0); free(c->f1); free(c->fm); free(c->g); free(c->gu); free(c->Ma); free(c->Mu);
	la_factor_free(c->mf);
	la_factor_free(c->sf);
	la_solver_free(c->sx);
	la_mat_free(&c->Sx);
	free(c->gslot);
	free(c->S);
	free(c->Gd);
	free(c->rhs);
	free(c->ct);
	free(c->ctt);
	free(c->fdof); free(c->fcol); free(c->fW); free(c->flam); free(c->fb);
	memset(c, 0, sizeof *c);
}

void nl_common_trim(struct nl_common *c)
{
	free(c->f0);
	free(c->f1);
	free(c->fm);
	free(c->gu);
	free(c->Ma);
	free(c->g);
	c->f0 = c->f1 = c->fm = c->gu = c->Ma = c->g = NULL;
}

void nl_mass_solve(struct nl_common *c, double *b)
{
	if (c->pb->varmass && c->mf)
		la_solve(c->mf, b);
	else if (c->pb->varmass)
		varmass_solve(c->pb->vm, b);
	else
		la_solver_solve(c->pb->Mf, b);
}

void nl_acceleration(struct nl_common *c, double t, struct rt_state *s)
{
	struct rt_problem *pb = c->pb;
	int n = pb->n;
	problem_load(pb, t, c->f1);
	problem_phi(pb, s->u, s->z, c->g);
	problem_psi(pb, s->v, s->zd, c->gu);
	for (int i = 0; i < n; i++)
		s->a[i] = c->f1[i] - c->g[i] - c->gu[i];
	if (pb->varmass) {
		/* d/dt(M(u) v) = M a + (∂ᵤ(M v)·v) and ∂ᵤT enter the Euler–Lagrange
		 * equation: the directional derivative by central differences */
		double *p1 = c->g, *p2 = c->gu, *dT = c->fm;
		problem_kinetic(pb, s->u, s->v, NULL, dT);
		for (int i = 0; i < n; i++)
			s->a[i] += dT[i];
		double vn = 0, un = 0;
		for (int i = 0; i < n; i++) {
			vn += s->v[i] * s->v[i];
			un += s->u[i] * s->u[i];
		}
		if (vn > 0) {
			double eps = 1e-6 * sqrt((1 + un) / vn);
			double *up = c->Ma;
			for (int i = 0; i < n; i++)
				up[i] = s->u[i] + eps * s->v[i];
			problem_kinetic(pb, up, s->v, p1, NULL);
			for (int i = 0; i < n; i++)
				up[i] = s->u[i] - eps * s->v[i];
			problem_kinetic(pb, up, s->v, p2, NULL);
			for (int i = 0; i < n; i++)
				s->a[i] -= (p1[i] - p2[i]) / (2 * eps);
		}
		if (varmass_factor(pb->vm, pb, s->u) == 0)
			varmass_solve(pb->vm, s->a);
		/* the support's load −M(u) d a(t) accelerates by −d a(t) */
		double ag = problem_support(pb, t);
		for (int i = 0; i < n && pb->ir->support; i++)
			s->a[i] -= pb->ir->support_dir[i] * ag;
		return;
	}
	if (pb->nc) {
		/* [M Gᵀ; G 0] [a; λ] = [f − F; −vᵀ∇²c v − 2∂ₜG v − ∂ₜₜc]: the
		 * acceleration that keeps d²c/dt² = 0 */
		int nc = pb->nc, nt = n + nc;
		problem_constraints(pb, t, s->u, NULL, c->sx ? NULL : c->Gd);
		if (!c->sx) {
			memset(c->S, 0, sizeof(double) * (size_t)nt * (size_t)nt);
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++)
					c->S[i + (size_t)j * nt] = la_mat_get(&pb->Mm, i, j);
			for (int k = 0; k < nc; k++)
				for (int i = 0; i < n; i++) {
					c->S[i + (size_t)(n + k) * nt] = c->Gd[k + (size_t)i * nc];
					c->S[n + k + (size_t)i * nt] = c->Gd[k + (size_t)i * nc];
				}
		}
		for (int i = 0; i < n; i++)
			c->rhs[i] = s->a[i];
		/* a sliding dof braked by −μ_i sign(v_i) (its dofs at rest:
		 * dry_constrained, after the solve) */
		for (int k = 0; k < c->nf; k++) {
			int i = c->fdof[k];
			if (s->v[i] != 0)
				c->rhs[i] -= pb->sigma_u[i] * (s->v[i] > 0 ? 1 : -1);
		}
		/* vᵀ H_k v from the Hessian entries of the last evaluation */
		for (int k = 0; k < nc; k++)
			c->rhs[n + k] = 0;
		const struct ir_model *m = pb->ir;
		const double *h = pb->out_c + nc + m->ngrad;
		for (int q = 0; q < m->nhess; q++)
			c->rhs[n + m->hk[q]] -= s->v[m->hi[q]] * h[q] * s->v[m->hj[q]];
		/* a moving constraint adds 2 ∂ₜG v + ∂ₜₜc (G already in S: Gd
		 * is free to take ∂ₜG) */
		if (m->constraint_moving && !c->sx) {
			problem_constraint_rates(pb, c->ct, c->ctt, c->Gd);
			for (int k = 0; k < nc; k++) {
				double gtv = 0;
				for (int i = 0; i < n; i++)
					gtv += c->Gd[k + (size_t)i * nc] * s->v[i];
				c->rhs[n + k] -= 2 * gtv + c->ctt[k];
			}
		} else if (m->constraint_moving) {
			/* ∂ₜG v on G's pattern */
			const int *gk, *gi;
			const double *gv, *gt;
			int ng = problem_constraint_grad(pb, &gk, &gi, &gv, &gt);
			problem_constraint_rates(pb, c->ct, c->ctt, NULL);
			for (int k = 0; k < nc; k++)
				c->rhs[n + k] -= c->ctt[k];
			for (int q = 0; q < ng; q++)
				c->rhs[n + gk[q]] -= 2 * gt[q] * s->v[gi[q]];
		}
		if (c->sx ? saddle_solve(c) == 0 : la_factor(c->sf, c->S) == 0) {
			if (!c->sx)
				la_solve(c->sf, c->rhs);
			if (c->nf)
				dry_constrained(c, s->v, c->rhs);
			for (int i = 0; i < n; i++)
				s->a[i] = c->rhs[i];
			for (int k = 0; k < nc; k++)
				s->lam[k] = c->rhs[n + k];
		}
		return;
	}
	if (c->nf)
		dry_acceleration(c, s->v, s->a);
	else
		la_solver_solve(pb->Mf, s->a);
}

/* A body resting on an obstacle at t₀ (gap 0, gap rate 0) is held by it:
 * its acceleration is the smooth one corrected by the contact forces,
 * M a = F + Gᵀλ, λ ≥ 0, G a ≥ 0, λ·G a = 0 over those contacts (the
 * acceleration-level complementarity of unilateral contact; Acary and
 * Brogliato 2008, section 5.2), solved by projected Gauss–Seidel on
 * W = G M⁻¹Gᵀ, exact for one contact.  Without it a weight resting on a
 * floor recorded a(t₀) = −g.  Frictionless contacts on a constant mass
 * without constraints only (the stepping does not read a(t₀) otherwise
 * than paoli_schatzman's start, whose projection it makes exact); the
 * others keep the smooth acceleration (dyn(5), "Contacts"). */
void nl_resting_acceleration(struct nl_common *c, struct rt_state *s)
{
	struct rt_problem *pb = c->pb;
	const struct ir_model *m = pb->ir;
	int n = pb->n, nk = m->contact.n;
	if (nk == 0 || m->contact.friction || pb->varmass || pb->nc || !pb->Mf)
		return;
	double *phi = mem_calloc((size_t)nk + 1, sizeof *phi), *q = NULL, *W = NULL, *lam = NULL, *col = NULL;
	int *act = mem_calloc((size_t)nk + 1, sizeof *act), na = 0;
	const int *gk, *gi;
	const double *gv;
	if (!phi || !act)
		goto out;
	problem_contacts(pb, s->u, phi, NULL);
	int ng = problem_contact_grad(pb, &gk, &gi, &gv);
	/* on the obstacle and not leaving it, to rounding of the gap's and
	 * its rate's terms */
	double *size = mem_calloc((size_t)nk + 1, sizeof *size), *rate = mem_calloc((size_t)nk + 1, sizeof *rate),
	       *rsize = mem_calloc((size_t)nk + 1, sizeof *rsize), *ga = mem_calloc((size_t)nk + 1, sizeof *ga);
	if (!size || !rate || !rsize || !ga) {
		free(size), free(rate), free(rsize), free(ga);
		goto out;
	}
	for (int e = 0; e < ng; e++) {
		size[gk[e]] += fabs(gv[e] * s->u[gi[e]]);
		rate[gk[e]] += gv[e] * s->v[gi[e]];
		rsize[gk[e]] += fabs(gv[e] * s->v[gi[e]]);
		ga[gk[e]] += gv[e] * s->a[gi[e]];
	}
	int any_in = 0;
	for (int k = 0; k < nk; k++) {
		act[k] = -1;
		if (phi[k] <= 1e-12 * (size[k] + fabs(phi[k])) && fabs(rate[k]) <= 1e-12 * rsize[k]) {
			act[k] = na++;
			any_in |= ga[k] < 0;
		}
	}
	free(size), free(rate), free(rsize);
	if (na == 0 || !any_in || na > 512) {
		free(ga);
		goto out;
	}
	q = mem_calloc((size_t)na, sizeof *q);
	W = mem_calloc((size_t)na * (size_t)na, sizeof *W);
	lam = mem_calloc((size_t)na, sizeof *lam);
	col = mem_calloc((size_t)n + 1, sizeof *col);
	if (!q || !W || !lam || !col) {
		free(ga);
		goto out;
	}
	for (int k = 0; k < nk; k++)
		if (act[k] >= 0)
			q[act[k]] = ga[k];
	free(ga);
	/* W's column l: G M⁻¹ G_lᵀ */
	for (int l = 0; l < nk; l++) {
		if (act[l] < 0)
			continue;
		memset(col, 0, sizeof *col * (size_t)n);
		for (int e = 0; e < ng; e++)
			if (gk[e] == l)
				col[gi[e]] += gv[e];
		la_solver_solve(pb->Mf, col);
		for (int e = 0; e < ng; e++)
			if (act[gk[e]] >= 0)
				W[act[gk[e]] + (size_t)act[l] * (size_t)na] += gv[e] * col[gi[e]];
	}
	for (int sweep = 0; sweep < 10000; sweep++) {
		double change = 0, big = 0;
		for (int k = 0; k < na; k++) {
			double y = q[k];
			for (int l = 0; l < na; l++)
				y += W[k + (size_t)l * (size_t)na] * lam[l];
			double w = W[k + (size_t)k * (size_t)na];
			double nl = w > 0 ? fmax(0, lam[k] - y / w) : 0;
			change = fmax(change, fabs(nl - lam[k]));
			big = fmax(big, fabs(nl));
			lam[k] = nl;
		}
		if (change <= 1e-15 * big)
			break;
	}
	/* a += M⁻¹ Gᵀλ */
	memset(col, 0, sizeof *col * (size_t)n);
	for (int e = 0; e < ng; e++)
		if (act[gk[e]] >= 0)
			col[gi[e]] += gv[e] * lam[act[gk[e]]];
	la_solver_solve(pb->Mf, col);
	for (int i = 0; i < n; i++)
		s->a[i] += col[i];
out:
	free(phi);
	free(act);
	free(q);
	free(W);
	free(lam);
	free(col);
}

double nl_sigma_dissipation(const struct rt_problem *pb, const double *z0, const double *z1)
{
	double d = 0;
	for (int j = 0; j < pb->m; j++)
		d += pb->sigma[j] * fabs(z1[j] - z0[j]);
	return d;
}

double nl_maxabs(int n, const double *x)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		double a = fabs(x[i]);
		if (a != a)
			return a;
		if (a > m)
			m = a;
	}
	return m;
}

int nl_vectors(size_t n, ...)
{
	va_list ap;
	int rc = 0;
	va_start(ap, n);
	for (double **p; (p = va_arg(ap, double **)) != NULL;)
		if (!(*p = mem_calloc(n + 1, sizeof(double))))
			rc = -1;
	va_end(ap);
	return rc;
}

int nl_fail(struct rt_error *err, int iters, double res, int rc)
{
	if (rc == -2)
		snprintf(err->msg, sizeof err->msg, "the Jacobian of the step is singular");
	else if (rc == -3)
		/* newton_solve's divergence: a residual that is not finite (the
		 * line search keeps a finite one from growing, so that Newton
		 * stops as "did not converge"); its callers here set no terms
		 * (newton_set_terms), whose overflow is the other cause.  Not
		 * "residual nan": say what it means. */
		snprintf(err->msg, sizeof err->msg, "Newton diverged: the residual is %s after %d iteration%s (the state "
		         "left the domain of the model's expressions?)", isnan(res) ? "NaN" : "infinite", iters,
		         iters == 1 ? "" : "s");
	else
		snprintf(err->msg, sizeof err->msg,
		         "Newton did not converge in %d iteration%s, residual %.2g", iters, iters == 1 ? "" : "s", res);
	return -1;
}

void nl_midpoint_begin(struct nl_common *c, struct stage *st, struct rt_state *x, double t0, double t1, double h,
                       double *uprev, double *vprev, double *zprev, double *in0, const double *zero)
{
	struct rt_problem *pb = c->pb;
	int n = pb->n, m = pb->m;
	problem_load(pb, t0, c->f0);
	problem_load(pb, t1, c->f1);
	for (int k = 0; k < pb->N; k++) {
		c->fm[k] = 0.5 * (c->f0[k] + c->f1[k]);
		st->e[k] = -c->fm[k];
	}
	memcpy(uprev, x->u, sizeof(double) * (size_t)n);
	memcpy(vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(zprev, x->z, sizeof(double) * (size_t)m);
	for (int i = 0; i < n; i++)
		in0[i] = -2 * x->v[i] / h;
	st->u0 = uprev;
	st->cu = h / 2;
	st->v0 = zero;
	st->cv = 1;
	st->in0 = in0;
	st->cm = 2 / h;
	/* c(uᵏ, tₖ) = 0 at the step's end, the forces G(u^{k−½}, t_{k−½})ᵀλ
	 * at the midpoint: with G at tₖ a moving constraint's force would lag
	 * the state by τ/2 and the scheme fall to first order */
	stage_constraints(st, uprev, h, t1, x->lam);
	st->tf = 0.5 * (t0 + t1);
	/* formulation = ggl: vᵏ = 2y − vᵏ⁻¹ */
	stage_velocity_constraints(st, -1, vprev, 2);
	for (int i = 0; i < n; i++)
		st->x[i] = x->v[i] + 0.5 * h * x->a[i];
}

void nl_midpoint_end(const struct nl_common *c, const struct stage *st, struct rt_state *x, double h,
                     const double *uprev, const double *vprev, double *du, double *w, double *d)
{
	for (int i = 0; i < c->pb->n; i++) {
		du[i] = h * st->x[i] + st->shift[i];   /* the shift: formulation = ggl */
		*w += du[i] * c->fm[i];
		*d += du[i] * st->gpsi[i];
		x->u[i] = uprev[i] + du[i];
		x->v[i] = 2 * st->x[i] - vprev[i];
	}
}

void *nl_refuse(struct rt_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->code = 3;
	return NULL;
}
