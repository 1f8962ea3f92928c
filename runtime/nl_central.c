/* nl_central.c — central differences on models stated by energies: the
 * Newmark member newmark(0, 1/2) of nl_alpha.c, watched for stability.
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
 * explicit step is itself cheap). */
#include <config.h>

#include "scheme.h"
#include "la.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct central {
	struct rt_problem *pb;
	void *inner;              /* nl_generalized_alpha with (0, 0, 0, 1/2) */
	struct la_factor *mf;     /* M, factored once */
	double *J;                /* N×N: the Hessian of Φ as problem.c adds it */
	double *K;                /* n×n: its u block */
	double *x1, *x2, *y, *Mx; /* n */
	int warm1, warm2;         /* the iterates have converged once */
};

static void cd_free(void *p)
{
	struct central *s = p;
	if (!s)
		return;
	if (s->inner)
		nl_generalized_alpha.free(s->inner);
	la_factor_free(s->mf);
	free(s->J); free(s->K); free(s->x1); free(s->x2); free(s->y); free(s->Mx);
	free(s);
}

/* A start vector with a component along every mode of interest: no
 * pattern (constant, alternating) that an eigenvector of a chain could be
 * orthogonal to. */
static void start_vector(int n, double *x)
{
	for (int i = 0; i < n; i++)
		x[i] = 0.5 + sin(1.7 * (i + 1));
}

static void *cd_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	struct central *s = calloc(1, sizeof *s);
	if (!s)
		return nl_refuse(err, "out of memory for the step");
	s->pb = pb;
	s->inner = nl_generalized_alpha.alloc(pb, par, opt, err);
	if (!s->inner) {
		cd_free(s);
		return NULL;
	}
	size_t n = (size_t)pb->n, N = (size_t)pb->N;
	s->mf = la_factor_alloc(pb->n, LA_DENSE_SPD, 0, 0);
	s->J = calloc(N * N + 1, sizeof(double));
	s->K = calloc(n * n + 1, sizeof(double));
	if (!s->mf || !s->J || !s->K || nl_vectors(n, &s->x1, &s->x2, &s->y, &s->Mx, (double **)NULL)) {
		cd_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	/* the Newmark stepper has factored M already: it is positive definite */
	if (la_factor(s->mf, pb->M) != 0) {
		cd_free(s);
		return nl_refuse(err, "central_difference: the mass matrix is not positive definite");
	}
	start_vector(pb->n, s->x1);
	start_vector(pb->n, s->x2);
	return s;
}

/* x := x / √(xᵀMx); 0 when x is 0. */
static double normalise(struct central *s, double *x)
{
	int n = s->pb->n;
	la_gemv(n, s->pb->M, x, s->Mx);
	double q = 0;
	for (int i = 0; i < n; i++)
		q += x[i] * s->Mx[i];
	if (!(q > 0))
		return 0;
	q = sqrt(q);
	for (int i = 0; i < n; i++)
		x[i] /= q;
	return q;
}

/* xᵀKx for an M-normalised x */
static double rayleigh(struct central *s, const double *x)
{
	return la_quad(s->pb->n, s->K, x, x);
}

/* Iterations x := M⁻¹(K + σM)x, M-normalised, until the quotient settles
 * to 1e-10, at most it (500 the first time).  Returns xᵀKx/xᵀMx. */
static double power(struct central *s, double *x, double sigma, int *warm, int it)
{
	int n = s->pb->n;
	if (!*warm)
		it = 500;
	if (normalise(s, x) == 0) {
		start_vector(n, x);
		normalise(s, x);
	}
	double theta = rayleigh(s, x);
	for (int k = 0; k < it; k++) {
		la_gemv(n, s->K, x, s->y);
		la_gemv(n, s->pb->M, x, s->Mx);
		for (int i = 0; i < n; i++)
			s->y[i] += sigma * s->Mx[i];
		la_solve(s->mf, s->y);
		if (normalise(s, s->y) == 0)
			break;   /* (K + σM)x = 0: x is an eigenvector for −σ */
		memcpy(x, s->y, sizeof(double) * (size_t)n);
		double next = rayleigh(s, x);
		int done = fabs(next - theta) <= 1e-10 * fabs(next);
		theta = next;
		if (done)
			break;
	}
	*warm = 1;
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
	double t1 = power(s, s->x1, 0, &s->warm1, it);
	if (t1 >= 0)
		return t1;
	double t2 = power(s, s->x2, -t1, &s->warm2, it);
	return fmax(t1, t2);
}

static int cd_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct central *s = p;
	stiffness(s, x->u, x->z);
	/* four iterations a step track the top eigenvector while the step is
	 * well inside the limit; within 10 % of it (in ω) the estimate is
	 * iterated to convergence before the step is judged */
	double w2 = omega2(s, 4);
	if (tau * tau * w2 > 0.81 * 4)
		w2 = omega2(s, 500);
	if (w2 > 0 && tau * sqrt(w2) > 2) {
		double w = sqrt(w2);
		snprintf(err->msg, sizeof err->msg,
		         "step %.6g exceeds the critical step 2/omega_max = %.6g of central_difference at "
		         "t = %.10g, where omega_max = %.6g rad/s (the stiffness grew along the run): "
		         "the scheme is unstable there; take a step below %.6g or an implicit scheme",
		         tau, 2 / w, t0, w, 2 / w);
		return NL_UNSTABLE;
	}
	return nl_generalized_alpha.step(s->inner, t0, t1, tau, x, dW, dD, dterm, err);
}

static const struct scheme_newton nl_central_difference = {
	.alloc = cd_alloc,
	.step = cd_step,
	.free = cd_free,
};

/* newmark(0, 1/2) step for step (stepper_central.c) */
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
	.linear = &step_central_difference,
	.amplification = &step_newmark,
	.newton = &nl_central_difference,
};
