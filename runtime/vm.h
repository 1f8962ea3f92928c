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
/* Run the program; out[q] receives output which[q], q < nwhich. */
void vm_eval_some(const struct ir_prog *p, double *reg, const struct vm_input *in, const int *which, int nwhich,
                  double *out);

#endif
