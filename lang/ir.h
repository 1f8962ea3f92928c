/* ir.h — the intermediate representation: the only thing lang/ and runtime/
 * share.
 *
 * Two parts (DESIGN.md, "Architecture"):
 *  1. expression programs: flat arrays of instructions in SSA form (the
 *     register of an instruction is its index), produced once by lowering
 *     with constants folded and common subexpressions shared;
 *  2. the problem: dof layout, constant operators and their storage, loads,
 *     initial state, the scheme and the run plan.
 * Everything here is plain data: runtime/ never sees source text, only the
 * locations (file name, line, column) that let it report where a quantity
 * came from.
 */
#ifndef DYN_IR_H
#define DYN_IR_H

#include <stddef.h>
#include <stdio.h>

struct arena;

/* A source location, carried by every instruction and operator so that a
 * runtime failure can name the line that produced the quantity. */
struct ir_loc {
	const char *file;
	int line, col;
};

enum ir_op {
#define OP(name, text, arity) IR_##name,
#include "ir_ops.def"
#undef OP
	IR_NOPS
};

extern const char *const ir_op_name[IR_NOPS];
extern const int ir_op_arity[IR_NOPS];

struct ir_insn {
	enum ir_op op;
	int a, b, c;     /* operand registers; for DOF/VEL/ACC, a is the dof;
	                    for TABLE, c is the table number */
	double k;        /* the value of a CONST */
	struct ir_loc loc;
};

/* An expression program with nout results.  Evaluation needs a scratch of
 * n doubles (vm_eval in runtime/vm.h); out[j] names the register holding
 * result j. */
struct ir_prog {
	int n, cap;
	struct ir_insn *insn;
	int nout;
	int *out;
	unsigned uses;   /* IR_USES_* bits: which inputs the program reads */
};

enum {
	IR_USES_T = 1u << 0,
	IR_USES_U = 1u << 1,
	IR_USES_V = 1u << 2,
	IR_USES_A = 1u << 3
};

/* A tabulated function of time: table("file.csv", col), linear
 * interpolation between rows, constant beyond the ends. */
struct ir_table {
	const char *path;
	int n;
	double *x, *y;
};

/* A constant n×n operator, column-major (LAPACK layout). */
struct ir_matrix {
	double *a;           /* NULL when the model does not declare it */
	struct ir_loc loc;   /* the declaration */
};

enum ir_damping {
	IR_DAMP_NONE,
	IR_DAMP_MATRIX,      /* C given (a matrix, or rayleigh(a0, a1) folded) */
	IR_DAMP_MODAL        /* C = M Φ diag(2 ξ ω) Φᵀ M, computed by runtime */
};

struct ir_dof {
	const char *name;    /* "u", "x[3]" */
	struct ir_loc loc;
};

struct ir_model {
	const char *name;
	struct ir_loc loc;
	int ndof;
	struct ir_dof *dof;
	struct ir_matrix mass, damping, stiffness;
	enum ir_damping damping_kind;
	double modal_xi;              /* IR_DAMP_MODAL: damping ratio of every mode */
	int kl, ku;                   /* bandwidths of the pattern of M, C, K */
	struct ir_prog *force;        /* nout == ndof, or NULL */
	struct ir_loc force_loc;
	struct ir_prog *support;      /* ground acceleration a(t), or NULL */
	double *support_dir;          /* d: load is -M d a(t) */
	struct ir_loc support_loc;
	double *u0, *v0;              /* initial state */
	int ntable;
	struct ir_table *table;
};

/* The scheme of a run, after the language's scheme definitions have been
 * applied: a built-in family and its numeric parameters. */
enum ir_family {
	IR_NEWMARK,             /* p[0] = beta, p[1] = gamma */
	IR_CENTRAL_DIFFERENCE   /* no parameters */
};

struct ir_scheme {
	enum ir_family family;
	const char *name;       /* as the user wrote it, for messages */
	double p[4];
	struct ir_loc loc;
};

enum ir_record_kind {
	IR_REC_T,
	IR_REC_U,               /* dof: u, u', u'' with deriv 0, 1, 2 */
	IR_REC_KINETIC,
	IR_REC_STORED,
	IR_REC_DISSIPATED,
	IR_REC_WORK,
	IR_REC_RESIDUAL,
	IR_REC_EXPR             /* expr: a program of t, u, v, a with one output */
};

struct ir_record {
	enum ir_record_kind kind;
	const char *name;       /* the CSV column */
	int dof, deriv;
	struct ir_prog *expr;
	struct ir_loc loc;
};

/* One record clause: columns written to a CSV file (or kept in memory
 * only when path is NULL), every N-th step plus the first and last. */
struct ir_output {
	int nrecord;
	struct ir_record *record;
	const char *path;
	struct ir_loc loc;
	int every;
};

struct ir_run {
	struct ir_model *model;
	struct ir_scheme scheme;
	double t0, t1, dt;
	int nstep;              /* n = ceil((t1 - t0)/dt - 1e-9); t_n = t1 */
	struct ir_loc loc, step_loc;
	enum ir_solver { IR_SOLVER_AUTO, IR_SOLVER_DENSE, IR_SOLVER_BANDED } solver;
	int noutput;
	struct ir_output *output;
	size_t history_budget;  /* bytes of in-memory history of every dof;
	                           beyond it only recorded columns are kept */
};

/* Building programs (lang/ir.c).  Emitters fold constants and reuse an
 * identical earlier instruction (common-subexpression elimination). */
struct ir_prog *ir_prog_new(struct arena *a);
int ir_emit(struct ir_prog *p, enum ir_op op, int a, int b, int c, struct ir_loc loc);
int ir_emit_const(struct ir_prog *p, double k, struct ir_loc loc);
int ir_emit_input(struct ir_prog *p, enum ir_op op, int index, struct ir_loc loc);
void ir_prog_add_output(struct ir_prog *p, int reg);
int ir_is_const(const struct ir_prog *p, int reg, double *k);

void ir_dump_prog(FILE *f, const struct ir_prog *p, const char *indent);
void ir_dump_run(FILE *f, const struct ir_run *r);

#endif
