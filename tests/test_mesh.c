/* test_mesh.c — unit tests of runtime/mesh.c and runtime/fe_space.c: the
 * generators (measures of the domain and of its boundary regions, region
 * node counts, orientation, error messages), point location, the
 * numbering of P1, P2, Q1, Hermite and P0 spaces (dof counts, shared P2
 * edge nodes, region dofs by component and kind), and integrals through
 * the physical basis tables: a polynomial field the space reproduces is
 * integrated exactly, and the divergence theorem ∫_Ω ∂f/∂x_k = ∫_∂Ω f n_k
 * holds to round-off over the named boundary regions (which checks the
 * outward normals and that the regions cover the boundary).  Exit status
 * 0 when every check passes, 1 otherwise. */
#include "fe_space.h"
#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define CHECK_STR(a, b) do { \
	if (strcmp((a), (b)) != 0) { \
		fprintf(stderr, "%s:%d: \"%s\", expected \"%s\"\n", \
		        __FILE__, __LINE__, (a), (b)); \
		failures++; \
	} \
} while (0)

static char err[256];

/* The field f and its gradient: f(x) = x² + xy + y² − z²/2 + xz (quadratic:
 * P2 reproduces it) or xyz + x + 1 (multilinear: Q1 does) or x³ (Hermite). */
enum poly { QUADRATIC, MULTILINEAR, CUBIC };

static double poly(enum poly p, const double *x, int d, double *g)
{
	double a = x[0], b = d > 1 ? x[1] : 0, c = d > 2 ? x[2] : 0;
	switch (p) {
	case QUADRATIC:
		g[0] = 2 * a + b + c;
		if (d > 1) g[1] = a + 2 * b;
		if (d > 2) g[2] = -c + a;
		return a * a + a * b + b * b - c * c / 2 + a * c;
	case MULTILINEAR:
		g[0] = (d > 1 ? b : 1) * (d > 2 ? c : 1) + 1;
		if (d > 1) g[1] = a * (d > 2 ? c : 1);
		if (d > 2) g[2] = a * b;
		return a * (d > 1 ? b : 1) * (d > 2 ? c : 1) + a + 1;
	case CUBIC:
		g[0] = 3 * a * a;
		return a * a * a;
	}
	return 0;
}

/* u interpolating f at the nodes of s (Hermite: value, then slope). */
static double *interpolate(const struct fe_space *s, enum poly p)
{
	int d = s->mesh->dim;
	double *u = malloc((size_t)s->ndofs * sizeof *u), g[3];

	for (long n = 0; n < s->nnode; n++) {
		double v = poly(p, s->node_x + n * d, d, g);
		for (int k = 0; k < s->ncomp; k++)
			u[n * s->ncomp + k] = s->node_kind[n] == FE_NODE_DERIV ? g[0] : v * (k + 1);
	}
	return u;
}

/* ∫_Ω u and ∫_Ω ∂u/∂x_k (component 0) through the cell tables, and
 * ∫_∂Ω u n_k over the regions listed, through the facet tables; compared
 * with the exact ∫ f and with each other (divergence theorem).  Round-off
 * tolerance 1e-12: sums of ~10³ terms of size ≤ 10. */
static void check_integrals(const struct fe_space *s, enum poly p, int degree,
                            double exact_int, const double *exact_grad,
                            const char *const *regions, int nreg)
{
	const struct mesh *m = s->mesh;
	int d = m->dim;
	struct fe_quad q;
	struct fe_tab t;
	double *u = interpolate(s, p), in = 0, grad[3] = { 0, 0, 0 }, bnd[3] = { 0, 0, 0 };

	CHECK(fe_quad_cell(m->type, degree, &q, err, sizeof err) == 0);
	CHECK(fe_tab_alloc(&t, s, &q, 0, err, sizeof err) == 0);
	for (long c = 0; c < m->ncells; c++) {
		CHECK(fe_tab_cell(&t, s, c, &q, err, sizeof err) == 0);
		for (int i = 0; i < q.n; i++)
			for (int a = 0; a < s->nloc; a++) {
				double ua = u[fe_space_cell_dof(s, c, a * s->ncomp)];
				in += t.wdet[i] * t.phi[i * s->nloc + a] * ua;
				for (int k = 0; k < d; k++)
					grad[k] += t.wdet[i] * t.dphi[(i * s->nloc + a) * d + k] * ua;
			}
	}
	fe_tab_free(&t);
	fe_quad_free(&q);
	CHECK_NEAR(in, exact_int, 1e-12);
	for (int k = 0; k < d; k++)
		CHECK_NEAR(grad[k], exact_grad[k], 1e-12);
	for (int r = 0; r < nreg; r++) {
		const struct mesh_region *reg = mesh_region(m, regions[r]);
		CHECK(reg && reg->kind == MESH_REGION_FACETS);
		if (!reg)
			continue;
		for (long i = 0; i < reg->n; i++) {
			long c = reg->cell[i];
			CHECK(fe_quad_facet(m->type, reg->facet[i], degree, &q, err, sizeof err) == 0);
			CHECK(fe_tab_alloc(&t, s, &q, 0, err, sizeof err) == 0);
			CHECK(fe_tab_facet(&t, s, c, reg->facet[i], &q, err, sizeof err) == 0);
			for (int j = 0; j < q.n; j++)
				for (int a = 0; a < s->nloc; a++)
					for (int k = 0; k < d; k++)
						bnd[k] += t.wdet[j] * t.phi[j * s->nloc + a] *
						          u[fe_space_cell_dof(s, c, a * s->ncomp)] * t.normal[j * d + k];
			fe_tab_free(&t);
			fe_quad_free(&q);
		}
	}
	if (nreg)
		for (int k = 0; k < d; k++)
			CHECK_NEAR(bnd[k], exact_grad[k], 1e-12);
	free(u);
}

/* Every cell positively oriented, the cells' measures summing to the
 * domain's, each facet region's measure and node count. */
static void check_mesh(const struct mesh *m, double measure, const char *const *names,
                       const double *areas, const long *nodes, int nreg)
{
	double xi[3] = { 0.25, 0.25, 0.25 };

	for (long c = 0; c < m->ncells; c++)
		CHECK(mesh_cell_map(m, c, xi, NULL, NULL) > 0);
	CHECK_NEAR(mesh_measure(m), measure, 1e-12);
	CHECK(m->nregions == nreg);
	for (int r = 0; r < nreg; r++) {
		const struct mesh_region *reg = mesh_region(m, names[r]);
		double s = 0;
		CHECK(reg != NULL);
		if (!reg)
			continue;
		for (long i = 0; i < reg->n; i++)
			s += mesh_facet_measure(m, reg, i);
		CHECK_NEAR(s, areas[r], 1e-12);
		CHECK(reg->nnodes == nodes[r]);
	}
	CHECK(mesh_region(m, "nowhere") == NULL);
}

/* The first points of a mesh are found by a scan of its cells, the
 * later ones in its bucket grid (mesh_locate): the two give the same
 * cell and the same reference coordinates, bit for bit, at random
 * points, at the nodes (where several cells hold the point: the first
 * in the mesh's order) and halfway between two nodes. */
static void check_scan_is_grid(struct mesh *m, const double *lo, const double *hi)
{
	enum { NP = 60 };
	unsigned seed = 7;
	int d = m->dim;
	double pts[NP][3], xs[NP][3], xg[3];
	long cs[NP], cg;
	for (int i = 0; i < NP; i++) {
		for (int k = 0; k < d; k++) {
			seed = seed * 1103515245u + 12345u;
			pts[i][k] = lo[k] + (hi[k] - lo[k]) * ((double)(seed >> 8) / (1u << 24));
		}
		long node = (long)(seed >> 4) % m->nnodes, other = m->cells[((long)(seed >> 12) % m->ncells) * m->nv];
		for (int k = 0; k < d; k++)
			if (i % 3 == 1)
				pts[i][k] = m->x[node * d + k];
			else if (i % 3 == 2)
				pts[i][k] = 0.5 * (m->x[node * d + k] + m->x[other * d + k]);
	}
	for (int i = 0; i < NP; i++) {
		mesh_locator_drop(m);   /* the next call scans */
		cs[i] = -1;
		mesh_locate(m, pts[i], &cs[i], xs[i], err, sizeof err);
		CHECK(m->loc == NULL);
	}
	mesh_locator_drop(m);
	for (int q = 0; q < 20; q++)   /* past the scans: the grid */
		mesh_locate(m, pts[0], &cg, xg, err, sizeof err);
	CHECK(m->loc != NULL);
	for (int i = 0; i < NP; i++) {
		cg = -1;
		int rc = mesh_locate(m, pts[i], &cg, xg, err, sizeof err);
		CHECK(rc == (cs[i] < 0));
		if (rc == 0) {
			CHECK(cg == cs[i]);
			for (int k = 0; k < d; k++)
				CHECK(xg[k] == xs[i][k]);
		}
	}
	mesh_locator_drop(m);
	CHECK(m->loc == NULL && m->scans == 0);
}

/* Random points in the box [lo, hi] are found, and the cell's map sends
 * the reference coordinates found back to the point; a point outside is
 * not found. */
static void check_locate(struct mesh *m, const double *lo, const double *hi)
{
	unsigned seed = 99;
	int d = m->dim;
	double p[3], xi[3], x[3];
	long c;

	for (int trial = 0; trial < 200; trial++) {
		for (int k = 0; k < d; k++) {
			seed = seed * 1103515245u + 12345u;
			p[k] = lo[k] + (hi[k] - lo[k]) * ((double)(seed >> 8) / (1u << 24));
		}
		if (trial == 0)  /* a corner, on the boundary */
			for (int k = 0; k < d; k++)
				p[k] = hi[k];
		CHECK(mesh_locate(m, p, &c, xi, err, sizeof err) == 0);
		mesh_cell_map(m, c, xi, x, NULL);
		for (int k = 0; k < d; k++)
			CHECK_NEAR(x[k], p[k], 1e-12);
	}
	for (int k = 0; k < d; k++)
		p[k] = hi[k];
	p[0] = hi[0] + 1e-3 * (hi[0] - lo[0]);
	CHECK(mesh_locate(m, p, &c, xi, err, sizeof err) == 1);
	p[0] = NAN;
	CHECK(mesh_locate(m, p, &c, xi, err, sizeof err) == 1);
	check_scan_is_grid(m, lo, hi);
}

static void test_interval(void)
{
	static const char *const names[] = { "left", "right" };
	static const double areas[] = { 1, 1 };
	static const long nodes[] = { 1, 1 };
	double lo = 0, hi = 1, g[1], exact_grad;
	struct mesh *m = mesh_interval(0, 1, 10, err, sizeof err);
	struct fe_space *s;
	const struct mesh_region *r;
	long *dofs, n, c;
	double xi, v, p;

	CHECK(m && m->dim == 1 && m->nnodes == 11 && m->ncells == 10 && m->nv == 2);
	check_mesh(m, 1, names, areas, nodes, 2);
	r = mesh_region(m, "left");
	CHECK(r->n == 1 && r->cell[0] == 0 && r->facet[0] == 0 && r->nodes[0] == 0 && r->fnodes[0] == 0);
	r = mesh_region(m, "right");
	CHECK(r->n == 1 && r->cell[0] == 9 && r->facet[0] == 1 && r->nodes[0] == 10);
	CHECK(m->x[10] == 1);
	check_locate(m, &lo, &hi);

	/* P1: one dof per node; in 1-D the multilinear f is 2x + 1: ∫ = 2. */
	s = fe_space_make(m, FE_P1, 1, err, sizeof err);
	CHECK(s && s->ndofs == 11 && s->nloc == 2);
	exact_grad = 2;
	check_integrals(s, MULTILINEAR, 2, 2, &exact_grad, names, 2);
	fe_space_free(s);

	/* P2: 10 midpoints after the 11 vertices; x² exact: ∫ = 1/3, ∫ 2x = 1. */
	s = fe_space_make(m, FE_P2, 1, err, sizeof err);
	CHECK(s && s->nnode == 21 && s->nloc == 3);
	CHECK(s->cell_nodes[3 * 4 + 2] == 15);
	CHECK_NEAR(s->node_x[15], 0.45, 1e-15);
	exact_grad = 1;
	check_integrals(s, QUADRATIC, 4, 1.0 / 3, &exact_grad, names, 2);
	{
		double *u = interpolate(s, QUADRATIC);
		p = 0.537;
		CHECK(mesh_locate(m, &p, &c, &xi, err, sizeof err) == 0 && c == 5);
		fe_space_eval(s, c, &xi, u, &v);
		CHECK_NEAR(v, p * p, 1e-15);
		free(u);
	}
	fe_space_free(s);

	/* Hermite: value and slope per node; x³ is reproduced, and its second
	 * derivative 6x: ∫ (w'')² = ∫ 36 x² = 12 with a rule of degree 2. */
	s = fe_space_make(m, FE_HERMITE3, 1, err, sizeof err);
	CHECK(s && s->nnode == 22 && s->nloc == 4);
	CHECK(s->node_kind[0] == FE_NODE_VALUE && s->node_kind[1] == FE_NODE_DERIV);
	exact_grad = 1;
	check_integrals(s, CUBIC, 6, 0.25, &exact_grad, names, 2);
	{
		double *u = interpolate(s, CUBIC), e = 0;
		struct fe_quad q;
		struct fe_tab t;
		CHECK(fe_quad_cell(MESH_INTERVAL, 2, &q, err, sizeof err) == 0);
		CHECK(fe_tab_alloc(&t, s, &q, 1, err, sizeof err) == 0);
		for (c = 0; c < m->ncells; c++) {
			CHECK(fe_tab_cell(&t, s, c, &q, err, sizeof err) == 0);
			for (int i = 0; i < q.n; i++) {
				double w2 = 0;
				for (int a = 0; a < 4; a++)
					w2 += t.d2phi[i * 4 + a] * u[fe_space_cell_dof(s, c, a)];
				e += t.wdet[i] * w2 * w2;
			}
		}
		CHECK_NEAR(e, 12, 1e-12);
		p = 0.537;
		CHECK(mesh_locate(m, &p, &c, &xi, err, sizeof err) == 0);
		fe_space_eval(s, c, &xi, u, &v);
		CHECK_NEAR(v, p * p * p, 1e-15);
		fe_tab_free(&t);
		fe_quad_free(&q);
		free(u);
	}
	/* A cantilever's clamped end fixes value and slope; a simple support
	 * the value only. */
	n = fe_space_region_dofs(s, mesh_region(m, "left"), -1, 0, &dofs, err, sizeof err);
	CHECK(n == 2 && dofs[0] == 0 && dofs[1] == 1);
	free(dofs);
	n = fe_space_region_dofs(s, mesh_region(m, "right"), -1, FE_NODE_VALUE, &dofs, err, sizeof err);
	CHECK(n == 1 && dofs[0] == 20);
	free(dofs);
	fe_space_free(s);
	(void)g;

	/* The generators' messages. */
	CHECK(mesh_interval(1, 0, 10, err, sizeof err) == NULL);
	CHECK_STR(err, "interval: a = 1 must be less than b = 0");
	CHECK(mesh_interval(0, 1, 0, err, sizeof err) == NULL);
	CHECK_STR(err, "interval: cells must be at least 1 (it is 0)");
	CHECK(mesh_interval(0, INFINITY, 3, err, sizeof err) == NULL);
	CHECK_STR(err, "interval: the bounds a and b must be finite");
	CHECK(mesh_interval(0, 1, 200000000, err, sizeof err) == NULL);
	CHECK_STR(err, "interval: 200000001 nodes is more than the 100000000 a mesh may have");
	mesh_free(m);
}

static void test_rectangle(enum mesh_cell_type type)
{
	static const char *const names[] = { "left", "right", "bottom", "top" };
	static const double areas[] = { 1, 1, 2, 2 };
	static const long nodes[] = { 4, 4, 5, 5 };
	double lo[2] = { 0, 0 }, hi[2] = { 2, 1 };
	/* ∫ over [0,2]×[0,1] of ∂f/∂x, ∂f/∂y: quadratic (2x + y, x + 2y):
	 * 5, 4; multilinear (y + 1, x): 3, 2; ∫ f: 8/3 + 1 + 2/3 = 13/3 and
	 * ∫ (xy + x + 1) = 1 + 2 + 2 = 5. */
	static const double gq[] = { 5, 4 }, gm[] = { 3, 2 };
	struct mesh *m = mesh_rectangle(0, 2, 0, 1, 4, 3, type, err, sizeof err);
	struct fe_space *s;
	long *dofs, n;

	CHECK(m && m->dim == 2 && m->nnodes == 20);
	CHECK(m->ncells == (type == MESH_TRIANGLE ? 24 : 12));
	check_mesh(m, 2, names, areas, nodes, 4);
	check_locate(m, lo, hi);
	s = fe_space_make(m, type == MESH_TRIANGLE ? FE_P1 : FE_Q1, 2, err, sizeof err);
	CHECK(s && s->ndofs == 40 && s->ndof_cell == 2 * m->nv);
	/* Node-major: the dofs of node 5 are 10 (x) and 11 (y). */
	CHECK(fe_space_cell_dof(s, 0, 2) == 2 * m->cells[1] && fe_space_cell_dof(s, 0, 3) == 2 * m->cells[1] + 1);
	n = fe_space_region_dofs(s, mesh_region(m, "left"), -1, 0, &dofs, err, sizeof err);
	CHECK(n == 8 && dofs[0] == 0 && dofs[1] == 1 && dofs[2] == 10 && dofs[7] == 31);
	free(dofs);
	n = fe_space_region_dofs(s, mesh_region(m, "bottom"), 1, 0, &dofs, err, sizeof err);
	CHECK(n == 5 && dofs[0] == 1 && dofs[4] == 9);
	free(dofs);
	CHECK(fe_space_region_dofs(s, mesh_region(m, "bottom"), 2, 0, &dofs, err, sizeof err) == -1);
	CHECK_STR(err, "component 2 of a field of 2");
	if (type == MESH_QUADRILATERAL)
		check_integrals(s, MULTILINEAR, 2, 5, gm, names, 4);
	fe_space_free(s);
	if (type == MESH_TRIANGLE) {
		s = fe_space_make(m, FE_P2, 1, err, sizeof err);
		/* One node per vertex and per edge: the 9 × 7 points of the
		 * grid of half steps. */
		CHECK(s && s->nnode == 63);
		check_integrals(s, QUADRATIC, 2, 13.0 / 3, gq, names, 4);
		n = fe_space_region_dofs(s, mesh_region(m, "left"), -1, 0, &dofs, err, sizeof err);
		CHECK(n == 7);
		for (long i = 0; i < n; i++)
			CHECK(s->node_x[2 * dofs[i]] == 0);
		free(dofs);
		fe_space_free(s);
	} else {
		CHECK(fe_space_make(m, FE_P2, 1, err, sizeof err) == NULL);
		CHECK_STR(err, "P2 is not defined on quadrilateral cells: use Q1 (no Q2 yet)");
	}
	/* P0: one value per cell, the cells of no facet region. */
	s = fe_space_make(m, FE_P0, 1, err, sizeof err);
	CHECK(s && s->nnode == m->ncells);
	n = fe_space_region_dofs(s, mesh_region(m, "left"), -1, 0, &dofs, err, sizeof err);
	CHECK(n == 0 && dofs == NULL);
	fe_space_free(s);
	mesh_free(m);
}

static void test_cuboid(enum mesh_cell_type type)
{
	static const char *const names[] = { "left", "right", "front", "back", "bottom", "top" };
	static const double areas[] = { 6, 6, 3, 3, 2, 2 };
	static const long nodes[] = { 20, 20, 15, 15, 12, 12 };
	double lo[3] = { 0, 0, 0 }, hi[3] = { 1, 2, 3 };
	/* Over [0,1]×[0,2]×[0,3] (volume 6): quadratic ∇f = (2x + y + z,
	 * x + 2y, x − z) integrates to (21, 15, −6) and f to
	 * 6 (1/3 + 1/2 + 4/3 − 3/2 + 3/4) = 8.5; multilinear ∇ = (yz + 1, xz,
	 * xy): (9 + 6, 4.5, 3) and ∫ (xyz + x + 1) = 4.5 + 3 + 6. */
	static const double gq[] = { 21, 15, -6 }, gm[] = { 15, 4.5, 3 };
	struct mesh *m = mesh_cuboid(0, 1, 0, 2, 0, 3, 2, 3, 4, type, err, sizeof err);
	struct fe_space *s;
	long *dofs, n;

	CHECK(m && m->dim == 3 && m->nnodes == 60);
	CHECK(m->ncells == (type == MESH_TETRAHEDRON ? 144 : 24));
	check_mesh(m, 6, names, areas, nodes, 6);
	check_locate(m, lo, hi);
	if (type == MESH_TETRAHEDRON) {
		s = fe_space_make(m, FE_P2, 3, err, sizeof err);
		/* The 5 × 7 × 9 points of the grid of half steps, 3 dofs each. */
		CHECK(s && s->nnode == 315 && s->ndofs == 945 && s->ndof_cell == 30);
		check_integrals(s, QUADRATIC, 2, 8.5, gq, names, 6);
		n = fe_space_region_dofs(s, mesh_region(m, "left"), 0, 0, &dofs, err, sizeof err);
		CHECK(n == 63);
		for (long i = 0; i < n; i++)
			CHECK(dofs[i] % 3 == 0 && s->node_x[3 * (dofs[i] / 3)] == 0);
		free(dofs);
		fe_space_free(s);
		s = fe_space_make(m, FE_P1, 1, err, sizeof err);
		CHECK(s && s->ndofs == 60);
		fe_space_free(s);
	} else {
		s = fe_space_make(m, FE_Q1, 1, err, sizeof err);
		CHECK(s && s->ndofs == 60);
		check_integrals(s, MULTILINEAR, 2, 13.5, gm, names, 6);
		fe_space_free(s);
	}
	mesh_free(m);
}

static void test_errors(void)
{
	CHECK(mesh_rectangle(0, 1, 0, 1, 2, 0, MESH_TRIANGLE, err, sizeof err) == NULL);
	CHECK_STR(err, "rectangle: ny must be at least 1 (it is 0)");
	CHECK(mesh_rectangle(0, 1, 1, 1, 2, 2, MESH_TRIANGLE, err, sizeof err) == NULL);
	CHECK_STR(err, "rectangle: y0 = 1 must be less than y1 = 1");
	CHECK(mesh_rectangle(0, 1, 0, 1, 2, 2, MESH_TETRAHEDRON, err, sizeof err) == NULL);
	CHECK_STR(err, "rectangle: cells must be triangles or quadrilaterals");
	CHECK(mesh_cuboid(0, 1, 0, 1, 0, 1, 1000, 1000, 1000, MESH_HEXAHEDRON, err, sizeof err) == NULL);
	CHECK_STR(err, "cuboid: 1003003001 nodes is more than the 100000000 a mesh may have");
	CHECK(mesh_cuboid(0, 1, 0, 1, 0, 1, 1, 1, 1, MESH_TRIANGLE, err, sizeof err) == NULL);
	CHECK_STR(err, "cuboid: cells must be tetrahedra or hexahedra");
}

int main(void)
{
	test_interval();
	test_rectangle(MESH_TRIANGLE);
	test_rectangle(MESH_QUADRILATERAL);
	test_cuboid(MESH_TETRAHEDRON);
	test_cuboid(MESH_HEXAHEDRON);
	test_errors();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures != 0;
}
