/* fe_assemble.c — operators of constant quadratic forms over a mesh,
 * assembled cell by cell (fe_assemble.h).
 *
 * Two phases, as a sparse direct solver separates analysis from
 * factorisation: the pattern from the connectivity alone (for each node
 * of each field, the nodes of the instances around it, then the unknowns
 * of the components D couples), then the values: per instance the element
 * matrix K_e = Σ_q w_q|det J| B_qᵀ D B_q (fe_tab_cell gives w_q|det J|,
 * φ_a and the physical gradients J⁻ᵀ∇̂φ_a), added into the columns by a
 * binary search of each row. */
#include "fe_assemble.h"
#include "mesh_impl.h"
#include "arena.h"
#include "mem.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { MAXFC = FE_FORM_MAXFIELD * 3 };  /* (field, component) pairs */

struct asm_ctx {
	const struct fe_form *f;
	int facets;
	long ninst;
	int nrule;
	struct fe_quad *quad;
	struct fe_tab *tab;
	int ns, off[FE_FORM_MAXFIELD + 1];
	unsigned char couple[MAXFC][MAXFC];  /* (field, comp) pairs D couples */
	int gradients_only;                   /* no feature is a value */
	int nd, da[FE_FORM_MAXFEAT * FE_FORM_MAXFEAT], db[FE_FORM_MAXFEAT * FE_FORM_MAXFEAT];
	double dv[FE_FORM_MAXFEAT * FE_FORM_MAXFEAT];
	/* values only (a mass) of Lagrange fields on affine cells: K_e =
	 * det J · K_ref, K_ref from the first instance (reference_scaled) */
	int scaled, have_ref;
	double *Kref;
};

static long inst_cell(const struct asm_ctx *c, long k)
{
	return c->f->region ? c->f->region->cell[k] : k;
}

void fe_csc_free(struct fe_csc *A)
{
	free(A->p);
	if (!A->alloc) {
		free(A->i);
		free(A->x);
	}
	A->p = A->i = NULL;
	A->x = NULL;
}

/* Room for i and x (x zeroed unless A->alloc gives it). */
static int csc_values(struct fe_csc *A, size_t nz)
{
	if (A->alloc) {
		A->i = A->alloc(A->ctx, sizeof(int) * (nz + 1));
		A->x = A->alloc(A->ctx, sizeof(double) * (nz + 1));
	} else {
		/* x zeroed: pages fresh from the system come zeroed, without
		 * a second pass */
		A->i = mem_alloc(sizeof(int) * (nz + 1));
		A->x = mem_calloc(nz + 1, sizeof(double));
		mem_advise_huge(A->i, sizeof(int) * (nz + 1));
		mem_advise_huge(A->x, sizeof(double) * (nz + 1));
	}
	return A->i && A->x ? 0 : -1;
}

/* The unknowns of instance k's local dofs, in the slot order of K_e. */
static void gather(const struct asm_ctx *c, long k, int *g)
{
	long cell = inst_cell(c, k);
	for (int fi = 0; fi < c->f->nfield; fi++) {
		const struct fe_space *sp = c->f->space[fi];
		const int32_t *cn = sp->cell_nodes + (size_t)cell * (size_t)sp->nloc;
		const long *dof = c->f->dof[fi];
		int nc = sp->ncomp, *gl = g + c->off[fi];
		for (int a = 0; a < sp->nloc; a++)
			for (int k = 0; k < nc; k++)
				gl[a * nc + k] = (int)dof[cn[a] * nc + k];
	}
}

/* K_e of instance k into Ke (ns × ns), exactly symmetric.  −1 when a cell
 * is degenerate (message in err). */
static int element(struct asm_ctx *c, long k, double *Ke, char *err, size_t errlen)
{
	const struct fe_form *f = c->f;
	long cell = inst_cell(c, k);
	int lf = c->facets ? f->region->facet[k] : 0, ns = c->ns;
	const struct fe_quad *q = &c->quad[lf];
	if (c->have_ref) {
		/* φ at the points is the reference φ on every cell; the
		 * weights scale with det J alone */
		double J[9], xi[3] = { 0, 0, 0 }, det = mesh_cell_map(f->mesh, cell, xi, NULL, J);
		if (!(det > 0)) {
			mesh_errf(err, errlen, "cell %ld is degenerate or inverted (det J = %g)", cell + 1, det);
			return -1;
		}
		for (int s = 0; s < ns * ns; s++)
			Ke[s] = det * c->Kref[s];
		return 0;
	}
	for (int fi = 0; fi < f->nfield; fi++)
		if (c->facets ? fe_tab_facet(&c->tab[fi], f->space[fi], cell, lf, q, err, errlen)
		              : fe_tab_cell(&c->tab[fi], f->space[fi], cell, q, err, errlen))
			return -1;
	memset(Ke, 0, sizeof *Ke * (size_t)ns * (size_t)ns);
	int nq = q->n, dim = f->mesh->dim;
	/* gradients only, the same at every point (affine cells): one point
	 * of weight Σ_q w_q|det J| */
	int one = c->gradients_only;
	for (int fi = 0; fi < f->nfield && one; fi++) {
		const struct fe_tab *t = &c->tab[fi];
		size_t len = (size_t)t->nloc * (size_t)dim;
		for (int qq = 1; qq < nq && one; qq++)
			one = memcmp(t->dphi + (size_t)qq * len, t->dphi, sizeof(double) * len) == 0;
	}
	double wsum = 0;
	if (one)
		for (int qq = 0; qq < nq; qq++)
			wsum += c->tab[0].wdet[qq];
	for (int qq = 0; qq < (one ? 1 : nq); qq++) {
		double w = one ? wsum : c->tab[0].wdet[qq];
		for (int e = 0; e < c->nd; e++) {
			const struct fe_feature *fa = &f->feat[c->da[e]], *fb = &f->feat[c->db[e]];
			const struct fe_tab *ta = &c->tab[fa->field], *tb = &c->tab[fb->field];
			int nca = f->space[fa->field]->ncomp, ncb = f->space[fb->field]->ncomp;
			const double *va, *vb;
			int sa, sb;
			if (fa->deriv < 0) {
				va = ta->phi + (size_t)qq * (size_t)ta->nloc;
				sa = 1;
			} else {
				va = ta->dphi + (size_t)qq * (size_t)ta->nloc * (size_t)dim + fa->deriv;
				sa = dim;
			}
			if (fb->deriv < 0) {
				vb = tb->phi + (size_t)qq * (size_t)tb->nloc;
				sb = 1;
			} else {
				vb = tb->dphi + (size_t)qq * (size_t)tb->nloc * (size_t)dim + fb->deriv;
				sb = dim;
			}
			double cw = w * c->dv[e];
			for (int a = 0; a < ta->nloc; a++) {
				double ca = cw * va[a * sa];
				double *row = Ke + (size_t)(c->off[fa->field] + a * nca + fa->comp) * (size_t)ns +
				              (size_t)(c->off[fb->field] + fb->comp);
				for (int b = 0; b < tb->nloc; b++)
					row[b * ncb] += ca * vb[b * sb];
			}
		}
	}
	for (int s = 0; s < ns; s++)
		for (int t = s + 1; t < ns; t++) {
			double v = 0.5 * (Ke[(size_t)s * ns + t] + Ke[(size_t)t * ns + s]);
			Ke[(size_t)s * ns + t] = Ke[(size_t)t * ns + s] = v;
		}
	if (c->scaled) {
		double det = c->tab[0].det[0];
		for (int s = 0; s < ns * ns; s++)
			c->Kref[s] = Ke[s] / det;
		c->have_ref = 1;
	}
	return 0;
}

/* The (field, comp) index of a feature. */
static int fc(const struct fe_feature *x)
{
	return x->field * 3 + x->comp;
}

/* The pattern: p[j+1] counts (fill 0) or i[pos[j]++] receives (fill 1)
 * the rows of column j.  inst/first: per field, the instances around
 * each node; mark, nb: scratch. */
static int pattern_pass(const struct asm_ctx *c, int fill, int *p, int *i, int *pos, long *const *first,
                        long *const *inst, long *const *mark, long **nb, size_t *nbcap)
{
	const struct fe_form *f = c->f;
	long stamp = 0;
	for (int fi = 0; fi < f->nfield; fi++)
		for (long b = 0; b < f->space[fi]->nnode; b++)
			mark[fi][b] = -1;
	for (int gf = 0; gf < f->nfield; gf++) {
		const struct fe_space *gs = f->space[gf];
		for (long b = 0; b < gs->nnode; b++, stamp++) {
			/* the neighbours (field, node) of node b of field gf */
			size_t nn = 0;
			for (long e = first[gf][b]; e < first[gf][b + 1]; e++) {
				long cell = inst_cell(c, inst[gf][e]);
				for (int fi = 0; fi < f->nfield; fi++) {
					const struct fe_space *sp = f->space[fi];
					const int32_t *cn = sp->cell_nodes + (size_t)cell * (size_t)sp->nloc;
					for (int a = 0; a < sp->nloc; a++) {
						if (mark[fi][cn[a]] == stamp)
							continue;
						mark[fi][cn[a]] = stamp;
						if (nn + 2 > *nbcap) {
							size_t cap = *nbcap ? 2 * *nbcap : 256;
							long *q = mem_realloc(*nb, sizeof *q * cap);
							if (!q)
								return -1;
							*nb = q;
							*nbcap = cap;
						}
						(*nb)[nn++] = fi;
						(*nb)[nn++] = cn[a];
					}
				}
			}
			for (int d = 0; d < gs->ncomp; d++) {
				long J = f->dof[gf][b * gs->ncomp + d];
				if (J < 0 || (f->part && (J < f->c0 || J >= f->c1)))
					continue;
				for (size_t e = 0; e < nn; e += 2) {
					int fi = (int)(*nb)[e];
					long a = (*nb)[e + 1];
					const struct fe_space *sp = f->space[fi];
					for (int cc = 0; cc < sp->ncomp; cc++) {
						if (!c->couple[fi * 3 + cc][gf * 3 + d])
							continue;
						long I = f->dof[fi][a * sp->ncomp + cc];
						if (I < 0)
							continue;
						if (fill)
							i[pos[J]++] = (int)I;
						else
							p[J + 1]++;
					}
				}
			}
		}
	}
	return 0;
}

/* Rows sorted in each column (insertion: the rows come nearly sorted). */
static void sort_columns(int n, const int *p, int *i)
{
	for (int j = 0; j < n; j++)
		for (int k = p[j] + 1; k < p[j + 1]; k++) {
			int v = i[k], m = k - 1;
			while (m >= p[j] && i[m] > v) {
				i[m + 1] = i[m];
				m--;
			}
			i[m + 1] = v;
		}
}

/* The instances around each node of each field (CSR: first, inst). */
static int node_instances(const struct asm_ctx *c, long **first, long **inst)
{
	const struct fe_form *f = c->f;
	for (int fi = 0; fi < f->nfield; fi++) {
		const struct fe_space *sp = f->space[fi];
		first[fi] = mem_calloc((size_t)sp->nnode + 1, sizeof(long));
		inst[fi] = mem_alloc(sizeof(long) * ((size_t)c->ninst * (size_t)sp->nloc + 1));
		if (!first[fi] || !inst[fi])
			return -1;
		mem_advise_huge(inst[fi], sizeof(long) * ((size_t)c->ninst * (size_t)sp->nloc + 1));
		for (long k = 0; k < c->ninst; k++) {
			const int32_t *cn = sp->cell_nodes + (size_t)inst_cell(c, k) * (size_t)sp->nloc;
			for (int a = 0; a < sp->nloc; a++)
				first[fi][cn[a] + 1]++;
		}
		for (long b = 0; b < sp->nnode; b++)
			first[fi][b + 1] += first[fi][b];
		long *pos = mem_alloc(sizeof(long) * ((size_t)sp->nnode + 1));
		if (!pos)
			return -1;
		memcpy(pos, first[fi], sizeof(long) * (size_t)sp->nnode);
		for (long k = 0; k < c->ninst; k++) {
			const int32_t *cn = sp->cell_nodes + (size_t)inst_cell(c, k) * (size_t)sp->nloc;
			for (int a = 0; a < sp->nloc; a++)
				inst[fi][pos[cn[a]]++] = k;
		}
		free(pos);
	}
	return 0;
}

static int find_row(const int *i, int lo, int hi, int r)
{
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (i[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* fe_held's sums for instance k (K_e in Ke, its unknowns in g) */
static void held_add(const struct asm_ctx *c, long k, const double *Ke, const int *g, int lumped,
                     struct fe_held *h)
{
	const struct fe_form *f = c->f;
	long cell = inst_cell(c, k);
	int ns = c->ns, any = 0;
	int comp[FE_FORM_MAXSLOT];   /* a value slot's component, -1 a derivative's */
	for (int s = 0; s < ns; s++)
		any |= g[s] < 0;
	if (!any)
		return;
	for (int fi = 0; fi < f->nfield; fi++) {
		const struct fe_space *sp = f->space[fi];
		const int32_t *cn = sp->cell_nodes + (size_t)cell * (size_t)sp->nloc;
		for (int a = 0; a < sp->nloc; a++)
			for (int q = 0; q < sp->ncomp; q++)
				comp[c->off[fi] + a * sp->ncomp + q] = sp->node_kind[cn[a]] == FE_NODE_VALUE ? q : -1;
	}
	for (int s = 0; s < ns; s++)
		for (int t = 0; t < ns; t++) {
			double v = Ke[(size_t)s * ns + t];
			if (g[s] < 0 && comp[s] >= 0 && comp[t] >= 0)
				h->A[comp[s]][comp[t]] += v;
			else if (g[s] >= 0 && !lumped && g[t] < 0 && comp[t] == 0)
				h->c[g[s]] += v;
		}
}

int fe_form_assemble(const struct fe_form *f, int n, int lumped, struct fe_csc *A, struct fe_held *held, char *err,
                     size_t errlen)
{
	struct asm_ctx c;
	memset(&c, 0, sizeof c);
	A->p = A->i = NULL;
	A->x = NULL;
	A->n = n;
	c.f = f;
	c.facets = f->region && f->region->kind == MESH_REGION_FACETS;
	c.ninst = f->region ? f->region->n : f->mesh->ncells;
	c.nrule = c.facets ? mesh_cell_nfacets(f->mesh->type) : 1;
	for (int fi = 0; fi < f->nfield; fi++) {
		c.off[fi] = c.ns;
		c.ns += f->space[fi]->ndof_cell;
	}
	if (f->nfield > FE_FORM_MAXFIELD || c.ns > FE_FORM_MAXSLOT) {
		mesh_errf(err, errlen, "an element form of %d fields and %d local dofs is too large", f->nfield, c.ns);
		return -1;
	}
	c.gradients_only = 1;
	for (int a = 0; a < f->nfeat; a++) {
		c.gradients_only &= f->feat[a].deriv >= 0;
		for (int b = 0; b < f->nfeat; b++) {
			double v = f->D[(size_t)a * (size_t)f->nfeat + (size_t)b];
			if (v == 0)
				continue;
			c.da[c.nd] = a;
			c.db[c.nd] = b;
			c.dv[c.nd++] = v;
			c.couple[fc(&f->feat[a])][fc(&f->feat[b])] = 1;
		}
	}
	int rc = -1, ns = c.ns;
	long *first[FE_FORM_MAXFIELD] = { 0 }, *inst[FE_FORM_MAXFIELD] = { 0 }, *mark[FE_FORM_MAXFIELD] = { 0 };
	long *nb = NULL;
	size_t nbcap = 0;
	int *pos = NULL, g[FE_FORM_MAXSLOT];
	double *Ke = mem_alloc(sizeof *Ke * (size_t)ns * (size_t)ns), *diag = NULL;
	c.quad = mem_calloc((size_t)c.nrule, sizeof *c.quad);
	c.tab = mem_calloc((size_t)f->nfield, sizeof *c.tab);
	if (!Ke || !c.quad || !c.tab)
		goto oom;
	/* gradients of P1 on simplices are constant on the cell: the integrand
	 * is, and the one-point rule integrates it (Σ_q w_q = the reference
	 * cell's measure) at a quarter of the tabulation */
	int degree = f->degree, simplex = f->mesh->type == MESH_INTERVAL || f->mesh->type == MESH_TRIANGLE ||
	                                   f->mesh->type == MESH_TETRAHEDRON;
	int constant = c.gradients_only && simplex && !c.facets;
	for (int fi = 0; fi < f->nfield; fi++)
		constant &= f->space[fi]->family == FE_P1;
	if (constant)
		degree = 0;
	/* no gradient, affine cells, bases that do not depend on the cell
	 * (not Hermite's, scaled by the cell's length) */
	c.scaled = simplex && !c.facets;
	for (int a = 0; a < f->nfeat; a++)
		c.scaled &= f->feat[a].deriv < 0;
	for (int fi = 0; fi < f->nfield; fi++)
		c.scaled &= f->space[fi]->family != FE_HERMITE3;
	if (c.scaled && !(c.Kref = mem_alloc(sizeof *c.Kref * (size_t)ns * (size_t)ns)))
		goto oom;
	for (int r = 0; r < c.nrule; r++)
		if (c.facets ? fe_quad_facet(f->mesh->type, r, degree, &c.quad[r], err, errlen)
		             : fe_quad_cell(f->mesh->type, degree, &c.quad[r], err, errlen))
			goto out;
	for (int fi = 0; fi < f->nfield; fi++)
		if (fe_tab_alloc(&c.tab[fi], f->space[fi], &c.quad[0], 0, err, errlen))
			goto out;

	if (lumped) {
		/* the row sums on the diagonal: those of a term in a velocity's
		 * derivative are 0 (the basis functions sum to 1, their
		 * gradients to 0), so lumping would drop it without a word */
		for (int d = 0; d < c.nd; d++) {
			if (f->feat[c.da[d]].deriv >= 0 || f->feat[c.db[d]].deriv >= 0) {
				mesh_errf(err, errlen, "kinetic lumped: the density has a term in a derivative of the "
				          "velocity (grad, div or eps of u'), whose row sums are 0: lumping would drop it "
				          "(state it in a kinetic energy that is not lumped)");
				goto out;
			}
			/* a row's sum would add another component's (or field's)
			 * entries to its own: dot(u', [1, 0.5; 0.5, 2]*u') lumped
			 * to a mass of 2.5 along y for 2 */
			if (fc(&f->feat[c.da[d]]) != fc(&f->feat[c.db[d]])) {
				mesh_errf(err, errlen, "kinetic lumped: the density couples two components (or fields) "
				          "of the velocity, which row sums would mix (state that term in a kinetic energy "
				          "that is not lumped)");
				goto out;
			}
		}
		diag = mem_calloc((size_t)n + 1, sizeof *diag);
		if (!diag)
			goto oom;
		for (long k = 0; k < c.ninst; k++) {
			if (element(&c, k, Ke, err, errlen))
				goto out;
			gather(&c, k, g);
			if (held)
				held_add(&c, k, Ke, g, 1, held);
			for (int s = 0; s < ns; s++) {
				if (g[s] < 0)
					continue;
				double sum = 0;
				for (int t = 0; t < ns; t++)
					sum += Ke[(size_t)s * ns + t];
				diag[g[s]] += sum;
			}
		}
		int nz = 0;
		for (int j = 0; j < n; j++)
			nz += diag[j] != 0;
		A->p = mem_alloc(sizeof(int) * ((size_t)n + 1));
		if (!A->p || csc_values(A, (size_t)nz))
			goto oom;
		nz = 0;
		for (int j = 0; j < n; j++) {
			A->p[j] = nz;
			if (diag[j] != 0) {
				A->i[nz] = j;
				A->x[nz++] = diag[j];
			}
		}
		A->p[n] = nz;
		rc = 0;
		goto out;
	}

	/* the pattern */
	if (node_instances(&c, first, inst))
		goto oom;
	for (int fi = 0; fi < f->nfield; fi++)
		if (!(mark[fi] = mem_alloc(sizeof(long) * ((size_t)f->space[fi]->nnode + 1))))
			goto oom;
	A->p = mem_calloc((size_t)n + 1, sizeof(int));
	pos = mem_alloc(sizeof(int) * ((size_t)n + 1));
	if (!A->p || !pos || pattern_pass(&c, 0, A->p, NULL, NULL, first, inst, mark, &nb, &nbcap))
		goto oom;
	long long tot = 0;
	for (int j = 0; j < n; j++) {
		tot += A->p[j + 1];
		if (tot > INT_MAX) {
			mesh_errf(err, errlen, "an operator of more than %d entries", INT_MAX);
			goto out;
		}
		A->p[j + 1] = (int)tot;
	}
	if (csc_values(A, (size_t)tot))
		goto oom;
	if (A->alloc)
		memset(A->x, 0, sizeof(double) * (size_t)tot);
	memcpy(pos, A->p, sizeof(int) * (size_t)n);
	if (pattern_pass(&c, 1, A->p, A->i, pos, first, inst, mark, &nb, &nbcap))
		goto oom;
	sort_columns(n, A->p, A->i);
	for (int fi = 0; fi < f->nfield; fi++) {
		free(first[fi]);
		free(inst[fi]);
		free(mark[fi]);
		first[fi] = inst[fi] = mark[fi] = NULL;
	}

	/* the values: the instance's slots in increasing row order, so
	 * that each column is searched forward from the row found last (the
	 * components of a node are adjacent rows: mostly the next entry) */
	for (long k = 0; k < c.ninst; k++) {
		if (f->part) {
			/* an instance reaching none of the columns: not computed,
			 * but the first, whose K_e is the reference of the cells'
			 * scaled ones (c.scaled): the whole operator's bits */
			gather(&c, k, g);
			int reach = 0;
			for (int t = 0; t < ns && !reach; t++)
				reach = g[t] >= f->c0 && g[t] < f->c1;
			if (!reach && c.scaled && !c.have_ref && element(&c, k, Ke, err, errlen))
				goto out;
			if (!reach)
				continue;
		}
		if (element(&c, k, Ke, err, errlen))
			goto out;
		gather(&c, k, g);
		if (held)
			held_add(&c, k, Ke, g, 0, held);
		int ord[FE_FORM_MAXSLOT], no = 0;
		for (int s = 0; s < ns; s++) {
			if (g[s] < 0)
				continue;
			int m = no++;
			while (m > 0 && g[ord[m - 1]] > g[s]) {
				ord[m] = ord[m - 1];
				m--;
			}
			ord[m] = s;
		}
		for (int t = 0; t < ns; t++) {
			int J = g[t];
			if (J < 0 || (f->part && (J < f->c0 || J >= f->c1)))
				continue;
			int at = A->p[J], hi = A->p[J + 1];
			for (int o = 0; o < no; o++) {
				int s = ord[o];
				double v = Ke[(size_t)s * ns + t];
				if (v == 0)
					continue;
				if (A->i[at] != g[s])
					at = at + 1 < hi && A->i[at + 1] == g[s] ? at + 1 : find_row(A->i, at, hi, g[s]);
				A->x[at] += v;
			}
		}
	}
	/* entries that sum to exactly 0 left out */
	int nz = 0;
	for (int j = 0; j < n; j++) {
		int start = A->p[j];
		A->p[j] = nz;
		for (int k = start; k < A->p[j + 1]; k++)
			if (A->x[k] != 0) {
				A->i[nz] = A->i[k];
				A->x[nz++] = A->x[k];
			}
	}
	A->p[n] = nz;
	rc = 0;
	goto out;
oom:
	mesh_errf(err, errlen, "out of memory assembling an operator of %d unknowns", n);
out:
	for (int fi = 0; fi < f->nfield; fi++) {
		free(first[fi]);
		free(inst[fi]);
		free(mark[fi]);
	}
	for (int r = 0; c.quad && r < c.nrule; r++)
		fe_quad_free(&c.quad[r]);
	for (int fi = 0; c.tab && fi < f->nfield; fi++)
		fe_tab_free(&c.tab[fi]);
	free(c.quad);
	free(c.tab);
	free(c.Kref);
	free(Ke);
	free(diag);
	free(nb);
	free(pos);
	if (rc)
		fe_csc_free(A);
	return rc;
}
