/* test_fe.c — unit tests of runtime/fe_ref.c: every quadrature rule
 * integrates every monomial up to its degree exactly on its reference
 * cell (and facet), and the reference elements are what they claim
 * (Kronecker property at their nodes, partition of unity, gradients and
 * second derivatives against finite differences, P2 reproducing
 * quadratics), and fe_form_assemble's columns of a process are the
 * whole operator's.  Exit status 0 when every check passes, 1 otherwise; each
 * failed check is printed with its file and line. */
#include "fe_ref.h"
#include "fe_assemble.h"
#include "fe_space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static char err[256];

static double fact(int n)
{
	double f = 1;
	for (int i = 2; i <= n; i++)
		f *= i;
	return f;
}

/* ∫ x^a y^b z^c over the reference cell of t (the unit simplex:
 * a! b! c! / (a + b + c + d)!; the unit cube: Π 1/(a_i + 1)). */
static double monomial_integral(enum mesh_cell_type t, const int *e)
{
	int d = mesh_cell_dim(t), s = 0;
	double num = 1;

	if (t == MESH_QUADRILATERAL || t == MESH_HEXAHEDRON || t == MESH_INTERVAL) {
		for (int l = 0; l < d; l++)
			num /= e[l] + 1;
		return num;
	}
	for (int l = 0; l < d; l++) {
		num *= fact(e[l]);
		s += e[l];
	}
	return num / fact(s + d);
}

static double rule_monomial(const struct fe_quad *q, const int *e)
{
	double s = 0;
	for (int i = 0; i < q->n; i++) {
		double v = q->w[i];
		for (int l = 0; l < q->dim; l++)
			v *= pow(q->xi[i * q->dim + l], e[l]);
		s += v;
	}
	return s;
}

/* Every monomial of (total, or per-variable on cubes) degree ≤ p, for
 * each p up to pmax.  The exact values are at least 1/(p + d)! ... so the
 * tolerance is relative: 1e-14 of the value plus 1e-15, a few ulps of the
 * sum of positive terms (Radon's and Keast's weights are positive too). */
static void test_cell_rules(enum mesh_cell_type t, int pmax)
{
	int d = mesh_cell_dim(t), cube = t == MESH_QUADRILATERAL || t == MESH_HEXAHEDRON;
	double worst = 0;

	for (int p = 0; p <= pmax; p++) {
		struct fe_quad q;
		int e[3];
		CHECK(fe_quad_cell(t, p, &q, err, sizeof err) == 0);
		CHECK(q.dim == d && q.degree == p);
		for (int i = 0; i < q.n; i++)
			CHECK(q.w[i] > 0);
		for (e[0] = 0; e[0] <= p; e[0]++)
			for (e[1] = 0; e[1] <= (d > 1 ? p : 0); e[1]++)
				for (e[2] = 0; e[2] <= (d > 2 ? p : 0); e[2]++) {
					double exact, got;
					if (!cube && e[0] + e[1] + e[2] > p)
						continue;
					exact = monomial_integral(t, e);
					got = rule_monomial(&q, e);
					worst = fmax(worst, fabs(got - exact) / exact);
					CHECK_NEAR(got, exact, 1e-14 * exact + 1e-15);
				}
		fe_quad_free(&q);
	}
	printf("%-13s rules of degree 0..%d: worst relative error %.2e\n",
	       mesh_cell_name(t), pmax, worst);
}

/* A rule one degree short must miss some monomial: the degree claimed is
 * the degree reached, not more (Gauss: x^(2n) is not integrated by n
 * points). */
static void test_gauss_not_more(void)
{
	for (int n = 1; n <= 12; n++) {
		double x[12], w[12], s = 0;
		fe_gauss_legendre(n, x, w);
		for (int i = 0; i < n; i++)
			s += w[i] * pow(x[i], 2 * n);
		CHECK(fabs(s - 1.0 / (2 * n + 1)) > 1e-6 / fact(2 * n));
	}
}

/* Facet rules: the sum of the weights times the facet's measure factor is
 * the facet's area in reference coordinates, the points lie on the facet
 * (every facet vertex's plane), and a monomial of degree p over the facet
 * matches its integral by the cell's own reference map. */
static void test_facet_rules(enum mesh_cell_type t)
{
	int d = mesh_cell_dim(t);
	/* The reference measures of the facets (for the slanted facet 0 of
	 * the triangle √2, of the tetrahedron √3/2). */
	static const double tri[] = { 1.4142135623730951, 1, 1 };
	static const double tet[] = { 0.8660254037844386, 0.5, 0.5, 0.5 };

	for (int f = 0; f < mesh_cell_nfacets(t); f++)
		for (int p = 0; p <= 8; p++) {
			struct fe_quad q;
			double T[6], factor, s = 0, area, cen[3] = { 0, 0, 0 }, vc[3] = { 0, 0, 0 };
			const int *fv = mesh_cell_facet(t, f);
			const double *v = mesh_cell_ref_vertex(t);
			int fnv = mesh_cell_facet_nv(t);

			CHECK(fe_quad_facet(t, f, p, &q, err, sizeof err) == 0);
			CHECK(q.dim == d);
			fe_ref_facet_tangents(t, f, T);
			if (d == 1)
				factor = 1;
			else if (d == 2)
				factor = hypot(T[0], T[1]);
			else {
				double c0 = T[2] * T[5] - T[4] * T[3], c1 = T[4] * T[1] - T[0] * T[5];
				double c2 = T[0] * T[3] - T[2] * T[1];
				factor = sqrt(c0 * c0 + c1 * c1 + c2 * c2);
			}
			for (int i = 0; i < q.n; i++) {
				s += q.w[i] * factor;
				for (int l = 0; l < d; l++)
					cen[l] += q.w[i] * factor * q.xi[i * d + l];
			}
			area = t == MESH_TRIANGLE ? tri[f] : t == MESH_TETRAHEDRON ? tet[f] : 1;
			CHECK_NEAR(s, area, 1e-14);
			/* The centroid of the facet is the mean of its vertices
			 * (true of a triangle, a segment and a parallelogram). */
			for (int k = 0; k < fnv; k++)
				for (int l = 0; l < d; l++)
					vc[l] += v[fv[k] * d + l] / fnv;
			for (int l = 0; l < d; l++)
				CHECK_NEAR(cen[l] / s, vc[l], 1e-14);
			/* The facet's orientation gives the outward normal (mesh.h):
			 * it points from the cell's centroid to the facet's. */
			if (d > 1) {
				double nrm[3], cc[3] = { 0, 0, 0 }, dot = 0;
				int nv = mesh_cell_nv(t);
				if (d == 2) {
					nrm[0] = T[1];
					nrm[1] = -T[0];
				} else {
					nrm[0] = T[2] * T[5] - T[4] * T[3];
					nrm[1] = T[4] * T[1] - T[0] * T[5];
					nrm[2] = T[0] * T[3] - T[2] * T[1];
				}
				for (int k = 0; k < nv; k++)
					for (int l = 0; l < d; l++)
						cc[l] += v[k * d + l] / nv;
				for (int l = 0; l < d; l++)
					dot += nrm[l] * (vc[l] - cc[l]);
				CHECK(dot > 0);
			}
			fe_quad_free(&q);
		}
}

/* On the slanted facet of the tetrahedron, ∫ x^a y^b dA: the facet map
 * (x, y, z) = (1, 0, 0) + s (−1, 1, 0) + t (−1, 0, 1) with |T0 × T1| = √3;
 * in (y, z) it is the unit triangle, x = 1 − y − z, so ∫ x^a y^b dA
 * = √3 ∫∫ (1 − y − z)^a y^b = √3 a! b! / (a + b + 2)!. */
static void test_facet_degree(void)
{
	for (int p = 0; p <= 10; p++) {
		struct fe_quad q;
		CHECK(fe_quad_facet(MESH_TETRAHEDRON, 0, p, &q, err, sizeof err) == 0);
		for (int a = 0; a <= p; a++) {
			int b = p - a;
			double s = 0, exact = sqrt(3.0) * fact(a) * fact(b) / fact(a + b + 2);
			for (int i = 0; i < q.n; i++)
				s += q.w[i] * sqrt(3.0) * pow(q.xi[3 * i], a) * pow(q.xi[3 * i + 1], b);
			CHECK_NEAR(s, exact, 1e-14 * exact + 1e-15);
		}
		fe_quad_free(&q);
	}
}

/* A pseudo-random point inside the reference cell. */
static void random_point(enum mesh_cell_type t, unsigned *seed, double *xi)
{
	int d = mesh_cell_dim(t);
	for (;;) {
		double s = 0;
		for (int l = 0; l < d; l++) {
			*seed = *seed * 1103515245u + 12345u;
			xi[l] = (double)(*seed >> 8) / (1u << 24);
			s += xi[l];
		}
		if (t == MESH_QUADRILATERAL || t == MESH_HEXAHEDRON || t == MESH_INTERVAL || s < 1)
			return;
	}
}

static void test_element(enum fe_family f, enum mesh_cell_type t)
{
	int d = mesh_cell_dim(t), nb = fe_ref_nbasis(f, t);
	double nodes[27 * 3], phi[27], dphi[81], d2[243];
	double pp[27], pm[27], dp[81], dm[81];
	unsigned seed = 12345;
	double h = 1e-5;

	fe_ref_nodes(f, t, nodes);
	/* Kronecker: φ_a(node_b) = δ_ab (for Hermite the value functions at
	 * the vertices, the derivative ones vanish there). */
	for (int b = 0; b < nb; b++) {
		fe_ref_eval(f, t, nodes + b * d, phi, NULL, NULL);
		for (int a = 0; a < nb; a++) {
			double want = a == b;
			if (f == FE_HERMITE3)
				want = (a == b && !(a & 1)) || (a == b - 1 && !(a & 1)) ? 1 : 0;
			if (f == FE_HERMITE3 && (a & 1))
				want = 0;
			CHECK_NEAR(phi[a], want, 1e-15);
		}
	}
	for (int trial = 0; trial < 20; trial++) {
		double xi[3], s = 0, g[3] = { 0, 0, 0 };
		random_point(t, &seed, xi);
		fe_ref_eval(f, t, xi, phi, dphi, d2);
		for (int a = 0; a < nb; a++) {
			if (f == FE_HERMITE3 && (a & 1))
				continue;
			s += phi[a];
			for (int l = 0; l < d; l++)
				g[l] += dphi[a * d + l];
		}
		/* Partition of unity and its gradient. */
		CHECK_NEAR(s, 1, 1e-14);
		for (int l = 0; l < d; l++)
			CHECK_NEAR(g[l], 0, 1e-13);
		/* Gradients and second derivatives against central
		 * differences: error O(h²) times the third derivatives (at
		 * most 27 for P2 and Hermite), 1e-8 with h = 1e-5. */
		for (int l = 0; l < d; l++) {
			double xp[3], xm[3];
			memcpy(xp, xi, sizeof xp);
			memcpy(xm, xi, sizeof xm);
			xp[l] += h;
			xm[l] -= h;
			fe_ref_eval(f, t, xp, pp, dp, NULL);
			fe_ref_eval(f, t, xm, pm, dm, NULL);
			for (int a = 0; a < nb; a++) {
				CHECK_NEAR(dphi[a * d + l], (pp[a] - pm[a]) / (2 * h), 1e-8);
				for (int m = 0; m < d; m++)
					CHECK_NEAR(d2[(a * d + m) * d + l],
					           (dp[a * d + m] - dm[a * d + m]) / (2 * h), 1e-8);
			}
		}
	}
}

/* P2 reproduces a quadratic q(ξ) = 1 + ξ − 2η + 3ξ² − ξη + 2η² − ζ²/2 + ξζ
 * from its nodal values, everywhere in the cell (interpolation error 0
 * up to round-off). */
static double quadratic(const double *x, int d)
{
	double a = x[0], b = d > 1 ? x[1] : 0, c = d > 2 ? x[2] : 0;
	return 1 + a - 2 * b + 3 * a * a - a * b + 2 * b * b - c * c / 2 + a * c;
}

static void test_p2_reproduces(enum mesh_cell_type t)
{
	int d = mesh_cell_dim(t), nb = fe_ref_nbasis(FE_P2, t);
	double nodes[30], u[10], phi[10];
	unsigned seed = 7;

	fe_ref_nodes(FE_P2, t, nodes);
	for (int a = 0; a < nb; a++)
		u[a] = quadratic(nodes + a * d, d);
	for (int trial = 0; trial < 50; trial++) {
		double xi[3], s = 0;
		random_point(t, &seed, xi);
		fe_ref_eval(FE_P2, t, xi, phi, NULL, NULL);
		for (int a = 0; a < nb; a++)
			s += phi[a] * u[a];
		CHECK_NEAR(s, quadratic(xi, d), 1e-13);
	}
}

/* Hermite reproduces a cubic from values and slopes at the ends. */
static void test_hermite_reproduces(void)
{
	double u[4] = { 2, -1, 2 - 1 + 3 + 0.5, -1 + 6 + 1.5 };  /* 2 − ξ + 3ξ² + ξ³/2 */
	for (int i = 0; i <= 10; i++) {
		double xi = i / 10.0, phi[4], dphi[4], d2[4], v = 0, dv = 0, d2v = 0;
		fe_ref_eval(FE_HERMITE3, MESH_INTERVAL, &xi, phi, dphi, d2);
		for (int a = 0; a < 4; a++) {
			v += phi[a] * u[a];
			dv += dphi[a] * u[a];
			d2v += d2[a] * u[a];
		}
		CHECK_NEAR(v, 2 - xi + 3 * xi * xi + xi * xi * xi / 2, 1e-14);
		CHECK_NEAR(dv, -1 + 6 * xi + 1.5 * xi * xi, 1e-14);
		CHECK_NEAR(d2v, 6 + 3 * xi, 1e-13);
	}
}

/* The symmetric rules are the small ones: points per degree, every point
 * inside the cell. */
static void test_rule_sizes(void)
{
	static const int tri[] = { 1, 1, 3, 6, 6, 7, 12, 16, 16 };
	static const int tet[] = { 1, 1, 4, 14, 14, 14 };

	for (int p = 0; p <= 8; p++) {
		struct fe_quad q;
		CHECK(fe_quad_cell(MESH_TRIANGLE, p, &q, err, sizeof err) == 0);
		CHECK(q.n == tri[p]);
		for (int i = 0; i < q.n; i++)
			CHECK(q.xi[2 * i] > 0 && q.xi[2 * i + 1] > 0 && q.xi[2 * i] + q.xi[2 * i + 1] < 1);
		fe_quad_free(&q);
	}
	for (int p = 0; p <= 5; p++) {
		struct fe_quad q;
		CHECK(fe_quad_cell(MESH_TETRAHEDRON, p, &q, err, sizeof err) == 0);
		CHECK(q.n == tet[p]);
		for (int i = 0; i < q.n; i++)
			CHECK(q.xi[3 * i] > 0 && q.xi[3 * i + 1] > 0 && q.xi[3 * i + 2] > 0 &&
			      q.xi[3 * i] + q.xi[3 * i + 1] + q.xi[3 * i + 2] < 1);
		fe_quad_free(&q);
	}
}

static void test_refusals(void)
{
	struct fe_quad q;

	CHECK(!fe_ref_supported(FE_P2, MESH_QUADRILATERAL, err, sizeof err));
	CHECK(strcmp(err, "P2 is not defined on quadrilateral cells: use Q1 (no Q2 yet)") == 0);
	CHECK(!fe_ref_supported(FE_Q1, MESH_TETRAHEDRON, err, sizeof err));
	CHECK(strcmp(err, "Q1 is not defined on tetrahedron cells: use P1") == 0);
	CHECK(!fe_ref_supported(FE_HERMITE3, MESH_TRIANGLE, err, sizeof err));
	CHECK(fe_ref_supported(FE_Q1, MESH_INTERVAL, err, sizeof err));
	CHECK(fe_quad_cell(MESH_TRIANGLE, FE_QUAD_MAX_DEGREE + 1, &q, err, sizeof err) == -1);
	CHECK(strcmp(err, "quadrature degree 41 is outside 0..40") == 0);
	CHECK(q.xi == NULL && q.w == NULL);
}


/* fe_form_assemble with a column range (a process's rows of a
 * partitioned run): columns c0 .. c1 − 1 are the whole operator's, bit
 * for bit, and the others are empty, for an elasticity-like form (the
 * gradients) and a mass-like one (the values, whose cells scale the
 * first cell's reference matrix: c.scaled), on P1² and P2² triangles. */
static void test_columns(enum fe_family fam)
{
	struct mesh *m = mesh_rectangle(0, 2, 0, 1, 6, 4, MESH_TRIANGLE, err, sizeof err);
	/* cells of different sizes: the reference matrix's cell matters */
	for (long v = 0; m && v < m->nnodes; v++) {
		m->x[2 * v] += 0.05 * sin(3.0 * (double)v) * m->x[2 * v] * (2 - m->x[2 * v]);
		m->x[2 * v + 1] += 0.07 * cos(5.0 * (double)v) * m->x[2 * v + 1] * (1 - m->x[2 * v + 1]);
	}
	struct fe_space *sp = m ? fe_space_make(m, fam, 2, err, sizeof err) : NULL;
	CHECK(m && sp);
	if (!m || !sp)
		return;
	int n = (int)sp->nnode * 2;
	long *dof = malloc(sizeof(long) * (size_t)n);
	for (int i = 0; i < n; i++)
		dof[i] = i;
	double Dk[16] = { 4, 0, 0, 2, 0, 1, 1, 0, 0, 1, 1, 0, 2, 0, 0, 4 }, Dm[4] = { 1, 0, 0, 1 };
	struct fe_form fk = { .mesh = m, .degree = 2 * (fam == FE_P2 ? 2 : 1), .nfield = 1, .nfeat = 4, .D = Dk };
	struct fe_form fm = { .mesh = m, .degree = 2 * (fam == FE_P2 ? 2 : 1), .nfield = 1, .nfeat = 2, .D = Dm };
	fk.space[0] = fm.space[0] = sp;
	fk.dof[0] = fm.dof[0] = dof;
	for (int a = 0; a < 4; a++)
		fk.feat[a] = (struct fe_feature){ 0, a / 2, a % 2 };
	for (int a = 0; a < 2; a++)
		fm.feat[a] = (struct fe_feature){ 0, a, -1 };
	struct fe_form *forms[2] = { &fk, &fm };
	for (int f = 0; f < 2; f++) {
		struct fe_csc W = { 0 };
		CHECK(fe_form_assemble(forms[f], n, 0, &W, NULL, err, sizeof err) == 0);
		for (int P = 2; P <= 3; P++)
			for (int r = 0; r < P; r++) {
				struct fe_form g = *forms[f];
				g.part = 1;
				g.c0 = n * r / P;
				g.c1 = n * (r + 1) / P;
				struct fe_csc A = { 0 };
				CHECK(fe_form_assemble(&g, n, 0, &A, NULL, err, sizeof err) == 0);
				int same = 1;
				for (int j = 0; j < n && A.p && W.p; j++) {
					int len = A.p[j + 1] - A.p[j];
					if (j < g.c0 || j >= g.c1) {
						same &= len == 0;
						continue;
					}
					same &= len == W.p[j + 1] - W.p[j];
					for (int k = 0; k < len && same; k++)
						same &= A.i[A.p[j] + k] == W.i[W.p[j] + k] &&
						        memcmp(&A.x[A.p[j] + k], &W.x[W.p[j] + k], sizeof(double)) == 0;
				}
				CHECK(same);
				fe_csc_free(&A);
			}
		fe_csc_free(&W);
	}
	free(dof);
	fe_space_free(sp);
	mesh_free(m);
}

/* fe_space_node_order: a rectangle's own numbering (row by row, as
 * narrow as RCM's) is kept (0); the same mesh with its nodes numbered by
 * a scrambling permutation (node v becomes (v * 37) mod nnodes, as a
 * Gmsh mesh's may be) gets an order (1) that is a permutation of the
 * nodes whose bandwidth over the cells is at most half the scrambled
 * one's and at most twice the rectangle's own (nx + 2 for the diagonal
 * cut). */
static long cell_bandwidth(const struct mesh *m, const int *pinv)
{
	long bw = 0;
	for (long c = 0; c < m->ncells; c++)
		for (int a = 0; a < m->nv; a++)
			for (int b = 0; b < m->nv; b++) {
				long i = m->cells[c * m->nv + a], j = m->cells[c * m->nv + b];
				long d = pinv ? labs((long)pinv[i] - pinv[j]) : labs(i - j);
				bw = d > bw ? d : bw;
			}
	return bw;
}

static void test_node_order(void)
{
	const long nx = 30, ny = 10;
	struct mesh *m = mesh_rectangle(0, 3, 0, 1, nx, ny, MESH_TRIANGLE, err, sizeof err);
	struct fe_space *sp = m ? fe_space_make(m, FE_P1, 2, err, sizeof err) : NULL;
	CHECK(m && sp);
	if (!m || !sp)
		return;
	int nn = (int)m->nnodes;
	int *order = malloc(sizeof(int) * (size_t)nn), *pinv = malloc(sizeof(int) * (size_t)nn);
	CHECK(fe_space_node_order(sp, 1, order, NULL) == 0);
	long own = cell_bandwidth(m, NULL);
	CHECK(own == nx + 2);
	for (long k = 0; k < m->ncells * m->nv; k++)
		m->cells[k] = (m->cells[k] * 37) % nn;
	long wide = cell_bandwidth(m, NULL);
	CHECK(fe_space_node_order(sp, 1, order, NULL) == 1);
	for (int i = 0; i < nn; i++)
		pinv[i] = -1;
	int perm = 1;
	for (int k = 0; k < nn; k++) {
		perm &= order[k] >= 0 && order[k] < nn && pinv[order[k]] < 0;
		if (order[k] >= 0 && order[k] < nn)
			pinv[order[k]] = k;
	}
	CHECK(perm);
	long narrow = perm ? cell_bandwidth(m, pinv) : wide;
	CHECK(2 * narrow <= wide && narrow <= 2 * own);
	free(order);
	free(pinv);
	fe_space_free(sp);
	mesh_free(m);
}

int main(void)
{
	test_cell_rules(MESH_INTERVAL, FE_QUAD_MAX_DEGREE);
	test_cell_rules(MESH_TRIANGLE, 20);
	test_cell_rules(MESH_QUADRILATERAL, 12);
	test_cell_rules(MESH_TETRAHEDRON, 14);
	test_cell_rules(MESH_HEXAHEDRON, 8);
	test_gauss_not_more();
	test_rule_sizes();
	for (int t = MESH_INTERVAL; t <= MESH_HEXAHEDRON; t++)
		test_facet_rules((enum mesh_cell_type)t);
	test_facet_degree();
	test_element(FE_P1, MESH_INTERVAL);
	test_element(FE_P1, MESH_TRIANGLE);
	test_element(FE_P1, MESH_TETRAHEDRON);
	test_element(FE_P2, MESH_INTERVAL);
	test_element(FE_P2, MESH_TRIANGLE);
	test_element(FE_P2, MESH_TETRAHEDRON);
	test_element(FE_Q1, MESH_INTERVAL);
	test_element(FE_Q1, MESH_QUADRILATERAL);
	test_element(FE_Q1, MESH_HEXAHEDRON);
	test_element(FE_HERMITE3, MESH_INTERVAL);
	test_element(FE_P0, MESH_TRIANGLE);
	test_p2_reproduces(MESH_INTERVAL);
	test_p2_reproduces(MESH_TRIANGLE);
	test_p2_reproduces(MESH_TETRAHEDRON);
	test_hermite_reproduces();
	test_refusals();
	test_columns(FE_P1);
	test_columns(FE_P2);
	test_node_order();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures != 0;
}
