/* test_la.c — unit tests of runtime/la.c, the LAPACK wrappers.
 *
 * Every check states its tolerance.  A failed check prints file:line and
 * the values to stderr; the last line on stdout is a summary.  Exit status
 * 0 when every check passed, 1 otherwise.
 *
 * The solves are checked against solutions known in advance (right-hand
 * sides computed by hand or from an exact x), the banded paths against the
 * dense ones, and the eigenproblems against closed-form eigenvalues.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la.h"

static int nchecks, nfailed;

static void check(int ok, const char *file, int line, const char *what)
{
	nchecks++;
	if (!ok) {
		nfailed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
}

/* |got - want| <= tol; written so that a NaN fails. */
static void check_near(double got, double want, double tol, const char *file,
                       int line, const char *what)
{
	nchecks++;
	if (!(fabs(got - want) <= tol)) {
		nfailed++;
		fprintf(stderr, "%s:%d: %s = %.17g, want %.17g (tolerance %g, "
		        "off by %g)\n", file, line, what, got, want, tol,
		        fabs(got - want));
	}
}

static void check_int(int got, int want, const char *file, int line,
                      const char *what)
{
	nchecks++;
	if (got != want) {
		nfailed++;
		fprintf(stderr, "%s:%d: %s = %d, want %d\n", file, line, what,
		        got, want);
	}
}

#define CHECK(c) check((c), __FILE__, __LINE__, #c)
#define CHECK_NEAR(got, want, tol) \
	check_near((got), (want), (tol), __FILE__, __LINE__, #got)
#define CHECK_INT(got, want) check_int((got), (want), __FILE__, __LINE__, #got)

/* Element (i, j) of a column-major n×n matrix. */
#define A(a, n, i, j) ((a)[(size_t)(i) + (size_t)(j) * (n)])

static double *zeros(int n)
{
	double *v = calloc((size_t)n, sizeof *v);

	if (!v) {
		fprintf(stderr, "test_la: out of memory\n");
		exit(1);
	}
	return v;
}

/* Column-major copy of a row-major literal, so that the test matrices can
 * be written as they are read. */
static void from_rows(int n, const double *rows, double *a)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			A(a, n, i, j) = rows[i * n + j];
}

static double norm_inf(int n, const double *v)
{
	double m = 0.0;
	int i;

	for (i = 0; i < n; i++)
		if (!(fabs(v[i]) <= m))
			m = fabs(v[i]);       /* NaN propagates */
	return m;
}

static double mat_norm_inf(int n, const double *a)
{
	double m = 0.0, s;
	int i, j;

	for (i = 0; i < n; i++) {
		s = 0.0;
		for (j = 0; j < n; j++)
			s += fabs(A(a, n, i, j));
		if (!(s <= m))
			m = s;
	}
	return m;
}

/* ||x - y||∞ / ||y||∞. */
static double rel_diff(int n, const double *x, const double *y)
{
	double *d = zeros(n), r;
	int i;

	for (i = 0; i < n; i++)
		d[i] = x[i] - y[i];
	r = norm_inf(n, d) / norm_inf(n, y);
	free(d);
	return r;
}

/* Normwise relative backward error ||A x - b||∞ / (||A||∞ ||x||∞ + ||b||∞). */
static double rel_residual(int n, const double *a, const double *x,
                           const double *b)
{
	double *r = zeros(n), e;
	int i;

	la_gemv(n, a, x, r);
	for (i = 0; i < n; i++)
		r[i] -= b[i];
	e = norm_inf(n, r) / (mat_norm_inf(n, a) * norm_inf(n, x)
	                      + norm_inf(n, b));
	free(r);
	return e;
}

static int all_nan(int n, const double *v)
{
	int i;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			return 0;
	return 1;
}

/* Factor a with the given kind and band, solve for b; x receives the
 * solution.  Returns la_factor's info. */
static int solve_with(int n, enum la_kind kind, int kl, int ku,
                      const double *a, const double *b, double *x)
{
	struct la_factor *f = la_factor_alloc(n, kind, kl, ku);
	int info;

	CHECK(f != NULL);
	if (!f)
		return -1;
	info = la_factor(f, a);
	memcpy(x, b, (size_t)n * sizeof *x);
	la_solve(f, x);
	la_factor_free(f);
	return info;
}

/* --- dense solves on a 4×4 system with a known solution --------------- */

static void test_dense_spd(void)
{
	/* Diagonally dominant, symmetric: SPD.  b = A (1, 2, 3, 4). */
	static const double rows[16] = {
		4, 1, 0, 0,
		1, 4, 1, 0,
		0, 1, 4, 1,
		0, 0, 1, 4,
	};
	static const double xt[4] = { 1, 2, 3, 4 };
	static const double b[4] = { 6, 12, 18, 19 };
	double a[16], save[16], x[4], y[4];
	int i;

	from_rows(4, rows, a);
	memcpy(save, a, sizeof a);
	/* The right-hand side was computed by hand: la_gemv must agree
	 * exactly (small integers). */
	la_gemv(4, a, xt, y);
	for (i = 0; i < 4; i++)
		CHECK_NEAR(y[i], b[i], 0.0);

	CHECK_INT(solve_with(4, LA_DENSE_SPD, 0, 0, a, b, x), 0);
	CHECK_NEAR(rel_diff(4, x, xt), 0.0, 1e-13);
	CHECK_NEAR(rel_residual(4, a, x, b), 0.0, 1e-13);
	CHECK(memcmp(a, save, sizeof a) == 0);          /* a not modified */
}

static void test_dense_general(void)
{
	/* Non-symmetric, zero (1,1) entry so that LU must pivot.
	 * b = A (1, -1, 2, 0.5). */
	static const double rows[16] = {
		0, 2, 1, 0,
		1, 1, 0, 3,
		2, 0, 1, 1,
		0, 1, 3, 2,
	};
	static const double xt[4] = { 1, -1, 2, 0.5 };
	static const double b[4] = { 0, 1.5, 4.5, 6 };
	double a[16], save[16], x[4], y[4];
	int i;

	from_rows(4, rows, a);
	memcpy(save, a, sizeof a);
	la_gemv(4, a, xt, y);
	for (i = 0; i < 4; i++)
		CHECK_NEAR(y[i], b[i], 0.0);

	CHECK_INT(solve_with(4, LA_DENSE_GENERAL, 0, 0, a, b, x), 0);
	CHECK_NEAR(rel_diff(4, x, xt), 0.0, 1e-13);
	CHECK_NEAR(rel_residual(4, a, x, b), 0.0, 1e-13);
	CHECK(memcmp(a, save, sizeof a) == 0);
}

/* --- banded solves against the dense path ----------------------------- */

#define NB 50

/* I + tridiag(-1, 2, -1) (+ shift on the diagonal): SPD, bandwidth 1. */
static void spd_tridiag(double *a, double shift)
{
	int i;

	memset(a, 0, (size_t)NB * NB * sizeof *a);
	for (i = 0; i < NB; i++) {
		A(a, NB, i, i) = 3.0 + shift;
		if (i + 1 < NB)
			A(a, NB, i + 1, i) = A(a, NB, i, i + 1) = -1.0;
	}
}

/* Non-symmetric with kl = 1, ku = 2.  Every seventh diagonal entry is
 * small, so partial pivoting swaps rows and dgbtrf uses its fill-in rows;
 * variant changes the numbers for the refactoring test. */
static void general_band(double *a, int variant)
{
	int i;

	memset(a, 0, (size_t)NB * NB * sizeof *a);
	for (i = 0; i < NB; i++) {
		A(a, NB, i, i) = i % 7 == 3 ? 0.01 : 4.0 + 0.1 * i + variant;
		if (i + 1 < NB)
			A(a, NB, i + 1, i) = -1.0 - 0.01 * i - 0.5 * variant;
		if (i + 1 < NB)
			A(a, NB, i, i + 1) = 1.5 + variant;
		if (i + 2 < NB)
			A(a, NB, i, i + 2) = 0.5 + 0.02 * i;
	}
}

static void known_x(double *x, double phase)
{
	int i;

	for (i = 0; i < NB; i++)
		x[i] = 1.0 + cos(0.3 * i + phase);
}

static void test_band_spd(void)
{
	double *a = zeros(NB * NB), *save = zeros(NB * NB);
	double xt[NB], b[NB], xd[NB], xb[NB];
	int kl, ku;

	spd_tridiag(a, 0.0);
	memcpy(save, a, (size_t)NB * NB * sizeof *a);
	la_bandwidth(NB, a, &kl, &ku);
	CHECK_INT(kl, 1);
	CHECK_INT(ku, 1);
	known_x(xt, 0.0);
	la_gemv(NB, a, xt, b);

	CHECK_INT(solve_with(NB, LA_DENSE_SPD, 0, 0, a, b, xd), 0);
	CHECK_INT(solve_with(NB, LA_BAND_SPD, kl, ku, a, b, xb), 0);
	CHECK_NEAR(rel_diff(NB, xb, xd), 0.0, 1e-12);
	CHECK_NEAR(rel_diff(NB, xb, xt), 0.0, 1e-12);
	CHECK_NEAR(rel_residual(NB, a, xb, b), 0.0, 1e-13);
	CHECK(memcmp(a, save, (size_t)NB * NB * sizeof *a) == 0);
	free(a);
	free(save);
}

static void test_band_general(void)
{
	double *a = zeros(NB * NB), *save = zeros(NB * NB);
	double xt[NB], b[NB], xd[NB], xb[NB];
	int kl, ku;

	general_band(a, 0);
	memcpy(save, a, (size_t)NB * NB * sizeof *a);
	la_bandwidth(NB, a, &kl, &ku);
	CHECK_INT(kl, 1);
	CHECK_INT(ku, 2);
	known_x(xt, 0.0);
	la_gemv(NB, a, xt, b);

	CHECK_INT(solve_with(NB, LA_DENSE_GENERAL, 0, 0, a, b, xd), 0);
	CHECK_INT(solve_with(NB, LA_BAND_GENERAL, kl, ku, a, b, xb), 0);
	CHECK_NEAR(rel_diff(NB, xb, xd), 0.0, 1e-12);
	CHECK_NEAR(rel_diff(NB, xb, xt), 0.0, 1e-12);
	CHECK_NEAR(rel_residual(NB, a, xb, b), 0.0, 1e-13);
	CHECK(memcmp(a, save, (size_t)NB * NB * sizeof *a) == 0);
	free(a);
	free(save);
}

/* A band SPD factor given kl != ku uses the wider band and still solves
 * correctly. */
static void test_band_spd_unequal(void)
{
	double *a = zeros(NB * NB);
	double xt[NB], b[NB], x[NB];

	spd_tridiag(a, 0.0);
	known_x(xt, 1.0);
	la_gemv(NB, a, xt, b);
	CHECK_INT(solve_with(NB, LA_BAND_SPD, 0, 1, a, b, x), 0);
	CHECK_NEAR(rel_diff(NB, x, xt), 0.0, 1e-12);
	CHECK_INT(solve_with(NB, LA_BAND_SPD, 1, 0, a, b, x), 0);
	CHECK_NEAR(rel_diff(NB, x, xt), 0.0, 1e-12);
	free(a);
}

/* --- failed factorizations -------------------------------------------- */

static void test_pivots(void)
{
	/* diag(1, 2, -1): not positive definite at pivot 3. */
	static const double d[9] = { 1, 0, 0, 0, 2, 0, 0, 0, -1 };
	/* Rows 1 and 2 are dependent: after the first elimination step both
	 * candidates for pivot 2 are zero. */
	static const double srows[9] = {
		1, 2, 0,
		2, 4, 0,
		0, 0, 1,
	};
	double s[9], x[3];
	static const double b[3] = { 1, 1, 1 };
	struct la_factor *f;

	CHECK_INT(solve_with(3, LA_DENSE_SPD, 0, 0, d, b, x), 3);
	CHECK(all_nan(3, x));           /* a failed factor gives NaN */
	CHECK_INT(solve_with(3, LA_BAND_SPD, 0, 0, d, b, x), 3);
	CHECK(all_nan(3, x));

	from_rows(3, srows, s);
	CHECK_INT(solve_with(3, LA_DENSE_GENERAL, 0, 0, s, b, x), 2);
	CHECK(all_nan(3, x));
	CHECK_INT(solve_with(3, LA_BAND_GENERAL, 1, 1, s, b, x), 2);
	CHECK(all_nan(3, x));

	/* Solving before any factorization also gives NaN, not garbage. */
	f = la_factor_alloc(3, LA_DENSE_GENERAL, 0, 0);
	CHECK(f != NULL);
	if (f) {
		memcpy(x, b, sizeof x);
		la_solve(f, x);
		CHECK(all_nan(3, x));
		la_factor_free(f);
	}

	/* Invalid arguments. */
	CHECK(la_factor_alloc(0, LA_DENSE_SPD, 0, 0) == NULL);
	CHECK(la_factor_alloc(3, LA_BAND_GENERAL, -1, 0) == NULL);
	CHECK(la_factor_alloc(3, LA_BAND_GENERAL, 0, -1) == NULL);
	la_factor_free(NULL);
}

/* --- refactoring in place --------------------------------------------- */

/* One factor object, three matrices in turn: A1, a matrix that fails, A2.
 * Each successful factorization must solve its own system. */
static void refactor(enum la_kind kind, int kl, int ku, const double *a1,
                     const double *bad, int bad_info, const double *a2)
{
	struct la_factor *f = la_factor_alloc(NB, kind, kl, ku);
	double x1[NB], x2[NB], x[NB];

	CHECK(f != NULL);
	if (!f)
		return;
	known_x(x1, 0.0);
	known_x(x2, 2.0);

	CHECK_INT(la_factor(f, a1), 0);
	la_gemv(NB, a1, x1, x);
	la_solve(f, x);
	CHECK_NEAR(rel_diff(NB, x, x1), 0.0, 1e-12);
	/* Solving twice with the same factor gives the same answer. */
	la_gemv(NB, a1, x1, x);
	la_solve(f, x);
	CHECK_NEAR(rel_diff(NB, x, x1), 0.0, 1e-12);

	CHECK_INT(la_factor(f, bad), bad_info);
	la_gemv(NB, a1, x1, x);
	la_solve(f, x);
	CHECK(all_nan(NB, x));

	CHECK_INT(la_factor(f, a2), 0);
	la_gemv(NB, a2, x2, x);
	la_solve(f, x);
	CHECK_NEAR(rel_diff(NB, x, x2), 0.0, 1e-12);

	/* And back to the first matrix. */
	CHECK_INT(la_factor(f, a1), 0);
	la_gemv(NB, a1, x2, x);
	la_solve(f, x);
	CHECK_NEAR(rel_diff(NB, x, x2), 0.0, 1e-12);
	la_factor_free(f);
}

static void test_refactor(void)
{
	double *a1 = zeros(NB * NB), *a2 = zeros(NB * NB);
	double *bad = zeros(NB * NB);
	int i;

	/* SPD: shifted stencils; the bad one has a negative diagonal entry
	 * at row 10 (pivot 10, 1-based). */
	spd_tridiag(a1, 0.0);
	spd_tridiag(a2, 5.0);
	spd_tridiag(bad, 0.0);
	A(bad, NB, 9, 9) = -3.0;
	refactor(LA_DENSE_SPD, 0, 0, a1, bad, 10, a2);
	refactor(LA_BAND_SPD, 1, 1, a1, bad, 10, a2);

	/* General: the bad one has an all-zero column 20, so U(20,20) = 0
	 * whatever the pivoting. */
	general_band(a1, 0);
	general_band(a2, 1);
	general_band(bad, 0);
	for (i = 0; i < NB; i++)
		A(bad, NB, i, 19) = 0.0;
	refactor(LA_DENSE_GENERAL, 0, 0, a1, bad, 20, a2);
	refactor(LA_BAND_GENERAL, 1, 2, a1, bad, 20, a2);

	free(a1);
	free(a2);
	free(bad);
}

/* --- generalized eigenproblem ----------------------------------------- */

/* Checks φᵀ M φ = I and K φ = λ M φ column by column, to tol. */
static void check_eigen(int n, const double *k, const double *m,
                        const double *w, const double *phi, double tol)
{
	double *kp = zeros(n), *mp = zeros(n);
	int i, j, r;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			CHECK_NEAR(la_quad(n, m, phi + (size_t)i * n,
			                   phi + (size_t)j * n),
			           i == j ? 1.0 : 0.0, tol);
	for (j = 0; j < n; j++) {
		la_gemv(n, k, phi + (size_t)j * n, kp);
		la_gemv(n, m, phi + (size_t)j * n, mp);
		for (r = 0; r < n; r++)
			CHECK_NEAR(kp[r], w[j] * mp[r], tol);
	}
	free(kp);
	free(mp);
}

static void test_sygv_2x2(void)
{
	static const double k[4] = { 2, -1, -1, 2 };
	static const double ident[4] = { 1, 0, 0, 1 };
	static const double m2[4] = { 2, 0, 0, 1 };
	double kc[4], mc[4], w[2], w0[2], phi[4];
	double s = sqrt(0.5);

	memcpy(kc, k, sizeof kc);
	memcpy(mc, ident, sizeof mc);
	CHECK_INT(la_sygv(2, kc, mc, w, phi), 0);
	CHECK(memcmp(kc, k, sizeof kc) == 0);           /* inputs untouched */
	CHECK(memcmp(mc, ident, sizeof mc) == 0);
	CHECK_NEAR(w[0], 1.0, 1e-14);
	CHECK_NEAR(w[1], 3.0, 1e-14);
	/* φ₁ = ±(1, 1)/√2, φ₂ = ±(1, -1)/√2. */
	CHECK_NEAR(fabs(phi[0]), s, 1e-14);
	CHECK_NEAR(phi[1], phi[0], 1e-14);
	CHECK_NEAR(fabs(phi[2]), s, 1e-14);
	CHECK_NEAR(phi[3], -phi[2], 1e-14);
	check_eigen(2, k, ident, w, phi, 1e-14);

	/* Eigenvalues only. */
	CHECK_INT(la_sygv(2, k, ident, w0, NULL), 0);
	CHECK_NEAR(w0[0], 1.0, 1e-14);
	CHECK_NEAR(w0[1], 3.0, 1e-14);

	/* M = diag(2, 1): det(K - λM) = 2λ² - 6λ + 3, λ = (3 ∓ √3)/2. */
	memcpy(mc, m2, sizeof mc);
	CHECK_INT(la_sygv(2, kc, mc, w, phi), 0);
	CHECK(memcmp(kc, k, sizeof kc) == 0);
	CHECK(memcmp(mc, m2, sizeof mc) == 0);
	CHECK_NEAR(w[0], (3.0 - sqrt(3.0)) / 2.0, 1e-14);
	CHECK_NEAR(w[1], (3.0 + sqrt(3.0)) / 2.0, 1e-14);
	check_eigen(2, k, m2, w, phi, 1e-14);
}

/* Fixed-fixed string of n unit masses: K = tridiag(-1, 2, -1), M = I,
 * λ_j = 2 - 2 cos(jπ/(n+1)).  Then M = 2I halves them. */
static void test_sygv_chain(void)
{
	double *k = zeros(NB * NB), *m = zeros(NB * NB), *phi = zeros(NB * NB);
	double w[NB], w0[NB];
	double pi = acos(-1.0);
	int j;

	spd_tridiag(k, -1.0);
	for (j = 0; j < NB; j++)
		A(m, NB, j, j) = 1.0;
	CHECK_INT(la_sygv(NB, k, m, w, phi), 0);
	for (j = 0; j < NB; j++)
		CHECK_NEAR(w[j], 2.0 - 2.0 * cos((j + 1) * pi / (NB + 1)),
		           1e-13);
	check_eigen(NB, k, m, w, phi, 1e-13);

	CHECK_INT(la_sygv(NB, k, m, w0, NULL), 0);
	for (j = 0; j < NB; j++)
		CHECK_NEAR(w0[j], w[j], 1e-13);

	for (j = 0; j < NB; j++)
		A(m, NB, j, j) = 2.0;
	CHECK_INT(la_sygv(NB, k, m, w, phi), 0);
	for (j = 0; j < NB; j++)
		CHECK_NEAR(w[j], 1.0 - cos((j + 1) * pi / (NB + 1)), 1e-13);
	check_eigen(NB, k, m, w, phi, 1e-13);
	free(k);
	free(m);
	free(phi);
}

static void test_sygv_indefinite(void)
{
	static const double k2[4] = { 1, 0, 0, 1 };
	static const double m2[4] = { 1, 0, 0, -1 };
	static const double m0[4] = { 0, 0, 0, 1 };
	static const double k3[9] = { 2, -1, 0, -1, 2, -1, 0, -1, 2 };
	static const double m3[9] = { 1, 0, 0, 0, 2, 0, 0, 0, -1 };
	double w[3], phi[9];

	CHECK_INT(la_sygv(2, k2, m2, w, phi), 2);
	CHECK_INT(la_sygv(2, k2, m2, w, NULL), 2);
	CHECK_INT(la_sygv(2, k2, m0, w, phi), 1);     /* singular M */
	CHECK_INT(la_sygv(3, k3, m3, w, phi), 3);
	CHECK_INT(la_sygv(3, k3, m3, w, NULL), 3);
}

/* --- pattern and small helpers ---------------------------------------- */

static void test_bandwidth(void)
{
	double a[36], b[25];
	int i, j, kl, ku;

	/* Pentadiagonal 6×6. */
	for (j = 0; j < 6; j++)
		for (i = 0; i < 6; i++)
			A(a, 6, i, j) = abs(i - j) <= 2 ? 1.0 + i + j : 0.0;
	la_bandwidth(6, a, &kl, &ku);
	CHECK_INT(kl, 2);
	CHECK_INT(ku, 2);

	/* Asymmetric: diagonal, one entry three below, one just above. */
	memset(b, 0, sizeof b);
	for (i = 0; i < 5; i++)
		A(b, 5, i, i) = 1.0;
	A(b, 5, 3, 0) = -0.5;
	A(b, 5, 0, 1) = 2.0;
	la_bandwidth(5, b, &kl, &ku);
	CHECK_INT(kl, 3);
	CHECK_INT(ku, 1);

	/* Only a far upper corner entry. */
	A(b, 5, 3, 0) = 0.0;
	A(b, 5, 0, 4) = 1e-300;         /* tiny but nonzero counts */
	la_bandwidth(5, b, &kl, &ku);
	CHECK_INT(kl, 0);
	CHECK_INT(ku, 4);

	/* Diagonal and zero matrices: both widths 0. */
	memset(b, 0, sizeof b);
	la_bandwidth(5, b, &kl, &ku);
	CHECK_INT(kl, 0);
	CHECK_INT(ku, 0);
	for (i = 0; i < 5; i++)
		A(b, 5, i, i) = 3.0;
	la_bandwidth(5, b, &kl, &ku);
	CHECK_INT(kl, 0);
	CHECK_INT(ku, 0);
}

static void test_asymmetry(void)
{
	static const double sym[9] = { 2, -1, 0, -1, 2, -1, 0, -1, 2 };
	/* Rows [[4, 1], [0, 2]]: |a12 - a21| / max|a| = 1/4. */
	static const double rows[4] = { 4, 1, 0, 2 };
	static const double zero[4] = { 0, 0, 0, 0 };
	double a[4];

	CHECK_NEAR(la_asymmetry(3, sym), 0.0, 0.0);
	from_rows(2, rows, a);
	CHECK_NEAR(la_asymmetry(2, a), 0.25, 0.0);
	CHECK_NEAR(la_asymmetry(2, zero), 0.0, 0.0);
}

static void test_gemv_quad(void)
{
	/* Rows [[1, 2], [3, 4]]. */
	static const double rows[4] = { 1, 2, 3, 4 };
	static const double x[2] = { 1, 2 }, y[2] = { 3, -1 };
	static const double ones[2] = { 1, 1 };
	double a[4], r[2];

	from_rows(2, rows, a);
	la_gemv(2, a, ones, r);
	CHECK_NEAR(r[0], 3.0, 0.0);
	CHECK_NEAR(r[1], 7.0, 0.0);
	/* A y = (1, 5), xᵀ A y = 11. */
	CHECK_NEAR(la_quad(2, a, x, y), 11.0, 0.0);
	/* Not symmetric in x and y for a non-symmetric A: yᵀ A x = 3·5 - 11 = 4. */
	CHECK_NEAR(la_quad(2, a, y, x), 4.0, 0.0);
}

int main(void)
{
	test_dense_spd();
	test_dense_general();
	test_band_spd();
	test_band_general();
	test_band_spd_unequal();
	test_pivots();
	test_refactor();
	test_sygv_2x2();
	test_sygv_chain();
	test_sygv_indefinite();
	test_bandwidth();
	test_asymmetry();
	test_gemv_quad();

	printf("test_la: %d checks, %d passed, %d failed\n", nchecks,
	       nchecks - nfailed, nfailed);
	return nfailed ? 1 : 0;
}
