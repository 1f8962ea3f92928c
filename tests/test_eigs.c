/* test_eigs.c — unit tests of runtime/la_eigs.c, the lowest modes of a
 * large generalized eigenproblem by ARPACK (shift-invert, factor from the
 * matrix layer).
 *
 * 1. A fixed–free chain of n = 10⁵ unit masses and springs k = 10⁴
 *    (K = k tridiag(−1, 2, −1) with K_nn = k): ω_j = 2√(k/m)
 *    sin((2j−1)π/(2(2n+1))).  Its lowest five to 1e-8 relative.  The
 *    chain's condition number is 1.6·10¹⁰, but a tridiagonal matrix's
 *    eigenvalues are determined to high relative accuracy by its
 *    Cholesky factor (Demmel and Kahan 1990, "Accurate singular values of
 *    bidiagonal matrices"); measured: 1e-12 or better.
 * 2. A 200-dof model with unequal masses and a coupling spring across the
 *    chain (not tridiagonal): ARPACK's lowest six against LAPACK's dsygvd
 *    on the same matrices, eigenvalues to 1e-10 relative, shapes to 1e-8
 *    (their sign fixed; both M-normalised).
 * 3. With a constraint x_1 = x_200 (the saddle-point operator): against
 *    dsygvd on the same problem written with x_200 eliminated.
 * 4. runtime/la_eigmax.c, the largest eigenvalue by Lanczos: the 200-dof
 *    model against dsygvd to 1e-12 relative (its residual bound, 1e-12 of
 *    λ, bounds the error by (1e-12 λ)²/gap, far below); the same with K
 *    shifted by −2λ_max M, indefinite, whose most negative eigenvalue is
 *    three times its largest in magnitude (a power iteration tends to
 *    it): still the largest; the fixed–free chain of 10⁴ unit masses and
 *    unit springs, λ_max = 4 cos²(π/(2n+1)), whose top eigenvalues lie
 *    1e-7 apart relatively, within 1e-7 after 1000 steps (500 power
 *    iterations stopped 1.5e-3 below) and never above it; an M with
 *    xᵀMx = 0 refused (-2).
 * 5. runtime/la.c's la_sygv_low, the dense pencil's eigenpairs with the
 *    low ones from the inverted pencil: chains of n = 400 masses m = 2
 *    and springs k = 10⁴, fixed–free (K definite: σ = 0, λ_j = 2(k/m)
 *    sin²((2j+1)π/(2(2n+1))), j = 0 .. n − 1) and free–free (K
 *    singular: the shifted inversion, σ = 1e-8 of 2k/m, λ_j = 2(k/m)
 *    sin²(jπ/(2n)), a rigid mode first).  Their spectra span 3e5 and
 *    more, so the upper half comes from dsygvd on K φ = λ M φ.  Fixed–
 *    free, every eigenvalue to 1e-12 of itself (measured 5.8e-13;
 *    dsygvd alone 9.9e-12, a few ε of λ_max on λ_1).  Free–free, to
 *    1e-11: the shift bounds the inversion's rounding by ε(λ + σ)²/σ,
 *    a few times 7e-13 of λ_1 here (measured 2.2e-12; dsygvd alone, on this
 *    tridiagonal pencil, 6.2e-13), and the rigid mode within 1e-12 of
 *    λ_max of 0.  The shapes M-orthonormal to 1e-12 and K φ = λ M φ
 *    to 1e-10 of λ_max, across the join.
 *
 * The last line on stdout is a summary; exit status 0 when every check
 * passed. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la.h"

static int nchecks, nfailed;

static void check_rel(double got, double want, double tol, int line, const char *what)
{
	nchecks++;
	if (!(fabs(got - want) <= tol * fabs(want))) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: %s = %.17g, want %.17g (relative tolerance %g, off by %.3g)\n", line,
		        what, got, want, tol, fabs(got - want) / fabs(want));
	}
}

struct op {
	const struct la_mat *M;
	struct la_solver *f;
	int n, nt;
	double *b;
};

static void mmul(void *ctx, const double *x, double *y)
{
	struct op *o = ctx;
	la_mat_mul(o->M, x, y);
}

static int solve(void *ctx, double *b)
{
	struct op *o = ctx;
	memcpy(o->b, b, sizeof(double) * (size_t)o->n);
	for (int k = o->n; k < o->nt; k++)
		o->b[k] = 0;
	la_solver_solve(o->f, o->b);
	memcpy(b, o->b, sizeof(double) * (size_t)o->n);
	return 0;
}

/* K = k tridiag(−1, 2, −1) with K_nn = k, the fixed–free chain, as
 * triplets (3n of room); their count */
static size_t chain_triplets(int n, double k, int *r, int *c, double *v)
{
	size_t e = 0;
	for (int i = 0; i < n; i++) {
		r[e] = c[e] = i;
		v[e++] = i == n - 1 ? k : 2 * k;
		if (i + 1 < n) {
			r[e] = i + 1, c[e] = i, v[e++] = -k;
			r[e] = i, c[e] = i + 1, v[e++] = -k;
		}
	}
	return e;
}

static void test_chain(void)
{
	int n = 100000, nev = 5;
	double k = 1e4, m = 1;
	size_t nnz = 3 * (size_t)n;
	int *r = malloc(sizeof(int) * nnz), *c = malloc(sizeof(int) * nnz);
	double *v = malloc(sizeof(double) * nnz);
	size_t e = chain_triplets(n, k, r, c, v);
	struct la_mat K, M;
	la_mat_triplets(&K, LA_MAT_AUTO, n, e, r, c, v);
	for (int i = 0; i < n; i++)
		r[i] = c[i] = i, v[i] = m;
	la_mat_triplets(&M, LA_MAT_AUTO, n, (size_t)n, r, c, v);
	struct op o = { &M, la_solver_alloc(&K, LA_AUTO, LA_SPD), n, n, malloc(sizeof(double) * (size_t)n) };
	int info = la_solver_factor(o.f, &K);
	double lam[5];
	struct la_eigs_ops ops = { &o, mmul, solve };
	int rc = info == 0 ? la_eigs(n, nev, 0, &ops, lam, NULL) : -9;
	nchecks++;
	if (rc != 0) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: la_eigs on the chain: %d (factor %d)\n", __LINE__, rc, info);
	} else {
		for (int j = 1; j <= nev; j++) {
			double w = 2 * sqrt(k / m) * sin((2 * j - 1) * M_PI / (2 * (2.0 * n + 1)));
			check_rel(sqrt(lam[j - 1]), w, 1e-8, __LINE__, "chain omega_j");
		}
		printf("chain n = %d: omega_1 = %.15g (closed form %.15g)\n", n, sqrt(lam[0]),
		       2 * sqrt(k / m) * sin(M_PI / (2 * (2.0 * n + 1))));
	}
	la_solver_free(o.f);
	free(o.b);
	la_mat_free(&K);
	la_mat_free(&M);
	free(r);
	free(c);
	free(v);
}

/* The 200-dof model, dense column-major: masses 1 + (i mod 7)/10, springs
 * 100 (1 + (i mod 5)/4) between neighbours and to the ground at both
 * ends, a spring 37 between dofs 20 and 150. */
static void model200(int n, double *K, double *M)
{
	memset(K, 0, sizeof(double) * (size_t)n * (size_t)n);
	memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
	for (int i = 0; i < n; i++)
		M[i + (size_t)i * n] = 1 + (i % 7) / 10.0;
	for (int i = -1; i < n; i++) {
		double s = 100 * (1 + ((i + 5) % 5) / 4.0);
		int a = i, b = i + 1;
		if (a >= 0)
			K[a + (size_t)a * n] += s;
		if (b < n)
			K[b + (size_t)b * n] += s;
		if (a >= 0 && b < n) {
			K[a + (size_t)b * n] -= s;
			K[b + (size_t)a * n] -= s;
		}
	}
	int a = 20, b = 150;
	K[a + (size_t)a * n] += 37;
	K[b + (size_t)b * n] += 37;
	K[a + (size_t)b * n] -= 37;
	K[b + (size_t)a * n] -= 37;
}

static void test_200(int constrained)
{
	int n = 200, nev = 6, nc = constrained ? 1 : 0, nt = n + nc;
	double *K = malloc(sizeof(double) * (size_t)n * n), *M = malloc(sizeof(double) * (size_t)n * n);
	model200(n, K, M);
	/* the operator: [K Gᵀ; G 0] with G = e_1 − e_200 */
	double *S = calloc((size_t)nt * nt, sizeof(double));
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			S[i + (size_t)j * nt] = K[i + (size_t)j * n];
	if (nc) {
		S[0 + (size_t)n * nt] = S[n + 0 * (size_t)nt] = 1;
		S[(n - 1) + (size_t)n * nt] = S[n + (size_t)(n - 1) * nt] = -1;
	}
	struct la_mat Sm, Mm;
	la_mat_from_dense(&Sm, LA_MAT_CSC, nt, S);
	la_mat_from_dense(&Mm, LA_MAT_CSC, n, M);
	struct op o = { &Mm, la_solver_alloc(&Sm, LA_UMFPACK, 0), n, nt, malloc(sizeof(double) * (size_t)nt) };
	int info = la_solver_factor(o.f, &Sm);
	double lam[6], *phi = malloc(sizeof(double) * (size_t)n * nev);
	struct la_eigs_ops ops = { &o, mmul, solve };
	int rc = info == 0 ? la_eigs(n, nev, 0, &ops, lam, phi) : -9;
	/* the dense reference: with the constraint, x_200 = x_1 eliminated
	 * (Z = [I; e_1ᵀ], Zᵀ K Z and Zᵀ M Z of order n − 1) */
	int r = n - nc;
	double *Kr = malloc(sizeof(double) * (size_t)r * r), *Mr = malloc(sizeof(double) * (size_t)r * r);
	double *w = malloc(sizeof(double) * (size_t)r), *psi = malloc(sizeof(double) * (size_t)r * r);
	for (int j = 0; j < r; j++)
		for (int i = 0; i < r; i++) {
			Kr[i + (size_t)j * r] = K[i + (size_t)j * n];
			Mr[i + (size_t)j * r] = M[i + (size_t)j * n];
		}
	if (nc) {
		/* x = Z y: x_i = y_i (i < n−1), x_{n−1} = y_0 */
		int z = n - 1;
		for (int i = 0; i < r; i++) {
			Kr[i + 0 * (size_t)r] += K[i + (size_t)z * n];
			Kr[0 + (size_t)i * r] += K[z + (size_t)i * n];
			Mr[i + 0 * (size_t)r] += M[i + (size_t)z * n];
			Mr[0 + (size_t)i * r] += M[z + (size_t)i * n];
		}
		Kr[0] += K[z + (size_t)z * n];
		Mr[0] += M[z + (size_t)z * n];
	}
	int dinfo = la_sygv(r, Kr, Mr, w, psi);
	nchecks++;
	if (rc != 0 || dinfo != 0) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: la_eigs %d, la_sygv %d\n", __LINE__, rc, dinfo);
	} else {
		double worst = 0, worstv = 0;
		for (int j = 0; j < nev; j++) {
			check_rel(lam[j], w[j], 1e-10, __LINE__, constrained ? "constrained lambda_j" : "lambda_j");
			if (fabs(lam[j] - w[j]) / w[j] > worst)
				worst = fabs(lam[j] - w[j]) / w[j];
			/* the shapes, in the dofs, signs matched at their largest entry */
			double big = 0, s = 1;
			for (int i = 0; i < n; i++) {
				double ref = psi[(i < r ? i : 0) + (size_t)j * r];
				if (fabs(ref) > big) {
					big = fabs(ref);
					s = (ref > 0) == (phi[i + (size_t)j * n] > 0) ? 1 : -1;
				}
			}
			for (int i = 0; i < n; i++) {
				double ref = psi[(i < r ? i : 0) + (size_t)j * r];
				double d = fabs(s * phi[i + (size_t)j * n] - ref) / big;
				if (d > worstv)
					worstv = d;
			}
		}
		nchecks++;
		if (!(worstv <= 1e-8)) {
			nfailed++;
			fprintf(stderr, "test_eigs.c:%d: shapes differ by %.3g of their largest entry\n", __LINE__, worstv);
		}
		printf("200 dofs%s: ARPACK vs dsygvd, lowest %d: eigenvalues %.2g relative, shapes %.2g\n",
		       constrained ? ", one constraint" : "", nev, worst, worstv);
	}
	la_solver_free(o.f);
	la_mat_free(&Sm);
	la_mat_free(&Mm);
	free(o.b);
	free(K); free(M); free(S); free(phi); free(Kr); free(Mr); free(w); free(psi);
}

/* la_eig_max's products on a K and a diagonal or general M (factored) */
struct pencil {
	const struct la_mat *K, *M;
	struct la_solver *f;
};

static void pencil_kmul(void *ctx, const double *x, double *y)
{
	struct pencil *p = ctx;
	la_mat_mul(p->K, x, y);
}

static double pencil_mdot(void *ctx, const double *x)
{
	struct pencil *p = ctx;
	return la_mat_dot(p->M, x, x);
}

static int pencil_msolve(void *ctx, double *b)
{
	struct pencil *p = ctx;
	la_solver_solve(p->f, b);
	return 0;
}

static void test_eig_max(void)
{
	/* the 200-dof model against dsygvd, then shifted by −2λ_max M */
	int n = 200;
	double *K = malloc(sizeof(double) * (size_t)n * n), *M = malloc(sizeof(double) * (size_t)n * n);
	double *Kd = malloc(sizeof(double) * (size_t)n * n), *Md = malloc(sizeof(double) * (size_t)n * n);
	double *w = malloc(sizeof(double) * (size_t)n);
	model200(n, K, M);
	memcpy(Kd, K, sizeof(double) * (size_t)n * n);
	memcpy(Md, M, sizeof(double) * (size_t)n * n);
	int info = la_sygv(n, Kd, Md, w, NULL);
	double top = w[n - 1], bottom = w[0];
	for (int shifted = 0; shifted <= 1 && info == 0; shifted++) {
		double sigma = shifted ? -2 * top : 0;
		for (size_t i = 0; i < (size_t)n * n; i++)
			Kd[i] = K[i] + sigma * M[i];
		struct la_mat Km, Mm;
		la_mat_from_dense(&Km, LA_MAT_CSC, n, Kd);
		la_mat_from_dense(&Mm, LA_MAT_CSC, n, M);
		struct pencil p = { &Km, &Mm, la_solver_alloc(&Mm, LA_AUTO, LA_SPD) };
		struct la_eigmax_ops ops = { &p, pencil_kmul, pencil_mdot, pencil_msolve, NULL, 0, 0 };
		double l = 0;
		int steps = 0;
		int rc = la_solver_factor(p.f, &Mm) == 0 ? la_eig_max(n, &ops, 1000, 1e-12, &l, &steps) : -9;
		nchecks++;
		if (rc != 0) {
			nfailed++;
			fprintf(stderr, "test_eigs.c:%d: la_eig_max: %d\n", __LINE__, rc);
		} else {
			check_rel(l, top + sigma, 1e-12, __LINE__, shifted ? "lambda_max, K - 2 lambda_max M" : "lambda_max");
			printf("200 dofs%s: Lanczos lambda_max %.15g in %d steps, dsygvd %.15g (lambda_min %.6g)\n",
			       shifted ? ", shifted" : "", l, steps, top + sigma, bottom + sigma);
		}
		la_solver_free(p.f);
		la_mat_free(&Km);
		la_mat_free(&Mm);
	}
	free(K); free(M); free(Kd); free(Md); free(w);

	/* the chain of 10⁴ unit masses and springs, fixed–free */
	n = 10000;
	size_t nnz = 3 * (size_t)n;
	int *r = malloc(sizeof(int) * nnz), *c = malloc(sizeof(int) * nnz);
	double *v = malloc(sizeof(double) * nnz);
	size_t e = chain_triplets(n, 1, r, c, v);
	struct la_mat Kc, Mc, Z;
	la_mat_triplets(&Kc, LA_MAT_AUTO, n, e, r, c, v);
	for (int i = 0; i < n; i++)
		r[i] = c[i] = i, v[i] = 1;
	la_mat_triplets(&Mc, LA_MAT_AUTO, n, (size_t)n, r, c, v);
	struct pencil p = { &Kc, &Mc, la_solver_alloc(&Mc, LA_AUTO, LA_SPD) };
	struct la_eigmax_ops ops = { &p, pencil_kmul, pencil_mdot, pencil_msolve, NULL, 0, 0 };
	double l = 0, want = 4 * pow(cos(M_PI / (2 * n + 1)), 2);
	int steps = 0;
	int rc = la_solver_factor(p.f, &Mc) == 0 ? la_eig_max(n, &ops, 1000, 1e-12, &l, &steps) : -9;
	nchecks++;
	if (rc != 0 || !(l <= want * (1 + 1e-15))) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: la_eig_max on the chain: %d, %.17g above %.17g\n", __LINE__, rc, l, want);
	}
	check_rel(l, want, 1e-7, __LINE__, "chain lambda_max");
	printf("chain n = %d: Lanczos lambda_max %.15g in %d steps (closed form %.15g)\n", n, l, steps, want);
	la_solver_free(p.f);
	/* xᵀMx = 0: M = 0 */
	for (int i = 0; i < n; i++)
		v[i] = 0;
	la_mat_triplets(&Z, LA_MAT_AUTO, n, (size_t)n, r, c, v);
	p.M = &Z;
	p.f = NULL;
	nchecks++;
	if ((rc = la_eig_max(n, &ops, 10, 1e-12, &l, NULL)) != -2) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: la_eig_max with M = 0: %d, not -2\n", __LINE__, rc);
	}
	la_mat_free(&Kc);
	la_mat_free(&Mc);
	la_mat_free(&Z);
	free(r);
	free(c);
	free(v);
}

static void test_sygv_low(int fixed)
{
	enum { N = 400 };
	const double k = 1e4, m = 2, tol = fixed ? 1e-12 : 1e-11;
	double *K = calloc((size_t)N * N, sizeof(double)), *M = calloc((size_t)N * N, sizeof(double));
	double *w = malloc(sizeof(double) * N), *phi = malloc(sizeof(double) * N * N);
	double *y = malloc(sizeof(double) * N);
	if (!K || !M || !w || !phi || !y) {
		fprintf(stderr, "test_eigs.c: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < N; i++) {
		M[i + (size_t)i * N] = m;
		/* springs between neighbours, and to the ground at mass 0 when
		 * fixed */
		K[i + (size_t)i * N] = (i > 0 ? k : fixed ? k : 0) + (i < N - 1 ? k : 0);
		if (i > 0)
			K[i + (size_t)(i - 1) * N] = K[i - 1 + (size_t)i * N] = -k;
	}
	int rc = la_sygv_low(N, N, K, M, w, phi);
	nchecks++;
	if (rc != 0) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: la_sygv_low: %d\n", __LINE__, rc);
		goto out;
	}
	double lmax = 0, worst = 0, worst_direct = 0;
	double *wd = malloc(sizeof(double) * N);
	if (wd && la_sygv(N, K, M, wd, NULL) != 0) {
		free(wd);
		wd = NULL;
	}
	for (int j = 0; j < N; j++) {
		double s = fixed ? sin((2 * j + 1) * M_PI / (2.0 * (2 * N + 1))) : sin(j * M_PI / (2.0 * N));
		double want = 4 * (k / m) * s * s;
		lmax = fmax(lmax, want);
		if (want == 0) {
			nchecks++;
			if (!(fabs(w[j]) <= 1e-12 * 4 * (k / m))) {
				nfailed++;
				fprintf(stderr, "test_eigs.c:%d: the rigid mode's eigenvalue %g\n", __LINE__, w[j]);
			}
		} else {
			check_rel(w[j], want, tol, __LINE__, fixed ? "fixed-free chain, lambda_j" : "free chain, lambda_j");
			worst = fmax(worst, fabs(w[j] - want) / want);
			if (wd)
				worst_direct = fmax(worst_direct, fabs(wd[j] - want) / want);
		}
	}
	printf("%s chain of %d: eigenvalues to %.2g of themselves (dsygvd alone: %.2g)\n", fixed ? "fixed-free" : "free",
	       N, worst, worst_direct);
	free(wd);
	/* the shapes: phi_i' M phi_j = delta_ij, K phi_j = lambda_j M phi_j */
	double orth = 0, res = 0;
	for (int j = 0; j < N; j++) {
		const double *pj = phi + (size_t)j * N;
		for (int i = j; i < N; i += (i < j + 3 || i > N - 4) ? 1 : 37) {
			const double *pi = phi + (size_t)i * N;
			double d = 0;
			for (int l = 0; l < N; l++)
				d += pi[l] * m * pj[l];
			orth = fmax(orth, fabs(d - (i == j)));
		}
		la_gemv(N, K, pj, y);
		for (int l = 0; l < N; l++)
			res = fmax(res, fabs(y[l] - w[j] * m * pj[l]) / (lmax * m));
	}
	nchecks += 2;
	if (!(orth <= 1e-12)) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: shapes not M-orthonormal: %g\n", __LINE__, orth);
	}
	if (!(res <= 1e-10)) {
		nfailed++;
		fprintf(stderr, "test_eigs.c:%d: K phi - lambda M phi: %g of lambda_max\n", __LINE__, res);
	}
out:
	free(K);
	free(M);
	free(w);
	free(phi);
	free(y);
}

/* No stiffness at all (a free body stated by its mass alone): every
 * eigenvalue is exactly 0, though the inverted pencil's shift σ (1e-8,
 * there being no K_ii/M_ii to scale it) leaves 1/μ − σ at its rounding;
 * it read ω² = −1.7e-24 (an "unstable" mode) for M = diag(1, 2, 3), and
 * 3.3e-24 for M = [2, 1; 1, 2]. */
static void test_sygv_low_no_stiffness(void)
{
	double K3[9] = { 0 }, M3[9] = { 1, 0, 0, 0, 2, 0, 0, 0, 3 }, w[3], phi[9];
	double K2[4] = { 0 }, M2[4] = { 2, 1, 1, 2 };
	for (int c = 0; c < 2; c++) {
		int n = c ? 2 : 3;
		int rc = la_sygv_low(n, n, c ? K2 : K3, c ? M2 : M3, w, phi);
		nchecks++;
		if (rc != 0) {
			nfailed++;
			fprintf(stderr, "test_eigs.c:%d: la_sygv_low: %d\n", __LINE__, rc);
			continue;
		}
		for (int j = 0; j < n; j++) {
			nchecks++;
			if (w[j] != 0) {
				nfailed++;
				fprintf(stderr, "test_eigs.c:%d: K = 0, n = %d: lambda_%d = %g, not 0\n", __LINE__, n, j, w[j]);
			}
		}
	}
}

int main(void)
{
	test_chain();
	test_200(0);
	test_200(1);
	test_eig_max();
	test_sygv_low(0);
	test_sygv_low(1);
	test_sygv_low_no_stiffness();
	printf("test_eigs: %d checks, %d passed, %d failed\n", nchecks, nchecks - nfailed, nfailed);
	return nfailed ? 1 : 0;
}
