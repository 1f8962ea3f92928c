/* fe_space.c — finite-element spaces on a mesh (fe_space.h): numbering of
 * the nodes and dofs, region dofs, and the physical basis at quadrature
 * points. */
#include "fe_space.h"
#include "mesh_impl.h"
#include "la.h"
#include "mem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAXB = 27 };  /* basis functions per cell, at most (P2 tet: 10) */

/* An open-addressing table from an edge (a < b) to its P2 node. */
struct edge_map {
	size_t cap;      /* a power of two */
	long *key;       /* 2 per slot: a, b; a = −1 when empty */
	long *val;
};

static size_t edge_hash(long a, long b, size_t cap)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15u ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Fu;
	h ^= h >> 29;
	return (size_t)h & (cap - 1);
}

/* The node of edge (a, b), made next (*next) when new. */
static long edge_node(struct edge_map *e, long a, long b, long *next)
{
	size_t i;

	if (a > b) {
		long t = a;
		a = b;
		b = t;
	}
	for (i = edge_hash(a, b, e->cap); e->key[2 * i] >= 0; i = (i + 1) & (e->cap - 1))
		if (e->key[2 * i] == a && e->key[2 * i + 1] == b)
			return e->val[i];
	e->key[2 * i] = a;
	e->key[2 * i + 1] = b;
	return e->val[i] = (*next)++;
}

static int number_p2(struct fe_space *s)
{
	const struct mesh *m = s->mesh;
	int ne = fe_ref_nedges(m->type), nv = m->nv;
	struct edge_map e;
	long next = m->nnodes;

	/* At most ncells·ne edges; the table at most half full. */
	e.cap = 16;
	while (e.cap < 2 * (size_t)m->ncells * (size_t)ne)
		e.cap *= 2;
	e.key = mem_alloc(2 * e.cap * sizeof *e.key);
	e.val = mem_alloc(e.cap * sizeof *e.val);
	if (!e.key || !e.val) {
		free(e.key);
		free(e.val);
		return -1;
	}
	memset(e.key, 0xff, 2 * e.cap * sizeof *e.key);  /* all −1 */
	for (long c = 0; c < m->ncells; c++) {
		const int32_t *v = m->cells + c * nv;
		int32_t *cn = s->own_nodes + c * s->nloc;
		for (int i = 0; i < nv; i++)
			cn[i] = v[i];
		for (int k = 0; k < ne; k++) {
			const int *ev = fe_ref_edge(m->type, k);
			cn[nv + k] = edge_node(&e, v[ev[0]], v[ev[1]], &next);
		}
	}
	free(e.key);
	free(e.val);
	s->nnode = next;
	return 0;
}

struct fe_space *fe_space_make(const struct mesh *m, enum fe_family f, int ncomp,
                               char *err, size_t errlen)
{
	struct fe_space *s;
	int d = m->dim;

	if (!fe_ref_supported(f, m->type, err, errlen))
		return NULL;
	/* P0 with more components is the space of values at the points of
	 * a cell's quadrature rule (fe_space.h) */
	if (ncomp < 1 || ncomp > (f == FE_P0 ? FE_SPACE_MAX_POINTS : 3)) {
		mesh_errf(err, errlen, "a field has 1 to 3 components, not %d", ncomp);
		return NULL;
	}
	s = mem_calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->mesh = m;
	s->family = f;
	s->ncomp = ncomp;
	s->nloc = fe_ref_nbasis(f, m->type);
	s->ndof_cell = s->nloc * ncomp;
	if (f == FE_P1 || f == FE_Q1) {
		/* node i is mesh node i: the mesh's cells are the table */
		s->cell_nodes = m->cells;
	} else {
		s->own_nodes = mem_alloc((size_t)(m->ncells ? m->ncells : 1) * s->nloc * sizeof *s->own_nodes);
		if (!s->own_nodes)
			goto oom;
		s->cell_nodes = s->own_nodes;
	}
	switch (f) {
	case FE_P0:
		s->nnode = m->ncells;
		for (long c = 0; c < m->ncells; c++)
			s->own_nodes[c] = c;
		break;
	case FE_P1:
	case FE_Q1:
		s->nnode = m->nnodes;
		break;
	case FE_HERMITE3:
		s->nnode = 2 * m->nnodes;
		for (long c = 0; c < m->ncells; c++)
			for (int i = 0; i < 2; i++) {
				s->own_nodes[4 * c + 2 * i] = 2 * m->cells[2 * c + i];
				s->own_nodes[4 * c + 2 * i + 1] = 2 * m->cells[2 * c + i] + 1;
			}
		break;
	case FE_P2:
		if (number_p2(s))
			goto oom;
		break;
	}
	s->ndofs = s->nnode * ncomp;
	/* P1 and Q1 nodes are the mesh's vertices: their coordinates are
	 * the mesh's (8 bytes a P1^3 unknown not copied) */
	int own = f != FE_P1 && f != FE_Q1;
	double *x = own ? mem_alloc((size_t)(s->nnode ? s->nnode : 1) * d * sizeof *x) : NULL;
	s->own_x = x;
	s->node_x = own ? x : m->x;
	s->node_kind = mem_alloc((size_t)(s->nnode ? s->nnode : 1));
	if ((own && !x) || !s->node_kind)
		goto oom;
	/* Node coordinates, from the vertices' (the cells' maps are affine
	 * along edges, so an edge node is its edge's midpoint). */
	memset(s->node_kind, FE_NODE_VALUE, (size_t)(s->nnode ? s->nnode : 1));
	switch (f) {
	case FE_P1:
	case FE_Q1:
		break;
	case FE_HERMITE3:
		for (long i = 0; i < m->nnodes; i++) {
			x[2 * i] = x[2 * i + 1] = m->x[i];
			s->node_kind[2 * i + 1] = FE_NODE_DERIV;
		}
		break;
	case FE_P0:
		for (long c = 0; c < m->ncells; c++)
			for (int k = 0; k < d; k++) {
				double sum = 0;
				for (int i = 0; i < m->nv; i++)
					sum += m->x[m->cells[c * m->nv + i] * d + k];
				x[c * d + k] = sum / m->nv;
			}
		break;
	case FE_P2:
		memcpy(x, m->x, (size_t)(m->nnodes * d) * sizeof *m->x);
		for (long c = 0; c < m->ncells; c++)
			for (int e = 0; e < fe_ref_nedges(m->type); e++) {
				const int *ev = fe_ref_edge(m->type, e);
				long n = s->cell_nodes[c * s->nloc + m->nv + e];
				const double *a = m->x + m->cells[c * m->nv + ev[0]] * d;
				const double *b = m->x + m->cells[c * m->nv + ev[1]] * d;
				for (int k = 0; k < d; k++)
					x[n * d + k] = 0.5 * (a[k] + b[k]);
			}
		break;
	}
	return s;
oom:
	fe_space_free(s);
	mesh_errf(err, errlen, "out of memory for a %s space on %ld cells",
	          fe_family_name(f), m->ncells);
	return NULL;
}

int fe_space_node_order(const struct fe_space *s, int nparts, int *order, int *part)
{
	long nn = s->nnode, nc = s->mesh->ncells;
	int nloc = s->nloc;
	if (nn < 2 || nn >= INT32_MAX || nc * nloc >= INT32_MAX || s->family == FE_P0)
		return 0;
	int n = (int)nn, rc = -1;
	/* the cells of each node (compressed), then each node's neighbours:
	 * the nodes of its cells, once each (mark holds the last node that
	 * counted a neighbour) */
	int *cp = mem_calloc((size_t)n + 1, sizeof *cp), *ci = mem_alloc(((size_t)(nc * nloc) + 1) * sizeof *ci);
	int *mark = mem_alloc(((size_t)n + 1) * sizeof *mark), *p = mem_calloc((size_t)n + 1, sizeof *p);
	int *ix = NULL;
	if (!cp || !ci || !mark || !p)
		goto out;
	for (long k = 0; k < nc * nloc; k++)
		cp[s->cell_nodes[k] + 1]++;
	for (int i = 0; i < n; i++)
		cp[i + 1] += cp[i];
	for (long c = 0; c < nc; c++)
		for (int l = 0; l < nloc; l++) {
			long v = s->cell_nodes[c * nloc + l];
			ci[cp[v]++] = (int)c;
		}
	for (int i = n; i > 0; i--)
		cp[i] = cp[i - 1];
	cp[0] = 0;
	long bw = 0, np = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++)
			mark[i] = -1;
		for (int i = 0; i < n; i++) {
			int cnt = 0;
			for (int k = cp[i]; k < cp[i + 1]; k++)
				for (int l = 0; l < nloc; l++) {
					int j = (int)s->cell_nodes[(long)ci[k] * nloc + l];
					if (j == i || mark[j] == i)
						continue;
					mark[j] = i;
					if (pass == 1)
						ix[p[i] + cnt] = j;
					cnt++;
					if (labs((long)j - i) > bw)
						bw = labs((long)j - i);
				}
			if (pass == 0) {
				/* the graph's entries in 32 bits, as la_rcm and PETSc's
				 * graph take them: beyond, the mesh keeps its numbering
				 * (a scalar Q1 field on 8·10^7 hexahedra' nodes) */
				np += cnt;
				if (np >= INT32_MAX) {
					rc = 0;
					goto out;
				}
				p[i + 1] = (int)np;
			}
		}
		if (pass == 0 && !(ix = mem_alloc(((size_t)p[n] + 1) * sizeof *ix)))
			goto out;
	}
	int rbw = la_rcm(n, p, ix, order);
	if (rbw < 0)
		goto out;
	/* the natural order is kept unless the bandwidth at least halves:
	 * a generated mesh's is already narrow (same bits as ever) */
	rc = 2L * rbw <= bw;
	int pr = rc && nparts > 1 && part ? la_mpi_graph_partition(n, p, ix, part) : -1;
	if (pr == -2)
		rc = -2;
	if (pr == 0) {
		/* the parts one after the other, each in the narrow order: a
		 * counting sort of order by part */
		int *by = mem_alloc(((size_t)n + 1) * sizeof *by);
		int *start = mem_calloc((size_t)nparts + 1, sizeof *start);
		int valid = by && start;
		for (int i = 0; i < n && valid; i++)
			valid = part[i] >= 0 && part[i] < nparts;
		if (valid) {
			for (int i = 0; i < n; i++)
				start[part[i] + 1]++;
			for (int q = 0; q < nparts; q++)
				start[q + 1] += start[q];
			for (int k = 0; k < n; k++)
				by[start[part[order[k]]]++] = order[k];
			memcpy(order, by, sizeof *order * (size_t)n);
			rc = 2;
		} else if (!by || !start) {
			rc = -1;
		}
		free(by);
		free(start);
	}
out:
	free(cp);
	free(ci);
	free(mark);
	free(p);
	free(ix);
	return rc;
}

void fe_space_free(struct fe_space *s)
{
	if (!s)
		return;
	free(s->own_nodes);
	free(s->own_x);
	free(s->node_kind);
	free(s);
}

long fe_space_region_dofs(const struct fe_space *s, const struct mesh_region *r,
                          int comp, int kinds, long **dofs, char *err, size_t errlen)
{
	const struct mesh *m = s->mesh;
	long cap, n = 0, k = 0, *nodes, *out;
	int nc = comp < 0 ? s->ncomp : 1;

	*dofs = NULL;
	if (comp >= s->ncomp) {
		mesh_errf(err, errlen, "component %d of a field of %d", comp, s->ncomp);
		return -1;
	}
	if (!kinds)
		kinds = FE_NODE_VALUE | FE_NODE_DERIV;
	/* Candidate nodes: at most two per mesh node of the region (Hermite),
	 * and the edges of its facets or all nodes of its cells. */
	cap = 2 * r->nnodes + (r->kind == MESH_REGION_FACETS ? r->n * 4 : 0)
	    + (r->kind == MESH_REGION_CELLS ? r->n * s->nloc : 0) + 1;
	nodes = mem_alloc((size_t)cap * sizeof *nodes);
	if (!nodes)
		goto oom;
	if (s->family == FE_P0) {
		if (r->kind == MESH_REGION_CELLS)
			for (long i = 0; i < r->n; i++)
				nodes[n++] = r->cell[i];
	} else if (r->kind == MESH_REGION_CELLS) {
		for (long i = 0; i < r->n; i++)
			for (int a = 0; a < s->nloc; a++)
				nodes[n++] = s->cell_nodes[r->cell[i] * s->nloc + a];
	} else {
		for (long i = 0; i < r->nnodes; i++) {
			if (s->family == FE_HERMITE3) {
				nodes[n++] = 2 * r->nodes[i];
				nodes[n++] = 2 * r->nodes[i] + 1;
			} else {
				nodes[n++] = r->nodes[i];
			}
		}
		if (s->family == FE_P2 && r->kind == MESH_REGION_FACETS) {
			/* The edge nodes of the edges whose two vertices are
			 * vertices of the facet. */
			int fnv = mesh_cell_facet_nv(m->type), nv = m->nv;
			for (long i = 0; i < r->n; i++) {
				const int *fv = mesh_cell_facet(m->type, r->facet[i]);
				for (int e = 0; e < fe_ref_nedges(m->type); e++) {
					const int *ev = fe_ref_edge(m->type, e);
					int in = 0;
					for (int j = 0; j < fnv; j++)
						in += fv[j] == ev[0] || fv[j] == ev[1];
					if (in == 2)
						nodes[n++] = s->cell_nodes[r->cell[i] * s->nloc + nv + e];
				}
			}
		}
	}
	n = mesh_sort_unique(nodes, n);
	out = mem_alloc((size_t)(n ? n : 1) * nc * sizeof *out);
	if (!out) {
		free(nodes);
		goto oom;
	}
	for (long i = 0; i < n; i++) {
		if (!(s->node_kind[nodes[i]] & kinds))
			continue;
		for (int j = 0; j < nc; j++)
			out[k++] = nodes[i] * s->ncomp + (comp < 0 ? j : comp);
	}
	free(nodes);
	if (!k) {
		free(out);
		out = NULL;
	}
	*dofs = out;
	return k;
oom:
	mesh_errf(err, errlen, "out of memory for the dofs of region %s", r->name);
	return -1;
}

/* ---- Tabulation ---- */

int fe_tab_alloc(struct fe_tab *t, const struct fe_space *s, const struct fe_quad *q,
                 int second, char *err, size_t errlen)
{
	int d = s->mesh->dim;
	size_t nq = (size_t)q->n, nl = (size_t)s->nloc;

	memset(t, 0, sizeof *t);
	if (second && (s->mesh->type == MESH_QUADRILATERAL || s->mesh->type == MESH_HEXAHEDRON)) {
		mesh_errf(err, errlen, "second derivatives are not available on %s cells",
		          mesh_cell_name(s->mesh->type));
		return -1;
	}
	t->nq = q->n;
	t->nloc = s->nloc;
	t->dim = d;
	t->x = mem_alloc(nq * d * sizeof *t->x);
	t->wdet = mem_alloc(nq * sizeof *t->wdet);
	t->phi = mem_alloc(nq * nl * sizeof *t->phi);
	t->dphi = mem_alloc(nq * nl * d * sizeof *t->dphi);
	t->normal = mem_alloc(nq * d * sizeof *t->normal);
	if (second)
		t->d2phi = mem_alloc(nq * nl * d * d * sizeof *t->d2phi);
	t->ref_xi = mem_alloc(nq * d * sizeof *t->ref_xi);
	t->rphi = mem_alloc(nq * nl * sizeof *t->rphi);
	t->rdphi = mem_alloc(nq * nl * d * sizeof *t->rdphi);
	t->rd2phi = mem_alloc(nq * nl * d * d * sizeof *t->rd2phi);
	t->gphi = mem_alloc(nq * 8 * sizeof *t->gphi);
	t->gdphi = mem_alloc(nq * 8 * d * sizeof *t->gdphi);
	t->J = mem_alloc(nq * 9 * sizeof *t->J);
	t->det = mem_alloc(nq * sizeof *t->det);
	if (!t->x || !t->wdet || !t->phi || !t->dphi || !t->normal || (second && !t->d2phi) ||
	    !t->ref_xi || !t->rphi || !t->rdphi || !t->rd2phi || !t->gphi || !t->gdphi ||
	    !t->J || !t->det) {
		fe_tab_free(t);
		mesh_errf(err, errlen, "out of memory for a basis table");
		return -1;
	}
	return 0;
}

void fe_tab_free(struct fe_tab *t)
{
	free(t->x);
	free(t->wdet);
	free(t->phi);
	free(t->dphi);
	free(t->d2phi);
	free(t->normal);
	free(t->ref_xi);
	free(t->rphi);
	free(t->rdphi);
	free(t->rd2phi);
	free(t->gphi);
	free(t->gdphi);
	free(t->J);
	free(t->det);
	memset(t, 0, sizeof *t);
}

/* The reference and geometric bases at the points of q, unless t holds
 * them for these points already. */
static void tab_reference(struct fe_tab *t, const struct fe_space *s, const struct fe_quad *q)
{
	const struct mesh *m = s->mesh;
	int d = m->dim, nl = s->nloc;
	size_t nx = (size_t)q->n * d;

	if (t->ref_valid && !memcmp(t->ref_xi, q->xi, nx * sizeof *q->xi))
		return;
	memcpy(t->ref_xi, q->xi, nx * sizeof *q->xi);
	for (int i = 0; i < q->n; i++) {
		fe_ref_eval(s->family, m->type, q->xi + i * d, t->rphi + (size_t)i * nl,
		            t->rdphi + (size_t)i * nl * d, t->rd2phi + (size_t)i * nl * d * d);
		mesh_cell_basis(m->type, q->xi + i * d, t->gphi + (size_t)i * 8,
		                t->gdphi + (size_t)i * 8 * d);
	}
	t->ref_valid = 1;
}

/* The Jacobian of cell c at point i from the cached geometric basis;
 * returns det J. */
static double tab_jacobian(const struct fe_tab *t, const struct mesh *m, long c, int i, double *J)
{
	int d = m->dim;
	const int32_t *v = m->cells + c * m->nv;
	const double *gd = t->gdphi + (size_t)i * 8 * d;

	for (int k = 0; k < d * d; k++)
		J[k] = 0;
	for (int a = 0; a < m->nv; a++) {
		const double *p = m->x + v[a] * d;
		for (int k = 0; k < d; k++)
			for (int l = 0; l < d; l++)
				J[k * d + l] += p[k] * gd[a * d + l];
	}
	return mesh_det(d, J);
}

/* Fill the points of t for cell c: the physical points, the basis, its
 * gradients (and second derivatives), and the Jacobians (J, det per
 * point into Js, dets).  On simplices the map is affine: J is computed
 * once.  Returns the index of the first point where det J ≤ 0, or −1. */
static int tab_fill(struct fe_tab *t, const struct fe_space *s, long c,
                    const struct fe_quad *q, double *Js, double *dets)
{
	const struct mesh *m = s->mesh;
	int d = m->dim, nl = s->nloc, nq = q->n;
	int affine = m->type != MESH_QUADRILATERAL && m->type != MESH_HEXAHEDRON;
	const int32_t *v = m->cells + c * m->nv;
	double J[9], K[9], det = 0;

	tab_reference(t, s, q);
	for (int i = 0; i < nq; i++) {
		const double *rphi = t->rphi + (size_t)i * nl, *rd = t->rdphi + (size_t)i * nl * d;
		const double *rd2 = t->rd2phi + (size_t)i * nl * d * d, *g = t->gphi + (size_t)i * 8;
		double *phi = t->phi + (size_t)i * nl, *dphi = t->dphi + (size_t)i * nl * d;
		double *d2 = t->d2phi ? t->d2phi + (size_t)i * nl * d * d : NULL, *x = t->x + (size_t)i * d;
		double sc;

		if (i == 0 || !affine) {
			det = tab_jacobian(t, m, c, i, J);
			if (!(det > 0)) {
				dets[i] = det;
				return i;
			}
			mesh_inv(d, J, det, K);
		}
		memcpy(Js + i * 9, J, sizeof J);
		dets[i] = det;
		for (int k = 0; k < d; k++)
			x[k] = 0;
		for (int a = 0; a < m->nv; a++)
			for (int k = 0; k < d; k++)
				x[k] += g[a] * m->x[v[a] * d + k];
		for (int a = 0; a < nl; a++) {
			/* The derivative dofs of Hermite carry dw/dξ = h dw/dx. */
			sc = s->family == FE_HERMITE3 && (a & 1) ? J[0] : 1;
			phi[a] = sc * rphi[a];
			for (int k = 0; k < d; k++) {
				double gsum = 0;
				for (int l = 0; l < d; l++)
					gsum += rd[a * d + l] * K[l * d + k];
				dphi[a * d + k] = sc * gsum;
			}
			if (d2)
				/* ∂²φ/∂x_k∂x_m = Σ K_lk ∂²φ/∂ξ_l∂ξ_n K_nm, the map affine. */
				for (int k = 0; k < d; k++)
					for (int mm = 0; mm < d; mm++) {
						double gsum = 0;
						for (int l = 0; l < d; l++)
							for (int n = 0; n < d; n++)
								gsum += K[l * d + k] * rd2[(a * d + l) * d + n] * K[n * d + mm];
						d2[(a * d + k) * d + mm] = sc * gsum;
					}
		}
	}
	return -1;
}

int fe_tab_cell(struct fe_tab *t, const struct fe_space *s, long c,
                const struct fe_quad *q, char *err, size_t errlen)
{
	int bad = tab_fill(t, s, c, q, t->J, t->det);

	if (bad >= 0) {
		mesh_errf(err, errlen, "cell %ld is degenerate or inverted (det J = %g)", c + 1, t->det[bad]);
		return -1;
	}
	for (int i = 0; i < q->n; i++)
		t->wdet[i] = q->w[i] * t->det[i];
	return 0;
}

int fe_tab_facet(struct fe_tab *t, const struct fe_space *s, long c, int f,
                 const struct fe_quad *q, char *err, size_t errlen)
{
	int d = s->mesh->dim, bad;
	double T[6], JT[6];

	bad = tab_fill(t, s, c, q, t->J, t->det);
	if (bad >= 0) {
		mesh_errf(err, errlen, "cell %ld is degenerate or inverted (det J = %g)", c + 1, t->det[bad]);
		return -1;
	}
	fe_ref_facet_tangents(s->mesh->type, f, T);
	for (int i = 0; i < q->n; i++) {
		const double *J = t->J + (size_t)i * 9;
		double *nv = t->normal + (size_t)i * d, meas;
		for (int k = 0; k < d; k++)
			for (int j = 0; j < d - 1; j++) {
				JT[k * (d - 1) + j] = 0;
				for (int l = 0; l < d; l++)
					JT[k * (d - 1) + j] += J[k * d + l] * T[l * (d - 1) + j];
			}
		switch (d) {
		case 1:
			meas = 1;
			nv[0] = f == 0 ? -1 : 1;
			break;
		case 2:
			/* The edge's tangent t; outward normal (t_y, −t_x). */
			meas = hypot(JT[0], JT[1]);
			nv[0] = JT[1] / meas;
			nv[1] = -JT[0] / meas;
			break;
		default:
			nv[0] = JT[2] * JT[5] - JT[4] * JT[3];
			nv[1] = JT[4] * JT[1] - JT[0] * JT[5];
			nv[2] = JT[0] * JT[3] - JT[2] * JT[1];
			meas = sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
			for (int k = 0; k < 3; k++)
				nv[k] /= meas;
		}
		t->wdet[i] = q->w[i] * meas;
	}
	return 0;
}

void fe_space_eval(const struct fe_space *s, long c, const double *xi,
                   const double *u, double *out)
{
	double phi[MAXB], J[9];

	fe_ref_eval(s->family, s->mesh->type, xi, phi, NULL, NULL);
	if (s->family == FE_HERMITE3) {
		mesh_cell_map(s->mesh, c, xi, NULL, J);
		phi[1] *= J[0];
		phi[3] *= J[0];
	}
	for (int k = 0; k < s->ncomp; k++) {
		double v = 0;
		for (int a = 0; a < s->nloc; a++)
			v += phi[a] * u[fe_space_cell_dof(s, c, a * s->ncomp + k)];
		out[k] = v;
	}
}
