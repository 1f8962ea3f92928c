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
#include "la_rows.h"

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


/* ---- The matrix layer: struct la_mat and struct la_solver ---- */

/* A grid Laplacian of side g (n = g²) plus a shift, assembled edge by edge
 * so that every diagonal entry arrives as several duplicates, numbered
 * through a scrambling permutation (a natural numbering would make the
 * band backend's job trivial).  conv adds an unsymmetric convection term
 * along x.  Triplets into row, col, val (room for 9 n), count returned. */
static size_t grid(int g, double shift, double conv, const int *scr, int *row, int *col, double *val)
{
	size_t k = 0;
	for (int y = 0; y < g; y++)
		for (int x = 0; x < g; x++) {
			int a = scr[x + y * g];
			row[k] = a, col[k] = a, val[k++] = shift;
			for (int d = 0; d < 2; d++) {
				int x2 = x + (d == 0), y2 = y + (d == 1);
				if (x2 >= g || y2 >= g)
					continue;
				int b = scr[x2 + y2 * g];
				double c = d == 0 ? conv : 0;
				row[k] = a, col[k] = a, val[k++] = 1;
				row[k] = b, col[k] = b, val[k++] = 1;
				row[k] = a, col[k] = b, val[k++] = -1 + c;
				row[k] = b, col[k] = a, val[k++] = -1 - c;
			}
		}
	return k;
}

/* A permutation of 0..n-1 (a fixed linear congruential shuffle). */
static void scramble(int n, int *p)
{
	unsigned s = 12345;
	for (int i = 0; i < n; i++)
		p[i] = i;
	for (int i = n - 1; i > 0; i--) {
		s = s * 1103515245u + 12345u;
		int j = (int)((s >> 8) % (unsigned)(i + 1)), t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

static double relerr(int n, const double *x, const double *want)
{
	double e = 0, m = 0;
	for (int i = 0; i < n; i++) {
		e = fmax(e, fabs(x[i] - want[i]));
		m = fmax(m, fabs(want[i]));
	}
	return !(e == e) ? INFINITY : e / m;
}

/* Solve A x = A xe with backend b and check x against xe.  The systems
 * below have condition numbers of at most about 1e3 (the grid's largest
 * over smallest eigenvalue with the shift; the saddle point after its
 * scaling), so a backward-stable factorization leaves a relative error of
 * about 1e3 × 1e-16: 1e-12 leaves a margin of ten. */
static void solve_check(const struct la_mat *A, enum la_backend b, unsigned flags, double phase, const char *what)
{
	int n = A->n;
	double *xe = malloc(sizeof(double) * (size_t)n), *x = malloc(sizeof(double) * (size_t)n);
	char msg[160];
	for (int i = 0; i < n; i++)
		xe[i] = sin(0.37 * i + phase) + 0.5;
	la_mat_mul(A, xe, x);
	struct la_solver *s = la_solver_alloc(A, b, flags);
	snprintf(msg, sizeof msg, "%s: %s solver allocated", what, la_backend_name(b));
	check(s != NULL, __FILE__, __LINE__, msg);
	if (s) {
		if (b != LA_AUTO)
			check_int(la_solver_backend(s), b, __FILE__, __LINE__, "backend kept");
		snprintf(msg, sizeof msg, "%s: %s factor", what, la_backend_name(b));
		check_int(la_solver_factor(s, A), 0, __FILE__, __LINE__, msg);
		la_solver_solve(s, x);
		snprintf(msg, sizeof msg, "%s: %s relative error", what, la_backend_name(b));
		check_near(relerr(n, x, xe), 0, 1e-12, __FILE__, __LINE__, msg);
	}
	la_solver_free(s);
	free(xe);
	free(x);
}

enum { G = 20, GN = G * G };

static void test_mat_kinds(void)
{
	int scr[GN], row[9 * GN], col[9 * GN];
	double val[9 * GN];
	struct la_mat A[3];
	const enum la_mat_kind kinds[3] = { LA_MAT_DENSE, LA_MAT_BAND, LA_MAT_CSC };
	scramble(GN, scr);
	size_t nt = grid(G, 0.1, 0.3, scr, row, col, val);
	for (int k = 0; k < 3; k++)
		check_int(la_mat_triplets(&A[k], kinds[k], GN, nt, row, col, val), 0, __FILE__, __LINE__, "built");
	/* Duplicates summed: an interior node of the grid gets its shift and
	 * 1 from each of its four edges. */
	int in = scr[5 + 5 * G];
	for (int k = 0; k < 3; k++)
		check_near(la_mat_get(&A[k], in, in), 4.1, 0, __FILE__, __LINE__, "diagonal = shift + 4 duplicates");
	check_near(la_mat_get(&A[2], scr[5 + 5 * G], scr[6 + 5 * G]), -0.7, 1e-16, __FILE__, __LINE__,
	           "off-diagonal -1 + conv");
	check_int(A[2].sym, 0, __FILE__, __LINE__, "convection: not symmetric");
	check_int((int)A[2].nx, GN + 4 * G * (G - 1), __FILE__, __LINE__, "CSC: one slot per distinct entry");
	/* The three storages hold the same numbers: products agree to the
	 * last bit up to the order of summation (1e-15 of values of 1). */
	double x[GN], y[3][GN];
	for (int i = 0; i < GN; i++)
		x[i] = cos(0.1 * i);
	for (int k = 0; k < 3; k++)
		la_mat_mul(&A[k], x, y[k]);
	for (int i = 0; i < GN; i++) {
		check_near(y[1][i], y[0][i], 1e-14, __FILE__, __LINE__, "band product = dense product");
		check_near(y[2][i], y[0][i], 1e-14, __FILE__, __LINE__, "CSC product = dense product");
	}
	check_near(la_mat_dot(&A[2], x, x), la_mat_dot(&A[0], x, x), 1e-11, __FILE__, __LINE__, "xᵀAx");
	for (int k = 0; k < 3; k++)
		la_mat_free(&A[k]);
	/* an index out of range is refused */
	int bad = GN;
	check_int(la_mat_triplets(&A[0], LA_MAT_CSC, GN, 1, &bad, &bad, val), -2, __FILE__, __LINE__, "bad index");
	la_mat_free(&A[0]);
}

static const enum la_backend all_backends[] = { LA_LAPACK_DENSE, LA_LAPACK_BAND, LA_CHOLMOD, LA_UMFPACK, LA_AUTO };

static void test_solver_spd_general(void)
{
	int scr[GN], row[9 * GN], col[9 * GN];
	double val[9 * GN];
	struct la_mat A;
	scramble(GN, scr);
	for (int kind = LA_MAT_DENSE; kind <= LA_MAT_CSC; kind++) {
		/* SPD: every backend */
		size_t nt = grid(G, 0.1, 0, scr, row, col, val);
		la_mat_triplets(&A, (enum la_mat_kind)kind, GN, nt, row, col, val);
		check_int(A.sym, 1, __FILE__, __LINE__, "grid Laplacian symmetric");
		for (int b = 0; b < 5; b++)
			solve_check(&A, all_backends[b], LA_SPD, 0.1 * kind, "SPD grid");
		/* the same, factored as general (LU) */
		for (int b = 0; b < 5; b++)
			if (all_backends[b] != LA_CHOLMOD)
				solve_check(&A, all_backends[b], 0, 0.2, "SPD grid by LU");
		la_mat_free(&A);
		/* general: CHOLMOD refuses it, the LU backends solve it */
		nt = grid(G, 0.1, 0.3, scr, row, col, val);
		la_mat_triplets(&A, (enum la_mat_kind)kind, GN, nt, row, col, val);
		check(la_solver_alloc(&A, LA_CHOLMOD, LA_SPD) == NULL, __FILE__, __LINE__,
		      "CHOLMOD refuses an unsymmetric matrix");
		for (int b = 0; b < 5; b++)
			if (all_backends[b] != LA_CHOLMOD)
				solve_check(&A, all_backends[b], 0, 0.3, "convection grid");
		la_mat_free(&A);
	}
}

/* [K Bᵀ; B 0]: a grid stiffness with nc = 5 constraints tying pairs of
 * nodes and fixing one, the saddle point of a constrained step.  It is
 * indefinite: only the LU backends apply. */
static void test_solver_saddle(void)
{
	enum { NC = 5, NT = GN + NC };
	int scr[GN], row[9 * GN + 4 * NC], col[9 * GN + 4 * NC];
	double val[9 * GN + 4 * NC];
	struct la_mat A;
	scramble(GN, scr);
	size_t nt = grid(G, 0.1, 0, scr, row, col, val);
	for (int k = 0; k < NC; k++) {
		int a = (37 * k + 11) % GN, b = (53 * k + 101) % GN;
		row[nt] = GN + k, col[nt] = a, val[nt++] = 1;
		row[nt] = a, col[nt] = GN + k, val[nt++] = 1;
		if (k > 0) {
			row[nt] = GN + k, col[nt] = b, val[nt++] = -1;
			row[nt] = b, col[nt] = GN + k, val[nt++] = -1;
		}
	}
	for (int kind = LA_MAT_DENSE; kind <= LA_MAT_CSC; kind++) {
		la_mat_triplets(&A, (enum la_mat_kind)kind, NT, nt, row, col, val);
		for (int b = 0; b < 5; b++)
			if (all_backends[b] != LA_CHOLMOD)
				solve_check(&A, all_backends[b], 0, 0.4, "saddle point");
		la_mat_free(&A);
	}
}

/* Refactorization with new values on the same pattern, through a linear
 * combination S = a M + b K (M the identity plus a coupling, K the grid),
 * as a step matrix whose step size changes. */
static void test_solver_refactor(void)
{
	int scr[GN], row[9 * GN], col[9 * GN];
	double val[9 * GN];
	struct la_mat K, M, S;
	scramble(GN, scr);
	size_t nt = grid(G, 0, 0, scr, row, col, val);
	la_mat_triplets(&K, LA_MAT_CSC, GN, nt, row, col, val);
	int mr[2 * GN], mc[2 * GN];
	double mv[2 * GN];
	for (int i = 0; i < GN; i++) {
		mr[i] = mc[i] = i, mv[i] = 1;
		/* a coupling outside K's pattern: the union must hold it */
		mr[GN + i] = i, mc[GN + i] = GN - 1 - i, mv[GN + i] = 0.01;
	}
	la_mat_triplets(&M, LA_MAT_CSC, GN, 2 * GN, mr, mc, mv);
	const struct la_mat *t[2] = { &M, &K };
	check_int(la_mat_sum_init(&S, 2, t), 0, __FILE__, __LINE__, "sum pattern");
	check_int(S.sym, 1, __FILE__, __LINE__, "sum of symmetric terms is symmetric");
	for (int b = 0; b < 5; b++) {
		double c1[2] = { 1, 0.5 }, c2[2] = { 2, 30 };
		la_mat_sum(&S, c1);
		struct la_solver *s = la_solver_alloc(&S, all_backends[b], LA_SPD);
		check(s != NULL, __FILE__, __LINE__, "refactor: solver");
		if (!s)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			la_mat_sum(&S, pass ? c2 : c1);
			check_near(la_mat_get(&S, 0, GN - 1), (pass ? c2 : c1)[0] * 0.01, 1e-17, __FILE__, __LINE__,
			           "union pattern entry");
			double xe[GN], x[GN];
			for (int i = 0; i < GN; i++)
				xe[i] = cos(0.2 * i + pass);
			la_mat_mul(&S, xe, x);
			check_int(la_solver_factor(s, &S), 0, __FILE__, __LINE__, "refactor");
			la_solver_solve(s, x);
			/* cond(M + 30 K) <= 1 + 30·8/0.98: about 250 */
			check_near(relerr(GN, x, xe), 0, 1e-12, __FILE__, __LINE__, "refactored solve");
		}
		la_solver_free(s);
	}
	la_mat_free(&S);
	la_mat_free(&M);
	la_mat_free(&K);
}

/* A failure names the unknown where it showed, in the caller's numbering
 * whatever the backend's ordering: a diagonal matrix with one bad entry
 * (a decoupled unknown fails in any order). */
static void test_solver_pivot(void)
{
	enum { N = 100, BAD = 36 };
	int r[N];
	double v[N];
	struct la_mat A;
	for (int i = 0; i < N; i++)
		r[i] = i, v[i] = 1 + i;
	v[BAD] = -1;
	la_mat_triplets(&A, LA_MAT_CSC, N, N, r, r, v);
	for (int b = 0; b < 3; b++) {
		struct la_solver *s = la_solver_alloc(&A, all_backends[b == 2 ? 2 : b], LA_SPD);
		check_int(s ? la_solver_factor(s, &A) : -9, BAD + 1, __FILE__, __LINE__, "not positive definite: pivot");
		double x[N] = { 0 };
		if (s)
			la_solver_solve(s, x);
		check(isnan(x[0]), __FILE__, __LINE__, "solve after a failed factor gives NaN");
		la_solver_free(s);
	}
	la_mat_free(&A);
	v[BAD] = 0;
	la_mat_triplets(&A, LA_MAT_CSC, N, N, r, r, v);
	for (int b = 0; b < 4; b++) {
		if (all_backends[b] == LA_CHOLMOD)
			continue;
		struct la_solver *s = la_solver_alloc(&A, all_backends[b], 0);
		check_int(s ? la_solver_factor(s, &A) : -9, BAD + 1, __FILE__, __LINE__, "singular: pivot");
		la_solver_free(s);
	}
	la_mat_free(&A);
}

/* Reverse Cuthill-McKee finds the chain in a scrambled numbering: its
 * bandwidth is 1 again, and the automatic choice is LAPACK's banded
 * Cholesky (dpttrf), not a general sparse factorization. */
static void test_rcm_choice(void)
{
	enum { N = 1000 };
	int scr[N], row[3 * N], col[3 * N], bw;
	double val[3 * N];
	size_t k = 0;
	struct la_mat A;
	scramble(N, scr);
	for (int i = 0; i < N; i++) {
		row[k] = col[k] = scr[i], val[k++] = 2.5;
		if (i + 1 < N) {
			row[k] = scr[i], col[k] = scr[i + 1], val[k++] = -1;
			row[k] = scr[i + 1], col[k] = scr[i], val[k++] = -1;
		}
	}
	la_mat_triplets(&A, LA_MAT_AUTO, N, k, row, col, val);
	check_int(A.kind, LA_MAT_CSC, __FILE__, __LINE__, "scrambled chain stored compressed");
	check_int(la_backend_choose(&A, LA_SPD, &bw), LA_LAPACK_BAND, __FILE__, __LINE__, "chain: banded LAPACK");
	check_int(bw, 1, __FILE__, __LINE__, "chain bandwidth after RCM");
	solve_check(&A, LA_AUTO, LA_SPD, 0.5, "scrambled chain");
	la_mat_free(&A);
	/* a 2-D grid of 400 nodes: band 20 after RCM at best, kept banded;
	 * the 10⁴-node grid's band (about 100) is not: CHOLMOD for SPD,
	 * UMFPACK otherwise */
	enum { G2 = 100, N2 = G2 * G2 };
	int *s2 = malloc(sizeof(int) * N2), *r2 = malloc(sizeof(int) * 9 * N2), *c2 = malloc(sizeof(int) * 9 * N2);
	double *v2 = malloc(sizeof(double) * 9 * N2);
	scramble(N2, s2);
	k = grid(G2, 0.1, 0, s2, r2, c2, v2);
	la_mat_triplets(&A, LA_MAT_AUTO, N2, k, r2, c2, v2);
	check_int(la_backend_choose(&A, LA_SPD, &bw), LA_CHOLMOD, __FILE__, __LINE__, "wide grid: CHOLMOD");
	check_int(la_backend_choose(&A, 0, NULL), LA_UMFPACK, __FILE__, __LINE__, "wide grid, general: UMFPACK");
	check(bw >= G2 && bw < 2 * G2, __FILE__, __LINE__, "grid bandwidth after RCM about its side");
	solve_check(&A, LA_CHOLMOD, LA_SPD, 0.6, "grid 100x100");
	solve_check(&A, LA_UMFPACK, 0, 0.6, "grid 100x100");
	la_mat_free(&A);
	free(s2);
	free(r2);
	free(c2);
	free(v2);
}

/* A small chain is stored dense (n <= LA_SMALL_N) but factored by the
 * band routines: its tridiagonal pattern, not its storage, decides
 * (dpttrs in O(n) where dpotrs goes through dtrsm), and the zeros of the
 * dense array outside the band are not taken for entries.  A small full
 * matrix stays dense.  Both solve to 1e-12 (a condition number of about
 * 10 here). */
static void test_small_band_choice(void)
{
	enum { N = 10 };
	int row[3 * N], col[3 * N], bw;
	double val[3 * N];
	size_t k = 0;
	struct la_mat A;
	for (int i = 0; i < N; i++) {
		row[k] = col[k] = i, val[k++] = 2.5;
		if (i + 1 < N) {
			row[k] = i, col[k] = i + 1, val[k++] = -1;
			row[k] = i + 1, col[k] = i, val[k++] = -1;
		}
	}
	la_mat_triplets(&A, LA_MAT_AUTO, N, k, row, col, val);
	check_int(A.kind, LA_MAT_DENSE, __FILE__, __LINE__, "small chain stored dense");
	check_int(la_backend_choose(&A, LA_SPD, &bw), LA_LAPACK_BAND, __FILE__, __LINE__, "small chain: banded LAPACK");
	check_int(bw, 1, __FILE__, __LINE__, "small chain bandwidth");
	solve_check(&A, LA_AUTO, LA_SPD, 0.3, "small chain");
	solve_check(&A, LA_LAPACK_DENSE, LA_SPD, 0.3, "small chain");
	la_mat_free(&A);
	double full[N * N];
	for (int j = 0; j < N; j++)
		for (int i = 0; i < N; i++)
			full[i + j * N] = i == j ? N : 1.0 / (1 + i + j);
	la_mat_from_dense(&A, LA_MAT_AUTO, N, full);
	check_int(la_backend_choose(&A, LA_SPD, &bw), LA_LAPACK_DENSE, __FILE__, __LINE__, "small full: dense LAPACK");
	solve_check(&A, LA_AUTO, LA_SPD, 0.3, "small full");
	la_mat_free(&A);
}

/* la_mat_symmetrize: a matrix symmetric to rounding (an FE stiffness
 * whose triangles were derived apart) becomes exactly symmetric, so that
 * the step matrix is factored by Cholesky; one further from symmetric is
 * left as it is. */
static void test_symmetrize(void)
{
	/* 100 × 100 tridiagonal with a_{i+1,i} = a_{i,i+1} (1 + 1e-16 i):
	 * compressed columns (kind CSC) */
	enum { N = 100 };
	int row[3 * N], col[3 * N];
	double val[3 * N];
	int k = 0;
	for (int i = 0; i < N; i++) {
		row[k] = i, col[k] = i, val[k++] = 4;
		if (i + 1 < N) {
			row[k] = i, col[k] = i + 1, val[k++] = -1.1;
			row[k] = i + 1, col[k] = i, val[k++] = -1.1 * (1 + 1e-16 * i);
		}
	}
	for (int kind = LA_MAT_DENSE; kind <= LA_MAT_CSC; kind++) {
		struct la_mat A;
		CHECK(la_mat_triplets(&A, kind, N, (size_t)k, row, col, val) == 0);
		CHECK(!A.sym);
		CHECK(la_mat_symmetrize(&A) == 1);
		CHECK(A.sym);
		int same = 1;
		for (int i = 0; i + 1 < N; i++)
			same &= la_mat_get(&A, i, i + 1) == la_mat_get(&A, i + 1, i);
		CHECK(same);
		CHECK(fabs(la_mat_get(&A, 50, 51) + 1.1) < 1e-14);
		la_mat_free(&A);
		/* a real asymmetry (1e-6) is kept */
		val[2] = -1.1 * (1 + 1e-6);
		CHECK(la_mat_triplets(&A, kind, N, (size_t)k, row, col, val) == 0);
		CHECK(la_mat_symmetrize(&A) == 0);
		CHECK(!A.sym && la_mat_get(&A, 1, 0) == -1.1 * (1 + 1e-6));
		la_mat_free(&A);
		val[2] = -1.1;
	}
}

/* la_mat_part_restrict: a matrix in compressed columns keeps the columns
 * of a part (like) alone, their entries to the bit, and becomes a part of
 * them (the ranges copied); la_mat_sum_init of parts of the same columns
 * is their part, and la_mat_sum its values; a part beside a whole matrix
 * is refused (-1). */
static void test_part_restrict(void)
{
	enum { N = 12 };
	int row[3 * N], col[3 * N], cnt[1] = { N }, dsp[1] = { 0 };
	double kv[3 * N], mv[3 * N];
	int k = 0;
	for (int i = 0; i < N; i++) {
		row[k] = i, col[k] = i, kv[k] = 2 + 0.1 * i, mv[k++] = 4 + i;
		if (i + 1 < N) {
			row[k] = i, col[k] = i + 1, kv[k] = -1 - 0.01 * i, mv[k++] = 1 + 0.5 * i;
			row[k] = i + 1, col[k] = i, kv[k] = -1 - 0.01 * i, mv[k++] = 1 + 0.5 * i;
		}
	}
	struct la_mat K, M, W, S;
	CHECK(la_mat_triplets(&K, LA_MAT_CSC, N, (size_t)k, row, col, kv) == 0);
	CHECK(la_mat_triplets(&M, LA_MAT_CSC, N, (size_t)k, row, col, mv) == 0);
	CHECK(la_mat_triplets(&W, LA_MAT_CSC, N, (size_t)k, row, col, mv) == 0);
	/* columns 3 .. 7 of M: the others' entries gone */
	struct la_mat like = { 0 };
	like.n = N;
	like.part = 1;
	like.c0 = 3;
	like.c1 = 8;
	like.pcount = cnt;
	like.pdispl = dsp;
	CHECK(la_mat_part_restrict(&M, &like) == 0);
	CHECK(M.part && M.c0 == 3 && M.c1 == 8 && M.sym && M.nx == 15);
	int same = 1;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			same &= la_mat_get(&M, i, j) == (j >= 3 && j < 8 ? la_mat_get(&W, i, j) : 0);
	CHECK(same);
	la_mat_free(&M);
	/* all the columns: K, then M like K; their sum 2M + 3K */
	like.c0 = 0;
	like.c1 = N;
	CHECK(la_mat_part_restrict(&K, &like) == 0 && K.part && K.nx == (size_t)k);
	CHECK(la_mat_part_restrict(&K, &K) == 0 && K.part && K.pcount[0] == N);
	CHECK(la_mat_triplets(&M, LA_MAT_CSC, N, (size_t)k, row, col, mv) == 0);
	CHECK(la_mat_part_restrict(&M, &K) == 0 && M.part && M.c1 == N);
	const struct la_mat *t[2] = { &M, &K };
	CHECK(la_mat_sum_init(&S, 2, t) == 0);
	CHECK(S.part && S.c0 == 0 && S.c1 == N && S.sym && S.kind == LA_MAT_CSC);
	double coef[2] = { 2, 3 };
	la_mat_sum(&S, coef);
	same = 1;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			same &= la_mat_get(&S, i, j) == 2 * la_mat_get(&W, i, j) + 3 * la_mat_get(&K, i, j);
	CHECK(same);
	la_mat_free(&S);
	/* a part beside a whole matrix has no part for a sum */
	const struct la_mat *mixed[2] = { &W, &K };
	CHECK(la_mat_sum_init(&S, 2, mixed) == -1);
	la_mat_free(&K);
	la_mat_free(&M);
	la_mat_free(&W);
}

/* la_mat_pack: a symmetric tridiagonal band in one triangle (2n + 1
 * values) reads as the band it came from, to the bit: entries, products,
 * the quadratic form, rows (la_rows.h), a dense and a banded sum with a
 * diagonal term; another shape is left as it is. */
static void test_pack(void)
{
	enum { N = 9 };
	int row[3 * N], col[3 * N];
	double val[3 * N];
	int k = 0;
	for (int i = 0; i < N; i++) {
		row[k] = i, col[k] = i, val[k++] = 2 + 0.1 * i;
		if (i + 1 < N) {
			row[k] = i, col[k] = i + 1, val[k++] = -1 - 0.01 * i;
			row[k] = i + 1, col[k] = i, val[k++] = -1 - 0.01 * i;
		}
	}
	struct la_mat A, P, D, S1, S2;
	CHECK(la_mat_triplets(&A, LA_MAT_BAND, N, (size_t)k, row, col, val) == 0);
	CHECK(la_mat_triplets(&P, LA_MAT_BAND, N, (size_t)k, row, col, val) == 0);
	CHECK(A.sym && P.sym);
	CHECK(la_mat_pack(&P) == 1 && P.packed && P.nx == 2 * N + 1);
	CHECK(la_mat_pack(&P) == 0);   /* once */
	int same = 1;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			same &= la_mat_get(&P, i, j) == la_mat_get(&A, i, j);
	CHECK(same);
	double x[N], ya[N], yp[N], da[N * N], dp[N * N];
	for (int i = 0; i < N; i++)
		x[i] = cos(0.7 * i) + 0.1;
	la_mat_mul(&A, x, ya);
	la_mat_mul(&P, x, yp);
	CHECK(memcmp(ya, yp, sizeof ya) == 0);
	for (int i = 0; i < N; i++)
		ya[i] = yp[i] = 1;
	la_mat_muladd(&A, 0.3, x, ya);
	la_mat_muladd(&P, 0.3, x, yp);
	CHECK(memcmp(ya, yp, sizeof ya) == 0);
	la_mat_mulsub_rows(&A, x, ya, 2, 7);
	la_mat_mulsub_rows(&P, x, yp, 2, 7);
	CHECK(memcmp(ya, yp, sizeof ya) == 0);
	CHECK(la_mat_dot(&A, x, ya) == la_mat_dot(&P, x, ya));
	CHECK(la_mat_maxabs(&A) == la_mat_maxabs(&P));
	la_mat_to_dense(&A, da);
	la_mat_to_dense(&P, dp);
	CHECK(memcmp(da, dp, sizeof da) == 0);
	struct la_rows ra = la_rows_of(&A), rp = la_rows_of(&P);
	same = 1;
	for (int i = 0; i < N; i++) {
		same &= la_row_dot(&ra, N, i, x) == la_row_dot(&rp, N, i, x);
		same &= la_row_dot2(&ra, N, i, x, ya) == la_row_dot2(&rp, N, i, x, ya);
	}
	CHECK(same);
	/* S = 2 D + 0.5 T, T the band or its packed form, S banded, then dense */
	int dr[N];
	double dv[N];
	for (int i = 0; i < N; i++)
		dr[i] = i, dv[i] = 1 + i;
	for (int kind = LA_MAT_DENSE; kind <= LA_MAT_BAND; kind++) {
		CHECK(la_mat_triplets(&D, kind, N, N, dr, dr, dv) == 0);
		const struct la_mat *ta[2] = { &D, &A }, *tp[2] = { &D, &P };
		const double coef[2] = { 2, 0.5 };
		CHECK(la_mat_sum_init(&S1, 2, ta) == 0 && la_mat_sum_init(&S2, 2, tp) == 0);
		la_mat_sum(&S1, coef);
		la_mat_sum(&S2, coef);
		CHECK(S1.kind == S2.kind && S1.nx == S2.nx && memcmp(S1.x, S2.x, sizeof *S1.x * S1.nx) == 0);
		la_mat_free(&S1);
		la_mat_free(&S2);
		la_mat_free(&D);
	}
	/* a compressed sum cannot take a packed term */
	CHECK(la_mat_triplets(&D, LA_MAT_CSC, N, N, dr, dr, dv) == 0);
	const struct la_mat *tc[2] = { &D, &P };
	CHECK(la_mat_sum_init(&S1, 2, tc) == -1);
	la_mat_free(&D);
	la_mat_free(&P);
	/* not packed: asymmetric, a wider band, dense */
	val[1] = -3;
	CHECK(la_mat_triplets(&P, LA_MAT_BAND, N, (size_t)k, row, col, val) == 0);
	CHECK(la_mat_pack(&P) == 0 && !P.packed && P.nx == 3 * N);
	la_mat_free(&P);
	CHECK(la_mat_triplets(&P, LA_MAT_DENSE, N, (size_t)k, row, col, val) == 0);
	CHECK(la_mat_pack(&P) == 0);
	la_mat_free(&P);
	la_mat_free(&A);
}

/* --- a dense factor used at a smaller order (la_factor_order) ------- */

/* The LCP of moreau_jean factors the basic block of its Delassus matrix in
 * a factor allocated for all the rows: order 2 of a 4 × 4 factor solves
 * [4 1; 1 3] x = [1; 2] exactly (x = [1/11, 7/11]), back to order 4
 * solves the identity, and the orders beyond the allocation or of a band
 * kind are refused. */
static void test_factor_order(void)
{
	struct la_factor *f = la_factor_alloc(4, LA_DENSE_GENERAL, 0, 0);
	CHECK(f != NULL);
	if (!f)
		return;
	double a2[4] = { 4, 1, 1, 3 }, b2[2] = { 1, 2 };
	CHECK_INT(la_factor_order(f, 2), 0);
	CHECK_INT(la_factor(f, a2), 0);
	la_solve(f, b2);
	CHECK(fabs(b2[0] - 1.0 / 11) < 1e-15 && fabs(b2[1] - 7.0 / 11) < 1e-15);
	double id[16] = { 0 }, b4[4] = { 1, 2, 3, 4 };
	for (int i = 0; i < 4; i++)
		id[i + 4 * i] = 1;
	CHECK_INT(la_factor_order(f, 4), 0);
	CHECK_INT(la_factor(f, id), 0);
	la_solve(f, b4);
	CHECK(b4[0] == 1 && b4[1] == 2 && b4[2] == 3 && b4[3] == 4);
	CHECK_INT(la_factor_order(f, 5), -1);
	CHECK_INT(la_factor_order(f, -1), -1);
	la_factor_free(f);
	struct la_factor *g = la_factor_alloc(4, LA_BAND_GENERAL, 1, 1);
	CHECK(g != NULL);
	if (g) {
		CHECK_INT(la_factor_order(g, 2), -1);
		la_factor_free(g);
	}
}

int main(void)
{
	test_part_restrict();
	test_pack();
	test_symmetrize();
	test_mat_kinds();
	test_small_band_choice();
	test_solver_spd_general();
	test_solver_saddle();
	test_solver_refactor();
	test_solver_pivot();
	test_rcm_choice();

	test_dense_spd();
	test_dense_general();
	test_band_spd();
	test_band_general();
	test_band_spd_unequal();
	test_pivots();
	test_refactor();
	test_factor_order();
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
