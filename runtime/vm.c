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

/* the program's instructions into r: one switch per instruction, each
 * case reading its own operands (A, B: registers a and b), so that an
 * instruction costs one indirect branch (a kernel's program, a finite
 * element's energy with its gradient and Hessian, is a thousand
 * instructions run at every quadrature point of every step) */
static void exec(const struct ir_prog *p, double *r, const struct vm_input *in, double index, const double *data)
{
	const struct ir_insn *code = p->insn;
	for (int i = 0; i < p->n; i++) {
		const struct ir_insn *x = &code[i];
#define A r[x->a]
#define B r[x->b]
		switch (x->op) {
		case IR_CONST: r[i] = x->k; break;
		case IR_TIME: r[i] = in->t; break;
		case IR_DOF: r[i] = in->u[x->a]; break;
		case IR_VEL: r[i] = in->v[x->a]; break;
		case IR_ACC: r[i] = in->a[x->a]; break;
		case IR_INT: r[i] = in->z[x->a]; break;
		case IR_INTVEL: r[i] = in->zd[x->a]; break;
		case IR_INDEX: r[i] = index; break;
		case IR_DATA: r[i] = data[x->a]; break;
		case IR_TABLE: {
			const struct ir_table *tb = &in->table[x->c];
			r[i] = table_eval(tb->n, tb->x, tb->y, A, in->table_hint ? &in->table_hint[x->c] : NULL);
			break;
		}
		case IR_NEG: r[i] = -A; break;
		case IR_ADD: r[i] = A + B; break;
		case IR_SUB: r[i] = A - B; break;
		case IR_MUL: r[i] = A * B; break;
		case IR_DIV: r[i] = A / B; break;
		case IR_POW: r[i] = pow(A, B); break;
		case IR_LT: r[i] = A < B; break;
		case IR_LE: r[i] = A <= B; break;
		case IR_GT: r[i] = A > B; break;
		case IR_GE: r[i] = A >= B; break;
		case IR_EQ: r[i] = A == B; break;
		case IR_NE: r[i] = A != B; break;
		case IR_AND: r[i] = A != 0 && B != 0; break;
		case IR_OR: r[i] = A != 0 || B != 0; break;
		case IR_NOT: r[i] = A == 0; break;
		case IR_SELECT: r[i] = A != 0 ? B : r[x->c]; break;
		/* NaN propagates, as in ir.c's folding (fmin would drop it) */
		case IR_MIN: {
			double a = A, b = B;
			r[i] = isnan(a) || isnan(b) ? a + b : fmin(a, b);
			break;
		}
		case IR_MAX: {
			double a = A, b = B;
			r[i] = isnan(a) || isnan(b) ? a + b : fmax(a, b);
			break;
		}
		case IR_ATAN2: r[i] = atan2(A, B); break;
		case IR_HYPOT: r[i] = hypot(A, B); break;
		case IR_FMOD: r[i] = fmod(A, B); break;
		case IR_SIN: r[i] = sin(A); break;
		case IR_COS: r[i] = cos(A); break;
		case IR_TAN: r[i] = tan(A); break;
		case IR_ASIN: r[i] = asin(A); break;
		case IR_ACOS: r[i] = acos(A); break;
		case IR_ATAN: r[i] = atan(A); break;
		case IR_SINH: r[i] = sinh(A); break;
		case IR_COSH: r[i] = cosh(A); break;
		case IR_TANH: r[i] = tanh(A); break;
		case IR_EXP: r[i] = exp(A); break;
		case IR_LOG: r[i] = log(A); break;
		case IR_LOG10: r[i] = log10(A); break;
		case IR_SQRT: r[i] = sqrt(A); break;
		case IR_ABS: r[i] = fabs(A); break;
		case IR_SIGN: {
			double a = A;
			r[i] = isnan(a) ? a : (a > 0) - (a < 0);   /* NaN stays NaN */
			break;
		}
		case IR_FLOOR: r[i] = floor(A); break;
		case IR_CEIL: r[i] = ceil(A); break;
		default: r[i] = NAN; break;
		}
#undef A
#undef B
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
