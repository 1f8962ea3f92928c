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

/* the program's instructions into r */
static void exec(const struct ir_prog *p, double *r, const struct vm_input *in, double index, const double *data)
{
	const struct ir_insn *code = p->insn;
	for (int i = 0; i < p->n; i++) {
		const struct ir_insn *x = &code[i];
		double a = 0, b = 0;
		switch (x->op) {
		case IR_CONST: r[i] = x->k; continue;
		case IR_TIME: r[i] = in->t; continue;
		case IR_DOF: r[i] = in->u[x->a]; continue;
		case IR_VEL: r[i] = in->v[x->a]; continue;
		case IR_ACC: r[i] = in->a[x->a]; continue;
		case IR_INT: r[i] = in->z[x->a]; continue;
		case IR_INTVEL: r[i] = in->zd[x->a]; continue;
		case IR_INDEX: r[i] = index; continue;
		case IR_DATA: r[i] = data[x->a]; continue;
		case IR_TABLE: {
			const struct ir_table *tb = &in->table[x->c];
			r[i] = table_eval(tb->n, tb->x, tb->y, r[x->a], in->table_hint ? &in->table_hint[x->c] : NULL);
			continue;
		}
		default:
			break;
		}
		a = r[x->a];
		if (ir_op_arity[x->op] >= 2)
			b = r[x->b];
		switch (x->op) {
		case IR_NEG: r[i] = -a; break;
		case IR_ADD: r[i] = a + b; break;
		case IR_SUB: r[i] = a - b; break;
		case IR_MUL: r[i] = a * b; break;
		case IR_DIV: r[i] = a / b; break;
		case IR_POW: r[i] = pow(a, b); break;
		case IR_LT: r[i] = a < b; break;
		case IR_LE: r[i] = a <= b; break;
		case IR_GT: r[i] = a > b; break;
		case IR_GE: r[i] = a >= b; break;
		case IR_EQ: r[i] = a == b; break;
		case IR_NE: r[i] = a != b; break;
		case IR_AND: r[i] = a != 0 && b != 0; break;
		case IR_OR: r[i] = a != 0 || b != 0; break;
		case IR_NOT: r[i] = a == 0; break;
		case IR_SELECT: r[i] = a != 0 ? b : r[x->c]; break;
		/* NaN propagates, as in ir.c's folding (fmin would drop it) */
		case IR_MIN: r[i] = isnan(a) || isnan(b) ? a + b : fmin(a, b); break;
		case IR_MAX: r[i] = isnan(a) || isnan(b) ? a + b : fmax(a, b); break;
		case IR_ATAN2: r[i] = atan2(a, b); break;
		case IR_HYPOT: r[i] = hypot(a, b); break;
		case IR_FMOD: r[i] = fmod(a, b); break;
		case IR_SIN: r[i] = sin(a); break;
		case IR_COS: r[i] = cos(a); break;
		case IR_TAN: r[i] = tan(a); break;
		case IR_ASIN: r[i] = asin(a); break;
		case IR_ACOS: r[i] = acos(a); break;
		case IR_ATAN: r[i] = atan(a); break;
		case IR_SINH: r[i] = sinh(a); break;
		case IR_COSH: r[i] = cosh(a); break;
		case IR_TANH: r[i] = tanh(a); break;
		case IR_EXP: r[i] = exp(a); break;
		case IR_LOG: r[i] = log(a); break;
		case IR_LOG10: r[i] = log10(a); break;
		case IR_SQRT: r[i] = sqrt(a); break;
		case IR_ABS: r[i] = fabs(a); break;
		case IR_SIGN: r[i] = isnan(a) ? a : (a > 0) - (a < 0); break;   /* NaN stays NaN */
		case IR_FLOOR: r[i] = floor(a); break;
		case IR_CEIL: r[i] = ceil(a); break;
		default: r[i] = NAN; break;
		}
	}
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
