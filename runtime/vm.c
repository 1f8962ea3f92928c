/* vm.c — a register machine over SSA programs: one switch per
 * instruction, no allocation, no checks beyond what lowering guaranteed
 * (operands precede their uses, inputs exist). */
#include <config.h>

#include "vm.h"
#include "table.h"

#include <math.h>

void vm_eval(const struct ir_prog *p, double *r, const struct vm_input *in, double *out)
{
	vm_eval_at(p, r, in, 0, out);
}

void vm_eval_at(const struct ir_prog *p, double *r, const struct vm_input *in, double index, double *out)
{
	vm_eval_instance(p, r, in, index, NULL, out);
}

/* Instruction x's value from the registers before it: one switch, each
 * case reading its own operands (A, B: registers a and b), so that an
 * instruction costs one indirect branch (a kernel's program, a finite
 * element's energy with its gradient and Hessian, is a thousand
 * instructions run at every quadrature point of every step) */
static inline __attribute__((always_inline)) double op_value(const struct ir_insn *x, const double *r, const struct vm_input *in, double index,
                              const double *data)
{
#define A r[x->a]
#define B r[x->b]
	switch (x->op) {
	case IR_CONST: return x->k;
	case IR_TIME: return in->t;
	case IR_DOF: return in->u[x->a];
	case IR_VEL: return in->v[x->a];
	case IR_ACC: return in->a[x->a];
	case IR_INT: return in->z[x->a];
	case IR_INTVEL: return in->zd[x->a];
	case IR_INDEX: return index;
	case IR_DATA: return data[x->a];
	case IR_TABLE: {
		const struct ir_table *tb = &in->table[x->c];
		return table_eval(tb->n, tb->x, tb->y, A, in->table_hint ? &in->table_hint[x->c] : NULL);
	}
	case IR_NEG: return -A;
	case IR_ADD: return A + B;
	case IR_SUB: return A - B;
	case IR_MUL: return A * B;
	case IR_DIV: return A / B;
	case IR_POW: return pow(A, B);
	case IR_LT: return A < B;
	case IR_LE: return A <= B;
	case IR_GT: return A > B;
	case IR_GE: return A >= B;
	case IR_EQ: return A == B;
	case IR_NE: return A != B;
	case IR_AND: return A != 0 && B != 0;
	case IR_OR: return A != 0 || B != 0;
	case IR_NOT: return A == 0;
	case IR_SELECT: return A != 0 ? B : r[x->c];
	/* NaN propagates, as in ir.c's folding (fmin would drop it) */
	case IR_MIN: {
		double a = A, b = B;
		return isnan(a) || isnan(b) ? a + b : fmin(a, b);
	}
	case IR_MAX: {
		double a = A, b = B;
		return isnan(a) || isnan(b) ? a + b : fmax(a, b);
	}
	case IR_ATAN2: return atan2(A, B);
	case IR_HYPOT: return hypot(A, B);
	case IR_FMOD: return fmod(A, B);
	case IR_SIN: return sin(A);
	case IR_COS: return cos(A);
	case IR_TAN: return tan(A);
	case IR_ASIN: return asin(A);
	case IR_ACOS: return acos(A);
	case IR_ATAN: return atan(A);
	case IR_SINH: return sinh(A);
	case IR_COSH: return cosh(A);
	case IR_TANH: return tanh(A);
	case IR_EXP: return exp(A);
	case IR_LOG: return log(A);
	case IR_LOG10: return log10(A);
	case IR_SQRT: return sqrt(A);
	case IR_ABS: return fabs(A);
	case IR_SIGN: {
		double a = A;
		return isnan(a) ? a : (a > 0) - (a < 0);   /* NaN stays NaN */
	}
	case IR_FLOOR: return floor(A);
	case IR_CEIL: return ceil(A);
	default: return NAN;
	}
#undef A
#undef B
}

/* the program's instructions into r */
static void exec(const struct ir_prog *p, double *r, const struct vm_input *in, double index, const double *data)
{
	const struct ir_insn *code = p->insn;
	for (int i = 0; i < p->n; i++)
		r[i] = op_value(&code[i], r, in, index, data);
}

void vm_eval_instance(const struct ir_prog *p, double *r, const struct vm_input *in, double index,
                      const double *data, double *out)
{
	exec(p, r, in, index, data);
	for (int j = 0; j < p->nout; j++)
		out[j] = r[p->out[j]];
}

void vm_eval_some(const struct ir_prog *p, double *r, const struct vm_input *in, const int *which, int nwhich,
                  double *out)
{
	exec(p, r, in, 0, NULL);
	for (int q = 0; q < nwhich; q++)
		out[q] = r[p->out[which[q]]];
}

/* |f'(a)| for the functions of one argument, at a with f(a) = r */
static double slope_of(enum ir_op op, double a, double r)
{
	switch (op) {
	case IR_SIN: return fabs(cos(a));
	case IR_COS: return fabs(sin(a));
	case IR_TAN: return 1 + r * r;
	case IR_ASIN:
	case IR_ACOS: return 1 / sqrt(fabs(1 - a * a));
	case IR_ATAN: return 1 / (1 + a * a);
	case IR_SINH: return cosh(a);
	case IR_COSH: return fabs(sinh(a));
	case IR_TANH: return 1 - r * r;
	case IR_EXP: return r;
	case IR_LOG: return 1 / fabs(a);
	case IR_LOG10: return 1 / (fabs(a) * log(10.0));
	case IR_SQRT: return r > 0 ? 0.5 / r : 0;
	default: return 0;   /* piecewise constant: sign, floor, ceil */
	}
}

int vm_needed(const struct ir_prog *p, int out0, int nout, int *idx)
{
	/* marks in idx, backwards from the outputs: an instruction is needed
	 * when a needed one reads it (SSA: operands precede their uses);
	 * then the marked indices, ascending, in place */
	for (int i = 0; i < p->n; i++)
		idx[i] = 0;
	for (int j = out0; j < out0 + nout; j++)
		idx[p->out[j]] = 1;
	for (int i = p->n - 1; i >= 0; i--) {
		const struct ir_insn *x = &p->insn[i];
		int ar = ir_op_arity[x->op];
		if (!idx[i])
			continue;
		if (ar >= 1)
			idx[x->a] = 1;
		if (ar >= 2)
			idx[x->b] = 1;
		if (ar >= 3)
			idx[x->c] = 1;
	}
	int k = 0;
	for (int i = 0; i < p->n; i++)
		if (idx[i])
			idx[k++] = i;
	return k;
}

void vm_eval_magnitude(const struct ir_prog *p, const int *idx, int nidx, double *r, double *m,
                       const struct vm_input *in, double index, const double *data, int out0, int nout,
                       double *mout)
{
	const struct ir_insn *code = p->insn;
	for (int q = 0; q < nidx; q++) {
		int i = idx[q];
		const struct ir_insn *x = &code[i];
		int ar = ir_op_arity[x->op];
		double v = r[i] = op_value(x, r, in, index, data);
		double a = ar >= 1 ? r[x->a] : 0, ma = ar >= 1 ? m[x->a] : 0;
		double b = ar >= 2 ? r[x->b] : 0, mb = ar >= 2 ? m[x->b] : 0;
		switch (x->op) {
		case IR_NEG:
		case IR_ABS: m[i] = ma; break;
		case IR_ADD:
		case IR_SUB: m[i] = ma + mb; break;
		case IR_MUL: m[i] = fabs(a) * mb + fabs(b) * ma; break;
		case IR_DIV: m[i] = (ma + fabs(a / b) * mb) / fabs(b); break;
		case IR_POW: m[i] = a != 0 ? fabs(v) * (1 + fabs(b / a) * ma) : fabs(v); break;
		case IR_SELECT: m[i] = a != 0 ? mb : m[x->c]; break;
		case IR_MIN:
		case IR_MAX: m[i] = v == a ? ma : mb; break;
		case IR_ATAN2: m[i] = fabs(v) + (fabs(b) * ma + fabs(a) * mb) / (a * a + b * b); break;
		case IR_HYPOT: m[i] = v + (v > 0 ? (fabs(a) * ma + fabs(b) * mb) / v : 0); break;
		case IR_FMOD: m[i] = fabs(v) + ma; break;
		case IR_SIN: case IR_COS: case IR_TAN: case IR_ASIN: case IR_ACOS: case IR_ATAN: case IR_SINH:
		case IR_COSH: case IR_TANH: case IR_EXP: case IR_LOG: case IR_LOG10: case IR_SQRT:
			m[i] = fabs(v) + slope_of(x->op, a, v) * ma;
			break;
		default: m[i] = fabs(v); break;   /* inputs, constants, tests, tables */
		}
	}
	for (int j = 0; j < nout; j++) {
		double v = m[p->out[out0 + j]];
		mout[j] = isfinite(v) ? v : 0;
	}
}
