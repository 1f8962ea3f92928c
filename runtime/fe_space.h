/* fe_space.h — finite-element spaces on a mesh: the numbering of the
 * degrees of freedom, the cell-to-dof table, the dofs of a region, the
 * coordinates of dofs, and the tabulation of the physical basis at the
 * quadrature points of a cell or a facet.
 *
 * Numbering (dyn(5), "Meshes and finite elements" in doc/DESIGN.md):
 *
 * - A space has `nnode` scalar *nodes* (the points carrying one basis
 *   function each) and `ncomp` components per node; global dof
 *   = node·ncomp + component ("node-major, interleaved": x, y per node).
 *   Local dof of a cell = local node·ncomp + component, the local nodes in
 *   the order of fe_ref.h.
 * - P1, Q1: node i is mesh node i.
 * - P2: nodes 0 .. nnodes−1 are the mesh nodes (vertices), then one node
 *   per edge, numbered in the order edges are first met walking the cells
 *   in order and their local edges in fe_ref.h order; an edge shared by
 *   cells has one node.
 * - HERMITE3 (intervals): mesh node i carries node 2i (the value w) and
 *   node 2i+1 (the derivative w').
 * - P0: node c is cell c.
 */
#ifndef DYN_FE_SPACE_H
#define DYN_FE_SPACE_H

#include <stddef.h>

#include "fe_ref.h"
#include "mesh.h"

struct fe_space {
	const struct mesh *mesh;   /* not owned; must outlive the space */
	enum fe_family family;
	int ncomp;                 /* 1 (scalar) .. 3 (P1^d, P2^d) */
	int nloc;                  /* local nodes per cell */
	int ndof_cell;             /* nloc·ncomp local dofs per cell */
	long nnode;                /* scalar nodes */
	long ndofs;                /* nnode·ncomp */
	const int32_t *cell_nodes; /* ncells × nloc node numbers: the mesh's
	                            * own cell table for P1 and Q1 */
	int32_t *own_nodes;        /* cell_nodes when the space made them */
	const double *node_x;      /* nnode × dim: where each node sits (the
	                            * mesh's x for P1 and Q1) */
	double *own_x;             /* node_x when the space made them */
	unsigned char *node_kind;  /* nnode: FE_NODE_VALUE or FE_NODE_DERIV */
};

enum { FE_NODE_VALUE = 1, FE_NODE_DERIV = 2 };

/* The global dof of local dof l of cell c: local node l / ncomp, its
 * component l % ncomp (the numbering above).  Computed, not tabled: a
 * table would be ncells × ndof_cell longs (181 MB for a cube of 10^6
 * P1^3 unknowns). */
static inline long fe_space_cell_dof(const struct fe_space *s, long c, int l)
{
	return (long)s->cell_nodes[c * s->nloc + l / s->ncomp] * s->ncomp + l % s->ncomp;
}

/* Make the space of family f with ncomp components on m.  Refuses a
 * family not defined on the mesh's cells (fe_ref_supported's message) and
 * ncomp outside 1..3.  Returns NULL with a message in err.
 *
 * P0 takes up to FE_SPACE_MAX_POINTS components: the space of values at
 * the nq points of a cell's quadrature rule (an internal variable
 * `: Q`, lang/fe.c) is P0 with ncomp = nq, component q being the value
 * at point q, dof c·nq + q. */
enum { FE_SPACE_MAX_POINTS = 1024 };
struct fe_space *fe_space_make(const struct mesh *m, enum fe_family f, int ncomp,
                               char *err, size_t errlen);
void fe_space_free(struct fe_space *s);

/* An order of the space's nodes for a partition of the unknowns into
 * contiguous blocks (dyn(1), MPI): a Gmsh mesh's own numbering may couple
 * every block to every other.  When a reverse Cuthill–McKee order
 * (la_rcm) of the graph of nodes sharing a cell at least halves the
 * natural order's bandwidth, order[k] is the node placed k-th (s->nnode
 * entries): with nparts > 1 and part (s->nnode entries), the parts of
 * PETSc's partition of that graph (la_mpi_graph_partition: collective)
 * one after the other, part[i] node i's, each part in the narrow order
 * (2), else the narrow order alone (1).  0 when the natural order is to
 * be kept (order then holds nothing of use; always for P0 and a single
 * node, and for a graph beyond 2^31 − 1 entries), -1 when out of memory,
 * -2 when PETSc refused -mat_partitioning_type (la_backend_failure says
 * why). */
int fe_space_node_order(const struct fe_space *s, int nparts, int *order, int *part);

/* The dofs of region r (sorted, distinct), for `fix` and constraints:
 * the nodes lying on r (for P2 on a FACETS region, the edge nodes of its
 * facets too; for CELLS, every node of its cells; P0: the cells of a CELLS
 * region, nothing else), of component comp (0 .. ncomp−1) or of every
 * component (comp = −1), of the node kinds in the mask kinds
 * (FE_NODE_VALUE | FE_NODE_DERIV; 0 means both).  Returns the number of
 * dofs with *dofs malloc'ed (NULL when none), or −1 with a message. */
long fe_space_region_dofs(const struct fe_space *s, const struct mesh_region *r,
                          int comp, int kinds, long **dofs,
                          char *err, size_t errlen);

/* The physical basis of a space at the points of a rule, for one cell or
 * one facet: what the kernel of an integral needs per instance. */
struct fe_tab {
	int nq, nloc, dim;
	double *x;       /* nq × dim: the physical points */
	double *wdet;    /* nq: the weight times |det J| (cell) or times the
	                  * facet's measure factor |J T| (facet), so that
	                  * ∫ f ≈ Σ_q wdet[q] f(x_q) */
	double *phi;     /* nq × nloc */
	double *dphi;    /* nq × nloc × dim: physical gradients J^-T ∇_ξ phi */
	double *d2phi;   /* nq × nloc × dim × dim physical second derivatives,
	                  * or NULL when not asked (affine cells only) */
	double *normal;  /* nq × dim: outward unit normal (facets; not set
	                  * by fe_tab_cell) */
	/* Private: the reference basis and geometric basis at the points of
	 * the rule last used (its points kept to recognise it), so that a
	 * loop over cells evaluates them once. */
	double *ref_xi, *rphi, *rdphi, *rd2phi, *gphi, *gdphi;
	double *J, *det;  /* per point: the Jacobian (9 values), its det */
	int ref_valid;
};

/* Allocate a table for space s and rule q (second: also the second
 * derivatives; refused on quadrilaterals and hexahedra, whose map is not
 * affine).  Returns 0 or −1 with a message. */
int fe_tab_alloc(struct fe_tab *t, const struct fe_space *s, const struct fe_quad *q,
                 int second, char *err, size_t errlen);
void fe_tab_free(struct fe_tab *t);

/* Fill t for cell c with rule q (from fe_quad_cell), or for local facet f
 * of cell c with rule q (from fe_quad_facet for that facet).  No
 * allocation.  Returns 0, or −1 when the cell is degenerate or inverted
 * (det J ≤ 0 at a point; message names the cell). */
int fe_tab_cell(struct fe_tab *t, const struct fe_space *s, long c,
                const struct fe_quad *q, char *err, size_t errlen);
int fe_tab_facet(struct fe_tab *t, const struct fe_space *s, long c, int f,
                 const struct fe_quad *q, char *err, size_t errlen);

/* The value at reference point xi of cell c of a field u (ndofs values
 * in this space): out[0 .. ncomp−1].  For records at a point, after
 * mesh_locate. */
void fe_space_eval(const struct fe_space *s, long c, const double *xi,
                   const double *u, double *out);

#endif
