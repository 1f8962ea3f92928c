/* varmass.h — a mass depending on u, M(u) = ∂²T/∂v², on the matrix layer
 * (la.h): its pattern (the constant mass's entries and those of the
 * kinetic energy's Hessian, struct ir_kinetic) fixed once, its values
 * refilled at each configuration, factored by the sparse backends (one
 * symbolic analysis per run).  No n × n array: a model of any size. */
#ifndef DYN_VARMASS_H
#define DYN_VARMASS_H

#include <stddef.h>

#include "problem.h"

struct varmass {
	struct la_mat A;
	ptrdiff_t *sM, *sk;         /* slots of pb->Mm's entries, of the kinetic's */
	struct la_solver *f;
	int factored;               /* the last varmass_factor succeeded */
};

/* 0, or -1 when out of memory (varmass_free in both cases). */
int varmass_init(struct varmass *vm, struct rt_problem *pb);
void varmass_free(struct varmass *vm);
/* A = M(u). */
void varmass_eval(struct varmass *vm, struct rt_problem *pb, const double *u);
/* A = M(u), factored: 0; k > 0 when not positive definite at unknown k
 * (1-based); -1 when out of memory. */
int varmass_factor(struct varmass *vm, struct rt_problem *pb, const double *u);
/* b := M(u)⁻¹ b with the last factorization. */
void varmass_solve(struct varmass *vm, double *b);

#endif
