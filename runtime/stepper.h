/* stepper.h — the linear path of the scheme families (scheme.h; GSL
 * odeiv2's step/control/driver split): a stepper advances (u, v, a) by
 * one step; the driver (run.c) owns the time grid, loads, records and
 * the ledger.
 *
 * The system is M a + C v + K u = f(t) with constant operators (DESIGN.md,
 * "The problem class", quadratic case), held in the matrix layer (la.h):
 * a stepper forms its step matrix as a combination of them and factors it
 * through struct step_matrix, never knowing which backend answers. */
#ifndef DYN_STEPPER_H
#define DYN_STEPPER_H

#include "run.h"

#include "la.h"

struct rt_system {
	int n;
	/* the operators in the matrix layer; C may be NULL (no damping) */
	const struct la_mat *M, *C, *K;
	enum la_backend backend;   /* the run's solver option, or LA_AUTO */
	int backend_mpi;           /* rt_problem's */
	const struct ir_model *model;   /* the dofs' names for messages (ir_dof_name) */
	/* f := load at time t (forces and -M d a(t)) */
	void (*load)(void *ctx, double t, double *f);
	void *load_ctx;
	/* Linear constraints B u = G(t) (formulation index3), nc = 0 when
	 * none: B as nb triplets (row bk[q] < nc, dof bi[q], value bv[q];
	 * duplicates add), never nc × n, gfun(load_ctx, t, g)
	 * gives G(t), and lam (nc) holds the multipliers, λᵏ⁻¹ on entry to a
	 * step and λᵏ after it.  The step then solves the saddle-point system
	 * [S wBᵀ; B 0] of its step matrix S, factored once per step size. */
	int nc, nb;
	const int *bk, *bi;
	const double *bv;
	void (*gfun)(void *ctx, double t, double *g);
	double *lam;
	/* With constraints, also: gddfun gives G̈(t) (the midpoint rule's
	 * acceleration at the step's end, B aᵏ = G̈(tₖ)); a stepper whose
	 * constraint forces act at the half step (halfstep_work) leaves there
	 * λ^{k−½}, the multipliers whose force did the step's work, in lamh. */
	void (*gddfun)(void *ctx, double t, double *g);
	double *lamh;
	/* The driver steps the rows on several processes (explicit_rows;
	 * runtime/part.h): the stepper checks the step (alloc, set_step)
	 * and is never asked for one, so it holds no step matrix; the
	 * largest eigenvalue of K φ = λ M φ is the driver's, lambda_max
	 * (0, or non-zero when it could not be computed) */
	int by_rows;
	int (*lambda_max)(void *ctx, double *lmax);
};

/* One linear step in one pass (scheme_linear.step_pass).  A step's
 * end is written row by row, and while a row's neighbours are in cache
 * the pass also forms the products that would otherwise take passes of
 * their own over the state and the operators: the ledger's (dyn(5),
 * ENERGY LEDGER; the trapezoidal pairing)
 *
 *   ΔD = Δu·C(vᵏ⁻¹ + vᵏ)/2,   T = ½vᵀMv,   Φ = ½uᵀKu  at the step's end,
 *
 * and the next step's right-hand side from the predictors of the state
 * just written.  Each sum has the bits of the separate passes (rows and
 * terms in ascending order), except a packed chain's (chain_pass: four
 * lanes, the same in rounding only); ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2 is the caller's, over
 * the load's pattern. */
struct rt_step_pass {
	double t, tau;                /* the step t − τ → t */
	const double *u0, *v0, *a0;   /* the state at t − τ */
	double *u, *v, *a;            /* the step's end; no overlap with u0, v0, a0 */
	/* the loads on their pattern: entries pat[q] (ascending) of the
	 * load are f[q] at t and f_next[q] at t + tau_next, the rest 0 */
	int npat;
	const int *pat;
	const double *f;
	int continues;                /* (u0, v0, a0) are the last step_pass's
	                                 (u, v, a), untouched since */
	double tau_next;              /* the next step's size (0: no next step) */
	const double *f_next;
	double dD, T, P;              /* out: the sums above */
};

/* The linear path of a scheme family (struct scheme_type, scheme.h). */
struct scheme_linear {
	/* par: the family's parameters in its own struct (scheme.h) */
	void *(*alloc)(const struct rt_system *sys, const void *par, struct rt_error *err);
	/* Prepare for steps of size tau (factor the step matrix); called before
	 * the first step and whenever tau changes. */
	int (*set_step)(void *st, double tau, struct rt_error *err);
	/* Advance (u, v, a) from t - tau to t, in place. */
	int (*step)(void *st, double t, double tau, double *u, double *v, double *a, struct rt_error *err);
	/* Optional, without constraints: the same step out of place, from
	 * (u0, v0, a0) at t - tau into (u, v, a), which do not overlap them;
	 * the driver then keeps the step before by exchanging two buffers,
	 * not by copying the state at every step. */
	int (*step_to)(void *st, double t, double tau, const double *u0, const double *v0, const double *a0, double *u,
	               double *v, double *a, struct rt_error *err);
	void (*free)(void *st);
	/* Optional, without constraints: step_to, the ledger's sums and the
	 * next step's right-hand side in the one pass that ends the step
	 * (struct rt_step_pass).  pass_begin, called once before the first
	 * step, says whether it applies (1); the stepper is then stepped by
	 * step_pass alone and may release what its other paths use. */
	int (*step_pass)(void *st, struct rt_step_pass *sp, struct rt_error *err);
	int (*pass_begin)(void *st);
	/* the ledger pairs a moving constraint's work with sys->lamh,
	 * −Δu·Bᵀλ^{k−½} (the midpoint rules), not with the step ends' λ */
	int halfstep_work;
	/* Optional: ½uᵀKu of the state the last step ended at, when the step
	 * formed K u of that state itself (an explicit step: uᵏ = ũ, whose
	 * K ũ its right-hand side needed), into *P; returns 1, or 0 when it
	 * did not (the driver then forms it: one product of K less per step
	 * when it did). */
	int (*potential_end)(void *st, double *P);
	/* The step is central differences' (β = 0, γ = ½), row by row when M
	 * is diagonal and there is no C: ũ = u + τv + ½τ²a, aᵏ = M⁻¹(f − Kũ),
	 * uᵏ = ũ, vᵏ = v + ½τ(a + aᵏ).  On several MPI processes the driver
	 * then steps each process's rows (runtime/part.h), not this stepper. */
	int explicit_rows;
	/* The path reads M, C and K only through la_mat_mul, la_mat_mulsub,
	 * la_mat_dot and the step matrix (step_matrix.c), and its step
	 * matrix is symmetric: on several MPI processes it then steps
	 * operators of which each process holds its own columns (la.h, part;
	 * dyn(1), MPI), the step matrix's rows going to PETSc's MPIAIJ as
	 * they are. */
	int parts;
};

/* par: struct alpha_params (scheme.h); newmark's names β and γ in its
 * messages */
extern const struct scheme_linear step_newmark;
/* the Newmark member with beta = 1/4, gamma = 1/2, whatever par: the
 * linear path of midpoint, discrete_gradient and staggered_midpoint (on
 * linear models without internal variables they are the trapezoidal
 * rule, dyn(5)) */
extern const struct scheme_linear step_trapezoidal;
/* the midpoint rules: step_trapezoidal without constraints; with linear
 * constraints the force at the half step, the constraint at the step's
 * end, as on their Newton path (scheme_midpoint.c) */
extern const struct scheme_linear step_midpoint;

/* A step matrix A = cM M + cC C + cK K, or with constraints the saddle
 * point [A w s Bᵀ; s B 0], on the union of the operators' patterns,
 * factored by the backend of the layer (sys->backend, or from the
 * structure).  spd: A is symmetric positive definite for the scheme
 * (Newmark with symmetric operators), so Cholesky may be used.
 * stiffness: 0 when cK is always 0 (an explicit scheme, β = 0): K is then
 * no term of A, so that its pattern is not factored — with a lumped mass
 * and no damping A is diagonal, and a factorization of M + 0·K on K's
 * pattern cost more than the steps. */
struct step_matrix;
struct step_matrix *step_matrix_alloc(const struct rt_system *sys, int spd, int stiffness);
void step_matrix_free(struct step_matrix *sm);

/* Refactor with new coefficients (w only with constraints: the weight of
 * Bᵀ; s balances B against A, largest entries equal, so that the
 * unknowns are (y, λ/s)).  Returns 0, the 1-based unknown of a failed
 * pivot, or -1 when out of memory. */
int step_factor(struct step_matrix *sm, double cM, double cC, double cK, double w);

/* step_factor, its failure written to err (code 3): out of memory, or
 * "WHAT at pivot K (dof NAME)" for a singular or indefinite matrix.
 * Returns 0 or -1. */
int step_factor_checked(struct step_matrix *sm, const struct rt_system *sys, double cM, double cC, double cK,
                        double w, const char *what, struct rt_error *err);

/* The name of unknown k (1-based) of a step matrix, for a pivot's
 * message: a dof, or a constraint's multiplier. */
const char *step_pivot_name(const struct rt_system *sys, int k, char *buf, size_t size);

/* s, the balance of B against A of the last step_factor (1 without
 * constraints). */
double step_matrix_scale(const struct step_matrix *sm);

/* b := A⁻¹ b (n entries without constraints; n + nc with, the last nc
 * rows then scaled by s as in step_solve_saddle). */
void step_solve(struct step_matrix *sm, double *b);

/* The constrained solve: rhs (n + nc) holds the step's right-hand side
 * in its first n entries; rows n.. become s (G(t) − B ũ)/c, the
 * constraint on uᵏ = ũ + c y; after the solve rhs holds y and lam λᵏ. */
void step_solve_saddle(struct step_matrix *sm, double t, const double *ut, double c, double *rhs);

#endif
