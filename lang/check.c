/* check.c — static checks of a whole program before anything runs: every
 * name resolves and none is defined twice in one scope (DESIGN.md,
 * "Errors": such mistakes are found before stepping starts, not after a
 * long run).  Values, shapes and operators are checked when models are
 * lowered (lower.c); this pass only needs the scoping rules:
 *   - top-level names are visible after their definition, in program order;
 *   - a for body, a function body and a model are scopes of their own;
 *   - inside a model: its params, its dofs and t; record expressions of a
 *     run see the model's names too;
 *   - field names of runs (r.u) are checked when the run exists.
 * It also notes, on each run bound by `let NAME = run`, which of its
 * fields the program reads back (struct ast_use), so that the run keeps
 * those histories and nothing else (dyn(5), "Results"). */
#include <config.h>

#include "check.h"
#include "fe.h"
#include "interp.h"

#include <string.h>
#include <sys/stat.h>

struct cname {
	const char *name;
	enum bind_kind kind;
	struct loc loc;
	struct ast_model *model;   /* B_MODEL */
	struct ast_run *run;       /* let NAME = run ...: the run */
	int seq;                   /* order of definition in the program */
	struct cname *next;
};

struct cscope {
	struct cname *head;
	struct cscope *parent;
	struct name_index index;   /* of head's list (names.h) */
};

/* The chain of modules being imported, from the script to the statement
 * being checked: a module that imports itself, directly or through
 * others, is refused here rather than read and checked forever. */
struct import_frame {
	const char *path;
	int have_id;            /* dev and ino are the file's identity */
	dev_t dev;
	ino_t ino;
	const char *name;       /* NULL: the script itself */
	struct loc loc;         /* where it was imported */
	struct import_frame *up;
};

/* A name bound in the body of a for loop (its variable, a let), which a
 * run in that body may expect to change a model's parameter. */
struct loop_name {
	const char *name;
	struct loc loc;
	int warned;
	struct loop_name *next;
};

struct checker {
	struct session *s;
	struct loop_name *loop_names;
	int loop_depth;
	struct import_frame *importing;
	struct arena *a;
	struct diag *d;
	struct cscope *scope;
	struct cscope *globals;
	int in_model;           /* t is defined */
	int in_fields;          /* a model with fields: x, y, z are defined */
	int allow_redefine;
	int errors;
	int depth;
	int seq;                /* definitions so far */
	int redefining;         /* a model's names again (run's records):
	                           its duplicates were reported once */
	struct ast_model *file_model;   /* the run's model while its file names
	                           are checked: they see the script's names */
};

static void frame_of(struct import_frame *fr, const char *path, const char *name, struct loc loc)
{
	struct stat sb;
	memset(fr, 0, sizeof *fr);
	fr->path = path;
	fr->name = name;
	fr->loc = loc;
	if (path && stat(path, &sb) == 0) {
		fr->have_id = 1;
		fr->dev = sb.st_dev;
		fr->ino = sb.st_ino;
	}
}

/* One file, whatever the spelling of its path (./a.dyn, a link). */
static int same_file(const struct import_frame *a, const struct import_frame *b)
{
	if (a->have_id && b->have_id)
		return a->dev == b->dev && a->ino == b->ino;
	return a->path && b->path && strcmp(a->path, b->path) == 0;
}

static struct cname *lookup(struct cscope *sc, const char *name)
{
	for (; sc; sc = sc->parent) {
		struct cname *n = name_index_find(&sc->index, sc->head, name);
		if (n)
			return n;
	}
	return NULL;
}

/* For run_overrides_check: name is a value of the script in scope. */
static int script_value(void *ctx, const char *name)
{
	struct checker *c = ctx;
	struct cname *n = lookup(c->scope, name);
	return n && n->kind == B_VALUE;
}

static struct cname *define(struct checker *c, const char *name, enum bind_kind kind, struct loc loc);

/* A name the script may not define (pi, t, a built-in function), said
 * before anything runs as the run's own binding would say it
 * (scope_bind): a statement's, a model item's or a loop's name, not a
 * sum's index or a function's parameter, which eval binds apart */
static void reserved(struct checker *c, const char *name, enum bind_kind kind, struct loc loc)
{
	if (builtin_exists(name) || strcmp(name, "pi") == 0 || strcmp(name, "t") == 0 || strcmp(name, "true") == 0 ||
	    strcmp(name, "false") == 0) {
		diag_error(c->d, loc, "'%s' is a built-in name and cannot be redefined", name);
		c->errors++;
	} else if (kind == B_SCHEME && ir_family_find(name) >= 0) {
		/* a scheme of that name would replace the family in every run
		 * that names it, the library's schemes built on it included (a
		 * value of that name is no scheme: a run naming it is refused) */
		diag_error(c->d, loc, "'%s' is a built-in scheme family and cannot be redefined", name);
		c->errors++;
	}
}

static struct cname *define_named(struct checker *c, const char *name, enum bind_kind kind, struct loc loc)
{
	if (!c->redefining)
		reserved(c, name, kind, loc);
	return define(c, name, kind, loc);
}

static struct cname *define(struct checker *c, const char *name, enum bind_kind kind, struct loc loc)
{
	struct cname *n = name_index_find(&c->scope->index, c->scope->head, name);
	if (n) {
		if (c->allow_redefine && c->scope == c->globals) {
			n->kind = kind;
			n->run = NULL;
			n->seq = ++c->seq;
			return n;
		}
		if (c->redefining)
			return n;
		diag_error(c->d, loc, "'%s' is already defined", name);
		if (n->loc.file)
			diag_note(c->d, n->loc, "'%s' was defined here", name);
		c->errors++;
		return n;
	}
	n = arena_alloc(c->a, sizeof *n);
	n->name = name;
	n->kind = kind;
	n->loc = loc;
	n->seq = ++c->seq;
	n->next = c->scope->head;
	c->scope->head = n;
	return n;
}

static void push(struct checker *c)
{
	struct cscope *sc = arena_alloc(c->a, sizeof *sc);
	sc->parent = c->scope;
	NAME_INDEX_INIT(&sc->index, c->a, struct cname);
	c->scope = sc;
}

static void pop(struct checker *c)
{
	c->scope = c->scope->parent;
}

/* Whether model m declares name (a parameter, a let, a dof, an internal
 * variable, a field). */
static int model_declares(const struct ast_model *m, const char *name)
{
	for (int i = 0; i < m->items.n; i++) {
		const struct ast_item *it = m->items.v[i];
		if (it->kind == AST_ITEM_PARAM || it->kind == AST_ITEM_LET) {
			for (int k = 0; k < it->defs.n; k++)
				if (strcmp(((const struct ast_arg *)it->defs.v[k])->name, name) == 0)
					return 1;
		} else if (it->kind == AST_ITEM_FIELD) {
			if (strcmp(it->target->name, name) == 0)
				return 1;
		} else if (it->kind == AST_ITEM_DOF || it->kind == AST_ITEM_INTERNAL) {
			for (int k = 0; k < it->names.n; k++) {
				const struct ast_expr *d = it->names.v[k];
				if (strcmp((d->kind == AST_INDEX ? d->lhs : d)->name, name) == 0)
					return 1;
			}
		}
	}
	return 0;
}

/* An undefined name, with the closest name that would do in its place
 * (names.c): a model for a model; any name in scope or built in for a
 * name or a function. */
static void undefined(struct checker *c, struct loc loc, const char *what, const char *name)
{
	if (c->file_model && model_declares(c->file_model, name)) {
		diag_error(c->d, loc, "'%s' is a name of model %s, known during the run only: a file name is made "
		           "before the run, from the script's names", name, c->file_model->name);
		c->errors++;
		return;
	}
	if (strcmp(what, "name") == 0 && ir_family_find(name) >= 0) {
		/* print newmark: a family, as `print hht` is a named scheme */
		diag_error(c->d, loc, "%s is a scheme: use it in 'run MODEL with %s ...'", name, name);
		c->errors++;
		return;
	}
	const char *best = NULL;
	int bd = 0, model = strcmp(what, "model") == 0;
	for (struct cscope *s = c->scope; s; s = s->parent)
		for (struct cname *n = s->head; n; n = n->next)
			if (!model || n->kind == B_MODEL)
				name_consider(name, n->name, &best, &bd);
	for (int i = 0; !model && builtin_names[i]; i++)
		name_consider(name, builtin_names[i], &best, &bd);
	if (best)
		diag_error(c->d, loc, "undefined %s '%s'; did you mean '%s'?", what, name, best);
	else
		diag_error(c->d, loc, "undefined %s '%s'", what, name);
	c->errors++;
}

static void expr(struct checker *c, struct ast_expr *e);

static void args(struct checker *c, struct ast_vec *v)
{
	for (int i = 0; i < v->n; i++)
		expr(c, ((struct ast_arg *)v->v[i])->value);
}

static void expr1(struct checker *c, struct ast_expr *e);

/* The run NAME is bound to by `let NAME = run ...` here, or NULL. */
static struct cname *run_name(struct checker *c, const struct ast_expr *e)
{
	if (e->kind != AST_NAME)
		return NULL;
	struct cname *n = lookup(c->scope, e->name);
	return n && n->run ? n : NULL;
}

/* Does an index name only numbers, and values defined before the
 * definition numbered seq (the run's), so that lowering the run can
 * evaluate it to the value it has where it is used?  Bindings are never
 * redefined outside the REPL, and a name found here with an earlier
 * number is one the run's own place sees too. */
static int stable(struct checker *c, const struct ast_expr *e, int seq)
{
	switch (e->kind) {
	case AST_NUM:
		return 1;
	case AST_NAME: {
		struct cname *n = lookup(c->scope, e->name);
		if (!n)
			return strcmp(e->name, "pi") == 0;
		return n->kind == B_VALUE && !n->run && n->seq < seq;
	}
	case AST_UNARY:
		return e->op == AST_OP_NEG && stable(c, e->lhs, seq);
	case AST_BINARY:
		return (e->op == AST_OP_ADD || e->op == AST_OP_SUB || e->op == AST_OP_MUL || e->op == AST_OP_DIV) &&
		       stable(c, e->lhs, seq) && stable(c, e->rhs, seq);
	default:
		return 0;
	}
}

/* The program reads field (index: element) of run r; seq as for stable. */
static void use(struct checker *c, struct ast_run *r, const char *field, struct ast_expr *index, int seq)
{
	struct ast_use *u = arena_alloc(c->a, sizeof *u);
	u->field = field;
	u->index = index;
	u->stable = index && stable(c, index, seq);
	ast_vec_push(c->a, &r->uses, u);
}

/* Expressions nest as deep as they are long: past the evaluator's limit
 * the evaluator reports it, so the checker stops descending there. */
static void expr(struct checker *c, struct ast_expr *e)
{
	if (!e || c->depth > 5000)
		return;
	c->depth++;
	expr1(c, e);
	c->depth--;
}

static void expr1(struct checker *c, struct ast_expr *e)
{
	switch (e->kind) {
	case AST_NUM:
	case AST_STR:
		return;
	case AST_NAME: {
		struct cname *rn = run_name(c, e);
		if (rn) {
			/* a run's value passed on or copied: whoever gets it may
			 * read any of its histories */
			rn->run->keep_all = 1;
			return;
		}
		if (lookup(c->scope, e->name) || strcmp(e->name, "pi") == 0 ||
		    strcmp(e->name, "true") == 0 || strcmp(e->name, "false") == 0)
			return;
		if (strcmp(e->name, "t") == 0) {
			if (!c->in_model) {
				diag_error(c->d, e->loc, "t is the time inside a model; it is undefined here");
				c->errors++;
			}
			return;
		}
		if (builtin_exists(e->name) || fe_function_exists(e->name))
			return;   /* "is a function" is reported when evaluated */
		if (c->in_fields && e->name[1] == 0 && (e->name[0] == 'x' || e->name[0] == 'y' || e->name[0] == 'z'))
			return;   /* a point of the mesh (dyn(5), MESHES AND FIELDS) */
		undefined(c, e->loc, "name", e->name);
		return;
	}
	case AST_CALL:
		if (e->lhs->kind == AST_NAME) {
			const char *n = e->lhs->name;
			if (!lookup(c->scope, n) && !builtin_exists(n) && !fe_function_exists(n) && strcmp(n, "rayleigh") != 0 &&
			    strcmp(n, "modal") != 0)
				undefined(c, e->lhs->loc, "function", n);
			/* integral(MESH or REGION, ...): the region is resolved by
			 * lowering, among the regions of the fields' meshes */
			if (strcmp(n, "integral") == 0 && !lookup(c->scope, n)) {
				for (int i = 0; i < e->args.n; i++) {
					struct ast_expr *a = ((struct ast_arg *)e->args.v[i])->value;
					if (!(i == 0 && a->kind == AST_NAME))
						expr(c, a);
				}
				return;
			}
			/* spectral_radius(SCHEME, wt): the scheme is resolved later */
			if (strcmp(n, "spectral_radius") == 0) {
				for (int i = 0; i < e->args.n; i++) {
					struct ast_expr *a = ((struct ast_arg *)e->args.v[i])->value;
					if (i == 0 && a->kind == AST_CALL)
						args(c, &a->args);
					else if (i > 0)
						expr(c, a);
				}
				return;
			}
			/* modes(MODEL, k): the first argument names a model */
			if (strcmp(n, "modes") == 0 && e->args.n > 0 && !lookup(c->scope, n)) {
				for (int i = 1; i < e->args.n; i++)
					expr(c, ((struct ast_arg *)e->args.v[i])->value);
				return;
			}
			/* spectrum(ACCEL, ...): the acceleration is a function of t */
			if (strcmp(n, "spectrum") == 0 && e->args.n > 0 && !lookup(c->scope, n)) {
				int saved = c->in_model;
				c->in_model = 1;
				expr(c, ((struct ast_arg *)e->args.v[0])->value);
				c->in_model = saved;
				for (int i = 1; i < e->args.n; i++)
					expr(c, ((struct ast_arg *)e->args.v[i])->value);
				return;
			}
			/* matrix(r, c, f) and vector(n, f) take a function's name */
			if (strcmp(n, "matrix") == 0 || strcmp(n, "vector") == 0) {
				for (int i = 0; i < e->args.n; i++) {
					struct ast_expr *a = ((struct ast_arg *)e->args.v[i])->value;
					if (i == e->args.n - 1 && a->kind == AST_NAME) {
						struct cname *f = lookup(c->scope, a->name);
						int builtin = 0;
						for (int b = 0; !f && builtin_names[b]; b++)
							builtin |= strcmp(builtin_names[b], a->name) == 0;
						if (builtin) {
							/* a built-in is no function of the script */
							int mat = n[0] == 'm';
							diag_error(c->d, a->loc, "%s needs the name of a function of the script "
							           "(function f(%s) = %s(%s), then %s(..., f)), not the built-in %s",
							           n, mat ? "i, j" : "i", a->name, mat ? "i, j" : "i", n, a->name);
							c->errors++;
						} else if (!f)
							undefined(c, a->loc, "function", a->name);
					} else {
						expr(c, a);
					}
				}
				return;
			}
		} else {
			expr(c, e->lhs);
		}
		args(c, &e->args);
		return;
	case AST_FIELD: {
		struct cname *rn = run_name(c, e->lhs);
		if (rn)
			use(c, rn->run, e->name, NULL, rn->seq);
		else
			expr(c, e->lhs);
		return;
	}
	case AST_PRIME:
	case AST_UNARY:
		expr(c, e->lhs);
		return;
	case AST_INDEX:
		if (e->lhs->kind == AST_FIELD && run_name(c, e->lhs->lhs)) {
			/* r.x[i], r.lambda[k], r.dissipated[k] */
			struct cname *rn = run_name(c, e->lhs->lhs);
			use(c, rn->run, e->lhs->name, e->rhs, rn->seq);
			expr(c, e->rhs);
			return;
		}
		expr(c, e->lhs);
		expr(c, e->rhs);
		return;
	case AST_BINARY:
	case AST_PAIR:
		expr(c, e->lhs);
		expr(c, e->rhs);
		return;
	case AST_ENTRY:
		expr(c, e->lhs);
		expr(c, e->lo);
		expr(c, e->hi);
		return;
	case AST_IF:
		expr(c, e->cond);
		expr(c, e->lhs);
		expr(c, e->rhs);
		return;
	case AST_MATRIX:
		for (int i = 0; i < e->rows.n; i++) {
			struct ast_vec *r = e->rows.v[i];
			for (int j = 0; j < r->n; j++)
				expr(c, r->v[j]);
		}
		return;
	case AST_SUM:
		expr(c, e->lo);
		expr(c, e->hi);
		push(c);
		define(c, e->name, B_VALUE, e->loc);
		expr(c, e->lhs);
		pop(c);
		return;
	case AST_RANGE:
		expr(c, e->lo);
		expr(c, e->hi);
		expr(c, e->rhs);
		return;
	case AST_RUN:
		return;   /* handled by run() with the model's scope */
	}
}

/* The names a model defines, in a fresh scope left pushed.  again: the
 * model was checked already (a run's records see its names): its
 * parameters' values and duplicates are not reported a second time. */
static void model_scope(struct checker *c, struct ast_model *m, int again)
{
	c->redefining = again;
	push(c);
	c->in_fields = 0;
	for (int i = 0; i < m->items.n; i++)
		c->in_fields |= ((struct ast_item *)m->items.v[i])->kind == AST_ITEM_FIELD;
	for (int i = 0; i < m->items.n; i++) {
		struct ast_item *it = m->items.v[i];
		if (it->kind == AST_ITEM_PARAM || it->kind == AST_ITEM_LET)
			for (int k = 0; k < it->defs.n; k++) {
				struct ast_arg *d = it->defs.v[k];
				if (!again)
					expr(c, d->value);
				define_named(c, d->name, B_VALUE, d->loc);
			}
		else if (it->kind == AST_ITEM_FIELD)
			define_named(c, it->target->name, B_DOF, it->target->loc);
		else if (it->kind == AST_ITEM_DOF || it->kind == AST_ITEM_INTERNAL)
			for (int k = 0; k < it->names.n; k++) {
				struct ast_expr *d = it->names.v[k];
				struct ast_expr *nm = d->kind == AST_INDEX ? d->lhs : d;
				if (d->kind == AST_INDEX && !again)
					expr(c, d->rhs);
				define_named(c, nm->name, B_DOF, nm->loc);
			}
	}
	c->redefining = 0;
}

static void model(struct checker *c, struct ast_model *m)
{
	model_scope(c, m, 0);
	c->in_model = 1;
	for (int i = 0; i < m->items.n; i++) {
		struct ast_item *it = m->items.v[i];
		switch (it->kind) {
		case AST_ITEM_PARAM:
		case AST_ITEM_LET:
		case AST_ITEM_DOF:
		case AST_ITEM_INTERNAL:
			break;
		case AST_ITEM_FIELD:
		case AST_ITEM_FIX:
			/* meshes, regions and elements are resolved by lowering,
			 * which knows the mesh (did-you-mean among its regions) */
			break;
		case AST_ITEM_FORCE:
		case AST_ITEM_INIT:
			for (int k = 0; k < it->names.n; k++)
				expr(c, it->names.v[k]);
			break;
		case AST_ITEM_CONSTRAINT:
		case AST_ITEM_CONTACT:
			if (it->target && it->value->kind == AST_BINARY && it->value->lhs->kind == AST_NAME) {
				/* constraint u on REGION == EXPR, contact u on REGION >= EXPR */
				expr(c, it->value->rhs);
				expr(c, it->dir);
				expr(c, it->restitution);
				break;
			}
			if (it->kind == AST_ITEM_CONTACT) {
				expr(c, it->value);
				expr(c, it->restitution);
				expr(c, it->friction);
				expr(c, it->along);
				break;
			}
			expr(c, it->value);
			break;
		case AST_ITEM_FOR:
			/* for i in a..b { constraint ... }: i is a number inside */
			expr(c, it->value);
			expr(c, it->dir);
			push(c);
			define(c, it->target->name, B_VALUE, it->target->loc);
			for (int k = 0; k < it->names.n; k++) {
				struct ast_item *in = it->names.v[k];
				if (in->kind == AST_ITEM_FORCE) {
					for (int j = 0; j < in->names.n; j++)
						expr(c, in->names.v[j]);
				} else if ((in->kind != AST_ITEM_CONSTRAINT && in->kind != AST_ITEM_CONTACT) || in->target ||
				           in->along) {
					diag_error(c->d, in->loc, "only constraint, contact (without on or along) and force items "
					           "may stand in a model's for (a family of them, one per value of %s)",
					           it->target->name);
					c->errors++;
				} else {
					expr(c, in->value);
					expr(c, in->restitution);
					expr(c, in->friction);
				}
			}
			pop(c);
			break;
		default:
			expr(c, it->value);
			expr(c, it->dir);
			expr(c, it->restitution);
			expr(c, it->friction);
			expr(c, it->along);
		}
	}
	c->in_model = 0;
	c->in_fields = 0;
	pop(c);
}

/* Whether an expression mentions a name (param Tn = Tn takes the value
 * of the name outside the model). */
static int mentions(const struct ast_expr *e, const char *name)
{
	if (!e)
		return 0;
	if (e->kind == AST_NAME && strcmp(e->name, name) == 0)
		return 1;
	if (mentions(e->lhs, name) || mentions(e->rhs, name) || mentions(e->cond, name) || mentions(e->lo, name) ||
	    mentions(e->hi, name))
		return 1;
	for (int i = 0; i < e->args.n; i++)
		if (mentions(((const struct ast_arg *)e->args.v[i])->value, name))
			return 1;
	for (int i = 0; i < e->rows.n; i++) {
		const struct ast_vec *row = e->rows.v[i];
		for (int j = 0; j < row->n; j++)
			if (mentions(row->v[j], name))
				return 1;
	}
	return 0;
}

/* A let (or loop variable) in a loop's body named as a parameter of the
 * model run there changes nothing, since a model's parameters shadow the
 * names outside it: every pass would run the same model.  Warn, once,
 * and show the override that varies it. */
static void shadowed_params(struct checker *c, const struct ast_run *r, const struct ast_model *m)
{
	for (int i = 0; i < m->items.n; i++) {
		const struct ast_item *it = m->items.v[i];
		if (it->kind != AST_ITEM_PARAM)
			continue;
		for (int k = 0; k < it->defs.n; k++) {
			const struct ast_arg *d = it->defs.v[k];
			int over = 0;
			for (int j = 0; j < r->overrides.n && !over; j++)
				over = strcmp(((const struct ast_arg *)r->overrides.v[j])->name, d->name) == 0;
			if (over || mentions(d->value, d->name))
				continue;
			for (struct loop_name *l = c->loop_names; l; l = l->next) {
				if (strcmp(l->name, d->name) != 0)
					continue;
				if (!l->warned) {
					l->warned = 1;
					diag_warning(c->d, l->loc, "'%s' does not change the parameter %s of model %s, "
					             "declared in the model: to vary it, write 'run %s(%s = %s) with ...'",
					             l->name, d->name, m->name, m->name, d->name, l->name);
					diag_note(c->d, d->loc, "%s.%s is declared here", m->name, d->name);
				}
				break;
			}
		}
	}
}

/* Whether any item of model m reads name */
static int model_reads(const struct ast_model *m, const char *name)
{
	for (int i = 0; i < m->items.n; i++) {
		const struct ast_item *it = m->items.v[i];
		if (mentions(it->target, name) || mentions(it->value, name) || mentions(it->dir, name) ||
		    mentions(it->restitution, name) || mentions(it->friction, name) || mentions(it->along, name))
			return 1;
		for (int k = 0; k < it->defs.n; k++)
			if (mentions(((const struct ast_arg *)it->defs.v[k])->value, name))
				return 1;
		for (int k = 0; k < it->names.n; k++)
			if (mentions(it->names.v[k], name))
				return 1;
	}
	return 0;
}

/* A let in a loop's body named as a top-level name that a model declared
 * at the top level reads (stiffness [k] under param k = 4): the model
 * sees the top-level one, and every pass would run the same model.  Warn,
 * once, with what varies it. */
static void shadowed_globals(struct checker *c, const struct ast_run *r, const char *mname,
                             const struct ast_model *m)
{
	if (!name_index_find(&c->globals->index, c->globals->head, mname))
		return;
	for (struct loop_name *l = c->loop_names; l; l = l->next) {
		if (l->warned || model_declares(m, l->name) || !model_reads(m, l->name) ||
		    !name_index_find(&c->globals->index, c->globals->head, l->name))
			continue;
		int over = 0;
		for (int j = 0; j < r->overrides.n && !over; j++)
			over = strcmp(((const struct ast_arg *)r->overrides.v[j])->name, l->name) == 0;
		if (over)
			continue;
		l->warned = 1;
		diag_warning(c->d, l->loc, "'%s' does not change model %s, which reads the top-level %s: to vary it, "
		             "declare 'param %s' in the model and write 'run %s(%s = %s) with ...'",
		             l->name, mname, l->name, l->name, mname, l->name, l->name);
	}
}

/* A plot in a run's block names the run's fields directly (plot sigma
 * vs u, x[2]'); the rest of its expressions are evaluated as anywhere
 * (exec.c, rebase).  Its indexes are evaluated after the run, in the
 * scope the run sees now: stable. */
static void plot_uses(struct checker *c, struct ast_run *r, struct ast_expr *e)
{
	switch (e->kind) {
	case AST_NAME:
		use(c, r, e->name, NULL, 0);
		return;
	case AST_PRIME:
		plot_uses(c, r, e->lhs);
		return;
	case AST_PAIR:
		plot_uses(c, r, e->lhs);
		plot_uses(c, r, e->rhs);
		return;
	case AST_INDEX:
		if (e->lhs->kind == AST_NAME) {
			use(c, r, e->lhs->name, e->rhs, c->seq + 1);
			expr(c, e->rhs);
		} else {
			plot_uses(c, r, e->lhs);
			expr(c, e->rhs);
		}
		return;
	default:
		expr(c, e);
		return;
	}
}

static void run(struct checker *c, struct ast_run *r)
{
	/* a model declared in a loop's body runs there (a sweep) */
	struct cname *m = lookup(c->scope, r->model);
	/* the scheme: a family, a declared scheme or an unknown name, which
	 * lowering reports with the list of schemes */
	struct ast_expr *s = r->scheme;
	if (s->kind == AST_CALL)
		args(c, &s->args);
	args(c, &r->overrides);
	expr(c, r->t0);
	expr(c, r->t1);
	expr(c, r->dt);
	for (int i = 0; i < r->options.n; i++) {
		struct ast_expr *v = ((struct ast_arg *)r->options.v[i])->value;
		/* solver = banded, on_failure = halve(4): words of the option */
		if (v->kind != AST_NAME && !(v->kind == AST_CALL && v->lhs->kind == AST_NAME))
			expr(c, v);
	}
	if (!m) {
		undefined(c, r->model_loc, "model", r->model);
		return;
	}
	if (m->kind != B_MODEL)
		return;   /* reported by lowering: "'x' is not a model" */
	for (int k = 0; k < r->records.n; k++) {
		struct ast_record *rec = r->records.v[k];
		c->file_model = m->model;
		expr(c, rec->path);
		if (rec->plot)
			expr(c, rec->plot->path);   /* its series are the run's names */
		c->file_model = NULL;
		expr(c, rec->every);
	}
	for (int k = 0; k < r->records.n; k++) {
		struct ast_record *rec = r->records.v[k];
		for (int i = 0; rec->plot && i < rec->plot->exprs.n; i++)
			plot_uses(c, r, rec->plot->exprs.v[i]);
	}
	if (!m->model)
		return;   /* a model of an earlier REPL input: lowering checks it */
	c->errors += run_overrides_check(c->d, c->a, m->model, r, script_value, c);
	shadowed_params(c, r, m->model);
	shadowed_globals(c, r, m->name, m->model);
	/* record NAME = EXPR sees the model's names; plain items (t, u',
	 * energy) are checked by lowering, which knows their meaning */
	model_scope(c, m->model, 1);
	c->in_model = 1;
	for (int k = 0; k < r->records.n; k++) {
		struct ast_record *rec = r->records.v[k];
		for (int i = 0; i < rec->items.n && !rec->plot; i++) {
			struct ast_record_item *it = rec->items.v[i];
			if (it->name)
				expr(c, it->expr);
			for (int j = 0; j < it->at.n; j++)
				expr(c, it->at.v[j]);
		}
	}
	c->in_model = 0;
	c->in_fields = 0;
	pop(c);
}

static void stmts(struct checker *c, struct ast_vec *v);

/* Remember a name bound inside a loop's body (see shadowed_params). */
static void loop_name(struct checker *c, const char *name, struct loc loc)
{
	if (!c->loop_depth)
		return;
	struct loop_name *l = arena_alloc(c->a, sizeof *l);
	l->name = name;
	l->loc = loc;
	l->next = c->loop_names;
	c->loop_names = l;
}

static void stmt(struct checker *c, struct ast_stmt *st)
{
	switch (st->kind) {
	case AST_STMT_PARAM:
		for (int i = 0; i < st->defs.n; i++) {
			struct ast_arg *d = st->defs.v[i];
			expr(c, d->value);
			define_named(c, d->name, B_VALUE, d->loc);
		}
		return;
	case AST_STMT_LET:
		for (int i = 0; i < (st->name ? 1 : st->defs.n); i++) {
			struct ast_arg *d = st->name ? NULL : st->defs.v[i];
			struct ast_expr *v = d ? d->value : st->value;
			if (v->kind == AST_RUN)
				run(c, v->run);
			else
				expr(c, v);
			struct cname *n = define_named(c, d ? d->name : st->name, B_VALUE, d ? d->loc : st->name_loc);
			if (v->kind == AST_RUN)
				n->run = v->run;
			loop_name(c, d ? d->name : st->name, d ? d->loc : st->name_loc);
		}
		return;
	case AST_STMT_FUNCTION:
	case AST_STMT_SCHEME:
		/* defined first: a body may not call itself usefully, but a
		 * recursive call is reported at run time with a clear message */
		define_named(c, st->name, st->kind == AST_STMT_FUNCTION ? B_FUNCTION : B_SCHEME, st->name_loc);
		push(c);
		for (int i = 0; i < st->params.n; i++) {
			struct ast_arg *p = st->params.v[i];
			define(c, p->name, B_VALUE, p->loc);
			/* said at the definition, before anything runs (a call
			 * said it, after the statements before it had run) */
			if (i == 16 && st->kind == AST_STMT_FUNCTION) {
				diag_error(c->d, p->loc, "%s has more than 16 parameters", st->name);
				c->errors++;
			}
		}
		if (st->kind == AST_STMT_FUNCTION) {
			/* a function may be called inside a model, where t and the
			 * dofs exist: names it cannot see are caught when called */
			int saved = c->in_model;
			c->in_model = 1;
			expr(c, st->value);
			c->in_model = saved;
		} else {
			if (st->value->kind == AST_CALL)
				args(c, &st->value->args);
			expr(c, st->cond);
		}
		pop(c);
		return;
	case AST_STMT_MESH:
		/* cells = triangles: a word of the generator */
		if (st->value->kind == AST_CALL)
			for (int i = 0; i < st->value->args.n; i++) {
				struct ast_arg *g = st->value->args.v[i];
				if (!(g->name && strcmp(g->name, "cells") == 0 && g->value->kind == AST_NAME))
					expr(c, g->value);
			}
		else
			expr(c, st->value);
		define_named(c, st->name, B_MESH, st->name_loc);
		loop_name(c, st->name, st->name_loc);
		return;
	case AST_STMT_MODEL:
		model(c, st->model);
		define_named(c, st->name, B_MODEL, st->name_loc)->model = st->model;
		return;
	case AST_STMT_FOR: {
		expr(c, st->lo);
		expr(c, st->hi);
		push(c);
		define_named(c, st->name, B_VALUE, st->name_loc);
		struct loop_name *saved = c->loop_names;
		c->loop_depth++;
		loop_name(c, st->name, st->name_loc);
		stmts(c, &st->body);
		c->loop_depth--;
		c->loop_names = saved;
		pop(c);
		return;
	}
	case AST_STMT_PRINT:
	case AST_STMT_PLOT:
		for (int i = 0; i < st->exprs.n; i++)
			expr(c, st->exprs.v[i]);
		if (st->path)
			expr(c, st->path);
		else if (st->kind == AST_STMT_PLOT && !c->s->term_plot) {
			/* found before any run steps, not after them */
			diag_error(c->d, st->loc, "plot needs a file: plot Y to \"FILE.svg\" (at the prompt, :plot Y "
			           "draws on the terminal)");
			c->errors++;
		}
		args(c, &st->defs);
		return;
	case AST_STMT_CHECK:
		expr(c, st->value);
		expr(c, st->tol);
		return;
	case AST_STMT_IMPORT: {
		/* the module's names join the importing scope */
		if (strcmp(st->name, "schemes") == 0)
			return;
		if (import_module(c->s, st)) {
			c->errors++;
			return;
		}
		struct import_frame fr;
		frame_of(&fr, st->module_path, st->name, st->name_loc);
		for (struct import_frame *f = c->importing; f; f = f->up) {
			if (!same_file(f, &fr))
				continue;
			/* the chain from the first import of the module to this one */
			const char *chain = st->name;
			for (struct import_frame *g = c->importing; g != f; g = g->up)
				chain = arena_printf(c->a, "%s -> %s", g->name, chain);
			chain = arena_printf(c->a, "%s -> %s", st->name, chain);
			if (f->name) {
				diag_error(c->d, st->name_loc, "import cycle: %s", chain);
				diag_note(c->d, f->loc, "'%s' is first imported here", f->name);
			} else {
				diag_error(c->d, st->name_loc, "import cycle: %s ('%s' is the script being run)", chain,
				           st->name);
			}
			c->errors++;
			return;
		}
		fr.up = c->importing;
		c->importing = &fr;
		stmts(c, &st->module->stmts);
		c->importing = fr.up;
		return;
	}
	case AST_STMT_EXPR:
		if (st->value->kind == AST_RUN)
			run(c, st->value->run);
		else
			expr(c, st->value);
		return;
	}
}

static void stmts(struct checker *c, struct ast_vec *v)
{
	for (int i = 0; i < v->n; i++)
		stmt(c, v->v[i]);
}

int check_program(struct session *s, const struct ast_program *prog)
{
	struct checker c = { 0 };
	c.s = s;
	c.a = s->arena;
	c.d = &s->diag;
	c.allow_redefine = s->allow_redefine;
	/* The session's names so far (stdlib, earlier REPL input) are the
	 * outermost scope. */
	c.globals = arena_alloc(s->arena, sizeof *c.globals);
	NAME_INDEX_INIT(&c.globals->index, s->arena, struct cname);
	for (struct binding *b = s->globals->head; b; b = b->next) {
		struct cname *n = arena_alloc(s->arena, sizeof *n);
		n->name = b->name;
		n->kind = b->kind;
		n->next = c.globals->head;
		c.globals->head = n;
	}
	c.scope = c.globals;
	/* the script itself heads the chain of imports */
	struct import_frame script;
	frame_of(&script, prog->stmts.n ? ((struct ast_stmt *)prog->stmts.v[0])->loc.file : NULL, NULL,
	         (struct loc){ 0 });
	c.importing = &script;
	stmts(&c, (struct ast_vec *)&prog->stmts);
	return c.errors ? -1 : 0;
}
