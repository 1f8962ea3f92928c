/* la.c — linear algebra for the steppers: the only file that calls LAPACK.
 *
 * The steppers build their step matrices dense and column-major; this file
 * factors them as dense or banded, SPD (Cholesky) or general (LU with
 * partial pivoting), solves with the factors, and solves the generalized
 * symmetric eigenproblem K φ = λ M φ for modal analysis.
 *
 * A factor owns all its storage, allocated once in la_factor_alloc: a time
 * step loop refactors when the step size changes and solves every step, so
 * la_factor and la_solve never allocate.  We call the LAPACKE *_work entry
 * points for the same reason: for column-major data they pass straight
 * through to LAPACK, whereas the plain LAPACKE wrappers first scan the whole
 * input for NaN, and would report a NaN as a negative info, which the
 * interface (pivot k > 0 or 0) has no room for.  A NaN in a step matrix
 * instead propagates into the solution, where the stepper sees it.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "la.h"
#include "mem.h"

struct la_factor {
	enum la_kind kind;
	int n;
	int cap;                /* the order allocated (dense kinds: n <= cap) */
	int kl, ku;             /* band widths; kl = ku = kd for LA_BAND_SPD */
	int ldab;               /* leading dimension of ab */
	double *ab;             /* the factor, in LAPACK's dense or band layout */
	lapack_int *ipiv;       /* row interchanges; general kinds only */
	int ok;                 /* ab holds a successful factorization */
};

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

/* Returns NULL for an invalid n, kind or band width, or when out of
 * memory. */
struct la_factor *la_factor_alloc(int n, enum la_kind kind, int kl, int ku)
{
	struct la_factor *f;
	size_t len;

	if (n < 1 || kl < 0 || ku < 0)
		return NULL;
	/* A band wider than the matrix only wastes storage. */
	kl = imin(kl, n - 1);
	ku = imin(ku, n - 1);

	f = mem_calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->kind = kind;
	f->n = f->cap = n;
	switch (kind) {
	case LA_DENSE_SPD:
	case LA_DENSE_GENERAL:
		f->kl = f->ku = n - 1;
		f->ldab = n;
		break;
	case LA_BAND_SPD:
		/* dpbtrf wants one width.  Taking the larger keeps a matrix
		 * whose pattern is not quite symmetric (a tiny entry on one
		 * side only) from losing entries to the band copy. */
		f->kl = f->ku = imax(kl, ku);
		f->ldab = f->ku + 1;
		break;
	case LA_BAND_GENERAL:
		/* dgbtrf needs kl extra rows on top for the fill-in that
		 * row interchanges bring into the upper triangle. */
		f->kl = kl;
		f->ku = ku;
		f->ldab = 2 * kl + ku + 1;
		break;
	default:
		free(f);
		return NULL;
	}

	len = (size_t)f->ldab * (size_t)n;
	f->ab = mem_alloc(len * sizeof *f->ab);
	if (kind == LA_DENSE_GENERAL || kind == LA_BAND_GENERAL)
		f->ipiv = mem_alloc((size_t)n * sizeof *f->ipiv);
	if (!f->ab || ((kind == LA_DENSE_GENERAL || kind == LA_BAND_GENERAL)
	               && !f->ipiv)) {
		la_factor_free(f);
		return NULL;
	}
	return f;
}

int la_factor_order(struct la_factor *f, int n)
{
	if ((f->kind != LA_DENSE_SPD && f->kind != LA_DENSE_GENERAL) || n < 0 || n > f->cap)
		return -1;
	f->n = n;
	f->ldab = n > 0 ? n : 1;
	f->kl = f->ku = n > 0 ? n - 1 : 0;
	f->ok = 0;
	return 0;
}

void la_factor_free(struct la_factor *f)
{
	if (!f)
		return;
	free(f->ab);
	free(f->ipiv);
	free(f);
}

/* Copy the upper band of a into LAPACK's upper band layout for dpbtrf:
 * a_ij goes to ab[kd + i - j, j].  The upper triangle is the one read, as
 * for the dense SPD kind, so both SPD kinds see the same numbers. */
static void copy_band_spd(struct la_factor *f, const double *a)
{
	int n = f->n, kd = f->ku, ld = f->ldab;
	int i, j;

	for (j = 0; j < n; j++)
		for (i = imax(0, j - kd); i <= j; i++)
			f->ab[(size_t)(kd + i - j) + (size_t)j * ld] =
				a[(size_t)i + (size_t)j * n];
}

/* Copy the band of a into LAPACK's general band layout for dgbtrf: a_ij goes
 * to ab[kl + ku + i - j, j], below kl rows left for the fill-in.  Those rows
 * are cleared too, so a refactorization never starts from the previous
 * factor's leftovers. */
static void copy_band_general(struct la_factor *f, const double *a)
{
	int n = f->n, kl = f->kl, ku = f->ku, ld = f->ldab;
	int i, j;

	memset(f->ab, 0, (size_t)ld * (size_t)n * sizeof *f->ab);
	for (j = 0; j < n; j++)
		for (i = imax(0, j - ku); i <= imin(n - 1, j + kl); i++)
			f->ab[(size_t)(kl + ku + i - j) + (size_t)j * ld] =
				a[(size_t)i + (size_t)j * n];
}

/* Entries of a outside the factor's band are ignored: the caller chose the
 * band, normally with la_bandwidth. */
int la_factor(struct la_factor *f, const double *a)
{
	lapack_int n = f->n, info;

	switch (f->kind) {
	case LA_DENSE_SPD:
		memcpy(f->ab, a, (size_t)n * (size_t)n * sizeof *f->ab);
		info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, f->ab,
		                           f->ldab);
		break;
	case LA_DENSE_GENERAL:
		memcpy(f->ab, a, (size_t)n * (size_t)n * sizeof *f->ab);
		info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, f->ab,
		                           f->ldab, f->ipiv);
		break;
	case LA_BAND_SPD:
		copy_band_spd(f, a);
		info = LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'U', n, f->ku,
		                           f->ab, f->ldab);
		break;
	case LA_BAND_GENERAL:
		copy_band_general(f, a);
		info = LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, n, n, f->kl,
		                           f->ku, f->ab, f->ldab, f->ipiv);
		break;
	default:
		info = -1;      /* unreachable: la_factor_alloc checked kind */
		break;
	}
	f->ok = info == 0;
	return (int)info;
}

/* After a failed la_factor the storage holds a partial factorization, which
 * would give a finite but meaningless answer; b is filled with NaN instead,
 * so that a caller which ignored the failure sees it in its results. */
void la_solve(const struct la_factor *f, double *b)
{
	lapack_int n = f->n;
	int i;

	if (!f->ok) {
		for (i = 0; i < f->n; i++)
			b[i] = NAN;
		return;
	}
	/* With a valid factor and arguments fixed at allocation, the solve
	 * routines cannot fail: their info reports only bad arguments. */
	switch (f->kind) {
	case LA_DENSE_SPD:
		LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, 1, f->ab,
		                    f->ldab, b, n);
		break;
	case LA_DENSE_GENERAL:
		LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, f->ab,
		                    f->ldab, f->ipiv, b, n);
		break;
	case LA_BAND_SPD:
		LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'U', n, f->ku, 1, f->ab,
		                    f->ldab, b, n);
		break;
	case LA_BAND_GENERAL:
		LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, f->kl, f->ku, 1,
		                    f->ab, f->ldab, f->ipiv, b, n);
		break;
	}
}

/* Written as a != 0 so that a NaN counts as nonzero: a NaN outside the
 * chosen band would otherwise be dropped silently by the band copy. */
void la_bandwidth(int n, const double *a, int *kl, int *ku)
{
	int i, j, l = 0, u = 0;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			if (a[(size_t)i + (size_t)j * n] != 0.0) {
				if (i - j > l)
					l = i - j;
				if (j - i > u)
					u = j - i;
			}
	*kl = l;
	*ku = u;
}

double la_asymmetry(int n, const double *a)
{
	double big = 0.0, diff = 0.0, d;
	int i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++) {
			d = fabs(a[(size_t)i + (size_t)j * n]);
			if (d > big)
				big = d;
			if (i > j) {
				d = fabs(a[(size_t)i + (size_t)j * n]
				         - a[(size_t)j + (size_t)i * n]);
				if (d > diff)
					diff = d;
			}
		}
	/* The zero matrix is symmetric; avoid 0/0. */
	return big > 0.0 ? diff / big : 0.0;
}

/* An orthonormal basis Z (n × (n − nc), columns) of the null space of G
 * (nc × n, column-major), by Gram–Schmidt: the rows of G first, then the
 * unit vectors, keeping what is left of each.  Returns its dimension, or
 * −1 when the rows of G are dependent. */
int la_null_space(int n, int nc, const double *G, double *Z, double *Q, double *v)
{
	int nq = 0, nz = 0;
	for (int k = 0; k < nc + n; k++) {
		for (int i = 0; i < n; i++)
			v[i] = k < nc ? G[k + (size_t)i * nc] : (i == k - nc);
		double n0 = 0, nn = 0;
		for (int i = 0; i < n; i++)
			n0 += v[i] * v[i];
		for (int pass = 0; pass < 2; pass++)   /* twice is enough (Kahan) */
			for (int q = 0; q < nq + nz; q++) {
				const double *e = q < nq ? Q + (size_t)q * n : Z + (size_t)(q - nq) * n;
				double d = 0;
				for (int i = 0; i < n; i++)
					d += e[i] * v[i];
				for (int i = 0; i < n; i++)
					v[i] -= d * e[i];
			}
		for (int i = 0; i < n; i++)
			nn += v[i] * v[i];
		if (k < nc && !(nn > 1e-20 * n0))
			return -1;
		if (k >= nc && !(nn > 1e-2))
			continue;
		double *dst = k < nc ? Q + (size_t)nq++ * n : Z + (size_t)nz++ * n;
		for (int i = 0; i < n; i++)
			dst[i] = v[i] / sqrt(nn);
		if (nz == n - nc)
			break;
	}
	return nz;
}

/* B = Zᵀ A Z (r × r, leading dimension r) for a dense n × n A and the r
 * columns of Z (n × r); T is n × r room.  B may be A (T holds A Z before
 * B is written). */
void la_congruence(int n, int r, const double *Z, const double *A, double *T, double *B)
{
	for (int j = 0; j < r; j++)
		for (int i = 0; i < n; i++) {
			double s = 0;
			for (int l = 0; l < n; l++)
				s += A[i + (size_t)l * n] * Z[l + (size_t)j * n];
			T[i + (size_t)j * n] = s;
		}
	for (int j = 0; j < r; j++)
		for (int i = 0; i < r; i++) {
			double s = 0;
			for (int l = 0; l < n; l++)
				s += Z[l + (size_t)i * n] * T[l + (size_t)j * n];
			B[i + (size_t)j * r] = s;
		}
}

/* dsygvd overwrites both matrices, so it works on copies: k and m are the
 * caller's model matrices.  This runs once per analysis, so allocating the
 * copies here is fine. */
int la_sygv(int n, const double *k, const double *m, double *w, double *phi)
{
	size_t nn = (size_t)n * (size_t)n;
	double *a, *b;
	lapack_int info;
	int ret;

	if (n < 1)
		return n == 0 ? 0 : -1;
	a = mem_alloc(2 * nn * sizeof *a);
	if (!a)
		return -1;
	b = a + nn;
	memcpy(a, k, nn * sizeof *a);
	memcpy(b, m, nn * sizeof *b);

	/* itype 1 is K φ = λ M φ; the eigenvectors come back normalised so
	 * that φᵀ M φ = I. */
	info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, phi ? 'V' : 'N', 'U', n,
	                      a, n, b, n, w);
	if (info == 0) {
		if (phi)
			memcpy(phi, a, nn * sizeof *phi);
		ret = 0;
	} else if (info > n) {
		/* info = n + k means M's Cholesky failed at pivot k, but with
		 * jobz 'V' dsyevd's own failure code (from dstedc) can also
		 * exceed n.  Factor M again to tell the two apart; this is
		 * the failure path only, so the extra cost does not matter. */
		memcpy(b, m, nn * sizeof *b);
		info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, b, n);
		ret = info > 0 ? (int)info : -1;
	} else {
		/* 1..n: the eigenvalue iteration did not converge.  Negative:
		 * a NaN in k or m (LAPACKE's check) or no memory for the
		 * workspace. */
		ret = -1;
	}
	free(a);
	return ret;
}

/* The pencil's eigenpairs, each eigenvalue as accurate as the pencil
 * allows it.  dsygvd (la_sygv) gives every eigenvalue within a few ε of
 * the largest: |δλ| ≈ ε λ_max, which leaves the first mode of a Hermite
 * cantilever of 200 cells (ω² = 12.4 beside 1e12) 2e-5 off in ω, worse
 * as the mesh is refined.  The inverted pencil M φ = μ (K + σM) φ,
 * μ = 1/(λ + σ), has the lowest λ as its largest μ, each within a few ε
 * of μ_max: the low modes to ε of themselves (ε λ/λ_min for the others).
 * σ = 0 when K is positive definite (its Cholesky factor exists), else
 * 1e-8 of the largest K_ii/M_ii (rigid-body modes: K + σM is definite,
 * and λ = 1/μ − σ keeps them within ε σ of 0).  Above the spectrum's
 * geometric middle, sqrt((λ_min + σ)(λ_max + σ)), the direct pencil is
 * the more accurate (ε λ_max/λ against ε λ/λ_min): when the spectrum
 * spans more than 1e4 and the caller wants modes there (nwant: the
 * lowest nwant are read; n for all), those come from la_sygv, the two
 * parts joined near the middle where the spectrum has a wide relative
 * gap: the shapes of either part are accurate to about
 * ε sqrt(λ_max/λ_min)/gap there, so that a wide gap keeps the two parts
 * M-orthogonal, while a join off the middle by a factor f makes the
 * eigenvalues between f times less accurate (the gap over f is the
 * score).  When K + σM is not definite either (an
 * unstable model), la_sygv alone.  Returns as la_sygv. */
int la_sygv_low(int n, int nwant, const double *k, const double *m, double *w, double *phi)
{
	if (n < 2)
		return la_sygv(n, k, m, w, phi);
	size_t nn = (size_t)n * (size_t)n;
	double scale = 0;
	for (int i = 0; i < n; i++) {
		double mi = m[i + (size_t)i * n], ki = k[i + (size_t)i * n];
		if (mi > 0 && ki / mi > scale)
			scale = ki / mi;
	}
	double *a = mem_alloc(2 * nn * sizeof *a + (size_t)n * sizeof *a);
	if (!a)
		return -1;
	double *b = a + nn, *mu = b + nn, sigma = 0;
	lapack_int info = 1;
	for (int attempt = 0; attempt < 2 && info != 0; attempt++) {
		sigma = attempt == 0 ? 0 : 1e-8 * (scale > 0 ? scale : 1);
		memcpy(a, m, nn * sizeof *a);
		for (size_t e = 0; e < nn; e++)
			b[e] = k[e] + sigma * m[e];
		info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, phi ? 'V' : 'N', 'U', n, a, n, b, n, mu);
		if (info != 0 && info <= n)
			break;   /* the iteration failed, not K + σM's factor */
	}
	/* μ > 0 for M definite: M singular or K + σM not definite: the
	 * direct pencil, which names the mass's pivot */
	if (info != 0 || !(mu[0] > 0)) {
		free(a);
		return la_sygv(n, k, m, w, phi);
	}
	/* λ ascending: μ descending; φᵀ M φ = μ φᵀ (K + σM) φ = μ */
	for (int j = 0; j < n; j++) {
		double mj = mu[n - 1 - j];
		w[j] = 1 / mj - sigma;
		if (phi) {
			const double *x = a + (size_t)(n - 1 - j) * n;
			double c = 1 / sqrt(mj);
			for (int i = 0; i < n; i++)
				phi[i + (size_t)j * n] = c * x[i];
		}
	}
	/* a zero eigenvalue (a rigid-body mode) comes back as 1/μ − σ, the
	 * rounding of σ: 0 within it.  With no stiffness at all, σ is all
	 * there is, and a free body's ω² = −1.7e-24 was an unstable mode */
	for (int j = 0; j < n && sigma > 0; j++)
		if (fabs(w[j]) <= 64 * DBL_EPSILON * sigma)
			w[j] = 0;
	double lo = 1 / mu[n - 1], hi = 1 / mu[0];
	free(a);
	if (hi <= 1e4 * lo)
		return 0;
	/* the upper part from the direct pencil, joined between neighbours
	 * whose shifted values lie within a factor 100 of the middle: where
	 * their relative gap is widest against the rounding that a join
	 * away from the middle adds, by the factor it lies off it */
	double mid = sqrt(lo * hi), best = -1;
	int up = n;
	for (int j = 1; j < n; j++) {
		double a = w[j - 1] + sigma, b = w[j] + sigma;
		if (b < mid / 100 || a > mid * 100)
			continue;
		double at = sqrt(a * b), off = at > mid ? at / mid : mid / at;
		double score = (b - a) / b / off;
		if (score > best) {
			best = score;
			up = j;
		}
	}
	if (up >= nwant)
		return 0;
	double *w2 = mem_alloc((size_t)n * sizeof *w2), *p2 = phi ? mem_alloc(nn * sizeof *p2) : NULL;
	int rc = (!w2 || (phi && !p2)) ? -1 : la_sygv(n, k, m, w2, p2);
	if (rc == 0) {
		memcpy(w + up, w2 + up, (size_t)(n - up) * sizeof *w);
		if (phi)
			memcpy(phi + (size_t)up * n, p2 + (size_t)up * n, (size_t)(n - up) * (size_t)n * sizeof *phi);
	}
	free(w2);
	free(p2);
	return rc;
}

/* y must not overlap x: y is cleared before x has been read in full. */
void la_gemv(int n, const double *a, const double *x, double *y)
{
	int i, j;
	double xj;

	for (i = 0; i < n; i++)
		y[i] = 0.0;
	/* Column by column, to walk a in memory order. */
	for (j = 0; j < n; j++) {
		xj = x[j];
		for (i = 0; i < n; i++)
			y[i] += a[(size_t)i + (size_t)j * n] * xj;
	}
}

double la_quad(int n, const double *a, const double *x, const double *y)
{
	double sum = 0.0, col;
	int i, j;

	/* xᵀ A y = Σ_j y_j (xᵀ a_j), again column by column. */
	for (j = 0; j < n; j++) {
		col = 0.0;
		for (i = 0; i < n; i++)
			col += x[i] * a[(size_t)i + (size_t)j * n];
		sum += col * y[j];
	}
	return sum;
}

void la_gemv_band(int n, int kl, int ku, const double *a, const double *x, double *y)
{
	for (int i = 0; i < n; i++)
		y[i] = 0;
	for (int j = 0; j < n; j++) {
		double xj = x[j];
		if (xj == 0)
			continue;
		int lo = j - ku < 0 ? 0 : j - ku, hi = j + kl >= n ? n - 1 : j + kl;
		const double *col = a + (size_t)j * (size_t)n;
		for (int i = lo; i <= hi; i++)
			y[i] += col[i] * xj;
	}
}
