/* fe_ref.h — reference finite elements and quadrature rules.
 *
 * Reference cells, vertex order and local facets are those of mesh.h: the
 * unit simplex and the unit cube [0,1]^d.
 *
 * Element families (enum fe_family) and the local order of their basis
 * functions ("local nodes"; a vector field has ncomp values per local node,
 * see fe_space.h):
 *   P0         every cell: one constant (local node at the centroid).
 *   P1         interval, triangle, tetrahedron: the vertices.
 *   P2         interval: v0, v1, then the midpoint;
 *              triangle: v0, v1, v2, then the midpoints of the edges
 *                (0,1), (1,2), (2,0);
 *              tetrahedron: v0..v3, then the edges (0,1), (1,2), (2,0),
 *                (0,3), (1,3), (2,3)
 *              (VTK's VTK_QUADRATIC_EDGE, _TRIANGLE and _TETRA order).
 *   Q1         quadrilateral, hexahedron: the vertices (bilinear,
 *              trilinear).  Also accepted on intervals and then P1.
 *   HERMITE3   interval only, the cubic Hermite element of Euler–Bernoulli
 *              beams: (w(v0), w'(v0), w(v1), w'(v1)).  In reference
 *              coordinates ξ ∈ [0,1] the basis is
 *                H0 = 1 − 3ξ² + 2ξ³,  H1 = ξ − 2ξ² + ξ³,
 *                H2 = 3ξ² − 2ξ³,      H3 = −ξ² + ξ³,
 *              where H1, H3 carry the derivative in ξ: on a cell of length
 *              h the physical basis functions of the derivative dofs are
 *              h·H1 and h·H3 (fe_tab_cell in fe_space.h applies it).
 *
 * Quadrature rules are exact for polynomials of a requested degree: total
 * degree on simplices, degree in each variable on quadrilaterals and
 * hexahedra (tensor Gauss rules).  Weights sum to the reference cell's
 * measure (1, 1/2, 1, 1/6, 1). */
#ifndef DYN_FE_REF_H
#define DYN_FE_REF_H

#include <stddef.h>

#include "mesh.h"

enum fe_family { FE_P0, FE_P1, FE_P2, FE_Q1, FE_HERMITE3 };

/* The family's name ("P1", "Hermite") for messages. */
const char *fe_family_name(enum fe_family f);

/* Whether family f exists on cells of type t: 1, or 0 with a message
 * naming both ("P2 is not defined on quadrilaterals: use Q1"). */
int fe_ref_supported(enum fe_family f, enum mesh_cell_type t, char *err, size_t errlen);

/* The number of local nodes (scalar basis functions) of f on t. */
int fe_ref_nbasis(enum fe_family f, enum mesh_cell_type t);

/* The polynomial degree of the basis (in each variable on quadrilaterals
 * and hexahedra), for choosing a quadrature: P0 0, P1 and Q1 1, P2 2,
 * HERMITE3 3. */
int fe_ref_degree(enum fe_family f);

/* The reference coordinates of local node a: nodes + a*dim (for HERMITE3
 * the derivative dofs sit at their vertex). */
void fe_ref_nodes(enum fe_family f, enum mesh_cell_type t, double *nodes);

/* The basis at the reference point xi (dim coordinates): phi[a], the
 * reference gradient dphi[a*dim + l] = ∂phi_a/∂xi_l and the second
 * derivatives d2phi[(a*dim + l)*dim + m]; any output may be NULL. */
void fe_ref_eval(enum fe_family f, enum mesh_cell_type t, const double *xi,
                 double *phi, double *dphi, double *d2phi);

/* A quadrature rule: n points xi (n × dim, reference coordinates of the
 * cell, or of the cell again for a facet rule) and weights w. */
struct fe_quad {
	int n;
	int dim;        /* coordinates per point: the cell's dimension */
	int degree;     /* the degree it is exact for */
	double *xi;
	double *w;
};

/* The rule for cells of type t exact to degree (0 ≤ degree ≤ FE_QUAD_MAX_DEGREE):
 *   interval: Gauss–Legendre with ⌈(degree+1)/2⌉ points;
 *   triangle: the centroid (degree 1), Strang and Fix's 3 points
 *     (degree 2), Dunavant's 6 points (3, 4), Radon's 7 (5), Dunavant's
 *     12 (6) and 16 (7, 8), and beyond the conical product of
 *     Gauss–Legendre rules (Stroud 1971, "Approximate calculation of
 *     multiple integrals", the Duffy map);
 *   tetrahedron: the centroid (degree 1), Keast's 4 points (2), the
 *     14-point rule of degree 5 (3 to 5), and the conical product beyond;
 *   quadrilateral, hexahedron: tensor Gauss–Legendre, exact to degree in
 *     each variable.
 * Every weight is positive.  Returns 0, or -1 with a message. */
enum { FE_QUAD_MAX_DEGREE = 40 };
int fe_quad_cell(enum mesh_cell_type t, int degree, struct fe_quad *q,
                 char *err, size_t errlen);

/* The rule on local facet f of t, exact to degree on the facet: points
 * in the CELL's reference coordinates (dim of the cell), weights summing
 * to the facet's reference measure (1 for a point, an edge [0,1] or the
 * unit square, 1/2 for the unit triangle).  The facet's reference map is
 * xi = v_a + Σ_k s_k (v_{k+1} − v_a) over its first vertices (for a
 * square facet (a,b,c,d): xi = a + s0 (b − a) + s1 (d − a)), whose
 * tangents fe_ref_facet_tangents gives; the physical measure of a weight
 * is w·|J T| (fe_tab_facet in fe_space.h computes it). */
int fe_quad_facet(enum mesh_cell_type t, int f, int degree, struct fe_quad *q,
                  char *err, size_t errlen);

/* The dim × (dim − 1) tangents T[l*(dim-1) + k] = ∂xi_l/∂s_k of local
 * facet f's reference map. */
void fe_ref_facet_tangents(enum mesh_cell_type t, int f, double *T);

void fe_quad_free(struct fe_quad *q);

/* The n-point Gauss–Legendre rule on [0, 1] (n ≥ 1): nodes x, weights w,
 * exact to degree 2n − 1; nodes by Newton's method on the Legendre
 * polynomial, to round-off. */
void fe_gauss_legendre(int n, double *x, double *w);

#endif
