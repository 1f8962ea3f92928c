/* fe_assemble.h — the operator of a quadratic form with constant
 * coefficients over the cells (or facets) of a mesh, assembled cell by
 * cell in C (doc/DESIGN.md, "Integrals: finite elements as kernels").
 *
 * A density that is a homogeneous quadratic form with constant
 * coefficients of the *features* of the fields at a point — the value of
 * a component, or one partial derivative of it — is ½ fᵀ D f with D its
 * constant Hessian in the features, found once per integral.  The
 * Hessian of Σ_q w_q|det J| density(ξ_q) in the cell's local dofs is then
 *     K_e = Σ_q w_q|det J| B_qᵀ D B_q,
 * B_q the features' values per local dof (φ_a or ∂φ_a/∂x_k at ξ_q, the
 * cell's Jacobian applied by fe_tab_cell): the reference element matrix
 * transformed by the cell's geometry.  fe_form_assemble computes K_e per
 * cell and adds it into compressed columns whose pattern it builds first
 * from the connectivity, so that time is O(cells) and memory O(nonzeros);
 * no per-cell program is evaluated and no triplet kept. */
#ifndef DYN_FE_ASSEMBLE_H
#define DYN_FE_ASSEMBLE_H
#include <stddef.h>
#include "fe_space.h"
#include "mesh.h"

enum { FE_FORM_MAXFIELD = 4, FE_FORM_MAXFEAT = 64, FE_FORM_MAXSLOT = 64 };

/* A feature: component comp of field `field` of the form (its value when
 * deriv is −1, else its partial derivative in x_deriv). */
struct fe_feature {
	int field, comp, deriv;
};

struct fe_form {
	const struct mesh *mesh;
	const struct mesh_region *region;  /* NULL: every cell; else a CELLS
	                                      or FACETS region of mesh */
	int degree;                        /* of the quadrature */
	int nfield;
	const struct fe_space *space[FE_FORM_MAXFIELD];  /* on mesh */
	const long *dof[FE_FORM_MAXFIELD];  /* space dof → unknown (0-based),
	                                       −1 when eliminated */
	int nfeat;
	struct fe_feature feat[FE_FORM_MAXFEAT];
	double *D;                          /* nfeat × nfeat, symmetric */
	int part, c0, c1;                   /* part: columns c0 .. c1 − 1
	                                       alone (a process's rows of a
	                                       partitioned run), the others
	                                       left empty */
};

/* An n×n matrix in compressed columns, rows sorted in each column.  p is
 * malloc'ed; i and x are from alloc(ctx, bytes) when alloc is set (the
 * caller's arena: then the caller owns them, and they may be longer than
 * p[n]), else malloc'ed. */
struct fe_csc {
	int n;
	int *p, *i;
	double *x;
	void *(*alloc)(void *ctx, size_t size);
	void *ctx;
};

/* What the elimination of held unknowns (fix) takes out of a mass's
 * inertia under a rigid translation, the unit motion along a direction
 * of every value node, held ones included (derivative nodes, a Hermite
 * slope, 0): modes()'s participation is φᵀ (M w)_free, whose held
 * columns fix removes, and the body's mass along the direction wᵀ M w
 * has held rows.  fe_form_assemble, given one, adds c_i += Σ K_e[s][t]
 * over the held value slots t of component 0 (x) for each kept row i of
 * slot s (a consistent mass: a lumped one has those columns in its row
 * sums already), and A[p][q] += Σ K_e[s][t] over the held value slots s
 * of component p and the value slots t of component q: wᵀ M w of a
 * direction dir gains dirᵀ A dir. */
struct fe_held {
	double *c;    /* n */
	double A[3][3];
};

/* The Hessian of Σ_instances Σ_q w_q|det J| ½ fᵀ D f in the n unknowns:
 * entries of eliminated unknowns (dof −1) dropped; lumped: each row's sum
 * over the whole element (eliminated neighbours included) on the
 * diagonal.  Entries that sum to exactly 0 are left out.  The values are
 * exactly symmetric.  With f->part (not lumped), the columns c0 .. c1 − 1
 * alone, from the instances that reach them: the whole operator's
 * columns to the bit, at their share of the time and memory.  Returns 0, or −1 with a message in err (out of
 * memory, a degenerate cell, more than 2³¹ entries). */
int fe_form_assemble(const struct fe_form *f, int n, int lumped, struct fe_csc *A, struct fe_held *held, char *err,
                     size_t errlen);
/* Free what A owns (p; i and x when malloc'ed). */
void fe_csc_free(struct fe_csc *A);

#endif
