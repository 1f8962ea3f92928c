/* mesh.h — meshes of continuum bodies: nodes, cells of one type, named
 * regions; the generators interval, rectangle and cuboid, the Gmsh
 * reader, and point location.
 *
 * Conventions (dyn(5), "Meshes and finite elements" in doc/DESIGN.md):
 *
 * - Node and cell numbers are 0-based `long`s.  Coordinates are x[i*dim + k].
 * - Every cell of a mesh has one type; its vertices are listed in the
 *   order of the reference cell below, positively oriented (the Jacobian
 *   of the map from the reference cell has a positive determinant; the
 *   generators and the Gmsh reader reorder a cell given the other way).
 * - Reference cells (the unit simplex and the unit cube, [0,1]^d):
 *     interval       0: 0          1: 1
 *     triangle       0: (0,0)      1: (1,0)      2: (0,1)
 *     quadrilateral  0: (0,0)  1: (1,0)  2: (1,1)  3: (0,1)
 *     tetrahedron    0: (0,0,0)  1: (1,0,0)  2: (0,1,0)  3: (0,0,1)
 *     hexahedron     0: (0,0,0)  1: (1,0,0)  2: (1,1,0)  3: (0,1,0)
 *                    4: (0,0,1)  5: (1,0,1)  6: (1,1,1)  7: (0,1,1)
 *   which is VTK's order and Gmsh's for these linear cells.
 * - Local facets (mesh_cell_facet): their vertices are listed so that the
 *   facet's own orientation gives the outward normal — in 2-D the edge
 *   (a, b) has outward normal (t_y, -t_x) with t = b - a; in 3-D the face
 *   (a, b, c[, d]) has outward normal along (b - a) × (last - a):
 *     interval       0: {0}  (normal -x)        1: {1}  (normal +x)
 *     triangle       facet i is opposite vertex i:
 *                    0: {1,2}   1: {2,0}   2: {0,1}
 *     quadrilateral  0: {0,1} (η = 0)  1: {1,2} (ξ = 1)
 *                    2: {2,3} (η = 1)  3: {3,0} (ξ = 0)
 *     tetrahedron    facet i is opposite vertex i:
 *                    0: {1,2,3}  1: {0,3,2}  2: {0,1,3}  3: {0,2,1}
 *     hexahedron     0: {0,3,2,1} (ζ = 0)  1: {4,5,6,7} (ζ = 1)
 *                    2: {0,1,5,4} (η = 0)  3: {1,2,6,5} (ξ = 1)
 *                    4: {2,3,7,6} (η = 1)  5: {0,4,7,3} (ξ = 0)
 *
 * Errors are messages written to err (at most errlen bytes, always
 * terminated), never an exit: the functions that can fail return NULL or
 * -1. */
#ifndef DYN_MESH_H
#define DYN_MESH_H

#include <stddef.h>
#include <stdint.h>

enum mesh_cell_type {
	MESH_INTERVAL,       /* 1-D, 2 vertices */
	MESH_TRIANGLE,       /* 2-D, 3 vertices */
	MESH_QUADRILATERAL,  /* 2-D, 4 vertices, bilinear map */
	MESH_TETRAHEDRON,    /* 3-D, 4 vertices */
	MESH_HEXAHEDRON      /* 3-D, 8 vertices, trilinear map */
};

/* What a region is made of. */
enum mesh_region_kind {
	MESH_REGION_CELLS,   /* cells of the mesh (a Gmsh physical group of the
	                      * top dimension): cell[] */
	MESH_REGION_FACETS,  /* facets of cells, the boundary pieces on which
	                      * tractions are integrated: cell[], facet[],
	                      * fnodes[]; in 1-D a facet is an end point */
	MESH_REGION_NODES    /* nodes only (a Gmsh physical point in 2-D or 3-D,
	                      * a physical curve in 3-D): nodes[] */
};

struct mesh_region {
	char *name;
	enum mesh_region_kind kind;
	int tag;              /* the Gmsh physical tag, 0 for a generator's */
	long n;               /* number of cells or facets (0 for NODES) */
	long *cell;           /* CELLS: the cells, increasing;
	                       * FACETS: the cell each facet belongs to */
	int *facet;           /* FACETS: its local facet number in that cell */
	int fnv;              /* FACETS: vertices per facet (1, 2, 3 or 4) */
	long *fnodes;         /* FACETS: n × fnv nodes, in the order of the
	                       * local facet (outward orientation) */
	long nnodes;          /* the distinct nodes of the region */
	long *nodes;          /* increasing */
};

struct mesh_locator;  /* private: the bucket grid of mesh_locate */

struct mesh {
	int dim;                   /* 1, 2 or 3 */
	enum mesh_cell_type type;
	int nv;                    /* vertices per cell */
	long nnodes;
	double *x;                 /* nnodes × dim coordinates */
	long ncells;
	int32_t *cells;            /* ncells × nv nodes, reference order
	                            * (32 bits: MESH_MAX_NODES keeps node
	                            * numbers, and a space's, below 2^31;
	                            * 32 bytes a P1 tetrahedral mesh's
	                            * unknown instead of 64) */
	int nregions;
	struct mesh_region *regions;
	struct mesh_locator *loc;  /* built by mesh_locate after a few scans */
	int scans;                 /* points mesh_locate found by a scan since */
};

/* The shape of a cell type: its dimension, vertices, facets, the facet's
 * cell type (MESH_INTERVAL's facets are points: fnv 1), the vertices of
 * local facet f (a static array of mesh_cell_facet_nv entries), and the
 * name used in messages ("triangle", ...).  The reference coordinates of
 * vertex i are mesh_cell_ref_vertex(type) + i*dim. */
int mesh_cell_dim(enum mesh_cell_type t);
int mesh_cell_nv(enum mesh_cell_type t);
int mesh_cell_nfacets(enum mesh_cell_type t);
int mesh_cell_facet_nv(enum mesh_cell_type t);
const int *mesh_cell_facet(enum mesh_cell_type t, int f);
const double *mesh_cell_ref_vertex(enum mesh_cell_type t);
const char *mesh_cell_name(enum mesh_cell_type t);

/* The vertex basis of the reference cell (the geometric map's, also the
 * P1 and Q1 basis) at xi: phi[i], and dphi[i*dim + l] = ∂phi_i/∂xi_l;
 * either may be NULL. */
void mesh_cell_basis(enum mesh_cell_type t, const double *xi, double *phi, double *dphi);

/* Generators (dyn(5) "mesh").  Regions:
 *   interval(a, b, cells = n): n cells of length (b - a)/n; FACETS regions
 *     left (x = a) and right (x = b), one point each.
 *   rectangle(x0, x1, y0, y1, nx, ny, cells = triangles | quadrilaterals):
 *     nx × ny squares, each cut into two triangles along its diagonal from
 *     (x_i, y_j) to (x_i+1, y_j+1) when type is MESH_TRIANGLE; FACETS
 *     regions left (x = x0), right (x = x1), bottom (y = y0), top (y = y1).
 *     Node (i, j) is number j*(nx + 1) + i.
 *   cuboid(x0, x1, y0, y1, z0, z1, nx, ny, nz, cells = tetrahedra |
 *     hexahedra): nx × ny × nz bricks, each cut into six tetrahedra around
 *     its diagonal from (x_i, y_j, z_k) to (x_i+1, y_j+1, z_k+1) (Kuhn's
 *     subdivision, conforming between bricks) when type is
 *     MESH_TETRAHEDRON; FACETS regions left (x = x0), right (x = x1),
 *     front (y = y0), back (y = y1), bottom (z = z0), top (z = z1).
 *     Node (i, j, k) is number (k*(ny + 1) + j)*(nx + 1) + i.
 * Bounds must be finite and increasing, counts at least 1 and the mesh at
 * most MESH_MAX_NODES nodes.  Returns NULL with a message in err. */
enum { MESH_MAX_NODES = 100000000 };
struct mesh *mesh_interval(double a, double b, long n, char *err, size_t errlen);
struct mesh *mesh_rectangle(double x0, double x1, double y0, double y1,
                            long nx, long ny, enum mesh_cell_type type,
                            char *err, size_t errlen);
struct mesh *mesh_cuboid(double x0, double x1, double y0, double y1,
                         double z0, double z1, long nx, long ny, long nz,
                         enum mesh_cell_type type, char *err, size_t errlen);

/* Read an ASCII Gmsh file, format 4.1 or 2.2 (Gmsh reference manual,
 * "MSH file format").  The cells are the elements of the highest
 * dimension present (linear types only: line 1, triangle 2,
 * quadrangle 3, tetrahedron 4, hexahedron 5; any other type of that
 * dimension is refused by name); node tags may have gaps (nodes are
 * renumbered in the order of the file, unused nodes kept).  Physical
 * groups named in $PhysicalNames become regions of that name (a group
 * without a name is named by its tag, "7"): of the top dimension, CELLS
 * regions; one dimension lower, FACETS regions, each element matched to
 * the facet of a cell it is (an element that is no cell's facet is an
 * error); lower still, NODES regions.  Elements in no physical group of
 * the top dimension are cells all the same.  Every error names the file
 * and line: "file:12: error: ...".  Returns NULL with the message in err. */
struct mesh *mesh_read_gmsh(const char *path, char *err, size_t errlen);

void mesh_free(struct mesh *m);

/* The region of that name, or NULL. */
const struct mesh_region *mesh_region(const struct mesh *m, const char *name);

/* The measure (length, area, volume) of cell c, and the sum over the mesh
 * (the domain's measure); the measure of facet i of a FACETS region. */
double mesh_cell_measure(const struct mesh *m, long c);
double mesh_measure(const struct mesh *m);
double mesh_facet_measure(const struct mesh *m, const struct mesh_region *r, long i);

/* The map from the reference cell of c to the mesh: the point x = F(xi)
 * (dim values) and, when J is not NULL, its Jacobian J[k*dim + l] =
 * ∂x_k/∂xi_l; returns det J. */
double mesh_cell_map(const struct mesh *m, long c, const double *xi,
                     double *x, double *J);

/* Find a cell containing point p (dim coordinates; points on a shared
 * face or within 1e-10 of the cell's size outside the mesh's boundary
 * count as inside) and its reference coordinates xi (the inverse of
 * mesh_cell_map; Newton's method on quadrilaterals and hexahedra).  The
 * first few calls scan the cells (no memory; one pass over the cells a
 * point); later ones build a uniform grid of
 * buckets over the bounding box, about four cells per bucket, so that a
 * search costs O(1) on average.  Either way the cell is the first, in
 * the mesh's order, that holds the point.
 * Returns 0 when found, 1 when p is outside the mesh, -1 when out of
 * memory (message in err). */
int mesh_locate(struct mesh *m, const double *p, long *cell, double *xi,
                char *err, size_t errlen);
/* Free the bucket grid that mesh_locate built (the next call builds it
 * again).  It is as large as the mesh's cells several times over (each
 * cell in every bucket its bounding box meets): a run's point records
 * locate their points while the run is lowered, and the grid is dropped
 * then rather than held beside the run's state. */
void mesh_locator_drop(struct mesh *m);

#endif
