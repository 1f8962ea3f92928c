/* eval.c — executes statements and evaluates expressions.
 *
 * Scalars are IR registers: eval_expr emits into ev->prog, and at top level
 * every register folds to a constant, so a top-level expression is simply
 * a program with no inputs.  Inside a model (lower.c) the same code emits
 * the programs the runtime runs at every step.  Errors are reported through
 * the one diagnostics path and returned as -1; nothing here exits.
 */
#include <config.h>

#include "fe.h"
#include "fmt.h"
#include "interp.h"
#include "parse.h"
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- scopes ---- */

struct scope *scope_new(struct arena *a, struct scope *parent)
{
	struct scope *sc = arena_alloc(a, sizeof *sc);
	sc->parent = parent;
	NAME_INDEX_INIT(&sc->index, a, struct binding);
	return sc;
}

struct binding *scope_lookup_local(struct scope *sc, const char *name)
{
	return name_index_find(&sc->index, sc->head, name);
}

struct binding *scope_lookup(struct scope *sc, const char *name)
{
	for (; sc; sc = sc->parent) {
		struct binding *b = scope_lookup_local(sc, name);
		if (b)
			return b;
	}
	return NULL;
}

int eval_script_value(void *ctx, const char *name)
{
	struct eval *ev = ctx;
	struct binding *b = scope_lookup(ev->scope, name);
	return b && b->kind == B_VALUE;
}

/* Bind a new name in the innermost scope; a name defined twice in one
 * scope is an error (except at the REPL, where definitions are revised). */
struct binding *scope_bind(struct eval *ev, const char *name, enum bind_kind kind, struct loc loc)
{
	struct binding *old = scope_lookup_local(ev->scope, name);
	if (old && !(ev->s->allow_redefine && ev->scope == ev->s->globals)) {
		eval_error(ev, loc, "'%s' is already defined", name);
		if (old->loc.file && !ev->quiet)
			diag_note(ev->d, old->loc, "'%s' was defined here", name);
		return NULL;
	}
	if (builtin_exists(name) || strcmp(name, "pi") == 0 || strcmp(name, "t") == 0 ||
	    strcmp(name, "true") == 0 || strcmp(name, "false") == 0) {
		eval_error(ev, loc, "'%s' is a built-in name and cannot be redefined", name);
		return NULL;
	}
	if (kind == B_SCHEME && ir_family_find(name) >= 0) {
		eval_error(ev, loc, "'%s' is a built-in scheme family and cannot be redefined", name);
		return NULL;
	}
	const char *member = kind == B_DOF ? result_member(name) : NULL;
	if (member) {
		eval_error(ev, loc, "'%s' names a run's %s (r.%s): a dof, field or internal variable of that name could "
		           "not be read back; choose another name", name, member, name);
		return NULL;
	}
	struct binding *b = arena_alloc(ev->a, sizeof *b);
	b->name = name;
	b->kind = kind;
	b->loc = loc;
	b->next = ev->scope->head;
	ev->scope->head = b;
	return b;
}

int eval_error(struct eval *ev, struct loc loc, const char *fmt, ...)
{
	/* --check: what follows from a result that was not computed is not
	 * an error of the script */
	if (ev->s->dry_hit)
		return -1;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!ev->quiet)
		diag_error(ev->d, loc, "%s", buf);
	return -1;
}

int eval_model_input(struct eval *ev, enum ir_op op, long base, long stride, struct loc loc)
{
	struct kern_build *kb = ev->kern;
	if (!kb)
		return ir_emit_input(ev->prog, op, (int)base, ir_loc_of(loc));
	int s = 0;
	while (s < kb->nslot && !(kb->kind[s] == op && kb->base[s] == base && kb->stride[s] == stride))
		s++;
	if (s == kb->nslot) {
		if (s == KERN_MAX_SLOTS)
			return -1;
		if (s == kb->cap) {
			int cap = kb->cap ? 2 * kb->cap : 8;
			kb->kind = arena_grow(ev->a, kb->kind, sizeof *kb->kind * (size_t)s, sizeof *kb->kind * (size_t)cap);
			kb->base = arena_grow(ev->a, kb->base, sizeof *kb->base * (size_t)s, sizeof *kb->base * (size_t)cap);
			kb->stride = arena_grow(ev->a, kb->stride, sizeof *kb->stride * (size_t)s,
			                        sizeof *kb->stride * (size_t)cap);
			kb->cap = cap;
		}
		kb->kind[s] = op;
		kb->base[s] = base;
		kb->stride[s] = stride;
		kb->nslot++;
	}
	return ir_emit_input(ev->prog, op, s, ir_loc_of(loc));
}

int eval_kernel_data(struct eval *ev, const double *v, long n, long a, long b, struct loc loc)
{
	struct kern_build *kb = ev->kern;
	long lo = a * kb->lo + b, hi = a * kb->hi + b;
	if (lo < 1 || lo > n || hi < 1 || hi > n)
		return -1;
	size_t ninst = (size_t)(kb->hi - kb->lo + 1);
	double *col = arena_alloc(ev->a, sizeof *col * ninst);
	for (size_t k = 0; k < ninst; k++)
		col[k] = v[a * (kb->lo + (long)k) + b - 1];
	int j = 0;
	while (j < kb->ndata && memcmp(kb->data[j], col, sizeof *col * ninst) != 0)
		j++;
	if (j == kb->ndata) {
		if (j == kb->dcap) {
			int cap = kb->dcap ? 2 * kb->dcap : 4;
			kb->data = arena_grow(ev->a, kb->data, sizeof *kb->data * (size_t)j, sizeof *kb->data * (size_t)cap);
			kb->dcap = cap;
		}
		kb->data[kb->ndata++] = col;
	}
	return ir_emit_input(ev->prog, IR_DATA, j, ir_loc_of(loc));
}

/* Whether register r is a i + b with whole a, b in the kernel being built
 * (i its INDEX): sums, differences, negations and products by constants. */
static int affine_in_index(const struct ir_prog *p, int index, int r, long *a, long *b, int depth)
{
	double k;
	if (ir_is_const(p, r, &k)) {
		if (k != floor(k) || fabs(k) > 1e9)
			return 0;
		*a = 0;
		*b = (long)k;
		return 1;
	}
	if (r == index) {
		*a = 1;
		*b = 0;
		return 1;
	}
	const struct ir_insn *x = &p->insn[r];
	long a1, b1, a2, b2;
	if (depth > 32)
		return 0;
	switch (x->op) {
	case IR_NEG:
		if (!affine_in_index(p, index, x->a, &a1, &b1, depth + 1))
			return 0;
		*a = -a1;
		*b = -b1;
		return 1;
	case IR_ADD: case IR_SUB: case IR_MUL:
		if (!affine_in_index(p, index, x->a, &a1, &b1, depth + 1) ||
		    !affine_in_index(p, index, x->b, &a2, &b2, depth + 1))
			return 0;
		if (x->op == IR_MUL) {
			if (a1 != 0 && a2 != 0)
				return 0;
			*a = a1 * b2 + a2 * b1;
			*b = b1 * b2;
		} else {
			int sg = x->op == IR_SUB ? -1 : 1;
			*a = a1 + sg * a2;
			*b = b1 + sg * b2;
		}
		return labs(*a) <= 1000000000L && labs(*b) <= 1000000000L;
	default:
		return 0;
	}
}

/* Ctrl-C at the REPL outside a run (lang/repl.c sets rt_interrupted;
 * a script ends on the signal, lang/main.c): statements, function calls
 * and the terms of a sum stop at the next one, with status 130. */
int eval_interrupted(struct eval *ev, struct loc loc)
{
	if (!rt_interrupted)
		return 0;
	if (ev->quiet)
		return -1;   /* a kernel's trial: the unrolled sum reports it */
	rt_interrupted = 0;
	ev->s->status = 130;
	return eval_error(ev, loc, "interrupted");
}

int eval_dry(struct eval *ev)
{
	ev->s->dry_hit = 1;
	return -1;
}

struct ir_loc ir_loc_of(struct loc loc)
{
	struct ir_loc l = { loc.file, loc.line, loc.col };
	return l;
}

const char *path_dir(struct arena *a, const char *file)
{
	const char *slash = strrchr(file, '/');
	if (!slash)
		return strcmp(file, "<stdin>") == 0 ? NULL : ".";
	return arena_strndup(a, file, (size_t)(slash - file) + (slash == file));
}

const char *path_join(struct arena *a, const char *dir, const char *path)
{
	if (!dir || !*dir || strcmp(dir, ".") == 0 || path[0] == '/')
		return path;
	return arena_printf(a, "%s/%s", dir, path);
}

/* ---- values ---- */

struct value value_num(struct eval *ev, double k, struct loc loc)
{
	struct value v = { 0 };
	v.kind = VAL_NUM;
	v.reg = ir_emit_const(ev->prog, k, ir_loc_of(loc));
	return v;
}

struct value value_mat(struct eval *ev, int rows, int cols)
{
	struct value v = { 0 };
	v.kind = VAL_MAT;
	v.rows = rows;
	v.cols = cols;
	v.m = arena_alloc(ev->a, sizeof(int) * (size_t)rows * (size_t)cols + 1);
	return v;
}

/* Element i of a scalar or matrix as a constant; 0 when it depends on t or
 * the state. */
int value_const(struct eval *ev, const struct value *v, int i, double *k)
{
	return ir_is_const(ev->prog, v->kind == VAL_NUM ? v->reg : v->m[i], k);
}

/* The value as constants, to be bound to a name (see struct value). */
int value_freeze(struct eval *ev, struct value *v, struct loc loc, const char *what)
{
	if (v->frozen)
		return 0;
	if (v->kind == VAL_NUM) {
		if (!ir_is_const(ev->prog, v->reg, &v->k))
			return eval_error(ev, loc, "%s must be constant", what);
		v->frozen = 1;
	} else if (v->kind == VAL_MAT) {
		v->km = arena_alloc(ev->a, sizeof(double) * (size_t)(v->rows * v->cols) + 1);
		for (int i = 0; i < v->rows * v->cols; i++)
			if (!ir_is_const(ev->prog, v->m[i], &v->km[i]))
				return eval_error(ev, loc, "%s must be constant", what);
		v->frozen = 1;
	}
	return 0;
}

const char *value_kind_name(const struct value *v)
{
	switch (v->kind) {
	case VAL_NUM: return "a number";
	case VAL_MAT: return v->rows == 1 && v->cols == 1 ? "a 1 x 1 matrix" : v->rows == 1 || v->cols == 1 ?
	                     "a vector" : "a matrix";
	case VAL_STR: return "a string";
	case VAL_RUN: return "a run";
	case VAL_HIST: return "a history";
	case VAL_SYMBOL: return "a name";
	case VAL_SPECTRUM: return "a spectrum";
	case VAL_MODES: return "modes";
	case VAL_DRY: return "a run's result";
	}
	return "a value";
}

/* A scalar result must be finite when it is a constant: report the
 * operation that made it infinite or NaN.  An infinite operand is a value
 * some results have (the period of a rigid mode): it may give an infinite
 * result (inf + 1), never a NaN (inf - inf), which nothing after could
 * tell from a number (a NaN condition took an if's first branch). */
static int check_finite(struct eval *ev, int reg, struct loc loc, enum ir_op op, int a, int b)
{
	double k, x = 0, y = 0;
	if (!ir_is_const(ev->prog, reg, &k) || isfinite(k))
		return 0;
	int ka = ir_is_const(ev->prog, a, &x), kb = ir_is_const(ev->prog, b, &y);
	kb = kb && ir_op_arity[op] >= 2;
	if ((ka && isnan(x)) || (kb && isnan(y)))
		return 0;   /* already reported where it arose */
	if (isinf(k) && ((ka && isinf(x)) || (kb && isinf(y))))
		return 0;
	if (isnan(k) && ((ka && isinf(x)) || (kb && isinf(y)))) {
		char xs[32], ys[32];
		value_format_num(x, xs);
		value_format_num(y, ys);
		static const char *const sym[] = { [IR_ADD] = "+", [IR_SUB] = "-", [IR_MUL] = "*", [IR_DIV] = "/",
		                                   [IR_POW] = "^" };
		if (ir_op_arity[op] == 2 && (size_t)op < sizeof sym / sizeof *sym && sym[op])
			return eval_error(ev, loc, "%s %s %s is not a number (NaN)", xs, sym[op], ys);
	}
	if ((op == IR_DIV || op == IR_FMOD) && kb && y == 0)
		return eval_error(ev, loc, "division by zero");
	char xs[32];
	value_format_num(x, xs);
	if (ir_op_arity[op] == 1)
		return eval_error(ev, loc, "%s(%s) is not a finite number", ir_op_name[op], xs);
	return eval_error(ev, loc, "the result is not a finite number (%s)", isnan(k) ? "NaN" : "overflow");
}

/* The tensor functions (fe_call: det, inv, dot, inner, tr, ...) of
 * constant finite arguments whose constant result is not finite: inv of
 * a singular matrix, a dot product that overflows.  Their arguments'
 * values were checked where they arose. */
static int tensor_not_finite(struct eval *ev, struct ast_expr *call, const char *name, const struct value *v)
{
	int n = v->kind == VAL_NUM ? 1 : v->kind == VAL_MAT ? v->rows * v->cols : 0;
	for (int i = 0; i < n; i++) {
		double k;
		int reg = v->kind == VAL_NUM ? v->reg : v->m[i];
		if (!ir_is_const(ev->prog, reg, &k) || isfinite(k))
			continue;
		if (strcmp(name, "inv") == 0)
			return eval_error(ev, call->loc, "inv: the matrix is singular or its inverse overflows (an element is %s)",
			                  isnan(k) ? "NaN" : "infinite");
		return eval_error(ev, call->loc, "%s(...) is not a finite number (%s)", name,
		                  isnan(k) ? "NaN" : "overflow");
	}
	return 0;
}

static int emit_checked(struct eval *ev, enum ir_op op, int a, int b, int c, struct loc loc, int *out)
{
	*out = ir_emit(ev->prog, op, a, b, c, ir_loc_of(loc));
	return check_finite(ev, *out, loc, op, a, b);
}

static int is_vector(const struct value *v)
{
	return v->kind == VAL_MAT && (v->rows == 1 || v->cols == 1);
}

/* ---- arithmetic on values ---- */

static int binary_scalar(struct eval *ev, enum ast_op op, int x, int y, struct loc loc, int *out)
{
	static const enum ir_op map[] = {
		[AST_OP_ADD] = IR_ADD, [AST_OP_SUB] = IR_SUB, [AST_OP_MUL] = IR_MUL,
		[AST_OP_DIV] = IR_DIV, [AST_OP_POW] = IR_POW, [AST_OP_AND] = IR_AND,
		[AST_OP_OR] = IR_OR, [AST_OP_LT] = IR_LT, [AST_OP_LE] = IR_LE,
		[AST_OP_GT] = IR_GT, [AST_OP_GE] = IR_GE, [AST_OP_EQ] = IR_EQ,
		[AST_OP_NE] = IR_NE,
	};
	return emit_checked(ev, map[op], x, y, 0, loc, out);
}

/* One side of a string's +: a string as it is, a number known before
 * any run as print writes it (into buf). */
static int string_part(struct eval *ev, const struct value *v, char buf[FMT_BUFSZ], const char **s, struct loc loc)
{
	double k;
	if (v->kind == VAL_STR) {
		*s = v->str;
		return 0;
	}
	if (v->kind == VAL_NUM && ir_is_const(ev->prog, v->reg, &k)) {
		fmt_num(buf, k);
		*s = buf;
		return 0;
	}
	return eval_error(ev, loc, "'+' joins a string to strings and numbers, not %s%s", value_kind_name(v),
	                  v->kind == VAL_NUM ? " that depends on t or the state" : "");
}

static int binary(struct eval *ev, enum ast_op op, struct value *l, struct value *r,
                  struct loc loc, struct value *out)
{
	memset(out, 0, sizeof *out);
	/* "run" + i + ".csv": a string joined to strings and numbers (a
	 * pass's own file name in a loop) */
	if (op == AST_OP_ADD && (l->kind == VAL_STR || r->kind == VAL_STR)) {
		char a[FMT_BUFSZ], b[FMT_BUFSZ];
		const char *x, *y;
		if (string_part(ev, l, a, &x, loc) || string_part(ev, r, b, &y, loc))
			return -1;
		out->kind = VAL_STR;
		out->str = arena_printf(ev->a, "%s%s", x, y);
		return 0;
	}
	if (l->kind == VAL_NUM && r->kind == VAL_NUM) {
		out->kind = VAL_NUM;
		return binary_scalar(ev, op, l->reg, r->reg, loc, &out->reg);
	}
	if ((l->kind != VAL_NUM && l->kind != VAL_MAT) || (r->kind != VAL_NUM && r->kind != VAL_MAT))
		return eval_error(ev, loc, "'%s' needs numbers, vectors or matrices, not %s and %s",
		                  ast_op_text[op], value_kind_name(l), value_kind_name(r));
	/* Scalar with matrix: elementwise for * and /, and + - as elementwise
	 * too (a scalar shift), never for comparisons. */
	if (op == AST_OP_MUL && l->kind == VAL_MAT && r->kind == VAL_MAT) {
		/* [1, 0] and [1; 0] are both vectors: a row vector on the right
		 * of a matrix is read as a column */
		struct value rc;
		if (r->rows == 1 && l->cols == r->cols && l->cols > 1) {
			rc = *r;
			rc.rows = r->cols;
			rc.cols = 1;
			r = &rc;
		}
		if (l->cols != r->rows)
			return eval_error(ev, loc, "matrix product of %dx%d and %dx%d: inner sizes differ",
			                  l->rows, l->cols, r->rows, r->cols);
		*out = value_mat(ev, l->rows, r->cols);
		for (int i = 0; i < l->rows; i++)
			for (int j = 0; j < r->cols; j++) {
				int acc = ir_emit_const(ev->prog, 0, ir_loc_of(loc));
				for (int k = 0; k < l->cols; k++) {
					int p;
					if (emit_checked(ev, IR_MUL, l->m[i * l->cols + k], r->m[k * r->cols + j], 0, loc, &p) ||
					    emit_checked(ev, IR_ADD, acc, p, 0, loc, &acc))
						return -1;
				}
				out->m[i * r->cols + j] = acc;
			}
		return 0;
	}
	if (op != AST_OP_ADD && op != AST_OP_SUB && op != AST_OP_MUL && op != AST_OP_DIV)
		return eval_error(ev, loc, "'%s' applies to numbers, not to %s", ast_op_text[op],
		                  value_kind_name(l->kind == VAL_MAT ? l : r));
	if (op == AST_OP_DIV && r->kind == VAL_MAT)
		return eval_error(ev, loc, "cannot divide by %s", value_kind_name(r));
	if (l->kind == VAL_MAT && r->kind == VAL_MAT) {
		int same = l->rows == r->rows && l->cols == r->cols;
		int vecs = is_vector(l) && is_vector(r) && l->rows * l->cols == r->rows * r->cols;
		if (!same && !vecs)
			return eval_error(ev, loc, "'%s' of a %dx%d and a %dx%d matrix: sizes differ",
			                  ast_op_text[op], l->rows, l->cols, r->rows, r->cols);
		*out = value_mat(ev, l->rows, l->cols);
		for (int i = 0; i < l->rows * l->cols; i++)
			if (binary_scalar(ev, op, l->m[i], r->m[i], loc, &out->m[i]))
				return -1;
		return 0;
	}
	if (op == AST_OP_ADD || op == AST_OP_SUB)
		return eval_error(ev, loc, "'%s' of a number and %s: write the matrix in full (e.g. k*eye(n))",
		                  ast_op_text[op], value_kind_name(l->kind == VAL_MAT ? l : r));
	const struct value *mat = l->kind == VAL_MAT ? l : r;
	*out = value_mat(ev, mat->rows, mat->cols);
	for (int i = 0; i < mat->rows * mat->cols; i++) {
		int x = l->kind == VAL_MAT ? l->m[i] : l->reg;
		int y = r->kind == VAL_MAT ? r->m[i] : r->reg;
		if (binary_scalar(ev, op, x, y, loc, &out->m[i]))
			return -1;
	}
	return 0;
}

/* ---- names and derivatives ---- */

static int eval_name(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct binding *b = scope_lookup(ev->scope, e->name);
	if (!b) {
		if (strcmp(e->name, "pi") == 0) {
			*out = value_num(ev, 3.14159265358979323846, e->loc);
			return 0;
		}
		if (strcmp(e->name, "true") == 0 || strcmp(e->name, "false") == 0) {
			*out = value_num(ev, e->name[0] == 't', e->loc);
			return 0;
		}
		if (strcmp(e->name, "t") == 0) {
			if (ev->mc && (ev->mc->allow_t || ev->mc->allow_state)) {
				out->kind = VAL_NUM;
				out->reg = ir_emit_input(ev->prog, IR_TIME, 0, ir_loc_of(e->loc));
				return 0;
			}
			if (ev->mc)
				return eval_error(ev, e->loc, "%s must be constant: it cannot depend on t", ev->mc->what);
			return eval_error(ev, e->loc, "t is the time inside a model; it is undefined here");
		}
		if (builtin_exists(e->name))
			return eval_error(ev, e->loc, "%s is a function: call it as %s(...)", e->name, e->name);
		if (e->name[1] == 0 && (e->name[0] == 'x' || e->name[0] == 'y' || e->name[0] == 'z') && ev->mc)
			return fe_eval_coord(ev, e, out);
		return eval_error(ev, e->loc, "undefined name '%s'", e->name);
	}
	switch (b->kind) {
	case B_VALUE:
		if (b->val.kind == VAL_DRY)
			return eval_dry(ev);
		*out = b->val;
		if (out->frozen && out->kind == VAL_NUM) {
			out->reg = ir_emit_const(ev->prog, out->k, ir_loc_of(e->loc));
		} else if (out->frozen && out->kind == VAL_MAT) {
			*out = value_mat(ev, b->val.rows, b->val.cols);
			for (int i = 0; i < out->rows * out->cols; i++)
				out->m[i] = ir_emit_const(ev->prog, b->val.km[i], ir_loc_of(e->loc));
		}
		return 0;
	case B_DOF: {
		const struct dof_group *g = b->group;
		if (g->field)
			return fe_eval_name(ev, e, g->field, 0, out);
		if (ev->mc && !ev->mc->allow_state && !ev->mc->allow_t)
			return eval_error(ev, e->loc, "%s must be constant: it cannot depend on %s %s", ev->mc->what,
			                  g->internal ? "internal variable" : "dof", g->name);
		if (!ev->mc || !ev->mc->allow_state)
			return eval_error(ev, e->loc, "%s depends on %s %s: it may depend on t only",
			                  ev->mc ? ev->mc->what : "this", g->internal ? "internal variable" : "dof", g->name);
		enum ir_op op = g->internal ? IR_INT : IR_DOF;
		if (!g->vector) {
			out->kind = VAL_NUM;
			out->reg = eval_model_input(ev, op, g->first, 0, e->loc);
			return out->reg < 0 ? -1 : 0;
		}
		*out = value_mat(ev, g->size, 1);
		for (int i = 0; i < g->size; i++)
			if ((out->m[i] = eval_model_input(ev, op, g->first + i, 0, e->loc)) < 0)
				return -1;
		return 0;
	}
	case B_FUNCTION:
		return eval_error(ev, e->loc, "%s is a function: call it as %s(...)", e->name, e->name);
	case B_MODEL:
		return eval_error(ev, e->loc, "%s is a model: use it in 'run %s with ...'", e->name, e->name);
	case B_SCHEME:
		return eval_error(ev, e->loc, "%s is a scheme: use it in 'run MODEL with %s ...'", e->name, e->name);
	case B_MESH:
		return eval_error(ev, e->loc, "%s is a mesh: a field lives on it (field u on %s : P1) and "
		                  "integral(%s, ...) integrates over it", e->name, e->name, e->name);
	case B_TIME:
		break;
	}
	return eval_error(ev, e->loc, "undefined name '%s'", e->name);
}

/* The rate (op) of the unknown that input register r reads: in a kernel,
 * r's slot names it. */
static int prime_input(struct eval *ev, enum ir_op op, int r, struct loc loc)
{
	int a = ev->prog->insn[r].a;
	if (ev->kern)
		return eval_model_input(ev, op, ev->kern->base[a], ev->kern->stride[a], loc);
	return eval_model_input(ev, op, a, 0, loc);
}

/* A time derivative u', u'', x[i]' of a dof, as a VEL/ACC input, or of a
 * run's history (r.u'). */
static int eval_prime(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct ast_expr *base = e->lhs;
	if (e->primes > 2)
		return eval_error(ev, e->loc, "only first and second time derivatives (' and '') exist");
	if (base->kind == AST_NAME || (base->kind == AST_INDEX && base->lhs->kind == AST_NAME)) {
		const char *name = base->kind == AST_NAME ? base->name : base->lhs->name;
		struct binding *b = scope_lookup(ev->scope, name);
		if (b && b->kind == B_DOF && b->group->field) {
			if (base->kind != AST_NAME && !b->group->field->vector)
				return eval_error(ev, e->loc, "%s is a field: it is not indexed", name);
			if (base->kind != AST_NAME) {
				/* U[i]' of a vector field: component i of U', as U'[i] */
				struct ast_expr rate = *e, comp = *base;
				rate.lhs = base->lhs;
				comp.lhs = &rate;
				return eval_expr(ev, &comp, out);
			}
			return fe_eval_name(ev, e, b->group->field, e->primes, out);
		}
		if (b && b->kind == B_DOF) {
			if (ev->mc && !ev->mc->allow_state && !ev->mc->allow_t)
				return eval_error(ev, e->loc, "%s must be constant: it cannot depend on the velocity of %s",
				                  ev->mc->what, name);
			if (!ev->mc || !ev->mc->allow_state)
				return eval_error(ev, e->loc, "%s depends on the velocity of %s: it may depend on t only",
				                  ev->mc ? ev->mc->what : "this", name);
			struct value v;
			if (eval_expr(ev, base, &v))
				return -1;
			if (b->group->internal && e->primes > 1)
				return eval_error(ev, e->loc, "internal variables have rates (%s'), not accelerations", name);
			enum ir_op op = b->group->internal ? IR_INTVEL : e->primes == 1 ? IR_VEL : IR_ACC;
			if (v.kind == VAL_NUM) {
				out->kind = VAL_NUM;
				out->reg = prime_input(ev, op, v.reg, e->loc);
				return out->reg < 0 ? -1 : 0;
			}
			*out = value_mat(ev, v.rows, v.cols);
			for (int i = 0; i < v.rows * v.cols; i++)
				if ((out->m[i] = prime_input(ev, op, v.m[i], e->loc)) < 0)
					return -1;
			return 0;
		}
	}
	struct value v;
	if (eval_expr(ev, base, &v))
		return -1;
	if (v.kind == VAL_HIST && (v.ser.kind == SER_DOF || v.ser.kind == SER_INT)) {
		*out = v;
		out->ser.deriv += e->primes;
		if (out->ser.deriv > (v.ser.kind == SER_INT ? 1 : 2))
			return eval_error(ev, e->loc, v.ser.kind == SER_INT ? "an internal variable's value and rate are kept, "
			                  "not its second derivative" : "only u, u' and u'' are kept");
		out->ser.label = arena_printf(ev->a, "%s%s", v.ser.label, e->primes == 1 ? "'" : "''");
		return 0;
	}
	return eval_error(ev, e->loc, "' is the time derivative of a dof or of a run's dof history, not of %s",
	                  value_kind_name(&v));
}

/* ---- runs as values: r.u, r.x[2], r.u(T) ---- */

const char *result_member(const char *name)
{
	if (strcmp(name, "t") == 0)
		return "time";
	for (int i = 0; i < RT_NENERGY; i++)
		if (strcmp(name, rt_energy_name[i]) == 0)
			return "energy history";
	if (strcmp(name, "lambda") == 0)
		return "constraint multipliers";
	if (strcmp(name, "impulse") == 0 || strcmp(name, "impulse_t") == 0)
		return "contact impulses";
	return NULL;
}

/* who: the run's name as the script wrote it (q.u after let q = r), for
 * the labels of messages and plots */
static int run_field(struct eval *ev, struct ast_expr *e, struct run_value *run, const char *who,
                     struct value *out)
{
	if (!run->res)
		return eval_dry(ev);
	const struct ir_run *plan = run->plan;
	const struct ir_model *m = plan->model;
	const char *name = e->name;
	memset(out, 0, sizeof *out);
	out->kind = VAL_HIST;
	out->run = run;
	out->ser.label = arena_printf(ev->a, "%s.%s", who, name);
	if (strcmp(name, "t") == 0) {
		out->ser.kind = SER_T;
		return 0;
	}
	for (int i = 0; i < RT_NENERGY; i++)
		if (strcmp(name, rt_energy_name[i]) == 0) {
			out->ser.kind = SER_ENERGY;
			out->ser.index = i;
			return 0;
		}
	int nlam = run->res->nlam - run->res->nimp - run->res->nimpt;
	if (strcmp(name, "lambda") == 0 && nlam > 0) {
		/* r.lambda[k]: the multiplier of constraint k */
		out->ser.kind = SER_LAM;
		out->rows = nlam;
		out->cols = -1;
		return 0;
	}
	if (strcmp(name, "impulse") == 0 && run->res->nimp > 0) {
		/* r.impulse[k]: contact k's impulse per step, after the
		 * multipliers in the same series */
		out->ser.kind = SER_LAM;
		out->ser.index = nlam;
		out->rows = run->res->nimp;
		out->cols = -1;
		return 0;
	}
	if (strcmp(name, "impulse_t") == 0 && run->res->nimpt > 0) {
		/* r.impulse_t[k]: contact k's tangential impulse |P_t| per
		 * step, after the normal ones */
		out->ser.kind = SER_LAM;
		out->ser.index = run->res->nlam - run->res->nimpt;
		out->rows = run->res->nimpt;
		out->cols = -1;
		return 0;
	}
	for (int i = 0; i < run->res->ncol; i++)
		if (strcmp(name, run->res->col_name[i]) == 0) {
			out->ser.kind = SER_COL;
			out->ser.index = i;
			return 0;
		}
	/* A dof or an internal variable: scalar "u", or a vector "x" to be
	 * indexed. */
	int first = -1, count = 0, internal = 0, vector = 0;
	for (int pass = 0; pass < 2 && first < 0; pass++) {
		const struct ir_dof_list *l = pass ? &m->intvars : &m->dofs;
		for (int g = 0; g < l->ngroup; g++)
			if (l->group[g].size > 0 && strcmp(l->group[g].name, name) == 0) {
				if (first < 0) {
					first = l->group[g].first;
					vector = l->group[g].vector;
				}
				count += l->group[g].size;
				internal = pass;
			}
	}
	if (first < 0 && strcmp(name, "energy") == 0)
		return eval_error(ev, e->loc, "run %s has no quantity 'energy': the ledger's histories are %s.kinetic, "
		                  "%s.stored, %s.dissipated, %s.work and %s.residual (record energy writes them as "
		                  "columns)", run->name, run->name, run->name, run->name, run->name, run->name);
	if (first < 0) {
		/* a recorded vector's columns NAME_x, NAME_y, ... */
		char cols[256] = "";
		size_t n = 0, len = strlen(name);
		for (int i = 0; i < run->res->ncol && n < sizeof cols - 64; i++) {
			const char *cn = run->res->col_name[i];
			if (strncmp(cn, name, len) == 0 && cn[len] == '_' && cn[len + 1] && strchr("xyz", cn[len + 1]) &&
			    !cn[len + 2])
				n += (size_t)snprintf(cols + n, sizeof cols - n, "%s%s.%s", n ? ", " : "", run->name, cn);
		}
		if (n)
			return eval_error(ev, e->loc, "run %s has no quantity '%s': its components are %s", run->name, name,
			                  cols);
	}
	if (first < 0) {
		/* the dofs' names, each once (a vector, or a field whose fixed
		 * dofs split it, has several groups) */
		char list[512] = "";
		size_t n = 0;
		for (int g = 0; g < m->dofs.ngroup && n < sizeof list - 64; g++) {
			const struct ir_dof_group *dg = &m->dofs.group[g];
			int seen = dg->size == 0;
			for (int h = 0; h < g && !seen; h++)
				seen = m->dofs.group[h].size > 0 && strcmp(m->dofs.group[h].name, dg->name) == 0;
			if (!seen)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", dg->name);
		}
		return eval_error(ev, e->loc, "run %s has no quantity '%s' (dofs: %s; also t, kinetic, stored, "
		                  "dissipated, work, residual and recorded names)", run->name, name, list);
	}
	out->ser.kind = internal ? SER_INT : SER_DOF;
	out->ser.index = first;
	out->ser.deriv = 0;
	out->rows = count;   /* a vector dof keeps its size until indexed */
	if (count > 1 || vector)
		out->cols = -1;  /* marks "needs an index" */
	return 0;
}

/* The samples of a series, NULL when the run did not keep it. */
static const double *series_samples(const struct rt_result *r, const struct series_ref *s)
{
	switch (s->kind) {
	case SER_T: return r->t;
	case SER_DOF: return r->u ? (s->deriv == 0 ? r->u : s->deriv == 1 ? r->v : r->a)[s->index] : NULL;
	case SER_INT: return (s->deriv ? r->zd : r->z)[s->index];
	case SER_ENERGY: return r->energy[s->index];
	case SER_DTERM: return r->dterm[s->index];
	case SER_LAM: return r->lam[s->index];
	case SER_COL: return r->col[s->index];
	}
	return NULL;
}

/* A run keeps what the script reads back (check.c, lower_keep), so a
 * series is missing only at the REPL, beyond the history budget; the
 * second message guards the analysis: no query ever reads a series that
 * was not kept. */
static int hist_available(struct eval *ev, const struct value *h, struct loc loc)
{
	const struct rt_result *r = h->run->res;
	if (h->cols == -1)
		return eval_error(ev, loc, "%s is a vector %s: index it, as %s[1]", h->ser.label,
		                  h->ser.kind == SER_LAM ? "of multipliers" : "dof", h->ser.label);
	if (series_samples(r, &h->ser))
		return 0;
	if (h->run->plan->keep.all && (h->ser.kind == SER_DOF || h->ser.kind == SER_INT))
		return eval_error(ev, loc,
		                  "%s was not kept: the history of every dof (%.3g MB) exceeds the run's budget "
		                  "(history_budget = %.3g MB), so only recorded quantities are kept; record it",
		                  h->ser.label, (double)r->history_bytes / 1e6,
		                  (double)h->run->plan->history_budget / 1e6);
	return eval_error(ev, loc, "%s was not kept by the run (dyn(5), Results): this is a bug of dyn, "
	                  "please report it", h->ser.label);
}

static int hist_time(struct eval *ev, struct loc loc, const struct value *h, double *T);
static int hist_slice(struct eval *ev, struct ast_expr *range, const struct value *h, struct value *out);
static double hist_value(const struct value *h, double T);

/* r.u(T): the value of a history at a time of the run. */
static int hist_at(struct eval *ev, struct ast_expr *call, struct value *h, struct value *out)
{
	if (call->args.n != 1 || ((struct ast_arg *)call->args.v[0])->name)
		return eval_error(ev, call->loc, "a history takes one argument, a time, %s(T), or a range of times, "
		                  "%s(a..b step s)", h->ser.label, h->ser.label);
	if (hist_available(ev, h, call->loc))
		return -1;
	struct ast_arg *arg = call->args.v[0];
	if (arg->value->kind == AST_RANGE)
		return hist_slice(ev, arg->value, h, out);
	double T;
	if (eval_number(ev, arg->value, &T, "the time") || hist_time(ev, arg->value->loc, h, &T))
		return -1;
	*out = value_num(ev, hist_value(h, T), call->loc);
	return 0;
}

/* A time of the run, within 1e-9 of a step outside it (clamped), or an
 * error. */
static int hist_time(struct eval *ev, struct loc loc, const struct value *h, double *T)
{
	const struct rt_result *r = h->run->res;
	double t0 = r->t[0], t1 = r->t[r->nstep];
	double tol = 1e-9 * h->run->plan->dt;
	if (!(*T >= t0 - tol && *T <= t1 + tol)) {
		char a[32], b[32], c[32];
		value_format_num(*T, a);
		value_format_num(t0, b);
		value_format_num(t1, c);
		return eval_error(ev, loc, "time %s is outside the run (%s to %s)", a, b, c);
	}
	*T = *T < t0 ? t0 : *T > t1 ? t1 : *T;
	return 0;
}

/* The steps whose times are in [a, b], within 1e-9 of the step: from
 * *first, *count of them. */
static void hist_steps(const struct value *h, double a, double b, int *first, int *count)
{
	const struct rt_result *r = h->run->res;
	double tol = 1e-9 * h->run->plan->dt;
	int f = 0;
	while (f <= r->nstep && r->t[f] < a - tol)
		f++;
	int last = f;
	while (last <= r->nstep && r->t[last] <= b + tol)
		last++;
	*first = f;
	*count = last - f;
}

int hist_window(struct eval *ev, struct ast_expr *e, struct value *h, int *first, int *count)
{
	if (e->kind != AST_CALL || e->args.n != 1 || ((struct ast_arg *)e->args.v[0])->name)
		return 0;
	struct ast_expr *range = ((struct ast_arg *)e->args.v[0])->value;
	if (range->kind != AST_RANGE || range->rhs)
		return 0;
	double a, b;
	if (eval_expr(ev, e->lhs, h))
		return -1;
	if (h->kind != VAL_HIST)
		return 0;
	if (hist_available(ev, h, e->loc) || eval_number(ev, range->lo, &a, "the start of the slice") ||
	    eval_number(ev, range->hi, &b, "the end of the slice") || hist_time(ev, range->lo->loc, h, &a) ||
	    hist_time(ev, range->hi->loc, h, &b))
		return -1;
	if (b < a)
		return eval_error(ev, range->loc, "the slice ends before it starts");
	hist_steps(h, a, b, first, count);
	return 1;
}

/* r.u(a..b step s): the row vector of r.u(a + k s), k = 0, 1, ... while
 * a + k s <= b (within 1e-9 s), each time computed, not accumulated;
 * r.u(a..b): the samples of the run at its step times in [a, b]. */
static int hist_slice(struct eval *ev, struct ast_expr *range, const struct value *h, struct value *out)
{
	double a, b, s = 0;
	if (eval_number(ev, range->lo, &a, "the start of the slice") ||
	    eval_number(ev, range->hi, &b, "the end of the slice") ||
	    (range->rhs && eval_number(ev, range->rhs, &s, "the step of the slice")))
		return -1;
	if (hist_time(ev, range->lo->loc, h, &a) || hist_time(ev, range->hi->loc, h, &b))
		return -1;
	if (b < a)
		return eval_error(ev, range->loc, "the slice ends before it starts");
	const struct rt_result *r = h->run->res;
	enum { MAXSLICE = 1000000 };
	long n;
	int first = 0;
	if (range->rhs) {
		if (!(s > 0) || !isfinite(s))
			return eval_error(ev, range->rhs->loc, "the step of a slice must be a positive number");
		double k = floor((b - a) / s + 1e-9);
		n = k + 1 > MAXSLICE ? MAXSLICE + 1 : (long)k + 1;
	} else {
		int count;
		hist_steps(h, a, b, &first, &count);
		n = count;
	}
	if (n > MAXSLICE)
		return eval_error(ev, range->loc, "a slice of more than %d samples is too long", MAXSLICE);
	*out = value_mat(ev, 1, (int)n);
	for (long k = 0; k < n; k++) {
		double T = range->rhs ? a + (double)k * s : r->t[first + k];
		if (T > r->t[r->nstep])
			T = r->t[r->nstep];
		out->m[k] = ir_emit_const(ev->prog, hist_value(h, T), ir_loc_of(range->loc));
	}
	return 0;
}

/* The value of an available history at a time of the run. */
static double hist_value(const struct value *h, double T)
{
	const struct rt_result *r = h->run->res;
	double y = 0;
	switch (h->ser.kind) {
	case SER_T: y = T; break;
	case SER_DOF: y = rt_result_dof(r, h->ser.index, h->ser.deriv, T); break;
	case SER_INT: y = rt_result_series(r, (h->ser.deriv ? r->zd : r->z)[h->ser.index], T); break;
	case SER_ENERGY: y = rt_result_series(r, r->energy[h->ser.index], T); break;
	case SER_DTERM: y = rt_result_series(r, r->dterm[h->ser.index], T); break;
	case SER_LAM: y = rt_result_series(r, r->lam[h->ser.index], T); break;
	case SER_COL: y = rt_result_series(r, r->col[h->ser.index], T); break;
	}
	return y;
}

int hist_values(struct eval *ev, struct value *h, struct loc loc, const double **y, int *n)
{
	if (h->kind != VAL_HIST)
		return eval_error(ev, loc, "plot needs histories such as r.u, not %s", value_kind_name(h));
	const struct rt_result *r = h->run->res;
	if (h->cols == -1)
		return eval_error(ev, loc, "%s is a vector %s: index it, as %s[1]", h->ser.label,
		                  h->ser.kind == SER_LAM ? "of multipliers" : "dof", h->ser.label);
	if (!series_samples(r, &h->ser) && h->run->plan->keep.all &&
	    (h->ser.kind == SER_DOF || h->ser.kind == SER_INT))
		return eval_error(ev, loc, "%s was not kept (the history exceeds the run's budget); record it",
		                  h->ser.label);
	if (hist_available(ev, h, loc))
		return -1;
	*n = r->nstep + 1;
	*y = series_samples(r, &h->ser);
	return 0;
}

/* ---- calls ---- */

static int call_function(struct eval *ev, struct ast_expr *call, struct binding *fb, struct value *out)
{
	struct ast_stmt *f = fb->stmt;
	enum { MAXARGS = 16 };
	if (call->args.n != f->params.n)
		return eval_error(ev, call->loc, "%s takes %d argument%s, %d given", f->name,
		                  f->params.n, f->params.n == 1 ? "" : "s", call->args.n);
	if (f->params.n > MAXARGS)
		return eval_error(ev, call->loc, "%s has more than %d parameters", f->name, MAXARGS);
	if (ev->depth >= 64)
		return eval_error(ev, call->loc, "function calls nested too deeply (is %s recursive?)", f->name);
	if (eval_interrupted(ev, call->loc))
		return -1;
	/* The call's scope lives on the C stack: nothing of it outlives the
	 * call (results are registers), and matrix(n, n, f) makes n² calls. */
	struct binding args[MAXARGS];
	struct scope sc = { .head = NULL, .parent = NULL };
	NAME_INDEX_INIT(&sc.index, NULL, struct binding);   /* a few names: walked */
	for (int i = 0; i < call->args.n; i++) {
		struct ast_arg *g = call->args.v[i];
		if (g->name)
			return eval_error(ev, g->loc, "%s takes positional arguments", f->name);
		struct ast_arg *p = f->params.v[i];
		memset(&args[i], 0, sizeof args[i]);
		if (eval_expr(ev, g->value, &args[i].val))
			return -1;
		args[i].name = p->name;
		args[i].kind = B_VALUE;
		args[i].loc = p->loc;
		args[i].next = sc.head;
		sc.head = &args[i];
	}
	/* Lexical scope: the body sees its arguments and the names visible
	 * where it was defined (t inside a model, through ev->mc). */
	struct scope *saved = ev->scope;
	sc.parent = fb->closure ? fb->closure : ev->s->globals;
	ev->scope = &sc;
	ev->depth++;
	int rc = eval_expr(ev, f->value, out);
	ev->depth--;
	ev->scope = saved;
	if (rc && ev->depth == 0 && !ev->quiet && !ev->s->dry_hit)
		diag_note(ev->d, call->loc, "in the call of %s here", f->name);
	return rc;
}

static int eval_call(struct eval *ev, struct ast_expr *e, struct value *out)
{
	if (e->lhs->kind == AST_NAME) {
		const char *name = e->lhs->name;
		struct binding *b = scope_lookup(ev->scope, name);
		if (b && b->kind == B_FUNCTION)
			return call_function(ev, e, b, out);
		if (!b) {
			int status;
			if (builtin_call(ev, e, name, out, &status) == 0)
				return status;
			if (fe_function_exists(name))
				return fe_call(ev, e, name, out) ? -1 : tensor_not_finite(ev, e, name, out);
			if (strcmp(name, "rayleigh") == 0 || strcmp(name, "modal") == 0)
				return eval_error(ev, e->loc, "%s(...) is a damping law: write 'damping %s(...)' in a model",
				                  name, name);
			return eval_error(ev, e->lhs->loc, "undefined function '%s'", name);
		}
		/* a name bound to what cannot be called (param eps = 0.01, a
		 * mesh tr) leaves the density function of that name callable:
		 * a call can only mean it */
		if (fe_function_exists(name) && (b->kind == B_MESH || b->kind == B_DOF ||
		                                 (b->kind == B_VALUE && b->val.kind != VAL_HIST && b->val.kind != VAL_DRY)))
			return fe_call(ev, e, name, out) ? -1 : tensor_not_finite(ev, e, name, out);
		if (b->kind == B_SCHEME)
			return eval_error(ev, e->loc, "%s is a scheme: use it in 'run MODEL with %s(...) ...'", name, name);
		if (b->kind == B_MODEL)
			return eval_error(ev, e->loc, "%s is a model, not a function", name);
	}
	struct value f;
	if (eval_expr(ev, e->lhs, &f))
		return -1;
	if (f.kind == VAL_HIST)
		return hist_at(ev, e, &f, out);
	return eval_error(ev, e->lhs->loc, "%s cannot be called", value_kind_name(&f));
}

/* ---- expressions ---- */

static int eval_index(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct value base;
	/* DESIGN.md: ' applies to the name, x[i]', never x'[i] (a field's
	 * U'[i] is component i of the vector U', as U[i]') */
	if (e->lhs->kind == AST_PRIME && e->lhs->lhs->kind == AST_NAME) {
		struct binding *b = scope_lookup(ev->scope, e->lhs->lhs->name);
		if (b && b->kind == B_DOF && !b->group->field)
			return eval_error(ev, e->loc, "write %s[...]%s, the derivative of an element, not %s%s[...]",
			                  b->name, e->lhs->primes == 1 ? "'" : "''", b->name, e->lhs->primes == 1 ? "'" : "''");
	}
	/* x[i] of a dof vector: the one input, not the whole vector (a sum
	 * over 10⁵ dofs would otherwise build 10⁵ vectors of 10⁵) */
	if (e->lhs->kind == AST_NAME) {
		struct binding *b = scope_lookup(ev->scope, e->lhs->name);
		if (b && b->kind == B_DOF && b->group->vector && ev->mc && ev->mc->allow_state) {
			long i;
			const struct dof_group *g = b->group;
			if (ev->kern) {
				/* in a kernel: x[a i + b], checked at both ends of the
				 * range (a monotone index) */
				struct value iv;
				long ca, cb;
				if (eval_expr(ev, e->rhs, &iv))
					return -1;
				if (iv.kind != VAL_NUM || !affine_in_index(ev->prog, ev->kern->index_reg, iv.reg, &ca, &cb, 0))
					return -1;
				long lo = ca * ev->kern->lo + cb, hi = ca * ev->kern->hi + cb;
				if (lo < 1 || lo > g->size || hi < 1 || hi > g->size)
					return -1;
				out->kind = VAL_NUM;
				out->reg = eval_model_input(ev, g->internal ? IR_INT : IR_DOF, g->first + cb - 1, ca, e->loc);
				return out->reg < 0 ? -1 : 0;
			}
			if (eval_int(ev, e->rhs, &i, "an index"))
				return -1;
			if (i < 1 || i > g->size)
				return eval_error(ev, e->rhs->loc, "index %ld is out of range 1..%d of %s", i, g->size, g->name);
			out->kind = VAL_NUM;
			out->reg = eval_model_input(ev, g->internal ? IR_INT : IR_DOF, g->first + i - 1, 0, e->loc);
			return out->reg < 0 ? -1 : 0;
		}
	}
	/* c[a i + b] of a vector of constants in a kernel: a column of
	 * per-instance data, not n constants in the body */
	if (ev->kern && e->lhs->kind == AST_NAME) {
		struct binding *b = scope_lookup(ev->scope, e->lhs->name);
		if (b && b->kind == B_VALUE && b->val.kind == VAL_MAT && b->val.frozen && is_vector(&b->val)) {
			struct value iv;
			long ca, cb;
			double k;
			if (eval_expr(ev, e->rhs, &iv))
				return -1;
			if (iv.kind != VAL_NUM)
				return -1;
			if (!ir_is_const(ev->prog, iv.reg, &k)) {
				if (!affine_in_index(ev->prog, ev->kern->index_reg, iv.reg, &ca, &cb, 0))
					return -1;
				out->kind = VAL_NUM;
				out->reg = eval_kernel_data(ev, b->val.km, (long)b->val.rows * b->val.cols, ca, cb, e->loc);
				return out->reg < 0 ? -1 : 0;
			}
		}
	}
	/* v[i] of a named vector of constants: its one entry.  The name
	 * alone gives every entry as a register of the program (eval_name),
	 * so that sum(i in 1..n) v[i] was quadratic: 2.6 s and 436 MB at
	 * n = 10⁴, for the idiom dyn(5) gives for a slice's sum */
	if (e->lhs->kind == AST_NAME) {
		struct binding *b = scope_lookup(ev->scope, e->lhs->name);
		if (b && b->kind == B_VALUE && b->val.kind == VAL_MAT && b->val.frozen && is_vector(&b->val)) {
			long i;
			int n = b->val.rows * b->val.cols;
			if (eval_int(ev, e->rhs, &i, "an index"))
				return -1;
			if (i < 1 || i > n)
				return eval_error(ev, e->rhs->loc, "index %ld is out of range 1..%d", i, n);
			out->kind = VAL_NUM;
			out->reg = ir_emit_const(ev->prog, b->val.km[i - 1], ir_loc_of(e->lhs->loc));
			return 0;
		}
	}
	if (eval_expr(ev, e->lhs, &base))
		return -1;
	long i;
	if (eval_int(ev, e->rhs, &i, "an index"))
		return -1;
	if (base.kind == VAL_HIST && base.ser.kind == SER_ENERGY && base.ser.index == 2) {
		/* r.dissipated[k]: the k-th term */
		int nterm = base.run->res->nterm;
		if (i < 1 || i > nterm)
			return eval_error(ev, e->rhs->loc, "run %s has %d dissipation term%s, not %ld", base.run->name,
			                  nterm, nterm == 1 ? "" : "s", i);
		*out = base;
		out->ser.kind = SER_DTERM;
		out->ser.index = (int)i - 1;
		out->ser.label = arena_printf(ev->a, "%s[%ld]", base.ser.label, i);
		return 0;
	}
	if (base.kind == VAL_HIST && base.ser.kind == SER_LAM && base.cols == -1) {
		const struct rt_result *rr = base.run->res;
		int tan = rr->nimpt > 0 && base.ser.index == rr->nlam - rr->nimpt;
		int imp = tan || base.ser.index > 0 || rr->nlam == rr->nimp + rr->nimpt;
		if (i < 1 || i > base.rows)
			return eval_error(ev, e->rhs->loc, "run %s has %d %s%s: %s[k] takes k in 1..%d, not %ld",
			                  base.run->name, base.rows, imp ? "contact" : "constraint", base.rows == 1 ? "" : "s",
			                  tan ? "impulse_t" : imp ? "impulse" : "lambda", base.rows, i);
		*out = base;
		out->ser.index = base.ser.index + (int)i - 1;
		out->rows = 1;
		out->cols = 0;
		out->ser.label = arena_printf(ev->a, "%s[%ld]", base.ser.label, i);
		return 0;
	}
	if (base.kind == VAL_HIST && (base.ser.kind == SER_DOF || base.ser.kind == SER_INT) && base.cols == -1) {
		/* x[k] names element k: of a field with fixed dofs, the space's
		 * dof k, not the k-th unknown (ir_dof_group_unknown) */
		const struct ir_model *m = base.run->plan->model;
		const struct ir_dof_list *l = base.ser.kind == SER_INT ? &m->intvars : &m->dofs;
		const struct ir_dof_group *g = ir_dof_group_of(l, base.ser.index);
		int unknown = -1;
		if (g->index) {
			unknown = ir_dof_group_unknown(g, i);
			if (unknown < 0 && i >= 1 && i <= ir_dof_group_extent(g))
				return eval_error(ev, e->rhs->loc, "%s[%ld] is fixed (eliminated): not a dof of run %s", g->name, i,
				                  base.run->name);
			if (unknown < 0)
				return eval_error(ev, e->rhs->loc, "index %ld is out of range 1..%d", i, ir_dof_group_extent(g));
		} else {
			if (i < 1 || i > base.rows)
				return eval_error(ev, e->rhs->loc, "index %ld is out of range 1..%d", i, base.rows);
			unknown = base.ser.index + (int)i - 1;
		}
		*out = base;
		out->ser.index = unknown;
		out->rows = 1;
		out->cols = 0;
		out->ser.label = arena_printf(ev->a, "%s[%ld]", base.ser.label, i);
		return 0;
	}
	if (base.kind != VAL_MAT || !is_vector(&base)) {
		if (base.kind == VAL_MAT)
			return eval_error(ev, e->loc, "a %dx%d matrix is indexed with [i, j] (row, column); [i] indexes vectors",
			                  base.rows, base.cols);
		return eval_error(ev, e->loc, "%s cannot be indexed", value_kind_name(&base));
	}
	int n = base.rows * base.cols;
	if (i < 1 || i > n)
		return eval_error(ev, e->rhs->loc, "index %ld is out of range 1..%d", i, n);
	out->kind = VAL_NUM;
	out->reg = base.m[i - 1];
	return 0;
}

/* A[i, j]: the entry in row i, column j (1-based) of a matrix; a vector
 * takes its one row or column index too (v[1, k] of a row, v[k, 1] of a
 * column), as it is a 1 x n or n x 1 matrix. */
static int eval_entry(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct value base;
	int direct = 0;
	/* A[i, j] of a named matrix of constants: its one entry, as v[i] */
	if (e->lhs->kind == AST_NAME) {
		struct binding *b = scope_lookup(ev->scope, e->lhs->name);
		if (b && b->kind == B_VALUE && b->val.kind == VAL_MAT && b->val.frozen) {
			base = b->val;
			direct = 1;
		}
	}
	if (!direct && eval_expr(ev, e->lhs, &base))
		return -1;
	if (base.kind != VAL_MAT)
		return eval_error(ev, e->loc, "%s cannot be indexed with [i, j]; only matrices are",
		                  value_kind_name(&base));
	long i, j;
	if (eval_int(ev, e->lo, &i, "a row index") || eval_int(ev, e->hi, &j, "a column index"))
		return -1;
	if (i < 1 || i > base.rows)
		return eval_error(ev, e->lo->loc, "row %ld is out of range 1..%d of a %dx%d matrix", i, base.rows,
		                  base.rows, base.cols);
	if (j < 1 || j > base.cols)
		return eval_error(ev, e->hi->loc, "column %ld is out of range 1..%d of a %dx%d matrix", j, base.cols,
		                  base.rows, base.cols);
	out->kind = VAL_NUM;
	out->reg = direct ? ir_emit_const(ev->prog, base.km[(i - 1) * base.cols + (j - 1)], ir_loc_of(e->lhs->loc))
	                  : base.m[(i - 1) * base.cols + (j - 1)];
	return 0;
}

static int eval_matrix(struct eval *ev, struct ast_expr *e, struct value *out)
{
	int rows = e->rows.n, cols = ((struct ast_vec *)e->rows.v[0])->n;
	for (int i = 1; i < rows; i++) {
		struct ast_vec *r = e->rows.v[i];
		if (r->n != cols)
			return eval_error(ev, ((struct ast_expr *)r->v[0])->loc,
			                  "row %d has %d element%s, row 1 has %d", i + 1, r->n,
			                  r->n == 1 ? "" : "s", cols);
	}
	*out = value_mat(ev, rows, cols);
	for (int i = 0; i < rows; i++) {
		struct ast_vec *r = e->rows.v[i];
		for (int j = 0; j < cols; j++) {
			struct value x;
			struct ast_expr *xe = r->v[j];
			if (eval_expr(ev, xe, &x))
				return -1;
			if (x.kind != VAL_NUM)
				return eval_error(ev, xe->loc, "a matrix element must be a number, not %s",
				                  value_kind_name(&x));
			out->m[i * cols + j] = x.reg;
		}
	}
	return 0;
}

/* sum(i in a..b) EXPR: unrolled at lowering; an empty range is 0. */
static int eval_sum(struct eval *ev, struct ast_expr *e, struct value *out)
{
	long lo, hi;
	if (eval_int(ev, e->lo, &lo, "a range bound") || eval_int(ev, e->hi, &hi, "a range bound"))
		return -1;
	struct scope *saved = ev->scope;
	ev->scope = scope_new(ev->a, saved);
	struct binding *b = arena_alloc(ev->a, sizeof *b);
	b->name = e->name;
	b->kind = B_VALUE;
	b->loc = e->loc;
	ev->scope->head = b;
	/* Outside a model, a sum of numbers known before any run (a
	 * script's own arithmetic) keeps its partial sum as a double while
	 * every term is one, and gives back the instructions each term
	 * emitted into the statement's program (ir_prog_truncate): they
	 * stayed there, and print sum(i in 1..10^7) 1 took 1.6 GB.  The
	 * additions are those the program folds, in the same order; a sum
	 * that turns infinite, or a term that is not such a number, goes on
	 * as before from there. */
	int held = !ev->mc && !ev->kern && !ev->fe;
	double kacc = 0;
	struct value acc = { 0 };
	if (!held)
		acc = value_num(ev, 0, e->loc);
	int rc = 0;
	for (long i = lo; i <= hi && rc == 0; i++) {
		int n0 = ev->prog->n;
		b->val = value_num(ev, (double)i, e->loc);
		struct value x, s;
		if ((rc = eval_interrupted(ev, e->loc)))
			break;
		rc = eval_expr(ev, e->lhs, &x);
		if (rc)
			break;
		double kx;
		if (held && x.kind == VAL_NUM && ir_is_const(ev->prog, x.reg, &kx) && isfinite(kacc + kx)) {
			kacc += kx;
			ir_prog_truncate(ev->prog, n0);
			continue;
		}
		if (held) {
			held = 0;
			if (x.kind == VAL_MAT && i == lo) {
				acc = x;
				continue;
			}
			acc = value_num(ev, kacc, e->loc);
		}
		if (acc.kind == VAL_NUM && x.kind == VAL_MAT && i == lo) {
			acc = x;
			continue;
		}
		rc = binary(ev, AST_OP_ADD, &acc, &x, e->loc, &s);
		if (rc == 0)
			acc = s;
	}
	ev->scope = saved;
	if (rc == 0)
		*out = held ? value_num(ev, kacc, e->loc) : acc;
	return rc;
}

static int eval_expr1(struct eval *ev, struct ast_expr *e, struct value *out);

/* s.period, s.sd, s.psv, s.psa of a spectrum: row vectors. */
static int spectrum_field(struct eval *ev, struct ast_expr *e, const struct spectrum_value *sp, struct value *out)
{
	static const char *const names[] = { "period", "sd", "psv", "psa" };
	const double *col[] = { sp->period, sp->sd, sp->psv, sp->psa };
	for (int f = 0; f < 4; f++) {
		if (strcmp(e->name, names[f]) != 0)
			continue;
		*out = value_mat(ev, 1, sp->n);
		for (int i = 0; i < sp->n; i++)
			out->m[i] = ir_emit_const(ev->prog, col[f][i], ir_loc_of(e->loc));
		return 0;
	}
	return eval_error(ev, e->loc, "a spectrum has no field '%s' (fields: period, sd, psv, psa)", e->name);
}

/* m.omega, m.f, m.period, m.gamma, m.meff, m.share (row vectors, one
 * entry per mode) and m.phi (n × k, the shapes as columns) of modes(). */
static int modes_field(struct eval *ev, struct ast_expr *e, const struct modes_value *mv, struct value *out)
{
	static const char *const names[] = { "omega", "f", "period", "gamma", "meff", "share" };
	const double *col[] = { mv->omega, mv->f, mv->period, mv->gamma, mv->meff, mv->share };
	for (int f = 0; f < 6; f++) {
		if (strcmp(e->name, names[f]) != 0)
			continue;
		/* the share is cumulative meff over d^T M d: of no value when
		 * the direction moves no mass (support ... along [0, 0]) */
		if (f == 5 && !(mv->total > 0))
			return eval_error(ev, e->loc, "the modes of %s have no share: the direction moves no mass "
			                  "(d^T M d = 0: support ... along a direction that is zero, on fixed dofs only, "
			                  "or so small that d^T M d underflows: scale it)", mv->model);
		*out = value_mat(ev, 1, mv->k);
		for (int i = 0; i < mv->k; i++)
			out->m[i] = ir_emit_const(ev->prog, col[f][i], ir_loc_of(e->loc));
		return 0;
	}
	if (strcmp(e->name, "total") == 0) {
		*out = value_num(ev, mv->total, e->loc);
		return 0;
	}
	if (strcmp(e->name, "phi") == 0) {
		*out = value_mat(ev, mv->n, mv->k);
		for (int i = 0; i < mv->n; i++)
			for (int j = 0; j < mv->k; j++)
				out->m[i * mv->k + j] = ir_emit_const(ev->prog, mv->phi[i + (size_t)j * mv->n], ir_loc_of(e->loc));
		return 0;
	}
	return eval_error(ev, e->loc, "modes have no field '%s' (fields: omega, f, period, phi, gamma, meff, share, "
	                  "total)", e->name);
}

/* The cases of eval_expr with values on the stack, kept out of its frame:
 * expressions nest as deep as they are long (1 + 1 + ... is left-deep), so
 * eval_expr's own frame must stay small. */
__attribute__((noinline))
static int eval_field(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct value base;
	if (eval_expr(ev, e->lhs, &base))
		return -1;
	if (base.kind == VAL_SPECTRUM)
		return spectrum_field(ev, e, base.spec, out);
	if (base.kind == VAL_MODES)
		return modes_field(ev, e, base.modes, out);
	if (base.kind != VAL_RUN)
		return eval_error(ev, e->loc, "only runs, spectra and modes have fields (r.u, s.psa, md.omega); this is %s",
		                  value_kind_name(&base));
	return run_field(ev, e, base.run, e->lhs->kind == AST_NAME ? e->lhs->name : base.run->name, out);
}

__attribute__((noinline))
static int eval_unary(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct value x;
	if (eval_expr(ev, e->lhs, &x))
		return -1;
	enum ir_op op = e->op == AST_OP_NEG ? IR_NEG : IR_NOT;
	if (x.kind == VAL_NUM) {
		out->kind = VAL_NUM;
		return emit_checked(ev, op, x.reg, 0, 0, e->loc, &out->reg);
	}
	if (x.kind == VAL_MAT && op == IR_NEG) {
		*out = value_mat(ev, x.rows, x.cols);
		for (int i = 0; i < x.rows * x.cols; i++)
			out->m[i] = ir_emit(ev->prog, IR_NEG, x.m[i], 0, 0, ir_loc_of(e->loc));
		return 0;
	}
	return eval_error(ev, e->loc, "'%s' needs a number, not %s", ast_op_text[e->op], value_kind_name(&x));
}

__attribute__((noinline))
static int eval_binary(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct value l, r;
	if (eval_expr(ev, e->lhs, &l) || eval_expr(ev, e->rhs, &r))
		return -1;
	return binary(ev, e->op, &l, &r, e->loc, out);
}

__attribute__((noinline))
static int eval_if(struct eval *ev, struct ast_expr *e, struct value *out)
{
	struct value c, a, b;
	if (eval_expr(ev, e->cond, &c))
		return -1;
	if (c.kind != VAL_NUM)
		return eval_error(ev, e->cond->loc, "the condition must be a number, not %s", value_kind_name(&c));
	double k;
	if (ir_is_const(ev->prog, c.reg, &k))
		return eval_expr(ev, k != 0 ? e->lhs : e->rhs, out);
	if (eval_expr(ev, e->lhs, &a) || eval_expr(ev, e->rhs, &b))
		return -1;
	if (a.kind != VAL_NUM || b.kind != VAL_NUM)
		return eval_error(ev, e->loc, "both branches of a time-dependent 'if' must be numbers");
	out->kind = VAL_NUM;
	out->reg = ir_emit(ev->prog, IR_SELECT, c.reg, a.reg, b.reg, ir_loc_of(e->loc));
	return 0;
}

int eval_expr(struct eval *ev, struct ast_expr *e, struct value *out)
{
	memset(out, 0, sizeof *out);
	/* the C stack (256 MB, lang/main.c) bounds the depth: about 600
	 * bytes a level, several times that in instrumented builds */
	if (ev->nesting > 5000)
		return eval_error(ev, e->loc, "expression nested too deeply (more than 5000 levels): "
		                  "use sum(i in a..b) for long sums");
	ev->nesting++;
	int rc = eval_expr1(ev, e, out);
	ev->nesting--;
	return rc;
}

static int eval_expr1(struct eval *ev, struct ast_expr *e, struct value *out)
{
	switch (e->kind) {
	case AST_NUM:
		*out = value_num(ev, e->num, e->loc);
		return 0;
	case AST_STR:
		out->kind = VAL_STR;
		out->str = e->str;
		return 0;
	case AST_NAME:
		return eval_name(ev, e, out);
	case AST_PRIME:
		return eval_prime(ev, e, out);
	case AST_UNARY:
		return eval_unary(ev, e, out);
	case AST_BINARY:
		return eval_binary(ev, e, out);
	case AST_IF:
		return eval_if(ev, e, out);
	case AST_CALL:
		return eval_call(ev, e, out);
	case AST_INDEX:
		return eval_index(ev, e, out);
	case AST_ENTRY:
		return eval_entry(ev, e, out);
	case AST_FIELD:
		return eval_field(ev, e, out);
	case AST_MATRIX:
		return eval_matrix(ev, e, out);
	case AST_SUM:
		return eval_sum(ev, e, out);
	case AST_RUN:
		return run_exec(ev, e->run, "run", out);
	case AST_PAIR:
		return eval_error(ev, e->loc, "unexpected pair here");
	case AST_RANGE:
		return eval_error(ev, e->loc, "a range a..b is the argument of a history's slice, as r.u(0..10 step 1)");
	}
	return eval_error(ev, e->loc, "cannot evaluate this expression");
}

int eval_number(struct eval *ev, struct ast_expr *e, double *out, const char *what)
{
	struct value v;
	if (eval_expr(ev, e, &v))
		return -1;
	if (v.kind == VAL_MAT && v.rows == 1 && v.cols == 1)
		/* a row times a column: [1, 0, 0]*p */
		return eval_error(ev, e->loc, "%s must be a number, not a 1 x 1 matrix: take its entry, X[1]", what);
	if (v.kind != VAL_NUM)
		return eval_error(ev, e->loc, "%s must be a number, not %s", what, value_kind_name(&v));
	if (!ir_is_const(ev->prog, v.reg, out))
		return eval_error(ev, e->loc, "%s must be constant", what);
	return 0;
}

int eval_int(struct eval *ev, struct ast_expr *e, long *out, const char *what)
{
	double x;
	if (eval_number(ev, e, &x, what))
		return -1;
	if (x != floor(x))
		return eval_error(ev, e->loc, "%s must be a whole number", what);
	if (fabs(x) > 1e9)
		return eval_error(ev, e->loc, "%s must be a whole number of at most 10^9 in size, not %.15g", what, x);
	*out = (long)x;
	return 0;
}

int eval_string(struct eval *ev, struct ast_expr *e, const char **out, const char *what)
{
	struct value v;
	if (eval_expr(ev, e, &v))
		return -1;
	if (v.kind != VAL_STR)
		return eval_error(ev, e->loc, "%s must be a string, not %s", what, value_kind_name(&v));
	*out = v.str;
	return 0;
}
