/* scheme_midpoint.c — the implicit midpoint rule (Crank–Nicolson on the
 * first-order system, Roubíček 2017, eq. 3) and Gonzalez's discrete gradient
 * variant (dyn(5), SCHEMES), both paths; the linear one is also
 * staggered_midpoint's:
 *
 *   (uᵏ − uᵏ⁻¹)/τ = v^{k−½},  M(vᵏ − vᵏ⁻¹)/τ + ∂Ψ(v^{k−½}) + ∂ᵤΦ(x^{k−½}) ∋ f^{k−½}
 *   ∂Ψ((zᵏ − zᵏ⁻¹)/τ) + ∂_zΦ(x^{k−½}) ∋ g^{k−½},   f^{k−½} = ½(f(tₖ₋₁) + f(tₖ))
 *
 * with ∂Φ(x^{k−½}) replaced by DΦ = ∇Φ(x^{k−½}) + [Φ(xᵏ) − Φ(xᵏ⁻¹) −
 * ∇Φ(x^{k−½})·Δx] Δx/|Δx|² for discrete_gradient, which then balances energy
 * exactly for any Φ.  The stage's unknowns are y = v^{k−½} and ζ = ż^{k−½}.
 *
 * For a mass depending on u both act on (u, p = M(u)v) (DESIGN.md): the
 * Hamiltonian H(u, p) = ½pᵀM(u)⁻¹p + Φ(u) with ∂ᵤH = −∂ᵤT(u, v) + ∇Φ(u),
 * ∂ₚH = v; the step solves for (uᵏ, pᵏ) by Newton with a difference
 * Jacobian (these models are small).  Internal variables are not
 * supported together with such a mass. */
#include <config.h>

#include "scheme.h"
#include "stage.h"
#include "newton.h"
#include "la.h"
#include "midpoint_varmass.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the linear path: constant operators ---- */

/* The midpoint rule on linear models with linear constraints B u = G(t),
 * in the convention of its Newton path (below): the forces at the half
 * step, the constraint at the step's end,
 *
 *   (uᵏ − uᵏ⁻¹)/τ = y,  M(vᵏ − vᵏ⁻¹)/τ + C y + K u^{k−½} + Bᵀλ^{k−½} = f^{k−½}
 *   B uᵏ = G(tₖ),  vᵏ = 2y − vᵏ⁻¹,  f^{k−½} = ½(f(tₖ₋₁) + f(tₖ))
 *
 * so each step solves the saddle point [(2/τ)M + C + (τ/2)K  Bᵀ; B 0] for
 * (y, λ^{k−½}), factored once per step size.  The acceleration and the
 * multiplier reported at tₖ are those of the equation of motion there,
 * [M Bᵀ; B 0] [aᵏ; λᵏ] = [f(tₖ) − C vᵏ − K uᵏ; G̈(tₖ)] (factored once), as
 * nl_acceleration does on the Newton path; the ledger pairs the constraint
 * force of the step, Bᵀλ^{k−½}, with Δu (sys->lamh).  discrete_gradient
 * and staggered_midpoint without internal variables are this scheme on a
 * quadratic energy.  Without constraints the midpoint rule is newmark(¼, ½),
 * and this stepper is step_trapezoidal (scheme_newmark.c). */

struct midpoint_lin {
	const struct rt_system *sys;
	void *tr;                   /* without constraints: step_trapezoidal's */
	double tau;
	struct step_matrix *f, *fa; /* the step's saddle point; [M Bᵀ; B 0] */
	double *rhs, *tmp, *f0, *gdd;
};

static void ml_free(void *p)
{
	struct midpoint_lin *s = p;
	if (!s)
		return;
	if (s->tr)
		step_trapezoidal.free(s->tr);
	step_matrix_free(s->f);
	step_matrix_free(s->fa);
	free(s->rhs);
	free(s->tmp);
	free(s->f0);
	free(s->gdd);
	free(s);
}

static void *ml_alloc(const struct rt_system *sys, const void *par, struct rt_error *err)
{
	int n = sys->n, nc = sys->nc;
	size_t nt = (size_t)n + (size_t)nc;
	struct midpoint_lin *s = mem_calloc(1, sizeof *s);
	if (!s)
		goto oom;
	s->sys = sys;
	if (nc == 0) {
		if (!(s->tr = step_trapezoidal.alloc(sys, par, err))) {
			free(s);
			return NULL;
		}
		return s;
	}
	if (!sys->gddfun || !sys->lamh)
		goto oom;
	s->f = step_matrix_alloc(sys, 0, 1);
	s->fa = step_matrix_alloc(sys, 0, 1);
	s->rhs = mem_alloc(sizeof(double) * nt);
	s->tmp = mem_alloc(sizeof(double) * (size_t)n);
	s->f0 = mem_alloc(sizeof(double) * nt);
	s->gdd = mem_alloc(sizeof(double) * (size_t)nc);
	if (!s->f || !s->fa || !s->rhs || !s->tmp || !s->f0 || !s->gdd)
		goto oom;
	/* nonsingular for M positive definite and B of full rank, which the
	 * run checks before stepping (a defence only) */
	int info = step_factor(s->fa, 1, 0, 0, 1);
	if (info < 0)
		goto oom;
	if (info > 0) {
		snprintf(err->msg, sizeof err->msg, "the matrix [M B^T; B 0] of the accelerations is singular "
		         "at pivot %d: the constraints are dependent or a dof has no mass", info);
		err->code = 3;
		ml_free(s);
		return NULL;
	}
	return s;
oom:
	ml_free(s);
	snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", n);
	err->code = 3;
	return NULL;
}

static int ml_set_step(void *p, double tau, struct rt_error *err)
{
	struct midpoint_lin *s = p;
	if (s->tr)
		return step_trapezoidal.set_step(s->tr, tau, err);
	s->tau = tau;
	return step_factor_checked(s->f, s->sys, 2 / tau, 1, tau / 2, 1, "the step matrix of the midpoint rule is singular",
	                           err);
}

static int ml_step(void *p, double t, double tau, double *u, double *v, double *a, struct rt_error *err)
{
	struct midpoint_lin *s = p;
	if (s->tr)
		return step_trapezoidal.step(s->tr, t, tau, u, v, a, err);
	const struct rt_system *sys = s->sys;
	int n = sys->n, nc = sys->nc;
	/* y: [(2/τ)M + C + (τ/2)K] y + Bᵀλ = f^{k−½} + (2/τ)M vᵏ⁻¹ − K uᵏ⁻¹ */
	sys->load(sys->load_ctx, t - tau, s->f0);
	sys->load(sys->load_ctx, t, s->rhs);
	la_mat_mul(sys->M, v, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] = 0.5 * (s->f0[i] + s->rhs[i]) + 2 * s->tmp[i] / tau;
	la_mat_mul(sys->K, u, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	/* B(uᵏ⁻¹ + τ y) = G(tₖ); the multipliers of the step's force */
	step_solve_saddle(s->f, t, u, tau, s->rhs);
	for (int k = 0; k < nc; k++)
		sys->lamh[k] = sys->lam[k];
	for (int i = 0; i < n; i++) {
		u[i] += tau * s->rhs[i];
		v[i] = 2 * s->rhs[i] - v[i];
	}
	/* aᵏ, λᵏ from the equation of motion at tₖ with B aᵏ = G̈(tₖ) */
	sys->load(sys->load_ctx, t, s->rhs);
	la_mat_mul(sys->K, u, s->tmp);
	for (int i = 0; i < n; i++)
		s->rhs[i] -= s->tmp[i];
	if (sys->C) {
		la_mat_mul(sys->C, v, s->tmp);
		for (int i = 0; i < n; i++)
			s->rhs[i] -= s->tmp[i];
	}
	sys->gddfun(sys->load_ctx, t, s->gdd);
	for (int k = 0; k < nc; k++)
		s->rhs[n + k] = step_matrix_scale(s->fa) * s->gdd[k];
	step_solve(s->fa, s->rhs);
	for (int i = 0; i < n; i++)
		a[i] = s->rhs[i];
	for (int k = 0; k < nc; k++)
		sys->lam[k] = step_matrix_scale(s->fa) * s->rhs[n + k];
	return 0;
}

const struct scheme_linear step_midpoint = {
	.alloc = ml_alloc,
	.set_step = ml_set_step,
	.step = ml_step,
	.free = ml_free,
	.halfstep_work = 1,
};

/* ---- the Newton path: energies, internal variables, constraints ---- */

/* discrete_gradient with M(u) iterates on (u, p) with a dense Jacobian
 * by differences, O(n⁴) per iteration: small models only */
enum { MP_UP_MAX = LA_SMALL_N };

struct midpoint {
	struct rt_problem *pb;
	struct nl_common c;
	struct stage st;
	int dg;
	double *in0, *zero, *uprev, *zprev, *vprev, *du, *dz;
	/* (u, p) form */
	struct newton *nw;
	double *X, *R0, *R1, *Xp, *p0, *u0, *uh, *ph, *vh, *dT, *gp, *gs, *Mh, *ue, *ve, *pe, *gq;
	double *fs;           /* the support's load −M(u^½) d ā at the midpoint */
	double ag;            /* ā = (a(tₖ₋₁) + a(tₖ))/2, the support's mean acceleration */
	struct la_factor *mf;
	double tau, scale;
	struct nl_options opt;
	struct mpv *mv;       /* the midpoint rule with M(u), any size */
};

static void mp_free(void *p)
{
	struct midpoint *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	stage_free(&s->st);
	mpv_free(s->mv);
	newton_free(s->nw);
	la_factor_free(s->mf);
	free(s->in0); free(s->zero); free(s->uprev); free(s->zprev); free(s->vprev); free(s->du); free(s->dz);
	free(s->X); free(s->R0); free(s->R1); free(s->Xp); free(s->p0); free(s->u0); free(s->uh);
	free(s->ph); free(s->vh); free(s->dT); free(s->gp); free(s->gs); free(s->Mh); free(s->ue);
	free(s->ve); free(s->pe); free(s->gq); free(s->fs);
	free(s);
}

static void *alloc_common(struct rt_problem *pb, const struct nl_options *opt, struct rt_error *err, int dg)
{
	int friction = 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		friction |= pb->sigma_u[i] > 0;
	if (pb->varmass && friction) {
		return nl_refuse(err, "dry friction together with a mass depending on u is not supported");
	}
	if (pb->varmass && pb->nc > 0) {
		return nl_refuse(err, "constraints together with a mass depending on u are not supported by midpoint "
		                 "and discrete_gradient: moreau_jean takes them");
	}
	if (pb->varmass && pb->m > 0) {
		return nl_refuse(err, "internal variables together with a mass depending on u "
		                      "are not supported");
	}
	/* discrete_gradient's bracket needs M(u)⁻¹p at its Gauss points: it
	 * iterates on (u, p), whose Jacobian is dense */
	if (pb->varmass && dg && pb->n > MP_UP_MAX)
		return nl_refuse(err, "discrete_gradient with a mass depending on u iterates on (u, p) with a dense "
		                 "Jacobian, up to %d unknowns (this model has %d): midpoint takes such a model "
		                 "at any size", (int)MP_UP_MAX, pb->n);
	if (opt->check_only)
		return NULL;
	struct midpoint *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->pb = pb;
	s->dg = dg;
	s->opt = *opt;
	size_t n = (size_t)pb->n + 1;
	int bad = nl_vectors((size_t)pb->N, &s->in0, &s->zero, &s->uprev, &s->zprev, &s->vprev, &s->du, &s->dz,
	                     (double **)NULL) ||
	          nl_common_alloc(&s->c, pb);
	if (!bad && pb->varmass && !dg) {
		bad |= !(s->mv = mpv_alloc(pb, opt));
	} else if (!bad) {
		bad |= stage_alloc(&s->st, pb);
	}
	if (!bad && pb->varmass && dg) {
		bad |= nl_vectors(2 * n, &s->X, &s->R0, &s->R1, &s->Xp, (double **)NULL);
		bad |= nl_vectors(n, &s->p0, &s->u0, &s->uh, &s->ph, &s->vh, &s->dT, &s->gp, &s->gs, &s->ue, &s->ve, &s->pe,
		                  &s->gq, &s->fs, (double **)NULL);
		bad |= !(s->Mh = mem_calloc(n * n, sizeof(double)));
		bad |= !(s->nw = newton_alloc(2 * pb->n));
		bad |= !(s->mf = la_factor_alloc(pb->n, LA_DENSE_GENERAL, 0, 0));
	}
	if (bad) {
		mp_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	if (opt->ggl && !s->mv && stage_ggl(&s->st)) {
		mp_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->st.tol = opt->tol;
	s->st.maxit = opt->maxit;
	return s;
}

static void *mp_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	(void)par;
	return alloc_common(pb, opt, err, 0);
}

static void *dg_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	(void)par;
	return alloc_common(pb, opt, err, 1);
}

/* v = M(u)⁻¹ p */
static void velocity(struct midpoint *s, const double *u, const double *p, double *v)
{
	int n = s->pb->n;
	problem_mass(s->pb, u, s->Mh);
	memcpy(v, p, sizeof(double) * (size_t)n);
	if (la_factor(s->mf, s->Mh) == 0)
		la_solve(s->mf, v);
}

/* The (u, p) residual: τ times R1 = Δu/τ − D_pH, R2 = Δp/τ + D_uH + ∇ᵥΨ(v^½) − f̄. */
static void up_residual(struct midpoint *s, const double *X, double *R)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	const double *uk = X, *pk = X + n;
	double tau = s->tau;
	for (int i = 0; i < n; i++) {
		s->uh[i] = 0.5 * (s->u0[i] + uk[i]);
		s->ph[i] = 0.5 * (s->p0[i] + pk[i]);
	}
	velocity(s, s->uh, s->ph, s->vh);
	problem_kinetic(pb, s->uh, s->vh, NULL, s->dT);
	problem_phi(pb, s->uh, s->zero, s->gp);
	problem_psi(pb, s->vh, s->zero, s->gs);
	/* ∇H at the midpoint: (−∂ᵤT + ∇Φ, v) */
	for (int i = 0; i < n; i++)
		s->gp[i] -= s->dT[i];
	if (s->dg) {
		/* DH = ∇H(x^½) + [H(xᵏ) − H(xᵏ⁻¹) − ∇H(x^½)·Δx] Δx/|Δx|², the
		 * bracket integrated by 3-point Gauss–Legendre from gradient
		 * differences (as in stage.c), x = (u, p) */
		double dd = 0, xx = 0;
		for (int i = 0; i < n; i++) {
			double du = uk[i] - s->u0[i], dp = pk[i] - s->p0[i];
			dd += du * du + dp * dp;
			xx += uk[i] * uk[i] + pk[i] * pk[i];
		}
		if (dd > 1e-28 * (1 + xx)) {
			static const double node = 0.3872983346207417;   /* √(3/5)/2 */
			double bracket = 0;
			for (int q = -1; q <= 1; q += 2) {
				for (int i = 0; i < n; i++) {
					s->ue[i] = s->uh[i] + q * node * (uk[i] - s->u0[i]);
					s->pe[i] = s->ph[i] + q * node * (pk[i] - s->p0[i]);
				}
				/* ∇H at the Gauss point: (−∂ᵤT + ∇Φ, M⁻¹p) */
				velocity(s, s->ue, s->pe, s->ve);
				problem_kinetic(pb, s->ue, s->ve, NULL, s->dT);
				problem_phi(pb, s->ue, s->zero, s->gq);
				for (int i = 0; i < n; i++) {
					double guq = s->gq[i] - s->dT[i];
					bracket += 5.0 / 18 * ((guq - s->gp[i]) * (uk[i] - s->u0[i]) +
					                       (s->ve[i] - s->vh[i]) * (pk[i] - s->p0[i]));
				}
			}
			double c = bracket / dd;
			for (int i = 0; i < n; i++) {
				s->gp[i] += c * (uk[i] - s->u0[i]);
				s->vh[i] += c * (pk[i] - s->p0[i]);
			}
		}
	}
	/* the support's load −M(u^½) d ā, the whole mass at the midpoint
	 * with the mean of the loads' times (second order, like f^{k−½}) */
	memset(s->fs, 0, sizeof(double) * (size_t)n);
	problem_support_load(pb, s->uh, s->ag, s->fs);
	for (int i = 0; i < n; i++) {
		/* both rows times τ: displacements and momenta */
		R[i] = uk[i] - s->u0[i] - tau * s->vh[i];
		R[n + i] = pk[i] - s->p0[i] + tau * (s->gp[i] + s->gs[i] - s->c.fm[i] - s->fs[i]);
	}
}

static int up_fn(void *ctx, const double *X, double *R, double *J)
{
	struct midpoint *s = ctx;
	int N2 = 2 * s->pb->n;
	up_residual(s, X, R);
	if (!J)
		return 0;
	/* central differences, column by column */
	for (int k = 0; k < N2; k++) {
		memcpy(s->Xp, X, sizeof(double) * (size_t)N2);
		double h = 1e-7 * (1 + fabs(X[k]));
		s->Xp[k] = X[k] + h;
		up_residual(s, s->Xp, s->R0);
		s->Xp[k] = X[k] - h;
		up_residual(s, s->Xp, s->R1);
		for (int i = 0; i < N2; i++)
			J[i + (size_t)k * N2] = (s->R0[i] - s->R1[i]) / (2 * h);
	}
	up_residual(s, X, R);
	return 0;
}

static int up_step(struct midpoint *s, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n;
	s->tau = tau;
	problem_load(pb, t0, s->c.f0);
	problem_load(pb, t1, s->c.f1);
	for (int k = 0; k < pb->N; k++)
		s->c.fm[k] = 0.5 * (s->c.f0[k] + s->c.f1[k]);
	s->ag = 0.5 * (problem_support(pb, t0) + problem_support(pb, t1));
	memcpy(s->u0, x->u, sizeof(double) * (size_t)n);
	problem_kinetic(pb, x->u, x->v, s->p0, NULL);
	for (int i = 0; i < n; i++) {
		s->X[i] = x->u[i] + tau * x->v[i];
		s->X[n + i] = s->p0[i];
	}
	problem_phi(pb, x->u, s->zero, s->gp);
	double scale = fmax(nl_maxabs(n, s->p0), tau * fmax(nl_maxabs(n, s->gp), nl_maxabs(n, s->c.f1)));
	scale = fmax(scale, nl_maxabs(n, x->u) + tau * nl_maxabs(n, x->v));
	if (!(scale > 0))
		scale = 1;
	struct newton_report rep;
	int rc = newton_solve(s->nw, up_fn, s, s->X, s->opt.tol, scale, s->opt.maxit, &rep);
	if (rc)
		return nl_fail(err, rep.iterations, rep.residual / scale, rc);
	up_residual(s, s->X, s->R0);   /* v^½, ∇Ψ at the solution */
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		double du = s->X[i] - x->u[i];
		s->du[i] = du;
		w += du * (s->c.fm[i] + s->fs[i]);
		d += du * s->gs[i];
	}
	problem_dissipation_terms(pb, s->vh, s->zero, 1, 0, s->du, s->zero, dterm);
	memcpy(s->vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(x->u, s->X, sizeof(double) * (size_t)n);
	velocity(s, x->u, s->X + n, x->v);
	for (int i = 0; i < n; i++)
		x->a[i] = (x->v[i] - s->vprev[i]) / tau;
	*dW = w;
	*dD = d;
	return 0;
}

static int mp_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD, double *dterm, struct rt_error *err)
{
	struct midpoint *s = p;
	struct rt_problem *pb = s->pb;
	if (s->mv)
		return mpv_step(s->mv, t0, t1, tau, x, dW, dD, dterm, err);
	if (pb->varmass)
		return up_step(s, t0, t1, tau, x, dW, dD, dterm, err);
	struct stage *st = &s->st;
	int n = pb->n, m = pb->m;
	nl_midpoint_begin(&s->c, st, x, t0, t1, tau, s->uprev, s->vprev, s->zprev, s->in0, s->zero);
	st->z0 = s->zprev;
	st->cz = tau / 2;
	st->zd0 = s->zero;
	st->czd = 1;
	st->dg = s->dg;
	st->uprev = s->uprev;
	st->zprev = s->zprev;
	st->phiprev = s->dg ? problem_phi(pb, x->u, x->z, NULL) : 0;
	for (int j = 0; j < m; j++)
		st->x[n + j] = x->zd[j];
	problem_phi(pb, x->u, x->z, s->c.g);
	double scale = fmax(nl_maxabs(pb->N, s->c.f1), nl_maxabs(pb->N, s->c.g));
	/* the terms of the inertia 2M(y − vᵏ⁻¹)/τ are of the order of M v/τ:
	 * their rounding bounds the attainable residual */
	scale = fmax(scale, 2 * nl_maxabs(n, x->v) / tau * la_mat_maxabs(&pb->Mm));
	if (!(scale > 0))
		scale = 1;
	int iters;
	double res;
	int rc = stage_solve(st, scale, &iters, &res);
	if (rc)
		return stage_failure(st, rc, err);
	stage_multipliers(st, x->lam);
	double w = 0, d = 0;
	nl_midpoint_end(&s->c, st, x, tau, s->uprev, s->vprev, s->du, &w, &d);
	for (int j = 0; j < m; j++) {
		double dz = tau * st->x[n + j];
		s->dz[j] = dz;
		w += dz * s->c.fm[n + j];
		d += dz * st->gpsi[n + j];
		x->z[j] = s->zprev[j] + dz;
		x->zd[j] = st->x[n + j];
	}
	d += nl_sigma_dissipation(pb, s->zprev, x->z);
	/* per term at the midpoint rates (st->x holds y = v^½, ζ = ż^½) */
	problem_dissipation_terms(pb, st->x, st->x + n, 1, 1, s->du, s->dz, dterm);
	problem_sigma_terms(pb, s->dz, dterm);
	d += problem_friction_terms(pb, s->du, st->xiu, dterm);
	/* the acceleration at tₖ from the equation of motion there */
	nl_acceleration(&s->c, t1, x);
	w += stage_constraint_work(st, s->du);
	*dW = w;
	*dD = d;
	return 0;
}

static const struct scheme_newton nl_midpoint = {
	.alloc = mp_alloc,
	.step = mp_step,
	.free = mp_free,
};

static const struct scheme_newton nl_discrete_gradient = {
	.alloc = dg_alloc,
	.step = mp_step,
	.free = mp_free,
};

/* on linear models without constraints both are the trapezoidal rule
 * (dyn(5)); with linear constraints they keep their own convention
 * (step_midpoint, above) */
const struct scheme_type scheme_midpoint = {
	.family = IR_MIDPOINT,
	.linear = &step_midpoint,
	.newton = &nl_midpoint,
};

const struct scheme_type scheme_discrete_gradient = {
	.family = IR_DISCRETE_GRADIENT,
	.linear = &step_midpoint,
	.newton = &nl_discrete_gradient,
};
