/* stepper.h — the linear path of the scheme families (scheme.h; GSL
 * odeiv2's step/control/driver split): a stepper advances (u, v, a) by
 * one step; the driver (run.c) owns the time grid, loads, records and
 * the ledger.
 *
 * The system is M a + C v + K u = f(t) with constant operators (DESIGN.md,
 * "The problem class", quadratic case).  Matrices are dense column-major;
 * kl, ku bound their nonzeros so products cost O(n (kl + ku)). */
#ifndef DYN_STEPPER_H
#define DYN_STEPPER_H

#include "run.h"

struct la_factor;

struct rt_system {
	int n;
	const double *M, *C, *K;   /* C may be NULL (no damping) */
	int kl, ku;
	int banded;                /* solve step matrices with banded LAPACK */
	const char *const *dof_name;
	/* f := load at time t (forces and -M d a(t)) */
	void (*load)(void *ctx, double t, double *f);
	void *load_ctx;
	/* Linear constraints B u = G(t) (formulation index3), nc = 0 when
	 * none: B is nc×n column-major (B[k + i nc]), gfun(load_ctx, t, g)
	 * gives G(t), and lam (nc) holds the multipliers, λᵏ⁻¹ on entry to a
	 * step and λᵏ after it.  The step then solves the saddle-point system
	 * [S wBᵀ; B 0] of its step matrix S, factored once per step size. */
	int nc;
	const double *B;
	void (*gfun)(void *ctx, double t, double *g);
	double *lam;
	/* With constraints, also: gddfun gives G̈(t) (the midpoint rule's
	 * acceleration at the step's end, B aᵏ = G̈(tₖ)); a stepper whose
	 * constraint forces act at the half step (halfstep_work) leaves there
	 * λ^{k−½}, the multipliers whose force did the step's work, in lamh. */
	void (*gddfun)(void *ctx, double t, double *g);
	double *lamh;
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
	void (*free)(void *st);
	/* the ledger pairs a moving constraint's work with sys->lamh,
	 * −Δu·Bᵀλ^{k−½} (the midpoint rules), not with the step ends' λ */
	int halfstep_work;
};

/* par: struct alpha_params (scheme.h); newmark's names β and γ in its
 * messages */
extern const struct scheme_linear step_newmark;
extern const struct scheme_linear step_generalized_alpha;
/* the Newmark member with beta = 1/4, gamma = 1/2, whatever par: the
 * linear path of midpoint, discrete_gradient and staggered_midpoint (on
 * linear models without internal variables they are the trapezoidal
 * rule, dyn(5)) */
extern const struct scheme_linear step_trapezoidal;
extern const struct scheme_linear step_central_difference;
extern const struct scheme_linear step_backward_euler;
/* the midpoint rules: step_trapezoidal without constraints; with linear
 * constraints the force at the half step, the constraint at the step's
 * end, as on their Newton path (stepper_midpoint.c) */
extern const struct scheme_linear step_midpoint;

/* Factor the step matrix A = cM M + cC C + cK K into f (banded or dense
 * per sys).  work is n×n scratch.  Returns 0 or LAPACK's pivot. */
int step_factor(const struct rt_system *sys, struct la_factor *f, double *work,
                double cM, double cC, double cK);

/* The same with the constraints: [A w s Bᵀ; s B 0] into f (dense, n + nc),
 * work (n + nc)² scratch; s balances B against A (largest entries equal),
 * returned in *bscale: the unknowns are then (y, λ/s).  Returns 0 or
 * LAPACK's pivot. */
int step_factor_saddle(const struct rt_system *sys, struct la_factor *f, double *work,
                       double cM, double cC, double cK, double w, double *bscale);

/* The constrained solve: rhs (n + nc) holds the step's right-hand side
 * in its first n entries; rows n.. become s (G(t) − B ũ)/c, the
 * constraint on uᵏ = ũ + c y; after the solve rhs holds y and lam λᵏ. */
void step_solve_saddle(const struct rt_system *sys, struct la_factor *f, double bscale, double t,
                       const double *ut, double c, double *rhs);

#endif
