/* nlstep.c — what the nonlinear steppers share: loads at both ends of a
 * step, the consistent acceleration. */
#include <config.h>

#include "nlstep.h"
#include "stage.h"
#include "la.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nl_common_alloc(struct nl_common *c, struct rt_problem *pb)
{
	memset(c, 0, sizeof *c);
	c->pb = pb;
	size_t N = (size_t)pb->N + 1, n = (size_t)pb->n;
	c->f0 = calloc(N, sizeof(double));
	c->f1 = calloc(N, sizeof(double));
	c->fm = calloc(N, sizeof(double));
	c->g = calloc(N, sizeof(double));
	c->gu = calloc(N, sizeof(double));
	c->Ma = calloc(n + 1, sizeof(double));
	if (!c->f0 || !c->f1 || !c->fm || !c->g || !c->gu || !c->Ma)
		return -1;
	/* A constant mass was factored once by problem_init's check (pb->Mf,
	 * in the backend its structure calls for); only M(u) is refactored,
	 * dense, at each configuration. */
	if (pb->varmass) {
		c->Mu = calloc(n * n + 1, sizeof(double));
		c->mf = la_factor_alloc(pb->n, LA_DENSE_SPD, 0, 0);
		if (!c->Mu || !c->mf)
			return -1;
	}
	if (pb->nc) {
		size_t nt = (size_t)(pb->n + pb->nc);
		c->sf = la_factor_alloc((int)nt, LA_DENSE_GENERAL, 0, 0);
		c->S = calloc(nt * nt, sizeof(double));
		c->Gd = calloc((size_t)pb->nc * n + 1, sizeof(double));
		c->rhs = calloc(nt, sizeof(double));
		c->ct = calloc((size_t)pb->nc, sizeof(double));
		c->ctt = calloc((size_t)pb->nc, sizeof(double));
		if (!c->sf || !c->S || !c->Gd || !c->rhs || !c->ct || !c->ctt)
			return -1;
	}
	return 0;
}

void nl_common_free(struct nl_common *c)
{
	free(c->f0); free(c->f1); free(c->fm); free(c->g); free(c->gu); free(c->Ma); free(c->Mu);
	la_factor_free(c->mf);
	la_factor_free(c->sf);
	free(c->S);
	free(c->Gd);
	free(c->rhs);
	free(c->ct);
	free(c->ctt);
	memset(c, 0, sizeof *c);
}

void nl_mass_solve(struct nl_common *c, double *b)
{
	if (c->pb->varmass)
		la_solve(c->mf, b);
	else
		la_solver_solve(c->pb->Mf, b);
}

void nl_acceleration(struct nl_common *c, double t, struct rt_state *s)
{
	struct rt_problem *pb = c->pb;
	int n = pb->n;
	problem_load(pb, t, c->f1);
	problem_phi(pb, s->u, s->z, c->g);
	problem_psi(pb, s->v, s->zd, c->gu);
	for (int i = 0; i < n; i++)
		s->a[i] = c->f1[i] - c->g[i] - c->gu[i];
	if (pb->varmass) {
		/* d/dt(M(u) v) = M a + (∂ᵤ(M v)·v) and ∂ᵤT enter the Euler–Lagrange
		 * equation: the directional derivative by central differences */
		double *p1 = c->g, *p2 = c->gu, *dT = c->fm;
		problem_kinetic(pb, s->u, s->v, NULL, dT);
		for (int i = 0; i < n; i++)
			s->a[i] += dT[i];
		double vn = 0, un = 0;
		for (int i = 0; i < n; i++) {
			vn += s->v[i] * s->v[i];
			un += s->u[i] * s->u[i];
		}
		if (vn > 0) {
			double eps = 1e-6 * sqrt((1 + un) / vn);
			double *up = c->Ma;
			for (int i = 0; i < n; i++)
				up[i] = s->u[i] + eps * s->v[i];
			problem_kinetic(pb, up, s->v, p1, NULL);
			for (int i = 0; i < n; i++)
				up[i] = s->u[i] - eps * s->v[i];
			problem_kinetic(pb, up, s->v, p2, NULL);
			for (int i = 0; i < n; i++)
				s->a[i] -= (p1[i] - p2[i]) / (2 * eps);
		}
		problem_mass(pb, s->u, c->Mu);
		if (la_factor(c->mf, c->Mu) == 0)
			la_solve(c->mf, s->a);
		/* the support's load −M(u) d a(t) accelerates by −d a(t) */
		double ag = problem_support(pb, t);
		for (int i = 0; i < n && pb->ir->support; i++)
			s->a[i] -= pb->ir->support_dir[i] * ag;
		return;
	}
	if (pb->nc) {
		/* [M Gᵀ; G 0] [a; λ] = [f − F; −vᵀ∇²c v − 2∂ₜG v − ∂ₜₜc]: the
		 * acceleration that keeps d²c/dt² = 0 */
		int nc = pb->nc, nt = n + nc;
		problem_constraints(pb, t, s->u, NULL, c->Gd);
		memset(c->S, 0, sizeof(double) * (size_t)nt * (size_t)nt);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				c->S[i + (size_t)j * nt] = la_mat_get(&pb->Mm, i, j);
		for (int k = 0; k < nc; k++)
			for (int i = 0; i < n; i++) {
				c->S[i + (size_t)(n + k) * nt] = c->Gd[k + (size_t)i * nc];
				c->S[n + k + (size_t)i * nt] = c->Gd[k + (size_t)i * nc];
			}
		for (int i = 0; i < n; i++)
			c->rhs[i] = s->a[i];
		/* vᵀ H_k v from the Hessian entries of the last evaluation */
		for (int k = 0; k < nc; k++)
			c->rhs[n + k] = 0;
		const struct ir_model *m = pb->ir;
		const double *h = pb->out_c + nc + m->ngrad;
		for (int q = 0; q < m->nhess; q++)
			c->rhs[n + m->hk[q]] -= s->v[m->hi[q]] * h[q] * s->v[m->hj[q]];
		/* a moving constraint adds 2 ∂ₜG v + ∂ₜₜc (G already in S: Gd
		 * is free to take ∂ₜG) */
		if (m->constraint_moving) {
			problem_constraint_rates(pb, c->ct, c->ctt, c->Gd);
			for (int k = 0; k < nc; k++) {
				double gtv = 0;
				for (int i = 0; i < n; i++)
					gtv += c->Gd[k + (size_t)i * nc] * s->v[i];
				c->rhs[n + k] -= 2 * gtv + c->ctt[k];
			}
		}
		if (la_factor(c->sf, c->S) == 0) {
			la_solve(c->sf, c->rhs);
			for (int i = 0; i < n; i++)
				s->a[i] = c->rhs[i];
			for (int k = 0; k < nc; k++)
				s->lam[k] = c->rhs[n + k];
		}
		return;
	}
	la_solver_solve(pb->Mf, s->a);
}

double nl_sigma_dissipation(const struct rt_problem *pb, const double *z0, const double *z1)
{
	double d = 0;
	for (int j = 0; j < pb->m; j++)
		d += pb->sigma[j] * fabs(z1[j] - z0[j]);
	return d;
}

double nl_maxabs(int n, const double *x)
{
	double m = 0;
	for (int i = 0; i < n; i++)
		if (fabs(x[i]) > m)
			m = fabs(x[i]);
	return m;
}

int nl_vectors(size_t n, ...)
{
	va_list ap;
	int rc = 0;
	va_start(ap, n);
	for (double **p; (p = va_arg(ap, double **)) != NULL;)
		if (!(*p = calloc(n + 1, sizeof(double))))
			rc = -1;
	va_end(ap);
	return rc;
}

int nl_fail(struct rt_error *err, int iters, double res, int rc)
{
	if (rc == -2)
		snprintf(err->msg, sizeof err->msg, "the Jacobian of the step is singular");
	else if (rc == -3)
		snprintf(err->msg, sizeof err->msg, "Newton diverged in %d iteration%s, residual %.2g", iters,
		         iters == 1 ? "" : "s", res);
	else
		snprintf(err->msg, sizeof err->msg,
		         "Newton did not converge in %d iteration%s, residual %.2g", iters, iters == 1 ? "" : "s", res);
	return -1;
}

void nl_midpoint_begin(struct nl_common *c, struct stage *st, struct rt_state *x, double t0, double t1, double h,
                       double *uprev, double *vprev, double *zprev, double *in0, const double *zero)
{
	struct rt_problem *pb = c->pb;
	int n = pb->n, m = pb->m;
	problem_load(pb, t0, c->f0);
	problem_load(pb, t1, c->f1);
	for (int k = 0; k < pb->N; k++) {
		c->fm[k] = 0.5 * (c->f0[k] + c->f1[k]);
		st->e[k] = -c->fm[k];
	}
	memcpy(uprev, x->u, sizeof(double) * (size_t)n);
	memcpy(vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(zprev, x->z, sizeof(double) * (size_t)m);
	for (int i = 0; i < n; i++)
		in0[i] = -2 * x->v[i] / h;
	st->u0 = uprev;
	st->cu = h / 2;
	st->v0 = zero;
	st->cv = 1;
	st->in0 = in0;
	st->cm = 2 / h;
	/* c(uᵏ, tₖ) = 0 at the step's end, the forces G(u^{k−½}, t_{k−½})ᵀλ
	 * at the midpoint: with G at tₖ a moving constraint's force would lag
	 * the state by τ/2 and the scheme fall to first order */
	stage_constraints(st, uprev, h, t1, x->lam);
	st->tf = 0.5 * (t0 + t1);
	/* formulation = ggl: vᵏ = 2y − vᵏ⁻¹ */
	stage_velocity_constraints(st, -1, vprev, 2);
	for (int i = 0; i < n; i++)
		st->x[i] = x->v[i] + 0.5 * h * x->a[i];
}

void nl_midpoint_end(const struct nl_common *c, const struct stage *st, struct rt_state *x, double h,
                     const double *uprev, const double *vprev, double *du, double *w, double *d)
{
	for (int i = 0; i < c->pb->n; i++) {
		du[i] = h * st->x[i] + st->shift[i];   /* the shift: formulation = ggl */
		*w += du[i] * c->fm[i];
		*d += du[i] * st->gpsi[i];
		x->u[i] = uprev[i] + du[i];
		x->v[i] = 2 * st->x[i] - vprev[i];
	}
}

void *nl_refuse(struct rt_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->code = 3;
	return NULL;
}
