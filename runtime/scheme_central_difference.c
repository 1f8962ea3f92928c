/* scheme_central_difference.c — explicit central differences (dyn(5),
 * SCHEMES), both paths: the Newmark member newmark(0, 1/2), watched for
 * stability; on models stated by energies, the Newmark family's Newton
 * path (scheme_newmark.c) with a stability monitor.
 *
 * The scheme is stable only while τ < 2/ω_max, ω_max² the largest
 * eigenvalue of K(u) φ = ω² M φ with K(u) = ∂²Φ/∂u² the current stiffness
 * (the amplification eigenvalues of ü + ω²u = 0 solve λ² − (2 − ω²τ²)λ +
 * 1 = 0: |λ| = 1 for ωτ ≤ 2, growth beyond).  run.c checks the initial
 * state; on a nonlinear model the stiffness changes along the run (a
 * pendulum released near the top has an indefinite Hessian there, and its
 * largest ω at the bottom), so every step first estimates ω_max² at the
 * state it starts from and stops the run when τω_max > 2.
 *
 * The estimate is the power iteration on M⁻¹K(u) in the M inner product,
 * warm-started from the previous step's vector: four iterations a step
 * (the first, and any step within 10 % of the limit, iterate until the
 * quotient settles to 1e-10).  Its Rayleigh quotient
 * xᵀKx/xᵀMx never exceeds ω_max² (Courant–Fischer), so the monitor never
 * stops a stable run; as the state changes slowly from step to step the
 * warm-started vector tracks the top eigenvector.  When K(u) is indefinite
 * and its most negative eigenvalue λ_min dominates, the iteration tends to
 * it; a second iteration then runs on M⁻¹K + σI with σ = −θ (θ ≥ λ_min the
 * first quotient), whose top eigenvalue is ω_max² + σ.  Each step costs the
 * Hessian and a few products and solves with the dense n×n matrices, O(n²)
 * (measured: a third more time on a 200-dof nonlinear chain, whose
 * explicit step is itself cheap).  Beyond IR_DENSE_MAX dofs, where the
 * dense operators do not exist, the same iteration runs on the matrix
 * layer (runtime/omega.c: K(u) on its pattern, M factored once), O(n) a
 * step, and the step itself is the Newton path's, whose Jacobian
 * M + γτ∇²Ψ is sparse too (runtime/stage.c). */
#include <config.h>

#include "scheme.h"
#include "la.h"
#include "omega.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the linear path: constant operators ---- */

/* On linear models with constant operators:
 *
 *   uᵏ⁺¹ − 2uᵏ + uᵏ⁻¹ = τ²aᵏ,  vᵏ = (uᵏ⁺¹ − uᵏ⁻¹)/2τ,  M aᵏ + C vᵏ + K uᵏ = fᵏ
 *
 * which is Newmark with β = 0, γ = ½ exactly (eliminating vᵏ gives the
 * same recurrence), so the step reuses the Newmark stepper: each step
 * solves with M + (τ/2)C = τ²(M/τ² + C/2τ), factored once.  What is
 * particular is stability: τ must stay below 2/ω_max, ω_max² the largest
 * eigenvalue of K φ = ω² M φ, and a larger step is refused. */

struct central_lin {
	void *newmark;
	double tau_crit, omega_max;
};

static void cl_free(void *p)
{
	struct central_lin *s = p;
	if (!s)
		return;
	if (s->newmark)
		step_newmark.free(s->newmark);
	free(s);
}

/* Up to this order ω_max comes from the dense generalized eigensolver
 * (dsygvd, O(n³) once); above, from Lanczos steps (la_eig_max). */
enum { CD_DENSE_MAX = 1000 };
/* Beyond this many dofs a nonlinear model's per-step estimate of ω_max
 * runs on the matrix layer (runtime/omega.c) and the run holds no dense
 * operator (cd_needs_dense): the dense one rebuilt an n × n Hessian and
 * multiplied by it each step, and the dense setup solved the n × n
 * eigenproblem (an FPU chain of 2000 masses: 20 s to start, 0.2 s a
 * step). */
enum { CD_NL_DENSE_MAX = 100 };

/* y := K x, xᵀMx and b := M⁻¹b for la_eig_max */
struct pencil {
	const struct rt_system *sys;
	struct la_solver *mf;
};

static void pencil_kmul(void *ctx, const double *x, double *y)
{
	const struct pencil *p = ctx;
	la_mat_mul(p->sys->K, x, y);
}

static double pencil_mdot(void *ctx, const double *x)
{
	const struct pencil *p = ctx;
	return la_mat_dot(p->sys->M, x, x);
}

static int pencil_msolve(void *ctx, double *b)
{
	const struct pencil *p = ctx;
	la_solver_solve(p->mf, b);
	return 0;
}

/* The largest eigenvalue of K φ = λ M φ by Lanczos (la_eig_max), from
 * below: at most 1000 steps, or until the Ritz residual is within 1e-12
 * of it.  0, or -1 when out of memory or M cannot be factored. */
static int lanczos_lambda_max(const struct rt_system *sys, double *lmax)
{
	struct pencil p = { sys, la_solver_alloc(sys->M, sys->M->sym ? LA_AUTO : LA_UMFPACK, sys->M->sym ? LA_SPD : 0) };
	int rc = -1;
	if (p.mf && la_solver_factor(p.mf, sys->M) == 0) {
		struct la_eigmax_ops ops = { &p, pencil_kmul, pencil_mdot, pencil_msolve, NULL, 0, 0 };
		rc = la_eig_max(sys->n, &ops, 1000, 1e-12, lmax, NULL) == 0 ? 0 : -1;
	}
	la_solver_free(p.mf);
	return rc;
}

static void *cl_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	int n = sys->n;
	struct central_lin *s = mem_calloc(1, sizeof *s);
	double *w = NULL;   /* the dense pencil's eigenvalues */
	if (!s) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
		err->code = 3;
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		/* A dof without mass has no finite critical step. */
		if (la_mat_get(sys->M, i, i) == 0) {
			char nm[IR_NAME_SIZE];
			snprintf(err->msg, sizeof err->msg, "central_difference needs a mass for every dof: dof %s has none",
			         ir_dof_name(sys->model, i, nm, sizeof nm));
			err->code = 3;
			free(s);
			free(w);
			return NULL;
		}
	}
	int info = -1;
	double lmax = 0;
	if (sys->lambda_max) {
		info = sys->lambda_max(sys->load_ctx, &lmax);
	} else if (n <= CD_DENSE_MAX) {
		double *k = mem_alloc(sizeof(double) * (size_t)n * (size_t)n), *m = mem_alloc(sizeof(double) * (size_t)n * (size_t)n);
		w = mem_alloc(sizeof(double) * (size_t)n);
		if (k && m && w) {
			la_mat_to_dense(sys->K, k);
			la_mat_to_dense(sys->M, m);
			info = la_sygv(n, k, m, w, NULL);
			lmax = info == 0 ? w[n - 1] : 0;
		}
		free(k);
		free(m);
	} else {
		info = lanczos_lambda_max(sys, &lmax);
	}
	if (info != 0) {
		snprintf(err->msg, sizeof err->msg, "central_difference: the eigenvalues of K φ = ω² M φ "
		         "could not be computed (the mass matrix is not positive definite?)");
		err->code = 3;
		free(s);
		free(w);
		return NULL;
	}
	s->omega_max = sqrt(lmax > 0 ? lmax : 0);
	s->tau_crit = s->omega_max > 0 ? 2 / s->omega_max : INFINITY;
	free(w);
	if (sys->by_rows)
		return s;
	static const struct alpha_params half = { 0, 0, 0, 0.5 };
	s->newmark = step_newmark.alloc(sys, &half, err);
	if (!s->newmark) {
		free(s);
		return NULL;
	}
	return s;
}

static int cl_set_step(void *p, double tau, struct rt_error *err)
{
	struct central_lin *s = p;
	if (scheme_step_critical(tau, s->tau_crit)) {
		int dg = scheme_step_digits(tau, s->tau_crit);
		snprintf(err->msg, sizeof err->msg,
		         "step %.*g %s the critical step 2/omega_max = %.*g of central_difference "
		         "(omega_max = %.6g rad/s): take a step below %.*g or an implicit scheme",
		         dg, tau, scheme_step_critical(tau, s->tau_crit) == 1 ? "exceeds" : "equals", dg, s->tau_crit, s->omega_max, dg,
		         s->tau_crit);
		err->code = 3;
		return -1;
	}
	return s->newmark ? step_newmark.set_step(s->newmark, tau, err) : 0;
}

static int cl_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct central_lin *s = p;
	return step_newmark.step(s->newmark, t, tau, u, v, a, err);
}

static int cl_potential_end(void *p, double *P)
{
	struct central_lin *s = p;
	return step_newmark.potential_end(s->newmark, P);
}

static const struct scheme_linear central_linear = {
	.alloc = cl_alloc,
	.set_step = cl_set_step,
	.step = cl_step,
	.free = cl_free,
	.potential_end = cl_potential_end,
	.explicit_rows = 1,
};

/* ---- the Newton path: energies, internal variables ---- */

struct central {
	struct rt_problem *pb;
	void *inner;              /* nl_generalized_alpha with (0, 0, 0, 1/2) */
	struct la_factor *mf;     /* M, factored once */
	double *J;                /* N×N: the Hessian of Φ as problem.c adds it */
	double *K;                /* n×n: its u block */
	double *x1, *x2, *y, *Mx; /* n */
	int warm1, warm2;         /* the iterates have converged once */
	struct omega *om;         /* beyond IR_DENSE_MAX: on the matrix layer */
	/* the bound on ω_max τ (2 for central differences, 1/√(γ/2 − β) for
	 * a Newmark member with β < γ/2); 0: no monitor, the steps are the
	 * inner stepper's */
	double wc;
	int cd;                   /* central differences: their message */
	const char *name;
	/* explicit steps (direct_step) */
	int direct;
	double *f0, *f1, *g, *un, *an;   /* N */
};

static void cd_free(void *p)
{
	struct central *s = p;
	if (!s)
		return;
	if (s->inner)
		nl_generalized_alpha.free(s->inner);
	la_factor_free(s->mf);
	omega_free(s->om);
	free(s->J); free(s->K); free(s->x1); free(s->x2); free(s->y); free(s->Mx);
	free(s->f0); free(s->f1); free(s->g); free(s->un); free(s->an);
	free(s);
}

/* Without dissipation nor internal variables the step's equation
 * M aᵏ = fᵏ − ∇Φ(uᵏ) has uᵏ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²/2 aᵏ⁻¹ known: the step is
 * explicit, one gradient and one solve with M (factored once by
 * problem_init), where the Newton path assembles and factors its Jacobian
 * M twice a step.  Dissipation makes vᵏ = vᵏ⁻¹ + τ/2 (aᵏ⁻¹ + aᵏ) enter
 * ∇Ψ (implicit in aᵏ), internal variables their own equation: those stay
 * on the Newton path, as do a mass depending on u and constraints (which
 * the scheme refuses). */
static int direct_applies(const struct rt_problem *pb)
{
	const struct ir_model *m = pb->ir;
	int friction = 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		friction |= pb->sigma_u[i] > 0;
	return pb->m == 0 && !m->dissipation && !pb->hasC && !friction && !pb->varmass && pb->nc == 0 && pb->Mf;
}

/* One explicit step: the Newmark updates with β = 0, γ = ½ in the Newton
 * path's arithmetic (scheme_newmark.c, al_step), the acceleration by the
 * solve with M.  The work is Δu·(fᵏ⁻¹ + fᵏ)/2, as there.  Returns 1
 * without touching x when the acceleration is not finite: the Newton path
 * then takes the step and says what failed. */
static int direct_step(struct central *s, double t0, double t1, double tau, struct rt_state *x, double *dW,
                       double *dD)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	problem_load(pb, t0, s->f0);
	problem_load(pb, t1, s->f1);
	for (int i = 0; i < n; i++)
		s->un[i] = x->u[i] + tau * x->v[i] + tau * tau * 0.5 * x->a[i];
	problem_phi(pb, s->un, x->z, s->g);
	for (int i = 0; i < n; i++)
		s->an[i] = s->f1[i] - s->g[i];
	la_solver_solve(pb->Mf, s->an);
	for (int i = 0; i < n; i++)
		if (!isfinite(s->an[i]))
			return 1;
	double w = 0;
	for (int i = 0; i < n; i++) {
		double du = s->un[i] - x->u[i];
		w += du * 0.5 * (s->f0[i] + s->f1[i]);
		x->v[i] = x->v[i] + tau * 0.5 * x->a[i] + 0.5 * tau * s->an[i];
		x->u[i] = s->un[i];
		x->a[i] = s->an[i];
	}
	*dW = w;
	*dD = 0;
	return 0;
}

static void *cd_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	if (opt->check_only)
		return nl_generalized_alpha.alloc(pb, par, opt, err);
	struct central *s = mem_calloc(1, sizeof *s);
	if (!s)
		return nl_refuse(err, "out of memory for the step");
	s->pb = pb;
	s->inner = nl_generalized_alpha.alloc(pb, par, opt, err);
	if (!s->inner) {
		cd_free(s);
		return NULL;
	}
	/* Newmark's bound (scheme_newmark.c, the same as conditional_step
	 * checks at the initial state): without damping, and with it for
	 * γ = ½ only; for γ > ½ damping moves it, and the growth check of the
	 * ledger stays the guard.  The estimate needs a constant mass,
	 * factored (pb->Mf, or the dense M below); with constraints the
	 * constrained spectrum is lower and unknown here. */
	const struct alpha_params *q = par;
	const struct scheme_type *nm = scheme_of(IR_NEWMARK);
	int damped = pb->hasC || pb->ir->dissipation;
	double (*bound)(const void *) = damped ? nm->critical_damped : nm->critical;
	s->wc = q->alpha_m == 0 && q->alpha_f == 0 && !pb->varmass && pb->nc == 0 &&
	        ((pb->M && pb->n <= CD_NL_DENSE_MAX) || pb->Mf) ? bound(par) : 0;
	s->cd = q->beta == 0 && q->gamma == 0.5;
	s->name = opt->scheme;
	if (s->wc == 0)
		return s;
	s->direct = s->cd && direct_applies(pb);
	if (s->direct && nl_vectors((size_t)pb->N, &s->f0, &s->f1, &s->g, &s->un, &s->an, (double **)NULL)) {
		cd_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	if (!pb->M || pb->n > CD_NL_DENSE_MAX) {
		if (!(s->om = omega_alloc(pb))) {
			cd_free(s);
			return nl_refuse(err, "out of memory for the step");
		}
		return s;
	}
	size_t n = (size_t)pb->n, N = (size_t)pb->N;
	s->mf = la_factor_alloc(pb->n, LA_DENSE_SPD, 0, 0);
	s->J = mem_calloc(N * N + 1, sizeof(double));
	s->K = mem_calloc(n * n + 1, sizeof(double));
	if (!s->mf || !s->J || !s->K || nl_vectors(n, &s->x1, &s->x2, &s->y, &s->Mx, (double **)NULL)) {
		cd_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	/* the Newmark stepper has factored M already: it is positive definite */
	if (la_factor(s->mf, pb->M) != 0) {
		const char *name = s->name;
		cd_free(s);
		return nl_refuse(err, "%s: the mass matrix is not positive definite", name);
	}
	return s;
}

/* la_eig_power's products, dense */
static int pw_kmul(void *ctx, double *x, double *y)
{
	struct central *s = ctx;
	la_gemv(s->pb->n, s->K, x, y);
	return 0;
}

static int pw_mmul(void *ctx, const double *x, double *y)
{
	struct central *s = ctx;
	la_gemv(s->pb->n, s->pb->M, x, y);
	return 0;
}

static int pw_msolve(void *ctx, double *b)
{
	struct central *s = ctx;
	la_solve(s->mf, b);
	return 0;
}

/* la_eig_power from x with shift σ */
static double power(struct central *s, double *x, double sigma, int *warm, int it)
{
	struct la_power_ops op = { s, 0, s->pb->n, pw_kmul, pw_mmul, pw_msolve, NULL };
	double theta = 0;
	la_eig_power(&op, x, s->y, s->Mx, sigma, warm, it, &theta);
	return theta;
}

/* K(u) = ∂²Φ/∂u² at (u, z) */
static void stiffness(struct central *s, const double *u, const double *z)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, N = pb->N;
	memset(s->J, 0, sizeof(double) * (size_t)N * (size_t)N);
	problem_phi(pb, u, z, NULL);
	problem_add_hess_phi(pb, NULL, NULL, s->J, N);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			s->K[i + (size_t)j * n] = s->J[i + (size_t)j * N];
}

/* The estimate of ω_max² for the current K, with at most it iterations
 * per iterate: a lower bound that converges to it. */
static double omega2(struct central *s, int it)
{
	if (s->om)
		return omega_max2(s->om, it);
	double t1 = power(s, s->x1, 0, &s->warm1, it);
	if (!(t1 < 0))
		return t1;   /* NaN too: a Hessian not finite (nl_central_monitor) */
	double t2 = power(s, s->x2, -t1, &s->warm2, it);
	return fmax(t1, t2);
}

/* omega2 for nl_central_monitor */
static int cd_omega2(void *ctx, int it, double *w2)
{
	*w2 = omega2(ctx, it);
	return 0;
}

int nl_central_monitor(int (*est)(void *ctx, int it, double *w2), void *ctx, double tau, double t0, double wc,
                       int cd, const char *name, struct rt_error *err)
{
	/* four iterations a step track the top eigenvector while the step is
	 * well inside the limit; within 10 % of it (in ω) the estimate is
	 * iterated to convergence before the step is judged */
	double w2;
	if (est(ctx, 4, &w2) || (tau * tau * w2 > 0.81 * wc * wc && est(ctx, 500, &w2))) {
		snprintf(err->msg, sizeof err->msg, "MPI failed in the stability estimate between processes");
		return -1;
	}
	/* a Hessian that is not finite at the state gives no estimate: the
	 * test below would pass it, and the step's limit go unchecked */
	if (isnan(w2)) {
		snprintf(err->msg, sizeof err->msg,
		         "%s's stability estimate has no value at t = %.10g: the stiffness (the potential's second "
		         "derivative) is not finite there (as for (x^2)^1.5 at x = 0; abs(x)^3 has one)", name, t0);
		return NL_UNSTABLE;
	}
	if (w2 > 0 && tau * sqrt(w2) > wc) {
		double w = sqrt(w2);
		if (cd)
			snprintf(err->msg, sizeof err->msg,
			         "step %.6g exceeds the critical step 2/omega_max = %.6g of %s at "
			         "t = %.10g, where omega_max = %.6g rad/s (the stiffness grew along the run): "
			         "the scheme is unstable there; take a step below %.6g or an implicit scheme",
			         tau, 2 / w, name, t0, w, 2 / w);
		else
			snprintf(err->msg, sizeof err->msg,
			         "step %.6g exceeds the critical step %.6g of %s at t = %.10g, where omega_max = %.6g rad/s "
			         "(the stiffness grew along the run; stable while omega_max step < %.6g): the scheme is "
			         "unstable there; take a step below %.6g, or beta >= gamma/2 for a scheme stable at any step",
			         tau, wc / w, name, t0, w, wc, wc / w);
		return NL_UNSTABLE;
	}
	return 0;
}

static int cd_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct central *s = p;
	if (s->wc == 0)
		return nl_generalized_alpha.step(s->inner, t0, t1, tau, x, dW, dD, dterm, err);
	if (s->om)
		omega_stiffness(s->om, x->u, x->z);
	else
		stiffness(s, x->u, x->z);
	int rc = nl_central_monitor(cd_omega2, s, tau, t0, s->wc, s->cd, s->name, err);
	if (rc)
		return rc;
	if (s->direct && direct_step(s, t0, t1, tau, x, dW, dD) == 0)
		return 0;
	return nl_generalized_alpha.step(s->inner, t0, t1, tau, x, dW, dD, dterm, err);
}

/* the dense operators (problem_dense) for small models only: the
 * explicit step, its Newton fallback (the stage) and the critical
 * step's estimate (run.c, omega.c) work on the matrix layer */
static int cd_needs_dense(const struct rt_problem *pb)
{
	return pb->n <= CD_NL_DENSE_MAX;
}

static const struct scheme_newton nl_central_difference = {
	.explicit_rows = 1,
	.needs_dense = cd_needs_dense,
	.alloc = cd_alloc,
	.step = cd_step,
	.free = cd_free,
};

/* The Newmark family's Newton path (newmark, fox_goodwin,
 * linear_acceleration, ...), with the monitor above when β < γ/2: the
 * critical step of the linearisation is checked at the initial state
 * (run.c, conditional_step), and a stiffness that grows along the run
 * (a hardening spring) took newmark(beta = 0) to x = -5700 with exit 0.
 * Stable members step as nl_generalized_alpha alone. */
const struct scheme_newton nl_newmark_watched = {
	.alloc = cd_alloc,
	.step = cd_step,
	.free = cd_free,
};

/* newmark(0, 1/2) step for step (the linear path above) */
static void central_params(const double *p, void *par)
{
	(void)p;
	*(struct alpha_params *)par = (struct alpha_params){ 0, 0, 0, 0.5 };
}

static double central_critical(const void *par)
{
	(void)par;
	return 2;
}

const struct scheme_type scheme_central_difference = {
	.family = IR_CENTRAL_DIFFERENCE,
	.params_size = sizeof(struct alpha_params),
	.params = central_params,
	.critical = central_critical,
	.who = "the Newmark family",
	.linear = &central_linear,
	.amplification = &step_newmark,
	.newton = &nl_central_difference,
};
