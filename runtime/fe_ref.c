/* fe_ref.c — reference finite elements (P0, P1, P2, Q1, cubic Hermite)
 * and quadrature rules on the reference cells of mesh.h (fe_ref.h). */
#include "fe_ref.h"
#include "mesh_impl.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *fe_family_name(enum fe_family f)
{
	static const char *const n[] = { "P0", "P1", "P2", "Q1", "Hermite" };
	return n[f];
}

int fe_ref_supported(enum fe_family f, enum mesh_cell_type t, char *err, size_t errlen)
{
	int simplex = t == MESH_INTERVAL || t == MESH_TRIANGLE || t == MESH_TETRAHEDRON;
	int cube = t == MESH_INTERVAL || t == MESH_QUADRILATERAL || t == MESH_HEXAHEDRON;
	const char *hint = "";

	switch (f) {
	case FE_P0:
		return 1;
	case FE_P1:
	case FE_P2:
		if (simplex)
			return 1;
		hint = f == FE_P1 ? ": use Q1" : ": use Q1 (no Q2 yet)";
		break;
	case FE_Q1:
		if (cube)
			return 1;
		hint = ": use P1";
		break;
	case FE_HERMITE3:
		if (t == MESH_INTERVAL)
			return 1;
		hint = ": Hermite elements are for beams, on intervals";
		break;
	}
	mesh_errf(err, errlen, "%s is not defined on %s cells%s",
	          fe_family_name(f), mesh_cell_name(t), hint);
	return 0;
}

/* The local edges of P2 (fe_ref.h): pairs of vertices. */
static const int edges_interval[1][2] = { { 0, 1 } };
static const int edges_triangle[3][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 } };
static const int edges_tet[6][2] = {
	{ 0, 1 }, { 1, 2 }, { 2, 0 }, { 0, 3 }, { 1, 3 }, { 2, 3 }
};

int fe_ref_nedges(enum mesh_cell_type t)
{
	return t == MESH_INTERVAL ? 1 : t == MESH_TRIANGLE ? 3 : t == MESH_TETRAHEDRON ? 6 : 0;
}

const int *fe_ref_edge(enum mesh_cell_type t, int e)
{
	return t == MESH_INTERVAL ? edges_interval[e]
	     : t == MESH_TRIANGLE ? edges_triangle[e] : edges_tet[e];
}

int fe_ref_nbasis(enum fe_family f, enum mesh_cell_type t)
{
	switch (f) {
	case FE_P0: return 1;
	case FE_P1:
	case FE_Q1: return mesh_cell_nv(t);
	case FE_P2: return mesh_cell_nv(t) + fe_ref_nedges(t);
	case FE_HERMITE3: return 4;
	}
	return 0;
}

int fe_ref_degree(enum fe_family f)
{
	static const int d[] = { 0, 1, 2, 1, 3 };
	return d[f];
}

void fe_ref_nodes(enum fe_family f, enum mesh_cell_type t, double *nodes)
{
	int d = mesh_cell_dim(t), nv = mesh_cell_nv(t);
	const double *v = mesh_cell_ref_vertex(t);

	switch (f) {
	case FE_P0:
		for (int l = 0; l < d; l++) {
			double s = 0;
			for (int i = 0; i < nv; i++)
				s += v[i * d + l];
			nodes[l] = s / nv;
		}
		return;
	case FE_P1:
	case FE_Q1:
		memcpy(nodes, v, (size_t)(nv * d) * sizeof *v);
		return;
	case FE_P2:
		memcpy(nodes, v, (size_t)(nv * d) * sizeof *v);
		for (int e = 0; e < fe_ref_nedges(t); e++) {
			const int *ev = fe_ref_edge(t, e);
			for (int l = 0; l < d; l++)
				nodes[(nv + e) * d + l] = 0.5 * (v[ev[0] * d + l] + v[ev[1] * d + l]);
		}
		return;
	case FE_HERMITE3:
		nodes[0] = nodes[1] = 0;
		nodes[2] = nodes[3] = 1;
		return;
	}
}

void fe_ref_eval(enum fe_family f, enum mesh_cell_type t, const double *xi,
                 double *phi, double *dphi, double *d2phi)
{
	int d = mesh_cell_dim(t), nv = mesh_cell_nv(t), nb = fe_ref_nbasis(f, t);
	double lam[4], dlam[12], s;

	if (d2phi)
		memset(d2phi, 0, (size_t)(nb * d * d) * sizeof *d2phi);
	switch (f) {
	case FE_P0:
		if (phi)
			phi[0] = 1;
		if (dphi)
			memset(dphi, 0, (size_t)d * sizeof *dphi);
		return;
	case FE_P1:
		mesh_cell_basis(t, xi, phi, dphi);
		return;
	case FE_Q1:
		mesh_cell_basis(t, xi, phi, dphi);
		if (d2phi && t != MESH_INTERVAL) {
			/* ∂²/∂ξ_l∂ξ_m of a product of (1 − ξ) or ξ factors: the
			 * factors' slopes ±1 for l and m, the others' values. */
			const double *v = mesh_cell_ref_vertex(t);
			for (int i = 0; i < nv; i++)
				for (int l = 0; l < d; l++)
					for (int m = 0; m < d; m++) {
						if (l == m)
							continue;
						s = 1;
						for (int k = 0; k < d; k++) {
							int one = v[i * d + k] != 0;
							if (k == l || k == m)
								s *= one ? 1 : -1;
							else
								s *= one ? xi[k] : 1 - xi[k];
						}
						d2phi[(i * d + l) * d + m] = s;
					}
		}
		return;
	case FE_P2:
		/* Barycentric form: vertex i λ_i(2λ_i − 1), edge (i, j) 4λ_iλ_j. */
		mesh_cell_basis(t, xi, lam, dlam);
		for (int i = 0; i < nv; i++) {
			if (phi)
				phi[i] = lam[i] * (2 * lam[i] - 1);
			for (int l = 0; l < d; l++) {
				if (dphi)
					dphi[i * d + l] = (4 * lam[i] - 1) * dlam[i * d + l];
				if (d2phi)
					for (int m = 0; m < d; m++)
						d2phi[(i * d + l) * d + m] = 4 * dlam[i * d + l] * dlam[i * d + m];
			}
		}
		for (int e = 0; e < fe_ref_nedges(t); e++) {
			int a = fe_ref_edge(t, e)[0], b = fe_ref_edge(t, e)[1], k = nv + e;
			if (phi)
				phi[k] = 4 * lam[a] * lam[b];
			for (int l = 0; l < d; l++) {
				if (dphi)
					dphi[k * d + l] = 4 * (dlam[a * d + l] * lam[b] + lam[a] * dlam[b * d + l]);
				if (d2phi)
					for (int m = 0; m < d; m++)
						d2phi[(k * d + l) * d + m] =
							4 * (dlam[a * d + l] * dlam[b * d + m] +
							     dlam[b * d + l] * dlam[a * d + m]);
			}
		}
		return;
	case FE_HERMITE3:
		s = xi[0];
		if (phi) {
			phi[0] = 1 - 3 * s * s + 2 * s * s * s;
			phi[1] = s - 2 * s * s + s * s * s;
			phi[2] = 3 * s * s - 2 * s * s * s;
			phi[3] = -s * s + s * s * s;
		}
		if (dphi) {
			dphi[0] = -6 * s + 6 * s * s;
			dphi[1] = 1 - 4 * s + 3 * s * s;
			dphi[2] = 6 * s - 6 * s * s;
			dphi[3] = -2 * s + 3 * s * s;
		}
		if (d2phi) {
			d2phi[0] = -6 + 12 * s;
			d2phi[1] = -4 + 6 * s;
			d2phi[2] = 6 - 12 * s;
			d2phi[3] = -2 + 6 * s;
		}
		return;
	}
}

/* ---- Quadrature ---- */

void fe_gauss_legendre(int n, double *x, double *w)
{
	/* Newton's method on P_n from Tricomi's estimate of its roots; P_n by
	 * the three-term recurrence, P_n' = n (x P_n − P_{n−1}) / (x² − 1),
	 * w = 2 / ((1 − x²) P_n'²) on [−1, 1], then mapped to [0, 1]. */
	for (int i = 0; i < (n + 1) / 2; i++) {
		double z = cos(3.14159265358979323846 * (i + 0.75) / (n + 0.5)), dp = 1;
		for (int it = 0; it < 100; it++) {
			double p0 = 1, p1 = z, dz;
			for (int k = 2; k <= n; k++) {
				double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
				p0 = p1;
				p1 = p2;
			}
			dp = n * (z * p1 - p0) / (z * z - 1);
			dz = p1 / dp;
			z -= dz;
			if (fabs(dz) < 1e-16)
				break;
		}
		{
			double p0 = 1, p1 = z;
			for (int k = 2; k <= n; k++) {
				double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
				p0 = p1;
				p1 = p2;
			}
			dp = n * (z * p1 - p0) / (z * z - 1);
		}
		double wi = 1 / ((1 - z * z) * dp * dp);  /* 2/(…) halved for [0,1] */
		x[i] = 0.5 * (1 - z);
		x[n - 1 - i] = 0.5 * (1 + z);
		w[i] = w[n - 1 - i] = wi;
	}
	if (n % 2)
		x[n / 2] = 0.5;
}

static int quad_alloc(struct fe_quad *q, int n, int dim, int degree)
{
	q->n = n;
	q->dim = dim;
	q->degree = degree;
	q->xi = mem_alloc((size_t)(n * dim) * sizeof *q->xi);
	q->w = mem_alloc((size_t)n * sizeof *q->w);
	if (!q->xi || !q->w) {
		fe_quad_free(q);
		return -1;
	}
	return 0;
}

void fe_quad_free(struct fe_quad *q)
{
	free(q->xi);
	free(q->w);
	q->xi = q->w = NULL;
	q->n = 0;
}

/* Gauss points for degree p: ⌈(p + 1)/2⌉, at least one. */
static int npoints(int p)
{
	return p < 1 ? 1 : (p + 2) / 2;
}

/* The tensor rule with n points per axis on [0,1]^d. */
static int tensor(struct fe_quad *q, int d, int n, int degree)
{
	double x[FE_QUAD_MAX_DEGREE], w[FE_QUAD_MAX_DEGREE];
	int tot = d == 1 ? n : d == 2 ? n * n : n * n * n;

	if (quad_alloc(q, tot, d, degree))
		return -1;
	fe_gauss_legendre(n, x, w);
	for (int i = 0; i < tot; i++) {
		int r = i;
		q->w[i] = 1;
		for (int l = 0; l < d; l++) {
			q->xi[i * d + l] = x[r % n];
			q->w[i] *= w[r % n];
			r /= n;
		}
	}
	return 0;
}

/* The conical product (Stroud 1971, §2.7; the Duffy map) on the unit
 * triangle, x = u, y = (1 − u) v, dx dy = (1 − u) du dv, and on the unit
 * tetrahedron, x = u, y = (1 − u) v, z = (1 − u)(1 − v) s,
 * dx dy dz = (1 − u)²(1 − v) du dv ds: a polynomial of degree p becomes of
 * degree p + d − 1 in u, p + d − 2 in v, ..., whence the point counts. */
static int conical(struct fe_quad *q, int d, int p)
{
	double xu[FE_QUAD_MAX_DEGREE], wu[FE_QUAD_MAX_DEGREE];
	double xv[FE_QUAD_MAX_DEGREE], wv[FE_QUAD_MAX_DEGREE];
	double xs[FE_QUAD_MAX_DEGREE], ws[FE_QUAD_MAX_DEGREE];
	int nu = npoints(p + d - 1), nv = npoints(p + d - 2), ns = d == 3 ? npoints(p) : 1;
	int k = 0;

	if (quad_alloc(q, nu * nv * ns, d, p))
		return -1;
	fe_gauss_legendre(nu, xu, wu);
	fe_gauss_legendre(nv, xv, wv);
	fe_gauss_legendre(ns, xs, ws);
	for (int i = 0; i < nu; i++)
		for (int j = 0; j < nv; j++)
			for (int l = 0; l < ns; l++, k++) {
				double u = xu[i], v = xv[j];
				q->xi[k * d] = u;
				q->xi[k * d + 1] = (1 - u) * v;
				if (d == 2) {
					q->w[k] = wu[i] * wv[j] * (1 - u);
				} else {
					q->xi[k * d + 2] = (1 - u) * (1 - v) * xs[l];
					q->w[k] = wu[i] * wv[j] * ws[l] * (1 - u) * (1 - u) * (1 - v);
				}
			}
	return 0;
}

/* Points given by barycentric orbits: each row (λ1, λ2[, λ3]) is a point
 * in cartesian coordinates of the unit simplex (the λ of vertices 1..d). */
static int table(struct fe_quad *q, int d, int n, const double *pts, const double *w, int degree)
{
	if (quad_alloc(q, n, d, degree))
		return -1;
	memcpy(q->xi, pts, (size_t)(n * d) * sizeof *pts);
	memcpy(q->w, w, (size_t)n * sizeof *w);
	return 0;
}

/* Fully symmetric rules as orbits of barycentric coordinates, from
 * doc/fe_rules.py: the orbit structures and starting values of Dunavant
 * (1985, "High degree efficient symmetrical Gaussian quadrature rules for
 * the triangle", rules 4, 6 and 8 with positive weights) and of the
 * 14-point degree-5 rule of the tetrahedron (Walkington 2000, "Quadrature
 * on simplices of arbitrary dimension"), refined to 40 digits on the
 * moment equations.  S3: the centroid; S21 (a, a, 1 − 2a); S111 (a, b,
 * 1 − a − b); S31 (a, a, a, 1 − 3a); S22 (a, a, 1/2 − a, 1/2 − a). */
enum orbit { S3, S21, S111, S31, S22 };
struct orbit_row {
	enum orbit kind;
	double a, b, w;
};

static const struct orbit_row tri4[] = {
	{ S21, 0.44594849091596488632, 0, 0.11169079483900573285 },
	{ S21, 0.09157621350977074346, 0, 0.054975871827660933819 },
};
static const struct orbit_row tri6[] = {
	{ S21, 0.24928674517091042129, 0, 0.058393137863189683013 },
	{ S21, 0.06308901449150222834, 0, 0.02542245318510340846 },
	{ S111, 0.053145049844816947353, 0.31035245103378440542, 0.041425537809186787597 },
};
static const struct orbit_row tri8[] = {
	{ S3, 0, 0, 0.072157803838893584126 },
	{ S21, 0.45929258829272315603, 0, 0.047545817133642312397 },
	{ S21, 0.17056930775176020662, 0, 0.051608685267359125141 },
	{ S21, 0.050547228317030975458, 0, 0.016229248811599040155 },
	{ S111, 0.0083947774099576053372, 0.26311282963463811342, 0.013615157087217497132 },
};
static const struct orbit_row tet5[] = {
	{ S31, 0.092735250310891226402, 0, 0.012248840519393658257 },
	{ S31, 0.3108859192633006098, 0, 0.0187813209530026418 },
	{ S22, 0.045503704125649649492, 0, 0.007091003462846911073 },
};

/* The points of the orbits, in cartesian coordinates (the λ of vertices
 * 1..d: the permutations of the orbit's barycentric coordinates, λ0
 * dropped). */
static int symmetric(struct fe_quad *q, int d, const struct orbit_row *o, int n, int degree)
{
	static const int size[] = { 1, 3, 6, 4, 6 };
	int np = 0, k = 0;

	for (int i = 0; i < n; i++)
		np += size[o[i].kind];
	if (quad_alloc(q, np, d, degree))
		return -1;
	for (int i = 0; i < n; i++) {
		double a = o[i].a, b = o[i].b, c = 1 - a - b, e = 1 - 2 * a;
		double h = 0.5 - a, t = 1 - 3 * a;
		double pts[6][3];
		int m = size[o[i].kind];
		switch (o[i].kind) {
		case S3:
			pts[0][0] = pts[0][1] = 1.0 / 3;
			break;
		case S21:
			pts[0][0] = a; pts[0][1] = a;
			pts[1][0] = a; pts[1][1] = e;
			pts[2][0] = e; pts[2][1] = a;
			break;
		case S111:
			pts[0][0] = a; pts[0][1] = b;
			pts[1][0] = b; pts[1][1] = a;
			pts[2][0] = a; pts[2][1] = c;
			pts[3][0] = c; pts[3][1] = a;
			pts[4][0] = b; pts[4][1] = c;
			pts[5][0] = c; pts[5][1] = b;
			break;
		case S31:
			for (int j = 0; j < 4; j++)
				for (int l = 0; l < 3; l++)
					pts[j][l] = j == l + 1 ? t : a;
			break;
		case S22:
			/* λ0 = a: one a and two halves among λ1..3; λ0 = h: one
			 * h and two a's. */
			for (int j = 0; j < 3; j++)
				for (int l = 0; l < 3; l++) {
					pts[j][l] = l == j ? a : h;
					pts[3 + j][l] = l == j ? h : a;
				}
			break;
		}
		for (int j = 0; j < m; j++, k++) {
			for (int l = 0; l < d; l++)
				q->xi[k * d + l] = pts[j][l];
			q->w[k] = o[i].w;
		}
	}
	return 0;
}

int fe_quad_cell(enum mesh_cell_type t, int degree, struct fe_quad *q,
                 char *err, size_t errlen)
{
	int r;

	memset(q, 0, sizeof *q);
	if (degree < 0 || degree > FE_QUAD_MAX_DEGREE) {
		mesh_errf(err, errlen, "quadrature degree %d is outside 0..%d",
		          degree, FE_QUAD_MAX_DEGREE);
		return -1;
	}
	switch (t) {
	case MESH_INTERVAL:
		r = tensor(q, 1, npoints(degree), degree);
		break;
	case MESH_QUADRILATERAL:
		r = tensor(q, 2, npoints(degree), degree);
		break;
	case MESH_HEXAHEDRON:
		r = tensor(q, 3, npoints(degree), degree);
		break;
	case MESH_TRIANGLE:
		if (degree <= 1) {
			static const double p[] = { 1.0 / 3, 1.0 / 3 }, w[] = { 0.5 };
			r = table(q, 2, 1, p, w, 1);
		} else if (degree == 2) {
			/* Strang and Fix: the midpoints of the medians' halves. */
			static const double p[] = { 1.0 / 6, 1.0 / 6, 2.0 / 3, 1.0 / 6, 1.0 / 6, 2.0 / 3 };
			static const double w[] = { 1.0 / 6, 1.0 / 6, 1.0 / 6 };
			r = table(q, 2, 3, p, w, 2);
		} else if (degree <= 4) {
			r = symmetric(q, 2, tri4, sizeof tri4 / sizeof *tri4, 4);
		} else if (degree == 5) {
			/* Radon's 7-point rule (1948), degree 5: the centroid and
			 * two orbits a_± = (6 ± √15)/21 with weights
			 * (155 ± √15)/2400 (the centroid 9/80). */
			double s = sqrt(15.0), a = (6 - s) / 21, b = (6 + s) / 21;
			double wa = (155 - s) / 2400, wb = (155 + s) / 2400;
			double p[] = { 1.0 / 3, 1.0 / 3, a, a, 1 - 2 * a, a, a, 1 - 2 * a,
			               b, b, 1 - 2 * b, b, b, 1 - 2 * b };
			double w[] = { 9.0 / 80, wa, wa, wa, wb, wb, wb };
			r = table(q, 2, 7, p, w, 5);
		} else if (degree == 6) {
			r = symmetric(q, 2, tri6, sizeof tri6 / sizeof *tri6, 6);
		} else if (degree <= 8) {
			r = symmetric(q, 2, tri8, sizeof tri8 / sizeof *tri8, 8);
		} else {
			r = conical(q, 2, degree);
		}
		break;
	case MESH_TETRAHEDRON:
		if (degree <= 1) {
			static const double p[] = { 0.25, 0.25, 0.25 }, w[] = { 1.0 / 6 };
			r = table(q, 3, 1, p, w, 1);
		} else if (degree == 2) {
			/* Keast's 4-point rule: a = (5 − √5)/20, b = (5 + 3√5)/20. */
			double a = (5 - sqrt(5.0)) / 20, b = (5 + 3 * sqrt(5.0)) / 20;
			double p[] = { a, a, a, b, a, a, a, b, a, a, a, b };
			double w[] = { 1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 24 };
			r = table(q, 3, 4, p, w, 2);
		} else if (degree <= 5) {
			r = symmetric(q, 3, tet5, sizeof tet5 / sizeof *tet5, 5);
		} else {
			r = conical(q, 3, degree);
		}
		break;
	default:
		r = -1;
	}
	if (r) {
		mesh_errf(err, errlen, "out of memory for a quadrature rule");
		return -1;
	}
	q->degree = degree;
	return 0;
}

void fe_ref_facet_tangents(enum mesh_cell_type t, int f, double *T)
{
	int d = mesh_cell_dim(t), fnv = mesh_cell_facet_nv(t);
	const int *fv = mesh_cell_facet(t, f);
	const double *v = mesh_cell_ref_vertex(t);

	for (int k = 0; k < d - 1; k++) {
		/* Tangent k goes from the first vertex to the next (k = 0) or
		 * to the last one (k = 1). */
		int to = k == 0 ? fv[1] : fv[fnv - 1];
		for (int l = 0; l < d; l++)
			T[l * (d - 1) + k] = v[to * d + l] - v[fv[0] * d + l];
	}
}

int fe_quad_facet(enum mesh_cell_type t, int f, int degree, struct fe_quad *q,
                  char *err, size_t errlen)
{
	static const enum mesh_cell_type ftype[] = {
		MESH_INTERVAL /* unused */, MESH_INTERVAL, MESH_INTERVAL,
		MESH_TRIANGLE, MESH_QUADRILATERAL
	};
	int d = mesh_cell_dim(t);
	const int *fv = mesh_cell_facet(t, f);
	const double *v = mesh_cell_ref_vertex(t);
	struct fe_quad fq;
	double T[6];

	memset(q, 0, sizeof *q);
	if (d == 1) {
		if (quad_alloc(q, 1, 1, degree)) {
			mesh_errf(err, errlen, "out of memory for a quadrature rule");
			return -1;
		}
		q->xi[0] = v[fv[0]];
		q->w[0] = 1;
		return 0;
	}
	if (fe_quad_cell(ftype[d == 2 ? 1 : t == MESH_TETRAHEDRON ? 3 : 4], degree, &fq, err, errlen))
		return -1;
	if (quad_alloc(q, fq.n, d, degree)) {
		fe_quad_free(&fq);
		mesh_errf(err, errlen, "out of memory for a quadrature rule");
		return -1;
	}
	fe_ref_facet_tangents(t, f, T);
	for (int i = 0; i < fq.n; i++) {
		for (int l = 0; l < d; l++) {
			double x = v[fv[0] * d + l];
			for (int k = 0; k < d - 1; k++)
				x += T[l * (d - 1) + k] * fq.xi[i * (d - 1) + k];
			q->xi[i * d + l] = x;
		}
		q->w[i] = fq.w[i];
	}
	fe_quad_free(&fq);
	return 0;
}
