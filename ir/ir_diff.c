/* ir_diff.c — symbolic differentiation of IR programs (DESIGN.md,
 * "Architecture": gradients, Hessians and time derivatives are derived on
 * the IR, once, at lowering).
 *
 * Reverse mode, emitted as instructions: the adjoint of every register in
 * the backward cone of the output is built from the adjoints of its users
 * (the chain rule per opcode below), and the adjoints of the input
 * instructions are the gradient.  Emitting through ir_emit folds constants
 * and shares common subexpressions, so the adjoint of a sum of 10⁵ local
 * terms is 10⁵ local expressions.  Only the cone of the output is swept and
 * the workspace is reused with generation stamps, so a Hessian (one sweep
 * per gradient entry) costs the sum of the cones: linear in the program
 * when the energy is a sum of local terms.
 */
#include <config.h>

#include "ir_diff.h"
#include "arena.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ir_diff_ws {
	int cap;
	int *adj;       /* adjoint register per register (valid in the cone) */
	int *stamp;     /* generation that last visited the register */
	int *cone;
	int gen;
	int *hit_idx, *hit_reg, nhit, hitcap;
	int *slot;      /* variable -> position in hit list, stamped */
	int *slot_stamp;
	int slotcap;
};

struct ir_diff_ws *ir_diff_ws_new(void)
{
	return mem_calloc(1, sizeof(struct ir_diff_ws));
}

void ir_diff_ws_free(struct ir_diff_ws *w)
{
	if (!w)
		return;
	free(w->adj);
	free(w->stamp);
	free(w->cone);
	free(w->hit_idx);
	free(w->hit_reg);
	free(w->slot);
	free(w->slot_stamp);
	free(w);
}

static int grow(int **p, int n)
{
	int *q = mem_realloc(*p, sizeof(int) * (size_t)n);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

static int reserve(struct ir_diff_ws *w, int n, int nvar)
{
	if (n > w->cap) {
		int cap = w->cap ? w->cap : 1024;
		while (cap < n)
			cap *= 2;
		if (grow(&w->adj, cap) || grow(&w->stamp, cap) || grow(&w->cone, cap))
			return -1;
		memset(w->stamp + w->cap, 0, sizeof(int) * (size_t)(cap - w->cap));
		w->cap = cap;
	}
	if (nvar > w->slotcap) {
		int cap = nvar + 16;
		if (grow(&w->slot, cap) || grow(&w->slot_stamp, cap))
			return -1;
		memset(w->slot_stamp + w->slotcap, 0, sizeof(int) * (size_t)(cap - w->slotcap));
		w->slotcap = cap;
	}
	return 0;
}

struct sweep {
	struct ir_prog *p;
	struct ir_diff_ws *w;
	struct ir_loc loc;
};

static int K(struct sweep *s, double k)
{
	return ir_emit_const(s->p, k, s->loc);
}

static int E(struct sweep *s, enum ir_op op, int a, int b)
{
	return ir_emit(s->p, op, a, b, 0, s->loc);
}

/* adj[r] += x */
static void acc(struct sweep *s, int r, int x)
{
	double k;
	if (ir_is_const(s->p, x, &k) && k == 0)
		return;
	int *adj = s->w->adj;
	adj[r] = adj[r] < 0 ? x : E(s, IR_ADD, adj[r], x);
}

/* The chain rule for instruction i with adjoint g. */
static void back(struct sweep *s, int i, int g)
{
	struct ir_insn in = s->p->insn[i];   /* a copy: emitting may move insn */
	int a = in.a, b = in.b, c = in.c;
	switch (in.op) {
	case IR_NEG: acc(s, a, E(s, IR_NEG, g, 0)); break;
	case IR_ADD: acc(s, a, g); acc(s, b, g); break;
	case IR_SUB: acc(s, a, g); acc(s, b, E(s, IR_NEG, g, 0)); break;
	case IR_MUL: acc(s, a, E(s, IR_MUL, g, b)); acc(s, b, E(s, IR_MUL, g, a)); break;
	case IR_DIV:
		acc(s, a, E(s, IR_DIV, g, b));
		acc(s, b, E(s, IR_NEG, E(s, IR_DIV, E(s, IR_MUL, g, i), b), 0));
		break;
	case IR_POW: {
		double e;
		if (ir_is_const(s->p, b, &e)) {
			/* d(a^e) = e a^(e-1) */
			int d = e == 2 ? E(s, IR_MUL, K(s, 2), a) : E(s, IR_MUL, K(s, e), E(s, IR_POW, a, K(s, e - 1)));
			acc(s, a, E(s, IR_MUL, g, d));
		} else {
			acc(s, a, E(s, IR_MUL, g, E(s, IR_MUL, b, E(s, IR_POW, a, E(s, IR_SUB, b, K(s, 1))))));
			acc(s, b, E(s, IR_MUL, g, E(s, IR_MUL, i, E(s, IR_LOG, a, 0))));
		}
		break;
	}
	case IR_SELECT:
		acc(s, b, ir_emit(s->p, IR_SELECT, a, g, K(s, 0), s->loc));
		acc(s, c, ir_emit(s->p, IR_SELECT, a, K(s, 0), g, s->loc));
		break;
	case IR_MIN:
	case IR_MAX: {
		/* the derivative of the selected operand (a on ties) */
		int pick = E(s, in.op == IR_MIN ? IR_LE : IR_GE, a, b);
		acc(s, a, ir_emit(s->p, IR_SELECT, pick, g, K(s, 0), s->loc));
		acc(s, b, ir_emit(s->p, IR_SELECT, pick, K(s, 0), g, s->loc));
		break;
	}
	case IR_ATAN2: {
		/* atan2(y, x): dy x/(x²+y²), dx -y/(x²+y²) */
		int r2 = E(s, IR_ADD, E(s, IR_MUL, a, a), E(s, IR_MUL, b, b));
		acc(s, a, E(s, IR_DIV, E(s, IR_MUL, g, b), r2));
		acc(s, b, E(s, IR_NEG, E(s, IR_DIV, E(s, IR_MUL, g, a), r2), 0));
		break;
	}
	case IR_HYPOT:
		acc(s, a, E(s, IR_MUL, g, E(s, IR_DIV, a, i)));
		acc(s, b, E(s, IR_MUL, g, E(s, IR_DIV, b, i)));
		break;
	case IR_FMOD: acc(s, a, g); break;
	case IR_SIN: acc(s, a, E(s, IR_MUL, g, E(s, IR_COS, a, 0))); break;
	case IR_COS: acc(s, a, E(s, IR_NEG, E(s, IR_MUL, g, E(s, IR_SIN, a, 0)), 0)); break;
	case IR_TAN: acc(s, a, E(s, IR_MUL, g, E(s, IR_ADD, K(s, 1), E(s, IR_MUL, i, i)))); break;
	case IR_ASIN: acc(s, a, E(s, IR_DIV, g, E(s, IR_SQRT, E(s, IR_SUB, K(s, 1), E(s, IR_MUL, a, a)), 0))); break;
	case IR_ACOS: acc(s, a, E(s, IR_NEG, E(s, IR_DIV, g, E(s, IR_SQRT, E(s, IR_SUB, K(s, 1), E(s, IR_MUL, a, a)), 0)), 0)); break;
	case IR_ATAN: acc(s, a, E(s, IR_DIV, g, E(s, IR_ADD, K(s, 1), E(s, IR_MUL, a, a)))); break;
	case IR_SINH: acc(s, a, E(s, IR_MUL, g, E(s, IR_COSH, a, 0))); break;
	case IR_COSH: acc(s, a, E(s, IR_MUL, g, E(s, IR_SINH, a, 0))); break;
	case IR_TANH: acc(s, a, E(s, IR_MUL, g, E(s, IR_SUB, K(s, 1), E(s, IR_MUL, i, i)))); break;
	case IR_EXP: acc(s, a, E(s, IR_MUL, g, i)); break;
	case IR_LOG: acc(s, a, E(s, IR_DIV, g, a)); break;
	case IR_LOG10: acc(s, a, E(s, IR_DIV, g, E(s, IR_MUL, a, K(s, log(10.0))))); break;
	case IR_SQRT: acc(s, a, E(s, IR_DIV, E(s, IR_MUL, g, K(s, 0.5)), i)); break;
	case IR_ABS: acc(s, a, E(s, IR_MUL, g, E(s, IR_SIGN, a, 0))); break;
	default:
		/* constants, inputs, comparisons, sign, floor, ceil, tables (a
		 * function of t only): nothing to propagate */
		break;
	}
}

static int is_input(enum ir_op op)
{
	return op == IR_CONST || op == IR_TIME || op == IR_DOF || op == IR_VEL || op == IR_ACC ||
	       op == IR_INT || op == IR_INTVEL || op == IR_INDEX || op == IR_DATA;
}

static int cmp_desc(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a < b) - (a > b);
}

/* The registers out depends on (itself included) into w->cone, in no
 * particular order; their number, or −1 as soon as one of them is an
 * instruction whose opcode is in stop (bit 1ull << op). */
static int backward_cone(const struct ir_prog *p, struct ir_diff_ws *w, int out, unsigned long long stop)
{
	int gen = ++w->gen;
	int ncone = 0, top = 0;
	w->cone[ncone++] = out;
	w->stamp[out] = gen;
	while (top < ncone) {
		int r = w->cone[top++];
		const struct ir_insn *x = &p->insn[r];
		if (stop & (1ull << x->op))
			return -1;
		if (is_input(x->op))
			continue;
		int ar = ir_op_arity[x->op];
		int ops[3] = { x->a, x->b, x->c };
		for (int k = 0; k < ar; k++)
			if (w->stamp[ops[k]] != gen) {
				w->stamp[ops[k]] = gen;
				w->cone[ncone++] = ops[k];
			}
	}
	return ncone;
}

int ir_gradient_sparse(struct ir_prog *p, struct ir_diff_ws *w, int out, const struct ir_diff_inputs *in,
                       int *nnz, const int **idx, const int **reg)
{
	if (reserve(w, p->n, in->n))
		return -1;
	struct sweep s = { p, w, p->insn[out].loc };
	/* the backward cone of out, then a sweep in reverse SSA order */
	int ncone = backward_cone(p, w, out, 0), gen = w->gen;
	qsort(w->cone, (size_t)ncone, sizeof(int), cmp_desc);
	for (int k = 0; k < ncone; k++)
		w->adj[w->cone[k]] = -1;
	w->adj[out] = K(&s, 1);
	w->nhit = 0;
	for (int k = 0; k < ncone; k++) {
		int r = w->cone[k];
		int g = w->adj[r];
		if (g < 0)
			continue;
		const struct ir_insn *x = &p->insn[r];
		int var = -1;
		for (int j = 0; j < in->nkind; j++)
			if (x->op == in->kind[j].op) {
				var = in->kind[j].offset + x->a;
				break;
			}
		if (var >= 0) {
			if (w->slot_stamp[var] == gen) {
				int h = w->slot[var];
				w->hit_reg[h] = E(&s, IR_ADD, w->hit_reg[h], g);
			} else {
				if (w->nhit == w->hitcap) {
					int cap = w->hitcap ? 2 * w->hitcap : 64;
					if (grow(&w->hit_idx, cap) || grow(&w->hit_reg, cap))
						return -1;
					w->hitcap = cap;
				}
				w->slot_stamp[var] = gen;
				w->slot[var] = w->nhit;
				w->hit_idx[w->nhit] = var;
				w->hit_reg[w->nhit++] = g;
			}
			continue;
		}
		if (!is_input(x->op))
			back(&s, r, g);
	}
	*nnz = w->nhit;
	*idx = w->hit_idx;
	*reg = w->hit_reg;
	return 0;
}

int ir_gradient(struct ir_prog *p, struct ir_diff_ws *w, int out, const struct ir_diff_inputs *in, int *grad)
{
	int nnz;
	const int *idx, *reg;
	if (ir_gradient_sparse(p, w, out, in, &nnz, &idx, &reg))
		return -1;
	int zero = ir_emit_const(p, 0, p->insn[out].loc);
	for (int k = 0; k < in->n; k++)
		grad[k] = zero;
	for (int k = 0; k < nnz; k++)
		grad[idx[k]] = reg[k];
	return 0;
}

int ir_depends(const struct ir_prog *p, struct ir_diff_ws *w, int out, unsigned long long opmask)
{
	/* out of memory is the process's (arena.h): the callers read the
	 * answer as a yes or no, and a -1 read as "depends" reported a
	 * potential m g y as depending on a rate */
	if (reserve(w, p->n, 0))
		arena_out_of_memory();
	return backward_cone(p, w, out, opmask) < 0;
}
