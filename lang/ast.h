/* ast.h — the syntax tree, as the parser builds it.  Every node carries
 * its source span; all nodes live in one arena. */
#ifndef DYN_AST_H
#define DYN_AST_H

#include "diag.h"

struct arena;

/* A growable array of node pointers, allocated in the arena. */
struct ast_vec {
	int n, cap;
	void **v;
};
void ast_vec_push(struct arena *a, struct ast_vec *vec, void *p);

enum ast_op {
	AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_POW,
	AST_OP_NEG, AST_OP_NOT, AST_OP_AND, AST_OP_OR,
	AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE, AST_OP_EQ, AST_OP_NE
};
extern const char *const ast_op_text[];

enum ast_expr_kind {
	AST_NUM,      /* num */
	AST_STR,      /* str */
	AST_NAME,     /* name */
	AST_PRIME,    /* lhs = the primed expression, primes = 1 or 2 */
	AST_UNARY,    /* op, lhs */
	AST_BINARY,   /* op, lhs, rhs */
	AST_IF,       /* cond, lhs (then), rhs (else) */
	AST_CALL,     /* lhs = callee, args (struct ast_arg *) */
	AST_INDEX,    /* lhs = base, rhs = index */
	AST_ENTRY,    /* lhs = base matrix, lo = row, hi = column: A[i, j] */
	AST_FIELD,    /* lhs = base, name = field */
	AST_MATRIX,   /* rows (each a struct ast_vec * of elements) */
	AST_SUM,      /* name = index variable, lo, hi, lhs = summand */
	AST_RUN,      /* run */
	AST_PAIR,     /* lhs, rhs: "y vs x", "target: load", "target = value" */
	AST_RANGE     /* lo, hi, rhs = the step or NULL: "a..b step s", the
	                 argument of a history's slice r.u(0..10 step 1) */
};

struct ast_run;

struct ast_expr {
	enum ast_expr_kind kind;
	struct loc loc;
	double num;
	const char *str, *name;
	const char *label;        /* a plot curve's legend: plot r.u as "..." */
	enum ast_op op;
	int primes;
	struct ast_expr *lhs, *rhs, *cond, *lo, *hi;
	struct ast_vec args;      /* struct ast_arg * */
	struct ast_vec rows;      /* struct ast_vec * of struct ast_expr * */
	struct ast_run *run;
	int depth;                /* the height of its tree (a leaf is 0) */
};

/* An argument of a call: positional (name == NULL) or named. */
struct ast_arg {
	const char *name;
	struct loc loc;           /* of the name, or of the value */
	struct ast_expr *value;
};

/* One item of a record clause: a name, a derivative, an index, or
 * NAME = expr. */
struct ast_record_item {
	const char *name;         /* column name for NAME = expr, else NULL */
	struct ast_expr *expr;
	struct loc loc;
	int has_at;               /* NAME at (x, y, z): a field at a point */
	struct ast_vec at;        /* the coordinates (struct ast_expr *) */
	struct loc at_loc;
	int field;                /* record field NAME: the whole field */
};

struct ast_stmt;

/* A clause of a run's block: record ..., or plot ... of the run's own
 * quantities (plot != NULL). */
struct ast_record {
	struct ast_vec items;     /* struct ast_record_item * */
	struct ast_expr *path;    /* string expression, or NULL */
	struct ast_expr *every;   /* or NULL */
	struct ast_stmt *plot;
	struct loc loc;
};

struct ast_run {
	const char *model;
	struct loc model_loc;
	struct ast_expr *scheme;  /* a NAME or a CALL */
	struct ast_expr *t0, *t1, *dt;
	struct ast_vec overrides; /* struct ast_arg *: run MODEL(p = v, ...) */
	struct ast_vec options;   /* struct ast_arg *, always named */
	struct ast_vec records;   /* struct ast_record * */
	struct loc loc;
	/* What the script reads back from the run (check.c): its NAME.FIELD
	 * uses, or keep_all when the run's value is used otherwise. */
	struct ast_vec uses;      /* struct ast_use * */
	int keep_all;
};

/* A use of a run's field: r.x, r.x[INDEX] (index NULL: the whole field).
 * stable: the index names only values bound before the run, so that its
 * value when the run is lowered is its value where it is used. */
struct ast_use {
	const char *field;
	struct ast_expr *index;
	int stable;
};

/* Model items ("model NAME { ... }"). */
enum ast_item_kind {
	AST_ITEM_DOF,        /* names: struct ast_expr * (NAME or NAME[size]) */
	AST_ITEM_PARAM,      /* defs: struct ast_arg * */
	AST_ITEM_MASS,       /* value */
	AST_ITEM_DAMPING,    /* value */
	AST_ITEM_STIFFNESS,  /* value */
	AST_ITEM_FORCE,      /* names: loads, each an expression or a PAIR
	                        (target: load) */
	AST_ITEM_SUPPORT,    /* value = acceleration, dir = direction */
	AST_ITEM_INIT,       /* names: PAIRs target = value (u, u', x[2]);
	                        or equilibrium */
	AST_ITEM_INTERNAL,   /* names: like DOF, internal variables */
	AST_ITEM_KINETIC,    /* value: T(u, u') */
	AST_ITEM_POTENTIAL,  /* value: Φ(u, z) */
	AST_ITEM_DISSIPATION,/* value: Ψ(u', z') */
	AST_ITEM_CONSTRAINT, /* value: c(u) == d(u), a bilateral constraint; with
	                        target (a field), value is REGION == EXPR */
	AST_ITEM_CONTACT,    /* value: φ(u) >= ψ(u), restitution: e or NULL,
	                        friction: μ or NULL, along: the slip
	                        coordinate(s) of the contact point or NULL */
	AST_ITEM_FIELD,      /* field TARGET on MESH (value) : ELEMENT (dir);
	                        internal: internal TARGET on MESH : P0 */
	AST_ITEM_FIX,        /* fix TARGET on REGION (value) */
	AST_ITEM_LET,        /* defs: values of the model's parameters (not
	                        parameters themselves: no override) */
	AST_ITEM_FOR         /* for I in LO..HI { constraint ... }: a family
	                        of constraints; target: the index (a NAME),
	                        value: LO, dir: HI, names: the items
	                        (struct ast_item *, constraints only) */
};

struct ast_item {
	enum ast_item_kind kind;
	struct loc loc;           /* of the keyword */
	struct ast_vec names;
	struct ast_vec defs;
	struct ast_expr *target, *value, *dir;
	struct ast_expr *restitution;   /* contact ... restitution E */
	struct ast_expr *friction;      /* contact ... friction MU */
	struct ast_expr *along;         /* contact ... friction MU along S */
	int equilibrium;          /* init equilibrium */
	int internal;             /* FIELD: an internal variable on a mesh */
	int lumped;               /* KINETIC: kinetic lumped EXPR */
};

struct ast_model {
	const char *name;
	struct loc loc;
	struct ast_vec items;     /* struct ast_item * */
};

enum ast_stmt_kind {
	AST_STMT_PARAM,      /* defs: struct ast_arg * */
	AST_STMT_LET,        /* name, value; or defs (struct ast_arg *) for
	                        let a = 1, b = 2, with name NULL */
	AST_STMT_FUNCTION,   /* name, params (struct ast_arg *, names only), value */
	AST_STMT_FOR,        /* name, lo, hi, body */
	AST_STMT_MODEL,      /* model */
	AST_STMT_SCHEME,     /* name, params, value (family call), cond (require) */
	AST_STMT_PRINT,      /* exprs */
	AST_STMT_CHECK,      /* value, tol, relative */
	AST_STMT_PLOT,       /* exprs (y series), xs (x series or NULL each), path */
	AST_STMT_IMPORT,     /* name */
	AST_STMT_MESH,       /* name, value (a generator call or gmsh("file")) */
	AST_STMT_EXPR        /* value */
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct loc loc;
	const char *name;
	struct loc name_loc;
	struct ast_vec defs, params, exprs, xs, body;
	struct ast_expr *value, *lo, *hi, *tol, *cond, *path;
	int relative;
	struct ast_model *model;
	struct ast_program *module;   /* import: the module, once parsed */
	const char *module_path;      /* import: the file it was read from */
};

struct ast_program {
	struct ast_vec stmts;     /* struct ast_stmt * */
};
struct ast_program;

struct ast_expr *ast_expr_new(struct arena *a, enum ast_expr_kind kind, struct loc loc);
struct ast_stmt *ast_stmt_new(struct arena *a, enum ast_stmt_kind kind, struct loc loc);
struct ast_item *ast_item_new(struct arena *a, enum ast_item_kind kind, struct loc loc);
struct ast_arg *ast_arg_new(struct arena *a, const char *name, struct loc loc, struct ast_expr *value);
struct ast_expr *ast_binary(struct arena *a, enum ast_op op, struct ast_expr *l, struct ast_expr *r, struct loc loc);
struct ast_expr *ast_unary(struct arena *a, enum ast_op op, struct ast_expr *e, struct loc loc);
struct ast_expr *ast_range(struct arena *a, struct ast_expr *lo, struct ast_expr *hi, struct ast_expr *step,
                           struct loc loc);
struct ast_expr *ast_pair(struct arena *a, struct ast_expr *l, struct ast_expr *r, struct loc loc);
/* The span from the start of a to the end of b (same line), else a. */
struct loc ast_span(struct loc a, struct loc b);
/* Whether a and b are the same expression as written (their trees, not
 * their places or spacing); NULL equals NULL.  A run inside is never
 * equal to anything. */
int ast_expr_equal(const struct ast_expr *a, const struct ast_expr *b);

#endif
