/* ir_diff.h — symbolic derivatives of IR programs. */
#ifndef DYN_IR_DIFF_H
#define DYN_IR_DIFF_H

#include "ir.h"

/* The variables to differentiate with respect to: input instructions of
 * the given opcodes, numbered offset + index (e.g. DOF i as i, INT j as
 * ndof + j). */
struct ir_diff_inputs {
	int n;                       /* number of variables */
	int nkind;
	struct { enum ir_op op; int offset; } kind[4];
};

/* Scratch reused across differentiations of one or more programs. */
struct ir_diff_ws;
struct ir_diff_ws *ir_diff_ws_new(void);
void ir_diff_ws_free(struct ir_diff_ws *w);

/* Emit into p the gradient of register `out`: the nnz variables it depends
 * on (idx) and the registers of the partial derivatives (reg).  The arrays
 * belong to w and last until its next use.  Returns 0, or -1 when out of
 * memory. */
int ir_gradient_sparse(struct ir_prog *p, struct ir_diff_ws *w, int out, const struct ir_diff_inputs *in,
                       int *nnz, const int **idx, const int **reg);

/* The same as a dense array grad[in->n] (constant 0 where independent). */
int ir_gradient(struct ir_prog *p, struct ir_diff_ws *w, int out, const struct ir_diff_inputs *in, int *grad);

/* Whether register out depends on an instruction whose opcode is in the
 * mask (bit 1ull << op; there are fewer than 64 opcodes): 1 or 0.  Out
 * of memory ends the process (arena_out_of_memory). */
int ir_depends(const struct ir_prog *p, struct ir_diff_ws *w, int out, unsigned long long opmask);

#endif
