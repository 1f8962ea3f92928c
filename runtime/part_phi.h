/* part_phi.h — a potential's kernels on this process's rows (dyn(1),
 * MPI): the explicit step of central differences on a nonlinear energy,
 * each process evaluating only the kernel instances (a finite element's
 * quadrature points) that reach its rows.
 *
 * The rows are split as for a quadratic potential (part.h), on the
 * pattern of the potential's Hessian.  An instance that reads an owned
 * row is evaluated by this process, so the gradient of each owned row
 * gathers every instance's term, in the serial order (the same bits);
 * the instances across a border are evaluated by both sides.  Its value
 * enters Φ on one process only, that of the lowest row it reads.  The
 * Hessian's owned columns (the rows, K(u) being symmetric) are added
 * into part.h's column store, for the stability monitor's products
 * (rt_part_phi_omega2). */
#ifndef DYN_PART_PHI_H
#define DYN_PART_PHI_H

#include "kernel.h"
#include "part.h"

struct rt_part_phi {
	struct rt_part *p;
	struct rt_kernels *ks;
	int n;
	const double *m;     /* M's diagonal */
	/* per kernel: the instances reached, ascending; whether this
	 * process adds each one's value; each Hessian entry's place in
	 * p->kx (-1: a column another process owns) */
	long **inst, *ninst;
	unsigned char **val;
	int **slot;
	/* the monitor's iterates and scratch (n each: owned rows and ghosts) */
	double *x1, *x2, *y, *t;
	int warm1, warm2;
};

/* The instances of ks (a potential's kernels over n dofs, no internal
 * variables, each with its complete Hessian block) that reach p's rows.
 * 0, or -1 when out of memory. */
int rt_part_phi_init(struct rt_part_phi *q, struct rt_part *p, struct rt_kernels *ks, int n, const double *mdiag);
void rt_part_phi_free(struct rt_part_phi *q);

/* Φ's kernels at u (owned rows and ghosts current): g's owned rows get
 * the gradient (the other rows are not touched), p->kx the Hessian's
 * owned columns; returns this process's share of the value (the sum
 * over the processes is the kernels' value). */
double rt_part_phi_eval(struct rt_part_phi *q, const struct vm_input *in, const double *u, double *g);

/* ω_max² of K φ = ω² M φ for the Hessian of the last evaluation, by
 * la_eig_power on the owned rows as omega.c runs it on all (it
 * iterations at most, 500 the first time), into *w2; collective.  0, or
 * -1 when MPI fails. */
int rt_part_phi_omega2(struct rt_part_phi *q, int it, double *w2);

#endif
