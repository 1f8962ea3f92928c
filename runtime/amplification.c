/* amplification.c — the one-step amplification matrix of a scheme on the
 * undamped oscillator ü + ω²u = 0 (unit mass, τ = 1, so ωτ = ω), built by
 * stepping the unit states of (u, τu', τ²u''), and its spectral radius
 * (LAPACK dgeev).  The measure of a scheme's numerical dissipation: for
 * generalized-α it tends to ρ∞ as ωτ → ∞ (Chung & Hulbert 1993). */
#include <config.h>

#include "run.h"
#include "problem.h"
#include "scheme.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void zero_load(void *ctx, double t, double *f)
{
	(void)ctx;
	(void)t;
	f[0] = 0;
}

int rt_spectral_radius(const struct ir_scheme *scheme, double omega_tau, double *rho, struct rt_error *err)
{
	memset(err, 0, sizeof *err);
	double m = 1, k = omega_tau * omega_tau, u0 = 0, v0 = 0, z0 = 0, sigma = 0;
	struct ir_dof_group dof = { "u", 0, 1, 0, NULL, 0, { NULL, 0, 0 }, NULL, NULL };
	struct ir_model model = { 0 };
	model.name = "oscillator";
	model.ndof = 1;
	model.dofs.ngroup = 1;
	model.dofs.group = &dof;
	model.mass.a = &m;
	model.stiffness.a = &k;
	model.u0 = &u0;
	model.v0 = &v0;
	model.z0 = &z0;
	model.sigma = &sigma;
	/* the oscillator's problem, stepped once with τ = 1 from each unit
	 * state; Newton (for the schemes without a linear path) to 1e-14 */
	struct rt_problem pb;
	if (problem_init(&pb, &model, 0, err)) {
		problem_free(&pb);
		return -1;
	}
	double A[9];
	int rc = 0;
	const struct scheme_type *type = scheme_of(scheme->family);
	void *par = type ? scheme_params(type, scheme->p) : NULL;
	if (!par) {
		snprintf(err->msg, sizeof err->msg, type ? "out of memory" : "scheme %s cannot be analysed", scheme->name);
		problem_free(&pb);
		return -1;
	}
	/* the family's own linear path, or the one it names for this
	 * analysis (central differences: Newmark's, see scheme.h) */
	const struct scheme_linear *lin = type->amplification ? type->amplification : type->linear;
	const struct scheme_newton *nl = lin ? NULL : type->newton;
	void *st = NULL;
	struct nl_options opt = { 1e-14, 50, 0, 0, scheme->name, 0, 0, 0 };
	struct rt_system sys = { 1, &pb.Mm, NULL, &pb.Km, LA_LAPACK_DENSE, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL,
	                         NULL, NULL, NULL, NULL, 0, NULL };
	sys.model = &model;
	sys.load = zero_load;
	if (lin) {
		st = lin->alloc(&sys, par, err);
		if (st && lin->set_step(st, 1, err)) {
			/* the critical step does not apply here: report it as ρ = ∞ */
			lin->free(st);
			problem_free(&pb);
			free(par);
			*rho = INFINITY;
			return 0;
		}
	} else if (nl) {
		st = nl->alloc(&pb, par, &opt, err);
	}
	free(par);
	if (!st) {
		if (!err->msg[0])
			snprintf(err->msg, sizeof err->msg, "scheme %s cannot be analysed", scheme->name);
		problem_free(&pb);
		return -1;
	}
	for (int c = 0; c < 3 && rc == 0; c++) {
		double u = c == 0, v = c == 1, a = c == 2, z = 0, zd = 0, dW, dD, dterm[2] = { 0, 0 };
		double lam = 0;
		struct rt_state x = { &u, &v, &a, &z, &zd, &lam };
		if (lin)
			rc = lin->step(st, 1, 1, &u, &v, &a, err);
		else
			rc = nl->step(st, 0, 1, 1, &x, &dW, &dD, dterm, err);
		A[0 + 3 * c] = u;
		A[1 + 3 * c] = v;
		A[2 + 3 * c] = a;
	}
	if (lin)
		lin->free(st);
	else
		nl->free(st);
	problem_free(&pb);
	if (rc)
		return -1;
	/* an explicit scheme's entries grow as (omega tau)^4 (a = -k u, then
	 * u += tau^2 a): past 1e77 they overflow, and the eigensolver's ρ of
	 * a matrix of infinities was 0 */
	for (int e = 0; e < 9; e++)
		if (!isfinite(A[e])) {
			snprintf(err->msg, sizeof err->msg, "the amplification matrix of %s at omega*tau = %g overflows "
			         "(an entry is %g): rho is beyond what a double holds", scheme->name, omega_tau, A[e]);
			return -1;
		}
	double wr[3], wi[3], vl, vr;
	if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', 3, A, 3, wr, wi, &vl, 1, &vr, 1) != 0) {
		snprintf(err->msg, sizeof err->msg, "the eigenvalues of the amplification matrix failed");
		return -1;
	}
	*rho = 0;
	for (int i = 0; i < 3; i++) {
		double h = hypot(wr[i], wi[i]);
		if (!(h <= *rho))
			*rho = h;   /* a NaN is kept: fmax would drop it */
	}
	return 0;
}

/* Where a scheme's amplification of the undamped oscillator first
 * exceeds 1 (rt_stability_limit).  A scheme of the trapezoidal rule's
 * kind keeps ρ = 1 to 2.2e-16 from ωτ = 1e-3 to 1e6 (rt_spectral_radius,
 * measured), a dissipative one below 1.  One with negative numerical
 * damping amplifies every mode, the low ones least: ρ − 1 ∝ (ωτ)² for
 * generalized_alpha(alpha_m = 0.5, beta = 0.01) (alpha_m > alpha_f:
 * 4.8e-5 at ωτ = 0.01) and moreau_jean(theta = 0.3) (2e-5), ∝ (ωτ)⁴ for
 * alpha_f = 0.7 > 1/2 (3.5e-10): ρ − 1 > 1e-13 at 0.01 tells them from
 * rounding by three orders.  Otherwise the grid ωτ = 10^(k/4) up to 1e6, then
 * bisection in log ωτ to 1e-12 of the bound, finds where ρ first exceeds
 * 1 + 1e-9. */
int rt_stability_limit(const struct ir_scheme *scheme, double *omega_tau, double *rho)
{
	struct rt_error err;
	double lo = 0.01, r = 0;
	*omega_tau = INFINITY;
	*rho = 0;
	if (rt_spectral_radius(scheme, lo, &r, &err))
		return -1;
	if (!(r <= 1 + 1e-13)) {
		*rho = r;
		*omega_tau = 0;
		return 0;
	}
	for (int k = -7; k <= 24; k++) {
		double w = pow(10, k / 4.0);
		if (rt_spectral_radius(scheme, w, &r, &err))
			return -1;
		if (!(r <= 1 + 1e-9)) {
			*rho = r;
			double hi = w;
			for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; it++) {
				double mid = sqrt(lo * hi), rm;
				if (rt_spectral_radius(scheme, mid, &rm, &err))
					return -1;
				if (!(rm <= 1 + 1e-9))
					hi = mid;
				else
					lo = mid;
			}
			*omega_tau = hi;
			return 0;
		}
		lo = w;
	}
	return 0;
}
