/* ast.c — constructors for syntax-tree nodes, which the parser's actions
 * call and nothing else, and the comparison of two expressions. */
#include "ast.h"

#include <string.h>
#include "arena.h"

const char *const ast_op_text[] = {
	"+", "-", "*", "/", "^", "-", "not", "and", "or",
	"<", "<=", ">", ">=", "==", "!="
};

void ast_vec_push(struct arena *a, struct ast_vec *vec, void *p)
{
	if (vec->n == vec->cap) {
		int cap = vec->cap ? 2 * vec->cap : 4;
		vec->v = arena_grow(a, vec->v, sizeof(void *) * (size_t)vec->n,
		                    sizeof(void *) * (size_t)cap);
		vec->cap = cap;
	}
	vec->v[vec->n++] = p;
}

struct ast_expr *ast_expr_new(struct arena *a, enum ast_expr_kind kind, struct loc loc)
{
	struct ast_expr *e = arena_alloc(a, sizeof *e);
	e->kind = kind;
	e->loc = loc;
	return e;
}

struct ast_stmt *ast_stmt_new(struct arena *a, enum ast_stmt_kind kind, struct loc loc)
{
	struct ast_stmt *s = arena_alloc(a, sizeof *s);
	s->kind = kind;
	s->loc = loc;
	return s;
}

struct ast_item *ast_item_new(struct arena *a, enum ast_item_kind kind, struct loc loc)
{
	struct ast_item *it = arena_alloc(a, sizeof *it);
	it->kind = kind;
	it->loc = loc;
	return it;
}

struct ast_arg *ast_arg_new(struct arena *a, const char *name, struct loc loc, struct ast_expr *value)
{
	struct ast_arg *g = arena_alloc(a, sizeof *g);
	g->name = name;
	g->loc = loc;
	g->value = value;
	return g;
}

struct loc ast_span(struct loc a, struct loc b)
{
	if (a.file == b.file && a.line == b.line && b.col >= a.col)
		a.len = b.col + b.len - a.col;
	return a;
}

struct ast_expr *ast_binary(struct arena *a, enum ast_op op, struct ast_expr *l, struct ast_expr *r, struct loc loc)
{
	struct ast_expr *e = ast_expr_new(a, AST_BINARY, loc);
	e->op = op;
	e->lhs = l;
	e->rhs = r;
	return e;
}

struct ast_expr *ast_unary(struct arena *a, enum ast_op op, struct ast_expr *x, struct loc loc)
{
	struct ast_expr *e = ast_expr_new(a, AST_UNARY, loc);
	e->op = op;
	e->lhs = x;
	return e;
}

struct ast_expr *ast_pair(struct arena *a, struct ast_expr *l, struct ast_expr *r, struct loc loc)
{
	struct ast_expr *e = ast_expr_new(a, AST_PAIR, loc);
	e->lhs = l;
	e->rhs = r;
	return e;
}

struct ast_expr *ast_range(struct arena *a, struct ast_expr *lo, struct ast_expr *hi, struct ast_expr *step,
                           struct loc loc)
{
	struct ast_expr *e = ast_expr_new(a, AST_RANGE, loc);
	e->lo = lo;
	e->hi = hi;
	e->rhs = step;
	return e;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int ast_expr_equal(const struct ast_expr *a, const struct ast_expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->op != b->op || a->primes != b->primes || a->kind == AST_RUN ||
	    (a->kind == AST_NUM && a->num != b->num) || !same_str(a->str, b->str) || !same_str(a->name, b->name) ||
	    a->args.n != b->args.n || a->rows.n != b->rows.n)
		return 0;
	if (!ast_expr_equal(a->lhs, b->lhs) || !ast_expr_equal(a->rhs, b->rhs) || !ast_expr_equal(a->cond, b->cond) ||
	    !ast_expr_equal(a->lo, b->lo) || !ast_expr_equal(a->hi, b->hi))
		return 0;
	for (int i = 0; i < a->args.n; i++) {
		const struct ast_arg *x = a->args.v[i], *y = b->args.v[i];
		if (!same_str(x->name, y->name) || !ast_expr_equal(x->value, y->value))
			return 0;
	}
	for (int i = 0; i < a->rows.n; i++) {
		const struct ast_vec *x = a->rows.v[i], *y = b->rows.v[i];
		if (x->n != y->n)
			return 0;
		for (int j = 0; j < x->n; j++)
			if (!ast_expr_equal(x->v[j], y->v[j]))
				return 0;
	}
	return 1;
}
