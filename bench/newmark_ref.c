/* newmark_ref.c — the reference program of `make bench`: the linear chain
 * of bench/chain_matrix.dyn and bench/chain_sum.dyn integrated by hand in
 * C with LAPACK, so that dyn's time and memory on the same problem have a
 * floor to be measured against (issue 9, "What must be shown").
 *
 *   newmark_ref N STEPS FILE [EVERY]
 *
 * The chain: N unit masses (M = I), springs k = 1e4 and dashpots c = 1
 * between neighbours and from the first mass to the ground, the last mass
 * free, so that K and C are the tridiagonal band(k), band(c) of the dyn
 * scripts (2a on the diagonal, a on the last one, −a beside it); a force
 * sin(10 t) on the last mass; at rest at t = 0.  Newmark's average
 * acceleration (β = 1/4, γ = 1/2), τ = 1e-3, to T1 = STEPS·1e-3 on dyn's
 * grid (dyn(5), "The time grid": t_k = k τ computed from k, t_N = T1).
 *
 * The arithmetic is that of dyn's linear path (runtime/scheme_newmark.c,
 * nm_step, with α_m = α_f = 0), operation for operation:
 *
 *   ũ = uᵏ⁻¹ + τvᵏ⁻¹ + τ²(½−β)aᵏ⁻¹,   ṽ = vᵏ⁻¹ + τ(1−γ)aᵏ⁻¹,
 *   (M + γτC + βτ²K) aᵏ = f(t_k) − K ũ − C ṽ,
 *   uᵏ = ũ + βτ² aᵏ,   vᵏ = ṽ + γτ aᵏ,
 *
 * the products K ũ and C ṽ summed column by column as la_gemv_band does,
 * the step matrix formed as step_factor forms it, factored once, and
 * solved by LAPACK's tridiagonal LDLᵀ (dpttrf/dpttrs) in the natural
 * order, as dyn's banded backend solves a chain (runtime/la_band.c): the
 * recorded column has the same bytes as dyn's (run.sh compares them).
 * dyn also keeps the energy ledger at every step; this program does not:
 * the ledger is part of the cost that dyn must hide.
 *
 * One column, x[N], is written to FILE at every EVERY-th step (100 by
 * default) and at the last, as dyn's `record x[n] to FILE every 100`
 * writes it: the same header, and numbers by the project's fmt_g with 15
 * digits at least, as runtime/run.c's put_num. */
#include <config.h>

#include "fmt.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_num(FILE *f, double x)
{
	char buf[FMT_BUFSZ];
	if (x == 0) {
		fputs("0", f);
		return;
	}
	fwrite(buf, 1, (size_t)fmt_g(buf, x, 15), f);
}

/* y = A x for a symmetric tridiagonal A (diagonal d, off-diagonal e), the
 * terms of y_i added in the order of la_gemv_band's column sweep:
 * A_{i,i−1} x_{i−1}, then A_{i,i} x_i, then A_{i,i+1} x_{i+1}. */
static void trimv(int n, const double *d, const double *e, const double *x, double *y)
{
	if (n == 1) {
		y[0] = d[0] * x[0];
		return;
	}
	y[0] = d[0] * x[0] + e[0] * x[1];
	for (int i = 1; i < n - 1; i++)
		y[i] = e[i - 1] * x[i - 1] + d[i] * x[i] + e[i] * x[i + 1];
	y[n - 1] = e[n - 2] * x[n - 2] + d[n - 1] * x[n - 1];
}

static int factor(int n, const double *kd, const double *ke, const double *cd, const double *ce, double cC, double cK,
                  double *sd, double *se)
{
	/* step_factor: cM M + cC C + cK K, entry by entry, cM = 1 and M = I */
	for (int i = 0; i < n; i++)
		sd[i] = 1.0 * 1.0 + cC * cd[i] + cK * kd[i];
	for (int i = 0; i < n - 1; i++)
		se[i] = 1.0 * 0.0 + cC * ce[i] + cK * ke[i];
	return LAPACKE_dpttrf_work(n, sd, se);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: newmark_ref N STEPS FILE [EVERY]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	double steps = atof(argv[2]);
	int every = argc == 5 ? atoi(argv[4]) : 100;
	if (n < 1 || !(steps >= 1) || steps > 2e9 || every < 1) {
		fprintf(stderr, "newmark_ref: N, STEPS and EVERY must be positive\n");
		return 2;
	}
	const double k = 1e4, c = 1, beta = 1.0 / 4, gamma = 1.0 / 2;
	/* dyn's grid (lang/lower.c): N steps of τ, the last shortened when
	 * T1 is not a multiple of τ, t_k = t0 + kτ and t_N = T1 */
	const double t0 = 0, dt = 1e-3, t1 = steps * 1e-3;
	double ns = ceil((t1 - t0) / dt - 1e-9);
	int N = ns < 1 ? 1 : (int)ns;
	double last_dt = dt;
	if ((t1 - t0) / dt < N - (1e-9 + 8 * 2.2e-16 * N))
		last_dt = t1 - (t0 + (N - 1) * dt);

	/* zeroed: the state starts at rest, and the rest is written before
	 * it is read */
	size_t nz = (size_t)n;
	double *kd = calloc(nz, sizeof(double)), *ke = calloc(nz, sizeof(double)), *cd = calloc(nz, sizeof(double)), *ce = calloc(nz, sizeof(double));
	double *sd = calloc(nz, sizeof(double)), *se = calloc(nz, sizeof(double)), *u = calloc(nz, sizeof(double)), *v = calloc(nz, sizeof(double));
	double *a = calloc(nz, sizeof(double)), *ut = calloc(nz, sizeof(double)), *vt = calloc(nz, sizeof(double)), *rhs = calloc(nz, sizeof(double));
	double *tmp = calloc(nz, sizeof(double));
	if (!kd || !ke || !cd || !ce || !sd || !se || !u || !v || !a || !ut || !vt || !rhs || !tmp) {
		fprintf(stderr, "newmark_ref: out of memory for %d dofs\n", n);
		return 3;
	}
	for (int i = 0; i < n; i++) {
		kd[i] = i == n - 1 ? k : 2 * k;
		cd[i] = i == n - 1 ? c : 2 * c;
		ke[i] = -k;
		ce[i] = -c;
	}

	FILE *f = fopen(argv[3], "w");
	static char fbuf[1 << 16];
	if (!f) {
		perror(argv[3]);
		return 3;
	}
	setvbuf(f, fbuf, _IOFBF, sizeof fbuf);
	fprintf(f, "x[%d]\n", n);

	/* the initial acceleration from M a⁰ = f(t0) − C v⁰ − K u⁰, M = I */
	trimv(n, kd, ke, u, tmp);
	for (int i = 0; i < n; i++)
		a[i] = (i == n - 1 ? sin(10 * t0) : 0) - tmp[i];
	trimv(n, cd, ce, v, tmp);
	for (int i = 0; i < n; i++)
		a[i] -= tmp[i];
	put_num(f, u[n - 1]);
	fputc('\n', f);

	double tau_f = 0;
	for (int kk = 1; kk <= N; kk++) {
		double t = kk == N ? t1 : t0 + kk * dt;
		double tau = kk == N ? last_dt : dt;
		if (tau != tau_f) {
			int info = factor(n, kd, ke, cd, ce, gamma * tau, beta * tau * tau, sd, se);
			if (info) {
				fprintf(stderr, "newmark_ref: dpttrf: info %d\n", info);
				return 3;
			}
			tau_f = tau;
		}
		/* ũ, ṽ and rhs = f − K ũ − C ṽ in one sweep over memory, ũ and ṽ
		 * one row ahead; each row's terms are added in the order of dyn's
		 * f, −= K ũ, −= C ṽ (the same bits as separate passes) */
		const double cu = tau * tau * (0.5 - beta), cv = tau * (1 - gamma);
		double ft = sin(10 * t);
		ut[0] = u[0] + tau * v[0] + cu * a[0];
		vt[0] = v[0] + cv * a[0];
		for (int i = 0; i < n; i++) {
			if (i < n - 1) {
				ut[i + 1] = u[i + 1] + tau * v[i + 1] + cu * a[i + 1];
				vt[i + 1] = v[i + 1] + cv * a[i + 1];
			}
			double ku = kd[i] * ut[i], cvt = cd[i] * vt[i];
			if (i > 0) {
				ku = ke[i - 1] * ut[i - 1] + ku;
				cvt = ce[i - 1] * vt[i - 1] + cvt;
			}
			if (i < n - 1) {
				ku += ke[i] * ut[i + 1];
				cvt += ce[i] * vt[i + 1];
			}
			rhs[i] = ((i == n - 1 ? ft : 0) - ku) - cvt;
		}
		int info = LAPACKE_dpttrs_work(LAPACK_COL_MAJOR, n, 1, sd, se, rhs, n);
		if (info) {
			fprintf(stderr, "newmark_ref: dpttrs: info %d\n", info);
			return 4;
		}
		for (int i = 0; i < n; i++) {
			a[i] = rhs[i];
			u[i] = ut[i] + beta * tau * tau * a[i];
			v[i] = vt[i] + gamma * tau * a[i];
		}
		if (kk % every == 0 || kk == N) {
			put_num(f, u[n - 1]);
			fputc('\n', f);
		}
	}
	if (fclose(f) != 0) {
		perror(argv[3]);
		return 3;
	}
	free(kd);
	free(ke);
	free(cd);
	free(ce);
	free(sd);
	free(se);
	free(u);
	free(v);
	free(a);
	free(ut);
	free(vt);
	free(rhs);
	free(tmp);
	return 0;
}
