/* lower_energy.c — models stated by their energies (DESIGN.md, "The
 * problem class"): kinetic T(u, u'), potential Φ(u, z), dissipation
 * Ψ(u', z').  Each is lowered to a program and differentiated once here
 * (ir_diff.c): gradients and Hessians with their sparsity patterns.
 *
 * Classification, so that per step only what is needed runs:
 *  - a kinetic energy with a constant Hessian in u' is a constant mass,
 *    added to the mass matrix (the linear fast path's operators);
 *  - terms σ_j |z_j'| of the dissipation (σ_j > 0 constant) are the
 *    separable 1-homogeneous potentials of rate-independent processes:
 *    they are kept apart as σ and solved exactly (soft thresholding, the
 *    return mapping) by the runtime; what remains is the smooth part Ψ;
 *  - a function using abs, min, max, sign or if on its variables is marked
 *    nonsmooth (generalized derivatives).
 */
#include <config.h>

#include "fe.h"
#include "fe_assemble.h"
#include "fmt.h"
#include "interp.h"
#include "ir_diff.h"
#include "la.h"
#include "mem.h"

#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

_Static_assert(IR_NOPS < 64, "ir_depends takes a 64-bit opcode mask");

#define OPBIT(op) (1ull << (op))

static const unsigned long long nonsmooth_ops =
	OPBIT(IR_ABS) | OPBIT(IR_MIN) | OPBIT(IR_MAX) | OPBIT(IR_SIGN) | OPBIT(IR_SELECT) |
	OPBIT(IR_FLOOR) | OPBIT(IR_CEIL) | OPBIT(IR_FMOD);

/* Makes room for entry n in each of the k parallel int arrays *v[i]
 * (capacity *cap, doubled): -1 when out of memory, the arrays then still
 * valid (and freed by the caller). */
static int grow_ints(int **v[], int k, int n, int *cap)
{
	if (n < *cap)
		return 0;
	if (*cap > INT_MAX / 2)
		return -1;
	int c = *cap ? 2 * *cap : 16;
	for (int i = 0; i < k; i++) {
		int *q = mem_realloc(*v[i], sizeof(int) * (size_t)c);
		if (!q)
			return -1;
		*v[i] = q;
	}
	*cap = c;
	return 0;
}

/* Registers with coefficients, growable: the terms of a sum, or a work
 * stack. */
struct term_list {
	int *t, n, cap;
	double *k;
};

static int term_push(struct term_list *l, int r, double k)
{
	if (l->n == l->cap) {
		int c = l->cap ? 2 * l->cap : 16;
		int *t = l->cap > INT_MAX / 2 ? NULL : mem_realloc(l->t, sizeof(int) * (size_t)c);
		if (!t)
			return -1;
		l->t = t;
		double *kk = mem_realloc(l->k, sizeof(double) * (size_t)c);
		if (!kk)
			return -1;
		l->k = kk;
		l->cap = c;
	}
	l->t[l->n] = r;
	l->k[l->n++] = k;
	return 0;
}

/* Split register r into its terms k·t, left to right, into *out (emptied
 * first): through sums and differences, and through negations and
 * products by constants, whose factors go to the terms' coefficients (a
 * quotient by a constant stays in its term: abs_rate_term reads it) (-(0.1*z'^2 + 0.2*abs(z')) is -0.1·z'^2 and -0.2·|z'|), so
 * that every c·|q'| of a dissipation is a term of its own.  The sum of a
 * long chain is a deep left-leaning tree: walk it with an explicit stack,
 * not recursion, and with no bound on the number of terms.  -1 when out
 * of memory. */
static int terms(struct ir_prog *p, int r, struct term_list *out, struct term_list *stack)
{
	out->n = 0;
	stack->n = 0;
	if (term_push(stack, r, 1))
		return -1;
	while (stack->n > 0) {
		stack->n--;
		int q = stack->t[stack->n];
		double c = stack->k[stack->n], f;
		const struct ir_insn *x = &p->insn[q];
		int rc;
		if (x->op == IR_ADD || x->op == IR_SUB)
			rc = term_push(stack, x->b, x->op == IR_SUB ? -c : c) || term_push(stack, x->a, c);
		else if (x->op == IR_NEG)
			rc = term_push(stack, x->a, -c);
		else if (x->op == IR_MUL && ir_is_const(p, x->a, &f) && isfinite(c * f))
			rc = term_push(stack, x->b, c * f);
		else if (x->op == IR_MUL && ir_is_const(p, x->b, &f) && isfinite(c * f))
			rc = term_push(stack, x->a, c * f);
		else
			rc = term_push(out, q, c);
		if (rc)
			return -1;
	}
	return 0;
}

/* The register of the rate q' when register r is q' times constants
 * (c·q', q'/c, -q'), with *k the constants' product in magnitude, else
 * -1: the operand of abs in c·|k q'|. */
static int scaled_rate(const struct ir_prog *p, int r, double *k)
{
	*k = 1;
	for (;;) {
		const struct ir_insn *x = &p->insn[r];
		double c;
		if (x->op == IR_VEL || x->op == IR_INTVEL)
			return r;
		if (x->op == IR_NEG) {
			r = x->a;
		} else if (x->op == IR_MUL && ir_is_const(p, x->a, &c)) {
			*k *= fabs(c);
			r = x->b;
		} else if (x->op == IR_MUL && ir_is_const(p, x->b, &c)) {
			*k *= fabs(c);
			r = x->a;
		} else if (x->op == IR_DIV && ir_is_const(p, x->b, &c) && c != 0) {
			*k /= fabs(c);
			r = x->a;
		} else {
			return -1;
		}
	}
}

/* A dissipation whose rate-independent part has a negative coefficient:
 * the terms c·|q'| reached from register root through sums, differences,
 * negations and products or quotients by constants, their coefficients
 * summed per rate (0.4*abs(z') - 0.2*abs(z') is 0.2*abs(z')), times
 * scale.  -0.2*abs(z'), 0.2*(-abs(z')), -(0.1*z'^2 + 0.2*abs(z')) are
 * concave in z', not a dissipation potential, and stepped as smooth terms
 * they fed energy into the motion (the ledger of a midpoint run went to
 * -262).  dyn(5) requires c > 0.  An error at where and -1, or 0. */
static int negative_abs_rates(struct eval *ev, struct ir_prog *p, int root, double scale, struct loc where)
{
	struct walk {
		int r;
		double c;
	} *stack = NULL;
	double *acc = mem_calloc((size_t)p->n + 1, sizeof *acc);
	int n = 0, cap = 0, rc = 0;
	long visits = 0, budget = 4L * p->n + 16;   /* a DAG that shares terms */
	if (!acc)
		return eval_error(ev, where, "out of memory");
	for (int r = root, first = 1; first || n > 0; first = 0) {
		double c = scale;
		if (!first) {
			n--;
			r = stack[n].r;
			c = stack[n].c;
		}
		if (++visits > budget)
			break;
		const struct ir_insn *x = &p->insn[r];
		double k;
		int a = -1, b = -1;
		double ca = 0, cb = 0;
		switch (x->op) {
		case IR_ADD:
		case IR_SUB:
			a = x->a, ca = c, b = x->b, cb = x->op == IR_SUB ? -c : c;
			break;
		case IR_NEG:
			a = x->a, ca = -c;
			break;
		case IR_MUL:
			if (ir_is_const(p, x->a, &k))
				a = x->b, ca = c * k;
			else if (ir_is_const(p, x->b, &k))
				a = x->a, ca = c * k;
			break;
		case IR_DIV:
			if (ir_is_const(p, x->b, &k) && k != 0)
				a = x->a, ca = c / k;
			break;
		case IR_ABS: {
			int q = scaled_rate(p, x->a, &k);
			if (q >= 0)
				acc[q] += c * k;
			break;
		}
		default:
			break;
		}
		if (n + 2 > cap) {
			int ncap = cap ? 2 * cap : 64;
			struct walk *g = mem_realloc(stack, sizeof *stack * (size_t)ncap);
			if (!g) {
				free(stack);
				free(acc);
				return eval_error(ev, where, "out of memory");
			}
			stack = g;
			cap = ncap;
		}
		if (b >= 0)
			stack[n++] = (struct walk){ b, cb };
		if (a >= 0)
			stack[n++] = (struct walk){ a, ca };
	}
	for (int q = 0; q < p->n && !rc; q++)
		if (acc[q] < 0) {
			char cs[FMT_BUFSZ];
			fmt_num(cs, acc[q]);
			rc = eval_error(ev, where, "a rate-independent dissipation c*abs(q') needs c > 0, not %s: with c < 0 "
			                "it would feed energy into the motion", cs);
		}
	free(stack);
	free(acc);
	return rc;
}

/* The coefficient c if register r is c·|k q'| (constant factors,
 * negations and quotients by constants anywhere around and inside the
 * abs) with q a dof (*isdof = 1) or an internal variable, else 0.  c has
 * either sign: what the terms of one rate sum to is checked ≥ 0 first
 * (negative_abs_rates). */
static double abs_rate_term(struct ir_prog *p, int r, int *j, int *isdof)
{
	const struct ir_insn *x = &p->insn[r];
	double c = 1, k;
	/* -abs(q'), s*abs(q') with s = -1, 0.2*(2*abs(q')), abs(q')/5 */
	for (;;) {
		if (x->op == IR_NEG)
			c = -c, x = &p->insn[x->a];
		else if (x->op == IR_MUL && ir_is_const(p, x->a, &k))
			c *= k, x = &p->insn[x->b];
		else if (x->op == IR_MUL && ir_is_const(p, x->b, &k))
			c *= k, x = &p->insn[x->a];
		else if (x->op == IR_DIV && ir_is_const(p, x->b, &k) && k != 0)
			c /= k, x = &p->insn[x->a];
		else
			break;
	}
	if (x->op != IR_ABS)
		return 0;
	int q = scaled_rate(p, x->a, &k);
	c *= k;
	if (q < 0 || !isfinite(c))
		return 0;
	*j = p->insn[q].a;
	*isdof = p->insn[q].op == IR_VEL;
	return c;
}

/* ---- sums lowered once (ir.h, struct ir_kernel) ---- */

enum energy_kind { EN_POTENTIAL, EN_KINETIC, EN_DISSIPATION, EN_CONSTRAINT };

struct kern_list {
	int n, cap;
	struct ir_kernel *v;   /* malloc'ed; copied to the arena when attached */
	/* the 1-homogeneous terms c |q'| of dissipation kernels: every
	 * instance adds c to σ (or μ) of its unknown base + stride i */
	int nfric, fcap;
	struct kern_fric {
		int isdof, term;
		long base, stride, lo, hi;
		double c;
	} *fric;
};

static const unsigned long long state_ops =
	OPBIT(IR_DOF) | OPBIT(IR_VEL) | OPBIT(IR_ACC) | OPBIT(IR_INT) | OPBIT(IR_INTVEL);

/* Whether an instruction with a nonsmooth opcode acts on the state (its
 * argument, or the condition of a select, depends on an unknown): an if
 * on the index alone is smooth, as it is once unrolled and folded. */
static int kernel_nonsmooth(const struct ir_prog *p)
{
	char *dep = mem_alloc((size_t)p->n + 1);
	if (!dep)
		return 1;
	int ns = 0;
	for (int i = 0; i < p->n; i++) {
		const struct ir_insn *x = &p->insn[i];
		int ar = ir_op_arity[x->op];
		if (state_ops & OPBIT(x->op)) {
			dep[i] = 1;
			continue;
		}
		dep[i] = (ar >= 1 && dep[x->a]) || (ar >= 2 && dep[x->b]) || (ar >= 3 && dep[x->c]);
		if ((nonsmooth_ops & OPBIT(x->op)) && (x->op == IR_SELECT ? dep[x->a] : dep[i]))
			ns = 1;
	}
	free(dep);
	return ns;
}

/* Outputs value, gradient in the slots of kinds k1, k2 and Hessian of
 * register `value` of the kernel program p; fills *k.  -1 when out of
 * memory. */
static int derive_kernel(struct eval *ev, struct ir_diff_ws *w, struct ir_prog *p, int value,
                         const struct kern_build *kb, enum ir_op k1, enum ir_op k2, struct ir_kernel *k)
{
	int ns = kb->nslot;
	struct ir_diff_inputs in = { ns, 2, { { k1, 0 }, { k2, 0 } } };
	int grad[KERN_MAX_SLOTS + 1];
	int *hr = mem_alloc(sizeof(int) * (size_t)(ns * ns + 1));
	int *hc = mem_alloc(sizeof(int) * (size_t)(ns * ns + 1));
	int *hg = mem_alloc(sizeof(int) * (size_t)(ns * ns + 1));
	int nnz = 0, rc = -1;
	if (!hr || !hc || !hg || ir_gradient(p, w, value, &in, grad))
		goto out;
	for (int s = 0; s < ns; s++) {
		if (ir_is_const(p, grad[s], NULL))
			continue;
		int hn;
		const int *hidx, *hreg;
		if (ir_gradient_sparse(p, w, grad[s], &in, &hn, &hidx, &hreg))
			goto out;
		for (int j = 0; j < hn; j++) {
			double kv;
			if (ir_is_const(p, hreg[j], &kv) && kv == 0)
				continue;
			hr[nnz] = s;
			hc[nnz] = hidx[j];
			hg[nnz++] = hreg[j];
		}
	}
	/* A Hessian is symmetric: entry (s, c) below the diagonal is given
	 * the register of (c, s), derived in row c before it, and its own
	 * derivation, now unused, goes with ir_prog_compact.  The two were
	 * derived apart (∂/∂x_c of ∂f/∂x_s and the other way), different
	 * programs equal to rounding: a finite element's energy density of
	 * six unknowns lost 188 of its 1129 instructions, the entries are
	 * exactly symmetric, and the kernel's 36 outputs stay as they were. */
	for (int e = 0; e < nnz; e++) {
		if (hc[e] >= hr[e])
			continue;
		for (int f = 0; f < e; f++)
			if (hr[f] == hc[e] && hc[f] == hr[e]) {
				hg[e] = hg[f];
				break;
			}
	}
	ir_prog_add_output(p, value);
	for (int s = 0; s < ns; s++)
		ir_prog_add_output(p, grad[s]);
	for (int e = 0; e < nnz; e++)
		ir_prog_add_output(p, hg[e]);
	ir_prog_compact(p);
	k->prog = p;
	k->lo = kb->lo;
	k->hi = kb->hi;
	k->nslot = ns;
	k->kind = arena_alloc(ev->a, sizeof *k->kind * (size_t)(ns + 1));
	k->base = arena_alloc(ev->a, sizeof *k->base * (size_t)(ns + 1));
	k->stride = arena_alloc(ev->a, sizeof *k->stride * (size_t)(ns + 1));
	memcpy(k->kind, kb->kind, sizeof *k->kind * (size_t)ns);
	memcpy(k->base, kb->base, sizeof *k->base * (size_t)ns);
	memcpy(k->stride, kb->stride, sizeof *k->stride * (size_t)ns);
	k->map = NULL;
	k->ndata = kb->ndata;
	k->data = NULL;
	if (kb->ndata > 0) {
		size_t ninst = (size_t)(kb->hi - kb->lo + 1);
		double *d = arena_alloc(ev->a, sizeof *d * ninst * (size_t)kb->ndata);
		for (size_t i = 0; i < ninst; i++)
			for (int j = 0; j < kb->ndata; j++)
				d[i * (size_t)kb->ndata + (size_t)j] = kb->data[j][i];
		k->data = d;
	}
	k->nnz = nnz;
	k->row = arena_alloc(ev->a, sizeof(int) * (size_t)(nnz + 1));
	k->col = arena_alloc(ev->a, sizeof(int) * (size_t)(nnz + 1));
	memcpy(k->row, hr, sizeof(int) * (size_t)nnz);
	memcpy(k->col, hc, sizeof(int) * (size_t)nnz);
	k->quadratic = 1;
	for (int e = 0; e < nnz && k->quadratic; e++) {
		int d = ir_depends(p, w, p->out[1 + ns + e], state_ops | OPBIT(IR_TIME) | OPBIT(IR_TABLE));
		if (d < 0)
			goto out;
		k->quadratic = !d;
	}
	k->nonsmooth = kernel_nonsmooth(p);
	/* |x| and sign(x) have a generalized second derivative 0: a constant
	 * Hessian that does not make the density quadratic */
	if (k->nonsmooth)
		k->quadratic = 0;
	rc = 0;
out:
	free(hr);
	free(hc);
	free(hg);
	return rc;
}

/* The slots of a kernel are all of kinds allowed (bits 1 << op). */
static int slots_only(const struct kern_build *kb, unsigned long long allowed)
{
	for (int s = 0; s < kb->nslot; s++)
		if (!(allowed & OPBIT(kb->kind[s])))
			return 0;
	return 1;
}

/* Instance i's row of k's per-instance data, NULL when it has none. */
static const double *kernel_data(const struct ir_kernel *k, long i)
{
	return k->data ? k->data + (size_t)(i - k->lo) * (size_t)k->ndata : NULL;
}

/* A kinetic kernel is a constant mass when it is ½ vᵀ H v exactly: its
 * Hessian constant (checked by derive_kernel) and its value and gradient 0
 * at v = 0 for every instance (with no u slot, T is a polynomial of
 * degree 2 in v).  Then the per-instance check at lowering replaces the
 * runtime's check_quadratic of an unrolled T. */
static int kinetic_form(const struct ir_kernel *k)
{
	double *r = mem_alloc(sizeof(double) * (size_t)(k->prog->n + 1));
	double *o = mem_alloc(sizeof(double) * (size_t)(k->prog->nout + 1));
	int ok = r && o && k->quadratic;
	for (long i = k->lo; i <= k->hi && ok; i++) {
		if (ir_eval_instance(k->prog, (double)i, kernel_data(k, i), r, o)) {
			ok = 0;
			break;
		}
		for (int s = 0; s <= k->nslot && ok; s++)
			ok = o[s] == 0;
	}
	free(r);
	free(o);
	return ok;
}

static int add_fric(struct kern_list *kl, const struct kern_fric *fr, int n)
{
	if (kl->nfric + n > kl->fcap) {
		int cap = 2 * (kl->nfric + n);
		struct kern_fric *q = mem_realloc(kl->fric, sizeof *q * (size_t)cap);
		if (!q)
			return -1;
		kl->fric = q;
		kl->fcap = cap;
	}
	memcpy(kl->fric + kl->nfric, fr, sizeof *fr * (size_t)n);
	kl->nfric += n;
	return 0;
}

/* Keep the data columns the compacted program p still reads, renumbered
 * in order of first use (DATA's a), as kb's columns. -1 when out of memory. */
static int keep_data(struct ir_prog *p, struct kern_build *kb)
{
	if (kb->ndata == 0)
		return 0;
	int *map = mem_alloc(sizeof(int) * (size_t)kb->ndata);
	double **col = mem_alloc(sizeof *col * (size_t)kb->ndata);
	if (!map || !col) {
		free(map);
		free(col);
		return -1;
	}
	int nd = 0;
	for (int j = 0; j < kb->ndata; j++)
		map[j] = -1;
	for (int q = 0; q < p->n; q++) {
		struct ir_insn *x = &p->insn[q];
		if (x->op != IR_DATA)
			continue;
		if (map[x->a] < 0) {
			col[nd] = kb->data[x->a];
			map[x->a] = nd++;
		}
		x->a = map[x->a];
	}
	memcpy(kb->data, col, sizeof *col * (size_t)nd);
	kb->ndata = nd;
	free(map);
	free(col);
	return 0;
}

/* r times scale, in p (r itself when scale is 1). */
static int scaled(struct ir_prog *p, int r, double scale, struct ir_loc loc)
{
	if (scale == 1)
		return r;
	if (scale == -1)
		return ir_emit(p, IR_NEG, r, 0, 0, loc);
	return ir_emit(p, IR_MUL, ir_emit_const(p, scale, loc), r, 0, loc);
}

/* A kernel's program being built: a new program for ev to evaluate
 * into, with the sum's index bound to INDEX in a scope of its own (the
 * caller restores ev->prog, ev->scope and ev->kern afterwards). */
static struct ir_prog *kernel_open(struct eval *ev, struct kern_build *kb, const char *index, struct loc loc)
{
	struct ir_prog *p = ir_prog_new(ev->a);
	ev->prog = p;
	ev->kern = kb;
	kb->index_reg = ir_emit_input(p, IR_INDEX, 0, ir_loc_of(loc));
	ev->scope = scope_new(ev->a, ev->scope);
	struct binding *b = arena_alloc(ev->a, sizeof *b);
	b->name = index;
	b->kind = B_VALUE;
	b->loc = loc;
	b->val.kind = VAL_NUM;
	b->val.reg = kb->index_reg;
	ev->scope->head = b;
	return p;
}

/* Lower sum e (times the constant scale) of an energy once, as a kernel
 * appended to kl: 1 when done, 0 when the sum is to be unrolled (its body
 * is not a kernel of this energy: then unrolling reports what is wrong
 * with it, or handles what kernels do not), -1 when out of memory, -2
 * on an error reported. */
static int try_kernel(struct eval *ev, struct ir_diff_ws *w, struct ast_expr *e, double scale, enum energy_kind ek,
                      int term, struct kern_list *kl)
{
	long lo, hi;
	struct ir_prog *saved = ev->prog;
	struct scope *saved_scope = ev->scope;
	ev->quiet++;
	int ok = eval_int(ev, e->lo, &lo, "a range bound") == 0 && eval_int(ev, e->hi, &hi, "a range bound") == 0 &&
	         hi >= lo;
	if (!ok) {
		ev->quiet--;
		return 0;
	}
	struct kern_build kb = { .lo = lo, .hi = hi };
	struct ir_prog *p = kernel_open(ev, &kb, e->name, e->loc);
	struct value v;
	ok = eval_expr(ev, e->lhs, &v) == 0 && v.kind == VAL_NUM && kb.nslot > 0;
	ev->scope = saved_scope;
	ev->kern = NULL;
	ev->prog = saved;
	ev->quiet--;
	if (!ok)
		return 0;
	int r = v.reg;
	/* keep the slots the value reads: x[i]' evaluates x[i] first */
	ir_prog_add_output(p, r);
	ir_prog_compact(p);
	r = p->out[0];
	p->nout = 0;
	int map[KERN_MAX_SLOTS], ns = 0;
	enum ir_op kind[KERN_MAX_SLOTS];
	long base[KERN_MAX_SLOTS], stride[KERN_MAX_SLOTS];
	for (int s = 0; s < kb.nslot; s++)
		map[s] = -1;
	for (int q = 0; q < p->n; q++) {
		struct ir_insn *x = &p->insn[q];
		if (!(state_ops & OPBIT(x->op)))
			continue;
		if (map[x->a] < 0) {
			kind[ns] = kb.kind[x->a];
			base[ns] = kb.base[x->a];
			stride[ns] = kb.stride[x->a];
			map[x->a] = ns++;
		}
		x->a = map[x->a];
	}
	if (ns == 0)
		return 0;
	if (keep_data(p, &kb))
		return -1;
	kb.nslot = ns;
	memcpy(kb.kind, kind, sizeof *kind * (size_t)ns);
	memcpy(kb.base, base, sizeof *base * (size_t)ns);
	memcpy(kb.stride, stride, sizeof *stride * (size_t)ns);
	int t = ir_depends(p, w, r, OPBIT(IR_TIME) | OPBIT(IR_TABLE));
	if (t != 0)
		return t < 0 ? -1 : 0;
	/* a dissipation's terms c |q'| (c > 0 constant) are rate-independent
	 * processes, kept apart as σ per instance, as when unrolled */
	struct kern_fric fr[KERN_MAX_SLOTS];
	int nfr = 0;
	if (ek == EN_DISSIPATION) {
		if (negative_abs_rates(ev, p, r, scale, e->loc))
			return -2;
		struct term_list tl = { 0 }, st = { 0 };
		int smooth = -1, rc = terms(p, r, &tl, &st);
		for (int q = 0; q < tl.n && rc == 0; q++) {
			/* c of either sign: a slot's coefficients sum to σ ≥ 0
			 * (negative_abs_rates) */
			int j, isdof = 0;
			double kq = scale * tl.k[q], c = kq * abs_rate_term(p, tl.t[q], &j, &isdof);
			if (c != 0 && nfr < KERN_MAX_SLOTS) {
				fr[nfr++] = (struct kern_fric){ isdof, term, kb.base[j], kb.stride[j], kb.lo, kb.hi, c };
				continue;
			}
			int tr = scaled(p, tl.t[q], kq, ir_loc_of(e->loc));
			smooth = smooth < 0 ? tr : ir_emit(p, IR_ADD, smooth, tr, 0, ir_loc_of(e->loc));
		}
		free(tl.t);
		free(tl.k);
		free(st.t);
		free(st.k);
		if (rc)
			return -1;
		if (nfr > 0 && smooth < 0) {
			/* nothing smooth left: no kernel, only σ */
			if (add_fric(kl, fr, nfr))
				return -1;
			return 1;
		}
		r = smooth;
	} else {
		r = scaled(p, r, scale, ir_loc_of(e->loc));
	}
	enum ir_op k1 = IR_DOF, k2 = IR_INT;
	if (ek == EN_POTENTIAL) {
		ok = slots_only(&kb, OPBIT(IR_DOF) | OPBIT(IR_INT));
	} else if (ek == EN_KINETIC) {
		/* a mass depending on u is unrolled (struct ir_kinetic) */
		ok = slots_only(&kb, OPBIT(IR_VEL));
		k1 = k2 = IR_VEL;
	} else if (ek == EN_CONSTRAINT) {
		/* a constraint reads the dofs only (rates, internal variables:
		 * unrolled, which reports them) */
		ok = slots_only(&kb, OPBIT(IR_DOF));
		k2 = IR_DOF;
	} else {
		ok = slots_only(&kb, OPBIT(IR_VEL) | OPBIT(IR_INTVEL));
		k1 = IR_VEL;
		k2 = IR_INTVEL;
	}
	if (!ok)
		return 0;
	if (kl->n == kl->cap) {
		int cap = kl->cap ? 2 * kl->cap : 4;
		struct ir_kernel *q = mem_realloc(kl->v, sizeof *q * (size_t)cap);
		if (!q)
			return -1;
		kl->v = q;
		kl->cap = cap;
	}
	struct ir_kernel *k = &kl->v[kl->n];
	memset(k, 0, sizeof *k);
	if (derive_kernel(ev, w, p, r, &kb, k1, k2, k))
		return -1;
	k->term = term;
	k->loc = ir_loc_of(e->loc);
	/* the terms σ|z'| of a dissipation are split off when unrolled */
	if (ek == EN_DISSIPATION && k->nonsmooth)
		return 0;
	if (ek == EN_KINETIC && !kinetic_form(k))
		return 0;
	if (nfr > 0 && add_fric(kl, fr, nfr))
		return -1;
	kl->n++;
	return 1;
}

/* The rate-independent terms c|p'| of a dissipation density, p an
 * internal variable constant on each cell (P0): Σ_q w_q|det J| c|p'| is
 * σ|p'| with σ = c·Σ_q w_q|det J| = c·|cell|, kept apart per cell as for
 * a sum's terms c|q'| (the exact return mapping of the schemes, Roubíček
 * 2017's σ_y|p'|).  For p : Q (a slot per point, read at its point only)
 * the same sum gives each point's unknown σ = c·w_q|det J|.  The density's other terms, integrated, replace *r.
 * 1 when nothing smooth is left, 0 when something is, -1 on error. */
static int integral_friction(struct eval *ev, struct ir_prog *p, const struct fe_integral *in,
                             const struct kern_build *kb, double scale, int term, struct kern_list *kl, int *r,
                             struct loc where)
{
	struct term_list tl = { 0 }, st = { 0 };
	struct ir_loc loc = ir_loc_of(where);
	double *coef = mem_calloc((size_t)in->nq * (size_t)(kb->nslot + 1), sizeof(double));
	int acc = -1, nfric = 0, rc = -1;
	if (!coef) {
		eval_error(ev, where, "out of memory");
		return -1;
	}
	for (int q = 0; q < in->nq; q++) {
		tl.n = 0;
		if (negative_abs_rates(ev, p, in->qreg[q], scale, where))
			goto out;
		if (terms(p, in->qreg[q], &tl, &st)) {
			eval_error(ev, where, "out of memory");
			goto out;
		}
		int smooth = -1;
		for (int k = 0; k < tl.n; k++) {
			int j, isdof = 0;
			double c = scale * tl.k[k] * abs_rate_term(p, tl.t[k], &j, &isdof);
			if (c != 0 && !isdof && kb->kind[j] == IR_INTVEL && fe_integral_cellwise(in, kb->base[j])) {
				coef[(size_t)q * (size_t)kb->nslot + (size_t)j] += c;
				nfric++;
				continue;
			}
			int t = scaled(p, tl.t[k], tl.k[k], loc);
			smooth = smooth < 0 ? t : ir_emit(p, IR_ADD, smooth, t, 0, loc);
		}
		if (smooth >= 0) {
			int w = ir_emit_input(p, IR_DATA, in->wdet + q, loc);
			int t = ir_emit(p, IR_MUL, w, smooth, 0, loc);
			acc = acc < 0 ? t : ir_emit(p, IR_ADD, acc, t, 0, loc);
		}
	}
	if (nfric == 0) {
		rc = 0;
		goto out;
	}
	/* σ of every cell's unknown: Σ_q c_q w_q|det J| */
	for (int j = 0; j < kb->nslot; j++) {
		int any = 0;
		for (int q = 0; q < in->nq; q++)
			any |= coef[(size_t)q * (size_t)kb->nslot + (size_t)j] != 0;
		if (!any)
			continue;
		for (long i = 0; i < in->ninst; i++) {
			const double *row = in->data + (size_t)i * (size_t)in->ndata;
			double sigma = 0;
			for (int q = 0; q < in->nq; q++)
				sigma += coef[(size_t)q * (size_t)kb->nslot + (size_t)j] * row[in->wdet + q];
			long g = fe_integral_index(in, kb->base[j], i);
			struct kern_fric f = { 0, term, g, 0, 0, 0, sigma };
			if (add_fric(kl, &f, 1)) {
				eval_error(ev, where, "out of memory");
				goto out;
			}
		}
	}
	if (acc >= 0)
		*r = acc;
	rc = acc < 0;
out:
	free(coef);
	free(tl.t);
	free(tl.k);
	free(st.t);
	free(st.k);
	return rc;
}

/* An integral's kernel whose density is a constant quadratic form of the
 * fields' features (fe_assemble.h): the form, and what it takes to give
 * the kernel its gather map and data should it not be folded after all
 * (kernel_materialize). */
struct fe_kernel_form {
	struct fe_form form;
	struct fe_integral in;      /* no data */
	int nd, *dcol;              /* the packed data columns of the program */
};

static int held_kernel(const struct ir_kernel *k, const struct fe_integral *in, const struct kern_build *kb,
                       int lumped, struct fe_held *h);

/* The element form of a built integral of energy ek (times scale): its
 * density at a point, with the fields' values and partial derivatives as
 * inputs, is ½ fᵀ D f with D constant — homogeneous (value and gradient 0
 * at 0), its Hessian in the features independent of them, of x and of
 * the cell.  D comes from one evaluation, once per integral, so that
 * folding the operator costs no program evaluation per cell.  0 with
 * *form, 1 when the density is not such a form (the kernel then folds, or
 * not, as any), -1 when out of memory. */
static int element_form(struct eval *ev, struct ir_diff_ws *w, struct ast_expr *e, const struct fe_integral *in,
                        double scale, enum energy_kind ek, struct fe_form *form)
{
	struct kern_build fkb = { 0 };
	struct ir_prog *saved = ev->prog, *p = ir_prog_new(ev->a);
	int r;
	ev->prog = p;
	int no = fe_integral_features(ev, e, in, &fkb, &r);
	ev->prog = saved;
	if (no)
		return no < 0 ? -1 : 1;
	if (fkb.nslot == 0 || fkb.nslot > FE_FORM_MAXFEAT || fkb.ndata > 0 ||
	    !slots_only(&fkb, ek == EN_POTENTIAL ? OPBIT(IR_DOF) : OPBIT(IR_VEL)))
		return 1;
	r = scaled(p, r, scale, ir_loc_of(e->loc));
	int d = ir_depends(p, w, r, OPBIT(IR_DATA) | OPBIT(IR_INDEX) | OPBIT(IR_TIME) | OPBIT(IR_TABLE));
	if (d != 0)
		return d < 0 ? -1 : 1;
	ir_prog_add_output(p, r);
	ir_prog_compact(p);
	r = p->out[0];
	p->nout = 0;
	enum ir_op k1 = ek == EN_POTENTIAL ? IR_DOF : IR_VEL, k2 = ek == EN_POTENTIAL ? IR_INT : IR_VEL;
	struct ir_kernel fk;
	memset(&fk, 0, sizeof fk);
	if (derive_kernel(ev, w, p, r, &fkb, k1, k2, &fk))
		return -1;
	if (!fk.quadratic || fk.nonsmooth)
		return 1;
	int nf = fkb.nslot, rc = 1;
	double *o = mem_alloc(sizeof(double) * (size_t)(fk.prog->nout + 1));
	double *D = mem_calloc((size_t)nf * (size_t)nf, sizeof(double));
	if (!o || !D) {
		rc = -1;
		goto out;
	}
	if (ir_eval_const(fk.prog, NULL, NULL, NULL, NULL, o))
		goto out;
	for (int s = 0; s <= nf; s++)
		if (o[s] != 0)
			goto out;   /* an offset or a linear term: not an operator */
	for (int k = 0; k < fk.nnz; k++)
		D[fk.row[k] * nf + fk.col[k]] += o[1 + nf + k];
	/* the two triangles are derived apart: made exactly symmetric */
	for (int a = 0; a < nf; a++)
		for (int b = a + 1; b < nf; b++)
			D[a * nf + b] = D[b * nf + a] = 0.5 * (D[a * nf + b] + D[b * nf + a]);
	fe_integral_form(ev, in, &fkb, D, form);
	rc = 0;
out:
	free(o);
	free(D);
	return rc;
}

/* Give a kernel with an element form the gather map and data that the
 * runtime evaluates it with (it was not folded).  -1 on error (reported). */
static int kernel_materialize(struct eval *ev, struct ir_kernel *k)
{
	const struct fe_kernel_form *kf = k->form;
	struct fe_integral in = kf->in;
	struct loc where = { k->loc.file, k->loc.line, k->loc.col, 1 };
	if (fe_integral_data(ev, &in, where))
		return -1;
	struct kern_build kb = { 0 };
	kb.nslot = k->nslot;
	kb.base = k->base;
	k->map = fe_integral_map(ev, &in, &kb);
	if (kf->nd > 0) {
		double *d = arena_alloc(ev->a, sizeof(double) * (size_t)in.ninst * (size_t)kf->nd);
		for (long i = 0; i < in.ninst; i++)
			for (int j = 0; j < kf->nd; j++)
				d[(size_t)i * (size_t)kf->nd + (size_t)j] =
					in.data[(size_t)i * (size_t)in.ndata + (size_t)kf->dcol[j]];
		k->data = d;
	}
	free(in.data);
	k->form = NULL;
	return 0;
}

/* Lower integral(D, DENSITY) of an energy as a kernel over the cells
 * (fe.c: the program and the gather map), appended to kl.  Unlike a sum it
 * is never unrolled: what it cannot be is an error.  -1 on error
 * (reported). */
static int try_integral(struct eval *ev, struct ir_diff_ws *w, struct ast_expr *e, double scale, enum energy_kind ek,
                        int term, struct kern_list *kl)
{
	static const char *const what[] = { "the potential", "the kinetic energy", "the dissipation" };
	struct kern_build kb = { 0 };
	struct ir_prog *saved = ev->prog;
	struct ir_prog *p = ir_prog_new(ev->a);
	struct fe_integral in;
	int r, rc = -1, *dmap = NULL, *dcol = NULL;
	ev->prog = p;
	int bad = fe_integral_build(ev, e, &kb, &r, &in);
	ev->prog = saved;
	if (bad)
		return -1;
	/* an element form needs no per-cell data unless it is kept as a
	 * kernel after all */
	struct fe_form form;
	int nform = element_form(ev, w, e, &in, scale, ek, &form);
	if (nform < 0) {
		eval_error(ev, e->loc, "out of memory");
		goto out;
	}
	if (nform > 0 && fe_integral_data(ev, &in, e->loc))
		goto out;
	if (ek == EN_DISSIPATION) {
		int fr = integral_friction(ev, p, &in, &kb, scale, term, kl, &r, e->loc);
		if (fr < 0)
			goto out;
		if (fr > 0) {
			/* nothing smooth left: no kernel, only σ per cell */
			rc = 0;
			goto out;
		}
	}
	r = scaled(p, r, scale, ir_loc_of(e->loc));
	ir_prog_add_output(p, r);
	ir_prog_compact(p);
	r = p->out[0];
	p->nout = 0;
	/* renumber the slots in order of use, and the data columns read */
	int map[KERN_MAX_SLOTS], ns = 0;
	enum ir_op kind[KERN_MAX_SLOTS];
	long base[KERN_MAX_SLOTS];
	dmap = mem_alloc(sizeof(int) * (size_t)(in.ndata + 1));
	dcol = mem_alloc(sizeof(int) * (size_t)(in.ndata + 1));
	if (!dmap || !dcol) {
		eval_error(ev, e->loc, "out of memory");
		goto out;
	}
	for (int s = 0; s < kb.nslot; s++)
		map[s] = -1;
	for (int j = 0; j < in.ndata; j++)
		dmap[j] = -1;
	int nd = 0;
	for (int q = 0; q < p->n; q++) {
		struct ir_insn *x = &p->insn[q];
		if (x->op == IR_DATA) {
			if (dmap[x->a] < 0) {
				dcol[nd] = x->a;
				dmap[x->a] = nd++;
			}
			x->a = dmap[x->a];
			continue;
		}
		if (!(state_ops & OPBIT(x->op)))
			continue;
		if (map[x->a] < 0) {
			kind[ns] = kb.kind[x->a];
			base[ns] = kb.base[x->a];
			map[x->a] = ns++;
		}
		x->a = map[x->a];
	}
	if (ns == 0) {
		eval_error(ev, e->loc, "this integral reads no field: its density is a constant");
		goto out;
	}
	kb.nslot = ns;
	memcpy(kb.kind, kind, sizeof *kind * (size_t)ns);
	memcpy(kb.base, base, sizeof *base * (size_t)ns);
	for (int s = 0; s < ns; s++)
		kb.stride[s] = 0;
	int t = ir_depends(p, w, r, OPBIT(IR_TIME) | OPBIT(IR_TABLE));
	if (t != 0) {
		if (t > 0)
			eval_error(ev, e->loc, "%s must not depend on t: a time-dependent load belongs in a force", what[ek]);
		goto out;
	}
	enum ir_op k1 = IR_DOF, k2 = IR_INT;
	int ok;
	if (ek == EN_POTENTIAL) {
		ok = slots_only(&kb, OPBIT(IR_DOF) | OPBIT(IR_INT));
	} else if (ek == EN_KINETIC) {
		ok = slots_only(&kb, OPBIT(IR_VEL));
		k1 = k2 = IR_VEL;
	} else if (ek == EN_CONSTRAINT) {
		/* a constraint reads the dofs only (rates, internal variables:
		 * unrolled, which reports them) */
		ok = slots_only(&kb, OPBIT(IR_DOF));
		k2 = IR_DOF;
	} else {
		ok = slots_only(&kb, OPBIT(IR_VEL) | OPBIT(IR_INTVEL));
		k1 = IR_VEL;
		k2 = IR_INTVEL;
	}
	if (!ok) {
		eval_error(ev, e->loc, ek == EN_POTENTIAL ? "the density of a potential reads the fields, not their "
		           "velocities" : ek == EN_KINETIC ? "the density of a kinetic energy reads the velocities "
		           "only (a mass depending on the fields is not supported in integrals yet)" :
		           "the density of a dissipation reads the velocities only");
		goto out;
	}
	if (kl->n == kl->cap) {
		int cap = kl->cap ? 2 * kl->cap : 4;
		struct ir_kernel *q = mem_realloc(kl->v, sizeof *q * (size_t)cap);
		if (!q) {
			eval_error(ev, e->loc, "out of memory");
			goto out;
		}
		kl->v = q;
		kl->cap = cap;
	}
	struct ir_kernel *k = &kl->v[kl->n];
	memset(k, 0, sizeof *k);
	if (derive_kernel(ev, w, p, r, &kb, k1, k2, k)) {
		eval_error(ev, e->loc, "out of memory");
		goto out;
	}
	k->term = term;
	k->loc = ir_loc_of(e->loc);
	k->ndata = nd;
	if (nform == 0) {
		/* map and data when kernel_materialize asks for them */
		struct fe_kernel_form *kf = arena_alloc(ev->a, sizeof *kf);
		kf->form = form;
		kf->in = in;
		kf->in.data = NULL;
		kf->in.qreg = NULL;
		kf->nd = nd;
		kf->dcol = arena_alloc(ev->a, sizeof(int) * (size_t)(nd + 1));
		memcpy(kf->dcol, dcol, sizeof(int) * (size_t)nd);
		k->form = kf;
	} else {
		k->map = fe_integral_map(ev, &in, &kb);
	}
	/* the data columns the program reads, packed per instance */
	if (nd > 0 && nform > 0) {
		double *d = arena_alloc(ev->a, sizeof(double) * (size_t)in.ninst * (size_t)nd);
		for (long i = 0; i < in.ninst; i++)
			for (int j = 0; j < nd; j++)
				d[(size_t)i * (size_t)nd + (size_t)j] = in.data[(size_t)i * (size_t)in.ndata + (size_t)dcol[j]];
		k->data = d;
	}
	if (ek == EN_DISSIPATION && k->nonsmooth) {
		eval_error(ev, e->loc, "a nonsmooth dissipation density (abs, min, max, if on the velocities) is "
		           "supported in integrals only as terms c*abs(p') of an internal variable on the mesh "
		           "(internal p on MESH : P0 or Q)");
		goto out;
	}
	if (ek == EN_KINETIC && !k->form && !kinetic_form(k)) {
		eval_error(ev, e->loc, "the density of a kinetic energy must be a quadratic form of the velocities "
		           "with constant coefficients (½ rho u'^2)");
		goto out;
	}
	if (ek == EN_KINETIC && !k->form && k->map && held_kernel(k, &in, &kb, term, ev->mc->held) < 0) {
		eval_error(ev, e->loc, "out of memory");
		goto out;
	}
	for (int s = 0; ek == EN_KINETIC && term && s < ns; s++) {
		/* the row sums of P2's mass vanish or are negative at the
		 * vertices of triangles and tetrahedra (Hermite's mix values
		 * and slopes): row-sum lumping is for P1 and Q1 */
		const char *elem, *bad = fe_integral_unlumpable(&in, kb.base[s], &elem);
		if (bad) {
			eval_error(ev, e->loc, "kinetic lumped is for P1 and Q1 fields (row-sum lumping): %s is %s", bad,
			           elem);
			goto out;
		}
	}
	kl->n++;
	rc = 0;
out:
	free(dmap);
	free(dcol);
	fe_integral_free(&in);
	return rc;
}

/* Whether a sum (or an integral) stands among the terms of e's top-level
 * sum, possibly under factors (c*sum(...), sum(...)/c, 0.5*(sum(...) +
 * sum(...))). */
static int has_sum_term(const struct ast_expr *e)
{
	while (e) {
		if (e->kind == AST_SUM || fe_is_integral(e))
			return 1;
		if (e->kind == AST_UNARY && e->op == AST_OP_NEG) {
			e = e->lhs;
		} else if (e->kind == AST_BINARY && (e->op == AST_OP_ADD || e->op == AST_OP_SUB || e->op == AST_OP_MUL)) {
			if (has_sum_term(e->rhs))
				return 1;
			e = e->lhs;
		} else if (e->kind == AST_BINARY && e->op == AST_OP_DIV) {
			e = e->lhs;
		} else {
			return 0;
		}
	}
	return 0;
}

/* The value of e when it is a finite nonzero constant (no state, no t):
 * 1 with *k, else 0, with no message (e is evaluated again where it is
 * not a factor of kernels). */
static int constant_factor(struct eval *ev, struct ast_expr *e, double *k)
{
	struct ir_prog *saved = ev->prog;
	struct value v;
	ev->prog = ir_prog_new(ev->a);
	ev->quiet++;
	int ok = eval_expr(ev, e, &v) == 0 && v.kind == VAL_NUM && ir_is_const(ev->prog, v.reg, k) && isfinite(*k) &&
	         *k != 0;
	ev->quiet--;
	ev->prog = saved;
	return ok;
}

/* Lower the terms of e's top-level sum times the constant scale: sums as
 * kernels into kl where they can be (also under constant factors: c*sum
 * is a kernel of c times the body), the rest added into *acc (a register,
 * -1 for none) of ev->prog.  -1 on error (reported). */
static int energy_terms(struct eval *ev, struct ir_diff_ws *w, struct ast_expr *e, double scale, enum energy_kind ek,
                        int term, const char *what, struct kern_list *kl, int *acc)
{
	if (e->kind == AST_UNARY && e->op == AST_OP_NEG)
		return energy_terms(ev, w, e->lhs, -scale, ek, term, what, kl, acc);
	if (e->kind == AST_BINARY && (e->op == AST_OP_ADD || e->op == AST_OP_SUB) && has_sum_term(e))
		return energy_terms(ev, w, e->lhs, scale, ek, term, what, kl, acc) ||
		       energy_terms(ev, w, e->rhs, e->op == AST_OP_SUB ? -scale : scale, ek, term, what, kl, acc) ? -1 : 0;
	if (e->kind == AST_BINARY && (e->op == AST_OP_MUL || e->op == AST_OP_DIV) && has_sum_term(e)) {
		/* a constant factor of sums: c*S, S*c, S/c */
		int right = e->op == AST_OP_MUL && has_sum_term(e->rhs) && !has_sum_term(e->lhs);
		int left = has_sum_term(e->lhs) && !has_sum_term(e->rhs);
		double k;
		if ((right || left) && constant_factor(ev, right ? e->lhs : e->rhs, &k))
			return energy_terms(ev, w, right ? e->rhs : e->lhs, e->op == AST_OP_DIV ? scale / k : scale * k, ek,
			                    term, what, kl, acc);
	}
	/* an integral as a constraint's side would be one row over a region's
	 * dofs: not supported (its kernel has no constraint row to go to) */
	if (fe_is_integral(e) && ek == EN_CONSTRAINT)
		return eval_error(ev, e->loc, "integral(...) is a term of a kinetic energy, a potential or a dissipation, "
		                  "or a recorded value, not a side of a constraint (a field is prescribed on a region "
		                  "by constraint U on REGION == EXPR)");
	if (fe_is_integral(e))
		return try_integral(ev, w, e, scale, ek, term, kl);
	if (e->kind == AST_SUM) {
		int rc = try_kernel(ev, w, e, scale, ek, term, kl);
		if (rc == -2)
			return -1;
		if (rc < 0)
			return eval_error(ev, e->loc, "out of memory lowering this sum");
		if (rc > 0)
			return 0;
	}
	struct value v;
	if (eval_expr(ev, e, &v))
		return -1;
	if (v.kind != VAL_NUM)
		return eval_error(ev, e->loc, "%s must be a number, not %s", what, value_kind_name(&v));
	int r = scaled(ev->prog, v.reg, scale, ir_loc_of(e->loc));
	*acc = *acc < 0 ? r : ir_emit(ev->prog, IR_ADD, *acc, r, 0, ir_loc_of(e->loc));
	return 0;
}

/* An energy statement's expression: its sums as kernels, the rest into
 * *reg of ev->prog (-1 when everything went to kernels). */
static int energy_expr(struct eval *ev, struct ir_diff_ws *w, struct ast_expr *e, enum energy_kind ek, int term,
                       const char *what, struct kern_list *kl, struct value *out)
{
	memset(out, 0, sizeof *out);
	if (!has_sum_term(e))
		return eval_expr(ev, e, out);
	int acc = -1;
	if (energy_terms(ev, w, e, 1, ek, term, what, kl, &acc))
		return -1;
	out->kind = VAL_NUM;
	out->reg = acc >= 0 ? acc : ir_emit_const(ev->prog, 0, ir_loc_of(e->loc));
	return 0;
}

/* A load lowered once (struct ir_model's fkernel): the body of sum e, a
 * function of its index and t but of no unknown, adding at instance k
 * into load term + rstride k (rstride 0: a sum in one dof's load).  1
 * when done (appended to kl), 0 when it is to be unrolled (which reports
 * what is wrong), -1 when out of memory. */
static int load_kernel(struct eval *ev, struct ast_expr *e, int term, int rstride, struct kern_list *kl)
{
	long lo, hi;
	struct ir_prog *saved = ev->prog;
	struct scope *saved_scope = ev->scope;
	ev->quiet++;
	int ok = eval_int(ev, e->lo, &lo, "a range bound") == 0 && eval_int(ev, e->hi, &hi, "a range bound") == 0 &&
	         hi >= lo;
	if (!ok) {
		ev->quiet--;
		return 0;
	}
	struct kern_build kb = { .lo = lo, .hi = hi };
	struct ir_prog *p = kernel_open(ev, &kb, e->name, e->loc);
	struct value v;
	ok = eval_expr(ev, e->lhs, &v) == 0 && v.kind == VAL_NUM && kb.nslot == 0;
	ev->scope = saved_scope;
	ev->kern = NULL;
	ev->prog = saved;
	ev->quiet--;
	if (!ok)
		return 0;
	ir_prog_add_output(p, v.reg);
	ir_prog_compact(p);
	if (keep_data(p, &kb))
		return -1;
	if (kl->n == kl->cap) {
		int cap = kl->cap ? 2 * kl->cap : 4;
		struct ir_kernel *q = mem_realloc(kl->v, sizeof *q * (size_t)cap);
		if (!q)
			return -1;
		kl->v = q;
		kl->cap = cap;
	}
	struct ir_kernel *k = &kl->v[kl->n++];
	memset(k, 0, sizeof *k);
	k->prog = p;
	k->lo = lo;
	k->hi = hi;
	k->ndata = kb.ndata;
	if (kb.ndata > 0) {
		size_t ninst = (size_t)(hi - lo + 1);
		double *d = arena_alloc(ev->a, sizeof *d * ninst * (size_t)kb.ndata);
		for (size_t i = 0; i < ninst; i++)
			for (int j = 0; j < kb.ndata; j++)
				d[i * (size_t)kb.ndata + (size_t)j] = kb.data[j][i];
		k->data = d;
	}
	k->term = term;
	k->rstride = rstride;
	k->loc = ir_loc_of(e->loc);
	return 1;
}

/* force TARGET: LOAD with its sums lowered once (load_kernel, into the
 * loads of dof `dof`), the rest added into *acc of ev->prog (-1: none).
 * Only a sum standing as a term (under constant factors) is a kernel. */
static int load_terms(struct eval *ev, struct ast_expr *e, double scale, int dof, struct kern_list *kl, int *acc)
{
	if (e->kind == AST_UNARY && e->op == AST_OP_NEG)
		return load_terms(ev, e->lhs, -scale, dof, kl, acc);
	if (e->kind == AST_BINARY && (e->op == AST_OP_ADD || e->op == AST_OP_SUB) && has_sum_term(e))
		return load_terms(ev, e->lhs, scale, dof, kl, acc) ||
		       load_terms(ev, e->rhs, e->op == AST_OP_SUB ? -scale : scale, dof, kl, acc) ? -1 : 0;
	if (e->kind == AST_BINARY && (e->op == AST_OP_MUL || e->op == AST_OP_DIV) && has_sum_term(e)) {
		int right = e->op == AST_OP_MUL && has_sum_term(e->rhs) && !has_sum_term(e->lhs);
		int left = has_sum_term(e->lhs) && !has_sum_term(e->rhs);
		double k;
		if ((right || left) && constant_factor(ev, right ? e->lhs : e->rhs, &k))
			return load_terms(ev, right ? e->rhs : e->lhs, e->op == AST_OP_DIV ? scale / k : scale * k, dof, kl,
			                  acc);
	}
	if (e->kind == AST_SUM && !fe_is_integral(e)) {
		/* the scale goes into the body: scale * BODY */
		struct ast_expr *body = e->lhs;
		if (scale != 1) {
			struct ast_expr *c = ast_expr_new(ev->a, AST_NUM, e->loc);
			c->num = scale;
			body = ast_expr_new(ev->a, AST_BINARY, e->loc);
			body->op = AST_OP_MUL;
			body->lhs = c;
			body->rhs = e->lhs;
		}
		struct ast_expr *sum = ast_expr_new(ev->a, AST_SUM, e->loc);
		*sum = *e;
		sum->lhs = body;
		int rc = load_kernel(ev, sum, dof, 0, kl);
		if (rc < 0)
			return eval_error(ev, e->loc, "out of memory lowering this sum");
		if (rc > 0)
			return 0;
	}
	struct value v;
	if (eval_expr(ev, e, &v))
		return -1;
	if (v.kind != VAL_NUM)
		return eval_error(ev, e->loc, "a load on one dof must be a number, not %s", value_kind_name(&v));
	int r = scaled(ev->prog, v.reg, scale, ir_loc_of(e->loc));
	*acc = *acc < 0 ? r : ir_emit(ev->prog, IR_ADD, *acc, r, 0, ir_loc_of(e->loc));
	return 0;
}

int lower_has_sum_term(const struct ast_expr *e)
{
	return has_sum_term(e);
}

int lower_load_sums(struct eval *ev, struct ast_expr *load, int dof, struct load_kernels *lk, int *reg)
{
	struct kern_list kl = { 0 };
	kl.v = lk->v;
	kl.n = lk->n;
	kl.cap = lk->cap;
	int acc = -1;
	int rc = load_terms(ev, load, 1, dof, &kl, &acc);
	lk->v = kl.v;
	lk->n = kl.n;
	lk->cap = kl.cap;
	*reg = acc >= 0 ? acc : ir_emit_const(ev->prog, 0, ir_loc_of(load->loc));
	return rc;
}

int lower_load_family(struct eval *ev, struct ast_item *fam, struct ast_expr *target, struct ast_expr *load, int ndof,
                      struct load_kernels *lk)
{
	/* the target: one dof at an index affine in I (a slot of a kernel
	 * of I, evaluated quietly; anything else is unrolled) */
	long lo, hi;
	if (eval_int(ev, fam->value, &lo, "a range bound") || eval_int(ev, fam->dir, &hi, "a range bound"))
		return -1;
	if (hi < lo)
		return 1;
	struct ir_prog *saved = ev->prog;
	struct scope *saved_scope = ev->scope;
	struct kern_build kb = { .lo = lo, .hi = hi };
	ev->quiet++;
	struct ir_prog *p = kernel_open(ev, &kb, fam->target->name, fam->loc);
	struct value v;
	int allow = ev->mc->allow_state;
	ev->mc->allow_state = 1;
	int ok = target->kind == AST_INDEX && eval_expr(ev, target, &v) == 0 && v.kind == VAL_NUM &&
	         p->insn[v.reg].op == IR_DOF && kb.nslot == 1;
	ev->mc->allow_state = allow;
	ev->scope = saved_scope;
	ev->kern = NULL;
	ev->prog = saved;
	ev->quiet--;
	if (!ok || kb.base[0] + kb.stride[0] * lo < 0 || kb.base[0] + kb.stride[0] * hi >= ndof ||
	    kb.base[0] + kb.stride[0] * lo > INT_MAX || kb.stride[0] > INT_MAX || kb.stride[0] < INT_MIN)
		return 0;
	struct ast_expr *sum = ast_expr_new(ev->a, AST_SUM, load->loc);
	sum->name = fam->target->name;
	sum->lo = fam->value;
	sum->hi = fam->dir;
	sum->lhs = load;
	struct kern_list kl = { 0 };
	kl.v = lk->v;
	kl.n = lk->n;
	kl.cap = lk->cap;
	int rc = load_kernel(ev, sum, (int)(kb.base[0] + kb.stride[0] * lo), (int)kb.stride[0], &kl);
	lk->v = kl.v;
	lk->n = kl.n;
	lk->cap = kl.cap;
	if (rc < 0)
		return eval_error(ev, load->loc, "out of memory lowering this sum");
	return rc;
}

/* Attach the kernels to f (copied to the arena), folding their classes
 * into f's. */
static void attach_kernels(struct eval *ev, struct ir_func *f, const struct kern_list *kl)
{
	f->nkernel = kl->n;
	f->kernel = arena_alloc(ev->a, sizeof *f->kernel * (size_t)(kl->n + 1));
	if (kl->n)
		memcpy(f->kernel, kl->v, sizeof *f->kernel * (size_t)kl->n);
	for (int q = 0; q < kl->n; q++) {
		f->quadratic &= kl->v[q].quadratic;
		f->nonsmooth |= kl->v[q].nonsmooth;
	}
}

/* The global index of slot s of kernel k at instance i (ir.h). */
static long kernel_index(const struct ir_kernel *k, int s, long i)
{
	return k->map ? k->map[(i - k->lo) * k->nslot + s] : k->base[s] + k->stride[s] * i;
}

/* Sum the expressions of every item of one kind into a register of a new
 * program; -1 when the model has none. */
static int sum_items(struct eval *ev, struct model_ctx *mc, struct ast_model *am, enum ast_item_kind kind,
                     const char *what, struct ir_prog **prog, struct loc *where, struct ir_diff_ws *w,
                     enum energy_kind ek, struct kern_list *kl)
{
	int total = -1;
	kl->n = 0;
	*prog = ir_prog_new(ev->a);
	ev->prog = *prog;
	mc->what = what;
	mc->allow_t = 0;
	mc->allow_state = 1;
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if (it->kind != kind)
			continue;
		struct value v;
		/* a kinetic kernel's term says whether it is lumped */
		if (energy_expr(ev, w, it->value, ek, it->lumped, what, kl, &v))
			return -2;
		if (it->lumped && v.reg >= 0 && (*prog)->insn[v.reg].op != IR_CONST)
			return eval_error(ev, it->value->loc, "kinetic lumped applies to integrals over meshes "
			                  "(kinetic lumped integral(MESH, DENSITY)): this kinetic energy has other terms"), -2;
		if (v.kind != VAL_NUM)
			return eval_error(ev, it->value->loc, "%s must be a number, not %s", what, value_kind_name(&v)), -2;
		if (v.reg >= 0 && (*prog)->insn[v.reg].op != IR_CONST) {
			int uses_t = ir_depends(*prog, w, v.reg, OPBIT(IR_TIME)) > 0;
			if (uses_t)
				return eval_error(ev, it->loc, "%s must not depend on t: a time-dependent load "
				                  "belongs in a force", what), -2;
		}
		if (total < 0) {
			total = v.reg;
			*where = it->loc;
		} else {
			total = ir_emit(ev->prog, IR_ADD, total, v.reg, 0, ir_loc_of(it->loc));
		}
	}
	return total;
}

/* Outputs value, gradient and Hessian of register `value`; the pattern is
 * collected from the sparse gradients of each gradient entry. */
static int derive(struct eval *ev, struct ir_diff_ws *w, struct ir_prog *p, int value,
                  const struct ir_diff_inputs *in, struct loc loc, struct ir_func **out)
{
	struct ir_func *f = arena_alloc(ev->a, sizeof *f);
	f->prog = p;
	f->nvar = in->n;
	f->loc = ir_loc_of(loc);
	int *grad = mem_alloc(sizeof(int) * (size_t)(in->n + 1));
	if (!grad || ir_gradient(p, w, value, in, grad)) {
		free(grad);
		return eval_error(ev, loc, "out of memory differentiating this energy");
	}
	ir_prog_add_output(p, value);
	for (int k = 0; k < in->n; k++)
		ir_prog_add_output(p, grad[k]);
	int cap = 0, *row = NULL, *col = NULL, *reg = NULL;
	f->quadratic = 1;
	for (int k = 0; k < in->n; k++) {
		if (ir_is_const(p, grad[k], NULL))
			continue;
		int nnz;
		const int *hidx, *hreg;
		if (ir_gradient_sparse(p, w, grad[k], in, &nnz, &hidx, &hreg)) {
			free(grad);
			free(row); free(col); free(reg);
			return eval_error(ev, loc, "out of memory differentiating this energy");
		}
		for (int j = 0; j < nnz; j++) {
			double kv;
			if (ir_is_const(p, hreg[j], &kv) && kv == 0)
				continue;
			if (!ir_is_const(p, hreg[j], NULL))
				f->quadratic = 0;
			if (grow_ints((int **[]){ &row, &col, &reg }, 3, f->nnz, &cap)) {
				free(grad);
				free(row); free(col); free(reg);
				return eval_error(ev, loc, "out of memory differentiating this energy");
			}
			row[f->nnz] = k;
			col[f->nnz] = hidx[j];
			reg[f->nnz++] = hreg[j];
		}
	}
	f->row = arena_alloc(ev->a, sizeof(int) * (size_t)(f->nnz + 1));
	f->col = arena_alloc(ev->a, sizeof(int) * (size_t)(f->nnz + 1));
	for (int k = 0; k < f->nnz; k++) {
		f->row[k] = row[k];
		f->col[k] = col[k];
		ir_prog_add_output(p, reg[k]);
	}
	f->nonsmooth = ir_depends(p, w, value, nonsmooth_ops) > 0;
	/* abs(u), sign(u)·u: their Hessians are the constant 0 (the
	 * generalized derivative of sign), yet they are not quadratic forms
	 * that fold into operators */
	if (f->nonsmooth)
		f->quadratic = 0;
	ir_prog_compact(p);
	free(grad);
	free(row); free(col); free(reg);
	*out = f;
	return 0;
}

/* Triplets of a constant operator, in the arena, sized once for an upper
 * bound of their number (no copy of 10⁶ entries as they grow). */
struct triplets {
	int n, cap;
	int *row, *col;
	double *val;
	int csc;     /* in compressed-column order (one assembled operator and
	                nothing appended: struct ir_matrix's csc) */
	int nblock, bcap;   /* entries generated by kernels (struct
	                       ir_matrix_block), each after its `at` triplets */
	struct ir_matrix_block *block;
};

/* Room for `more` entries beyond t->n; -1 beyond INT_MAX entries. */
static int trip_reserve(struct eval *ev, struct triplets *t, long long more)
{
	long long need = (long long)t->n + more;
	t->csc = 0;
	if (need <= t->cap)
		return 0;
	if (need > INT_MAX)
		return -1;
	size_t c = (size_t)need;
	t->row = arena_regrow_uninit(ev->a, t->row, sizeof(int) * (size_t)t->n, sizeof(int) * c);
	t->col = arena_regrow_uninit(ev->a, t->col, sizeof(int) * (size_t)t->n, sizeof(int) * c);
	t->val = arena_regrow_uninit(ev->a, t->val, sizeof(double) * (size_t)t->n, sizeof(double) * c);
	t->cap = (int)need;
	return 0;
}

static void trip_add(struct triplets *t, int i, int j, double v)
{
	t->row[t->n] = i;
	t->col[t->n] = j;
	t->val[t->n++] = v;
}

/* The variable of slot s of kernel k at instance i, numbered as the
 * function's (DOF i or VEL i as i, INT j or INTVEL j as n + j). */
static int kernel_var(const struct ir_kernel *k, int s, long i, int n)
{
	long g = kernel_index(k, s, i);
	if (g < 0)
		return -1;
	return (int)(k->kind[s] == IR_INT || k->kind[s] == IR_INTVEL ? g + n : g);
}

static void *csc_arena_alloc(void *ctx, size_t size)
{
	return arena_alloc_uninit(ctx, size);
}

/* Instance i of kernel k evaluated at the origin into o (scratch r):
 * whether its value and gradient are 0 there (its Hessian is then an
 * operator's entries). */
static int homogeneous_at(const struct ir_kernel *k, long i, double *r, double *o)
{
	if (ir_eval_instance(k->prog, (double)i, kernel_data(k, i), r, o))
		return 0;
	for (int s = 0; s <= k->nslot; s++)
		if (o[s] != 0)
			return 0;
	return 1;
}

/* struct fe_held's sums for a kinetic integral's kernel that is not an
 * element form (Hermite's, whose basis scales with the cell): its
 * Hessian at the instances that read a held unknown (map -1), each slot
 * weighted by its value node's component (fe_integral_component).  0,
 * or -1 when out of memory. */
static int held_kernel(const struct ir_kernel *k, const struct fe_integral *in, const struct kern_build *kb,
                       int lumped, struct fe_held *h)
{
	if (!h)
		return 0;
	int ns = k->nslot, rc = 0;
	double *r = NULL, *o = NULL;
	for (long i = k->lo; i <= k->hi; i++) {
		long inst = i - k->lo;
		const int *g = k->map + inst * ns;
		int any = 0;
		for (int s = 0; s < ns; s++)
			any |= g[s] < 0 && fe_integral_component(in, kb->base[s], inst) >= 0;
		if (!any)
			continue;
		if (!r && (!(r = mem_alloc(sizeof(double) * (size_t)(k->prog->n + 1))) ||
		           !(o = mem_alloc(sizeof(double) * (size_t)(k->prog->nout + 1))))) {
			rc = -1;
			break;
		}
		if (ir_eval_instance(k->prog, (double)i, kernel_data(k, i), r, o))
			continue;
		for (int e = 0; e < k->nnz; e++) {
			int rs = k->row[e], cs = k->col[e];
			int pr = fe_integral_component(in, kb->base[rs], inst), pc = fe_integral_component(in, kb->base[cs], inst);
			double v = o[1 + ns + e];
			if (g[rs] < 0 && pr >= 0 && pc >= 0)
				h->A[pr][pc] += v;
			else if (g[rs] >= 0 && !lumped && g[cs] < 0 && pc == 0)
				h->c[g[rs]] += v;
		}
	}
	free(r);
	free(o);
	return rc;
}

/* kernel_entries of a kernel over dofs (or velocities) alone: its
 * Hessian values as a block of t (struct ir_matrix_block), not as
 * triplets.  A program that reads neither i nor data has the same values
 * at every instance: evaluated once, kept once (a chain's springs: four
 * numbers); otherwise evaluated per instance, and kept per instance
 * unless they all equal the first's. */
static int kernel_block(struct eval *ev, const struct ir_kernel *k, int lumped, struct triplets *t)
{
	int varies = 0;
	for (int q = 0; q < k->prog->n; q++)
		varies |= k->prog->insn[q].op == IR_INDEX || k->prog->insn[q].op == IR_DATA;
	size_t nnz = (size_t)k->nnz, ninst = (size_t)(k->hi - k->lo + 1);
	double *r = mem_alloc(sizeof(double) * (size_t)(k->prog->n + 1));
	double *o = mem_alloc(sizeof(double) * (size_t)(k->prog->nout + 1));
	double *first = arena_alloc(ev->a, sizeof(double) * (nnz + 1)), *all = NULL;
	int rc = r && o ? 1 : -1;
	for (long i = k->lo; i <= (varies ? k->hi : k->lo) && rc == 1; i++) {
		if (!homogeneous_at(k, i, r, o)) {
			rc = 0;
			break;
		}
		const double *h = o + 1 + k->nslot;
		size_t at = (size_t)(i - k->lo);
		if (at == 0) {
			memcpy(first, h, sizeof(double) * nnz);
		} else if (!all && memcmp(first, h, sizeof(double) * nnz) != 0) {
			all = arena_alloc_uninit(ev->a, sizeof(double) * (ninst * nnz + 1));
			for (size_t q = 0; q < at; q++)
				memcpy(all + q * nnz, first, sizeof(double) * nnz);
		}
		if (all)
			memcpy(all + at * nnz, h, sizeof(double) * nnz);
	}
	free(r);
	free(o);
	if (rc <= 0) {
		if (all)
			arena_release(ev->a, all);
		return rc;
	}
	if (t->nblock == t->bcap) {
		int cap = t->bcap ? 2 * t->bcap : 4;
		t->block = arena_grow(ev->a, t->block, sizeof *t->block * (size_t)t->bcap, sizeof *t->block * (size_t)cap);
		t->bcap = cap;
	}
	/* the kernel's own copy: a list's entries move as it grows */
	struct ir_kernel *kc = arena_alloc(ev->a, sizeof *kc);
	*kc = *k;
	t->block[t->nblock++] = (struct ir_matrix_block){ kc, all ? all : first, all != NULL, lumped, t->n };
	t->csc = 0;
	return 1;
}

/* The constant Hessian entries of kernel k (value and gradient 0 at the
 * origin for every instance, else 0: not an operator) into t; 1 when
 * they are, -1 when out of memory, -2 when a mesh's cell could not be
 * integrated (reported). */
static int kernel_entries(struct eval *ev, const struct ir_kernel *k, int n, int lumped, struct triplets *t,
                          struct fe_held *held, const int *cols)
{
	if (k->form) {
		/* cell by cell in C, summed: one entry per nonzero; with cols,
		 * the columns cols[0] .. cols[1] − 1 alone (part_columns) */
		struct fe_csc A = { 0 };
		struct fe_form form = k->form->form;
		if (cols) {
			form.part = 1;
			form.c0 = cols[0];
			form.c1 = cols[1];
		}
		char err[256];
		int rc = 1, first = t->n == 0 && t->cap == 0;
		if (first) {
			/* the first entries: rows and values are assembled
			 * in the arena and become the triplets' as they are */
			A.alloc = csc_arena_alloc;
			A.ctx = ev->a;
		}
		if (fe_form_assemble(&form, n, lumped, &A, held, err, sizeof err)) {
			/* a cell that is degenerate or inverted, or memory: said
			 * here, at the integral (-2: reported) */
			struct loc l = { k->loc.file, k->loc.line, k->loc.col, 1 };
			eval_error(ev, l, "%s", err);
			return -2;
		}
		if (first) {
			t->row = A.i;
			t->val = A.x;
			t->col = arena_alloc_uninit(ev->a, sizeof(int) * ((size_t)A.p[n] + 1));
			for (int j = 0; j < n; j++)
				for (int q = A.p[j]; q < A.p[j + 1]; q++)
					t->col[q] = j;
			t->n = t->cap = A.p[n];
		} else if (trip_reserve(ev, t, A.p[n])) {
			rc = -1;
		} else {
			for (int j = 0; j < n; j++)
				for (int q = A.p[j]; q < A.p[j + 1]; q++)
					trip_add(t, A.i[q], j, A.x[q]);
		}
		t->csc = first;
		fe_csc_free(&A);
		return rc;
	}
	int dofs = 1;
	for (int s = 0; s < k->nslot; s++)
		dofs &= k->kind[s] == IR_DOF || k->kind[s] == IR_VEL;
	if (dofs)
		return kernel_block(ev, k, lumped, t);
	double *r = mem_alloc(sizeof(double) * (size_t)(k->prog->n + 1));
	double *o = mem_alloc(sizeof(double) * (size_t)(k->prog->nout + 1));
	int rc = r && o ? 1 : -1;
	if (rc > 0 && trip_reserve(ev, t, (long long)(k->hi - k->lo + 1) * k->nnz))
		rc = -1;
	for (long i = k->lo; i <= k->hi && rc == 1; i++) {
		if (!homogeneous_at(k, i, r, o)) {
			rc = 0;
			break;
		}
		for (int e = 0; e < k->nnz && rc == 1; e++) {
			/* a slot mapped to -1 is an eliminated (fixed) unknown */
			int I = kernel_var(k, k->row[e], i, n), J = kernel_var(k, k->col[e], i, n);
			/* lumped: the row sum on the diagonal, with the entries
			 * of fixed neighbours (the row sum of the whole space,
			 * then the fixed rows dropped) */
			if (lumped && o[1 + k->nslot + e] != 0 && I >= 0)
				trip_add(t, I, I, o[1 + k->nslot + e]);
			else if (!lumped && o[1 + k->nslot + e] != 0 && I >= 0 && J >= 0)
				trip_add(t, I, J, o[1 + k->nslot + e]);
		}
	}
	free(r);
	free(o);
	return rc;
}

/* The Hessian of a quadratic function (its terms and its kernels) as
 * triplets, when the function is homogeneous (value and gradient 0 at 0):
 * 1, else 0; -1 when out of memory, -2 reported (kernel_entries). */
static int quadratic_entries(struct eval *ev, const struct ir_func *f, int n, struct triplets *t, const int *cols)
{
	double *vals = mem_alloc(sizeof(double) * (size_t)(f->prog->nout + 1));
	if (!vals)
		return -1;
	/* at the origin: value, gradient and (constant) Hessian */
	if (ir_eval_const(f->prog, NULL, NULL, NULL, NULL, vals)) {
		free(vals);
		return 0;
	}
	for (int k = 0; k <= f->nvar; k++)
		if (vals[k] != 0) {
			free(vals);
			return 0;   /* an offset or a linear term: not an operator */
		}
	if (trip_reserve(ev, t, f->nnz)) {
		free(vals);
		return -1;
	}
	for (int k = 0; k < f->nnz; k++)
		trip_add(t, f->row[k], f->col[k], vals[1 + f->nvar + k]);
	free(vals);
	for (int q = 0; q < f->nkernel; q++) {
		int rc = kernel_entries(ev, &f->kernel[q], n, 0, t, NULL, cols);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* Whether a model's constant operators are held as dense n×n arrays:
 * up to IR_FOLD_DENSE_MAX dofs, except on meshes, whose operators are
 * sparse whatever their size (a 3000-dof plate's band is about 100 wide:
 * dense arrays and the band solver cost 3 times the compressed columns'). */
static int dense_operators(const struct eval *ev, int n)
{
	return n <= IR_FOLD_DENSE_MAX && !(ev->mc && ev->mc->nfield > 0);
}

/* Add triplets to operator a: into its dense array when the model is
 * small (allocated if need be), else appended to its entries (never an
 * n×n array beyond IR_FOLD_DENSE_MAX). */
struct dense_fill {
	double *a;
	int n;
};

static void dense_entry(void *ctx, int i, int j, double v)
{
	struct dense_fill *d = ctx;
	d->a[i + (size_t)j * (size_t)d->n] += v;
}

static void add_operator(struct eval *ev, struct ir_matrix *a, int n, const struct triplets *t)
{
	if (dense_operators(ev, n) || a->a) {
		if (!a->a)
			a->a = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
		/* t's triplets and blocks, summed in their order into a */
		struct dense_fill d = { a->a, n };
		struct ir_matrix te = { .nnz = t->n, .row = t->row, .col = t->col, .val = t->val, .nblock = t->nblock,
		                        .block = t->block };
		ir_matrix_each(&te, dense_entry, &d);
		arena_release(ev->a, t->row);
		arena_release(ev->a, t->col);
		arena_release(ev->a, t->val);
		for (int b = 0; b < t->nblock; b++)
			if (t->block[b].per_instance)
				arena_release(ev->a, (void *)t->block[b].val);
		return;
	}
	/* the triplets and the operator's entries are the operator's alone:
	 * the runtime releases them once it has built its matrix
	 * (ir_matrix_release), and a merge releases the parts it copied
	 * (the old entries only when they were the operator's own) */
	int owned = a->arena != NULL && a->nnz > 0;
	a->arena = ev->a;
	/* t's blocks follow a's, after a's triplets and t's first `at` */
	if (t->nblock > 0) {
		struct ir_matrix_block *b = arena_alloc(ev->a, sizeof *b * (size_t)(a->nblock + t->nblock));
		if (a->nblock)
			memcpy(b, a->block, sizeof *b * (size_t)a->nblock);
		for (int q = 0; q < t->nblock; q++) {
			b[a->nblock + q] = t->block[q];
			b[a->nblock + q].at += a->nnz;
		}
		a->block = b;
		a->nblock += t->nblock;
	}
	if (a->nnz == 0) {
		/* the triplets are in the arena: the operator takes them */
		a->row = t->row;
		a->col = t->col;
		a->val = t->val;
		a->nnz = t->n;
		a->csc = t->csc && a->nblock == 0;
		return;
	}
	if (t->n == 0) {
		/* no entries to add (a term 0*X'^2): a's stay as they are */
		if (t->nblock > 0)
			a->csc = 0;
		return;
	}
	int nnz = a->nnz + t->n;
	int *row = arena_alloc(ev->a, sizeof(int) * (size_t)(nnz + 1));
	int *col = arena_alloc(ev->a, sizeof(int) * (size_t)(nnz + 1));
	double *val = arena_alloc(ev->a, sizeof(double) * (size_t)(nnz + 1));
	memcpy(row, a->row, sizeof(int) * (size_t)a->nnz);
	memcpy(col, a->col, sizeof(int) * (size_t)a->nnz);
	memcpy(val, a->val, sizeof(double) * (size_t)a->nnz);
	memcpy(row + a->nnz, t->row, sizeof(int) * (size_t)t->n);
	memcpy(col + a->nnz, t->col, sizeof(int) * (size_t)t->n);
	memcpy(val + a->nnz, t->val, sizeof(double) * (size_t)t->n);
	if (owned) {
		arena_release(ev->a, a->row);
		arena_release(ev->a, a->col);
		arena_release(ev->a, a->val);
	}
	arena_release(ev->a, t->row);
	arena_release(ev->a, t->col);
	arena_release(ev->a, t->val);
	a->row = row;
	a->col = col;
	a->val = val;
	a->nnz = nnz;
	a->csc = 0;
}

/* Whether this process assembles only its columns cols[0] .. cols[1] − 1
 * of the stiffness (ir_matrix, part): a run whose rows the processes
 * step apart (rt_run_columns), of a potential made of integrals over a
 * mesh alone (fe_form_assemble's columns are the whole operator's to the
 * bit, exactly symmetric), which nothing else yet holds */
static int part_columns(const struct model_ctx *mc, int cols[2])
{
	const struct ir_model *m = mc->m;
	const struct ir_func *f = m->potential;
	if (!mc->run || !f || !f->quadratic || f->nnz || f->nkernel == 0 || mc->nfield == 0 || m->init_equilibrium ||
	    m->stiffness.a ||
	    ir_matrix_has_entries(&m->stiffness))
		return 0;
	for (int q = 0; q < f->nkernel; q++)
		if (!f->kernel[q].form)
			return 0;
	if (!rt_run_columns(mc->run, m->ndof, &cols[0], &cols[1]))
		return 0;
	/* a field numbered by parts (lang/fe.c) that holds every unknown:
	 * this process's columns are its part's */
	if (mc->part_bounds && mc->part_first == 0 && mc->part_count == m->ndof) {
		cols[0] = mc->part_bounds[la_mpi_rank()];
		cols[1] = mc->part_bounds[la_mpi_rank() + 1];
	}
	return 1;
}

static int fold_quadratic(struct eval *ev, struct model_ctx *mc)
{
	struct ir_model *m = mc->m;
	int n = m->ndof;
	int friction = 0;
	for (int i = 0; i < n && m->sigma_u; i++)
		friction |= m->sigma_u[i] > 0;
	if (m->nint > 0 || m->kinetic || friction || (!m->mass.a && !ir_matrix_has_entries(&m->mass)))
		return 0;
	struct triplets K = { 0 }, C = { 0 };
	int rc = 1, cols[2], part = part_columns(mc, cols);
	if (m->potential && m->potential->quadratic)
		rc = quadratic_entries(ev, m->potential, n, &K, part ? cols : NULL);
	else if (m->potential)
		rc = 0;
	/* a dissipation folds when it is the model's only damping term */
	if (rc > 0 && m->dissipation) {
		if (!m->dissipation->quadratic || m->ndissipation != 1 || mc->damping_declared)
			rc = 0;
		else
			rc = quadratic_entries(ev, m->dissipation, n, &C, NULL);
	}
	/* the folded energies' programs are read no more: their outputs (a
	 * gradient entry per dof, 4 bytes each) go back before the run */
	if (rc > 0 && m->potential) {
		add_operator(ev, &m->stiffness, n, &K);
		m->stiffness.loc = m->potential->loc;
		if (part) {
			m->stiffness.part = 1;
			m->stiffness.c0 = cols[0];
			m->stiffness.c1 = cols[1];
		}
		ir_prog_release(m->potential->prog);
		m->potential = NULL;
		mc->stiffness_declared = 1;
	}
	if (rc > 0 && m->dissipation) {
		m->damping.a = NULL;
		m->damping.nnz = 0;
		m->damping.nblock = 0;
		add_operator(ev, &m->damping, n, &C);
		m->damping.loc = m->dissipation->loc;
		m->damping_kind = IR_DAMP_MATRIX;
		ir_prog_release(m->dissipation->prog);
		ir_prog_release(m->dissipation_terms);
		m->dissipation = NULL;
		m->dissipation_terms = NULL;
		m->ndissipation = 0;
	}
	if (rc == -1) {
		struct loc l = { m->loc.file, m->loc.line, m->loc.col, 1 };
		return eval_error(ev, l, "out of memory folding the quadratic energies into operators");
	}
	if (rc < 0)   /* reported (kernel_entries) */
		return -1;
	return 0;
}

/* contact ... friction MU along S: the slip coordinate S of the contact
 * point along the obstacle (one number, or [S1, S2] in space), each a
 * function of the dofs, appended as rows k, k+1 of the program p. */
static int slip_rows(struct eval *ev, struct ir_diff_ws *w, struct ir_prog *p, struct ast_expr *e, int *c,
                     struct ir_loc *locs, double *rest, double *mu, int *k)
{
	struct value s;
	if (eval_expr(ev, e, &s))
		return -1;
	if (s.kind != VAL_NUM && s.kind != VAL_MAT)
		return eval_error(ev, e->loc, "the slip of a contact point is a number or a vector of two numbers");
	int ns = s.kind == VAL_NUM ? 1 : s.rows * s.cols;
	if (ns != 1 && ns != 2)
		return eval_error(ev, e->loc, "the slip of a contact point has one coordinate along the obstacle "
		                  "(in the plane) or two, [S1, S2] (in space), not %d", ns);
	for (int j = 0; j < ns; j++) {
		int r = ns == 1 && s.kind == VAL_NUM ? s.reg : s.m[j];
		if (ir_depends(p, w, r, OPBIT(IR_VEL) | OPBIT(IR_ACC) | OPBIT(IR_INT) | OPBIT(IR_INTVEL) |
		               OPBIT(IR_TIME)))
			return eval_error(ev, e->loc, "the slip of a contact point is a function of the dofs only, not "
			                  "of rates, internal variables or t");
		if (ir_is_const(p, r, NULL))
			return eval_error(ev, e->loc, "this slip coordinate does not involve any dof");
		c[*k] = r;
		locs[*k] = ir_loc_of(e->loc);
		rest[*k] = mu[*k] = 0;
		++*k;
	}
	return 0;
}

/* Row `row` of the constraints, `constraint LHS == RHS` (c = LHS − RHS):
 * its sums as kernels of that row (rstride 0) into kl where they can be,
 * the rest into the register c[row] of ev->prog. */
static int constraint_row(struct eval *ev, struct ir_diff_ws *w, struct ast_expr *e, int row, struct kern_list *kl,
                          int *c, int *moving)
{
	struct ir_prog *p = ev->prog;
	if (e->kind != AST_BINARY || e->op != AST_OP_EQ)
		return eval_error(ev, e->loc, "a constraint is an equation: constraint EXPR == EXPR");
	int nk0 = kl->n, reg;
	if (has_sum_term(e->lhs) || has_sum_term(e->rhs)) {
		int acc = -1;
		if (energy_terms(ev, w, e->lhs, 1, EN_CONSTRAINT, row, "a side of a constraint", kl, &acc) ||
		    energy_terms(ev, w, e->rhs, -1, EN_CONSTRAINT, row, "a side of a constraint", kl, &acc))
			return -1;
		reg = acc >= 0 ? acc : ir_emit_const(p, 0, ir_loc_of(e->loc));
	} else {
		struct value l, r;
		if (eval_expr(ev, e->lhs, &l) || eval_expr(ev, e->rhs, &r))
			return -1;
		if (l.kind != VAL_NUM || r.kind != VAL_NUM)
			return eval_error(ev, e->loc, "a constraint relates two numbers");
		reg = ir_emit(p, IR_SUB, l.reg, r.reg, 0, ir_loc_of(e->loc));
	}
	if (ir_depends(p, w, reg, OPBIT(IR_VEL) | OPBIT(IR_ACC) | OPBIT(IR_INT) | OPBIT(IR_INTVEL)))
		return eval_error(ev, e->loc, "a constraint relates the dofs only, not their rates or "
		                  "internal variables");
	/* of t alone (constraint t == 0) it is as empty: no dof to hold */
	if (kl->n == nk0 && !ir_depends(p, w, reg, OPBIT(IR_DOF)))
		return eval_error(ev, e->loc, "this constraint does not involve any dof");
	if (ir_depends(p, w, reg, OPBIT(IR_TIME)))
		*moving = 1;
	c[row] = reg;
	return 0;
}

static int contact_coeffs(struct eval *ev, struct ast_item *it, int row, int n, double *rest, double *mu,
                          int *anyfriction);

/* Row `row` of the contacts, `contact LHS >= RHS` (φ = LHS − RHS; <=
 * swaps the sides) of item it, into c[row] of ev->prog, with its
 * restitution and friction coefficient. */
static int contact_row(struct eval *ev, struct ir_diff_ws *w, struct ast_item *it, struct ast_expr *e, int row, int n,
                       int *c, double *rest, double *mu, int *anyfriction)
{
	struct ir_prog *p = ev->prog;
	if (e->kind != AST_BINARY || (e->op != AST_OP_GE && e->op != AST_OP_LE))
		return eval_error(ev, e->loc, "a contact is an inequality: contact EXPR >= EXPR "
		                  "(or EXPR <= EXPR)");
	struct value l, r;
	if (eval_expr(ev, e->lhs, &l) || eval_expr(ev, e->rhs, &r))
		return -1;
	if (l.kind != VAL_NUM || r.kind != VAL_NUM)
		return eval_error(ev, e->loc, "a contact relates two numbers");
	if (e->op == AST_OP_LE)
		c[row] = ir_emit(p, IR_SUB, r.reg, l.reg, 0, ir_loc_of(e->loc));
	else
		c[row] = ir_emit(p, IR_SUB, l.reg, r.reg, 0, ir_loc_of(e->loc));
	if (ir_depends(p, w, c[row], OPBIT(IR_VEL) | OPBIT(IR_ACC) | OPBIT(IR_INT) | OPBIT(IR_INTVEL)))
		return eval_error(ev, e->loc, "a contact relates the dofs only, not their rates or "
		                  "internal variables");
	if (!ir_depends(p, w, c[row], OPBIT(IR_DOF)))
		return eval_error(ev, e->loc, "this contact does not involve any dof");
	/* a moving obstacle would need its velocity in the impact law:
	 * not supported; a moving constraint gets its t-derivatives */
	if (ir_depends(p, w, c[row], OPBIT(IR_TIME)))
		return eval_error(ev, e->loc, "a contact may not depend on t (moving obstacles are "
		                  "not supported): state a prescribed motion as a support or a force");
	return contact_coeffs(ev, it, row, n, rest, mu, anyfriction);
}

/* The restitution and friction coefficient of contact row `row` (item
 * it). */
static int contact_coeffs(struct eval *ev, struct ast_item *it, int row, int n, double *rest, double *mu,
                          int *anyfriction)
{
	rest[row] = 0;
	if (it->restitution) {
		if (eval_number(ev, it->restitution, &rest[row], "the restitution"))
			return -1;
		if (!(rest[row] >= 0 && rest[row] <= 1))
			return eval_error(ev, it->restitution->loc, "the restitution must lie in [0, 1], not %g",
			                  rest[row]);
	}
	mu[row] = 0;
	if (it->friction) {
		if (eval_number(ev, it->friction, &mu[row], "the friction coefficient"))
			return -1;
		if (!(mu[row] >= 0 && isfinite(mu[row])))
			return eval_error(ev, it->friction->loc, "the friction coefficient must be >= 0, not %g",
			                  mu[row]);
		/* without `along`, the tangents are the directions of the
		 * coordinate space orthogonal to the gap's gradient (dyn(5),
		 * "Friction at contacts"): the coordinates must be those of
		 * one point in the plane or in space (its mass is checked
		 * with the mass, lower_model) */
		if (mu[row] > 0 && !it->along && n != 2 && n != 3)
			return eval_error(ev, it->friction->loc, "friction at a contact in a model of %d dof%s needs "
			                  "the slip of the contact point: contact ... friction MU along S (the "
			                  "tangents follow from the gap alone for one point of 2 or 3 coordinates)",
			                  n, n == 1 ? "" : "s");
		if (mu[row] > 0)
			*anyfriction = 1;
	}
	return 0;
}

/* The items of kind `kind` of family it (for I in LO..HI { ... }). */
static int family_items(const struct ast_item *it, enum ast_item_kind kind)
{
	int m = 0;
	for (int j = 0; j < it->names.n; j++)
		m += ((const struct ast_item *)it->names.v[j])->kind == kind;
	return m;
}

/* Bind the index of family it to the number i in a new scope (the
 * caller restores ev->scope). */
static int bind_index(struct eval *ev, struct ast_item *it, long i)
{
	ev->scope = scope_new(ev->a, ev->scope);
	struct binding *b = scope_bind(ev, it->target->name, B_VALUE, it->target->loc);
	if (!b)
		return -1;
	b->val.kind = VAL_NUM;
	b->val.frozen = 1;
	b->val.k = (double)i;
	return 0;
}

/* for I in LO..HI { constraint ... contact ... }: the m items of kind
 * `kind` (constraints, or contacts), instance i's item j being row row0 +
 * m (i − LO) + j; each item lowered once as a kernel of I (a family,
 * rstride m) where it can be, else unrolled with I bound to each value in
 * turn (which reports what is wrong with it).  Contacts get their
 * restitution and friction per instance. */
static int gap_family(struct eval *ev, struct ir_diff_ws *w, struct ast_item *it, enum ast_item_kind kind, long lo,
                      long hi, int row0, int n, struct kern_list *kl, int *c, int *moving, double *rest, double *mu,
                      int *anyfriction)
{
	int m = family_items(it, kind), j = -1;
	int contact = kind == AST_ITEM_CONTACT;
	struct scope *saved = ev->scope;
	for (int q = 0; q < it->names.n; q++) {
		struct ast_item *in = it->names.v[q];
		if (in->kind != kind)
			continue;
		j++;
		struct ast_expr *e = in->value;
		if (e->kind == AST_BINARY && (contact ? e->op == AST_OP_GE || e->op == AST_OP_LE : e->op == AST_OP_EQ)) {
			struct ast_expr *body = ast_expr_new(ev->a, AST_BINARY, e->loc);
			body->op = AST_OP_SUB;
			body->lhs = contact && e->op == AST_OP_LE ? e->rhs : e->lhs;
			body->rhs = contact && e->op == AST_OP_LE ? e->lhs : e->rhs;
			struct ast_expr *sum = ast_expr_new(ev->a, AST_SUM, e->loc);
			sum->name = it->target->name;
			sum->lo = it->value;
			sum->hi = it->dir;
			sum->lhs = body;
			int rc = try_kernel(ev, w, sum, 1, EN_CONSTRAINT, row0 + j, kl);
			if (rc < 0)
				return eval_error(ev, e->loc, "out of memory lowering this family of constraints");
			if (rc > 0) {
				kl->v[kl->n - 1].rstride = m;
				for (long i = lo; i <= hi && contact; i++) {
					int row = row0 + m * (int)(i - lo) + j;
					rc = bind_index(ev, it, i) || contact_coeffs(ev, in, row, n, rest, mu, anyfriction);
					ev->scope = saved;
					if (rc)
						return -1;
				}
				continue;
			}
		}
		for (long i = lo; i <= hi; i++) {
			int row = row0 + m * (int)(i - lo) + j;
			int rc = bind_index(ev, it, i) ||
			         (contact ? contact_row(ev, w, in, e, row, n, c, rest, mu, anyfriction)
			                  : constraint_row(ev, w, e, row, kl, c, moving));
			ev->scope = saved;
			if (rc)
				return -1;
		}
	}
	return 0;
}

/* The bounds of a family and its number of rows of kind `kind`. */
static int family_rows(struct eval *ev, struct ast_item *it, enum ast_item_kind kind, long *lo, long *hi, long *rows)
{
	if (eval_int(ev, it->value, lo, "a range bound") || eval_int(ev, it->dir, hi, "a range bound"))
		return -1;
	*rows = *hi < *lo ? 0 : (*hi - *lo + 1) * family_items(it, kind);
	if (*rows > INT_MAX / 4)
		return eval_error(ev, it->loc, "this family has %ld constraints: at most %d", *rows, INT_MAX / 4);
	return 0;
}

/* The gap functions of `constraint LHS == RHS` (c = LHS − RHS = 0) or of
 * `contact LHS >= RHS` (φ = LHS − RHS ≥ 0; <= swaps the sides): their
 * values, gradients G and the Hessians of each, all in one program
 * (ir.h, struct ir_gaps).  With slip_first (one more than the contacts),
 * the same for the slip coordinates of `contact ... friction MU along S`
 * (one S, or two [S1, S2]): slip_first[i] is the first row of contact
 * i's. */
static int gaps(struct eval *ev, struct model_ctx *mc, struct ast_model *am, struct ir_diff_ws *w,
                enum ast_item_kind kind, struct ir_gaps *out, int *slip_first, struct kern_list *kl)
{
	struct ir_model *m = mc->m;
	int n = m->ndof, nc = 0;
	int contact = kind == AST_ITEM_CONTACT;
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if (it->kind != kind)
			continue;
		if (slip_first) {
			nc += it->along ? 2 : 0;   /* at most: counted below */
			if (it->target && it->friction) {
				int ns = fe_contact_slips(ev, it, NULL, NULL);
				if (ns < 0)
					return -1;
				nc += ns;
			}
			continue;
		}
		/* constraint FIELD on REGION == EXPR, contact FIELD on REGION >=
		 * EXPR: one per dof of the region */
		int nf = !it->target ? 1 : contact ? fe_contact(ev, it, NULL) : fe_constraint(ev, it, NULL);
		if (nf < 0)
			return -1;
		nc += nf;
	}
	for (int i = 0; i < am->items.n && !slip_first; i++) {
		struct ast_item *it = am->items.v[i];
		long lo, hi, rows;
		if (it->kind != AST_ITEM_FOR)
			continue;
		if (family_rows(ev, it, kind, &lo, &hi, &rows))
			return -1;
		if ((long)nc + rows > INT_MAX / 4)
			return eval_error(ev, it->loc, "this family has %ld constraints: at most %d", rows, INT_MAX / 4);
		nc += (int)rows;
	}
	memset(out, 0, sizeof *out);
	if (nc == 0)
		return 0;
	struct ir_prog *p = ir_prog_new(ev->a);
	ev->prog = p;
	mc->what = contact ? "a contact" : "a constraint";
	mc->allow_t = 1;
	mc->allow_state = 1;
	int *c = arena_alloc(ev->a, sizeof(int) * (size_t)nc);
	struct ir_loc *locs = arena_alloc(ev->a, sizeof *locs * (size_t)nc);
	double *rest = arena_alloc(ev->a, sizeof(double) * (size_t)nc);
	double *mu = arena_alloc(ev->a, sizeof(double) * (size_t)nc);
	int k = 0, moving = 0, anyfriction = 0, kc = 0;
	for (int q = 0; q < nc; q++)
		c[q] = -1;
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if (it->kind == AST_ITEM_FOR) {
			long lo, hi, rows;
			if (family_rows(ev, it, kind, &lo, &hi, &rows))
				return -1;
			if (rows == 0)
				continue;
			if (slip_first) {
				/* a family's contacts have no slip coordinates */
				for (long q = 0; q < rows; q++)
					slip_first[kc++] = k;
				slip_first[kc] = k;
				continue;
			}
			int m = family_items(it, kind);
			struct ast_item **its = mem_alloc(sizeof *its * (size_t)m);
			if (!its)
				return eval_error(ev, it->loc, "out of memory lowering this family of constraints");
			for (int q = 0, j = 0; q < it->names.n; q++)
				if (((struct ast_item *)it->names.v[q])->kind == kind)
					its[j++] = it->names.v[q];
			for (long q = 0; q < rows; q++) {
				locs[k + q] = ir_loc_of(its[q % m]->loc);
				rest[k + q] = mu[k + q] = 0;
			}
			free(its);
			int rc = gap_family(ev, w, it, kind, lo, hi, k, n, kl, c, &moving, rest, mu, &anyfriction);
			k += (int)rows;
			if (rc)
				return -1;
			continue;
		}
		if (it->kind != kind)
			continue;
		struct ast_expr *e = it->value;
		if (slip_first) {
			/* a contact on a region (no `along`) has one gap per node */
			int nf = it->target ? fe_contact(ev, it, NULL) : 1;
			if (nf < 0)
				return -1;
			slip_first[kc] = k;
			if (it->along && slip_rows(ev, w, p, it->along, c, locs, rest, mu, &k))
				return -1;
			if (it->target && it->friction) {
				/* each node's other components (fe_contact_slips) */
				int *fs = mem_alloc(sizeof(int) * (size_t)(nf + 1));
				if (!fs)
					return eval_error(ev, it->loc, "out of memory");
				int ns = fe_contact_slips(ev, it, c + k, fs);
				for (int q = 0; ns >= 0 && q < nf; q++)
					slip_first[kc + q + 1] = k + fs[q + 1];
				free(fs);
				if (ns < 0)
					return -1;
				for (int r = k; r < k + ns; r++) {
					locs[r] = ir_loc_of(it->loc);
					rest[r] = mu[r] = 0;
				}
				k += ns;
				kc += nf;
				continue;
			}
			for (int q = 0; q < nf; q++)
				slip_first[++kc] = k;
			continue;
		}
		locs[k] = ir_loc_of(it->loc);
		if (it->target) {
			int nf = contact ? fe_contact(ev, it, c + k) : fe_constraint(ev, it, c + k);
			if (nf < 0)
				return -1;
			double e0 = 0, mu0 = 0;
			if (contact && it->restitution) {
				if (eval_number(ev, it->restitution, &e0, "the restitution"))
					return -1;
				if (!(e0 >= 0 && e0 <= 1))
					return eval_error(ev, it->restitution->loc, "the restitution must lie in [0, 1], not %g", e0);
			}
			if (contact && it->friction) {
				/* the tangents: the node's other components (slip pass) */
				if (eval_number(ev, it->friction, &mu0, "the friction coefficient"))
					return -1;
				if (!(mu0 >= 0 && isfinite(mu0)))
					return eval_error(ev, it->friction->loc, "the friction coefficient must be >= 0, not %g",
					                  mu0);
				anyfriction |= mu0 > 0;
			}
			/* the value is one expression at every node: its reading of
			 * rates is decided at the first (as constraint_row does) */
			if (nf > 0 && ir_depends(p, w, c[k], OPBIT(IR_VEL) | OPBIT(IR_ACC) | OPBIT(IR_INT) |
			                                     OPBIT(IR_INTVEL)))
				return eval_error(ev, it->value->rhs->loc, "a %s relates the dofs only, not their rates or "
				                  "internal variables", contact ? "contact" : "constraint");
			for (int q = k; q < k + nf; q++) {
				locs[q] = ir_loc_of(it->loc);
				rest[q] = e0;
				mu[q] = mu0;
				if (ir_depends(p, w, c[q], OPBIT(IR_TIME))) {
					if (contact)
						return eval_error(ev, it->value->loc, "a contact may not depend on t (moving "
						                  "obstacles are not supported)");
					moving = 1;
				}
			}
			k += nf;
			continue;
		}
		if (!contact) {
			int rc = constraint_row(ev, w, e, k, kl, c, &moving);
			rest[k] = mu[k] = 0;
			k++;
			if (rc)
				return -1;
			continue;
		}
		if (contact_row(ev, w, it, e, k, n, c, rest, mu, &anyfriction))
			return -1;
		k++;
	}
	if (slip_first)
		nc = k;
	struct ir_diff_inputs in = { n, 1, { { IR_DOF, 0 } } };
	int gcap = 0, hcap = 0, ng = 0, nh = 0;
	int *gk = NULL, *gi = NULL, *greg = NULL, *hk = NULL, *hi = NULL, *hj = NULL, *hreg = NULL;
	int rc = 0;
	/* the kernels of each row: a family's row has one instance of one
	 * kernel (fam), a row with sums the whole of each (a list from
	 * sumhead through sumnext); pos[d] is the entry of dof d in G's row
	 * being built, so that a sum's instances share the entries of the dofs
	 * they share (-1: none yet) */
	int nkern = kl->n;
	int *fam = NULL, *sumhead = NULL, *sumnext = NULL, *pos = NULL;
	if (nkern) {
		fam = mem_alloc(sizeof(int) * (size_t)nc);
		sumhead = mem_alloc(sizeof(int) * (size_t)nc);
		sumnext = mem_alloc(sizeof(int) * (size_t)nkern);
		pos = mem_alloc(sizeof(int) * (size_t)(n + 1));
		if (!fam || !sumhead || !sumnext || !pos)
			rc = eval_error(ev, am->loc, "out of memory");
		for (int q = 0; q < nc && rc == 0; q++)
			fam[q] = sumhead[q] = -1;
		for (int d = 0; d <= n && rc == 0; d++)
			pos[d] = -1;
		for (int q = nkern - 1; q >= 0 && rc == 0; q--) {
			struct ir_kernel *kq = &kl->v[q];
			long ninst = kq->hi - kq->lo + 1;
			kq->gpos = arena_alloc(ev->a, sizeof(int) * (size_t)(ninst * kq->nslot + 1));
			if (kq->rstride > 0) {
				for (long t = 0; t < ninst; t++)
					fam[kq->term + kq->rstride * t] = q;
			} else {
				sumnext[q] = sumhead[kq->term];
				sumhead[kq->term] = q;
			}
		}
	}
	for (k = 0; k < nc && rc == 0; k++) {
		int ng0 = ng;
		if (c[k] >= 0 && !ir_is_const(p, c[k], NULL)) {
			int nnz;
			const int *idx, *reg;
			if (ir_gradient_sparse(p, w, c[k], &in, &nnz, &idx, &reg)) {
				rc = eval_error(ev, am->loc, "out of memory");
				break;
			}
			int *gidx = mem_alloc(sizeof(int) * (size_t)(nnz + 1)), *gr = mem_alloc(sizeof(int) * (size_t)(nnz + 1));
			if (!gidx || !gr) {
				free(gidx);
				free(gr);
				rc = eval_error(ev, am->loc, "out of memory");
				break;
			}
			memcpy(gidx, idx, sizeof(int) * (size_t)nnz);
			memcpy(gr, reg, sizeof(int) * (size_t)nnz);
			for (int q = 0; q < nnz && rc == 0; q++) {
				if (ng == gcap) {
					if (grow_ints((int **[]){ &gk, &gi, &greg }, 3, ng, &gcap)) {
						rc = eval_error(ev, am->loc, "out of memory");
						break;
					}
				}
				gk[ng] = k;
				gi[ng] = gidx[q];
				if (pos)
					pos[gidx[q]] = ng;
				greg[ng++] = gr[q];
				/* the Hessian row of this gradient entry */
				int hn;
				const int *hidx, *hr;
				if (ir_gradient_sparse(p, w, gr[q], &in, &hn, &hidx, &hr)) {
					rc = eval_error(ev, am->loc, "out of memory");
					break;
				}
				for (int h = 0; h < hn; h++) {
					double kv;
					if (ir_is_const(p, hr[h], &kv) && kv == 0)
						continue;
					if (grow_ints((int **[]){ &hk, &hi, &hj, &hreg }, 4, nh, &hcap)) {
						rc = eval_error(ev, am->loc, "out of memory");
						break;
					}
					hk[nh] = k;
					hi[nh] = gidx[q];
					hj[nh] = hidx[h];
					hreg[nh++] = hr[h];
				}
			}
			free(gidx);
			free(gr);
		}
		if (!nkern || rc)
			continue;
		/* the kernels' entries of row k: fam[k]'s one instance, or every
		 * instance of the row's sums (q = -2 ends the walk) */
		int q = fam[k] >= 0 ? fam[k] : sumhead[k];
		for (; q >= 0 && rc == 0; q = fam[k] >= 0 ? -2 : sumnext[q]) {
			struct ir_kernel *kq = &kl->v[q];
			long t0 = 0, t1 = kq->hi - kq->lo;
			if (kq->rstride > 0)
				t0 = t1 = (k - kq->term) / kq->rstride;
			int *gp = (int *)kq->gpos;
			for (long t = t0; t <= t1 && rc == 0; t++)
				for (int s = 0; s < kq->nslot; s++) {
					int d = (int)(kq->base[s] + kq->stride[s] * (kq->lo + t));
					if (pos[d] < 0) {
						if (grow_ints((int **[]){ &gk, &gi, &greg }, 3, ng, &gcap)) {
							rc = eval_error(ev, am->loc, "out of memory");
							break;
						}
						gk[ng] = k;
						gi[ng] = d;
						greg[ng] = -1;
						pos[d] = ng++;
					}
					gp[t * kq->nslot + s] = pos[d];
				}
		}
		for (int e = ng0; e < ng; e++)
			pos[gi[e]] = -1;
	}
	/* the kernels' Hessian entries, instance after instance */
	for (int q = 0; q < nkern && rc == 0; q++) {
		struct ir_kernel *kq = &kl->v[q];
		kq->hfirst = nh;
		for (long i = kq->lo; i <= kq->hi && rc == 0; i++)
			for (int e = 0; e < kq->nnz; e++) {
				if (grow_ints((int **[]){ &hk, &hi, &hj, &hreg }, 4, nh, &hcap)) {
					rc = eval_error(ev, am->loc, "out of memory");
					break;
				}
				hk[nh] = kq->term + kq->rstride * (int)(i - kq->lo);
				hi[nh] = (int)(kq->base[kq->row[e]] + kq->stride[kq->row[e]] * i);
				hj[nh] = (int)(kq->base[kq->col[e]] + kq->stride[kq->col[e]] * i);
				hreg[nh++] = -1;
			}
	}
	if (rc == 0) {
		/* the program's outputs, and with kernels where each goes in the
		 * layout (ir.h, struct ir_gaps) */
		long nlay = (long)nc + ng + nh + (moving ? 2L * nc + ng : 0);
		int *omap = nkern ? arena_alloc(ev->a, sizeof(int) * (size_t)(nlay + 1)) : NULL;
		int no = 0;
#define OUT(reg, at) do { ir_prog_add_output(p, (reg)); if (omap) omap[no] = (int)(at); no++; } while (0)
		for (k = 0; k < nc; k++)
			if (c[k] >= 0)
				OUT(c[k], k);
		out->ngrad = ng;
		out->gk = arena_alloc(ev->a, sizeof(int) * (size_t)(ng + 1));
		out->gi = arena_alloc(ev->a, sizeof(int) * (size_t)(ng + 1));
		for (int q = 0; q < ng; q++) {
			out->gk[q] = gk[q];
			out->gi[q] = gi[q];
			if (greg[q] >= 0)
				OUT(greg[q], nc + q);
		}
		out->nhess = nh;
		out->hk = arena_alloc(ev->a, sizeof(int) * (size_t)(nh + 1));
		out->hi = arena_alloc(ev->a, sizeof(int) * (size_t)(nh + 1));
		out->hj = arena_alloc(ev->a, sizeof(int) * (size_t)(nh + 1));
		for (int q = 0; q < nh; q++) {
			out->hk[q] = hk[q];
			out->hi[q] = hi[q];
			out->hj[q] = hj[q];
			if (hreg[q] >= 0)
				OUT(hreg[q], (long)nc + ng + q);
		}
		/* linear: no Hessian entry, and G independent of t (a kernel's
		 * never is: one that depends on t is unrolled) */
		out->linear = nh == 0;
		for (int q = 0; q < ng && out->linear; q++)
			if (greg[q] >= 0 && ir_depends(p, w, greg[q], OPBIT(IR_TIME)))
				out->linear = 0;
		/* moving constraints: then ∂c/∂t, ∂²c/∂t² (nc each) and ∂G/∂t
		 * (ngrad), for the acceleration G a + vᵀHv + 2 ∂ₜG v + ∂ₜₜc = 0 */
		if (moving) {
			long base = (long)nc + ng + nh;
			struct ir_diff_inputs tin = { 1, 1, { { IR_TIME, 0 } } };
			int *ct = arena_alloc(ev->a, sizeof(int) * (size_t)nc);
			for (k = 0; k < nc && rc == 0; k++) {
				int g1 = -1;
				if (c[k] >= 0 && ir_gradient(p, w, c[k], &tin, &g1))
					rc = eval_error(ev, am->loc, "out of memory");
				ct[k] = g1;
			}
			for (k = 0; k < nc && rc == 0; k++)
				if (ct[k] >= 0)
					OUT(ct[k], base + k);
			for (k = 0; k < nc && rc == 0; k++) {
				int g2;
				if (ct[k] < 0)
					continue;
				if (ir_gradient(p, w, ct[k], &tin, &g2))
					rc = eval_error(ev, am->loc, "out of memory");
				else
					OUT(g2, base + nc + k);
			}
			for (int q = 0; q < ng && rc == 0; q++) {
				int gt;
				if (greg[q] < 0)
					continue;
				if (ir_gradient(p, w, greg[q], &tin, &gt))
					rc = eval_error(ev, am->loc, "out of memory");
				else
					OUT(gt, base + 2L * nc + q);
			}
		}
#undef OUT
		ir_prog_compact(p);
		out->prog = p;
		out->moving = moving;
		out->n = nc;
		out->loc = locs;
		out->restitution = rest;
		out->friction = anyfriction ? mu : NULL;
		out->nkernel = nkern;
		out->kernel = arena_alloc(ev->a, sizeof *out->kernel * (size_t)(nkern + 1));
		if (nkern)
			memcpy(out->kernel, kl->v, sizeof *out->kernel * (size_t)nkern);
		out->out_map = omap;
		out->nout = nlay;
	}
	free(gk); free(gi); free(greg); free(hk); free(hi); free(hj); free(hreg);
	free(fam); free(sumhead); free(sumnext); free(pos);
	return rc;
}

static int lower_gaps(struct eval *ev, struct model_ctx *mc, struct ast_model *am, struct ir_diff_ws *w,
                      enum ast_item_kind kind, struct ir_gaps *out, int *slip_first)
{
	struct kern_list kl = { 0 };
	int rc = gaps(ev, mc, am, w, kind, out, slip_first, &kl);
	free(kl.v);
	free(kl.fric);
	return rc;
}

static int lower_constraints(struct eval *ev, struct model_ctx *mc, struct ast_model *am, struct ir_diff_ws *w)
{
	struct ir_model *m = mc->m;
	struct ir_gaps g;
	if (lower_gaps(ev, mc, am, w, AST_ITEM_CONSTRAINT, &g, NULL))
		return -1;
	m->nconstraint = g.n;
	m->constraint = g.prog;
	m->ngrad = g.ngrad;
	m->gk = g.gk;
	m->gi = g.gi;
	m->nhess = g.nhess;
	m->hk = g.hk;
	m->hi = g.hi;
	m->hj = g.hj;
	m->constraint_loc = g.loc;
	m->constraint_moving = g.moving;
	m->constraint_linear = g.linear;
	m->nckernel = g.nkernel;
	m->ckernel = g.kernel;
	m->constraint_out = g.out_map;
	m->constraint_nout = g.nout;
	if (lower_gaps(ev, mc, am, w, AST_ITEM_CONTACT, &m->contact, NULL))
		return -1;
	int along = 0;
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		along |= it->kind == AST_ITEM_CONTACT && (it->along || (it->target && it->friction));
	}
	if (!along)
		return 0;
	int *first = arena_alloc(ev->a, sizeof(int) * (size_t)(m->contact.n + 1));
	if (lower_gaps(ev, mc, am, w, AST_ITEM_CONTACT, &m->slip, first))
		return -1;
	m->contact.slip_first = first;
	return 0;
}

int lower_energies(struct eval *ev, struct model_ctx *mc, struct ast_model *am)
{
	struct ir_model *m = mc->m;
	int n = m->ndof, nz = m->nint;
	struct ir_diff_ws *w = ir_diff_ws_new();
	if (!w)
		return eval_error(ev, am->loc, "out of memory");
	int rc = -1;
	struct ir_prog *p;
	struct loc where = am->loc;
	struct term_list tl = { 0 }, stack = { 0 };
	struct kern_list kl = { 0 };
	const unsigned long long rates = OPBIT(IR_VEL) | OPBIT(IR_INTVEL) | OPBIT(IR_ACC);
	const unsigned long long states = OPBIT(IR_DOF) | OPBIT(IR_INT);

	/* potential Φ(u, z) */
	int r = sum_items(ev, mc, am, AST_ITEM_POTENTIAL, "the potential", &p, &where, w, EN_POTENTIAL, &kl);
	if (r == -2)
		goto out;
	if (r >= 0) {
		if (ir_depends(p, w, r, rates)) {
			eval_error(ev, where, "the potential depends on a rate: it is a function of u and z only "
			           "(rates belong in the kinetic energy or the dissipation)");
			goto out;
		}
		struct ir_diff_inputs in = { n + nz, 2, { { IR_DOF, 0 }, { IR_INT, n } } };
		if (derive(ev, w, p, r, &in, where, &m->potential))
			goto out;
		attach_kernels(ev, m->potential, &kl);
	}

	/* kinetic T(u, v) = ½ vᵀ M(u) v */
	r = sum_items(ev, mc, am, AST_ITEM_KINETIC, "the kinetic energy", &p, &where, w, EN_KINETIC, &kl);
	if (r == -2)
		goto out;
	if (kl.n > 0) {
		/* sums of ½ c(i) x[..]'²...: constant masses, added entry by
		 * entry; a mesh's integrals also give what fix takes out of a
		 * rigid translation's inertia (mc->held, struct fe_held: for
		 * modes()'s participation, lower.c's held_modal_mass) */
		struct triplets t = { 0 };
		for (int q = 0; q < kl.n; q++) {
			int kr = kernel_entries(ev, &kl.v[q], n, kl.v[q].term, &t, mc->held, NULL);
			if (kr == -1)
				eval_error(ev, where, "out of memory");
			if (kr < 0)
				goto out;
		}
		add_operator(ev, &m->mass, n, &t);
		m->mass.loc = ir_loc_of(where);
		m->kinetic_loc = ir_loc_of(where);
		/* what is left outside the sums: nothing more when it is 0 */
		if (r >= 0 && ir_is_const(p, r, NULL))
			r = -1;
	}
	if (r >= 0) {
		if (ir_depends(p, w, r, OPBIT(IR_INT) | OPBIT(IR_INTVEL) | OPBIT(IR_ACC))) {
			eval_error(ev, where, "the kinetic energy may depend on u and u' only");
			goto out;
		}
		struct ir_diff_inputs inv = { n, 1, { { IR_VEL, 0 } } };
		struct ir_func *fv;
		if (derive(ev, w, p, r, &inv, where, &fv))
			goto out;
		/* derive compacts p: T is its first output now, r is stale */
		r = p->out[0];
		/* M(u) = ∂²T/∂v² must not depend on v: T is quadratic in v */
		for (int k = 0; k < fv->nnz; k++)
			if (ir_depends(p, w, p->out[1 + n + k], OPBIT(IR_VEL))) {
				char nm[IR_NAME_SIZE];
				eval_error(ev, where, "the kinetic energy must be quadratic in the velocities "
				           "(½ u'ᵀ M(u) u'): its second derivative in %s' depends on the velocities",
				           ir_dof_name(m, fv->row[k], nm, sizeof nm));
				goto out;
			}
		/* T itself, for the runtime's check that it is a quadratic form in
		 * the velocities (a constant Hessian alone allows T(u, 0) ≠ 0) */
		m->kinetic_value = ir_prog_copy(ev->a, p);
		m->kinetic_value->nout = 0;
		ir_prog_add_output(m->kinetic_value, p->out[0]);
		ir_prog_compact(m->kinetic_value);
		m->kinetic_loc = ir_loc_of(where);
		if (fv->quadratic && (dense_operators(ev, n) || m->mass.a)) {
			/* a constant mass: add it to the mass matrix */
			if (!m->mass.a) {
				m->mass.a = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
				m->mass.loc = ir_loc_of(where);
			}
			for (int k = 0; k < fv->nnz; k++) {
				double kv;
				ir_is_const(p, p->out[1 + n + k], &kv);
				m->mass.a[fv->row[k] + (size_t)fv->col[k] * n] += kv;
			}
		} else if (fv->quadratic) {
			/* a large constant mass: its entries only, appended to those
			 * of the sums above (which taking fv's entries in their place
			 * dropped: a chain of 10⁴ masses written as a sum plus one
			 * more term had a zero mass on the chain) */
			struct triplets t = { 0 };
			if (trip_reserve(ev, &t, fv->nnz)) {
				eval_error(ev, where, "out of memory");
				goto out;
			}
			for (int k = 0; k < fv->nnz; k++) {
				double kv;
				ir_is_const(p, p->out[1 + n + k], &kv);
				trip_add(&t, fv->row[k], fv->col[k], kv);
			}
			add_operator(ev, &m->mass, n, &t);
			m->mass.loc = ir_loc_of(where);
		} else {
			/* u-dependent mass: keep T, ∂T/∂u and the entries of M(u) */
			struct ir_kinetic *kin = arena_alloc(ev->a, sizeof *kin);
			int *gu = mem_alloc(sizeof(int) * (size_t)(n + 1));
			struct ir_diff_inputs inu = { n, 1, { { IR_DOF, 0 } } };
			if (!gu || ir_gradient(p, w, r, &inu, gu)) {
				free(gu);
				eval_error(ev, where, "out of memory");
				goto out;
			}
			struct ir_prog *q = p;
			int *mreg = mem_alloc(sizeof(int) * (size_t)(fv->nnz + 1));
			for (int k = 0; k < fv->nnz && mreg; k++)
				mreg[k] = p->out[1 + n + k];
			if (!mreg) {
				free(gu);
				eval_error(ev, where, "out of memory");
				goto out;
			}
			/* the dofs each entry depends on (its gradient's pattern;
			 * the derivatives emitted are dropped by the compaction) */
			kin->dptr = arena_alloc(ev->a, sizeof(int) * (size_t)(fv->nnz + 1));
			int ndep = 0, depcap = 0, *dep = NULL, drc = 0;
			for (int k = 0; k < fv->nnz && !drc; k++) {
				int nd;
				const int *didx, *dreg;
				kin->dptr[k] = ndep;
				if ((drc = ir_gradient_sparse(p, w, mreg[k], &inu, &nd, &didx, &dreg)))
					break;
				if (ndep + nd > depcap) {
					int cap = 2 * (ndep + nd) + 16, *d2 = mem_realloc(dep, sizeof(int) * (size_t)cap);
					if (!d2) {
						drc = -1;
						break;
					}
					dep = d2;
					depcap = cap;
				}
				for (int j = 0; j < nd; j++)
					dep[ndep++] = didx[j];
			}
			if (drc) {
				free(gu);
				free(mreg);
				free(dep);
				eval_error(ev, where, "out of memory");
				goto out;
			}
			kin->dptr[fv->nnz] = ndep;
			kin->dep = arena_alloc(ev->a, sizeof(int) * (size_t)(ndep + 1));
			if (ndep)
				memcpy(kin->dep, dep, sizeof(int) * (size_t)ndep);
			free(dep);
			q->nout = 0;
			ir_prog_add_output(q, r);
			for (int k = 0; k < n; k++)
				ir_prog_add_output(q, gu[k]);
			for (int k = 0; k < fv->nnz; k++)
				ir_prog_add_output(q, mreg[k]);
			free(gu);
			free(mreg);
			ir_prog_compact(q);
			kin->prog = q;
			kin->nnz = fv->nnz;
			kin->row = fv->row;
			kin->col = fv->col;
			kin->loc = ir_loc_of(where);
			m->kinetic = kin;
		}
	}

	/* dissipation Ψ(v, ż): σ_j |z_j'| apart, the rest smooth; each
	 * `dissipation` statement is a term of the ledger */
	m->sigma = arena_alloc(ev->a, sizeof(double) * (size_t)(nz + 1));
	m->sigma_term = arena_alloc(ev->a, sizeof(int) * (size_t)(nz + 1));
	m->sigma_u = arena_alloc(ev->a, sizeof(double) * (size_t)(n + 1));
	m->sigma_u_term = arena_alloc(ev->a, sizeof(int) * (size_t)(n + 1));
	int nitem = 0;
	for (int i = 0; i < am->items.n; i++)
		nitem += ((struct ast_item *)am->items.v[i])->kind == AST_ITEM_DISSIPATION;
	m->ndissipation = nitem;
	if (nitem > 0) {
		p = ir_prog_new(ev->a);
		ev->prog = p;
		mc->what = "the dissipation";
		mc->allow_t = 0;
		mc->allow_state = 1;
		int *smooth_of = arena_alloc(ev->a, sizeof(int) * (size_t)nitem);
		struct loc *loc_of = arena_alloc(ev->a, sizeof(struct loc) * (size_t)nitem);
		int smooth = -1, k = 0;
		kl.n = 0;
		for (int i = 0; i < am->items.n; i++) {
			struct ast_item *it = am->items.v[i];
			if (it->kind != AST_ITEM_DISSIPATION)
				continue;
			struct value v;
			if (energy_expr(ev, w, it->value, EN_DISSIPATION, k, "the dissipation", &kl, &v))
				goto out;
			for (int q = 0; q < kl.nfric; q++) {
				const struct kern_fric *f = &kl.fric[q];
				for (long i = f->lo; i <= f->hi; i++) {
					long g = f->base + f->stride * i;
					(f->isdof ? m->sigma_u : m->sigma)[g] += f->c;
					(f->isdof ? m->sigma_u_term : m->sigma_term)[g] = f->term;
				}
			}
			kl.nfric = 0;
			if (v.kind != VAL_NUM || ir_depends(p, w, v.reg, states | OPBIT(IR_ACC) | OPBIT(IR_TIME))) {
				eval_error(ev, it->loc, v.kind != VAL_NUM ? "the dissipation must be a number, not %s"
				           : "the dissipation is a function of the rates u' and z' only%s",
				           v.kind != VAL_NUM ? value_kind_name(&v) : "");
				goto out;
			}
			int mine = -1;
			if (negative_abs_rates(ev, p, v.reg, 1, it->loc))
				goto out;
			if (terms(p, v.reg, &tl, &stack)) {
				eval_error(ev, it->loc, "out of memory splitting the dissipation into its terms");
				goto out;
			}
			const int *t = tl.t;
			for (int q = 0; q < tl.n; q++) {
				/* c of either sign: a rate's coefficients sum to
				 * σ ≥ 0 (negative_abs_rates) */
				int j, isdof = 0;
				double c = tl.k[q] * abs_rate_term(p, t[q], &j, &isdof);
				if (c != 0 && isdof) {
					/* dry friction on a dof: c |u'| */
					m->sigma_u[j] += c;
					m->sigma_u_term[j] = k;
					continue;
				}
				if (c != 0) {
					m->sigma[j] += c;
					m->sigma_term[j] = k;
					continue;
				}
				int term = scaled(p, t[q], tl.k[q], ir_loc_of(it->loc));
				mine = mine < 0 ? term : ir_emit(p, IR_ADD, mine, term, 0, ir_loc_of(it->loc));
			}
			if (k == 0)
				where = it->loc;
			loc_of[k] = it->loc;
			smooth_of[k++] = mine;
			if (mine >= 0)
				smooth = smooth < 0 ? mine : ir_emit(p, IR_ADD, smooth, mine, 0, ir_loc_of(it->loc));
		}
		struct ir_diff_inputs in = { n + nz, 2, { { IR_VEL, 0 }, { IR_INTVEL, n } } };
		/* the gradients of each statement's smooth part, for the ledger's
		 * per-term dissipation */
		{
			struct ir_prog *q = p;
			int *grad = mem_alloc(sizeof(int) * (size_t)(n + nz + 1));
			int *outs = mem_alloc(sizeof(int) * ((size_t)nitem * (size_t)(n + nz) + 1));
			if (!grad || !outs) {
				free(grad);
				free(outs);
				eval_error(ev, am->loc, "out of memory");
				goto out;
			}
			int zero = ir_emit_const(q, 0, ir_loc_of(where));
			for (int i = 0; i < nitem; i++) {
				for (int c = 0; c < n + nz; c++)
					grad[c] = zero;
				if (smooth_of[i] >= 0 && !ir_is_const(q, smooth_of[i], NULL) && ir_gradient(q, w, smooth_of[i], &in, grad)) {
					free(grad);
					free(outs);
					eval_error(ev, am->loc, "out of memory");
					goto out;
				}
				memcpy(outs + (size_t)i * (size_t)(n + nz), grad, sizeof(int) * (size_t)(n + nz));
				/* Roubíček's staggered scheme assumes Ψ₁(u') + Ψ₂(z'): a
				 * statement whose u'-forces depend on z' (or the reverse)
				 * couples them, whatever the form (½(u' − z')², |u' − z'|) */
				for (int c = 0; c < n + nz && !m->dissipation_coupled && nz > 0; c++) {
					int dep = ir_depends(q, w, grad[c], OPBIT(c < n ? IR_INTVEL : IR_VEL));
					if (dep < 0) {
						free(grad);
						free(outs);
						eval_error(ev, am->loc, "out of memory");
						goto out;
					}
					if (dep) {
						m->dissipation_coupled = 1;
						m->dissipation_coupled_loc = ir_loc_of(loc_of[i]);
					}
				}
			}
			/* a program of its own: a copy of p's instructions with these
			 * outputs, compacted (derive below compacts p for its own) */
			struct ir_prog *terms_prog = ir_prog_copy(ev->a, q);
			terms_prog->nout = 0;
			for (size_t c = 0; c < (size_t)nitem * (size_t)(n + nz); c++)
				ir_prog_add_output(terms_prog, outs[c]);
			ir_prog_compact(terms_prog);
			m->dissipation_terms = terms_prog;
			free(grad);
			free(outs);
		}
		/* Roubíček's staggered scheme's coupling test, on the kernels */
		for (int q = 0; q < kl.n && !m->dissipation_coupled && nz > 0; q++) {
			const struct ir_kernel *kk = &kl.v[q];
			for (int s = 0; s < kk->nslot && !m->dissipation_coupled; s++) {
				int dep = ir_depends(kk->prog, w, kk->prog->out[1 + s],
				                     OPBIT(kk->kind[s] == IR_VEL ? IR_INTVEL : IR_VEL));
				if (dep < 0) {
					eval_error(ev, am->loc, "out of memory");
					goto out;
				}
				if (dep) {
					m->dissipation_coupled = 1;
					m->dissipation_coupled_loc = ir_loc_of(loc_of[kk->term]);
				}
			}
		}
		if ((smooth >= 0 && !ir_is_const(p, smooth, NULL)) || kl.n > 0) {
			if (smooth < 0)
				smooth = ir_emit_const(p, 0, ir_loc_of(where));
			if (derive(ev, w, p, smooth, &in, where, &m->dissipation))
				goto out;
			attach_kernels(ev, m->dissipation, &kl);
		}
	}
	if (lower_constraints(ev, mc, am, w))
		goto out;

	/* Constant quadratic energies are operators: a homogeneous quadratic
	 * potential of the dofs alone is a stiffness matrix, a dissipation
	 * ½u'ᵀCu' a damping matrix, so that such models take the linear fast
	 * path (step matrix factored once, banded storage from the pattern). */
	/* no dry friction on a dof: no per-dof arrays of it (the runtime
	 * takes NULL as none), 12 bytes per dof less */
	int friction = 0;
	for (int i = 0; i < n && !friction; i++)
		friction = m->sigma_u[i] != 0;
	if (!friction) {
		arena_release(ev->a, m->sigma_u);
		arena_release(ev->a, m->sigma_u_term);
		m->sigma_u = NULL;
		m->sigma_u_term = NULL;
	}
	if (fold_quadratic(ev, mc) < 0)
		goto out;
	/* the integrals left as kernels: their maps and data */
	struct ir_func *kf[2] = { m->potential, m->dissipation };
	for (int f = 0; f < 2; f++)
		for (int q = 0; kf[f] && q < kf[f]->nkernel; q++)
			if (kf[f]->kernel[q].form && kernel_materialize(ev, &kf[f]->kernel[q]))
				goto out;

	/* an internal variable no energy mentions has no equation (those
	 * of the kernels: every instance's slots) */
	char *zused = NULL, *zrate = NULL;
	if (nz > 0) {
		zused = arena_alloc(ev->a, (size_t)nz);
		zrate = arena_alloc(ev->a, (size_t)nz);
		const struct ir_func *fs[2] = { m->potential, m->dissipation };
		for (int f = 0; f < 2; f++)
			for (int q = 0; fs[f] && q < fs[f]->nkernel; q++) {
				const struct ir_kernel *kk = &fs[f]->kernel[q];
				for (int s = 0; s < kk->nslot; s++)
					if (kk->kind[s] == IR_INT || kk->kind[s] == IR_INTVEL)
						for (long i = kk->lo; i <= kk->hi; i++) {
							zused[kernel_index(kk, s, i)] = 1;
							if (f == 1 && kk->kind[s] == IR_INTVEL)
								zrate[kernel_index(kk, s, i)] = 1;
						}
			}
	}
	for (int j = 0; j < nz; j++) {
		int used = m->sigma[j] > 0;
		if (m->potential && !ir_is_const(m->potential->prog, m->potential->prog->out[1 + n + j], NULL))
			used = 1;
		if (m->dissipation && !ir_is_const(m->dissipation->prog, m->dissipation->prog->out[1 + n + j], NULL))
			used = 1;
		used |= zused && zused[j];
		if (!used) {
			const struct ir_dof_group *g = ir_dof_group_of(&m->intvars, j);
			struct loc l = { g->loc.file, g->loc.line, g->loc.col, 1 };
			char nm[IR_NAME_SIZE];
			eval_error(ev, l, "internal variable %s appears in no potential or dissipation: "
			           "it has no equation", ir_intvar_name(m, j, nm, sizeof nm));
			goto out;
		}
		/* without its rate in the dissipation, z's equation ∂Φ/∂z = 0 is
		 * algebraic: z follows u at once, the initial z is not free, and
		 * the schemes differ on it (the midpoint rule keeps an initial
		 * inconsistency as an oscillation z_k − z*_k = (−1)^k c) */
		int rate = m->sigma[j] > 0 || (zrate && zrate[j]) ||
		           (m->dissipation && !ir_is_const(m->dissipation->prog, m->dissipation->prog->out[1 + n + j], NULL));
		if (!rate) {
			const struct ir_dof_group *g = ir_dof_group_of(&m->intvars, j);
			struct loc l = { g->loc.file, g->loc.line, g->loc.col, 1 };
			char nm[IR_NAME_SIZE];
			ir_intvar_name(m, j, nm, sizeof nm);
			eval_error(ev, l, "internal variable %s has no rate in the dissipation: its equation dPhi/d%s = 0 "
			           "would hold at every instant, with no evolution (add a dissipation in %s', such as "
			           "0.5*c*%s'^2 or sigma*abs(%s'))", nm, nm, nm, nm, nm);
			goto out;
		}
	}
	rc = 0;
out:
	free(kl.v);
	free(kl.fric);
	free(tl.t);
	free(tl.k);
	free(stack.t);
	free(stack.k);
	ir_diff_ws_free(w);
	return rc;
}
