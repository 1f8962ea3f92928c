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
	IR_USES_A = 1u << 3,
	IR_USES_Z = 1u << 4,
	IR_USES_ZD = 1u << 5
};

/* A tabulated function of time: table("file.csv", col), linear
 * interpolation between rows, constant beyond the ends. */
struct ir_table {
	const char *path;
	int n;
	double *x, *y;
};

/* Entries of a large operator that a kernel (a sum's constant Hessian)
 * generates rather than writes out: instance i = lo..hi of kernel k adds
 * val[e] (val[(i - lo) nnz + e] when per_instance) at the unknowns of its
 * slots k->row[e], k->col[e], on the diagonal of the first when lumped (a
 * row-sum mass); a zero adds nothing, nor does a slot mapped to -1 (a
 * fixed unknown).  The slots are dofs or velocities (numbered as the
 * dofs).  A sum of 10⁶ springs is one block of four numbers where its
 * triplets took 64 MB. */
struct ir_kernel;

struct ir_matrix_block {
	const struct ir_kernel *k;
	const double *val;
	int per_instance, lumped;
	int at;              /* its entries come after the first `at` triplets
	                        (the order in which duplicates are summed) */
};

/* A constant n×n operator: a column-major array (LAPACK layout), or
 * beyond IR_FOLD_DENSE_MAX dofs (an operator folded from an energy or
 * read from a file) its nonzero entries only, in time and memory linear
 * in their number. */
struct ir_matrix {
	double *a;           /* NULL when the model does not declare it */
	int nnz;             /* sparse form when a is NULL and nnz > 0 or
	                        nblock > 0: nnz triplets, then ... */
	int *row, *col;
	double *val;
	int nblock;          /* ... the entries of blocks, each after its
	                        `at` triplets (ir_matrix_each) */
	struct ir_matrix_block *block;
	int csc;             /* the entries are in compressed-column order:
	                        by column, rows increasing and distinct in
	                        each (an assembled operator: the runtime
	                        takes them as they are) */
	struct ir_loc loc;   /* the declaration */
	struct arena *arena; /* the arena holding row, col and val when the
	                        runtime may release them (ir_matrix_release),
	                        else NULL */
	int part, c0, c1;    /* part: a symmetric operator of which this
	                        process assembled columns c0 .. c1 − 1 alone,
	                        the others unspecified (a partitioned run's
	                        stiffness, rt_run_columns; la.h's struct
	                        la_mat, part) */
};

/* The entries of a large operator are the lowering's until the runtime
 * has built its own matrix from them (rt_begin, runtime/problem.c); then
 * the runtime gives them back to their arena: a model of 10⁶ dofs does
 * not hold its operators twice while it steps.  The matrix is left with
 * no entries (nnz 0, a NULL); without an arena (a plan built by hand, a
 * dense operator) nothing happens. */
void ir_matrix_release(struct ir_matrix *m);
/* Whether a sparse operator has entries (triplets or blocks). */
int ir_matrix_has_entries(const struct ir_matrix *m);
/* Call add(ctx, i, j, v) for every entry of a sparse operator, triplets
 * and blocks in their order (the order of the triplets they stand for):
 * a consumer sums duplicates in it, as it would the triplets. */
void ir_matrix_each(const struct ir_matrix *m, void (*add)(void *ctx, int i, int j, double v), void *ctx);
/* The number of entries ir_matrix_each gives. */
long ir_matrix_count(const struct ir_matrix *m);

enum { IR_DENSE_MAX = 4000 };
/* The operators folded from quadratic energies (and the zero stiffness of
 * a model without one) are dense n×n arrays up to IR_FOLD_DENSE_MAX dofs
 * only, the matrix layer's dense size (runtime/la.h, LA_SMALL_N); beyond,
 * they are kept as their entries, which the runtime stores banded or
 * sparse and copies dense only for what needs dense operators
 * (problem_dense).  A chain of 1000 masses held three 8 MB arrays, zeroed,
 * filled and scanned again for their band, for 3000 nonzeros. */
enum { IR_FOLD_DENSE_MAX = 64 };

enum ir_damping {
	IR_DAMP_NONE,
	IR_DAMP_MATRIX,      /* C given (a matrix, or rayleigh(a0, a1) folded) */
	IR_DAMP_MODAL        /* C = M Φ diag(2 ξ ω) Φᵀ M, computed by runtime */
};

/* The dofs (or the internal variables) of a model, as they were declared:
 * one group per declared name, never a name per unknown (a chain of 10^6
 * masses holds one group, not 10^6 strings).  `dof u` is a group of size
 * 1 named "u"; `dof x[n]` a vector group of size n whose element k (from
 * 1) is named "x[k]"; a field on a mesh a vector group whose elements are
 * numbered by the space's dofs, the fixed ones skipped (index).  Groups
 * are in the order of the unknowns: group g holds first .. first + size
 * - 1, the next starts at first + size.  An unknown's name is formed when
 * it is printed (ir_dof_name, ir_intvar_name). */
struct ir_dof_group {
	const char *name;    /* "u", "x" */
	int first, size;
	int vector;          /* elements named name[k] */
	const int *index;    /* NULL: element j is name[j + 1]; else name[index[j]],
	                      * ascending unless unknown_of is set */
	int extent;          /* with index: the names are name[1..extent] (the
	                      * space's dofs), those not in index fixed */
	struct ir_loc loc;   /* the declaration */
	const int *unknown_of; /* NULL, or (a field's unknowns numbered in a
	                      * node order of their own: lang/fe.c) the element
	                      * of name[k + 1], −1 when fixed; extent entries */
	const int *by_name;  /* with unknown_of: the elements in the order of
	                      * their names; size entries */
};

struct ir_dof_list {
	int ngroup;
	struct ir_dof_group *group;
};

/* The number k in the name x[k] of unknown i of vector group g. */
static inline int ir_dof_group_element(const struct ir_dof_group *g, int i)
{
	return g->index ? g->index[i - g->first] : i - g->first + 1;
}

/* The unknown named name[k] of vector group g, or -1 when k names
 * none: outside 1..ir_dof_group_extent(g), or (ir_dof_group_extent
 * covers it) a dof of a field that is fixed, hence eliminated. */
int ir_dof_group_unknown(const struct ir_dof_group *g, long k);
/* The unknown whose name comes i-th (0-based) in group g: the order in
 * which a whole group is recorded or given its initial values. */
static inline int ir_dof_group_nth(const struct ir_dof_group *g, int i)
{
	return g->first + (g->by_name ? g->by_name[i] : i);
}
/* The largest k of the names name[k] of vector group g. */
static inline int ir_dof_group_extent(const struct ir_dof_group *g)
{
	return g->index ? g->extent : g->size;
}

/* Room for an unknown's name: an identifier and an index. */
enum { IR_NAME_SIZE = 160 };

/* The group of unknown i of list l (0 <= i < the list's unknowns). */
const struct ir_dof_group *ir_dof_group_of(const struct ir_dof_list *l, int i);
/* The name of unknown i of list l ("u", "x[3]") written into buf (size
 * bytes, truncated if need be); returns buf. */
char *ir_dof_list_name(const struct ir_dof_list *l, int i, char *buf, size_t size);

/* A scalar function of a block of nvar variables with its derivatives,
 * derived at lowering (ir/ir_diff.c).  The program's outputs are the
 * value, then the nvar gradient entries, then the nnz Hessian entries
 * (row[k], col[k]), both triangles, of the terms outside sums; the kernels
 * add theirs.  Variables are numbered through the
 * input opcodes: for the potential DOF i is i and INT j is ndof + j; for a
 * dissipation VEL i is i and INTVEL j is ndof + j. */
struct ir_func {
	struct ir_prog *prog;
	int nvar;
	int nnz;
	int *row, *col;
	int quadratic;       /* every Hessian entry is a constant */
	int nonsmooth;       /* abs, min, max, sign or if on the variables */
	struct ir_loc loc;
	int nkernel;         /* sums lowered once: added to prog's value, */
	struct ir_kernel *kernel;   /* gradient and Hessian by the runtime */
};

/* A kernel: one term of a sum(i in lo..hi) BODY of an energy, lowered once
 * as a program over the index i (opcode INDEX) and the few unknowns the
 * body touches, its local slots.  Slot s reads the input kind[s] (DOF, VEL,
 * INT or INTVEL; the program's input instruction of that opcode has a = s)
 * at the global index given by the gather map: for instance k (i = lo + k)
 *     map ? map[k nslot + s] : base[s] + stride[s] i
 * (a 0-based dof or internal-variable index).  Sums use the affine form;
 * a table (element connectivity) is the same contract for meshes.
 *
 * Per-instance data: constants that vary with the instance but are not
 * unknowns (a parameter vector c[i] read in the body, an element's node
 * coordinates or quadrature weights) are a row-major array of
 * (hi - lo + 1) x ndata doubles; instance k's row is data + k ndata and
 * the opcode DATA with a = j reads its column j (the VM's vm_input.data
 * points at the row).  Data are constant: no derivative flows through them.
 *
 * Outputs, as for ir_func: the value, the nslot partial derivatives in the
 * slots (0 for slots of kinds not differentiated), then the nnz Hessian
 * entries (row[k], col[k]) in local slots, both triangles.  The runtime
 * evaluates the program once per instance and scatter-adds into the global
 * value, gradient and Jacobian (runtime/kernel.c). */
struct fe_kernel_form;
struct ir_kernel {
	struct ir_prog *prog;
	long lo, hi;                 /* instances i = lo..hi (hi >= lo) */
	int nslot;
	enum ir_op *kind;            /* nslot */
	long *base, *stride;         /* nslot: the affine gather map */
	const int *map;              /* NULL, or (hi - lo + 1) x nslot indices */
	int ndata;                   /* doubles of per-instance data per instance */
	const double *data;          /* NULL when ndata == 0, else (hi - lo + 1) x ndata */
	int nnz;
	int *row, *col;
	int quadratic;               /* Hessian independent of the state (it may
	                                depend on i) */
	int nonsmooth;
	int term;                    /* dissipation: the statement it belongs to;
	                                constraint: the row of instance lo */
	/* A constraint's kernel (struct ir_model's ckernel): instance k (i =
	 * lo + k) adds its value to constraint term + rstride k (rstride 0: a
	 * sum inside one constraint; rstride r > 0: a family `for i in lo..hi`
	 * of r constraints, instance k being r rows), its slot gradients to
	 * the entries gpos[k nslot + s] of G (a sum's instances share the
	 * entries of the dofs they share) and its Hessian to the entries
	 * hfirst + k nnz + e. */
	int rstride;
	const int *gpos;
	long hfirst;
	struct ir_loc loc;           /* the sum */
	/* The lowering's own (lang/, opaque here): an integral whose density
	 * is a constant quadratic form of the fields' features, folded into
	 * an operator cell by cell in C (runtime/fe_assemble.h) rather than by
	 * evaluating prog per instance; until the lowering gives up folding
	 * it, map and data are NULL.  NULL for every kernel that reaches the
	 * runtime. */
	const struct fe_kernel_form *form;
};

/* A kinetic energy whose mass depends on u: T(u, v) = ½ vᵀ M(u) v.  Outputs:
 * T, then ∂T/∂u (ndof), then the nnz entries of M(u) = ∂²T/∂v². */
struct ir_kinetic {
	struct ir_prog *prog;
	int nnz;
	int *row, *col;
	/* the dofs that entry e of M(u) depends on: dep[dptr[e] .. dptr[e+1]),
	 * the pattern of the midpoint rule's Jacobian (runtime/midpoint_varmass.c) */
	int *dptr, *dep;
	struct ir_loc loc;
};

/* Gap functions of the dofs: the program's outputs are the n values,
 * then the ngrad entries of G = ∂φ/∂u (function gk, dof gi), then the
 * nhess entries of the Hessians ∂²φ_k/∂u² (function hk, dofs hi, hj). */
struct ir_gaps {
	int n;
	struct ir_prog *prog;
	int ngrad, *gk, *gi;
	int nhess, *hk, *hi, *hj;
	struct ir_loc *loc;        /* n: where each is stated */
	double *restitution;       /* n: Newton's coefficient e_i (contacts) */
	double *friction;          /* n: Coulomb's μ_i (contacts), NULL when all 0 */
	int *slip_first;           /* n + 1 (contacts), or NULL: the rows of the
	                              slip coordinates of contact i (`friction MU
	                              along S`) are slip_first[i] ..
	                              slip_first[i+1] − 1 of struct ir_model's slip */
	int linear;                /* φ = B u + b(t) with B constant */
	int moving;                /* depends on t: then the outputs go on with
	                              ∂φ/∂t (n), ∂²φ/∂t² (n) and ∂G/∂t (ngrad) */
	/* Kernels (constraints only, for now): the layout above has nout
	 * numbers, output j of prog going to out_map[j] (NULL: the outputs
	 * are the layout), the kernels adding theirs (struct ir_kernel's
	 * rstride, gpos, hfirst). */
	int nkernel;
	struct ir_kernel *kernel;
	const int *out_map;
	long nout;
};

/* A field of a continuum body as --dump-ir and :show report it (lang/fe.c
 * fills it; nothing runs on it). */
struct ir_fe_info {
	const char *field, *mesh;
	const char *cell;          /* interval, triangle, ... */
	const char *element;       /* P1, P2, Q1, Hermite, P0 */
	int ncomp;
	int internal;              /* its values are internal variables */
	long ncells, nnodes;       /* the mesh's */
	long ndofs, nfree;         /* the space's dofs, those not fixed */
	int node_order;            /* its unknowns numbered in a narrow order
	                            * of the nodes (1), or by the parts of a
	                            * partition of them (2) (lang/fe.c; dyn(1),
	                            * MPI) */
};

struct ir_model {
	const char *name;
	struct ir_loc loc;
	int ndof;
	struct ir_dof_list dofs;      /* their names, by group */
	struct ir_matrix mass, damping, stiffness;
	enum ir_damping damping_kind;
	const double *modal_xi;       /* IR_DAMP_MODAL: the damping ratios of the
	                                 modes from the lowest, nmodal_xi of them;
	                                 the last for the modes beyond */
	int nmodal_xi;
	int kl, ku;                   /* bandwidths of the pattern of M, C, K */
	struct ir_prog *force;        /* nout == ndof, or NULL */
	struct ir_loc force_loc;
	/* Loads lowered once: instance k (i = lo + k) of kernel q, a program
	 * of i and t (no slot: loads read no unknown), adds its value to the
	 * load term + rstride k (a sum in one dof's load: rstride 0; a family
	 * `for i in lo..hi { force x[i]: ... }`: the stride of its target). */
	int nfkernel;
	struct ir_kernel *fkernel;
	struct ir_prog *support;      /* ground acceleration a(t), or NULL */
	double *support_dir;          /* d: load is -M d a(t) */
	double *translation;          /* modes()'s rigid translation without a
	                                 support (fe_translation): NULL, every
	                                 dof along 1 */
	double *modal_c;              /* what fix takes out of that translation's
	                                 inertia (struct fe_held, along x): the
	                                 held columns of M times it, per dof;
	                                 NULL when nothing is held */
	double modal_held;            /* the held rows' share of its wᵀ M w */
	struct ir_loc support_loc;
	double *u0, *v0;              /* initial state: NULL once the run has
	                                 copied it (ir_model_release_start) */
	struct arena *arena;          /* where u0 and v0 live, or NULL */
	int ntable;
	struct ir_table *table;

	/* Models stated by energies (DESIGN.md, "The problem class").  A
	 * constant mass from `kinetic` is folded into mass.a; the force
	 * program then has ndof + nint outputs (loads f on u, g on z). */
	int nint;                     /* internal variables z */
	struct ir_dof_list intvars;
	double *z0;
	struct ir_func *potential;    /* Φ(u, z), or NULL */
	struct ir_func *dissipation;  /* smooth part of Ψ(v, ż), or NULL */
	double *sigma;                /* [nint] σ_j of the terms σ_j |z_j'| */
	int *sigma_term;              /* [nint] the dissipation statement of σ_j */
	double *sigma_u;              /* [ndof] μ_i of dry friction terms μ_i |u_i'| */
	int *sigma_u_term;
	int ndissipation;             /* `dissipation` statements: ledger terms
	                                 1..n, the damping matrix is term n + 1 */
	struct ir_prog *dissipation_terms;   /* per statement, the gradient of its
	                                        smooth part (ndof + nint outputs each) */
	int dissipation_coupled;      /* a statement's ∂Ψ/∂u' depends on z' (or
	                                 ∂Ψ/∂z' on u'): Ψ is not Ψ₁(u') + Ψ₂(z') */
	struct ir_loc dissipation_coupled_loc;   /* the first such statement */
	struct ir_kinetic *kinetic;   /* u-dependent mass, or NULL */
	struct ir_prog *kinetic_value;   /* T(u, v) of the kinetic statements */
	struct ir_loc kinetic_loc;
	int init_equilibrium;         /* solve the static equilibrium at t₀ */
	/* Bilateral constraints c(u, t) = 0 (multipliers λ).  The program's
	 * outputs: the nc values, then the ngrad entries of G = ∂c/∂u
	 * (constraint gk, dof gi), then the nhess entries of the Hessians
	 * ∂²c_k/∂u² (constraint hk, dofs hi, hj). */
	int nconstraint;
	struct ir_prog *constraint;
	int ngrad, *gk, *gi;
	int nhess, *hk, *hi, *hj;
	struct ir_loc *constraint_loc;   /* nconstraint: where each is stated */
	int constraint_moving;           /* c depends on t (ir_gaps.moving) */
	int constraint_linear;           /* c = B u − G(t), B constant */
	/* Sums in constraints and families of constraints lowered once
	 * (struct ir_kernel's rstride): then the layout above, of
	 * constraint_nout numbers, is filled by the program's outputs at the
	 * places constraint_out gives (output j at constraint_out[j]; the
	 * rest 0) and by the kernels; with no kernel, constraint_out is NULL
	 * and the program's outputs are the layout. */
	int nckernel;
	struct ir_kernel *ckernel;
	const int *constraint_out;
	long constraint_nout;
	struct ir_gaps contact;          /* unilateral contacts φ_i(u) ≥ 0 */
	struct ir_gaps slip;             /* the contact points' slip coordinates
	                                    s(u) (`along`): values and gradients,
	                                    the tangents of Coulomb friction */
	struct ir_loc init_loc;
	/* A free elastic body: the model's dofs are one vector field of the
	 * mesh's dimension (2 or 3) with its values at the mesh's nodes, none
	 * fixed, dof first + dim p + c the component c of the node at X[dim p
	 * + c] (node p of the mesh, unless the field's unknowns are numbered
	 * by its nodes: lang/fe.c), so that q = X + u is the placement and
	 * the rigid motions are known (discrete_gradient keeps its momenta;
	 * NULL otherwise). */
	const struct ir_rigid *rigid;
	int nfe;                         /* fields on meshes, for the dumps */
	struct ir_fe_info *fe;
	const char *storage;             /* how solver = auto holds the
	                                    operators (dense, banded, sparse) */
};

struct ir_rigid {
	int dim;
	long nnode;
	int first;
	const double *X;
};

/* The same for the initial state: rt_begin copies u0 and v0 into its own
 * state and gives them back to the model's arena; they are NULL after. */
void ir_model_release_start(struct ir_model *m);

/* The distinct nonzero positions of M, C and K together (assembled
 * entries repeat a position once per element that adds to it); -1 when
 * out of memory.  For the dumps and :show only: a sort of every entry. */
long ir_model_pattern_nnz(const struct ir_model *m);

/* The name of dof i (0 <= i < ndof), of internal variable j
 * (0 <= j < nint), of unknown i of the run's order (dofs, then internal
 * variables: i >= ndof is z[i - ndof]), written into buf; return buf. */
char *ir_dof_name(const struct ir_model *m, int i, char *buf, size_t size);
char *ir_intvar_name(const struct ir_model *m, int j, char *buf, size_t size);
char *ir_unknown_name(const struct ir_model *m, int i, char *buf, size_t size);

/* Whether the model needs the nonlinear machinery (energies, internal
 * variables, u-dependent mass) rather than the linear fast path. */
static inline int ir_model_nonlinear(const struct ir_model *m)
{
	/* sigma_u is NULL unless a dof has dry friction (lang/lower_energy.c) */
	return m->potential || m->dissipation || m->kinetic || m->nint > 0 ||
	       m->nconstraint > 0 || m->contact.n > 0 || m->sigma_u;
}

/* What a scheme family can do (ir_families.def): the driver decides from
 * these, never from the family's identity. */
enum {
	IR_SCHEME_IMPLICIT = 1u << 0,
	IR_SCHEME_CONSERVING = 1u << 1,     /* T + Φ conserved for undamped linear models */
	IR_SCHEME_DISSIPATIVE = 1u << 2,    /* numerical dissipation of high frequencies */
	IR_SCHEME_CONDITIONAL = 1u << 3,    /* stable only below a critical step */
	IR_SCHEME_CRITICAL_STEP = 1u << 4,  /* refuses a step above 2/ω_max of the
	                                       linearisation at the initial state */
	IR_SCHEME_ENDPOINT = 1u << 5,       /* linear path: ledger paired with the end
	                                       of the step (else trapezoidal) */
	IR_SCHEME_GGL = 1u << 6,            /* takes formulation = ggl (stage_ggl) */
	IR_SCHEME_REGULARIZED = 1u << 7,    /* takes formulation = regularized */
	IR_SCHEME_CONTACTS = 1u << 8,       /* enforces unilateral contacts */
	IR_SCHEME_VARMASS = 1u << 9,        /* takes a mass depending on u */
	IR_SCHEME_INTERNAL = 1u << 10,      /* takes internal variables */
	IR_SCHEME_CONSTRAINTS = 1u << 11,   /* enforces bilateral constraints */
	IR_SCHEME_FRICTION = 1u << 12,      /* takes dry friction */
	IR_SCHEME_LINEAR_CONSTRAINTS = 1u << 13, /* linear path with B u = G(t) */
	IR_SCHEME_EXACT_BALANCE = 1u << 14, /* ledger exact for any potential: a step
	                                       off balance is refused */
	IR_SCHEME_EXPLICIT_DAMPING = 1u << 15 /* takes ∇Ψ at a known velocity: with
	                                       CRITICAL_STEP also refuses a step
	                                       above 2/μ_max (C φ = μ M φ) */
};

/* The scheme of a run, after the language's scheme definitions have been
 * applied: a built-in family and its numeric parameters. */
enum ir_family {
#define FAMILY(e, name, order, caps, summary, np, p1, d1, p2, d2, p3, d3, p4, d4) IR_##e,
#include "ir_families.def"
#undef FAMILY
	IR_NFAMILY
};

/* The families' names, order, capabilities, summaries, parameter names
 * and defaults (ir_families.def). */
struct ir_family_info {
	const char *name;
	int order;
	unsigned caps;          /* IR_SCHEME_* for the default parameters */
	const char *summary;
	int nparam;
	const char *param[4];
	double dflt[4];
};
extern const struct ir_family_info ir_family_info[IR_NFAMILY];
/* The family named name, or -1 */
int ir_family_find(const char *name);

struct ir_scheme {
	enum ir_family family;
	const char *name;       /* as the user wrote it, for messages */
	double p[4];
	struct ir_loc loc;
};

enum ir_record_kind {
	IR_REC_T,
	IR_REC_U,               /* dof: u, u', u'' with deriv 0, 1, 2 */
	IR_REC_Z,               /* dof = internal variable: z, z' (deriv 0, 1) */
	IR_REC_KINETIC,
	IR_REC_STORED,
	IR_REC_DISSIPATED,
	IR_REC_WORK,
	IR_REC_RESIDUAL,
	IR_REC_DTERM,           /* dof = k: dissipated by term k (0-based) */
	IR_REC_LAMBDA,          /* dof = k: the multiplier of constraint k */
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

/* What a run keeps in memory for the script to read back (dyn(5),
 * "Results"): lang/ fills it from the script's uses of the run's name
 * (r.u(10), maxabs(r.residual), plot r.x[2]), and the runtime keeps these
 * series at every step and nothing else.  Records to files are streamed
 * and need nothing here.  The times are kept when anything is. */
struct ir_keep {
	int all;                /* every series, dofs within history_budget:
	                           the REPL, or a run value used otherwise
	                           than as NAME.FIELD */
	unsigned char *dof;     /* ndof flags (or NULL): u, u' and u'' */
	unsigned char *intvar;  /* nint flags (or NULL): z and z' */
	unsigned energy;        /* bit e: kinetic, stored, dissipated, work,
	                           residual (rt_energy_name) */
	int t, dterm, lam;      /* r.t; every term's dissipation; every λ */
	unsigned char *col;     /* per IR_REC_EXPR column in record order
	                           (or NULL) */
};

/* record field u to "u.pvd" every N: the field's values at the mesh's
 * nodes written at every N-th step (and the first and last) as VTU files
 * "u_<step>.vtu" beside the PVD that indexes them by time (runtime/vtu.h).
 * The mesh is the runtime's (runtime/mesh.h), opaque here. */
struct fe_space;
struct ir_field_output {
	const char *path;            /* the .pvd */
	const char *name;            /* the field: the VTU array's name */
	int every;
	const struct mesh *mesh;
	const struct fe_space *space;  /* P2: every node of the space written, on
	                                  quadratic cells (vtu_write_space); NULL:
	                                  the mesh's nodes */
	int ncomp;
	long nnode;                  /* the nodes written (the mesh's, or the space's) */
	const long *dof;             /* nnode × ncomp model dofs (-1: fixed, 0) */
	struct ir_loc loc;
};

struct ir_run {
	struct ir_model *model;
	struct ir_scheme scheme;
	double tolerance;       /* Newton: relative residual */
	int max_iterations;
	double contact_tolerance; /* moreau_jean's frictional contact problem */
	int contact_iterations;
	int halvings;           /* on_failure = halve(N): retries with halved steps */
	int regularized;        /* formulation = regularized (Altmann 2015, eq. 3.4) */
	int ggl;                /* formulation = ggl; neither: index3 */
	double t0, t1, dt;
	int nstep;              /* n = ceil((t1 - t0)/dt - 1e-9); t_n = t1 */
	double last_dt;         /* the last step: dt, or shorter when the run's
	                           length is not a multiple of dt */
	struct ir_loc loc, step_loc;
	enum ir_solver { IR_SOLVER_AUTO, IR_SOLVER_DENSE, IR_SOLVER_BANDED, IR_SOLVER_SPARSE, IR_SOLVER_DIRECT,
	                 IR_SOLVER_ITERATIVE } solver;
	int solver_auto;        /* solver = auto, settled by the lowering from M,
	                           C and K: Newton's Jacobian, whose order and
	                           pattern differ, is stored as its own
	                           structure calls for */
	int noutput;
	struct ir_output *output;
	int nfield_output;
	struct ir_field_output *field_output;
	size_t memory_limit;    /* bytes the histories may take (0: no limit) */
	int memory_limit_default; /* the limit is half the physical memory */
	size_t history_budget;  /* keep.all: bytes of in-memory history of
	                           every dof; beyond it only recorded dofs */
	struct ir_keep keep;
};

/* Building programs (ir/ir.c).  Emitters fold constants and reuse an
 * identical earlier instruction (common-subexpression elimination). */
struct ir_prog *ir_prog_new(struct arena *a);
int ir_emit(struct ir_prog *p, enum ir_op op, int a, int b, int c, struct ir_loc loc);
int ir_emit_const(struct ir_prog *p, double k, struct ir_loc loc);
int ir_emit_input(struct ir_prog *p, enum ir_op op, int index, struct ir_loc loc);
void ir_prog_add_output(struct ir_prog *p, int reg);
int ir_is_const(const struct ir_prog *p, int reg, double *k);
/* Drop the instructions no output needs (after the last output is added). */
void ir_prog_compact(struct ir_prog *p);
/* Give back the instructions from register n on (n <= p->n), the last
 * emitted: nothing may refer to them any more.  A script's sum of
 * numbers adds its terms as doubles and gives back what each term
 * emitted (lang/eval.c, eval_sum). */
void ir_prog_truncate(struct ir_prog *p, int n);
/* Give a program's arrays back to its arena and leave it empty (a program
 * nothing will read again). */
void ir_prog_release(struct ir_prog *p);
/* Evaluate a program of the state at given inputs (NULL: zeros) with the
 * folding arithmetic, for decisions at lowering; -1 when it depends on t. */
int ir_eval_const(const struct ir_prog *p, const double *u, const double *v, const double *z, const double *zd,
                  double *out);
/* The same for a kernel's program at index i with the state at zero, into
 * a caller's scratch of p->n doubles (no allocation); -1 when it depends
 * on t or a table. */
int ir_eval_index(const struct ir_prog *p, double index, double *scratch, double *out);
/* The same with the instance's row of per-instance data (DATA reads
 * data[a]; NULL: a program without DATA, else -1). */
int ir_eval_instance(const struct ir_prog *p, double index, const double *data, double *scratch, double *out);
/* A copy of a program (instructions and outputs). */
struct ir_prog *ir_prog_copy(struct arena *a, const struct ir_prog *p);

void ir_dump_prog(FILE *f, const struct ir_prog *p, const char *indent);
void ir_dump_run(FILE *f, const struct ir_run *r);
void ir_dump_model(FILE *f, const struct ir_model *m);
/* A continuum body's storage line: with a run, what that run uses (its
 * solver option; auto: the matrix layer's choice from the pattern, made
 * the same way when the run starts), and the step matrix of an explicit
 * step on a lumped mass; without (:show), what solver = auto picks. */
void ir_dump_storage(FILE *f, const struct ir_model *m, const struct ir_run *r);

#endif
