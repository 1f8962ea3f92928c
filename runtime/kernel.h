/* kernel.h — evaluating the kernels of an energy (ir.h, struct ir_kernel):
 * gather the local unknowns of each instance, run the kernel's program,
 * scatter-add value, gradient and Hessian into the global ones.  Scratch
 * is allocated once (rt_kernels_init); evaluation allocates nothing. */
#ifndef DYN_KERNEL_H
#define DYN_KERNEL_H

#include "ir.h"
#include "vm.h"

struct rt_kernels {
	const struct ir_func *f;    /* NULL: none (or constraint kernels, kv) */
	const struct ir_kernel *kv; /* the kernels, nk of them */
	int nk;
	int n;                      /* dofs: INT/INTVEL slots are unknowns n + j */
	struct rt_kernel_ws {
		double *reg, *out, *loc;
		double *hess;           /* instances × nnz, of the last evaluation */
		double *mreg, *mout;    /* rt_kernels_rounding's magnitudes (energies) */
		int *grad, ngrad;       /* the instructions of the gradient outputs */
		int *val, nval;         /* and of the value's */
		/* split (rt_kernels_split): each instance's value and gradient
		 * (1 + nslot), and per process the counts and offsets of its
		 * instances in that layout (vc, vd) and in hess's (hc, hd) */
		double *vg;
		int *vc, *vd, *hc, *hd;
	} *ws;
	/* evaluations divided among nproc MPI processes (rt_kernels_split) */
	int split, rank, nproc;
};

/* Scratch for the kernels of f (NULL or none: nothing); -1 when out of
 * memory.  rt_kernels_free in both cases. */
int rt_kernels_init(struct rt_kernels *ks, const struct ir_func *f, int n);
void rt_kernels_free(struct rt_kernels *ks);
/* The same for the kernels of gap functions (struct ir_gaps: constraints),
 * nk of them; -1 when out of memory. */
int rt_kernels_init_gaps(struct rt_kernels *ks, const struct ir_kernel *kv, int nk);
/* Add the kernels' values, gradient entries and Hessian entries at (t, u)
 * into the layout `out` of gap functions (ir.h, struct ir_gaps: nc values,
 * ng gradient entries, then the Hessian entries), where the program's own
 * outputs have already been placed. */
/* Add the load kernels' values at t into f (struct ir_model's fkernel). */
void rt_kernels_loads(struct rt_kernels *ks, const struct vm_input *in, double *f);
void rt_kernels_gaps(struct rt_kernels *ks, const struct vm_input *in, const double *u, int nc, int ng, double *out);

/* The kernels' value at (t, x, y): x holds the DOF or VEL unknowns, y the
 * INT or INTVEL ones.  With g non-NULL, adds their gradient to g (numbered
 * as f's variables).  The Hessians are kept for rt_kernels_add_hess. */
double rt_kernels_eval(struct rt_kernels *ks, const struct vm_input *in, const double *x, const double *y,
                       double *g);
/* Divide rt_kernels_eval and rt_kernels_rounding among the nproc MPI
 * processes of a replicated run (dyn(1), MPI): process rank runs a
 * contiguous nproc-th of each kernel's instances, and their outputs are
 * gathered to all (la_mpi_gather), then summed and scattered as one
 * process does: the value, the gradient and the kept Hessians are the
 * serial ones, bit for bit, on every process.  Each evaluation is then
 * collective: every process must make the same calls, as the processes
 * of a replicated run do.  0 (the evaluations stay whole when an offset
 * would pass INT_MAX, MPI's counts being int), or -1 when out of memory.
 * rt_kernels_split_off returns to whole evaluations. */
int rt_kernels_split(struct rt_kernels *ks, int rank, int nproc);
void rt_kernels_split_off(struct rt_kernels *ks);
/* J[I + J ld] += cr[I] cc[J] H_IJ of the last evaluation (weights NULL: 1). */
void rt_kernels_add_hess(const struct rt_kernels *ks, const double *cr, const double *cc, double *J, int ld);
/* y_I += Σ_J |H_IJ| |w_J| over the entries of the last evaluation. */
void rt_kernels_terms(const struct rt_kernels *ks, const double *w, double *y);
/* y_I += the magnitude of the terms of ∂/∂x_I of the kernels' value at
 * (t, x, y) (vm_eval_magnitude, the gradient outputs of every instance):
 * what the rounding of the gradient's evaluation is a few units in the
 * last place of.  Where the gradient cancels inside the program (a
 * hyperelastic energy near its reference state) this is what bounds a
 * Newton residual, not Σ|H||w|.  Energies only (rt_kernels_init). */
void rt_kernels_rounding(struct rt_kernels *ks, const struct vm_input *in, const double *x, const double *y,
                         double *g);
/* The magnitude of the terms of the kernels' value at (t, x, y), summed
 * over the instances (vm_eval_magnitude on output 0): what the rounding
 * of the value is a few units in the last place of.  Energies only. */
double rt_kernels_value_magnitude(struct rt_kernels *ks, const struct vm_input *in, const double *x,
                                  const double *y);
/* For a sparse Jacobian: the number of Hessian entries of all instances,
 * and those entries as triplets (rows I, columns J, numbered as f's
 * variables; values of the last evaluation into v unless NULL: the
 * pattern alone, which does not change).  Duplicates are to be summed;
 * an entry of an eliminated unknown (map -1) has row and column -1. */
size_t rt_kernels_nentries(const struct rt_kernels *ks);
void rt_kernels_entries(const struct rt_kernels *ks, int *I, int *J, double *v);
/* Instance i of kernel q of f alone, at (t, x, y): its outputs (value,
 * the nslot slot gradients, the nnz Hessian entries), valid until the
 * kernel's next run.  Kept Hessians are not touched: for a caller that
 * evaluates some instances only (runtime/part_phi.c). */
const double *rt_kernels_run_one(struct rt_kernels *ks, int q, const struct vm_input *in, const double *x,
                                 const double *y, long i);
/* The unknown that slot s of kernel q reads at instance i, numbered as
 * f's variables (INT or INTVEL slots after the n dofs); -1 for an
 * eliminated one (a fixed dof of a field). */
long rt_kernels_slot_unknown(const struct rt_kernels *ks, int q, int s, long i);
/* The ledger's pairing per dissipation term: dterm[k] += Σ over the
 * kernels of statement k of (wu du or wz dz)·∇ at (x, y). */
void rt_kernels_dterms(struct rt_kernels *ks, const struct vm_input *in, const double *x, const double *y,
                       double wu, double wz, const double *du, const double *dz, double *dterm);

#endif
