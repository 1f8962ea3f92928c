/* problem.h — the problem as the steppers see it: constant operators,
 * energies with their derivatives (evaluated by the VM), loads.
 *
 * Unknowns are numbered u (n dofs) then z (m internal variables), N in
 * all.  The potential here includes ½uᵀKu of a stiffness matrix, the
 * dissipation ½vᵀCv of a damping matrix, so that a nonlinear stepper sees
 * one Φ and one Ψ (DESIGN.md, "The problem class": matrices are the
 * quadratic special case). */
#ifndef DYN_PROBLEM_H
#define DYN_PROBLEM_H

#include "kernel.h"
#include "run.h"
#include "la.h"

struct varmass;

struct rt_problem {
	const struct ir_model *ir;
	int n, m, N;
	/* The constant operators in the matrix layer (la.h), stored as the
	 * run's solver option says (dense, banded, compressed columns, or
	 * from the structure); C has no entries without damping. */
	struct la_mat Mm, Cm, Km;
	int hasC;                   /* a damping matrix is declared */
	enum la_backend backend;    /* forced by the run's solver option, or LA_AUTO */
	int backend_mpi;            /* backend is PETSc's by the default of runs on
	                               several processes, not by the script:
	                               a diagonal matrix is solved in place */
	struct la_solver *Mf;       /* the constant mass, factored once by the check */
	/* The same operators dense n×n, for the Newton path and the
	 * eigen-analysis (small models only: NULL above IR_DENSE_MAX, where
	 * the IR holds them as triplets); C may be NULL */
	const double *M, *C, *K;
	double *Cbuf;               /* C of modal damping, owned */
	double *Mbuf, *Kbuf;        /* M and K made dense by problem_dense, owned */
	int linear;                 /* matrices only: the linear fast path applies */
	const double *sigma;        /* m coefficients of σ_j |z_j'| */
	const double *sigma_u;      /* n coefficients of dry friction μ_i |u_i'| */
	int varmass;                /* M depends on u (kinetic energy) */
	struct varmass *vm;         /* M(u) on the matrix layer (varmass.h), owned */
	int contact_nan;            /* 1 + the first contact whose gap was not
	                               finite since it was cleared, −(1 + k)
	                               for its gradient; 0: none (problem_contacts) */
	double contact_nan_gap;     /* that gap (NaN or −∞) */
	int jac_auto;               /* solver = auto: Newton's Jacobian is stored
	                               and factored as its structure calls for
	                               (runtime/stage.c), whatever backend says */

	/* VM scratch and outputs, allocated once */
	double *reg_f, *reg_s, *md;
	int *load_pat, nload_pat;   /* problem_load_pattern's; nload_pat −1:
	                               not computed yet */
	int *hint;
	double *reg_phi, *out_phi;
	/* problem_phi_magnitude's: the magnitudes beside reg_phi and the
	 * instructions of the value (output 0) */
	double *mag_phi;
	int *vidx_phi, nvidx_phi;
	/* problem_phi's last evaluation, with a potential that takes a
	 * program to evaluate: the (u, z) it was at (N entries), its value
	 * and gradient; phi_have 0 until the first */
	double *phi_key, *phi_g, phi_val;
	int phi_have;
	double *reg_psi, *out_psi;
	struct rt_kernels kphi, kpsi;   /* the sums of Φ and Ψ (kernel.h) */
	double *reg_kin, *out_kin;
	double *reg_dt, *out_dt;    /* per-term dissipation gradients */
	double *reg_c, *out_c;      /* constraints: out_c in the layout of ir.h */
	double *prog_c;             /* with kernels, the program's outputs */
	struct rt_kernels kc;       /* the constraints' kernels */
	double *reg_ct, *out_ct;    /* contacts (out_ct in the layout of ir.h) */
	double *prog_ct;            /* with kernels, the program's outputs */
	struct rt_kernels kct;      /* the contacts' kernels */
	struct rt_kernels kf;       /* the loads' kernels */
	double *reg_sl, *out_sl;    /* the contacts' slip coordinates */
	int ncontact;
	int nc;
	double *tmp;                /* n */
};

/* The problem of model m, with M, C and K stored and factored as solver
 * (an enum ir_solver) asks.  It knows nothing of a run:
 * the driver (runtime/run.c) steps it along a plan's time grid, the
 * eigen-analysis (runtime/modes.c) and the amplification matrix
 * (runtime/amplification.c) use it without one.  0, or non-zero with
 * err saying why; problem_free in both cases. */
int problem_init(struct rt_problem *pb, const struct ir_model *m, int solver, struct rt_error *err);
/* The same for a run, which needs the plan's operators no more once the
 * problem holds its own: each one's entries go back to the lowering's
 * arena as soon as its matrix is built (ir_matrix_release), so that the
 * two are never held whole together. */
int problem_init_releasing(struct rt_problem *pb, struct ir_model *m, int solver, struct rt_error *err);
void problem_free(struct rt_problem *pb);

/* The dense M and K (pb->M, pb->K) of a model whose IR holds them as
 * entries (finite-element models, whose operators are sparse at any
 * size), for what is only dense: the explicit and impact schemes, the
 * dense stage, modal damping, the dense eigen-analysis.  Up to
 * IR_DENSE_MAX unknowns; nothing when they exist.  0, or -1 out of
 * memory. */
int problem_dense(struct rt_problem *pb);

/* Loads at t: f (n entries) then g (m entries).  The support's load
 * −M d a(t) is included when the mass is constant; with a mass depending
 * on u it is −M(u) d a(t) (the whole mass: the `mass` item plus the
 * Hessian of the kinetic energy in u'), which problem_load_at adds at a
 * configuration u and problem_support_load at u for a given a. */
void problem_load(struct rt_problem *pb, double t, double *f);
void problem_load_at(struct rt_problem *pb, double t, const double *u, double *f);
/* The entries of problem_load's f that can be nonzero: the force's that
 * are not the constant 0 (every entry with a support acceleration or a
 * family of loads).  The
 * number of them, their indices ascending in *idx (owned by pb); −1 when
 * out of memory.  problem_load_pattern_eval writes the load at t on that
 * pattern, compact: f[q] is entry idx[q] (call problem_load_pattern
 * first). */
int problem_load_pattern(struct rt_problem *pb, const int **idx);
void problem_load_pattern_eval(struct rt_problem *pb, double t, double *f);
/* The support acceleration a(t) (0 without a support). */
double problem_support(struct rt_problem *pb, double t);
/* f −= M(u) d ag with a mass depending on u (nothing otherwise: the
 * support is in problem_load then). */
void problem_support_load(struct rt_problem *pb, const double *u, double ag, double *f);

/* Φ(u, z) + ½uᵀKu.  With g non-NULL, its gradient (N entries).  The
 * Hessian of the last call is added by problem_add_hess_phi as
 * J[i + j ld] += cr[i] cc[j] H_ij, with row and column weights per
 * unknown (NULL: 1).  A call at the (u, z) of the one before, bit for
 * bit, gives back what that one computed without evaluating again. */
double problem_phi(struct rt_problem *pb, const double *u, const double *z, double *g);
void problem_add_hess_phi(struct rt_problem *pb, const double *cr, const double *cc, double *J, int ld);

/* y_i += Σ_j |H_ij| |w_j| for the Hessian H of the last problem_phi: the
 * size of the terms whose sum is ∇Φ, which bounds the rounding of a
 * residual in which they cancel (a body held in static equilibrium:
 * Ku and the load, each large, leave a gradient near 0). */
void problem_phi_terms(const struct rt_problem *pb, const double *w, double *y);
/* y_i += the magnitude of the terms of ∂Φ/∂w_i that the potential's
 * kernels compute at (u, z) (rt_kernels_rounding): a gradient that
 * cancels inside a kernel's program, a hyperelastic stress near the
 * reference state, rounds to a few ulps of that, whatever Σ|H||w| is.
 * Returns 0 when Φ has no kernels (y untouched), 1 otherwise. */
int problem_phi_rounding(struct rt_problem *pb, const double *u, const double *z, double *y);
/* The magnitude of the terms of Φ(u, z) (vm_eval_magnitude on the
 * value; ½ Σ |K_ij| |u_i| |u_j| for K): a few units in the last place of
 * it bound the rounding of Φ's value, which |Φ| does not when Φ is a
 * difference (1 − cos θ at a small θ is 5e-5 with a rounding of 1e-16). */
double problem_phi_magnitude(struct rt_problem *pb, const double *u, const double *z);

/* Ψ(v, ż) (smooth part) + ½vᵀCv, likewise. */
double problem_psi(struct rt_problem *pb, const double *v, const double *zd, double *g);
void problem_add_hess_psi(struct rt_problem *pb, const double *cr, const double *cc, double *J, int ld);

/* The ledger's dissipation per term (DESIGN.md, "Energy ledger"): adds to
 * dterm[k] the pairing wu Δu·∇ᵥΨ_k(v, ż) + wz Δz·∇_żΨ_k(v, ż) of each
 * term k (the `dissipation` statements, then the damping matrix). */
void problem_dissipation_terms(struct rt_problem *pb, const double *v, const double *zd, double wu, double wz,
                               const double *du, const double *dz, double *dterm);
/* adds σ_j |Δz_j| to the term of σ_j */
void problem_sigma_terms(struct rt_problem *pb, const double *dz, double *dterm);
/* adds the dry friction's work Δu_i ξ_i to the terms (and returns it) */
double problem_friction_terms(struct rt_problem *pb, const double *du, const double *xiu, double *dterm);
int problem_nterm(const struct rt_problem *pb);

/* Constraints at (t, u): the nc values c, and G = ∂c/∂u into Gd (nc×n,
 * column-major: G_ki at Gd[k + i nc]).  The Hessians of the last call are
 * added by problem_add_constraint_hess as
 * J[i + j ld] += coef Σ_k λ_k ∂²c_k/∂u_i∂u_j. */
void problem_constraints(struct rt_problem *pb, double t, const double *u, double *c, double *Gd);
void problem_add_constraint_hess(struct rt_problem *pb, const double *lambda, double coef, double *J, int ld);
/* G of the last problem_constraints as ngrad triplets (constraint gk[q],
 * dof gi[q], value val[q]; duplicates add): the pattern is the model's,
 * fixed whatever u, so a sparse G (and the saddle points built from it)
 * costs O(entries), never nc × n.  With Gt, ∂G/∂t on the same pattern
 * (moving constraints; zeros for fixed ones).  Returns ngrad. */
int problem_constraint_grad(const struct rt_problem *pb, const int **gk, const int **gi, const double **val,
                            const double **gt);
/* f_i += coef Σ_q g_q λ_{gk_q} over the entries q of dof i: coef Gᵀλ for
 * G's values g on the pattern of problem_constraint_grad (a copy of its
 * val, kept across later evaluations).  O(ngrad). */
void problem_constraint_gt(const struct rt_problem *pb, const double *g, const double *lambda, double coef,
                           double *f);
/* For moving constraints, from the last problem_constraints: ∂c/∂t and
 * ∂²c/∂t² (nc each) and ∂G/∂t (nc × n; Gt may be NULL); zeros for fixed
 * ones. */
void problem_constraint_rates(struct rt_problem *pb, double *ct, double *ctt, double *Gt);
/* The slip coordinates s(u) of the contacts' `along` (ir->slip.n) and
 * their gradients T (ir->slip.n × n, column-major, zeros included). */
void problem_slips(struct rt_problem *pb, const double *u, double *s, double *Td);
/* The contacts' gaps φ(u) (ncontact) and their gradients G (ncontact × n,
 * column-major), either may be NULL; then J += coef Σ_k μ_k ∇²φ_k from
 * that evaluation.  A gap that is NaN or −∞ (sqrt(y) below 0), or a
 * gradient entry that is not finite where the gap is not positive
 * (y − sqrt(abs(x)) at x = y = 0), sets pb->contact_nan, which
 * the run's driver reads after each step: a scheme's tests (φ ≤ 0, an
 * active set) take a NaN gap for an open contact. */
void problem_contacts(struct rt_problem *pb, const double *u, double *phi, double *Gd);
void problem_add_contact_hess(struct rt_problem *pb, const double *mu, double coef, double *J, int ld);
/* G of the last problem_contacts as triplets (contact gk[q], dof gi[q],
 * value val[q]; duplicates add), as problem_constraint_grad: O(entries).
 * Returns ngrad. */
int problem_contact_grad(const struct rt_problem *pb, const int **gk, const int **gi, const double **val);

/* T(u, v); p = M(u) v (n) and dTdu = ∂T/∂u (n) when non-NULL. */
double problem_kinetic(struct rt_problem *pb, const double *u, const double *v, double *p, double *dTdu);
/* M(u) into Mu (n×n, column-major). */
void problem_mass(struct rt_problem *pb, const double *u, double *Mu);
/* The entries of M(u) − M that the kinetic energy gives (struct
 * ir_kinetic: entry e at row[e], col[e]), valid until the next
 * evaluation of the kinetic energy (runtime/varmass.c). */
const double *problem_mass_u(struct rt_problem *pb, const double *u);

#endif
