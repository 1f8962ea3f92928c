/* mesh.c — meshes of continuum bodies (mesh.h): the shapes of the cell
 * types, the generators interval, rectangle and cuboid, measures, the
 * geometric map of a cell and point location.  The Gmsh reader is in
 * mesh_gmsh.c. */
#include "mesh.h"
#include "mesh_impl.h"
#include "mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Cell shapes (the tables of mesh.h's header comment) ---- */

static const int facets_interval[2][1] = { { 0 }, { 1 } };
static const int facets_triangle[3][2] = { { 1, 2 }, { 2, 0 }, { 0, 1 } };
static const int facets_quad[4][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 } };
static const int facets_tet[4][3] = {
	{ 1, 2, 3 }, { 0, 3, 2 }, { 0, 1, 3 }, { 0, 2, 1 }
};
static const int facets_hex[6][4] = {
	{ 0, 3, 2, 1 }, { 4, 5, 6, 7 }, { 0, 1, 5, 4 },
	{ 1, 2, 6, 5 }, { 2, 3, 7, 6 }, { 0, 4, 7, 3 }
};

static const double ref_interval[] = { 0, 1 };
static const double ref_triangle[] = { 0, 0, 1, 0, 0, 1 };
static const double ref_quad[] = { 0, 0, 1, 0, 1, 1, 0, 1 };
static const double ref_tet[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
static const double ref_hex[] = {
	0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
	0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1
};

int mesh_cell_dim(enum mesh_cell_type t)
{
	static const int d[] = { 1, 2, 2, 3, 3 };
	return d[t];
}

int mesh_cell_nv(enum mesh_cell_type t)
{
	static const int n[] = { 2, 3, 4, 4, 8 };
	return n[t];
}

int mesh_cell_nfacets(enum mesh_cell_type t)
{
	static const int n[] = { 2, 3, 4, 4, 6 };
	return n[t];
}

int mesh_cell_facet_nv(enum mesh_cell_type t)
{
	static const int n[] = { 1, 2, 2, 3, 4 };
	return n[t];
}

const int *mesh_cell_facet(enum mesh_cell_type t, int f)
{
	switch (t) {
	case MESH_INTERVAL: return facets_interval[f];
	case MESH_TRIANGLE: return facets_triangle[f];
	case MESH_QUADRILATERAL: return facets_quad[f];
	case MESH_TETRAHEDRON: return facets_tet[f];
	case MESH_HEXAHEDRON: return facets_hex[f];
	}
	return NULL;
}

const double *mesh_cell_ref_vertex(enum mesh_cell_type t)
{
	static const double *const r[] = {
		ref_interval, ref_triangle, ref_quad, ref_tet, ref_hex
	};
	return r[t];
}

const char *mesh_cell_name(enum mesh_cell_type t)
{
	static const char *const n[] = {
		"interval", "triangle", "quadrilateral", "tetrahedron", "hexahedron"
	};
	return n[t];
}

void mesh_cell_basis(enum mesh_cell_type t, const double *xi, double *phi, double *dphi)
{
	double a, b, c;
	int nv = mesh_cell_nv(t), d = mesh_cell_dim(t);
	const double *v = mesh_cell_ref_vertex(t);

	switch (t) {
	case MESH_INTERVAL:
	case MESH_TRIANGLE:
	case MESH_TETRAHEDRON:
		/* Barycentric coordinates: λ0 = 1 − Σ ξ_l, λ_i = ξ_{i−1}. */
		if (phi) {
			double s = 1;
			for (int l = 0; l < d; l++) {
				phi[l + 1] = xi[l];
				s -= xi[l];
			}
			phi[0] = s;
		}
		if (dphi)
			for (int i = 0; i < nv; i++)
				for (int l = 0; l < d; l++)
					dphi[i * d + l] = i == 0 ? -1 : (i == l + 1);
		return;
	case MESH_QUADRILATERAL:
	case MESH_HEXAHEDRON:
		/* Tensor products of 1 − ξ and ξ, picked by the vertex's
		 * reference coordinates. */
		for (int i = 0; i < nv; i++) {
			double f[3] = { 1, 1, 1 }, g[3] = { 0, 0, 0 };
			for (int l = 0; l < d; l++) {
				f[l] = v[i * d + l] ? xi[l] : 1 - xi[l];
				g[l] = v[i * d + l] ? 1 : -1;
			}
			a = f[0];
			b = f[1];
			c = d == 3 ? f[2] : 1;
			if (phi)
				phi[i] = a * b * c;
			if (dphi) {
				dphi[i * d] = g[0] * b * c;
				dphi[i * d + 1] = a * g[1] * c;
				if (d == 3)
					dphi[i * d + 2] = a * b * g[2];
			}
		}
		return;
	}
}

/* ---- Construction ---- */

void mesh_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct mesh *mesh_new(enum mesh_cell_type t, long nnodes, long ncells, char *err, size_t errlen)
{
	struct mesh *m = mem_calloc(1, sizeof *m);

	if (!m)
		goto oom;
	m->type = t;
	m->dim = mesh_cell_dim(t);
	m->nv = mesh_cell_nv(t);
	m->nnodes = nnodes;
	m->ncells = ncells;
	m->x = mem_alloc((size_t)(nnodes ? nnodes : 1) * m->dim * sizeof *m->x);
	m->cells = mem_alloc((size_t)(ncells ? ncells : 1) * m->nv * sizeof *m->cells);
	if (!m->x || !m->cells)
		goto oom;
	return m;
oom:
	mesh_free(m);
	mesh_errf(err, errlen, "out of memory for a mesh of %ld nodes and %ld cells",
	          nnodes, ncells);
	return NULL;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* Sort and deduplicate v[0..n), returning the new length. */
long mesh_sort_unique(long *v, long n)
{
	long k = 0;

	qsort(v, (size_t)n, sizeof *v, cmp_long);
	for (long i = 0; i < n; i++)
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

struct mesh_region *mesh_add_region(struct mesh *m, const char *name,
                                    enum mesh_region_kind kind, int tag)
{
	struct mesh_region *r = mem_realloc(m->regions, (size_t)(m->nregions + 1) * sizeof *r);
	size_t len = strlen(name);

	if (!r)
		return NULL;
	m->regions = r;
	r += m->nregions;
	memset(r, 0, sizeof *r);
	r->name = mem_alloc(len + 1);
	if (!r->name)
		return NULL;
	memcpy(r->name, name, len + 1);
	r->kind = kind;
	r->tag = tag;
	r->fnv = kind == MESH_REGION_FACETS ? mesh_cell_facet_nv(m->type) : 0;
	m->nregions++;
	return r;
}

int mesh_region_finish(const struct mesh *m, struct mesh_region *r)
{
	long cnt = 0;

	switch (r->kind) {
	case MESH_REGION_CELLS:
		r->n = mesh_sort_unique(r->cell, r->n);
		r->nodes = mem_alloc((size_t)(r->n ? r->n : 1) * m->nv * sizeof *r->nodes);
		if (!r->nodes)
			return -1;
		for (long i = 0; i < r->n; i++)
			for (int k = 0; k < m->nv; k++)
				r->nodes[cnt++] = m->cells[r->cell[i] * m->nv + k];
		break;
	case MESH_REGION_FACETS:
		r->fnodes = mem_alloc((size_t)(r->n ? r->n : 1) * r->fnv * sizeof *r->fnodes);
		r->nodes = mem_alloc((size_t)(r->n ? r->n : 1) * r->fnv * sizeof *r->nodes);
		if (!r->fnodes || !r->nodes)
			return -1;
		for (long i = 0; i < r->n; i++) {
			const int *fv = mesh_cell_facet(m->type, r->facet[i]);
			for (int k = 0; k < r->fnv; k++)
				r->fnodes[i * r->fnv + k] = r->nodes[cnt++] =
					m->cells[r->cell[i] * m->nv + fv[k]];
		}
		break;
	case MESH_REGION_NODES:
		return (r->nnodes = mesh_sort_unique(r->nodes, r->nnodes)), 0;
	}
	r->nnodes = mesh_sort_unique(r->nodes, cnt);
	return 0;
}

/* Make positive the orientation of every cell: a cell whose Jacobian
 * determinant at its centroid is negative is listed in the mirrored order
 * (1 ↔ 2 on simplices, the faces reversed on quadrilaterals and
 * hexahedra).  Returns the first degenerate cell (det 0), or -1. */
long mesh_orient(struct mesh *m)
{
	static const double centre[3] = { 0.25, 0.25, 0.25 };
	static const double mid[3] = { 0.5, 0.5, 0.5 };
	int32_t *c;

	for (long i = 0; i < m->ncells; i++) {
		double x[3];
		int simplex = m->type != MESH_QUADRILATERAL && m->type != MESH_HEXAHEDRON;
		double det = mesh_cell_map(m, i, simplex ? centre : mid, x, NULL);
		long t;

		if (det == 0 || !isfinite(det))
			return i;
		if (det > 0)
			continue;
		c = m->cells + i * m->nv;
		switch (m->type) {
		case MESH_INTERVAL:
			t = c[0]; c[0] = c[1]; c[1] = t;
			break;
		case MESH_TRIANGLE:
		case MESH_TETRAHEDRON:
			t = c[1]; c[1] = c[2]; c[2] = t;
			break;
		case MESH_QUADRILATERAL:
			t = c[1]; c[1] = c[3]; c[3] = t;
			break;
		case MESH_HEXAHEDRON:
			t = c[1]; c[1] = c[3]; c[3] = t;
			t = c[5]; c[5] = c[7]; c[7] = t;
			break;
		}
	}
	return -1;
}

/* The FACETS regions of the sides of a box: names[2k] at coordinate k =
 * lo[k], names[2k + 1] at hi[k] (the generators place the boundary nodes
 * at exactly the bounds).  Each node gets a bit per side it lies on; a
 * facet lies on the sides whose bits all its vertices share — one pass
 * over the facets for all the sides. */
static int box_regions(struct mesh *m, const char *const *names, const double *lo,
                       const double *hi)
{
	int nf = mesh_cell_nfacets(m->type), fnv = mesh_cell_facet_nv(m->type), d = m->dim;
	unsigned char *bits = mem_alloc((size_t)m->nnodes);
	long count[6] = { 0, 0, 0, 0, 0, 0 };
	struct mesh_region *r[6];
	int rc = -1;

	if (!bits)
		return -1;
	for (long i = 0; i < m->nnodes; i++) {
		bits[i] = 0;
		for (int k = 0; k < d; k++) {
			double x = m->x[i * d + k];
			bits[i] |= (unsigned char)((x == lo[k]) << (2 * k) | (x == hi[k]) << (2 * k + 1));
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		for (long c = 0; c < m->ncells; c++)
			for (int f = 0; f < nf; f++) {
				const int *fv = mesh_cell_facet(m->type, f);
				unsigned on = 0xff;
				for (int k = 0; k < fnv; k++)
					on &= bits[m->cells[c * m->nv + fv[k]]];
				for (int side = 0; on && side < 2 * d; side++) {
					if (!(on & (1u << side)))
						continue;
					if (pass) {
						r[side]->cell[r[side]->n] = c;
						r[side]->facet[r[side]->n++] = f;
					} else {
						count[side]++;
					}
				}
			}
		if (pass)
			break;
		for (int side = 0; side < 2 * d; side++) {
			r[side] = mesh_add_region(m, names[side], MESH_REGION_FACETS, 0);
			if (!r[side])
				goto out;
			r[side]->cell = mem_alloc((size_t)(count[side] ? count[side] : 1) * sizeof *r[side]->cell);
			r[side]->facet = mem_alloc((size_t)(count[side] ? count[side] : 1) * sizeof *r[side]->facet);
			if (!r[side]->cell || !r[side]->facet)
				goto out;
		}
		/* mesh_add_region may move the array: take the pointers again. */
		for (int side = 0; side < 2 * d; side++)
			r[side] = &m->regions[m->nregions - 2 * d + side];
	}
	for (int side = 0; side < 2 * d; side++)
		if (mesh_region_finish(m, r[side]))
			goto out;
	rc = 0;
out:
	free(bits);
	return rc;
}

/* the largest coordinate of a generated mesh (check_bounds) */
#define MESH_MAX_COORD 1e100

static int check_bounds(const char *what, const char *lo_name, double lo,
                        const char *hi_name, double hi, char *err, size_t errlen)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		mesh_errf(err, errlen, "%s: the bounds %s and %s must be finite", what, lo_name, hi_name);
		return -1;
	}
	if (!(lo < hi)) {
		mesh_errf(err, errlen, "%s: %s = %g must be less than %s = %g",
		          what, lo_name, lo, hi_name, hi);
		return -1;
	}
	/* beyond, the nodes' coordinates (hi − lo)·i/n and the cells' maps
	 * (a determinant is a product of dim lengths) overflow: interval(0,
	 * 1e308) had infinite nodes */
	if (fabs(lo) > MESH_MAX_COORD || fabs(hi) > MESH_MAX_COORD) {
		mesh_errf(err, errlen, "%s: the bounds %s = %g and %s = %g must lie within +-%g (state the lengths in "
		          "other units)", what, lo_name, lo, hi_name, hi, MESH_MAX_COORD);
		return -1;
	}
	return 0;
}

/* the shortest edge of a generated mesh's cells (check_cells) */
#define MESH_MIN_CELL 1e-100

/* Cells of (hi − lo)/n along one axis: below MESH_MIN_CELL a cell's
 * map (a product of up to three such lengths) and the gradients
 * (their inverses) leave the normal doubles: interval(0, 1e-320) had
 * nodes 0 apart and its end "outside the mesh" */
static int check_cells(const char *what, const char *lo_name, double lo, const char *hi_name, double hi,
                       const char *n_name, long n, char *err, size_t errlen)
{
	double h = (hi - lo) / (double)n;
	if (!(h >= MESH_MIN_CELL)) {
		mesh_errf(err, errlen, "%s: the cells' length (%s - %s)/%s = %g is below %g (state the lengths in "
		          "other units)", what, hi_name, lo_name, n_name, h, MESH_MIN_CELL);
		return -1;
	}
	return 0;
}

static int check_counts(const char *what, const char *const *names, const long *n,
                        int k, char *err, size_t errlen)
{
	double nodes = 1;

	for (int i = 0; i < k; i++) {
		if (n[i] < 1) {
			mesh_errf(err, errlen, "%s: %s must be at least 1 (it is %ld)", what, names[i], n[i]);
			return -1;
		}
		nodes *= (double)n[i] + 1;
	}
	if (nodes > MESH_MAX_NODES) {
		mesh_errf(err, errlen, "%s: %.0f nodes is more than the %d a mesh may have",
		          what, nodes, MESH_MAX_NODES);
		return -1;
	}
	return 0;
}

/* Coordinate i of n + 1 equally spaced ones from lo to hi, the last
 * exactly hi (the boundary regions compare coordinates exactly). */
static double coord(double lo, double hi, long i, long n)
{
	return i == n ? hi : lo + (hi - lo) * (double)i / (double)n;
}

static struct mesh *fail_oom(struct mesh *m, const char *what, char *err, size_t errlen)
{
	mesh_free(m);
	mesh_errf(err, errlen, "%s: out of memory", what);
	return NULL;
}

struct mesh *mesh_interval(double a, double b, long n, char *err, size_t errlen)
{
	static const char *const names[] = { "cells" };
	struct mesh *m;

	if (check_bounds("interval", "a", a, "b", b, err, errlen) ||
	    check_counts("interval", names, &n, 1, err, errlen) ||
	    check_cells("interval", "a", a, "b", b, names[0], n, err, errlen))
		return NULL;
	m = mesh_new(MESH_INTERVAL, n + 1, n, err, errlen);
	if (!m)
		return NULL;
	for (long i = 0; i <= n; i++)
		m->x[i] = coord(a, b, i, n);
	for (long i = 0; i < n; i++) {
		m->cells[2 * i] = i;
		m->cells[2 * i + 1] = i + 1;
	}
	{
		static const char *const sides[] = { "left", "right" };
		if (box_regions(m, sides, &a, &b))
			return fail_oom(m, "interval", err, errlen);
	}
	return m;
}

struct mesh *mesh_rectangle(double x0, double x1, double y0, double y1,
                            long nx, long ny, enum mesh_cell_type type,
                            char *err, size_t errlen)
{
	static const char *const names[] = { "nx", "ny" };
	long n[2] = { nx, ny };
	struct mesh *m;
	int32_t *c;

	if (type != MESH_TRIANGLE && type != MESH_QUADRILATERAL) {
		mesh_errf(err, errlen, "rectangle: cells must be triangles or quadrilaterals");
		return NULL;
	}
	if (check_bounds("rectangle", "x0", x0, "x1", x1, err, errlen) ||
	    check_bounds("rectangle", "y0", y0, "y1", y1, err, errlen) ||
	    check_counts("rectangle", names, n, 2, err, errlen) ||
	    check_cells("rectangle", "x0", x0, "x1", x1, names[0], n[0], err, errlen) ||
	    check_cells("rectangle", "y0", y0, "y1", y1, names[1], n[1], err, errlen))
		return NULL;
	m = mesh_new(type, (nx + 1) * (ny + 1),
	             nx * ny * (type == MESH_TRIANGLE ? 2 : 1), err, errlen);
	if (!m)
		return NULL;
	for (long j = 0; j <= ny; j++)
		for (long i = 0; i <= nx; i++) {
			m->x[2 * (j * (nx + 1) + i)] = coord(x0, x1, i, nx);
			m->x[2 * (j * (nx + 1) + i) + 1] = coord(y0, y1, j, ny);
		}
	c = m->cells;
	for (long j = 0; j < ny; j++)
		for (long i = 0; i < nx; i++) {
			long p00 = j * (nx + 1) + i, p10 = p00 + 1;
			long p01 = p00 + nx + 1, p11 = p01 + 1;
			if (type == MESH_QUADRILATERAL) {
				*c++ = p00; *c++ = p10; *c++ = p11; *c++ = p01;
			} else {
				*c++ = p00; *c++ = p10; *c++ = p11;
				*c++ = p00; *c++ = p11; *c++ = p01;
			}
		}
	{
		static const char *const sides[] = { "left", "right", "bottom", "top" };
		double lo[2] = { x0, y0 }, hi[2] = { x1, y1 };
		if (box_regions(m, sides, lo, hi))
			return fail_oom(m, "rectangle", err, errlen);
	}
	return m;
}

struct mesh *mesh_cuboid(double x0, double x1, double y0, double y1,
                         double z0, double z1, long nx, long ny, long nz,
                         enum mesh_cell_type type, char *err, size_t errlen)
{
	static const char *const names[] = { "nx", "ny", "nz" };
	/* The six permutations of the axes: Kuhn's tetrahedra go from
	 * corner (0,0,0) to (1,1,1) stepping along p[0], p[1], p[2]. */
	static const int perm[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }
	};
	long n[3] = { nx, ny, nz };
	struct mesh *m;
	int32_t *c;

	if (type != MESH_TETRAHEDRON && type != MESH_HEXAHEDRON) {
		mesh_errf(err, errlen, "cuboid: cells must be tetrahedra or hexahedra");
		return NULL;
	}
	if (check_bounds("cuboid", "x0", x0, "x1", x1, err, errlen) ||
	    check_bounds("cuboid", "y0", y0, "y1", y1, err, errlen) ||
	    check_bounds("cuboid", "z0", z0, "z1", z1, err, errlen) ||
	    check_counts("cuboid", names, n, 3, err, errlen) ||
	    check_cells("cuboid", "x0", x0, "x1", x1, names[0], n[0], err, errlen) ||
	    check_cells("cuboid", "y0", y0, "y1", y1, names[1], n[1], err, errlen) ||
	    check_cells("cuboid", "z0", z0, "z1", z1, names[2], n[2], err, errlen))
		return NULL;
	m = mesh_new(type, (nx + 1) * (ny + 1) * (nz + 1),
	             nx * ny * nz * (type == MESH_TETRAHEDRON ? 6 : 1), err, errlen);
	if (!m)
		return NULL;
	for (long k = 0; k <= nz; k++)
		for (long j = 0; j <= ny; j++)
			for (long i = 0; i <= nx; i++) {
				double *p = m->x + 3 * ((k * (ny + 1) + j) * (nx + 1) + i);
				p[0] = coord(x0, x1, i, nx);
				p[1] = coord(y0, y1, j, ny);
				p[2] = coord(z0, z1, k, nz);
			}
	c = m->cells;
	for (long k = 0; k < nz; k++)
		for (long j = 0; j < ny; j++)
			for (long i = 0; i < nx; i++) {
				long s[3] = { 1, nx + 1, (nx + 1) * (ny + 1) };
				long p = (k * (ny + 1) + j) * (nx + 1) + i;
				if (type == MESH_HEXAHEDRON) {
					*c++ = p; *c++ = p + s[0]; *c++ = p + s[0] + s[1]; *c++ = p + s[1];
					p += s[2];
					*c++ = p; *c++ = p + s[0]; *c++ = p + s[0] + s[1]; *c++ = p + s[1];
					continue;
				}
				for (int t = 0; t < 6; t++) {
					long q = p;
					*c++ = q;
					for (int l = 0; l < 3; l++)
						*c++ = q += s[perm[t][l]];
				}
			}
	if (mesh_orient(m) >= 0) {
		mesh_free(m);
		mesh_errf(err, errlen, "cuboid: a degenerate cell (the bounds are too close)");
		return NULL;
	}
	{
		static const char *const sides[] = { "left", "right", "front", "back", "bottom", "top" };
		double lo[3] = { x0, y0, z0 }, hi[3] = { x1, y1, z1 };
		if (box_regions(m, sides, lo, hi))
			return fail_oom(m, "cuboid", err, errlen);
	}
	return m;
}

struct mesh_locator {
	int nb[3];           /* buckets per axis */
	double lo[3], h[3];  /* the box's low corner, bucket widths */
	long *start;         /* nbuckets + 1 offsets into cell */
	long *cell;
};

void mesh_locator_drop(struct mesh *m)
{
	if (!m)
		return;
	m->scans = 0;
	if (!m->loc)
		return;
	free(m->loc->start);
	free(m->loc->cell);
	free(m->loc);
	m->loc = NULL;
}

void mesh_free(struct mesh *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nregions; i++) {
		struct mesh_region *r = &m->regions[i];
		free(r->name);
		free(r->cell);
		free(r->facet);
		free(r->fnodes);
		free(r->nodes);
	}
	free(m->regions);
	mesh_locator_drop(m);
	free(m->x);
	free(m->cells);
	free(m);
}

const struct mesh_region *mesh_region(const struct mesh *m, const char *name)
{
	for (int i = 0; i < m->nregions; i++)
		if (strcmp(m->regions[i].name, name) == 0)
			return &m->regions[i];
	return NULL;
}

/* ---- Geometry ---- */

double mesh_cell_map(const struct mesh *m, long c, const double *xi,
                     double *x, double *J)
{
	double phi[8], dphi[24], Jl[9];
	int d = m->dim;
	const int32_t *v = m->cells + c * m->nv;

	if (!J)
		J = Jl;
	mesh_cell_basis(m->type, xi, phi, dphi);
	for (int k = 0; k < d; k++) {
		if (x)
			x[k] = 0;
		for (int l = 0; l < d; l++)
			J[k * d + l] = 0;
	}
	for (int i = 0; i < m->nv; i++) {
		const double *p = m->x + v[i] * d;
		for (int k = 0; k < d; k++) {
			if (x)
				x[k] += phi[i] * p[k];
			for (int l = 0; l < d; l++)
				J[k * d + l] += p[k] * dphi[i * d + l];
		}
	}
	return mesh_det(d, J);
}

double mesh_det(int d, const double *J)
{
	switch (d) {
	case 1: return J[0];
	case 2: return J[0] * J[3] - J[1] * J[2];
	default:
		return J[0] * (J[4] * J[8] - J[5] * J[7])
		     - J[1] * (J[3] * J[8] - J[5] * J[6])
		     + J[2] * (J[3] * J[7] - J[4] * J[6]);
	}
}

void mesh_inv(int d, const double *J, double det, double *K)
{
	switch (d) {
	case 1:
		K[0] = 1 / det;
		return;
	case 2:
		K[0] = J[3] / det; K[1] = -J[1] / det;
		K[2] = -J[2] / det; K[3] = J[0] / det;
		return;
	default:
		K[0] = (J[4] * J[8] - J[5] * J[7]) / det;
		K[1] = (J[2] * J[7] - J[1] * J[8]) / det;
		K[2] = (J[1] * J[5] - J[2] * J[4]) / det;
		K[3] = (J[5] * J[6] - J[3] * J[8]) / det;
		K[4] = (J[0] * J[8] - J[2] * J[6]) / det;
		K[5] = (J[2] * J[3] - J[0] * J[5]) / det;
		K[6] = (J[3] * J[7] - J[4] * J[6]) / det;
		K[7] = (J[1] * J[6] - J[0] * J[7]) / det;
		K[8] = (J[0] * J[4] - J[1] * J[3]) / det;
	}
}

double mesh_cell_measure(const struct mesh *m, long c)
{
	/* Simplices: det J / d! at any point.  The quadrilateral's det J is
	 * affine in ξ (the centroid is exact); the hexahedron's is of degree
	 * 2 in each variable, integrated exactly by the 2 × 2 × 2 Gauss rule. */
	static const double g[2] = { 0.21132486540518711775, 0.78867513459481288225 };
	double xi[3], s = 0;

	switch (m->type) {
	case MESH_INTERVAL:
	case MESH_TRIANGLE:
	case MESH_TETRAHEDRON:
		xi[0] = xi[1] = xi[2] = 0.25;
		return mesh_cell_map(m, c, xi, NULL, NULL) / (m->dim == 3 ? 6 : m->dim);
	case MESH_QUADRILATERAL:
		xi[0] = xi[1] = 0.5;
		return mesh_cell_map(m, c, xi, NULL, NULL);
	case MESH_HEXAHEDRON:
		for (int i = 0; i < 8; i++) {
			xi[0] = g[i & 1];
			xi[1] = g[(i >> 1) & 1];
			xi[2] = g[(i >> 2) & 1];
			s += mesh_cell_map(m, c, xi, NULL, NULL);
		}
		return s / 8;
	}
	return 0;
}

double mesh_measure(const struct mesh *m)
{
	double s = 0;

	for (long c = 0; c < m->ncells; c++)
		s += mesh_cell_measure(m, c);
	return s;
}

static void sub3(const double *a, const double *b, double *r)
{
	for (int k = 0; k < 3; k++)
		r[k] = a[k] - b[k];
}

static double cross_norm(const double *a, const double *b)
{
	double c0 = a[1] * b[2] - a[2] * b[1];
	double c1 = a[2] * b[0] - a[0] * b[2];
	double c2 = a[0] * b[1] - a[1] * b[0];
	return sqrt(c0 * c0 + c1 * c1 + c2 * c2);
}

double mesh_facet_measure(const struct mesh *m, const struct mesh_region *r, long i)
{
	/* A square facet x(s,t) is bilinear; |x_s × x_t| is integrated by the
	 * 2 × 2 Gauss rule, exact for a planar parallelogram (and for any
	 * planar quadrilateral, where the norm is affine in s and t). */
	static const double g[2] = { 0.21132486540518711775, 0.78867513459481288225 };
	const long *v = r->fnodes + i * r->fnv;
	const double *p[4];
	double a[3], b[3], s = 0;

	for (int k = 0; k < r->fnv; k++)
		p[k] = m->x + v[k] * m->dim;
	switch (r->fnv) {
	case 1:
		return 1;
	case 2:
		return m->dim == 2 ? hypot(p[1][0] - p[0][0], p[1][1] - p[0][1]) : 0;
	case 3:
		sub3(p[1], p[0], a);
		sub3(p[2], p[0], b);
		return 0.5 * cross_norm(a, b);
	default:
		for (int q = 0; q < 4; q++) {
			double s0 = g[q & 1], t0 = g[q >> 1];
			for (int k = 0; k < 3; k++) {
				a[k] = (1 - t0) * (p[1][k] - p[0][k]) + t0 * (p[2][k] - p[3][k]);
				b[k] = (1 - s0) * (p[3][k] - p[0][k]) + s0 * (p[2][k] - p[1][k]);
			}
			s += cross_norm(a, b);
		}
		return s / 4;
	}
}

/* ---- Point location ---- */

/* Reference coordinates of p in cell c (Newton's method, exact in one
 * step on simplices whose map is affine); whether p lies in the cell
 * within tol in reference coordinates. */
static int in_cell(const struct mesh *m, long c, const double *p, double *xi, double tol)
{
	int d = m->dim, simplex = m->type != MESH_QUADRILATERAL && m->type != MESH_HEXAHEDRON;
	double x[3], J[9], K[9], det, s = 0;

	for (int l = 0; l < d; l++)
		xi[l] = simplex ? 1.0 / (d + 1) : 0.5;
	for (int it = 0; it < (simplex ? 1 : 30); it++) {
		double dx[3], step = 0;
		det = mesh_cell_map(m, c, xi, x, J);
		if (det == 0 || !isfinite(det))
			return 0;
		mesh_inv(d, J, det, K);
		for (int k = 0; k < d; k++)
			dx[k] = p[k] - x[k];
		for (int l = 0; l < d; l++) {
			double u = 0;
			for (int k = 0; k < d; k++)
				u += K[l * d + k] * dx[k];
			xi[l] += u;
			step += fabs(u);
		}
		if (step < 1e-14)
			break;
		if (step > 1e3)
			return 0;  /* p is far outside: Newton is leaving */
	}
	for (int l = 0; l < d; l++) {
		if (xi[l] < -tol || (!simplex && xi[l] > 1 + tol))
			return 0;
		s += xi[l];
	}
	return !simplex || s <= 1 + tol;
}

static long bucket_of(const struct mesh_locator *L, int d, const double *p, int clamp)
{
	long b = 0;

	for (int k = d - 1; k >= 0; k--) {
		double f = (p[k] - L->lo[k]) / L->h[k];
		long i = (long)floor(f);
		if (i < 0 || i >= L->nb[k]) {
			if (!clamp && (f < -1e-9 || f > L->nb[k] + 1e-9))
				return -1;
			i = i < 0 ? 0 : L->nb[k] - 1;
		}
		b = b * L->nb[k] + i;
	}
	return b;
}

static int build_locator(struct mesh *m)
{
	struct mesh_locator *L = mem_calloc(1, sizeof *L);
	int d = m->dim;
	double hi[3], vol = 1, h;
	long nb = 1;

	if (!L)
		return -1;
	for (int k = 0; k < d; k++) {
		L->lo[k] = HUGE_VAL;
		hi[k] = -HUGE_VAL;
	}
	for (long i = 0; i < m->nnodes; i++)
		for (int k = 0; k < d; k++) {
			L->lo[k] = fmin(L->lo[k], m->x[i * d + k]);
			hi[k] = fmax(hi[k], m->x[i * d + k]);
		}
	for (int k = 0; k < d; k++)
		vol *= fmax(hi[k] - L->lo[k], 1e-300);
	/* About four cells per bucket: a bucket of side (4 |box| /
	 * ncells)^(1/d) (smaller buckets are entered by more cells each, each
	 * cell's bounding box covering several), at most 2·10^7 in all. */
	h = pow(4 * vol / (double)(m->ncells ? m->ncells : 1), 1.0 / d);
	for (int k = 0; k < d; k++) {
		double w = hi[k] - L->lo[k];
		double n = w > 0 && h > 0 ? ceil(w / h) : 1;
		L->nb[k] = (int)fmin(fmax(n, 1), 1 << 20);
		L->h[k] = w > 0 ? w / L->nb[k] : 1;
		nb *= L->nb[k];
	}
	while (nb > 20000000) {
		nb = 1;
		for (int k = 0; k < d; k++) {
			L->nb[k] = (L->nb[k] + 1) / 2;
			L->h[k] = hi[k] > L->lo[k] ? (hi[k] - L->lo[k]) / L->nb[k] : 1;
			nb *= L->nb[k];
		}
	}
	L->start = mem_calloc((size_t)nb + 1, sizeof *L->start);
	if (!L->start)
		goto oom;
	/* Two passes over the cells' bounding boxes: count, then fill. */
	for (int pass = 0; pass < 2; pass++) {
		for (long c = 0; c < m->ncells; c++) {
			int lo[3] = { 0, 0, 0 }, up[3] = { 0, 0, 0 };
			for (int k = 0; k < d; k++) {
				double a = HUGE_VAL, b = -HUGE_VAL;
				for (int v = 0; v < m->nv; v++) {
					double x = m->x[m->cells[c * m->nv + v] * d + k];
					a = fmin(a, x);
					b = fmax(b, x);
				}
				lo[k] = (int)fmax(floor((a - L->lo[k]) / L->h[k] - 1e-9), 0);
				up[k] = (int)fmin(floor((b - L->lo[k]) / L->h[k] + 1e-9), L->nb[k] - 1);
			}
			for (int k2 = lo[2]; k2 <= up[2]; k2++)
				for (int k1 = lo[1]; k1 <= up[1]; k1++)
					for (int k0 = lo[0]; k0 <= up[0]; k0++) {
						long b = ((long)k2 * L->nb[1] + k1) * L->nb[0] + k0;
						if (pass)
							L->cell[L->start[b + 1]++] = c;
						else
							L->start[b + 1]++;
					}
		}
		if (!pass) {
			for (long b = 0; b < nb; b++)
				L->start[b + 1] += L->start[b];
			L->cell = mem_alloc((size_t)(L->start[nb] ? L->start[nb] : 1) * sizeof *L->cell);
			if (!L->cell)
				goto oom;
			/* Refill from the starts: start[b + 1] runs from start[b]. */
			for (long b = nb; b > 0; b--)
				L->start[b] = L->start[b - 1];
			L->start[0] = 0;
		}
	}
	m->loc = L;
	return 0;
oom:
	free(L->start);
	free(L);
	return -1;
}

/* A few points are found by a scan: a bucket grid (build_locator) holds
 * several entries per cell, 75 bytes per tetrahedron, which a run's
 * point records would hold beside the model being lowered (dyn(1), MPI:
 * what every process holds). */
enum { LOCATE_SCANS = 8 };

/* The first cell of the mesh that holds p, or -1: cells whose bounding
 * box misses p by more than a part in 10^9 of its size are skipped
 * (in_cell's tolerance is 1e-10 in the reference cell), so the cell is
 * the grid's, whose buckets list their cells in the mesh's order. */
static long scan_cells(const struct mesh *m, const double *p, double *xi, double tol)
{
	int d = m->dim, nv = m->nv;
	for (long c = 0; c < m->ncells; c++) {
		const int32_t *v = m->cells + c * nv;
		int out = 0;
		for (int k = 0; k < d && !out; k++) {
			double a = HUGE_VAL, b = -HUGE_VAL;
			for (int q = 0; q < nv; q++) {
				double x = m->x[v[q] * d + k];
				a = fmin(a, x);
				b = fmax(b, x);
			}
			double slack = 1e-9 * (b - a);
			out = p[k] < a - slack || p[k] > b + slack;
		}
		if (!out && in_cell(m, c, p, xi, tol))
			return c;
	}
	return -1;
}

int mesh_locate(struct mesh *m, const double *p, long *cell, double *xi,
                char *err, size_t errlen)
{
	static const double tol = 1e-10;
	const struct mesh_locator *L;
	long b;

	for (int k = 0; k < m->dim; k++)
		if (!isfinite(p[k]))
			return 1;
	if (!m->loc && m->scans < LOCATE_SCANS) {
		m->scans++;
		*cell = scan_cells(m, p, xi, tol);
		return *cell < 0;
	}
	if (!m->loc && build_locator(m)) {
		mesh_errf(err, errlen, "out of memory locating a point in a mesh of %ld cells",
		          m->ncells);
		return -1;
	}
	L = m->loc;
	b = bucket_of(L, m->dim, p, 0);
	if (b < 0)
		return 1;
	for (long i = L->start[b]; i < L->start[b + 1]; i++)
		if (in_cell(m, L->cell[i], p, xi, tol)) {
			*cell = L->cell[i];
			return 0;
		}
	return 1;
}
