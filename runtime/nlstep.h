/* nlstep.h — the interface of the nonlinear steppers (models stated by
 * energies, with internal variables).  A stepper advances the state over
 * one step and returns the step's increments of work and dissipation in
 * its own discrete pairing (DESIGN.md, "Energy ledger"), so that the
 * ledger's residual is the scheme's algorithmic energy. */
#ifndef DYN_NLSTEP_H
#define DYN_NLSTEP_H

#include "problem.h"

struct rt_state {
	double *u, *v, *a;   /* n */
	double *z, *zd;      /* m */
	double *lam;         /* nc: constraint multipliers, then (in a run) the
	                        ncontact normal impulses of the last step */
};

struct nl_options {
	double tol;          /* Newton: relative residual */
	int maxit;
	int regularized;     /* formulation = regularized (backward_euler) */
	int ggl;             /* formulation = ggl, on a model with constraints */
	const char *scheme;  /* the scheme's name, for messages */
	double contact_tol;  /* frictional contact solver: relative change of the
	                        impulses (0: the default) */
	int contact_maxit;   /* its sweeps (0: the default) */
	int check_only;      /* the refusals only: alloc returns NULL with no
	                        message when the stepper would take the model
	                        (the linear path asks, without the Newton
	                        stepper's dense storage) */
};

/* The Newton path of a scheme family (struct scheme_type, scheme.h). */
struct scheme_newton {
	/* par: the family's parameters in its own struct (scheme.h) */
	void *(*alloc)(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err);
	/* Advance s from t0 to t1 = t0 + tau.  dW and dD receive the step's
	 * work and dissipation, dterm[k] (zeroed by the caller) the
	 * dissipation of each term.  On a Newton failure returns -1 with
	 * err->msg saying so; s is then unspecified (the driver restores it).
	 * NL_UNSTABLE instead: the step would be unstable, err->msg says why
	 * and what to do (the driver adds no advice of its own). */
	int (*step)(void *st, double t0, double t1, double tau, struct rt_state *s, double *dW, double *dD, double *dterm, struct rt_error *err);
	void (*free)(void *st);
	/* Whether the stepper needs the dense operators pb->M and pb->K
	 * (problem_dense, up to IR_DENSE_MAX unknowns) for this model; NULL:
	 * the driver's rule (the explicit and the impact schemes do). */
	int (*needs_dense)(const struct rt_problem *pb);
	/* Central differences: when the model lets the step be explicit (no
	 * dissipation, C, internal variables, constraints, contacts or mass
	 * depending on u; M diagonal), the driver steps each MPI process's
	 * rows (run.c, part_nl_step) instead of this stepper, with the same
	 * stability monitor (nl_central_monitor). */
	int explicit_rows;
};

enum { NL_UNSTABLE = -3 };
/* par: struct alpha_params (scheme.h), also for central differences */
extern const struct scheme_newton nl_generalized_alpha;
/* The same with the stability monitor of central differences for the
 * conditionally stable members (β < γ/2): scheme_central_difference.c */
extern const struct scheme_newton nl_newmark_watched;

/* The stability monitor of central differences and of the Newmark
 * members with β < γ/2 (scheme_central_difference.c): est(ctx, it, &w2)
 * estimates ω_max² of the current K(u) from below in it iterations (0,
 * or -1 when it fails).  Within 10 % of the bound wc (in ω) the estimate
 * is iterated to convergence; beyond it the step is refused: NL_UNSTABLE
 * with err saying so (cd: central differences' message, else the
 * Newmark member's), -1 when est failed, else 0. */
int nl_central_monitor(int (*est)(void *ctx, int it, double *w2), void *ctx, double tau, double t0, double wc,
                       int cd, const char *name, struct rt_error *err);

/* Helpers shared by the steppers (nlstep.c). */
struct nl_common {
	struct rt_problem *pb;
	double *f0, *f1, *fm;     /* N: loads at t0, t1 and their mean */
	double *g, *gu;           /* N scratch */
	double *Ma;               /* n */
	struct la_factor *mf;     /* M factored (constant mass) */
	double *Mu;               /* n×n for M(u) */
	/* with constraints: the saddle-point matrix [M Gᵀ; G 0], dense
	 * (S, sf) up to LA_SMALL_N unknowns, beyond in the matrix layer (Sx,
	 * factored by UMFPACK: sx) with G's entries at the slots gslot (2
	 * per gradient entry: G, then Gᵀ) */
	struct la_factor *sf;
	double *S, *Gd, *rhs;
	struct la_mat Sx;
	struct la_solver *sx;
	size_t *gslot;
	double *ct, *ctt;          /* nc: ∂c/∂t, ∂²c/∂t² of moving constraints */
	/* dry friction μ_i|u_i'| (constant mass): the dofs that have it
	 * (nf) and, when M is not diagonal, the columns M⁻¹e_i of those dofs
	 * (nf ≤ NL_DRY_COLUMNS) and their Delassus block W (nf × nf) for the
	 * stick–slip problem of nl_acceleration; with constraints the columns
	 * are of [M Gᵀ; G 0]⁻¹ (length n + nc), made at each call */
	int nf, *fdof;
	double *fcol, *fW, *flam, *fb;
};
enum { NL_DRY_COLUMNS = 256 };
int nl_common_alloc(struct nl_common *c, struct rt_problem *pb);
/* What nl_acceleration alone reads (f1, g, gu), for a run that does
 * not step on these buffers (initial_acceleration's release): half of
 * nl_common_alloc's vectors at the setup's peak; all of them with M(u),
 * constraints or dry friction.  0, or -1 when out of memory. */
int nl_common_alloc_accel(struct nl_common *c, struct rt_problem *pb);
void nl_common_free(struct nl_common *c);
/* s->a of a body resting on frictionless obstacles at t₀: the smooth
 * acceleration of nl_acceleration with the contact forces that keep it
 * out (nlstep.c); nothing otherwise.  Needs pb->Mf. */
void nl_resting_acceleration(struct nl_common *c, struct rt_state *s);
/* Free what only nl_acceleration needs: the driver's common once the
 * linear path has the initial acceleration. */
void nl_common_trim(struct nl_common *c);
/* b := M⁻¹ b: the constant mass's factor (problem_init's), or the last
 * M(u) that nl_acceleration factored. */
void nl_mass_solve(struct nl_common *c, double *b);
/* The acceleration solving the equation of motion at (t, state):
 * M(u) a = f − ∇ᵤΦ − ∇ᵥΨ (constant mass), with dry friction μ_i|u_i'|
 * (constant mass, constraints or not) Moreau's inclusion: a sliding dof
 * braked by μ_i sign(v_i), a dof at rest kept at rest while the friction
 * it needs stays within ±μ_i. */
void nl_acceleration(struct nl_common *c, double t, struct rt_state *s);
/* The (u, v) part of a midpoint step of size h from t0 to t1 (midpoint,
 * discrete_gradient, and staggered_midpoint's u-step; DESIGN.md,
 * "Schemes"): the loads and their mean, the previous state into
 * uprev/vprev/zprev, the stage's unknown y = v^{k−½} with
 * u = uprev + h/2 y and inertia 2M(y − vᵏ⁻¹)/h, the constraints at t1,
 * and the starting guess y = v + h/2 a.  The caller sets the z part.
 * nl_midpoint_end takes the solution: Δu = h y (+ the position correction
 * of formulation = ggl) into du, uᵏ, vᵏ = 2y − vᵏ⁻¹,
 * and adds Δu·f^{k−½} to *w and Δu·∇ᵥΨ to *d. */
struct stage;
void nl_midpoint_begin(struct nl_common *c, struct stage *st, struct rt_state *x, double t0, double t1, double h,
                       double *uprev, double *vprev, double *zprev, double *in0, const double *zero);
void nl_midpoint_end(const struct nl_common *c, const struct stage *st, struct rt_state *x, double h,
                     const double *uprev, const double *vprev, double *du, double *w, double *d);
/* Σ σ_j |Δz_j| */
double nl_sigma_dissipation(const struct rt_problem *pb, const double *z0, const double *z1);
/* max |x_i|, NaN when an x_i is NaN (a residual's NaN equation is not
 * hidden by the finite ones after it) */
double nl_maxabs(int n, const double *x);
/* The larger of m and d, NaN when either is: fmax drops a NaN, which a
 * convergence test built on it then never sees. */
static inline double nl_max_keep(double m, double d)
{
	return m != m ? m : !(d <= m) ? d : m;
}
/* Allocate zeroed vectors of n doubles into each double ** of the
 * NULL-terminated list; 0, or -1 when out of memory (those allocated stay
 * set, for the caller's free). */
int nl_vectors(size_t n, ...);
/* A stepper that cannot take this model: the message (printf format) in
 * err, status 3; returns NULL, for alloc to return. */
void *nl_refuse(struct rt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A Newton failure as a message. */
int nl_fail(struct rt_error *err, int iters, double res, int rc);

#endif
