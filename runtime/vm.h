/* vm.h — evaluates IR expression programs.  The caller owns a scratch of
 * prog->n doubles (registers), allocated once per run: no allocation here. */
#ifndef DYN_VM_H
#define DYN_VM_H

#include "ir.h"

struct vm_input {
	double t;
	const double *u, *v, *a;      /* the state; may be NULL when unused */
	const double *z, *zd;         /* internal variables and their rates */
	const struct ir_table *table; /* the model's tables */
	int *table_hint;              /* one per table, for monotone sweeps */
};

/* Run the program; out[j] receives output j. */
void vm_eval(const struct ir_prog *p, double *reg, const struct vm_input *in, double *out);
/* The same for a kernel's instance: INDEX reads `index` (the sum's i). */
void vm_eval_at(const struct ir_prog *p, double *reg, const struct vm_input *in, double index, double *out);
/* The same with the instance's row of per-instance data: DATA reads
 * data[a] (struct ir_kernel). */
void vm_eval_instance(const struct ir_prog *p, double *reg, const struct vm_input *in, double index,
                      const double *data, double *out);
/* The instructions that outputs out0 .. out0 + nout − 1 read, directly or
 * not, into idx (room for prog->n), ascending; returns their number. */
int vm_needed(const struct ir_prog *p, int out0, int nout, int *idx);
/* The magnitude of the terms of outputs out0 .. out0 + nout − 1, for
 * rounding bounds: the instructions idx[0 .. nidx) (vm_needed's for those
 * outputs) run on values in reg and, beside them, on magnitudes in mag
 * (prog->n more doubles): |x| for an input or a constant, m_a + m_b for
 * a sum or difference, |a| m_b + |b| m_a for a product, |f(a)| +
 * |f'(a)| m_a for a function: a running error bound to first order, whose
 * unit roundoff multiple bounds the rounding of the value (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 2nd ed., sections
 * 3.1 and 3.3; m_a m_b, the product of the absolute values, grew as the
 * square of |u| where grad u cancels, 700 against Φ = 0.16 on a moving
 * neo-Hookean plate, and let a discrete gradient's rule stand with a
 * 1e-12 energy error).  An
 * output whose value is a difference of large terms (a hyperelastic
 * stress near the reference, μF − μF⁻ᵀ) has the magnitude of those
 * terms.  mout[j] receives output out0 + j's, 0 where it is not finite. */
void vm_eval_magnitude(const struct ir_prog *p, const int *idx, int nidx, double *reg, double *mag,
                       const struct vm_input *in, double index, const double *data, int out0, int nout,
                       double *mout);
/* Run the program; out[q] receives output which[q], q < nwhich. */
void vm_eval_some(const struct ir_prog *p, double *reg, const struct vm_input *in, const int *which, int nwhich,
                  double *out);

#endif
