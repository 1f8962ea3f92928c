/* mesh_impl.h — what the mesh modules (mesh.c, mesh_gmsh.c, fe_space.c)
 * share and the rest of dyn does not need: building a mesh and its
 * regions, small dense algebra. */
#ifndef DYN_MESH_IMPL_H
#define DYN_MESH_IMPL_H

#include <stddef.h>

#include "mesh.h"

#if defined(__GNUC__)
#define MESH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MESH_PRINTF(a, b)
/* The local edges of the P2 element (fe_ref.h's order): their number on
 * cells of type t (0 on quadrilaterals and hexahedra) and the two local
 * vertices of edge e. */
int fe_ref_nedges(enum mesh_cell_type t);
const int *fe_ref_edge(enum mesh_cell_type t, int e);

#endif

/* snprintf into err (nothing when errlen is 0). */
void mesh_errf(char *err, size_t errlen, const char *fmt, ...) MESH_PRINTF(3, 4);

/* A mesh with room for nnodes nodes and ncells cells, no regions; NULL
 * with a message when out of memory. */
struct mesh *mesh_new(enum mesh_cell_type t, long nnodes, long ncells,
                      char *err, size_t errlen);

/* Append an empty region (its arrays NULL); NULL when out of memory.  The
 * caller fills cell/facet and n (CELLS, FACETS) or nodes and nnodes
 * (NODES), then calls mesh_region_finish, which sorts the cells, derives
 * fnodes and the sorted distinct nodes; −1 when out of memory. */
struct mesh_region *mesh_add_region(struct mesh *m, const char *name,
                                    enum mesh_region_kind kind, int tag);
int mesh_region_finish(const struct mesh *m, struct mesh_region *r);

/* Sort v[0..n) and drop repeats; returns the new length. */
long mesh_sort_unique(long *v, long n);

/* Reorder the vertices of negatively oriented cells; returns the first
 * degenerate cell, or −1 when none. */
long mesh_orient(struct mesh *m);

/* Determinant and inverse (K = J⁻¹, given det J) of a d × d matrix. */
double mesh_det(int d, const double *J);
void mesh_inv(int d, const double *J, double det, double *K);

/* The local edges of the P2 element (fe_ref.h's order): their number on
 * cells of type t (0 on quadrilaterals and hexahedra) and the two local
 * vertices of edge e. */
int fe_ref_nedges(enum mesh_cell_type t);
const int *fe_ref_edge(enum mesh_cell_type t, int e);

#endif
