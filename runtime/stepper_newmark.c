/* stepper_newmark.c — the Newmark family and generalized-α (Chung &
 * Hulbert 1993) on linear models with constant operators (DESIGN.md,
 * "Schemes"):
 *
 *   uᵏ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²[(½−β)aᵏ⁻¹ + βaᵏ]
 *   vᵏ = vᵏ⁻¹ + τ[(1−γ)aᵏ⁻¹ + γaᵏ]
 *   M[(1−α_m)aᵏ + α_m aᵏ⁻¹] + (1−α_f)(C vᵏ + K uᵏ) + α_f(C vᵏ⁻¹ + K uᵏ⁻¹) = f(t_{k−α_f})
 *
 * Newmark is α_m = α_f = 0.  In acceleration form, with the predictors
 * ũ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²(½−β)aᵏ⁻¹ and ṽ = vᵏ⁻¹ + τ(1−γ)aᵏ⁻¹, the step
 * matrix (1−α_m)M + (1−α_f)(γτC + βτ²K) is factored once per step size
 * (Cholesky for Newmark with symmetric operators).  β = 0 is explicit in K
 * and is the central-difference scheme (stepper_central.c).  The same
 * scheme as runtime/nl_alpha.c, without Newton. */
#include <config.h>

#include "scheme.h"
#include "la.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct newmark {
	const struct rt_system *sys;
	double am, af, beta, gamma, tau;
	struct la_factor *f;
	double *work, *ut, *vt, *rhs, *tmp, *w;
	double bscale;        /* constraints: the saddle point's balance */
};

static void nm_free(void *p)
{
	struct newmark *s = p;
	if (!s)
		return;
	la_factor_free(s->f);
	free(s->work);
	free(s->ut);
	free(s->vt);
	free(s->rhs);
	free(s->tmp);
	free(s->w);
	free(s);
}

int step_factor(const struct rt_system *sys, struct la_factor *f, double *work,
                double cM, double cC, double cK)
{
	size_t nn = (size_t)sys->n * (size_t)sys->n;
	for (size_t i = 0; i < nn; i++)
		work[i] = cM * sys->M[i] + (sys->C ? cC * sys->C[i] : 0) + cK * sys->K[i];
	return la_factor(f, work);
}

int step_factor_saddle(const struct rt_system *sys, struct la_factor *f, double *work,
                       double cM, double cC, double cK, double w, double *bscale)
{
	int n = sys->n, nc = sys->nc, nt = n + nc;
	double amax = 0, bmax = 0;
	memset(work, 0, sizeof(double) * (size_t)nt * (size_t)nt);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++) {
			size_t ij = (size_t)i + (size_t)j * (size_t)n;
			double a = cM * sys->M[ij] + (sys->C ? cC * sys->C[ij] : 0) + cK * sys->K[ij];
			work[i + (size_t)j * nt] = a;
			amax = fmax(amax, fabs(a));
		}
	for (size_t q = 0; q < (size_t)nc * (size_t)n; q++)
		bmax = fmax(bmax, fabs(sys->B[q]));
	/* equilibrate the two blocks: LU with partial pivoting then sees
	 * entries of one size (a stiffness of 1e8 against B of 1) */
	double sc = bmax > 0 && amax > 0 ? amax / bmax : 1;
	*bscale = sc;
	for (int k = 0; k < nc; k++)
		for (int i = 0; i < n; i++) {
			double b = sc * sys->B[k + (size_t)i * nc];
			work[i + (size_t)(n + k) * nt] = w * b;
			work[n + k + (size_t)i * nt] = b;
		}
	return la_factor(f, work);
}

void step_solve_saddle(const struct rt_system *sys, struct la_factor *f, double bscale, double t,
                       const double *ut, double c, double *rhs)
{
	int n = sys->n, nc = sys->nc;
	double *g = rhs + n;
	sys->gfun(sys->load_ctx, t, g);
	for (int k = 0; k < nc; k++) {
		double bu = 0;
		for (int i = 0; i < n; i++)
			bu += sys->B[k + (size_t)i * nc] * ut[i];
		g[k] = bscale * (g[k] - bu) / c;
	}
	la_solve(f, rhs);
	for (int k = 0; k < nc; k++)
		sys->lam[k] = bscale * g[k];
}

/* par: struct alpha_params */
static void *alpha_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	const struct alpha_params *q = par;
	struct newmark *s = calloc(1, sizeof *s);
	int n = sys->n;
	if (!s)
		goto oom;
	s->sys = sys;
	s->am = q->alpha_m;
	s->af = q->alpha_f;
	s->beta = q->beta;
	s->gamma = q->gamma;
	/* M + γτC + βτ²K is symmetric positive definite for symmetric
	 * non-negative C and K; the general factorization covers the rest. */
	int sym = s->am == 0 && s->af == 0 && la_asymmetry(n, sys->K) == 0 &&
	          (!sys->C || la_asymmetry(n, sys->C) == 0);
	enum la_kind kind = sys->banded ? (sym ? LA_BAND_SPD : LA_BAND_GENERAL)
	                                : (sym ? LA_DENSE_SPD : LA_DENSE_GENERAL);
	/* with constraints the saddle point [S wBᵀ; B 0] is indefinite */
	size_t nt = (size_t)n + (size_t)sys->nc;
	s->f = sys->nc ? la_factor_alloc((int)nt, LA_DENSE_GENERAL, 0, 0) : la_factor_alloc(n, kind, sys->kl, sys->ku);
	s->work = malloc(sizeof(double) * nt * nt);
	s->ut = malloc(sizeof(double) * (size_t)n);
	s->vt = malloc(sizeof(double) * (size_t)n);
	s->rhs = malloc(sizeof(double) * nt);
	s->tmp = malloc(sizeof(double) * (size_t)n);
	s->w = malloc(sizeof(double) * (size_t)n);
	if (!s->f || !s->work || !s->ut || !s->vt || !s->rhs || !s->tmp || !s->w)
		goto oom;
	return s;
oom:
	nm_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

/* midpoint, discrete_gradient and staggered_midpoint on linear models */
static void *tr_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	(void)par;
	static const struct alpha_params trapezoidal = { 0, 0, 0.25, 0.5 };
	return alpha_alloc(sys, &trapezoidal, err);
}

static int nm_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	s->tau = tau;
	int info = s->sys->nc ? step_factor_saddle(s->sys, s->f, s->work, 1, s->gamma * tau, s->beta * tau * tau, 1,
	                                           &s->bscale)
	                      : step_factor(s->sys, s->f, s->work, 1, s->gamma * tau, s->beta * tau * tau);
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg,
		         "the step matrix M + gamma*tau*C + beta*tau^2*K is singular or not positive definite "
		         "at pivot %d (dof %s)", info, s->sys->dof_name[info - 1]);
		err->code = 3;
		return -1;
	}
	return 0;
}

static int ga_set_step(void *p, double tau, struct rt_error *err)
{
	struct newmark *s = p;
	double c = 1 - s->af;
	s->tau = tau;
	int info = s->sys->nc ? step_factor_saddle(s->sys, s->f, s->work, 1 - s->am, c * s->gamma * tau,
	                                           c * s->beta * tau * tau, c, &s->bscale)
	                      : step_factor(s->sys, s->f, s->work, 1 - s->am, c * s->gamma * tau, c * s->beta * tau * tau);
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the step matrix of generalized_alpha is singular at pivot %d (dof %s)",
		         info, s->sys->dof_name[info - 1]);
		err->code = 3;
		return -1;
	}
	return 0;
}

static int nm_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct newmark *s = p;
	const struct rt_system *sys = s->sys;
	int n = sys->n;
	double b = s->beta, g = s->gamma, am = s->am, af = s->af;
	(void)err;
	for (int i = 0; i < n; i++) {
		s->ut[i] = u[i] + tau * v[i] + tau * tau * (0.5 - b) * a[i];
		s->vt[i] = v[i] + tau * (1 - g) * a[i];
		/* w = (1−α_f)ũ + α_f uᵏ⁻¹ for K, likewise for C below (ũ itself
		 * for Newmark, to the last bit) */
		s->w[i] = af != 0 ? (1 - af) * s->ut[i] + af * u[i] : s->ut[i];
	}
	sys->load(sys->load_ctx, t - af * tau, s->rhs);
	la_gemv_band(n, sys->kl, sys->ku, sys->K, s->w, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	if (sys->C) {
		for (int i = 0; i < n; i++)
			s->w[i] = af != 0 ? (1 - af) * s->vt[i] + af * v[i] : s->vt[i];
		la_gemv_band(n, sys->kl, sys->ku, sys->C, s->w, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= s->tmp[i];
	}
	if (am != 0) {
		la_gemv_band(n, sys->kl, sys->ku, sys->M, a, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= am * s->tmp[i];
	}
	if (sys->nc) {
		/* (1−α_f)Bᵀλᵏ is in the step matrix; α_f Bᵀλᵏ⁻¹ goes right, as
		 * the Newton path's α-weighted constraint force */
		for (int k = 0; k < sys->nc && af != 0; k++)
			for (int i = 0; i < n; i++)
				s->rhs[i] -= af * sys->B[k + (size_t)i * sys->nc] * sys->lam[k];
		if (b != 0)
			step_solve_saddle(sys, s->f, s->bscale, t, s->ut, b * tau * tau, s->rhs);
		else {
			/* central differences: uᵏ = ũ does not depend on aᵏ, which
			 * the constraint on the next position fixes instead,
			 * B uᵏ⁺¹ = G(tₖ₊₁) with uᵏ⁺¹ = uᵏ + τṽ + τ²aᵏ (γ = ½) — the
			 * second difference of G, as SHAKE does for linear
			 * constraints (Ryckaert, Ciccotti and Berendsen 1977) */
			for (int i = 0; i < n; i++)
				s->tmp[i] = s->ut[i] + tau * s->vt[i];
			step_solve_saddle(sys, s->f, s->bscale, t + tau, s->tmp, tau * tau, s->rhs);
		}
	} else
		la_solve(s->f, s->rhs);
	for (int i = 0; i < n; i++) {
		a[i] = s->rhs[i];
		u[i] = s->ut[i] + b * tau * tau * a[i];
		v[i] = s->vt[i] + g * tau * a[i];
	}
	return 0;
}

const struct scheme_linear step_newmark = {
	.alloc = alpha_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.free = nm_free,
};

const struct scheme_linear step_trapezoidal = {
	.alloc = tr_alloc,
	.set_step = nm_set_step,
	.step = nm_step,
	.free = nm_free,
};

const struct scheme_linear step_generalized_alpha = {
	.alloc = alpha_alloc,
	.set_step = ga_set_step,
	.step = nm_step,
	.free = nm_free,
};
