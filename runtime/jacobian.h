/* jacobian.h — the Jacobian of a nonlinear stage (stage.h) in the matrix
 * layer (la.h), for models beyond the dense path: its pattern is gathered
 * once per run from every source the stage adds — the mass, K and C, the
 * Hessian entries of the scalar parts of Φ and Ψ, the kernels' entries
 * (runtime/kernel.c), the constraint gradients G and Gᵀ of the saddle
 * point and the constraints' Hessians — with the whole diagonal; each
 * source keeps the slot of each of its entries, so that a Newton iteration
 * refills the values in O(nnz) without searching or allocating. */
#ifndef DYN_JACOBIAN_H
#define DYN_JACOBIAN_H

#include <stddef.h>

#include "problem.h"

struct jacobian {
	struct la_mat A;            /* order N: the stage's unknowns, then nc multipliers */
	int N;
	int *row, *col;             /* the entry of each slot of A->x (row -1: band padding) */
	ptrdiff_t *diag;            /* N: the slot of a_ii */
	/* the slot of each entry of a source, in the order of its values */
	ptrdiff_t *sM, *sK, *sC;    /* pb->Mm->x, Km->x, Cm->x (-1: padding) */
	ptrdiff_t *sphi, *spsi;     /* the scalar parts' Hessian entries (ir_func row, col) */
	ptrdiff_t *skphi, *skpsi;   /* the kernels' entries (rt_kernels_entries' order) */
	ptrdiff_t *sgu, *sgl;       /* constraint gradient q: (gi, n' + gk) and (n' + gk, gi) */
	ptrdiff_t *sch;             /* constraint Hessian entry q: (hi, hj) */
	/* a mass depending on u: the entries through which the midpoint
	 * rule's momentum and ∂T/∂u depend on the stage's unknowns
	 * (jacobian_kinetic_entries), filled by differences
	 * (runtime/midpoint_varmass.c) */
	ptrdiff_t *skin;
	size_t nkin;
	/* the slots of each row (for soft-thresholding rows: scaled or
	 * replaced), when the model has such rows */
	size_t *rp;                 /* N + 1 */
	ptrdiff_t *rs;
	/* formulation = ggl (jacobian_init_ggl): nc velocity rows and nc μ
	 * columns after the multipliers, at V = pb->N + nc */
	int ggl;
	ptrdiff_t *svg, *svh;       /* velocity rows: G entry q at (V + gk, gi),
	                               Hessian entry q at (V + hk, hi) */
	ptrdiff_t *sgmu, *svmu;     /* nc × nc: (pb->N + k, V + l), (V + k, V + l) */
	size_t *mup;                /* ngrad + 1: G entry q's μ-column pairs */
	ptrdiff_t *mus, *mut;       /* a slot (a, gi[q]) of the u block, and the
	                               slot (a, V + gk[q]) it feeds */
};

/* The pattern for pb with nc multiplier rows after the pb->N unknowns,
 * stored as kind (LA_MAT_AUTO: dense when small, banded when narrow,
 * compressed columns otherwise).  0, or -1 when out of memory
 * (jacobian_free in both cases). */
int jacobian_init(struct jacobian *J, struct rt_problem *pb, int nc, enum la_mat_kind kind);
void jacobian_free(struct jacobian *J);
/* The entries (r[q], c[q]) (NULL: counted only) of the derivative of
 * 2 M(u)w − τ ∂T/∂u(u, w) with u = u₀ + τw/2 in w, for entry e of M(u)
 * at (k, l) depending on the dofs D(e): (k, l), (k, j), (j, k), (j, l)
 * and (j, j') for j, j' in D(e) (struct ir_kinetic).  Returns their
 * number, duplicates included. */
size_t jacobian_kinetic_entries(const struct ir_kinetic *k, int *r, int *c);
/* The same with the rows and columns of formulation = ggl (stage.h): the
 * velocity rows on the pattern of G and of the constraints' Hessians, the
 * μ columns ∂R/∂u (cu/cue) G(ū)ᵀ on the u block's columns of G's dofs,
 * and the nc × nc blocks; stored in compressed columns. */
int jacobian_init_ggl(struct jacobian *J, struct rt_problem *pb, int nc);

/* x += diag(cr) H diag(cc) for the Hessian H of the last problem_phi
 * (K, the scalar part, the kernels), or of the last problem_psi (C, ...). */
void jacobian_add_phi(const struct jacobian *J, const struct rt_problem *pb, const double *cr, const double *cc,
                      double *x);
void jacobian_add_psi(const struct jacobian *J, const struct rt_problem *pb, const double *cr, const double *cc,
                      double *x);
/* x += coef M (the constant mass). */
void jacobian_add_mass(const struct jacobian *J, const struct rt_problem *pb, double coef, double *x);
/* From the last problem_constraints: the columns of the multipliers, x +=
 * coef Gᵀ; the rows of the constraints, x += G diag-scaled per row by
 * w[k]; the Hessians, x += coef Σ_k λ_k ∇²c_k. */
void jacobian_add_gt(const struct jacobian *J, const struct rt_problem *pb, double coef, double *x);
void jacobian_add_g(const struct jacobian *J, const struct rt_problem *pb, const double *w, double *x);
void jacobian_add_constraint_hess(const struct jacobian *J, const struct rt_problem *pb, const double *lambda,
                                  double coef, double *x);
/* Row r: scaled by c, or set to the row of the identity times d. */
void jacobian_scale_row(const struct jacobian *J, int r, double c, double *x);
void jacobian_unit_row(const struct jacobian *J, int r, double d, double *x);

#endif
