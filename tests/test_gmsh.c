/* test_gmsh.c — unit tests of runtime/mesh_gmsh.c: the meshes of
 * tests/data (made by Gmsh 4.8 from the .geo files beside them, formats
 * 4.1 and 2.2) read back with the measures of their bodies and boundary
 * regions, the outward normals (∫_∂Ω x_k n_k ds = |Ω| over the named
 * faces), point location in the tetrahedra, the same mesh from both
 * formats, the transfinite rectangle equal to rectangle()'s, and every
 * error message of tests/data/bad with its line.  The data are found
 * under $srcdir (tests/run-tests sets it).
 * Exit status 0 when every check passes, 1 otherwise. */
#include "fe_space.h"
#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static char err[512];
static const char *srcdir = ".";

static const char *data(const char *name)
{
	static char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/%s", srcdir, name);
	return path;
}

static struct mesh *read_ok(const char *name)
{
	struct mesh *m = mesh_read_gmsh(data(name), err, sizeof err);
	if (!m)
		fprintf(stderr, "%s: %s\n", name, err);
	CHECK(m != NULL);
	return m;
}

/* Region r of kind k: its measure (sum of facet measures, or of cell
 * measures for CELLS) and, for FACETS, ∫_r x_axis n_axis ds through P1
 * facet tables (the flux of x_axis e_axis out of the face). */
static double region_measure(const struct mesh *m, const char *name,
                             enum mesh_region_kind kind, double *flux)
{
	const struct mesh_region *r = mesh_region(m, name);
	double s = 0;

	CHECK(r && r->kind == kind);
	if (!r || r->kind != kind)
		return NAN;
	if (kind == MESH_REGION_CELLS) {
		for (long i = 0; i < r->n; i++)
			s += mesh_cell_measure(m, r->cell[i]);
		return s;
	}
	for (long i = 0; i < r->n; i++)
		s += mesh_facet_measure(m, r, i);
	if (flux) {
		struct fe_space *sp = fe_space_make(m, m->type == MESH_QUADRILATERAL ||
		                                    m->type == MESH_HEXAHEDRON ? FE_Q1 : FE_P1,
		                                    1, err, sizeof err);
		int d = m->dim;
		*flux = 0;
		for (long i = 0; i < r->n; i++) {
			struct fe_quad q;
			struct fe_tab t;
			CHECK(fe_quad_facet(m->type, r->facet[i], 2, &q, err, sizeof err) == 0);
			CHECK(fe_tab_alloc(&t, sp, &q, 0, err, sizeof err) == 0);
			CHECK(fe_tab_facet(&t, sp, r->cell[i], r->facet[i], &q, err, sizeof err) == 0);
			for (int j = 0; j < q.n; j++)
				for (int k = 0; k < d; k++)
					*flux += t.wdet[j] * t.x[j * d + k] * t.normal[j * d + k];
			fe_tab_free(&t);
			fe_quad_free(&q);
		}
		fe_space_free(sp);
	}
	return s;
}

/* The rectangle [0,2] × [0,1]: area 2, edges 1, 1, 2, 2, and the flux of
 * x (in 2-D ∫_∂Ω (x n_x + y n_y) = 2|Ω| = 4) over the four edges. */
static void check_rectangle(const struct mesh *m)
{
	static const char *const e[] = { "left", "right", "bottom", "top" };
	static const double len[] = { 1, 1, 2, 2 };
	double flux = 0, f;

	CHECK(m->dim == 2);
	CHECK_NEAR(mesh_measure(m), 2, 1e-12);
	CHECK_NEAR(region_measure(m, "body", MESH_REGION_CELLS, NULL), 2, 1e-12);
	CHECK(mesh_region(m, "body")->n == m->ncells);
	for (int i = 0; i < 4; i++) {
		CHECK_NEAR(region_measure(m, e[i], MESH_REGION_FACETS, &f), len[i], 1e-12);
		flux += f;
	}
	CHECK_NEAR(flux, 4, 1e-12);
}

static void test_rect_tri(void)
{
	struct mesh *a = read_ok("rect_tri41.msh"), *b = read_ok("rect_tri22.msh");
	const struct mesh_region *r;

	if (!a || !b)
		goto out;
	CHECK(a->type == MESH_TRIANGLE && b->type == MESH_TRIANGLE);
	check_rectangle(a);
	check_rectangle(b);
	/* Both formats hold the same mesh: nodes, cells and regions. */
	CHECK(a->nnodes == b->nnodes && a->ncells == b->ncells && a->nregions == b->nregions);
	if (a->nnodes == b->nnodes && a->ncells == b->ncells) {
		CHECK(memcmp(a->x, b->x, (size_t)a->nnodes * 2 * sizeof *a->x) == 0);
		CHECK(memcmp(a->cells, b->cells, (size_t)a->ncells * 3 * sizeof *a->cells) == 0);
	}
	printf("rect_tri: %ld nodes, %ld triangles\n", a->nnodes, a->ncells);
	/* The physical point: a NODES region of the corner (2, 1). */
	r = mesh_region(a, "corner");
	CHECK(r && r->kind == MESH_REGION_NODES && r->nnodes == 1);
	if (r && r->nnodes == 1)
		CHECK(a->x[2 * r->nodes[0]] == 2 && a->x[2 * r->nodes[0] + 1] == 1);
	/* The left edge: nodes at x = 0, from y = 0 to 1 (lc = 0.25: 5). */
	r = mesh_region(b, "left");
	CHECK(r && r->nnodes == 5);
out:
	mesh_free(a);
	mesh_free(b);
}

/* Points in lexicographic order of their coordinates rounded to 1e-6
 * (Gmsh's and rectangle()'s differ by round-off). */
static int cmp_point(const void *p, const void *q)
{
	const double *a = p, *b = q;
	for (int k = 0; k < 2; k++) {
		double x = round(a[k] * 1e6), y = round(b[k] * 1e6);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* The transfinite 8 × 4 quadrangles are rectangle()'s mesh: same counts,
 * same points, same measures.  Gmsh places transfinite nodes by arc
 * length along the curves, 4e-12 off the exact fractions as written in
 * the file: the points agree to 1e-11. */
static void test_rect_quad(void)
{
	struct mesh *a = read_ok("rect_quad41.msh");
	struct mesh *b = mesh_rectangle(0, 2, 0, 1, 8, 4, MESH_QUADRILATERAL, err, sizeof err);

	if (!a || !b)
		goto out;
	CHECK(a->type == MESH_QUADRILATERAL);
	check_rectangle(a);
	CHECK(a->nnodes == 45 && a->ncells == 32);
	if (a->nnodes == b->nnodes) {
		qsort(a->x, (size_t)a->nnodes, 2 * sizeof *a->x, cmp_point);
		qsort(b->x, (size_t)b->nnodes, 2 * sizeof *b->x, cmp_point);
		for (long i = 0; i < 2 * a->nnodes; i++)
			CHECK_NEAR(a->x[i], b->x[i], 1e-11);
	}
	for (int i = 0; i < 4; i++) {
		static const char *const e[] = { "left", "right", "bottom", "top" };
		CHECK(mesh_region(a, e[i])->nnodes == mesh_region(b, e[i])->nnodes);
	}
out:
	mesh_free(a);
	mesh_free(b);
}

/* The box [0,1] × [0,2] × [0,3]: volume 6, faces 6, 6, 3, 3, 2, 2, and
 * the flux of (x, y, z) out of the six faces, 3|Ω| = 18. */
static void check_box(const struct mesh *m)
{
	static const char *const e[] = { "left", "right", "front", "back", "bottom", "top" };
	static const double area[] = { 6, 6, 3, 3, 2, 2 };
	double flux = 0, f;

	CHECK(m->dim == 3);
	CHECK_NEAR(mesh_measure(m), 6, 1e-12);
	CHECK_NEAR(region_measure(m, "body", MESH_REGION_CELLS, NULL), 6, 1e-12);
	for (int i = 0; i < 6; i++) {
		CHECK_NEAR(region_measure(m, e[i], MESH_REGION_FACETS, &f), area[i], 1e-12);
		flux += f;
	}
	CHECK_NEAR(flux, 18, 1e-11);
}

static void test_boxes(void)
{
	struct mesh *a = read_ok("box_tet41.msh"), *b = read_ok("box_hex22.msh");

	if (a) {
		unsigned seed = 5;
		CHECK(a->type == MESH_TETRAHEDRON);
		check_box(a);
		/* Point location in an unstructured mesh: random points of the
		 * box are found, their reference coordinates mapped back. */
		for (int i = 0; i < 300; i++) {
			double p[3], xi[3], x[3], hi[3] = { 1, 2, 3 };
			long c;
			for (int k = 0; k < 3; k++) {
				seed = seed * 1103515245u + 12345u;
				p[k] = hi[k] * ((double)(seed >> 8) / (1u << 24));
			}
			CHECK(mesh_locate(a, p, &c, xi, err, sizeof err) == 0);
			mesh_cell_map(a, c, xi, x, NULL);
			for (int k = 0; k < 3; k++)
				CHECK_NEAR(x[k], p[k], 1e-12);
		}
		printf("box_tet: %ld nodes, %ld tetrahedra\n", a->nnodes, a->ncells);
	}
	if (b) {
		CHECK(b->type == MESH_HEXAHEDRON && b->nnodes == 60 && b->ncells == 24);
		check_box(b);
	}
	mesh_free(a);
	mesh_free(b);
}

static void test_line(void)
{
	struct mesh *m = read_ok("line41.msh");
	const struct mesh_region *l, *r;

	if (!m)
		return;
	CHECK(m->type == MESH_INTERVAL && m->nnodes == 11 && m->ncells == 10);
	CHECK_NEAR(mesh_measure(m), 1, 1e-12);
	l = mesh_region(m, "left");
	r = mesh_region(m, "right");
	CHECK(l && l->kind == MESH_REGION_FACETS && l->n == 1 && m->x[l->nodes[0]] == 0);
	CHECK(r && r->kind == MESH_REGION_FACETS && r->n == 1 && m->x[r->nodes[0]] == 1);
	CHECK(l && l->facet[0] == 0 && r && r->facet[0] == 1);
	CHECK(mesh_region(m, "bar") && mesh_region(m, "bar")->n == 10);
	mesh_free(m);
}

/* Nodes of no cell are dropped, the others kept in order: the unit
 * square of orphan22.msh has its 4 corners, area 1, its left edge, and
 * the node off the plane (of no cell) is not taken for a 3-D mesh. */
static void test_orphans(void)
{
	struct mesh *m = read_ok("orphan22.msh");
	static const double x[] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	static const long cells[] = { 0, 1, 2, 0, 2, 3 };

	if (!m)
		return;
	CHECK(m->dim == 2 && m->nnodes == 4 && m->ncells == 2);
	if (m->nnodes == 4 && m->ncells == 2) {
		CHECK(memcmp(m->x, x, sizeof x) == 0);
		for (int k = 0; k < 6; k++)
			CHECK(m->cells[k] == cells[k]);
	}
	CHECK_NEAR(mesh_measure(m), 1, 1e-15);
	CHECK_NEAR(region_measure(m, "left", MESH_REGION_FACETS, NULL), 1, 1e-15);
	mesh_free(m);
}

/* An element written once per physical group (MSH 2.2) is one cell or
 * facet in each of its regions: the square of groups22.msh has 2 cells,
 * area 1 (it was 2: the repeated triangle counted twice), "part" is the
 * first triangle (also written with its nodes rotated), and the right
 * edge written twice in one group has length 1. */
static void test_repeats(void)
{
	struct mesh *m = read_ok("groups22.msh");
	if (!m)
		return;
	CHECK(m->ncells == 2);
	CHECK_NEAR(mesh_measure(m), 1, 1e-15);
	CHECK_NEAR(region_measure(m, "body", MESH_REGION_CELLS, NULL), 1, 1e-15);
	CHECK_NEAR(region_measure(m, "part", MESH_REGION_CELLS, NULL), 0.5, 1e-15);
	CHECK(mesh_region(m, "part")->n == 1);
	CHECK_NEAR(region_measure(m, "right", MESH_REGION_FACETS, NULL), 1, 1e-15);
	CHECK_NEAR(region_measure(m, "left", MESH_REGION_FACETS, NULL), 1, 1e-15);
	mesh_free(m);
}

/* Each bad file fails with its message at its line. */
static void bad(const char *name, const char *want)
{
	char path[1024], full[1024];

	snprintf(path, sizeof path, "%s", data(name));
	snprintf(full, sizeof full, "'%s'%s", path, want);
	err[0] = '\0';
	CHECK(mesh_read_gmsh(path, err, sizeof err) == NULL);
	if (strcmp(err, full) != 0) {
		fprintf(stderr, "%s: \"%s\"\n  expected \"%s\"\n", name, err, full);
		failures++;
	}
}

static void test_errors(void)
{
	bad("bad/not_gmsh.msh", " line 1: not a Gmsh mesh file (it does not start with $MeshFormat)");
	bad("bad/binary.msh", " line 2: binary Gmsh files are not read: save the mesh as ASCII "
	    "(gmsh -format msh41 without -bin, or Mesh.Binary = 0)");
	bad("bad/version.msh", " line 2: Gmsh format 3 is not supported: dyn reads formats 4.1 "
	    "and 2.2 (gmsh -format msh41 or msh22)");
	bad("bad/no_nodes.msh", " line 7: the file ends without a $Nodes section");
	bad("bad/bad_number.msh", " line 7: a coordinate is not a number");
	bad("bad/short_node.msh", " line 7: a node (tag x y z) has 3 numbers, expected 4");
	bad("bad/second_order.msh", " line 13: element type 9 (6-node second-order triangle) "
	    "is not supported: dyn reads linear lines, triangles, quadrangles, tetrahedra and "
	    "hexahedra (Mesh.ElementOrder = 1, no prisms or pyramids)");
	bad("bad/missing_node.msh", " line 13: node 99 is not in $Nodes");
	bad("bad/not_a_side.msh", " line 15: this line of physical group 7 is not a side of "
	    "any triangle of the mesh");
	bad("bad/mixed.msh", " line 14: a mesh has cells of one type: this quadrangle is among "
	    "triangles (line 13)");
	bad("bad/nonplanar.msh", " line 8: the mesh is 2-D (its cells are triangles) but its "
	    "nodes do not share one z: a 2-D mesh lies in a plane z = constant");
	bad("bad/offaxis.msh", " line 7: the mesh is 1-D (its cells are lines) but its nodes do "
	    "not share one z: a 1-D mesh lies along the x axis, y and z constant");
	bad("bad/orphan_region.msh", " line 16: node 5 of this line (physical group 7) belongs to "
	    "no triangle of the mesh");
	bad("bad/dup_node.msh", " line 8: node tag 2 is defined twice (lines 7 and 8)");
	bad("bad/degenerate.msh", " line 13: this triangle is degenerate (zero area)");
	bad("bad/no_cells.msh", " line 14: no cells: the file has no lines, surfaces or volumes "
	    "(with physical groups, Gmsh saves only their elements: put the body in a physical "
	    "group, or set Mesh.SaveAll = 1)");
	bad("bad/unclosed.msh", " line 4: $Comments is not closed by $EndComments");
	bad("bad/no_end.msh", " line 7: expected $EndNodes");
	bad("bad/nul.msh", " line 1: not a text file (binary data)");
	bad("bad/count41.msh", " line 16: the $Nodes header announces 4 nodes, the blocks hold 3");
	bad("bad/entity41.msh", " line 20: entity 5 of dimension 2 is not in $Entities");
}

int main(void)
{
	char path[1024], want[1200];

	if (getenv("srcdir"))
		srcdir = getenv("srcdir");
	test_rect_tri();
	test_rect_quad();
	test_boxes();
	test_line();
	test_orphans();
	test_repeats();
	test_errors();
	/* Not a file, or none. */
	snprintf(path, sizeof path, "%s", data("bad"));
	snprintf(want, sizeof want, "'%s' is not a regular file: gmsh() reads regular files only", path);
	CHECK(mesh_read_gmsh(path, err, sizeof err) == NULL && strcmp(err, want) == 0);
	snprintf(path, sizeof path, "%s", data("bad/none.msh"));
	snprintf(want, sizeof want, "cannot open '%s': No such file or directory", path);
	CHECK(mesh_read_gmsh(path, err, sizeof err) == NULL && strcmp(err, want) == 0);
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures != 0;
}
