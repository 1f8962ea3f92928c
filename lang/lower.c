/* lower.c — from a model and a run statement to the IR the runtime
 * executes (DESIGN.md, "Architecture").
 *
 * Operators (mass, damping, stiffness) must fold to constant matrices;
 * loads and support accelerations become programs of t; record expressions
 * programs of t and the state.  The time grid, the solver storage (dense or
 * banded, from the sparsity pattern) and the scheme's numeric parameters
 * are all decided here, once, so that nothing is interpreted per step.
 */
#include <config.h>

#include "fe.h"
#include "fe_assemble.h"
#include "interp.h"
#include "la.h"
#include "mtx.h"
#include "outfile.h"
#include "scheme.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- scheme families (DESIGN.md, "Schemes") ---- */

static int family_args(struct eval *ev, struct ast_expr *e, int fam, struct ir_scheme *out)
{
	const struct ir_family_info *f = &ir_family_info[fam];
	int set[4] = { 0 };
	for (int i = 0; i < f->nparam; i++)
		out->p[i] = f->dflt[i];
	int nargs = e->kind == AST_CALL ? e->args.n : 0;
	for (int i = 0; i < nargs; i++) {
		struct ast_arg *g = e->args.v[i];
		int slot = i;
		if (g->name) {
			slot = -1;
			for (int j = 0; j < f->nparam; j++)
				if (strcmp(f->param[j], g->name) == 0)
					slot = j;
			if (slot < 0) {
				if (f->nparam == 0)
					return eval_error(ev, g->loc, "%s has no parameters", f->name);
				char list[128] = "";
				size_t len = 0;
				for (int j = 0; j < f->nparam; j++)
					len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", f->param[j]);
				return eval_error(ev, g->loc, "%s has no parameter '%s' (parameters: %s)", f->name, g->name, list);
			}
		} else if (slot >= f->nparam) {
			return eval_error(ev, g->loc, "%s takes %d parameter%s, %d given", f->name, f->nparam,
			                  f->nparam == 1 ? "" : "s", nargs);
		}
		if (set[slot])
			return eval_error(ev, g->loc, "parameter %s of %s is given twice", f->param[slot], f->name);
		set[slot] = 1;
		if (eval_number(ev, g->value, &out->p[slot], "a scheme parameter"))
			return -1;
	}
	out->family = (enum ir_family)fam;
	/* the ranges are the family's own (runtime/scheme_*.c) */
	char msg[256];
	if (scheme_check_params(out->family, out->p, msg, sizeof msg))
		return eval_error(ev, e->loc, "%s", msg);
	return 0;
}

/* A scheme expression: NAME or NAME(args), naming a family or a scheme
 * declared in the language (scheme NAME(params) = ... require COND). */
static int resolve_scheme(struct eval *ev, struct ast_expr *e, struct ir_scheme *out, int depth)
{
	struct ast_expr *callee = e->kind == AST_CALL ? e->lhs : e;
	if (callee->kind != AST_NAME)
		return eval_error(ev, e->loc, "a scheme is a name, e.g. newmark(beta = 1/4, gamma = 1/2)");
	if (depth > 16)
		return eval_error(ev, e->loc, "scheme definitions nested too deeply");
	const char *name = callee->name;
	struct binding *b = scope_lookup(ev->scope, name);
	if (!b) {
		int f = ir_family_find(name);
		if (f >= 0)
			return family_args(ev, e, f, out);
		char list[1024];
		size_t n = 0;
		const char *cand[IR_NFAMILY + 64];
		int nc = 0;
		for (int i = 0; i < IR_NFAMILY; i++) {
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", ir_family_info[i].name);
			cand[nc++] = ir_family_info[i].name;
		}
		/* then the declared schemes, alphabetically */
		const char *prev = "";
		for (;;) {
			const char *next = NULL;
			for (struct binding *x = ev->s->globals->head; x; x = x->next)
				if (x->kind == B_SCHEME && strcmp(x->name, prev) > 0 && (!next || strcmp(x->name, next) < 0))
					next = x->name;
			if (!next || n >= sizeof list - 64)
				break;
			n += (size_t)snprintf(list + n, sizeof list - n, ", %s", next);
			if (nc < (int)(sizeof cand / sizeof cand[0]))
				cand[nc++] = next;
			prev = next;
		}
		const char *close = name_closest(name, cand, nc);
		if (close)
			return eval_error(ev, callee->loc, "unknown scheme '%s'; did you mean '%s'?", name, close);
		return eval_error(ev, callee->loc, "unknown scheme '%s' (schemes: %s)", name, list);
	}
	if (b->kind != B_SCHEME && ir_family_find(name) >= 0)
		return eval_error(ev, callee->loc, "'%s' is not a scheme here: a name of the script hides the family "
		                  "%s; rename it", name, name);
	if (b->kind != B_SCHEME)
		return eval_error(ev, callee->loc, "'%s' is not a scheme", name);

	struct ast_stmt *def = b->stmt;
	int nargs = e->kind == AST_CALL ? e->args.n : 0;
	struct value *vals = arena_alloc(ev->a, sizeof *vals * (size_t)(def->params.n + 1));
	int *set = arena_alloc(ev->a, sizeof(int) * (size_t)(def->params.n + 1));
	for (int i = 0; i < nargs; i++) {
		struct ast_arg *g = e->args.v[i];
		int slot = i;
		if (g->name) {
			slot = -1;
			for (int j = 0; j < def->params.n; j++)
				if (strcmp(((struct ast_arg *)def->params.v[j])->name, g->name) == 0)
					slot = j;
			if (slot < 0)
				return eval_error(ev, g->loc, "scheme %s has no parameter '%s'", name, g->name);
		} else if (slot >= def->params.n) {
			return eval_error(ev, g->loc, "scheme %s takes %d parameter%s, %d given", name,
			                  def->params.n, def->params.n == 1 ? "" : "s", nargs);
		}
		if (set[slot])
			return eval_error(ev, g->loc, "parameter %s of %s is given twice", ((struct ast_arg *)def->params.v[slot])->name, name);
		set[slot] = 1;
		if (eval_expr(ev, g->value, &vals[slot]) || value_freeze(ev, &vals[slot], g->value->loc, "a scheme parameter"))
			return -1;
	}
	for (int j = 0; j < def->params.n; j++)
		if (!set[j])
			return eval_error(ev, e->loc, "scheme %s needs parameter %s", name,
			                  ((struct ast_arg *)def->params.v[j])->name);

	struct scope *saved = ev->scope;
	ev->scope = scope_new(ev->a, ev->s->globals);
	for (int j = 0; j < def->params.n; j++) {
		struct ast_arg *p = def->params.v[j];
		struct binding *pb = arena_alloc(ev->a, sizeof *pb);
		pb->name = p->name;
		pb->kind = B_VALUE;
		pb->val = vals[j];
		pb->loc = p->loc;
		pb->next = ev->scope->head;
		ev->scope->head = pb;
	}
	int rc = 0;
	if (def->cond) {
		double ok;
		rc = eval_number(ev, def->cond, &ok, "a scheme requirement");
		if (rc == 0 && ok == 0) {
			char args[256] = "";
			size_t n = 0;
			for (int j = 0; j < def->params.n && n < sizeof args - 48; j++) {
				char num[32];
				value_format_num(vals[j].k, num);
				n += (size_t)snprintf(args + n, sizeof args - n, "%s%s = %s", j ? ", " : "",
				                      ((struct ast_arg *)def->params.v[j])->name,
				                      vals[j].kind == VAL_NUM ? num : "...");
			}
			rc = eval_error(ev, e->loc, "%s(%s) does not meet the scheme's requirement", name, args);
			diag_note(ev->d, def->cond->loc, "%s requires this", name);
		}
	}
	if (rc == 0)
		rc = resolve_scheme(ev, def->value, out, depth + 1);
	ev->scope = saved;
	return rc;
}

/* A scheme expression as an IR scheme (for spectral_radius and runs). */
int lower_scheme(struct eval *ev, struct ast_expr *e, struct ir_scheme *out)
{
	memset(out, 0, sizeof *out);
	if (resolve_scheme(ev, e, out, 0))
		return -1;
	struct ast_expr *sn = e->kind == AST_CALL ? e->lhs : e;
	out->name = sn->kind == AST_NAME ? sn->name : "scheme";
	out->loc = ir_loc_of(e->loc);
	return 0;
}

/* ---- models ---- */

/* A constant n×n matrix (column-major) from a value: a scalar s means s·I. */
static int to_matrix(struct eval *ev, struct value *v, int n, struct loc loc, const char *what, double **out)
{
	double *a = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
	if (v->kind == VAL_NUM) {
		double k;
		if (!value_const(ev, v, 0, &k))
			return eval_error(ev, loc, "%s must be constant", what);
		for (int i = 0; i < n; i++)
			a[i + (size_t)i * n] = k;
	} else if (v->kind == VAL_MAT && v->rows == n && v->cols == n) {
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				double k;
				if (!value_const(ev, v, i * n + j, &k))
					return eval_error(ev, loc, "%s must be constant: entry (%d, %d) depends on t", what, i + 1, j + 1);
				if (!isfinite(k))
					return eval_error(ev, loc, "%s entry (%d, %d) is not finite", what, i + 1, j + 1);
				a[i + (size_t)j * n] = k;
			}
	} else if (v->kind == VAL_MAT) {
		if ((v->rows == 1 || v->cols == 1) && v->rows * v->cols == n && n > 1)
			return eval_error(ev, loc, "%s must be a %dx%d matrix, not a vector of %d (use diag(...) for a diagonal matrix)",
			                  what, n, n, n);
		return eval_error(ev, loc, "%s must be a %dx%d matrix (the model has %d dof%s), not %dx%d",
		                  what, n, n, n, n == 1 ? "" : "s", v->rows, v->cols);
	} else {
		return eval_error(ev, loc, "%s must be a matrix, not %s", what, value_kind_name(v));
	}
	*out = a;
	return 0;
}

/* A value as n registers (a vector of n, or a scalar when n == 1). */
static int to_vector(struct eval *ev, struct value *v, int n, struct loc loc, const char *what, int **out)
{
	if (v->kind == VAL_NUM && n == 1) {
		*out = arena_alloc(ev->a, sizeof(int));
		(*out)[0] = v->reg;
		return 0;
	}
	if (v->kind == VAL_MAT && (v->rows == 1 || v->cols == 1) && v->rows * v->cols == n) {
		*out = v->m;
		return 0;
	}
	if (v->kind == VAL_NUM)
		return eval_error(ev, loc, "%s must be a vector of %d, not a number", what, n);
	if (v->kind == VAL_MAT)
		return eval_error(ev, loc, "%s must be a vector of %d, not %dx%d", what, n, v->rows, v->cols);
	return eval_error(ev, loc, "%s must be a vector of %d, not %s", what, n, value_kind_name(v));
}

/* The dofs a target names: u, x (all of a vector), x[i]. */
static int target_dofs(struct eval *ev, struct ast_expr *e, int *first, int *count, int *primes, int *internal)
{
	*primes = 0;
	if (e->kind == AST_PRIME) {
		*primes = e->primes;
		e = e->lhs;
	}
	struct ast_expr *name = e->kind == AST_INDEX ? e->lhs : e;
	if (name->kind != AST_NAME)
		return eval_error(ev, e->loc, "expected a dof name (u, x or x[i])");
	struct binding *b = scope_lookup(ev->scope, name->name);
	if (!b || b->kind != B_DOF)
		return eval_error(ev, name->loc, "'%s' is not a dof or internal variable of this model", name->name);
	const struct dof_group *g = b->group;
	*internal = g->internal;
	if (e->kind == AST_INDEX) {
		if (g->field)
			return eval_error(ev, e->loc, "%s is a field, not a vector of dofs: name it whole or at points "
			                  "(init %s = an expression of x, force %s on REGION: ..., %s at (...)), not by "
			                  "index", g->name, g->name, g->name, g->name);
		if (!g->vector)
			return eval_error(ev, e->loc, "%s is not a vector", g->name);
		long i;
		if (eval_int(ev, e->rhs, &i, "an index"))
			return -1;
		if (i < 1 || i > g->size)
			return eval_error(ev, e->rhs->loc, "index %ld is out of range 1..%d of %s", i, g->size, g->name);
		*first = g->first + (int)i - 1;
		*count = 1;
	} else {
		*first = g->first;
		*count = g->size;
	}
	return 0;
}

struct ir_dof_group *lower_dof_group(struct eval *ev, struct model_ctx *mc, int internal, int *cap)
{
	struct ir_dof_list *l = internal ? &mc->m->intvars : &mc->m->dofs;
	if (l->ngroup == *cap) {
		int ncap = *cap ? 2 * *cap : 4;
		l->group = arena_regrow(ev->a, l->group, sizeof *l->group * (size_t)*cap, sizeof *l->group * (size_t)ncap);
		*cap = ncap;
	}
	struct ir_dof_group *g = &l->group[l->ngroup++];
	memset(g, 0, sizeof *g);
	g->first = internal ? mc->m->nint : mc->m->ndof;
	return g;
}

static int declare_dofs(struct eval *ev, struct ast_item *it, struct model_ctx *mc, int *cap, int internal)
{
	int *count = internal ? &mc->m->nint : &mc->m->ndof;
	for (int k = 0; k < it->names.n; k++) {
		struct ast_expr *d = it->names.v[k];
		struct ast_expr *nm = d->kind == AST_INDEX ? d->lhs : d;
		long size = 1;
		if (d->kind == AST_INDEX) {
			double x;
			if (eval_number(ev, d->rhs, &x, "the size of a dof vector"))
				return -1;
			if (x != floor(x))
				return eval_error(ev, d->rhs->loc, "the size of a dof vector must be a whole number");
			if (x < 1 || x > 1e7)
				return eval_error(ev, d->rhs->loc, "the size of vector %s must be from 1 to 10^7, not %.15g",
				                  nm->name, x);
			size = (long)x;
		}
		struct binding *b = scope_bind(ev, nm->name, B_DOF, nm->loc);
		if (!b)
			return -1;
		struct dof_group *g = arena_alloc(ev->a, sizeof *g);
		g->name = nm->name;
		g->first = *count;
		g->size = (int)size;
		g->vector = d->kind == AST_INDEX;
		g->internal = internal;
		g->loc = nm->loc;
		b->group = g;
		struct ir_dof_group *dg = lower_dof_group(ev, mc, internal, cap);
		dg->name = nm->name;
		dg->size = (int)size;
		dg->vector = g->vector;
		dg->loc = ir_loc_of(nm->loc);
		*count += (int)size;
	}
	return 0;
}

int model_param_names(struct arena *a, const struct ast_model *m, const char ***names)
{
	int n = 0;
	for (int i = 0; i < m->items.n; i++) {
		const struct ast_item *it = m->items.v[i];
		if (it->kind == AST_ITEM_PARAM)
			n += it->defs.n;
	}
	*names = arena_alloc(a, sizeof **names * (size_t)(n + 1));
	n = 0;
	for (int i = 0; i < m->items.n; i++) {
		const struct ast_item *it = m->items.v[i];
		if (it->kind == AST_ITEM_PARAM)
			for (int k = 0; k < it->defs.n; k++)
				(*names)[n++] = ((const struct ast_arg *)it->defs.v[k])->name;
	}
	return n;
}

int run_overrides_check(struct diag *d, struct arena *a, const struct ast_model *m, const struct ast_run *r,
                        int (*script_value)(void *ctx, const char *name), void *ctx)
{
	const char **names;
	int n = model_param_names(a, m, &names), errors = 0;
	for (int i = 0; i < r->overrides.n; i++) {
		const struct ast_arg *o = r->overrides.v[i];
		int dup = 0;
		for (int j = 0; j < i && !dup; j++)
			dup = strcmp(((const struct ast_arg *)r->overrides.v[j])->name, o->name) == 0;
		if (dup) {
			diag_error(d, o->loc, "parameter '%s' is given twice", o->name);
			errors++;
			continue;
		}
		int found = 0;
		for (int j = 0; j < n && !found; j++)
			found = strcmp(names[j], o->name) == 0;
		if (found)
			continue;
		errors++;
		if (script_value && script_value(ctx, o->name)) {
			/* a value of the script that the model reads: a run
			 * would change it for the model alone, not for the lets
			 * and functions computed from it */
			diag_error(d, o->loc, "model %s has no parameter '%s': %s is the script's, and a run overrides the "
			           "model's own parameters only (declare it in the model, param %s = ..., or give it with "
			           "dyn --set %s=...)", m->name, o->name, o->name, o->name, o->name);
			continue;
		}
		const char *close = name_closest(o->name, names, n);
		if (close) {
			diag_error(d, o->loc, "model %s has no parameter '%s'; did you mean '%s'?", m->name, o->name, close);
			continue;
		}
		char list[512] = "";
		size_t len = 0;
		for (int j = 0; j < n && len < sizeof list - 80; j++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", names[j]);
		if (n)
			diag_error(d, o->loc, "model %s has no parameter '%s' (its parameters: %s)", m->name, o->name, list);
		else
			diag_error(d, o->loc, "model %s has no parameter '%s': it declares none (with 'param NAME = VALUE')",
			           m->name, o->name);
	}
	return errors;
}

static int bind_param(struct eval *ev, struct ast_arg *def, const char *model)
{
	struct value v;
	int over = -1;
	for (int i = 0; ev->overrides && i < ev->overrides->n && over < 0; i++)
		if (strcmp(((struct ast_arg *)ev->overrides->v[i])->name, def->name) == 0)
			over = i;
	/* run MODEL(p = v): the run's value replaces the declared one, and
	 * --set MODEL.p too; the parameters after it see it */
	if (over >= 0)
		v = ev->override_val[over];
	else if (eval_expr(ev, def->value, &v) || value_freeze(ev, &v, def->value->loc, "a parameter"))
		return -1;
	const char *full = model ? arena_printf(ev->a, "%s.%s", model, def->name) : def->name;
	for (int i = 0; i < ev->s->nset && over < 0; i++) {
		if (strcmp(ev->s->set[i].name, full) == 0) {
			if (v.kind != VAL_NUM)
				return eval_error(ev, def->loc, "--set %s: parameter %s is %s, not a number", full, full,
				                  value_kind_name(&v));
			v.k = ev->s->set[i].value;
			ev->s->set[i].used = 1;
		}
	}
	struct binding *b = scope_bind(ev, def->name, B_VALUE, def->loc);
	if (!b)
		return -1;
	b->val = v;
	b->is_param = 1;
	return 0;
}

struct band {
	int kl, ku;
};

static void band_entry(void *ctx, int i, int j, double v)
{
	struct band *b = ctx;
	if (v != 0) {
		if (i - j > b->kl)
			b->kl = i - j;
		if (j - i > b->ku)
			b->ku = j - i;
	}
}

static void bandwidth(int n, const struct ir_matrix *m, int *kl, int *ku)
{
	const double *a = m->a;
	if (!a) {
		/* an operator kept as its entries (beyond IR_FOLD_DENSE_MAX dofs) */
		struct band b = { *kl, *ku };
		ir_matrix_each(m, band_entry, &b);
		*kl = b.kl;
		*ku = b.ku;
		return;
	}
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			if (a[i + (size_t)j * n] != 0) {
				if (i - j > *kl)
					*kl = i - j;
				if (j - i > *ku)
					*ku = j - i;
			}
}

static struct ir_prog *new_prog(struct eval *ev)
{
	return ir_prog_new(ev->a);
}

/* mass mtx("M.mtx"): an operator read from a Matrix Market file, whose
 * path is relative to the script's folder as for table().  The reader
 * gives compressed columns; up to IR_FOLD_DENSE_MAX dofs the operator is
 * expanded dense, as a folded energy, above it stays as its entries, which
 * the runtime's matrix layer stores banded or sparse (and copies dense for
 * what needs dense operators, problem_dense). */
static int file_operator(struct eval *ev, struct model_ctx *mc, struct ast_expr *call, const char *what,
                         struct ir_matrix *out)
{
	int n = mc->m->ndof;
	const char *path;
	struct mtx_csc a;
	char err[512];

	if (call->args.n != 1)
		return eval_error(ev, call->loc, "mtx takes 1 argument (\"file.mtx\"), %d given", call->args.n);
	if (eval_string(ev, ((struct ast_arg *)call->args.v[0])->value, &path, "the file name"))
		return -1;
	const char *full = path_join(ev->a, mc->script_dir, path);
	char name[256];
	if (mtx_read(full, &a, err, sizeof err))
		return eval_error(ev, call->loc, "%s: %s", what, err);
	session_add_data_input(ev->s, full);
	rt_escape(name, sizeof name, full);
	int status = 0;
	if (a.pattern)
		status = eval_error(ev, call->loc, "%s: '%s' is a pattern file: it says where the entries are, "
		                    "not their values", what, name);
	else if (a.nrow != n || a.ncol != n)
		status = eval_error(ev, call->loc, "%s: '%s' is a %d x %d matrix, the model has %d dof%s",
		                    what, name, a.nrow, a.ncol, n, n == 1 ? "" : "s");
	else if (n > IR_FOLD_DENSE_MAX && a.colptr[n] > INT32_MAX)
		status = eval_error(ev, call->loc, "%s: '%s' has %ld entries: at most %d are taken",
		                    what, name, (long)a.colptr[n], (int)INT32_MAX);
	if (status) {
		mtx_free(&a);
		return status;
	}
	if (n > IR_FOLD_DENSE_MAX) {
		/* an empty file still declares the operator: one explicit
		 * zero keeps it declared (a zero mass is then refused as not
		 * positive definite, as a dense one) */
		int nnz = a.colptr[n] > 0 ? (int)a.colptr[n] : 1;
		out->nnz = nnz;
		out->arena = ev->a;   /* the runtime releases them (ir_matrix_release) */
		out->row = arena_alloc(ev->a, sizeof(int) * ((size_t)nnz + 1));
		out->col = arena_alloc(ev->a, sizeof(int) * ((size_t)nnz + 1));
		out->val = arena_alloc(ev->a, sizeof(double) * ((size_t)nnz + 1));
		for (int j = 0; j < n; j++)
			for (long k = a.colptr[j]; k < a.colptr[j + 1]; k++) {
				out->row[k] = (int)a.rowind[k];
				out->col[k] = j;
				out->val[k] = a.val[k];
			}
		if (a.colptr[n] == 0)
			out->row[0] = out->col[0] = 0, out->val[0] = 0;
		mtx_free(&a);
		return 0;
	}
	double *d = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
	for (int j = 0; j < n; j++)
		for (long k = a.colptr[j]; k < a.colptr[j + 1]; k++)
			d[a.rowind[k] + (size_t)j * n] = a.val[k];
	mtx_free(&a);
	out->a = d;
	return 0;
}

static int is_mtx_call(struct eval *ev, const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->lhs->kind == AST_NAME && strcmp(e->lhs->name, "mtx") == 0 &&
	       !scope_lookup(ev->scope, e->lhs->name);
}

/* Whether a field's unknowns are numbered by its nodes (lang/fe.c: on
 * several processes, a mesh numbered wide), so that the model's i-th
 * dof in the order of the names is not unknown i */
static int names_renumbered(const struct ir_model *m)
{
	for (int g = 0; g < m->dofs.ngroup; g++)
		if (m->dofs.group[g].by_name)
			return 1;
	return 0;
}

/* The unknown of the model's i-th dof in the order of the names (its
 * groups in order, a field's elements by name): what entry i of a vector
 * or a matrix of all the dofs (force VECTOR, support along VECTOR, mass
 * MATRIX, mtx("M.mtx")) is stated for */
static int name_unknown(const struct ir_model *m, int i)
{
	const struct ir_dof_group *g = m->dofs.ngroup ? ir_dof_group_of(&m->dofs, i) : NULL;
	return g && i - g->first < g->size ? ir_dof_group_nth(g, i - g->first) : i;
}

/* An operator's rows and columns from the order of the names to the
 * unknowns' (names_renumbered) */
static void operator_to_unknowns(struct eval *ev, const struct ir_model *m, struct ir_matrix *A)
{
	int n = m->ndof;
	if (A->a) {
		double *b = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				b[name_unknown(m, i) + (size_t)name_unknown(m, j) * n] = A->a[i + (size_t)j * n];
		A->a = b;
		return;
	}
	for (int k = 0; k < A->nnz; k++) {
		A->row[k] = name_unknown(m, A->row[k]);
		A->col[k] = name_unknown(m, A->col[k]);
	}
}

/* Evaluate an operator declaration into a constant matrix. */
static int operator(struct eval *ev, struct model_ctx *mc, struct ast_item *it, const char *what,
                    struct ir_matrix *out)
{
	if (out->a || ir_matrix_has_entries(out))
		return eval_error(ev, it->loc, "%s is declared twice", what);
	struct value v;
	mc->what = what;
	mc->allow_t = mc->allow_state = 0;
	ev->prog = new_prog(ev);
	int n = mc->m->ndof;
	if (is_mtx_call(ev, it->value)) {
		if (file_operator(ev, mc, it->value, what, out))
			return -1;
	} else if (eval_expr(ev, it->value, &v)) {
		return -1;
	} else if (v.kind == VAL_NUM && n > IR_FOLD_DENSE_MAX) {
		/* a number k is k I: beyond the dense operators its n
		 * diagonal entries, not an n × n array (20 000 dofs: 3.2 GB) */
		double k;
		if (!value_const(ev, &v, 0, &k))
			return eval_error(ev, it->value->loc, "%s must be constant", what);
		out->row = arena_alloc(ev->a, sizeof(int) * (size_t)n);
		out->col = arena_alloc(ev->a, sizeof(int) * (size_t)n);
		out->val = arena_alloc(ev->a, sizeof(double) * (size_t)n);
		for (int i = 0; i < n; i++) {
			out->row[i] = out->col[i] = i;
			out->val[i] = k;
		}
		out->nnz = n;
	} else if (to_matrix(ev, &v, n, it->value->loc, what, &out->a)) {
		return -1;
	}
	if (names_renumbered(mc->m))
		operator_to_unknowns(ev, mc->m, out);
	out->loc = ir_loc_of(it->loc);
	return 0;
}

/* rayleigh(a0, a1) on operators held as entries: theirs, scaled, written
 * out in their order. */
struct scaled_copy {
	int *row, *col;
	double *val;
	long k;
	double scale;
};

static void scaled_entry(void *ctx, int i, int j, double v)
{
	struct scaled_copy *c = ctx;
	c->row[c->k] = i;
	c->col[c->k] = j;
	c->val[c->k++] = c->scale * v;
}

/* The entries of s A (its nonzeros when it is dense) written into out's
 * row, col and val from entry k on; returns how many (out NULL: only
 * counts them). */
static long scaled_entries(const struct ir_matrix *A, int n, double s, struct ir_matrix *out, long k)
{
	long k0 = k;
	if (!A->a) {
		if (!out)
			return ir_matrix_count(A);
		struct scaled_copy c = { out->row, out->col, out->val, k, s };
		ir_matrix_each(A, scaled_entry, &c);
		return c.k - k0;
	}
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			if (A->a[i + (size_t)j * n] != 0) {
				if (out) {
					out->row[k] = i;
					out->col[k] = j;
					out->val[k] = s * A->a[i + (size_t)j * n];
				}
				k++;
			}
	return k - k0;
}

static int damping(struct eval *ev, struct model_ctx *mc, struct ast_item *it)
{
	struct ir_model *m = mc->m;
	struct ast_expr *e = it->value;
	if (m->damping_kind != IR_DAMP_NONE)
		return eval_error(ev, it->loc, "damping is declared twice");
	m->damping.loc = ir_loc_of(it->loc);
	if (e->kind == AST_CALL && e->lhs->kind == AST_NAME && !scope_lookup(ev->scope, e->lhs->name)) {
		const char *law = e->lhs->name;
		int n = m->ndof;
		mc->what = "damping";
		mc->allow_t = mc->allow_state = 0;
		ev->prog = new_prog(ev);
		if (strcmp(law, "rayleigh") == 0) {
			/* C = a0 M + a1 K */
			double a0, a1;
			if (e->args.n != 2)
				return eval_error(ev, e->loc, "rayleigh takes 2 arguments (a0, a1): C = a0 M + a1 K");
			if (eval_number(ev, ((struct ast_arg *)e->args.v[0])->value, &a0, "a0") ||
			    eval_number(ev, ((struct ast_arg *)e->args.v[1])->value, &a1, "a1"))
				return -1;
			/* K is the stiffness matrix: declared, or the potential's
			 * when it folded into one; a potential that did not (not
			 * quadratic, or with internal variables) left K = 0, and
			 * a1 K silently nothing.  Beside a declared stiffness K
			 * is that stiffness alone (dyn(5): a Duffing spring's
			 * linear part damped, its quartic term not) */
			if (a1 != 0 && !mc->stiffness_declared && m->potential)
				return eval_error(ev, ((struct ast_arg *)e->args.v[1])->loc, "rayleigh(a0, a1) takes K from a "
				                  "constant stiffness, and the potential of model %s is not one (not quadratic "
				                  "with constant coefficients, or with internal variables): state the damping "
				                  "as a dissipation instead", m->name);
			/* likewise M: with a kinetic energy whose mass depends on
			 * u, m->mass holds only its constant part (zeros when
			 * all of it depends on u), and a0 M would silently drop
			 * the rest */
			if (a0 != 0 && m->kinetic)
				return eval_error(ev, ((struct ast_arg *)e->args.v[0])->loc, "rayleigh(a0, a1) takes M from a "
				                  "constant mass, and the mass of model %s depends on u: state the damping as "
				                  "a dissipation instead", m->name);
			if (ir_matrix_has_entries(&m->mass) || ir_matrix_has_entries(&m->stiffness)) {
				/* an operator held as entries (the other may be
				 * dense: a declared matrix beside a folded energy):
				 * C's entries are theirs, scaled (duplicates are
				 * summed later); a term scaled by 0 is left out,
				 * so that rayleigh(a0, 0) on a lumped mass is
				 * diagonal by pattern, its explicit step a division
				 * (M's entries kept when both are 0: C is then
				 * zero on M's pattern) */
				const struct ir_matrix *mm = a0 != 0 || a1 == 0 ? &m->mass : NULL;
				const struct ir_matrix *kk = a1 != 0 ? &m->stiffness : NULL;
				long nnz = (mm ? scaled_entries(mm, n, a0, NULL, 0) : 0) +
				           (kk ? scaled_entries(kk, n, a1, NULL, 0) : 0);
				if (nnz > INT32_MAX)
					return eval_error(ev, e->loc, "out of memory");
				m->damping.nnz = (int)nnz;
				m->damping.csc = 0;
				m->damping.arena = ev->a;   /* released by the runtime */
				m->damping.row = arena_alloc(ev->a, sizeof(int) * ((size_t)nnz + 1));
				m->damping.col = arena_alloc(ev->a, sizeof(int) * ((size_t)nnz + 1));
				m->damping.val = arena_alloc(ev->a, sizeof(double) * ((size_t)nnz + 1));
				long k = mm ? scaled_entries(mm, n, a0, &m->damping, 0) : 0;
				if (kk)
					scaled_entries(kk, n, a1, &m->damping, k);
				/* K held by columns on this process (fold_quadratic's
				 * part_columns): so is C, whose other columns have
				 * a0 M's entries alone */
				if (kk && kk->part) {
					m->damping.part = 1;
					m->damping.c0 = kk->c0;
					m->damping.c1 = kk->c1;
				}
				m->damping_kind = IR_DAMP_MATRIX;
				return 0;
			}
			if (!m->mass.a)
				return eval_error(ev, e->loc, "rayleigh damping needs the mass matrix");
			m->damping.a = arena_alloc(ev->a, sizeof(double) * (size_t)n * n);
			for (size_t i = 0; i < (size_t)n * n; i++)
				m->damping.a[i] = a0 * m->mass.a[i] + (m->stiffness.a ? a1 * m->stiffness.a[i] : 0);
			m->damping_kind = IR_DAMP_MATRIX;
			return 0;
		}
		if (strcmp(law, "modal") == 0) {
			/* C = M Φ diag(2 ξ ω) Φᵀ M, computed by the runtime from the
			 * eigenproblem K φ = ω² M φ (code_aster's AMOR_MODAL). */
			if (e->args.n != 1)
				return eval_error(ev, e->loc, "modal takes 1 argument, the damping ratio of every mode (or "
				                  "a vector of them, from the lowest mode)");
			/* one ratio, or one per mode from the lowest, the last for
			 * the modes beyond (code_aster's AMOR_REDUIT list) */
			struct ast_expr *xe = ((struct ast_arg *)e->args.v[0])->value;
			struct value xv;
			if (eval_expr(ev, xe, &xv))
				return -1;
			if (xv.kind == VAL_MAT && xv.rows > 1 && xv.cols > 1)
				return eval_error(ev, xe->loc, "the modal damping ratios are a number or a vector (one per "
				                  "mode), not a %dx%d matrix", xv.rows, xv.cols);
			int nx = xv.kind == VAL_MAT ? xv.rows * xv.cols : 1;
			int *regs;
			if (to_vector(ev, &xv, nx, xe->loc, "the damping ratios", &regs))
				return -1;
			double *xi = arena_alloc(ev->a, sizeof(double) * (size_t)nx);
			for (int j = 0; j < nx; j++) {
				if (!ir_is_const(ev->prog, regs[j], &xi[j]))
					return eval_error(ev, xe->loc, "the damping ratio must be constant");
				if (!(xi[j] >= 0 && isfinite(xi[j])))
					return eval_error(ev, e->loc, "the modal damping ratio must be non-negative");
			}
			/* more ratios than modes: the extra ones were ignored */
			if (m->ndof > 0 && nx > m->ndof)
				return eval_error(ev, xe->loc, "modal gives %d damping ratios, and model %s has %d mode%s",
				                  nx, m->name, m->ndof, m->ndof == 1 ? "" : "s");
			m->modal_xi = xi;
			m->nmodal_xi = nx;
			if (!mc->stiffness_declared)
				return eval_error(ev, e->loc, "modal damping needs a stiffness matrix (its modes come from "
				                  "K phi = w^2 M phi)");
			if (m->kinetic)   /* M would be its constant part only (see rayleigh) */
				return eval_error(ev, e->loc, "modal damping needs a constant mass (its modes come from "
				                  "K phi = w^2 M phi), and the mass of model %s depends on u", m->name);
			m->damping_kind = IR_DAMP_MODAL;
			return 0;
		}
	}
	if (operator(ev, mc, it, "damping", &m->damping))
		return -1;
	m->damping_kind = IR_DAMP_MATRIX;
	return 0;
}

static int force(struct eval *ev, struct model_ctx *mc, struct ast_item *it, int *f, struct load_kernels *lk)
{
	struct ir_model *m = mc->m;
	mc->what = "a force";
	mc->allow_t = 1;
	mc->allow_state = 0;
	for (int k = 0; k < it->names.n; k++) {
		struct ast_expr *e = it->names.v[k];
		int first = 0, count = m->ndof, primes = 0, internal = 0;
		struct ast_expr *load = e;
		/* force FIELD on REGION: traction; force FIELD: body force */
		int fr = fe_force(ev, mc, e, f);
		if (fr < 0)
			return -1;
		if (fr == 0)
			continue;
		if (e->kind == AST_PAIR) {
			/* force x[3]: expr, force z: expr (a load g on z) */
			if (target_dofs(ev, e->lhs, &first, &count, &primes, &internal))
				return -1;
			if (primes)
				return eval_error(ev, e->lhs->loc, "a force acts on a dof, not on its velocity");
			if (internal)
				first += m->ndof;
			load = e->rhs;
		}
		if (lk && count == 1 && e->kind == AST_PAIR && lower_has_sum_term(load)) {
			/* force x[3]: ... sum(...) ...: the sums lowered once */
			int r;
			if (lower_load_sums(ev, load, first, lk, &r))
				return -1;
			f[first] = ir_emit(ev->prog, IR_ADD, f[first], r, 0, ir_loc_of(load->loc));
			continue;
		}
		struct value v;
		int *regs;
		if (eval_expr(ev, load, &v) || to_vector(ev, &v, count, load->loc, "the force", &regs))
			return -1;
		/* entry i is the i-th name's (name_unknown) */
		for (int i = 0; i < count; i++) {
			int d = internal ? first + i : name_unknown(m, first + i);
			f[d] = ir_emit(ev->prog, IR_ADD, f[d], regs[i], 0, ir_loc_of(load->loc));
		}
	}
	return 0;
}

static int init(struct eval *ev, struct model_ctx *mc, struct ast_item *it)
{
	struct ir_model *m = mc->m;
	mc->what = "an initial value";
	mc->allow_t = mc->allow_state = 0;
	for (int k = 0; k < it->names.n; k++) {
		struct ast_expr *pair = it->names.v[k];
		int first, count, primes, internal;
		int fr = fe_init(ev, mc, pair);
		if (fr < 0)
			return -1;
		if (fr == 0)
			continue;
		if (target_dofs(ev, pair->lhs, &first, &count, &primes, &internal))
			return -1;
		if (primes > 1)
			return eval_error(ev, pair->lhs->loc, "initial accelerations follow from the equation of motion");
		if (internal && primes)
			return eval_error(ev, pair->lhs->loc, "internal variables have no initial rate: it follows from the equations");
		ev->prog = new_prog(ev);
		struct value v;
		int *regs;
		if (eval_expr(ev, pair->rhs, &v) || to_vector(ev, &v, count, pair->rhs->loc, "the initial value", &regs))
			return -1;
		if (!mc->init_given && !(mc->init_given = arena_alloc(ev->a, (size_t)m->ndof + (size_t)m->nint + 1)))
			return -1;
		/* a whole group's values in the order of their names */
		const struct ir_dof_group *g = count > 1 ? ir_dof_group_of(internal ? &m->intvars : &m->dofs, first) : NULL;
		int whole = g && g->first == first && g->size == count;
		for (int i = 0; i < count; i++) {
			double x;
			int d = whole ? ir_dof_group_nth(g, i) - first : i;
			if (!ir_is_const(ev->prog, regs[i], &x))
				return eval_error(ev, pair->rhs->loc, "an initial value must be constant");
			/* a second value would silently replace the first */
			unsigned char *given = &mc->init_given[(internal ? m->ndof : 0) + first + d];
			if (*given & (1u << (primes != 0))) {
				char nm[IR_NAME_SIZE];
				if (internal)
					ir_intvar_name(m, first + d, nm, sizeof nm);
				else
					ir_dof_name(m, first + d, nm, sizeof nm);
				return eval_error(ev, pair->lhs->loc, "%s%s is given an initial value twice", nm,
				                  primes ? "'" : "");
			}
			*given |= (unsigned char)(1u << (primes != 0));
			(internal ? m->z0 : primes ? m->v0 : m->u0)[first + d] = x;
		}
	}
	return 0;
}

/* for I in A..B { force TARGET: LOAD ... }: each load lowered once as a
 * kernel of I where it can be (lower_load_family), else stated for every
 * I in turn (force, with I bound to the number). */
static int force_family(struct eval *ev, struct model_ctx *mc, struct ast_item *fam, int *f, struct load_kernels *lk)
{
	long lo, hi;
	if (eval_int(ev, fam->value, &lo, "a range bound") || eval_int(ev, fam->dir, &hi, "a range bound"))
		return -1;
	for (int q = 0; q < fam->names.n; q++) {
		struct ast_item *it = fam->names.v[q];
		if (it->kind != AST_ITEM_FORCE)
			continue;
		for (int k = 0; k < it->names.n; k++) {
			struct ast_expr *e = it->names.v[k];
			int done = 0;
			if (e->kind == AST_PAIR && !e->cond) {
				mc->what = "a force";
				mc->allow_t = 1;
				mc->allow_state = 0;
				done = lower_load_family(ev, fam, e->lhs, e->rhs, mc->m->ndof, lk);
				if (done < 0)
					return -1;
			}
			if (done)
				continue;
			struct ast_item one = *it;
			one.names = (struct ast_vec){ 1, 1, &it->names.v[k] };
			struct scope *saved = ev->scope;
			for (long i = lo; i <= hi; i++) {
				ev->scope = scope_new(ev->a, saved);
				struct binding *b = scope_bind(ev, fam->target->name, B_VALUE, fam->target->loc);
				int rc = -1;
				if (b) {
					b->val.kind = VAL_NUM;
					b->val.frozen = 1;
					b->val.k = (double)i;
					rc = force(ev, mc, &one, f, NULL);
				}
				ev->scope = saved;
				if (rc)
					return -1;
			}
		}
	}
	return 0;
}

/* Whether a support excitation meets a field held by `fix` under a
 * consistent mass: the support load −M d a(t) is formed with the model's
 * M, whose rows and columns of the fixed dofs `fix` removed, so the mass
 * that couples a fixed node (moving with the ground) to its free
 * neighbours would be lost (a bar held at one end under a ground
 * acceleration: 0.3 % off at the tip, 8 % on a 2-D block).  A lumped
 * mass has no such coupling; `constraint ... == 0` keeps the nodes. */
/* Whether expression e holds an integral(...) anywhere. */
static int has_integral(const struct ast_expr *e)
{
	if (!e)
		return 0;
	if (fe_is_integral(e))
		return 1;
	if (has_integral(e->lhs) || has_integral(e->rhs) || has_integral(e->cond) || has_integral(e->lo) ||
	    has_integral(e->hi))
		return 1;
	for (int i = 0; i < e->args.n; i++)
		if (has_integral(((const struct ast_arg *)e->args.v[i])->value))
			return 1;
	for (int i = 0; i < e->rows.n; i++) {
		const struct ast_vec *row = e->rows.v[i];
		for (int j = 0; j < row->n; j++)
			if (has_integral(row->v[j]))
				return 1;
	}
	return 0;
}

/* modes()'s participation along the direction of the model's support,
 * or without one along the rigid translation in x (ir_model.modal_c,
 * modal_held): what the kinetic integrals found fix takes out
 * (mc->held), for that direction; none for a support given one entry
 * per dof, which says nothing of the held nodes. */
static void held_modal_mass(struct eval *ev, struct model_ctx *mc, struct ir_model *m)
{
	struct fe_held *h = mc->held;
	if (!h)
		return;
	double dir[3] = { 1, 0, 0 }, A = 0;
	if (m->support) {
		for (int q = 0; q < 3; q++)
			dir[q] = q < mc->support_nd ? mc->support_space[q] : 0;
	}
	for (int p = 0; p < 3; p++)
		for (int q = 0; q < 3; q++)
			A += dir[p] * h->A[p][q] * dir[q];
	int c = 0;
	for (int i = 0; i < m->ndof && !m->support && !c; i++)
		c = h->c[i] != 0;
	m->modal_held = A;
	if (c)
		m->modal_c = h->c;
	else
		arena_release(ev->a, h->c);
}

static int support_fixed_coupling(const struct model_ctx *mc, const struct ast_model *am)
{
	int fixed = 0, consistent = 0;
	for (int f = 0; f < mc->nfield; f++)
		fixed |= !mc->field[f]->internal &&
		         (mc->support_nd ? fe_field_moved(mc->field[f], mc->support_space) : fe_field_fixed(mc->field[f]));
	/* a kinetic energy of dofs alone (an end mass, ½ X'²) couples no
	 * node: only an integral's consistent mass does */
	for (int i = 0; i < am->items.n; i++) {
		const struct ast_item *it = am->items.v[i];
		consistent |= it->kind == AST_ITEM_KINETIC && !it->lumped && has_integral(it->value);
	}
	return fixed && consistent;
}

/* Lower model `b` into IR; its names are bound in a scope left in *sc for
 * the record expressions of the run. */
static int lower_model(struct eval *ev, struct binding *b, struct ir_model **out, struct model_ctx *mc)
{
	struct ast_model *am = b->stmt->model;
	b->lowered = 1;
	struct ir_model *m = arena_alloc(ev->a, sizeof *m);
	m->name = am->name;
	m->loc = ir_loc_of(am->loc);
	int has_t0 = mc->has_t0;
	double t0 = mc->t0;
	const struct ir_run *run = mc->run;
	memset(mc, 0, sizeof *mc);
	mc->has_t0 = has_t0;
	mc->t0 = t0;
	mc->run = run;
	mc->m = m;
	/* the files a model names (mtx, table) are found from the folder of
	 * the file that declares it, wherever it is run from (the REPL's
	 * prompt, a script importing its module) */
	mc->script_dir = am->loc.file ? path_dir(ev->a, am->loc.file) : ev->script_dir;
	ev->mc = mc;
	/* the model sees the names where it was declared: in a loop's body,
	 * the loop's variable and lets (a sweep over a parameter) */
	ev->scope = scope_new(ev->a, b->closure ? b->closure : ev->s->globals);

	/* Parameters, dofs and internal variables first: every other item may
	 * use them. */
	int cap = 0, zcap = 0;
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		ev->prog = new_prog(ev);
		if (it->kind == AST_ITEM_PARAM) {
			mc->what = "a parameter";
			for (int k = 0; k < it->defs.n; k++)
				if (bind_param(ev, it->defs.v[k], am->name))
					return -1;
		} else if (it->kind == AST_ITEM_LET) {
			/* let mu = E/(2(1 + nu)): a value of the parameters */
			mc->what = "a let value";
			for (int k = 0; k < it->defs.n; k++) {
				struct ast_arg *d = it->defs.v[k];
				struct value v;
				ev->prog = new_prog(ev);
				if (eval_expr(ev, d->value, &v) || value_freeze(ev, &v, d->value->loc, "a let value"))
					return -1;
				struct binding *b = scope_bind(ev, d->name, B_VALUE, d->loc);
				if (!b)
					return -1;
				b->val = v;
			}
		} else if (it->kind == AST_ITEM_DOF) {
			if (declare_dofs(ev, it, mc, &cap, 0))
				return -1;
		} else if (it->kind == AST_ITEM_INTERNAL) {
			if (declare_dofs(ev, it, mc, &zcap, 1))
				return -1;
		}
	}
	if (fe_declare_fields(ev, mc, am, &cap, &zcap))
		return -1;
	if (m->ndof == 0)
		return eval_error(ev, am->loc, mc->nfield ? "model %s has no free unknowns: every dof of its fields is "
		                  "fixed" : "model %s declares no dof (add e.g. 'dof u')", am->name);
	int n = m->ndof, nf = m->ndof + m->nint;
	m->arena = ev->a;   /* rt_begin releases u0, v0 once it has copied them */
	m->u0 = arena_alloc(ev->a, sizeof(double) * (size_t)n);
	m->v0 = arena_alloc(ev->a, sizeof(double) * (size_t)n);
	m->z0 = arena_alloc(ev->a, sizeof(double) * (size_t)(m->nint + 1));
	if (fe_translation(ev, mc))
		return eval_error(ev, am->loc, "out of memory");

	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if (it->kind == AST_ITEM_MASS && operator(ev, mc, it, "mass", &m->mass))
			return -1;
		if (it->kind == AST_ITEM_STIFFNESS && operator(ev, mc, it, "stiffness", &m->stiffness))
			return -1;
		if (it->kind == AST_ITEM_STIFFNESS)
			mc->stiffness_declared = 1;
	}
	for (int i = 0; i < am->items.n; i++)
		if (((struct ast_item *)am->items.v[i])->kind == AST_ITEM_DAMPING)
			mc->damping_declared = 1;
	/* before the energies, whose kinetic integrals add to it */
	if (mc->nfield > 0) {
		mc->held = arena_alloc(ev->a, sizeof *mc->held);
		if (mc->held)
			mc->held->c = arena_alloc(ev->a, sizeof(double) * ((size_t)m->ndof + 1));
		if (!mc->held || !mc->held->c)
			return eval_error(ev, am->loc, "out of memory");
		memset(mc->held->A, 0, sizeof mc->held->A);
		memset(mc->held->c, 0, sizeof(double) * ((size_t)m->ndof + 1));
	}
	/* init equilibrium known before the energies fold: its solve reads
	 * the whole stiffness, which a partitioned run would otherwise hold
	 * by columns (part_columns) */
	for (int i = 0; i < am->items.n; i++) {
		const struct ast_item *it = am->items.v[i];
		if (it->kind == AST_ITEM_INIT && it->equilibrium)
			m->init_equilibrium = 1;
	}
	if (lower_energies(ev, mc, am))
		return -1;
	if (!m->mass.a && !m->kinetic && !ir_matrix_has_entries(&m->mass))
		return eval_error(ev, am->loc, "model %s has no mass (add e.g. 'mass [1]' or a kinetic energy)", am->name);
	if (!m->mass.a && !ir_matrix_has_entries(&m->mass)) {
		/* all of the mass depends on u: the constant part is zero, dense
		 * on a small model as its other operators, else no entries (an
		 * n×n array of 20000 dofs took 3.2 GB) */
		if (n <= IR_FOLD_DENSE_MAX && mc->nfield == 0)
			m->mass.a = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
		m->mass.loc = m->kinetic->loc;
	}
	/* friction without `along` takes the tangents orthogonal to the gap's
	 * gradient in the coordinate space, which is the tangent plane of the
	 * obstacle only when the dofs are one point's Cartesian coordinates:
	 * a mass m I (then orthogonal in the metric of M too) */
	for (int k = 0; k < m->contact.n && m->contact.friction; k++) {
		if (m->contact.friction[k] == 0 ||
		    (m->contact.slip_first && m->contact.slip_first[k + 1] > m->contact.slip_first[k]))
			continue;
		int point = !m->kinetic && m->mass.a && m->mass.a[0] > 0;
		for (int i = 0; i < n && point; i++)
			for (int j = 0; j < n && point; j++)
				point = m->mass.a[i + (size_t)j * n] == (i == j ? m->mass.a[0] : 0);
		if (!point) {
			struct loc l = { m->contact.loc[k].file, m->contact.loc[k].line, m->contact.loc[k].col, 7 };
			return eval_error(ev, l, "friction at this contact needs the slip of the contact point, "
			                  "contact ... friction MU along S: without it the tangents are found from "
			                  "the gap alone, which needs the dofs to be one point's coordinates (a mass m I)");
		}
	}
	if (!m->stiffness.a && !ir_matrix_has_entries(&m->stiffness) && n <= IR_FOLD_DENSE_MAX && mc->nfield == 0) {
		/* no stiffness: a free body (K = 0); beyond IR_FOLD_DENSE_MAX
		 * dofs an operator without entries, the runtime's zero matrix */
		m->stiffness.a = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)n);
		m->stiffness.loc = m->loc;
	}

	struct ir_prog *fp = NULL;
	int *f = NULL;
	struct load_kernels lk = { 0 };
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		switch (it->kind) {
		case AST_ITEM_DAMPING:
			if (damping(ev, mc, it))
				return -1;
			break;
		case AST_ITEM_FORCE:
		case AST_ITEM_FOR:
			if (it->kind == AST_ITEM_FOR) {
				int any = 0;
				for (int q = 0; q < it->names.n; q++)
					any |= ((struct ast_item *)it->names.v[q])->kind == AST_ITEM_FORCE;
				if (!any)
					break;
			}
			if (!fp) {
				fp = new_prog(ev);
				f = arena_alloc(ev->a, sizeof(int) * (size_t)nf);
				int zero = ir_emit_const(fp, 0, ir_loc_of(it->loc));
				for (int j = 0; j < nf; j++)
					f[j] = zero;
				m->force_loc = ir_loc_of(it->loc);
			}
			ev->prog = fp;
			if (it->kind == AST_ITEM_FORCE ? force(ev, mc, it, f, &lk) : force_family(ev, mc, it, f, &lk)) {
				free(lk.v);
				return -1;
			}
			break;
		case AST_ITEM_SUPPORT: {
			if (m->support)
				return eval_error(ev, it->loc, "support is declared twice");
			mc->what = "the support acceleration";
			mc->allow_t = 1;
			mc->allow_state = 0;
			m->support = ev->prog = new_prog(ev);
			struct value a, d;
			if (eval_expr(ev, it->value, &a))
				return -1;
			if (a.kind != VAL_NUM)
				return eval_error(ev, it->value->loc, "the support acceleration must be a number (a function of t), not %s",
				                  value_kind_name(&a));
			ir_prog_add_output(m->support, a.reg);
			ev->prog = new_prog(ev);
			mc->what = "the support direction";
			mc->allow_t = 0;
			int *regs;
			if (eval_expr(ev, it->dir, &d))
				return -1;
			/* on a model of fields, a direction in space ([0, 1]): each
			 * node's component (fe_direction) */
			int nd = d.kind == VAL_NUM ? 1 : d.kind == VAL_MAT && (d.rows == 1 || d.cols == 1) ? d.rows * d.cols : -1;
			/* a direction in space wherever it can be one: of as many
			 * entries as the fields have components, on a model of
			 * fields alone, even when that is also the number of dofs
			 * (a plate held but for 2 dofs: [0, 1] is along y, not
			 * the second dof alone) */
			if (mc->nfield && nd >= 1 && nd <= 3 && (nd != n || fe_fields_only(mc, nd))) {
				double dir[3];
				if (to_vector(ev, &d, nd, it->dir->loc, "the support direction", &regs))
					return -1;
				for (int j = 0; j < nd; j++)
					if (!ir_is_const(ev->prog, regs[j], &dir[j]))
						return eval_error(ev, it->dir->loc, "the support direction must be constant");
				m->support_dir = arena_alloc(ev->a, sizeof(double) * (size_t)n);
				if (fe_direction(ev, mc, dir, nd, m->support_dir, it->dir->loc))
					return -1;
				mc->support_nd = nd;
				memcpy(mc->support_space, dir, sizeof(double) * (size_t)nd);
			} else {
				if (to_vector(ev, &d, n, it->dir->loc, "the support direction", &regs))
					return -1;
				m->support_dir = arena_alloc(ev->a, sizeof(double) * (size_t)n);
				for (int j = 0; j < n; j++)
					if (!ir_is_const(ev->prog, regs[j], &m->support_dir[name_unknown(m, j)]))
						return eval_error(ev, it->dir->loc, "the support direction must be constant");
			}
			m->support_loc = ir_loc_of(it->loc);
			break;
		}
		case AST_ITEM_INIT:
			if (it->equilibrium) {
				m->init_equilibrium = 1;
				m->init_loc = ir_loc_of(it->loc);
			} else if (init(ev, mc, it)) {
				return -1;
			}
			break;
		default:
			break;
		}
	}
	/* a region on a prescribed motion starts on it, whatever init says */
	for (int i = 0; i < mc->nprescribed; i++) {
		m->u0[mc->prescribed[i].dof] = mc->prescribed[i].u;
		m->v0[mc->prescribed[i].dof] = mc->prescribed[i].v;
	}
	if (fp) {
		for (int j = 0; j < nf; j++)
			ir_prog_add_output(fp, f[j]);
		/* the loads' registers are the program's outputs now: 4 bytes
		 * per dof given back before the run starts */
		arena_release(ev->a, f);
		ir_prog_compact(fp);
		m->force = fp;
	}
	m->nfkernel = lk.n;
	m->fkernel = arena_alloc(ev->a, sizeof *m->fkernel * (size_t)(lk.n + 1));
	if (lk.n)
		memcpy(m->fkernel, lk.v, sizeof *m->fkernel * (size_t)lk.n);
	free(lk.v);
	if (m->support) {
		ir_prog_compact(m->support);
		if (support_fixed_coupling(mc, am))
			return eval_error(ev, (struct loc){ m->support_loc.file, m->support_loc.line, m->support_loc.col, 7 },
			                  "support on a field held by fix with a consistent mass: the ground moves the fixed "
			                  "nodes too, and their mass couples them to the free ones, which fix removes; hold "
			                  "them with constraint U on REGION == 0 (its multipliers carry that load), use "
			                  "kinetic lumped, or state the ground's acceleration a(t) as a body force on the "
			                  "whole body, force U: -rho*a(t) (times the direction)");
	}
	held_modal_mass(ev, mc, m);
	bandwidth(n, &m->mass, &m->kl, &m->ku);
	bandwidth(n, &m->damping, &m->kl, &m->ku);
	bandwidth(n, &m->stiffness, &m->kl, &m->ku);
	if (m->nfe > 0) {
		/* what solver = auto holds the operators in (la_mat_triplets'
		 * rule), for --dump-ir and :show */
		m->storage = n <= LA_SMALL_N ? "dense (at most 64 unknowns)"
		           : la_mat_band_pays(n, m->kl, m->ku) ? "banded (a narrow band)"
		           : "sparse (compressed columns)";
	}
	*out = m;
	return 0;
}

/* The IR of a model by its name, without a run (the REPL's :show, :ir,
 * :eig); its names are bound in a scope of their own. */
int lower_model_named(struct eval *ev, const char *name, struct loc loc, struct ir_model **out)
{
	struct binding *b = scope_lookup(ev->scope, name);
	if (!b)
		return eval_error(ev, loc, "undefined model '%s'", name);
	if (b->kind != B_MODEL)
		return eval_error(ev, loc, "'%s' is not a model", name);
	struct scope *saved = ev->scope;
	struct model_ctx *mc = arena_alloc(ev->a, sizeof *mc);
	int rc = lower_model(ev, b, out, mc);
	ev->scope = saved;
	ev->mc = NULL;
	return rc;
}

/* ---- records ---- */

static int add_record(struct eval *ev, struct ir_output *o, int *cap, struct ir_record r)
{
	if (o->nrecord == *cap) {
		int ncap = *cap ? 2 * *cap : 8;
		o->record = arena_grow(ev->a, o->record, sizeof *o->record * (size_t)o->nrecord,
		                       sizeof *o->record * (size_t)ncap);
		*cap = ncap;
	}
	for (int i = 0; i < o->nrecord; i++)
		if (strcmp(o->record[i].name, r.name) == 0) {
			struct loc l = { r.loc.file, r.loc.line, r.loc.col, 1 };
			/* a name with a quote of its own (u_y'(0.3 0.7)) is not
			 * quoted again */
			return strchr(r.name, '\'') ? eval_error(ev, l, "the column %s is recorded twice", r.name)
			                            : eval_error(ev, l, "'%s' is recorded twice", r.name);
		}
	o->record[o->nrecord++] = r;
	return 0;
}

static int record_item(struct eval *ev, struct model_ctx *mc, struct ast_record_item *it,
                       struct ir_output *o, int *cap)
{
	struct ir_record r = { 0 };
	r.loc = ir_loc_of(it->loc);
	struct ast_expr *e = it->expr;
	if (it->name) {
		/* record NAME = EXPR, or NAME = FIELD at (...): a column the
		 * script reads back as r.NAME, which must not hide r.t, an
		 * energy or a dof */
		struct binding *b = scope_lookup(ev->scope, it->name);
		if (result_member(it->name) || strcmp(it->name, "energy") == 0 || (b && b->kind == B_DOF))
			return eval_error(ev, it->loc, "'%s' names a recorded quantity already; choose another name", it->name);
	}
	if (it->has_at) {
		/* a field at a point: one column per component */
		struct ir_record rs[3];
		int nr;
		if (fe_record_at(ev, it, rs, &nr))
			return -1;
		for (int i = 0; i < nr; i++)
			if (add_record(ev, o, cap, rs[i]))
				return -1;
		return 0;
	}

	if (it->name) {
		/* record NAME = EXPR */
		mc->what = "a recorded expression";
		mc->allow_t = mc->allow_state = 1;
		ev->prog = new_prog(ev);
		struct value v;
		mc->in_record = 1;
		int bad = eval_expr(ev, e, &v);
		mc->in_record = 0;
		if (bad)
			return -1;
		if (v.kind != VAL_NUM)
			return eval_error(ev, e->loc, "a recorded expression must be a number, not %s", value_kind_name(&v));
		ir_prog_add_output(ev->prog, v.reg);
		ir_prog_compact(ev->prog);
		r.kind = IR_REC_EXPR;
		r.name = it->name;
		r.expr = ev->prog;
		return add_record(ev, o, cap, r);
	}
	if (e->kind == AST_NAME) {
		if (strcmp(e->name, "t") == 0) {
			r.kind = IR_REC_T;
			r.name = "t";
			return add_record(ev, o, cap, r);
		}
		if (strcmp(e->name, "energy") == 0) {
			for (int i = 0; i < RT_NENERGY; i++) {
				r.kind = IR_REC_KINETIC + i;
				r.name = rt_energy_name[i];
				if (add_record(ev, o, cap, r))
					return -1;
			}
			return 0;
		}
		for (int i = 0; i < RT_NENERGY; i++)
			if (strcmp(e->name, rt_energy_name[i]) == 0) {
				r.kind = IR_REC_KINETIC + i;
				r.name = rt_energy_name[i];
				return add_record(ev, o, cap, r);
			}
		/* lambda: every multiplier, lambda[1] .. lambda[nc], as x is
		 * every element of a vector of dofs */
		if (strcmp(e->name, "lambda") == 0 && !scope_lookup(ev->scope, "lambda")) {
			int nc = mc->m->nconstraint;
			if (nc == 0)
				return eval_error(ev, e->loc, "model %s has no constraints: lambda is the multipliers of "
				                  "its constraint items", mc->m->name);
			for (int k = 0; k < nc; k++) {
				r.kind = IR_REC_LAMBDA;
				r.dof = k;
				r.name = arena_printf(ev->a, "lambda[%d]", k + 1);
				if (add_record(ev, o, cap, r))
					return -1;
			}
			return 0;
		}
	}
	/* impulse, impulse[k]: the contacts' normal impulses over each step,
	 * kept after the constraints' multipliers in the state; impulse_t,
	 * impulse_t[k]: with friction at contacts, the magnitudes of their
	 * tangential impulses, after the normal ones */
	const char *iname = NULL;
	for (int tn = 0; tn < 2 && !iname; tn++) {
		const char *nm = tn ? "impulse_t" : "impulse";
		if (((e->kind == AST_NAME && strcmp(e->name, nm) == 0) ||
		     (e->kind == AST_INDEX && e->lhs->kind == AST_NAME && strcmp(e->lhs->name, nm) == 0)) &&
		    !scope_lookup(ev->scope, nm))
			iname = nm;
	}
	if (iname) {
		int imp_whole = e->kind == AST_NAME, tan = strcmp(iname, "impulse_t") == 0;
		int nk = mc->m->contact.n, nc = mc->m->nconstraint;
		long k = 0;
		if (!imp_whole && eval_int(ev, e->rhs, &k, "a contact"))
			return -1;
		if (nk == 0)
			return eval_error(ev, e->loc, "model %s has no contacts: %s[k] is the impulse of its k-th "
			                  "contact", mc->m->name, iname);
		if (tan && !mc->m->contact.friction)
			return eval_error(ev, e->loc, "model %s has no friction at its contacts: impulse_t[k] is the "
			                  "tangential impulse of its k-th contact (contact ... friction MU)", mc->m->name);
		if (!imp_whole && (k < 1 || k > nk))
			return eval_error(ev, e->rhs->loc, "model %s has %d contact%s: %s[k] takes k in 1..%d, not %ld",
			                  mc->m->name, nk, nk == 1 ? "" : "s", iname, nk, k);
		for (long q = imp_whole ? 1 : k; q <= (imp_whole ? nk : k); q++) {
			r.kind = IR_REC_LAMBDA;
			r.dof = nc + (tan ? nk : 0) + (int)q - 1;
			r.name = arena_printf(ev->a, "%s[%ld]", iname, q);
			if (add_record(ev, o, cap, r))
				return -1;
		}
		return 0;
	}
	/* lambda[k]: the multiplier of the k-th constraint */
	if (e->kind == AST_INDEX && e->lhs->kind == AST_NAME && strcmp(e->lhs->name, "lambda") == 0 &&
	    !scope_lookup(ev->scope, "lambda")) {
		long k;
		if (eval_int(ev, e->rhs, &k, "a constraint"))
			return -1;
		int nc = mc->m->nconstraint;
		if (nc == 0)
			return eval_error(ev, e->loc, "model %s has no constraints: lambda[k] is the multiplier of "
			                  "its k-th constraint item", mc->m->name);
		if (k < 1 || k > nc)
			return eval_error(ev, e->rhs->loc, "model %s has %d constraint%s: lambda[k] takes k in 1..%d, "
			                  "not %ld", mc->m->name, nc, nc == 1 ? "" : "s", nc, k);
		r.kind = IR_REC_LAMBDA;
		r.dof = (int)k - 1;
		r.name = arena_printf(ev->a, "lambda[%ld]", k);
		return add_record(ev, o, cap, r);
	}
	/* dissipated[k]: the k-th term of the ledger's dissipation */
	if (e->kind == AST_INDEX && e->lhs->kind == AST_NAME && strcmp(e->lhs->name, "dissipated") == 0) {
		long k;
		int nterm = mc->m->ndissipation + (mc->m->damping_kind != IR_DAMP_NONE) + (mc->m->contact.friction != NULL);
		if (eval_int(ev, e->rhs, &k, "a dissipation term"))
			return -1;
		if (nterm == 0)
			return eval_error(ev, e->lhs->loc, "model %s has no dissipation terms: dissipated[k] is the k-th of its "
			                  "dissipation statements, then its damping matrix, then friction at contacts",
			                  mc->m->name);
		if (k < 1 || k > nterm)
			return eval_error(ev, e->rhs->loc, "model %s has %d dissipation term%s (its dissipation statements, "
			                  "then its damping matrix, then friction at contacts), not %ld", mc->m->name, nterm, nterm == 1 ? "" : "s", k);
		r.kind = IR_REC_DTERM;
		r.dof = (int)k - 1;
		r.name = arena_printf(ev->a, "dissipated[%ld]", k);
		return add_record(ev, o, cap, r);
	}
	struct ast_expr *base = e->kind == AST_PRIME ? e->lhs : e;
	struct ast_expr *nm = base->kind == AST_INDEX ? base->lhs : base;
	struct binding *b = nm->kind == AST_NAME ? scope_lookup(ev->scope, nm->name) : NULL;
	if (!b || b->kind != B_DOF) {
		if (nm->kind == AST_NAME && !b && (base == e || e->kind == AST_PRIME) && base->kind == AST_NAME)
			return eval_error(ev, e->loc, "cannot record '%s': not t, energy, kinetic, stored, dissipated, work, "
			                  "residual, lambda or a dof of model %s", nm->name, mc->m->name);
		return eval_error(ev, e->loc, "to record an expression, name it: record NAME = EXPR");
	}
	int first, count, primes, internal;
	if (target_dofs(ev, e, &first, &count, &primes, &internal))
		return -1;
	if (primes > 2 || (internal && primes > 1))
		return eval_error(ev, e->loc, internal ? "an internal variable has a value and a rate (z and z'): "
		                  "its second derivative cannot be recorded" : "only u, u' and u'' can be recorded");
	/* a whole group's columns in the order of their names */
	const struct ir_dof_list *l = internal ? &mc->m->intvars : &mc->m->dofs;
	const struct ir_dof_group *g = count > 1 ? ir_dof_group_of(l, first) : NULL;
	int whole = g && g->first == first && g->size == count;
	for (int i = 0; i < count; i++) {
		r.kind = internal ? IR_REC_Z : IR_REC_U;
		r.dof = whole ? ir_dof_group_nth(g, i) : first + i;
		r.deriv = primes;
		char base[IR_NAME_SIZE];
		(internal ? ir_intvar_name : ir_dof_name)(mc->m, r.dof, base, sizeof base);
		r.name = arena_printf(ev->a, "%s%s", base, primes == 0 ? "" : primes == 1 ? "'" : "''");
		if (add_record(ev, o, cap, r))
			return -1;
	}
	return 0;
}

/* The files of a run's records and of the plots in its block must be
 * distinct files, compared by identity (outpath.c): the records of one
 * run are written together, and a plot written after them would replace
 * a record. */
struct out_file {
	struct out_id id;
	const char *path;
	struct loc loc;
	int plot;
};

static int add_file(struct eval *ev, struct out_file *files, int *n, const char *path, struct loc loc, int plot)
{
	struct out_file *f = &files[*n];
	if (outpath_check(ev, loc, path, &f->id))
		return -1;
	f->path = path;
	f->loc = loc;
	f->plot = plot;
	for (int j = 0; j < *n; j++) {
		if (!outpath_same(&files[j].id, &f->id))
			continue;
		const char *what = files[j].plot && plot ? "two plots" : files[j].plot || plot ? "a record and a plot"
		                                                                                : "two records";
		char q[256], q2[256];
		rt_escape(q, sizeof q, path);
		rt_escape(q2, sizeof q2, files[j].path);
		if (strcmp(path, files[j].path) == 0)
			eval_error(ev, loc, "%s write the same file '%s'", what, q);
		else
			eval_error(ev, loc, "%s write the same file: '%s' is '%s'", what, q, q2);
		diag_note(ev->d, files[j].loc, "'%s' is written here", q2);
		return -1;
	}
	(*n)++;
	return 0;
}

/* Whether path is one of the files of the VTU series beside pvd
 * (runtime/fe_output.c: u.pvd → u_000012.vtu, or u_000012.pvtu and its
 * pieces u_000012_0.vtu under mpirun): a record named so would be
 * replaced by a step's field, or replace it. */
static int in_vtu_series(const char *pvd, const char *path)
{
	size_t nb = strlen(pvd) - 4, i;
	if (strncmp(path, pvd, nb) != 0 || path[nb] != '_')
		return 0;
	/* the step as %06d: six digits, or more without a leading zero
	 * (u_1000.vtu is not one of them) */
	for (i = nb + 1; path[i] >= '0' && path[i] <= '9'; i++)
		;
	size_t d = i - (nb + 1);
	if (d < 6 || (d > 6 && path[nb + 1] == '0'))
		return 0;
	/* a piece's process as %d: no leading zero but 0 itself */
	if (path[i] == '_' && path[i + 1] >= '0' && path[i + 1] <= '9') {
		size_t p0 = ++i;
		for (; path[i] >= '0' && path[i] <= '9'; i++)
			;
		if (path[p0] == '0' && i - p0 > 1)
			return 0;
	}
	return strcmp(path + i, ".vtu") == 0 || strcmp(path + i, ".pvtu") == 0;
}

static int series_clash(struct eval *ev, const struct out_file *files, int nfile)
{
	for (int a = 0; a < nfile; a++) {
		size_t len = strlen(files[a].path);
		if (files[a].plot || len < 5 || strcmp(files[a].path + len - 4, ".pvd") != 0)
			continue;
		for (int b = 0; b < nfile; b++) {
			if (b == a || !in_vtu_series(files[a].path, files[b].path))
				continue;
			char q[256], q2[256];
			rt_escape(q, sizeof q, files[b].path);
			rt_escape(q2, sizeof q2, files[a].path);
			eval_error(ev, files[b].loc, "'%s' is a file of the VTU series of '%s' (one per recorded step): "
			           "name it otherwise", q, q2);
			diag_note(ev->d, files[a].loc, "'%s' is written here", q2);
			return -1;
		}
	}
	return 0;
}

/* A column NAME = EXPR (or NAME = FIELD at (...)) of two record lines:
 * the script reads one history back as r.NAME, so the two must be the
 * same column, its expression and its point as written. */
static int same_column(const struct ast_record_item *x, const struct ast_record_item *y)
{
	if (!ast_expr_equal(x->expr, y->expr) || x->has_at != y->has_at || x->at.n != y->at.n)
		return 0;
	for (int i = 0; i < x->at.n; i++)
		if (!ast_expr_equal(x->at.v[i], y->at.v[i]))
			return 0;
	return 1;
}

static int records_agree(struct eval *ev, const struct ast_run *ar)
{
	for (int k = 1; k < ar->records.n; k++) {
		const struct ast_record *a = ar->records.v[k];
		for (int i = 0; !a->plot && i < a->items.n; i++) {
			const struct ast_record_item *x = a->items.v[i];
			for (int l = 0; x->name && !x->field && l < k; l++) {
				const struct ast_record *b = ar->records.v[l];
				for (int j = 0; !b->plot && j < b->items.n; j++) {
					const struct ast_record_item *y = b->items.v[j];
					if (y->name && !y->field && strcmp(x->name, y->name) == 0 && !same_column(x, y))
						return eval_error(ev, x->loc, "'%s' is recorded twice with different expressions "
						                  "(first on line %d): the run's r.%s is one history; give the "
						                  "columns different names", x->name, y->loc.line, x->name);
				}
			}
		}
	}
	return 0;
}

/* The run's records: their items in the model's scope (ev->scope, whose
 * parent is the caller's), their files and every N in the caller's scope,
 * as the run's times are. */
static int lower_records(struct eval *ev, struct model_ctx *mc, struct ast_run *ar, struct ir_run *run,
                         struct scope *caller)
{
	if (records_agree(ev, ar))
		return -1;
	run->noutput = 0;
	run->output = arena_alloc(ev->a, sizeof *run->output * (size_t)(ar->records.n + 1));
	struct out_file *files = arena_alloc(ev->a, sizeof *files * (size_t)(ar->records.n + 1));
	int nfile = 0;
	for (int kk = 0; kk < ar->records.n; kk++) {
		struct ast_record *rec = ar->records.v[kk];
		if (rec->plot) {
			/* plots run after the run (exec.c); their files are known now */
			struct scope *sc = ev->scope;
			ev->scope = caller;
			ev->mc = NULL;
			ev->prog = new_prog(ev);
			const char *p;
			int rc = eval_string(ev, rec->plot->path, &p, "the file name");
			ev->scope = sc;
			ev->mc = mc;
			if (rc || (strcmp(p, "$terminal") != 0 &&
			           add_file(ev, files, &nfile, path_join(ev->a, ev->s->outdir, p), rec->plot->path->loc, 1)))
				return -1;
			continue;
		}
		int nfield = 0;
		for (int i = 0; i < rec->items.n; i++)
			nfield += ((struct ast_record_item *)rec->items.v[i])->field;
		if (nfield > 0) {
			/* record field u to "u.pvd" [every N]: VTU files and their index */
			struct ast_record_item *it = NULL, *other = NULL;
			for (int i = 0; i < rec->items.n; i++) {
				struct ast_record_item *x = rec->items.v[i];
				if (x->field && !it)
					it = x;
				else if (!other)
					other = x;
			}
			if (other)
				return eval_error(ev, other->loc, "record field %s writes one field per clause: record the "
				                  "others in clauses of their own", it->expr->name);
			if (!rec->path)
				return eval_error(ev, rec->loc, "record field %s needs its file: record field %s to \"%s.pvd\"",
				                  it->expr->name, it->expr->name, it->expr->name);
			run->field_output = arena_grow(ev->a, run->field_output, sizeof *run->field_output *
			                               (size_t)run->nfield_output, sizeof *run->field_output *
			                               (size_t)(run->nfield_output + 1));
			struct ir_field_output *fo = &run->field_output[run->nfield_output++];
			if (fe_field_output(ev, it, fo))
				return -1;
			struct scope *sc = ev->scope;
			ev->scope = caller;
			ev->mc = NULL;
			ev->prog = new_prog(ev);
			const char *p;
			if (eval_string(ev, rec->path, &p, "the file name"))
				return -1;
			size_t len = strlen(p);
			if (len < 5 || strcmp(p + len - 4, ".pvd") != 0)
				return eval_error(ev, rec->path->loc, "a field is recorded to a .pvd file (its VTU files are "
				                  "written beside it), not to '%s'", p);
			fo->path = path_join(ev->a, ev->s->outdir, p);
			struct loc l = rec->path->loc;
			l.len = 1;
			if (add_file(ev, files, &nfile, fo->path, l, 0))
				return -1;
			fo->every = 1;
			if (rec->every) {
				long every;
				if (eval_int(ev, rec->every, &every, "every"))
					return -1;
				if (every < 1)
					return eval_error(ev, rec->every->loc, "every must be at least 1, not %ld", every);
				fo->every = (int)every;
			}
			ev->scope = sc;
			ev->mc = mc;
			continue;
		}
		int k = run->noutput++;
		struct ir_output *o = &run->output[k];
		int cap = 0;
		o->loc = ir_loc_of(rec->loc);
		o->every = 1;
		for (int i = 0; i < rec->items.n; i++)
			if (record_item(ev, mc, rec->items.v[i], o, &cap))
				return -1;
		struct scope *sc = ev->scope;
		ev->scope = caller;
		ev->mc = NULL;
		ev->prog = new_prog(ev);
		if (rec->path) {
			const char *p;
			if (eval_string(ev, rec->path, &p, "the file name"))
				return -1;
			if (!*p)
				return eval_error(ev, rec->path->loc, "the file name is empty");
			o->path = path_join(ev->a, ev->s->outdir, p);
			o->loc = ir_loc_of(rec->path->loc);
			/* a caret alone, as for the runtime's messages at this place */
			struct loc l = rec->path->loc;
			l.len = 1;
			if (add_file(ev, files, &nfile, o->path, l, 0))
				return -1;
		}
		if (rec->every) {
			long every;
			if (eval_int(ev, rec->every, &every, "every"))
				return -1;
			if (every < 1)
				return eval_error(ev, rec->every->loc, "every must be at least 1, not %ld", every);
			o->every = (int)every;
			/* the histories a script reads back keep every step */
			if (!rec->path)
				diag_warning(ev->d, rec->every->loc, "every %ld has no effect: this record writes no file "
				             "(every N thins the rows written to FILE by 'to FILE')", every);
		}
		ev->scope = sc;
		ev->mc = mc;
	}
	return series_clash(ev, files, nfile);
}

/* ---- runs ---- */

static int run_options(struct eval *ev, struct ast_run *ar, struct ir_run *run)
{
	for (int i = 0; i < ar->options.n; i++) {
		struct ast_arg *o = ar->options.v[i];
		for (int j = 0; j < i; j++)
			if (strcmp(((struct ast_arg *)ar->options.v[j])->name, o->name) == 0)
				return eval_error(ev, o->loc, "run option %s is given twice", o->name);
		if (strcmp(o->name, "solver") == 0) {
			struct ast_expr *v = o->value;
			const char *s = v->kind == AST_NAME ? v->name : NULL;
			if (s && strcmp(s, "dense") == 0)
				run->solver = IR_SOLVER_DENSE;
			else if (s && strcmp(s, "banded") == 0)
				run->solver = IR_SOLVER_BANDED;
			else if (s && strcmp(s, "sparse") == 0)
				run->solver = IR_SOLVER_SPARSE;
			else if (s && strcmp(s, "auto") == 0)
				run->solver = IR_SOLVER_AUTO;
			else if (s && (strcmp(s, "direct") == 0 || strcmp(s, "iterative") == 0)) {
#ifdef HAVE_PETSC
				const char *why = la_backend_load_error();
				if (why)
					return eval_error(ev, v->loc, "solver = %s is PETSc's, whose module does not load: %s",
					                  s, why);
				run->solver = s[0] == 'd' ? IR_SOLVER_DIRECT : IR_SOLVER_ITERATIVE;
#else
				return eval_error(ev, v->loc, "solver = %s is PETSc's, and this dyn is built without PETSc "
				                  "(see dyn --version; configure finds PETSc through pkg-config)", s);
#endif
			} else
				return eval_error(ev, v->loc, "solver must be dense, banded, sparse, auto, direct or iterative");
		} else if (strcmp(o->name, "history_budget") == 0) {
			double mb;
			if (eval_number(ev, o->value, &mb, "history_budget (MB)"))
				return -1;
			if (mb < 0 || mb > 1e9)
				return eval_error(ev, o->value->loc, "history_budget is in MB and must lie in [0, 1e9]");
			run->history_budget = (size_t)(mb * 1e6);
			/* asked for: every dof within the budget, as at the REPL */
			run->keep.all = 1;
		} else if (strcmp(o->name, "tolerance") == 0) {
			if (eval_number(ev, o->value, &run->tolerance, "tolerance"))
				return -1;
			/* Below 1e-16, under the unit roundoff 1.1e-16, no residual
			 * is attainable in double precision; above 1e-2 a step's
			 * equations would hold to worse than a percent, an error
			 * larger than any scheme's at a usable step, and divergence
			 * could pass for convergence. */
			if (!(run->tolerance >= 1e-16 && run->tolerance <= 1e-2))
				return eval_error(ev, o->value->loc, "tolerance is a relative residual between 1e-16 and "
				                  "1e-2 (the default is 1e-13), not %.6g", run->tolerance);
		} else if (strcmp(o->name, "max_iterations") == 0) {
			long k;
			if (eval_int(ev, o->value, &k, "max_iterations"))
				return -1;
			if (k < 1 || k > 1000)
				return eval_error(ev, o->value->loc, "max_iterations must lie in 1..1000");
			run->max_iterations = (int)k;
		} else if (strcmp(o->name, "contact_tolerance") == 0) {
			if (eval_number(ev, o->value, &run->contact_tolerance, "contact_tolerance"))
				return -1;
			/* the same range as tolerance, for the same reasons */
			if (!(run->contact_tolerance >= 1e-16 && run->contact_tolerance <= 1e-2))
				return eval_error(ev, o->value->loc, "contact_tolerance is a relative change of the impulses "
				                  "between 1e-16 and 1e-2 (the default is 1e-12), not %.6g",
				                  run->contact_tolerance);
		} else if (strcmp(o->name, "contact_iterations") == 0) {
			long k;
			if (eval_int(ev, o->value, &k, "contact_iterations"))
				return -1;
			if (k < 1 || k > 1000000)
				return eval_error(ev, o->value->loc, "contact_iterations must lie in 1..1000000");
			run->contact_iterations = (int)k;
		} else if (strcmp(o->name, "on_failure") == 0) {
			/* on_failure = halve(N) or stop */
			struct ast_expr *v = o->value;
			if (v->kind == AST_NAME && strcmp(v->name, "stop") == 0) {
				run->halvings = 0;
			} else if (v->kind == AST_CALL && v->lhs->kind == AST_NAME && strcmp(v->lhs->name, "halve") == 0 &&
			           v->args.n == 1) {
				long k;
				if (eval_int(ev, ((struct ast_arg *)v->args.v[0])->value, &k, "the number of halvings"))
					return -1;
				if (k < 0 || k > 20)
					return eval_error(ev, v->loc, "halve(N) takes N in 0..20");
				run->halvings = (int)k;
			} else {
				return eval_error(ev, v->loc, "on_failure is halve(N) or stop");
			}
		} else if (strcmp(o->name, "formulation") == 0) {
			/* DESIGN.md, "Constraint formulations": index3 is the one
			 * the steppers implement (runtime/stage.c) */
			struct ast_expr *v = o->value;
			const char *s = v->kind == AST_NAME ? v->name : NULL;
			if (s && strcmp(s, "ggl") == 0)
				run->ggl = 1;
			else if (s && strcmp(s, "regularized") == 0)
				run->regularized = 1;
			else if (!s || strcmp(s, "index3") != 0)
				return eval_error(ev, v->loc, "formulation must be index3, ggl or regularized");
		} else {
			return eval_error(ev, o->loc, "unknown run option '%s' (options: solver, history_budget, "
			                  "tolerance, max_iterations, contact_tolerance, contact_iterations, on_failure, formulation)",
			                  o->name);
		}
	}
	return 0;
}

/* The value of a stable index (check.c): numbers, the values bound to
 * names, + - * /; nothing is reported, 0 when it is not such a number. */
static int index_value(struct eval *ev, const struct ast_expr *e, double *out)
{
	double a, b;
	switch (e->kind) {
	case AST_NUM:
		*out = e->num;
		return 1;
	case AST_NAME: {
		struct binding *bd = scope_lookup(ev->scope, e->name);
		if (!bd && strcmp(e->name, "pi") == 0) {
			*out = M_PI;
			return 1;
		}
		if (!bd || bd->kind != B_VALUE || bd->val.kind != VAL_NUM || !bd->val.frozen)
			return 0;
		*out = bd->val.k;
		return 1;
	}
	case AST_UNARY:
		if (e->op != AST_OP_NEG || !index_value(ev, e->lhs, &a))
			return 0;
		*out = -a;
		return 1;
	case AST_BINARY:
		if (!index_value(ev, e->lhs, &a) || !index_value(ev, e->rhs, &b))
			return 0;
		switch (e->op) {
		case AST_OP_ADD: *out = a + b; return 1;
		case AST_OP_SUB: *out = a - b; return 1;
		case AST_OP_MUL: *out = a * b; return 1;
		case AST_OP_DIV: *out = a / b; return 1;
		default: return 0;
		}
	default:
		return 0;
	}
}

/* What the run keeps (struct ir_keep): the fields the script reads back,
 * resolved as run_field (eval.c) resolves them; everything (the dofs
 * within history_budget) when the run's value is passed on, at the REPL,
 * where any field may be asked for later, and when the run states its
 * history_budget. */
static void lower_keep(struct eval *ev, const struct ast_run *ar, struct ir_run *run)
{
	const struct ir_model *m = run->model;
	struct ir_keep *k = &run->keep;
	k->all = k->all || ar->keep_all || ev->s->interactive || ev->s->allow_redefine;
	if (k->all)
		return;
	int ncol = 0;
	for (int o = 0; o < run->noutput; o++)
		for (int j = 0; j < run->output[o].nrecord; j++)
			ncol += run->output[o].record[j].kind == IR_REC_EXPR;
	k->dof = arena_alloc(ev->a, (size_t)m->ndof + 1);
	k->intvar = arena_alloc(ev->a, (size_t)m->nint + 1);
	k->col = arena_alloc(ev->a, (size_t)ncol + 1);
	for (int q = 0; q < ar->uses.n; q++) {
		const struct ast_use *u = ar->uses.v[q];
		const char *name = u->field;
		if (strcmp(name, "t") == 0) {
			k->t = 1;
			continue;
		}
		int energy = -1;
		for (int i = 0; i < RT_NENERGY; i++)
			if (strcmp(name, rt_energy_name[i]) == 0)
				energy = i;
		if (energy >= 0) {
			/* r.dissipated[k]: the k-th term's share */
			if (energy == 2 && u->index)
				k->dterm = 1;
			else
				k->energy |= 1u << energy;
			continue;
		}
		if ((strcmp(name, "lambda") == 0 && m->nconstraint > 0) || (strcmp(name, "impulse") == 0 && m->contact.n > 0) ||
		    (strcmp(name, "impulse_t") == 0 && m->contact.friction)) {
			k->lam = 1;
			continue;
		}
		int c = 0, found = 0;
		for (int o = 0; o < run->noutput && !found; o++)
			for (int j = 0; j < run->output[o].nrecord && !found; j++)
				if (run->output[o].record[j].kind == IR_REC_EXPR) {
					if (strcmp(name, run->output[o].record[j].name) == 0) {
						k->col[c] = 1;
						found = 1;
					}
					c++;
				}
		if (found)
			continue;
		/* a dof or an internal variable, scalar or vector x[i]: one
		 * element when the index is known, else all of them */
		double iv;
		long idx = u->index && u->stable && index_value(ev, u->index, &iv) && iv == floor(iv) &&
		           fabs(iv) < 1e9 ? (long)iv : 0;
		for (int pass = 0; pass < 2 && !found; pass++) {
			const struct ir_dof_list *l = pass ? &m->intvars : &m->dofs;
			unsigned char *flag = pass ? k->intvar : k->dof;
			for (int g = 0; g < l->ngroup; g++) {
				const struct ir_dof_group *dg = &l->group[g];
				if (dg->size == 0 || strcmp(dg->name, name) != 0)
					continue;
				found = 1;
				/* x[idx] names element idx, not the idx-th unknown
				 * (a field with fixed dofs) */
				int one = idx ? ir_dof_group_unknown(dg, idx) : -1;
				for (int i = 0; i < dg->size; i++)
					if (idx == 0 || dg->first + i == one)
						flag[dg->first + i] = 1;
			}
		}
	}
}

int lower_run(struct eval *ev, struct ast_run *ar, struct ir_run **out)
{
	struct binding *b = scope_lookup(ev->scope, ar->model);
	if (!b)
		return eval_error(ev, ar->model_loc, "undefined model '%s'", ar->model);
	if (b->kind != B_MODEL)
		return eval_error(ev, ar->model_loc, "'%s' is not a model", ar->model);
	struct ir_run *run = arena_alloc(ev->a, sizeof *run);
	run->loc = ir_loc_of(ar->loc);
	run->step_loc = ir_loc_of(ar->dt->loc);
	run->history_budget = (size_t)512000000;   /* 512 MB */
	run->memory_limit = ev->s->memory_limit;
	if (run->memory_limit == 0) {
		/* Half the physical memory: the rest is for the system, the
		 * other programs and the run's own workspaces (dyn(1)). */
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		if (pages > 0 && size > 0) {
			run->memory_limit = (size_t)((double)pages * (double)size / 2);
			run->memory_limit_default = 1;
		}
	}
	run->tolerance = 1e-13;
	run->max_iterations = 25;
	run->contact_tolerance = 1e-12;
	run->contact_iterations = 1000;
	const char *env = getenv("DYN_HISTORY_BUDGET");
	if (env && *env) {
		char *end;
		double mb = strtod(env, &end);
		if (*end == '\0' && mb >= 0)
			run->history_budget = (size_t)(mb * 1e6);
	}

	/* Times, scheme and options are evaluated in the caller's scope. */
	struct scope *caller = ev->scope;
	ev->prog = new_prog(ev);
	if (eval_number(ev, ar->t0, &run->t0, "the start time") ||
	    eval_number(ev, ar->t1, &run->t1, "the end time") ||
	    eval_number(ev, ar->dt, &run->dt, "the step"))
		return -1;
	if (!(run->dt > 0))
		return eval_error(ev, ar->dt->loc, "the step must be positive, not %g", run->dt);
	if (!(run->t1 > run->t0))
		return eval_error(ev, ar->t1->loc, "the end time %g is not after the start time %g", run->t1, run->t0);
	if (!isfinite(run->t1 - run->t0))
		return eval_error(ev, ar->t1->loc, "the run from %g to %g is longer than a double can hold", run->t0,
		                  run->t1);
	/* The times t0 + k dt must be distinct and resolve the step: a step
	 * below 64 units in the last place of the largest time (about 1.5 %
	 * of the step) gave repeated times in the records and a history
	 * that read back NaN (from 1 to 1 + 1e-15 step 1e-16; from 1e17
	 * step 1). */
	double tmax = fmax(fabs(run->t0), fabs(run->t1)), dtmin = 64 * DBL_EPSILON * tmax;
	if (run->dt < dtmin)
		return eval_error(ev, ar->dt->loc, "the step %.3g is too small for times near %.3g: "
		                  "consecutive times would not be distinct in double precision (a step must exceed "
		                  "%.3g there); shift the time origin or take a larger step", run->dt, tmax, dtmin);
	double steps = ceil((run->t1 - run->t0) / run->dt - 1e-9);
	if (steps > 2e9)
		return eval_error(ev, ar->dt->loc, "%.3g steps are too many; take a larger step", steps);
	run->nstep = steps < 1 ? 1 : (int)steps;
	/* The last step is shortened when (T1 − T0)/τ falls short of n by more
	 * than the 1e-9 of the grid's definition plus the rounding of the
	 * division, which grows with n. */
	double ratio = (run->t1 - run->t0) / run->dt;
	run->last_dt = run->dt;
	if (ratio < run->nstep - (1e-9 + 8 * 2.2e-16 * run->nstep)) {
		run->last_dt = run->t1 - (run->t0 + (run->nstep - 1) * run->dt);
		diag_warning(ev->d, ar->dt->loc, "the last step is shortened to %.10g: the run's length is not a multiple of the step %.10g",
		             run->last_dt, run->dt);
	}
	if (resolve_scheme(ev, ar->scheme, &run->scheme, 0))
		return -1;
	struct ast_expr *sn = ar->scheme->kind == AST_CALL ? ar->scheme->lhs : ar->scheme;
	run->scheme.name = sn->name;
	run->scheme.loc = ir_loc_of(ar->scheme->loc);
	if (run_options(ev, ar, run))
		return -1;

	/* run MODEL(p = v): the values in the caller's scope (a sweep's loop
	 * variable), then the model with them */
	if (ar->overrides.n && run_overrides_check(ev->d, ev->a, b->stmt->model, ar, eval_script_value, ev))
		return -1;
	struct value *ov = arena_alloc(ev->a, sizeof *ov * (size_t)(ar->overrides.n + 1));
	for (int i = 0; i < ar->overrides.n; i++) {
		struct ast_arg *o = ar->overrides.v[i];
		ev->prog = new_prog(ev);
		if (eval_expr(ev, o->value, &ov[i]) || value_freeze(ev, &ov[i], o->value->loc, "a parameter"))
			return -1;
	}
	struct model_ctx *mc = arena_alloc(ev->a, sizeof *mc);
	mc->run = run;
	mc->has_t0 = 1;
	mc->t0 = run->t0;
	ev->overrides = &ar->overrides;
	ev->override_val = ov;
	int rc = lower_model(ev, b, &run->model, mc);
	ev->overrides = NULL;
	ev->override_val = NULL;
	/* the records see the model's names, then the run's own (a loop's
	 * variable and the body's lets, as the times and options do): the
	 * model's scope, fresh for this lowering, takes the caller's for
	 * its parent (the model's closure is the caller's or an ancestor) */
	if (rc == 0) {
		ev->scope->parent = caller;
		rc = lower_records(ev, mc, ar, run, caller);
	}
	/* the records' points are located: their meshes' bucket grids go
	 * before the run holds its state beside them */
	fe_drop_locators(ev);
	ev->scope = caller;
	ev->mc = NULL;
	if (rc)
		return -1;

	/* Storage: banded when the band is clearly cheaper than dense (and the
	 * damping is not the full modal matrix). */
	struct ir_model *m = run->model;
	/* Operators held as entries (above IR_FOLD_DENSE_MAX dofs): the runtime's
	 * matrix layer chooses banded or sparse from the structure. */
	run->solver_auto = run->solver == IR_SOLVER_AUTO;
	/* Below 16 dofs the choice stays the runtime's (auto): dense
	 * storage, factored by LAPACK's band routines when the step matrix
	 * is narrow (a chain: dpttrs in O(n)), densely otherwise
	 * (la_backend_choose). */
	if (run->solver == IR_SOLVER_AUTO && (m->mass.a || !ir_matrix_has_entries(&m->mass))) {
		int band = 2 * m->kl + m->ku + 1, modal = m->damping_kind == IR_DAMP_MODAL;
		if (!modal && m->ndof >= 16 && 2 * band <= m->ndof)
			run->solver = IR_SOLVER_BANDED;
		else if (modal || m->ndof >= 16)
			run->solver = IR_SOLVER_DENSE;
	}
	if (run->solver == IR_SOLVER_BANDED && m->damping_kind == IR_DAMP_MODAL)
		return eval_error(ev, ar->loc, "modal damping gives a full damping matrix: use solver = dense, sparse or "
		                  "auto");
	lower_keep(ev, ar, run);
	*out = run;
	return 0;
}
