/* jacobian.c — a nonlinear stage's Jacobian on the matrix layer
 * (jacobian.h): one pattern per run, slot maps per source, values refilled
 * per Newton iteration in O(nnz). */
#include <config.h>

#include "jacobian.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

void jacobian_free(struct jacobian *J)
{
	la_mat_free(&J->A);
	free(J->row); free(J->col); free(J->diag);
	free(J->sM); free(J->sK); free(J->sC);
	free(J->sphi); free(J->spsi); free(J->skphi); free(J->skpsi);
	free(J->sgu); free(J->sgl); free(J->sch); free(J->skin);
	free(J->rp); free(J->rs);
	free(J->svg); free(J->svh); free(J->sgmu); free(J->svmu); free(J->mup); free(J->mus); free(J->mut);
	memset(J, 0, sizeof *J);
}

/* The entries of an operator (row -1: band padding), appended. */
static size_t add_mat(const struct la_mat *M, int *r, int *c, size_t k)
{
	if (!M->x)
		return k;
	la_mat_pattern(M, r + k, c + k);
	return k + M->nx;
}

static size_t add_func(const struct ir_func *f, int *r, int *c, size_t k)
{
	for (int q = 0; f && q < f->nnz; q++, k++) {
		r[k] = f->row[q];
		c[k] = f->col[q];
	}
	return k;
}

/* The slots of entries r[k0 .. k0 + cnt) into *s (malloc'ed). */
static int slots(const struct la_mat *A, const int *r, const int *c, size_t k0, size_t cnt, ptrdiff_t **s)
{
	*s = mem_alloc((cnt + 1) * sizeof **s);
	if (!*s)
		return -1;
	for (size_t k = 0; k < cnt; k++)
		(*s)[k] = r[k0 + k] < 0 ? -1 : la_mat_slot(A, r[k0 + k], c[k0 + k]);
	return 0;
}

/* The rows' slots in compressed rows, for the soft-thresholding rows. */
static int row_index(struct jacobian *J)
{
	size_t nx = J->A.nx;
	J->rp = mem_calloc((size_t)J->N + 2, sizeof *J->rp);
	J->rs = mem_alloc((nx + 1) * sizeof *J->rs);
	if (!J->rp || !J->rs)
		return -1;
	for (size_t k = 0; k < nx; k++)
		if (J->row[k] >= 0)
			J->rp[J->row[k] + 2]++;
	for (int i = 0; i < J->N; i++)
		J->rp[i + 2] += J->rp[i + 1];
	for (size_t k = 0; k < nx; k++)
		if (J->row[k] >= 0)
			J->rs[J->rp[J->row[k] + 1]++] = (ptrdiff_t)k;
	return 0;
}

size_t jacobian_kinetic_entries(const struct ir_kinetic *k, int *r, int *c)
{
	size_t q = 0;
#define PUT(i, j) do { if (r) { r[q] = (i); c[q] = (j); } q++; } while (0)
	for (int e = 0; e < k->nnz; e++) {
		int a = k->row[e], b = k->col[e];
		PUT(a, b);
		for (int p = k->dptr[e]; p < k->dptr[e + 1]; p++) {
			int j = k->dep[p];
			PUT(a, j);
			PUT(j, a);
			PUT(j, b);
			for (int p2 = k->dptr[e]; p2 < k->dptr[e + 1]; p2++)
				PUT(j, k->dep[p2]);
		}
	}
#undef PUT
	return q;
}

int jacobian_init(struct jacobian *J, struct rt_problem *pb, int nc, enum la_mat_kind kind)
{
	const struct ir_model *m = pb->ir;
	const struct ir_func *fphi = m->potential, *fpsi = m->dissipation;
	memset(J, 0, sizeof *J);
	int N = pb->N + nc;
	J->N = N;
	size_t nM = pb->Mm.x ? pb->Mm.nx : 0, nK = pb->Km.x ? pb->Km.nx : 0, nC = pb->hasC && pb->Cm.x ? pb->Cm.nx : 0;
	size_t nphi = fphi ? (size_t)fphi->nnz : 0, npsi = fpsi ? (size_t)fpsi->nnz : 0;
	size_t nkphi = rt_kernels_nentries(&pb->kphi), nkpsi = rt_kernels_nentries(&pb->kpsi);
	size_t ng = nc ? (size_t)m->ngrad : 0, nh = nc ? (size_t)m->nhess : 0;
	const struct ir_kinetic *kin = pb->varmass && m->kinetic && m->kinetic->dptr ? m->kinetic : NULL;
	size_t nkin = kin ? jacobian_kinetic_entries(kin, NULL, NULL) : 0;
	size_t ne = (size_t)N + nM + nK + nC + nphi + npsi + nkphi + nkpsi + 2 * ng + nh + nkin;
	int *r = mem_alloc((ne + 1) * sizeof *r), *c = mem_alloc((ne + 1) * sizeof *c);
	double *zero = mem_calloc(ne + 1, sizeof *zero);
	int rc = -1;
	if (!r || !c || !zero)
		goto out;
	size_t k = 0;
	for (int i = 0; i < N; i++, k++)
		r[k] = c[k] = i;
	size_t kM = k;
	k = add_mat(&pb->Mm, r, c, k);
	size_t kK = k;
	k = add_mat(&pb->Km, r, c, k);
	size_t kC = k;
	if (nC)
		k = add_mat(&pb->Cm, r, c, k);
	size_t kphi = k;
	k = add_func(fphi, r, c, k);
	size_t kpsi = k;
	k = add_func(fpsi, r, c, k);
	size_t kkphi = k;
	rt_kernels_entries(&pb->kphi, r + k, c + k, NULL);
	k += nkphi;
	size_t kkpsi = k;
	rt_kernels_entries(&pb->kpsi, r + k, c + k, NULL);
	k += nkpsi;
	size_t kg = k;
	for (size_t q = 0; q < ng; q++, k++) {
		r[k] = m->gi[q];
		c[k] = pb->N + m->gk[q];
		r[k + ng] = pb->N + m->gk[q];
		c[k + ng] = m->gi[q];
	}
	k += ng;
	size_t kh = k;
	for (size_t q = 0; q < nh; q++, k++) {
		r[k] = m->hi[q];
		c[k] = m->hj[q];
	}
	size_t kkin = k;
	if (kin)
		jacobian_kinetic_entries(kin, r + k, c + k);
	k += nkin;
	/* band padding of the operators (row -1) is left out of the pattern:
	 * triplets must be in range */
	size_t kept = 0;
	int *r2 = mem_alloc((ne + 1) * sizeof *r2), *c2 = mem_alloc((ne + 1) * sizeof *c2);
	if (!r2 || !c2) {
		free(r2);
		free(c2);
		goto out;
	}
	for (size_t q = 0; q < k; q++)
		if (r[q] >= 0) {
			r2[kept] = r[q];
			c2[kept++] = c[q];
		}
	int trc = la_mat_triplets(&J->A, kind, N, kept, r2, c2, zero);
	free(r2);
	free(c2);
	if (trc)
		goto out;
	J->row = mem_alloc((J->A.nx + 1) * sizeof *J->row);
	J->col = mem_alloc((J->A.nx + 1) * sizeof *J->col);
	J->diag = mem_alloc(((size_t)N + 1) * sizeof *J->diag);
	if (!J->row || !J->col || !J->diag)
		goto out;
	la_mat_pattern(&J->A, J->row, J->col);
	for (int i = 0; i < N; i++)
		J->diag[i] = la_mat_slot(&J->A, i, i);
	if (slots(&J->A, r, c, kM, nM, &J->sM) || slots(&J->A, r, c, kK, nK, &J->sK) ||
	    slots(&J->A, r, c, kC, nC, &J->sC) || slots(&J->A, r, c, kphi, nphi, &J->sphi) ||
	    slots(&J->A, r, c, kpsi, npsi, &J->spsi) || slots(&J->A, r, c, kkphi, nkphi, &J->skphi) ||
	    slots(&J->A, r, c, kkpsi, nkpsi, &J->skpsi) || slots(&J->A, r, c, kg, ng, &J->sgu) ||
	    slots(&J->A, r, c, kg + ng, ng, &J->sgl) || slots(&J->A, r, c, kh, nh, &J->sch) ||
	    slots(&J->A, r, c, kkin, nkin, &J->skin))
		goto out;
	J->nkin = nkin;
	int rows = 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		rows |= pb->sigma_u[i] > 0;
	for (int j = 0; j < pb->m && pb->sigma; j++)
		rows |= pb->sigma[j] > 0;
	if (rows && row_index(J))
		goto out;
	rc = 0;
out:
	free(r);
	free(c);
	free(zero);
	return rc;
}

/* x[s[k]] += cr[row] cc[col] v[k] over the entries of a source. */
static void add_entries(const struct jacobian *J, const ptrdiff_t *s, size_t cnt, const double *v,
                        const double *cr, const double *cc, double *x)
{
	for (size_t k = 0; k < cnt; k++) {
		ptrdiff_t q = s[k];
		if (q < 0)
			continue;
		x[q] += (cr ? cr[J->row[q]] : 1) * (cc ? cc[J->col[q]] : 1) * v[k];
	}
}

static void add_kernels(const struct jacobian *J, const struct rt_kernels *ks, const ptrdiff_t *s,
                        const double *cr, const double *cc, double *x)
{
	for (int q = 0; ks->f && q < ks->f->nkernel; q++) {
		const struct ir_kernel *kn = &ks->f->kernel[q];
		size_t cnt = (size_t)(kn->hi - kn->lo + 1) * (size_t)kn->nnz;
		add_entries(J, s, cnt, ks->ws[q].hess, cr, cc, x);
		s += cnt;
	}
}

void jacobian_add_phi(const struct jacobian *J, const struct rt_problem *pb, const double *cr, const double *cc,
                      double *x)
{
	if (pb->Km.x)
		add_entries(J, J->sK, pb->Km.nx, pb->Km.x, cr, cc, x);
	if (pb->ir->potential)
		add_entries(J, J->sphi, (size_t)pb->ir->potential->nnz, pb->out_phi + 1 + pb->N, cr, cc, x);
	add_kernels(J, &pb->kphi, J->skphi, cr, cc, x);
}

void jacobian_add_psi(const struct jacobian *J, const struct rt_problem *pb, const double *cr, const double *cc,
                      double *x)
{
	if (pb->hasC && pb->Cm.x)
		add_entries(J, J->sC, pb->Cm.nx, pb->Cm.x, cr, cc, x);
	if (pb->ir->dissipation)
		add_entries(J, J->spsi, (size_t)pb->ir->dissipation->nnz, pb->out_psi + 1 + pb->N, cr, cc, x);
	add_kernels(J, &pb->kpsi, J->skpsi, cr, cc, x);
}

void jacobian_add_mass(const struct jacobian *J, const struct rt_problem *pb, double coef, double *x)
{
	for (size_t k = 0; pb->Mm.x && k < pb->Mm.nx; k++)
		if (J->sM[k] >= 0)
			x[J->sM[k]] += coef * pb->Mm.x[k];
}

void jacobian_add_gt(const struct jacobian *J, const struct rt_problem *pb, double coef, double *x)
{
	const struct ir_model *m = pb->ir;
	const double *g = pb->out_c + m->nconstraint;
	for (int q = 0; q < m->ngrad; q++)
		x[J->sgu[q]] += coef * g[q];
}

void jacobian_add_g(const struct jacobian *J, const struct rt_problem *pb, const double *w, double *x)
{
	const struct ir_model *m = pb->ir;
	const double *g = pb->out_c + m->nconstraint;
	for (int q = 0; q < m->ngrad; q++)
		x[J->sgl[q]] += w[m->gk[q]] * g[q];
}

void jacobian_add_constraint_hess(const struct jacobian *J, const struct rt_problem *pb, const double *lambda,
                                  double coef, double *x)
{
	const struct ir_model *m = pb->ir;
	const double *h = pb->out_c + m->nconstraint + m->ngrad;
	for (int q = 0; q < m->nhess; q++)
		x[J->sch[q]] += coef * lambda[m->hk[q]] * h[q];
}

void jacobian_scale_row(const struct jacobian *J, int r, double c, double *x)
{
	for (size_t k = J->rp[r]; k < J->rp[r + 1]; k++)
		x[J->rs[k]] *= c;
}

void jacobian_unit_row(const struct jacobian *J, int r, double d, double *x)
{
	for (size_t k = J->rp[r]; k < J->rp[r + 1]; k++)
		x[J->rs[k]] = 0;
	x[J->diag[r]] = d;
}

/* formulation = ggl.  The base pattern (jacobian_init with the nc
 * multipliers) gives the u block's columns; the μ column of constraint l
 * takes the rows of column i of that block for each dof i of G's row l
 * (∂R/∂u (cu/cue) G(ū)ᵀ: stage.c, ggl_rows). */
int jacobian_init_ggl(struct jacobian *J, struct rt_problem *pb, int nc)
{
	const struct ir_model *m = pb->ir;
	struct jacobian B;
	if (jacobian_init(&B, pb, nc, LA_MAT_CSC))
		return -1;
	int NS = pb->N, V = NS + nc, N = V + nc, n = pb->n;
	size_t ng = (size_t)m->ngrad, nh = (size_t)m->nhess, nb = B.A.nx;
	/* the base pattern's slots by column: cp, cs */
	size_t *cp = mem_calloc((size_t)V + 2, sizeof *cp);
	ptrdiff_t *cs = mem_alloc((nb + 1) * sizeof *cs);
	int rc = -1;
	int *r = NULL, *c = NULL;
	double *zero = NULL;
	memset(J, 0, sizeof *J);
	if (!cp || !cs)
		goto out;
	for (size_t k = 0; k < nb; k++)
		if (B.row[k] >= 0 && B.row[k] < NS)
			cp[B.col[k] + 2]++;
	for (int j = 0; j < V; j++)
		cp[j + 2] += cp[j + 1];
	for (size_t k = 0; k < nb; k++)
		if (B.row[k] >= 0 && B.row[k] < NS)
			cs[cp[B.col[k] + 1]++] = (ptrdiff_t)k;
	size_t nmu = 0;
	for (size_t q = 0; q < ng; q++)
		nmu += cp[m->gi[q] + 1] - cp[m->gi[q]];
	size_t nn = (size_t)nc * (size_t)nc;
	size_t ne = nb + (size_t)nc * 2 + ng + nh + nmu + 2 * nn;
	r = mem_alloc((ne + 1) * sizeof *r);
	c = mem_alloc((ne + 1) * sizeof *c);
	zero = mem_calloc(ne + 1, sizeof *zero);
	J->mup = mem_alloc((ng + 1) * sizeof *J->mup);
	J->mus = mem_alloc((nmu + 1) * sizeof *J->mus);
	if (!r || !c || !zero || !J->mup || !J->mus)
		goto out;
	size_t k = 0;
	for (size_t q = 0; q < nb; q++)
		if (B.row[q] >= 0) {
			r[k] = B.row[q];
			c[k++] = B.col[q];
		}
	for (int i = V; i < N; i++, k++)
		r[k] = c[k] = i;
	size_t kv = k;
	for (size_t q = 0; q < ng; q++, k++) {
		r[k] = V + m->gk[q];
		c[k] = m->gi[q];
	}
	size_t kvh = k;
	for (size_t q = 0; q < nh; q++, k++) {
		r[k] = V + m->hk[q];
		c[k] = m->hi[q];
	}
	size_t kmu = k, p = 0;
	for (size_t q = 0; q < ng; q++) {
		J->mup[q] = p;
		int i = m->gi[q];
		for (size_t e = cp[i]; e < cp[i + 1]; e++, p++, k++) {
			J->mus[p] = cs[e];   /* a slot of B: mapped to J's below */
			r[k] = B.row[cs[e]];
			c[k] = V + m->gk[q];
		}
	}
	J->mup[ng] = p;
	size_t kb = k;
	for (int l = 0; l < nc; l++)
		for (int kk = 0; kk < nc; kk++, k += 2) {
			r[k] = NS + kk;
			c[k] = V + l;
			r[k + 1] = V + kk;
			c[k + 1] = V + l;
		}
	(void)n;
	if (la_mat_triplets(&J->A, LA_MAT_CSC, N, k, r, c, zero))
		goto out;
	J->N = N;
	J->row = mem_alloc((J->A.nx + 1) * sizeof *J->row);
	J->col = mem_alloc((J->A.nx + 1) * sizeof *J->col);
	J->diag = mem_alloc(((size_t)N + 1) * sizeof *J->diag);
	if (!J->row || !J->col || !J->diag)
		goto out;
	la_mat_pattern(&J->A, J->row, J->col);
	for (int i = 0; i < N; i++)
		J->diag[i] = la_mat_slot(&J->A, i, i);
	/* the base sources' slots, moved to J's pattern */
	struct { ptrdiff_t **dst, *src; size_t cnt; } moved[] = {
		{ &J->sM, B.sM, B.sM ? pb->Mm.nx : 0 }, { &J->sK, B.sK, B.sK ? pb->Km.nx : 0 },
		{ &J->sC, B.sC, B.sC && pb->hasC && pb->Cm.x ? pb->Cm.nx : 0 },
		{ &J->sphi, B.sphi, m->potential ? (size_t)m->potential->nnz : 0 },
		{ &J->spsi, B.spsi, m->dissipation ? (size_t)m->dissipation->nnz : 0 },
		{ &J->skphi, B.skphi, rt_kernels_nentries(&pb->kphi) }, { &J->skpsi, B.skpsi, rt_kernels_nentries(&pb->kpsi) },
		{ &J->sgu, B.sgu, ng }, { &J->sgl, B.sgl, ng }, { &J->sch, B.sch, nh },
	};
	for (size_t t = 0; t < sizeof moved / sizeof moved[0]; t++) {
		size_t cnt = moved[t].cnt;
		if (!(*moved[t].dst = mem_alloc((cnt + 1) * sizeof **moved[t].dst)))
			goto out;
		for (size_t q = 0; q < cnt; q++) {
			ptrdiff_t b = moved[t].src[q];
			(*moved[t].dst)[q] = b < 0 ? -1 : la_mat_slot(&J->A, B.row[b], B.col[b]);
		}
	}
	if (slots(&J->A, r, c, kv, ng, &J->svg) || slots(&J->A, r, c, kvh, nh, &J->svh) ||
	    slots(&J->A, r, c, kmu, nmu, &J->mut))
		goto out;
	for (size_t q = 0; q < nmu; q++)
		J->mus[q] = la_mat_slot(&J->A, B.row[J->mus[q]], B.col[J->mus[q]]);
	J->sgmu = mem_alloc((nn + 1) * sizeof *J->sgmu);
	J->svmu = mem_alloc((nn + 1) * sizeof *J->svmu);
	if (!J->sgmu || !J->svmu)
		goto out;
	for (size_t q = 0; q < nn; q++) {
		J->sgmu[q] = la_mat_slot(&J->A, r[kb + 2 * q], c[kb + 2 * q]);
		J->svmu[q] = la_mat_slot(&J->A, r[kb + 2 * q + 1], c[kb + 2 * q + 1]);
	}
	int rows = 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		rows |= pb->sigma_u[i] > 0;
	for (int j = 0; j < pb->m && pb->sigma; j++)
		rows |= pb->sigma[j] > 0;
	if (rows && row_index(J))
		goto out;
	J->ggl = 1;
	rc = 0;
out:
	free(cp);
	free(cs);
	free(r);
	free(c);
	free(zero);
	jacobian_free(&B);
	if (rc)
		jacobian_free(J);
	return rc;
}
