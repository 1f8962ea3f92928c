/* interp.h — internals shared by the statement interpreter (eval.c), the
 * lowering of models and runs (lower.c) and the built-in functions
 * (builtin.c).  Not a public interface. */
#ifndef DYN_INTERP_H
#define DYN_INTERP_H

#include "arena.h"
#include "eval.h"
#include "names.h"

enum bind_kind {
	B_VALUE,      /* val: param, let, loop variable, function argument */
	B_FUNCTION,   /* stmt: function f(a, b) = expr */
	B_MODEL,      /* stmt: model NAME { ... } */
	B_SCHEME,     /* stmt: scheme NAME(args) = family(...) */
	B_DOF,        /* group: a dof (scalar or vector) inside a model */
	B_TIME,       /* t inside a model */
	B_MESH        /* mesh: a mesh statement's mesh (struct fe_mesh) */
};

struct dof_group {
	const char *name;
	int first, size;        /* dofs first .. first + size - 1 */
	int vector;             /* declared x[n] (indexable) */
	int internal;           /* an internal variable: first indexes z */
	struct fe_field *field; /* a finite-element field (fe.h), or NULL */
	struct loc loc;
};

struct binding {
	const char *name;
	enum bind_kind kind;
	struct value val;
	struct ast_stmt *stmt;
	const struct dof_group *group;
	struct scope *closure;  /* B_FUNCTION: the scope it was defined in */
	struct fe_mesh *mesh;   /* B_MESH */
	struct loc loc;
	int is_param;
	int lowered;            /* B_MODEL: lowered at least once (--check
	                           lowers the others at the end) */
	struct binding *next;
};

struct scope {
	struct binding *head;
	struct scope *parent;
	struct name_index index;   /* of head's list (names.h) */
};

/* What a model expression may refer to while it is lowered. */
struct fe_held;

struct model_ctx {
	struct ir_model *m;
	/* the run being lowered (NULL for modes() and the like): on several
	 * MPI processes it may assemble only this process's columns of the
	 * stiffness (rt_run_columns, fold_quadratic) */
	const struct ir_run *run;
	/* a field numbered by the parts of a partition of its nodes (lang/
	 * fe.c): the first unknown of each part's block, P + 1 entries, and
	 * the field's unknowns (first, count), whose columns then follow
	 * those blocks (part_columns) when they are the model's alone */
	const int *part_bounds;
	int part_first, part_count;
	int ngroup;
	struct dof_group *group;
	int allow_t;            /* loads, support: functions of t */
	int allow_state;        /* record expressions: u, u', u'' too */
	const char *what;       /* "force", "mass", ...: for messages */
	int ntable_cap;
	const char *script_dir; /* table() paths are relative to the script */
	int stiffness_declared;
	int damping_declared;
	int in_record;          /* lowering a record NAME = EXPR: integrals
	                           are unrolled over their cells (fe.c) */
	int nfield;             /* finite-element fields (fe.h) */
	struct fe_field **field;
	/* support along a direction in space (fe_direction): its nd
	 * entries, 0 for one entry per dof */
	int support_nd;
	double support_space[3];
	/* what fix takes out of the mass's inertia under a rigid
	 * translation (struct fe_held: the kinetic integrals add to it,
	 * lower.c's held_modal_mass gives it to modes()) */
	struct fe_held *held;
	/* the start time of the run being lowered (constraint FIELD on
	 * REGION starts the region on its prescribed motion), and the
	 * initial values so prescribed: dof, value, velocity */
	int has_t0;
	double t0;
	int nprescribed, prescribed_cap;
	struct fe_prescribed { long dof; double u, v; } *prescribed;
	/* constraint FIELD on REGION: the item that prescribes each dof
	 * (NULL: none yet) and the register of its value, so that a dof two
	 * regions share (a corner) is prescribed once (fe.c, fe_constraint) */
	const struct ast_item **claim;
	int *claim_reg;
	/* init: which dofs have an initial position (bit 0) or velocity
	 * (bit 1), and internal variables a value (bit 0), so that none is
	 * given twice (NULL until the first init item) */
	unsigned char *init_given;
};

/* A sum's body being lowered once as a kernel (ir.h, struct ir_kernel):
 * dof inputs become local slots with an affine gather map in the index.
 * The body's evaluation runs quietly (ev->quiet): a body that cannot be a
 * kernel (an index not affine in i, an index out of range for some i, an
 * i that must be constant) fails silently and the sum is unrolled, which
 * reports real errors. */
struct kern_build {
	int index_reg;          /* the INDEX input */
	long lo, hi;
	int nslot, cap;
	enum ir_op *kind;
	long *base, *stride;
	/* per-instance data: column j holds hi - lo + 1 values (instance k at
	 * [k]), read by DATA j; a parameter vector c[a i + b] is one column */
	int ndata, dcap;
	double **data;
};

enum { KERN_MAX_SLOTS = 64 };   /* beyond: unrolled (a body over whole vectors) */

struct eval {
	struct session *s;
	struct arena *a;
	struct diag *d;
	struct scope *scope;
	struct ir_prog *prog;   /* where scalars are emitted */
	struct model_ctx *mc;   /* NULL outside model lowering */
	int depth;              /* function-call depth (recursion guard) */
	int nesting;            /* expression nesting (stack guard) */
	const char *script_dir;
	/* run MODEL(p = v): while the run's model is lowered, the overridden
	 * parameters (struct ast_arg *) and their values, evaluated in the
	 * caller's scope */
	struct ast_vec *overrides;
	struct value *override_val;
	struct kern_build *kern; /* non-NULL while a sum's body is lowered once */
	int quiet;              /* errors are not reported (a kernel's trial) */
	struct fe_point *fe;    /* non-NULL while a density of integral(...) is
	                           lowered at one quadrature point (fe.h) */
};

/* The input instruction of unknown `base + stride i` of kind op (DOF, VEL,
 * ACC, INT, INTVEL): a slot of the kernel being built, else the global
 * input (stride 0).  -1 with no message when the kernel has too many slots. */
int eval_model_input(struct eval *ev, enum ir_op op, long base, long stride, struct loc loc);
/* The DATA input of the kernel being built reading v[a i + b − 1] (v of n
 * constants, 1-based as written) at each instance: a column of per-instance
 * data, shared with an identical one.  -1 with no message when an index
 * falls outside 1..n or memory runs out. */
int eval_kernel_data(struct eval *ev, const double *v, long n, long a, long b, struct loc loc);

/* Scopes. */
struct scope *scope_new(struct arena *a, struct scope *parent);
struct binding *scope_lookup(struct scope *sc, const char *name);
struct binding *scope_lookup_local(struct scope *sc, const char *name);
struct binding *scope_bind(struct eval *ev, const char *name, enum bind_kind kind, struct loc loc);
/* What a run value's member called name is when it is none of the
 * model's names (run_field: t, the ledger's histories, the multipliers,
 * the impulses), or NULL: a dof, an internal variable or a record of that
 * name could not be read back as r.NAME, and is refused. */
const char *result_member(const char *name);

/* Expressions. */
int eval_expr(struct eval *ev, struct ast_expr *e, struct value *out);
int eval_number(struct eval *ev, struct ast_expr *e, double *out, const char *what);
int eval_int(struct eval *ev, struct ast_expr *e, long *out, const char *what);
int eval_string(struct eval *ev, struct ast_expr *e, const char **out, const char *what);
struct ir_loc ir_loc_of(struct loc loc);
const char *value_kind_name(const struct value *v);
int value_freeze(struct eval *ev, struct value *v, struct loc loc, const char *what);
int value_const(struct eval *ev, const struct value *v, int i, double *k);
struct value value_num(struct eval *ev, double k, struct loc loc);
struct value value_mat(struct eval *ev, int rows, int cols);

/* Calls of built-in functions; returns 1 when `name` is not a built-in. */
int builtin_call(struct eval *ev, struct ast_expr *call, const char *name, struct value *out, int *status);
int builtin_exists(const char *name);
extern const char *const builtin_names[];

/* The samples of a history (r.u, r.x[2]', r.kinetic): n = steps + 1. */
int hist_values(struct eval *ev, struct value *h, struct loc loc, const double **y, int *n);
/* Whether e is a slice h(a..b) of a history without a step: 1 with h
 * and the steps first .. first + count - 1 whose times are in [a, b] (as
 * the slice takes them), 0 when e is something else, -1 reported. */
int hist_window(struct eval *ev, struct ast_expr *e, struct value *h, int *first, int *count);

/* Energies of a model (lower_energy.c). */
int lower_energies(struct eval *ev, struct model_ctx *mc, struct ast_model *am);
/* Loads lowered once (struct ir_model's fkernel), malloc'ed as they grow. */
struct load_kernels {
	int n, cap;
	struct ir_kernel *v;
};
/* force TARGET: LOAD on the one dof `dof`: the sums standing as terms of
 * LOAD as kernels appended to lk, the rest into *reg of ev->prog.  -1 on
 * error (reported). */
/* Whether a sum stands among the terms of e's top-level sum. */
int lower_has_sum_term(const struct ast_expr *e);
int lower_load_sums(struct eval *ev, struct ast_expr *load, int dof, struct load_kernels *lk, int *reg);
/* for I in A..B { force TARGET: LOAD }: the load of every I lowered once
 * as a kernel of I into lk when TARGET is one dof at an index affine in I
 * and LOAD reads no unknown: 1 when done, 0 when the caller is to unroll
 * it, -1 on error (reported). */
int lower_load_family(struct eval *ev, struct ast_item *fam, struct ast_expr *target, struct ast_expr *load, int ndof,
                      struct load_kernels *lk);

/* The parameters a model declares, in order (*names in the arena). */
/* A new group at the end of the model's dofs (internal: of its internal
 * variables), first set to their count, the rest zero; the caller fills
 * it and adds its size to the count.  *cap: the list's room, in groups. */
struct ir_dof_group *lower_dof_group(struct eval *ev, struct model_ctx *mc, int internal, int *cap);
int model_param_names(struct arena *a, const struct ast_model *m, const char ***names);
/* Report the parameter overrides of run MODEL(p = v) that name no parameter
 * of m (with the closest one) or one twice; returns their number. */
/* script_value (NULL: none) tells whether a name the model does not
 * declare is a value of the script, for a message that says so. */
int run_overrides_check(struct diag *d, struct arena *a, const struct ast_model *m, const struct ast_run *r,
                        int (*script_value)(void *ctx, const char *name), void *ctx);
/* For run_overrides_check: name is a value in ev's scope (ctx: the eval). */
int eval_script_value(void *ctx, const char *name);

/* Runs (lower.c). */
int lower_model_named(struct eval *ev, const char *name, struct loc loc, struct ir_model **out);
/* The model that MODEL or MODEL(p = v, ...) names, its parameters set as
 * run sets them (builtin.c: modes(), the REPL's :eig); who prefixes the
 * messages.  0, or -1 with the error reported. */
int lower_model_expr(struct eval *ev, struct ast_expr *me, const char *who, struct ir_model **out);
int lower_scheme(struct eval *ev, struct ast_expr *e, struct ir_scheme *out);
int lower_run(struct eval *ev, struct ast_run *run, struct ir_run **out);
int run_exec(struct eval *ev, struct ast_run *ast, const char *name, struct value *out);

/* Errors: report and return -1. */
int eval_error(struct eval *ev, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --check: the value needs a run's results, which were not computed:
 * mark the statement dry (session.dry_hit) and return -1. */
int eval_dry(struct eval *ev);

/* After Ctrl-C at the REPL: report "interrupted" (status 130) and return
 * -1; otherwise 0. */
int eval_interrupted(struct eval *ev, struct loc loc);

/* An evaluator over the session's globals (exec.c), for the REPL. */
void session_eval_init(struct session *s, struct eval *ev);

/* Find and parse the module of an import statement (kept on it). */
int import_module(struct session *s, struct ast_stmt *st);

/* Whether the script may write path (joined with the output folder):
 * inside the output folder unless --allow-write-anywhere, never over the
 * script or its modules.  Fills *id; reports at loc and returns -1 when
 * it may not (outpath.c). */
int outpath_check(struct eval *ev, struct loc loc, const char *path, struct out_id *id);
int outpath_same(const struct out_id *a, const struct out_id *b);

/* Resolve a path relative to a directory (NULL: as is). */
const char *path_join(struct arena *a, const char *dir, const char *path);
/* The folder of a source file, against which the names written in it are
 * resolved: NULL for what is typed at the prompt ("<stdin>": the
 * current folder). */
const char *path_dir(struct arena *a, const char *file);

#endif
