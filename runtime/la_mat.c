/* la_mat.c — the matrix layer of la.h: struct la_mat in its three storages,
 * products and linear combinations, the compressed-column builder and the
 * reverse Cuthill-McKee ordering the backends share, and struct la_solver,
 * which dispatches to a backend's ops table (runtime/la_impl.h).
 *
 * Storage follows the structure: a small matrix is dense (LAPACK's own
 * layout), a banded one keeps its diagonals in LAPACK's band layout so that
 * products cost O(n (kl + ku)), anything else is compressed columns (the
 * layout of CHOLMOD and UMFPACK).  The backend of a factorization is a
 * separate choice (la_backend_choose): a compressed matrix whose bandwidth
 * is small after reordering is still factored by LAPACK's band routines. */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "la.h"
#include "la_impl.h"
#include "mem.h"

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

int la_mat_band_pays(int n, int kl, int ku)
{
	/* A band slot costs a double; a compressed entry a double and an int.
	 * Past a quarter of the matrix the band is mostly padding. */
	return kl + ku + 1 <= 64 && 4 * (kl + ku + 1) <= n;
}

static enum la_mat_kind auto_kind(int n, int kl, int ku)
{
	if (n <= LA_SMALL_N)
		return LA_MAT_DENSE;
	return la_mat_band_pays(n, kl, ku) ? LA_MAT_BAND : LA_MAT_CSC;
}

void la_mat_free(struct la_mat *A)
{
	if (!A)
		return;
	free(A->x);
	free(A->p);
	free(A->i);
	free(A->slots);
	free(A->pcount);
	free(A->pdispl);
	memset(A, 0, sizeof *A);
}

/* The column stride of a band's x: kl + ku + 1, or 2 packed (la.h). */
static size_t band_ld(const struct la_mat *A)
{
	return A->packed ? 2 : (size_t)(A->kl + A->ku + 1);
}

/* Index of a_ij in x for the band kind (no bound check). */
static size_t band_at(const struct la_mat *A, int i, int j)
{
	return (size_t)(A->ku + i - j) + (size_t)j * band_ld(A);
}

/* Slot of a_ij in a CSC matrix, or -1 (binary search in column j). */
static ptrdiff_t csc_find(const struct la_mat *A, int i, int j)
{
	int lo = A->p[j], hi = A->p[j + 1] - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (A->i[mid] == i)
			return mid;
		if (A->i[mid] < i)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

double la_mat_get(const struct la_mat *A, int i, int j)
{
	switch (A->kind) {
	case LA_MAT_DENSE:
		return A->x[(size_t)i + (size_t)j * (size_t)A->n];
	case LA_MAT_BAND:
		return i - j > A->kl || j - i > A->ku ? 0 : A->x[band_at(A, i, j)];
	case LA_MAT_CSC: {
		ptrdiff_t k = csc_find(A, i, j);
		return k < 0 ? 0 : A->x[k];
	}
	default:
		return 0;
	}
}

ptrdiff_t la_mat_slot(const struct la_mat *A, int i, int j)
{
	if (i < 0 || j < 0 || i >= A->n || j >= A->n)
		return -1;
	if (A->packed)
		abort();   /* a slot is two entries: nothing assembles into it (la.h) */
	switch (A->kind) {
	case LA_MAT_DENSE:
		return (ptrdiff_t)((size_t)i + (size_t)j * (size_t)A->n);
	case LA_MAT_BAND:
		return i - j > A->kl || j - i > A->ku ? -1 : (ptrdiff_t)band_at(A, i, j);
	case LA_MAT_CSC:
		return csc_find(A, i, j);
	default:
		return -1;
	}
}

/* Exact symmetry of the values, a_ij == a_ji for every stored entry. */
static int is_symmetric(const struct la_mat *A)
{
	int n = A->n;
	if (A->kind == LA_MAT_CSC) {
		for (int j = 0; j < n; j++)
			for (int k = A->p[j]; k < A->p[j + 1]; k++)
				if (A->x[k] != la_mat_get(A, j, A->i[k]))
					return 0;
		return 1;
	}
	int b = imax(A->kl, A->ku);
	for (int j = 0; j < n; j++)
		for (int i = imax(0, j - b); i < j; i++)
			if (la_mat_get(A, i, j) != la_mat_get(A, j, i))
				return 0;
	return 1;
}

int la_csc_build(int n, size_t ne, const int *row, const int *col, int upper, int **pp, int **ixp, int *map)
{
	/* A two-pass counting sort: by row, then stably by column, gives the
	 * entries (the n diagonal ones included, numbered ne..ne+n-1) in
	 * column-major order in O(ne + n), whatever their number. */
	size_t tot = ne + (size_t)n, kept = 0;
	/* the sort's indices in 32 bits: half the memory of size_t, at the
	 * peak of a large model's setup (beyond 4·10⁹ entries the matrix
	 * would not fit anyway: refused as out of memory) */
	*pp = NULL;
	*ixp = NULL;
	if (tot >= UINT32_MAX)
		return -1;
	uint32_t *cnt = mem_calloc((size_t)n + 1, sizeof *cnt);
	uint32_t *a = mem_alloc(tot * sizeof *a), *b = mem_alloc(tot * sizeof *b);
	int *p = mem_calloc((size_t)n + 1, sizeof *p), *ix = NULL;
	int rc = -1;
	if (!cnt || !a || !b || !p)
		goto out;
#define ROW(e) ((e) < ne ? row[e] : (int)((e) - ne))
#define COL(e) ((e) < ne ? col[e] : (int)((e) - ne))
	for (size_t e = 0; e < tot; e++) {
		int r = ROW(e);
		if (r < 0 || (upper && r > COL(e)))
			continue;
		a[kept++] = (uint32_t)e;
		cnt[r + 1]++;
	}
	for (int r = 0; r < n; r++)
		cnt[r + 1] += cnt[r];
	for (size_t k = 0; k < kept; k++)
		b[cnt[ROW(a[k])]++] = a[k];
	memset(cnt, 0, ((size_t)n + 1) * sizeof *cnt);
	for (size_t k = 0; k < kept; k++)
		cnt[COL(b[k]) + 1]++;
	for (int c = 0; c < n; c++)
		cnt[c + 1] += cnt[c];
	for (size_t k = 0; k < kept; k++)
		a[cnt[COL(b[k])]++] = b[k];
	free(b);
	free(cnt);
	b = NULL;
	cnt = NULL;
	/* a: column-major, rows ascending.  Merge duplicates. */
	size_t nnz = 0;
	for (size_t k = 0; k < kept; k++)
		if (k == 0 || COL(a[k]) != COL(a[k - 1]) || ROW(a[k]) != ROW(a[k - 1]))
			nnz++;
	if (nnz > INT32_MAX)
		goto out;
	ix = mem_alloc((nnz + 1) * sizeof *ix);
	if (!ix)
		goto out;
	if (map)
		for (size_t e = 0; e < ne; e++)
			map[e] = -1;
	ptrdiff_t s = -1;
	for (size_t k = 0; k < kept; k++) {
		size_t e = a[k];
		if (k == 0 || COL(e) != COL(a[k - 1]) || ROW(e) != ROW(a[k - 1])) {
			ix[++s] = ROW(e);
			p[COL(e) + 1]++;
		}
		if (map && e < ne)
			map[e] = (int)s;
	}
#undef ROW
#undef COL
	for (int c = 0; c < n; c++)
		p[c + 1] += p[c];
	*pp = p;
	*ixp = ix;
	p = NULL;
	rc = 0;
out:
	free(cnt);
	free(a);
	free(b);
	free(p);
	return rc;
}

/* Fill in the bandwidths of a CSC matrix. */
static void csc_band(struct la_mat *A)
{
	A->kl = A->ku = 0;
	for (int j = 0; j < A->n; j++)
		for (int k = A->p[j]; k < A->p[j + 1]; k++) {
			A->kl = imax(A->kl, A->i[k] - j);
			A->ku = imax(A->ku, j - A->i[k]);
		}
}

static int csc_to_kind(struct la_mat *A, enum la_mat_kind kind);

/* Storage for kind (not AUTO) with the bandwidths already in A. */
static int alloc_kind(struct la_mat *A, enum la_mat_kind kind)
{
	int n = A->n;
	A->kind = kind;
	if (kind == LA_MAT_DENSE)
		A->nx = (size_t)n * (size_t)n;
	else
		A->nx = (size_t)(A->kl + A->ku + 1) * (size_t)n;
	A->x = mem_calloc(A->nx + 1, sizeof *A->x);
	return A->x ? 0 : -1;
}

int la_mat_triplets(struct la_mat *A, enum la_mat_kind kind, int n, size_t nnz, const int *row, const int *col,
                    const double *val)
{
	memset(A, 0, sizeof *A);
	A->n = n;
	for (size_t k = 0; k < nnz; k++)
		if (row[k] < 0 || row[k] >= n || col[k] < 0 || col[k] >= n)
			return -2;
	/* The bandwidths of the pattern; a dense or banded A is filled
	 * from the triplets directly, duplicates summed in their order (the
	 * bits of the compressed columns' sums, without their arrays and
	 * sort: a chain's operators at 10⁶ dofs held 60 MB more at setup) */
	int kl = 0, ku = 0;
	for (size_t k = 0; k < nnz; k++) {
		kl = imax(kl, row[k] - col[k]);
		ku = imax(ku, col[k] - row[k]);
	}
	enum la_mat_kind direct = kind == LA_MAT_AUTO ? auto_kind(n, kl, ku) : kind;
	if (direct == LA_MAT_DENSE || direct == LA_MAT_BAND) {
		A->kl = direct == LA_MAT_DENSE ? n - 1 : kl;
		A->ku = direct == LA_MAT_DENSE ? n - 1 : ku;
		if (alloc_kind(A, direct))
			return -1;
		A->kl = kl;
		A->ku = ku;
		for (size_t k = 0; k < nnz; k++)
			A->x[direct == LA_MAT_DENSE ? (size_t)row[k] + (size_t)col[k] * n : band_at(A, row[k], col[k])] += val[k];
		A->sym = is_symmetric(A);
		return 0;
	}
	/* Compressed columns: they sum the duplicates. */
	int *map = mem_alloc((nnz + 1) * sizeof *map);
	if (!map || la_csc_build(n, nnz, row, col, 0, &A->p, &A->i, map)) {
		free(map);
		return -1;
	}
	A->kind = LA_MAT_CSC;
	A->nx = (size_t)A->p[n];
	A->x = mem_calloc(A->nx + 1, sizeof *A->x);
	if (!A->x) {
		free(map);
		return -1;
	}
	for (size_t k = 0; k < nnz; k++)
		A->x[map[k]] += val[k];
	free(map);
	return csc_to_kind(A, kind);
}

/* la_mat_entries' passes: the band and the count of the entries (bad:
 * an index outside 0..n-1), their values summed in place, or written out
 * as triplets. */
struct entry_scan {
	int n, kl, ku, bad;
	size_t nnz;
};

static void scan_entry(void *acc, int i, int j, double v)
{
	struct entry_scan *s = acc;
	(void)v;
	if (i < 0 || i >= s->n || j < 0 || j >= s->n)
		s->bad = 1;
	s->kl = imax(s->kl, i - j);
	s->ku = imax(s->ku, j - i);
	s->nnz++;
}

static void dense_entry(void *acc, int i, int j, double v)
{
	struct la_mat *A = acc;
	A->x[(size_t)i + (size_t)j * (size_t)A->n] += v;
}

static void band_entry(void *acc, int i, int j, double v)
{
	struct la_mat *A = acc;
	A->x[band_at(A, i, j)] += v;
}

struct entry_trip {
	int *row, *col;
	double *val;
	size_t k;
};

static void trip_entry(void *acc, int i, int j, double v)
{
	struct entry_trip *t = acc;
	t->row[t->k] = i;
	t->col[t->k] = j;
	t->val[t->k++] = v;
}

int la_mat_entries(struct la_mat *A, enum la_mat_kind kind, int n,
                   void (*each)(const void *src, la_entry_fn *add, void *acc), const void *src)
{
	memset(A, 0, sizeof *A);
	A->n = n;
	struct entry_scan s = { n, 0, 0, 0, 0 };
	each(src, scan_entry, &s);
	if (s.bad)
		return -2;
	/* as la_mat_triplets: dense or banded filled in the entries' order */
	enum la_mat_kind direct = kind == LA_MAT_AUTO ? auto_kind(n, s.kl, s.ku) : kind;
	if (direct == LA_MAT_DENSE || direct == LA_MAT_BAND) {
		A->kl = direct == LA_MAT_DENSE ? n - 1 : s.kl;
		A->ku = direct == LA_MAT_DENSE ? n - 1 : s.ku;
		if (alloc_kind(A, direct))
			return -1;
		A->kl = s.kl;
		A->ku = s.ku;
		each(src, direct == LA_MAT_DENSE ? dense_entry : band_entry, A);
		A->sym = is_symmetric(A);
		return 0;
	}
	struct entry_trip t = { mem_alloc((s.nnz + 1) * sizeof *t.row), mem_alloc((s.nnz + 1) * sizeof *t.col),
	                        mem_alloc((s.nnz + 1) * sizeof *t.val), 0 };
	int rc = -1;
	if (t.row && t.col && t.val) {
		each(src, trip_entry, &t);
		rc = la_mat_triplets(A, kind, n, t.k, t.row, t.col, t.val);
	}
	free(t.row);
	free(t.col);
	free(t.val);
	return rc;
}

int la_mat_csc_entries(struct la_mat *A, enum la_mat_kind kind, int n, size_t nnz, const int *row, const int *col,
                       const double *val)
{
	memset(A, 0, sizeof *A);
	A->n = n;
	for (size_t k = 0; k < nnz; k++)
		if (row[k] < 0 || row[k] >= n || col[k] < 0 || col[k] >= n ||
		    (k > 0 && (col[k] < col[k - 1] || (col[k] == col[k - 1] && row[k] <= row[k - 1]))))
			return -2;
	A->kind = LA_MAT_CSC;
	A->nx = nnz;
	A->p = mem_calloc((size_t)n + 1, sizeof *A->p);
	A->i = mem_alloc((nnz + 1) * sizeof *A->i);
	A->x = mem_alloc((nnz + 1) * sizeof *A->x);
	if (!A->p || !A->i || !A->x)
		return -1;
	for (size_t k = 0; k < nnz; k++)
		A->p[col[k] + 1]++;
	for (int j = 0; j < n; j++)
		A->p[j + 1] += A->p[j];
	memcpy(A->i, row, nnz * sizeof *A->i);
	memcpy(A->x, val, nnz * sizeof *A->x);
	return csc_to_kind(A, kind);
}

int la_mat_csc_adopt(struct la_mat *A, enum la_mat_kind kind, int n, size_t nnz, int *row, const int *col,
                     double *val)
{
	memset(A, 0, sizeof *A);
	A->n = n;
	for (size_t k = 0; k < nnz; k++)
		if (row[k] < 0 || row[k] >= n || col[k] < 0 || col[k] >= n ||
		    (k > 0 && (col[k] < col[k - 1] || (col[k] == col[k - 1] && row[k] <= row[k - 1])))) {
			free(row);
			free(val);
			return -2;
		}
	A->kind = LA_MAT_CSC;
	A->nx = nnz;
	A->i = row;
	A->x = val;
	A->p = mem_calloc((size_t)n + 1, sizeof *A->p);
	if (!A->p)
		return -1;
	for (size_t k = 0; k < nnz; k++)
		A->p[col[k] + 1]++;
	for (int j = 0; j < n; j++)
		A->p[j + 1] += A->p[j];
	return csc_to_kind(A, kind);
}

/* A, in compressed columns, to kind (AUTO: from its band), its
 * bandwidths and symmetry found. */
static int csc_to_kind(struct la_mat *A, enum la_mat_kind kind)
{
	int n = A->n;
	csc_band(A);
	if (kind == LA_MAT_AUTO)
		kind = auto_kind(n, A->kl, A->ku);
	if (kind != LA_MAT_CSC) {
		struct la_mat B = *A;
		memset(A, 0, sizeof *A);
		A->n = n;
		A->kl = kind == LA_MAT_DENSE ? n - 1 : B.kl;
		A->ku = kind == LA_MAT_DENSE ? n - 1 : B.ku;
		if (alloc_kind(A, kind)) {
			la_mat_free(&B);
			return -1;
		}
		for (int j = 0; j < n; j++)
			for (int k = B.p[j]; k < B.p[j + 1]; k++)
				A->x[kind == LA_MAT_DENSE ? (size_t)B.i[k] + (size_t)j * n : band_at(A, B.i[k], j)] = B.x[k];
		if (kind == LA_MAT_DENSE) {
			A->kl = B.kl;
			A->ku = B.ku;
		}
		la_mat_free(&B);
	}
	A->sym = is_symmetric(A);
	return 0;
}

int la_mat_from_dense(struct la_mat *A, enum la_mat_kind kind, int n, const double *a)
{
	size_t nnz = 0, k = 0;
	for (size_t q = 0; q < (size_t)n * (size_t)n; q++)
		nnz += a[q] != 0;   /* a NaN counts: it must not be dropped */
	int *row = mem_alloc((nnz + 1) * sizeof *row), *col = mem_alloc((nnz + 1) * sizeof *col);
	double *val = mem_alloc((nnz + 1) * sizeof *val);
	int rc = -1;
	if (row && col && val) {
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				double v = a[(size_t)i + (size_t)j * n];
				if (v != 0) {
					row[k] = i;
					col[k] = j;
					val[k++] = v;
				}
			}
		rc = la_mat_triplets(A, kind, n, nnz, row, col, val);
	} else {
		memset(A, 0, sizeof *A);
	}
	free(row);
	free(col);
	free(val);
	return rc;
}

int la_mat_resize(struct la_mat *D, const struct la_mat *A, int N, enum la_mat_kind kind)
{
	int *row, *col;
	memset(D, 0, sizeof *D);
	if (la_entries(A, &row, &col))
		return -1;
	/* compact away a band's padding: triplets must be in range */
	size_t k = 0;
	double *val = mem_alloc((A->nx + 1) * sizeof *val);
	if (!val) {
		free(row);
		free(col);
		return -1;
	}
	for (size_t e = 0; e < A->nx; e++)
		if (row[e] >= 0) {
			row[k] = row[e];
			col[k] = col[e];
			val[k++] = A->x[e];
		}
	int rc = la_mat_triplets(D, kind, N, k, row, col, val);
	free(row);
	free(col);
	free(val);
	return rc;
}

void la_mat_pattern(const struct la_mat *A, int *row, int *col)
{
	int n = A->n;
	size_t k = 0;
	switch (A->kind) {
	case LA_MAT_DENSE:
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++, k++) {
				row[k] = i;
				col[k] = j;
			}
		break;
	case LA_MAT_BAND:
		/* packed: a slot is two entries, no pattern to give (la.h) */
		if (A->packed)
			abort();
		for (int j = 0; j < n; j++)
			for (int d = -A->ku; d <= A->kl; d++, k++) {
				int i = j + d;
				row[k] = i >= 0 && i < n ? i : -1;
				col[k] = j;
			}
		break;
	case LA_MAT_CSC:
		for (int j = 0; j < n; j++)
			for (int q = A->p[j]; q < A->p[j + 1]; q++, k++) {
				row[k] = A->i[q];
				col[k] = j;
			}
		break;
	default:
		break;
	}
}

int la_entries(const struct la_mat *A, int **row, int **col)
{
	*row = mem_alloc((A->nx + 1) * sizeof **row);
	*col = mem_alloc((A->nx + 1) * sizeof **col);
	if (!*row || !*col) {
		free(*row);
		free(*col);
		*row = *col = NULL;
		return -1;
	}
	la_mat_pattern(A, *row, *col);
	return 0;
}

int la_mat_diagonal(const struct la_mat *A, double *d)
{
	int *row, *col;
	if (la_entries(A, &row, &col))
		return -1;
	int diag = 1;
	memset(d, 0, sizeof *d * (size_t)A->n);
	for (size_t e = 0; e < A->nx && diag; e++)
		if (row[e] < 0)
			continue;   /* a band's padding */
		else if (row[e] == col[e])
			d[row[e]] += A->x[e];
		else if (A->x[e] != 0)
			diag = 0;
	free(row);
	free(col);
	return diag;
}

void la_entries_in_band(const struct la_mat *A, int *row, const int *col)
{
	if (A->kind != LA_MAT_DENSE)
		return;
	for (size_t e = 0; e < A->nx; e++)
		if (row[e] >= 0 && (row[e] - col[e] > A->kl || col[e] - row[e] > A->ku))
			row[e] = -1;
}

void la_mat_muladd(const struct la_mat *A, double alpha, const double *x, double *y)
{
	int n = A->n;
	switch (A->kind) {
	case LA_MAT_DENSE:
		/* within the pattern's band: a banded matrix held dense (a
		 * small chain) costs O(n (kl + ku)), not n² */
		for (int j = 0; j < n; j++) {
			double xj = alpha * x[j];
			const double *c = A->x + (size_t)j * n;
			for (int i = imax(0, j - A->ku), hi = imin(n - 1, j + A->kl); i <= hi; i++)
				y[i] += c[i] * xj;
		}
		break;
	case LA_MAT_BAND: {
		size_t ld = band_ld(A);
		for (int j = 0; j < n; j++) {
			double xj = alpha * x[j];
			const double *c = A->x + (size_t)j * ld + A->ku - j;
			for (int i = imax(0, j - A->ku), hi = imin(n - 1, j + A->kl); i <= hi; i++)
				y[i] += c[i] * xj;
		}
		break;
	}
	case LA_MAT_CSC:
		for (int j = 0; j < n; j++) {
			double xj = alpha * x[j];
			for (int k = A->p[j]; k < A->p[j + 1]; k++)
				y[A->i[k]] += A->x[k] * xj;
		}
		break;
	default:
		break;
	}
}

/* (A x)_i for the dense and band kinds, row by row: the terms a_ij x_j
 * added in ascending j from 0, the order in which la_mat_muladd's column
 * sweep adds them into a zeroed y, so that both give the same bits; each
 * y_i is written once, without a zeroing pass (a step's products are
 * memory-bound on large chains).  sub: y_i −= (A x)_i instead, the bits
 * of y − (A x) formed in a scratch vector. */
static void gather(const struct la_mat *A, const double *x, double *y, int sub, int i0, int i1)
{
	int n = A->n, kl = A->kl, ku = A->ku;
	/* a_ij at x[off + i + j step]: step n − 1 for dense (i + j n), ld − 1
	 * for band (ku + i − j + j ld) */
	size_t off = A->kind == LA_MAT_DENSE ? 0 : (size_t)ku;
	size_t step = A->kind == LA_MAT_DENSE ? (size_t)n + 1 : band_ld(A);
	const double *a = A->x + off;
	size_t sj = step - 1;
	for (int i = i0; i < i1; i++) {
		double s = 0;
		/* a_ij = a[i + j (step − 1)] */
		const double *r = a + i;
		if (kl == 1 && ku == 1 && i > 0 && i < n - 1) {
			/* a chain's rows, unrolled */
			s += r[(size_t)(i - 1) * sj] * x[i - 1];
			s += r[(size_t)i * sj] * x[i];
			s += r[(size_t)(i + 1) * sj] * x[i + 1];
		} else
			for (int j = imax(0, i - kl), hi = imin(n - 1, i + ku); j <= hi; j++)
				s += r[(size_t)j * sj] * x[j];
		if (sub)
			y[i] -= s;
		else
			y[i] = s;
	}
}

/* A part's (la.h) rows j of this process, (A x)_j = Σ_i a_ij x_i down
 * column j (a_ij = a_ji): the terms in ascending i, la_mat_mul's order
 * for row j of the whole matrix, then every process's rows */
static void part_mul(const struct la_mat *A, const double *x, double *y)
{
	for (int j = A->c0; j < A->c1; j++) {
		double s = 0;
		for (int k = A->p[j]; k < A->p[j + 1]; k++)
			s += A->x[k] * x[A->i[k]];
		y[j] = s;
	}
	if (la_mpi_gather(y, A->pcount, A->pdispl))
		for (int j = 0; j < A->n; j++)
			y[j] = NAN;
}

/* xᵀ A y of a part: the columns' xᵀ a_j gathered, then summed in
 * ascending j as la_mat_dot sums them */
static double part_dot(const struct la_mat *A, const double *x, const double *y)
{
	double *c = mem_alloc(sizeof *c * ((size_t)A->n + 1));
	if (!c)
		return NAN;
	for (int j = A->c0; j < A->c1; j++) {
		double cj = 0;
		for (int k = A->p[j]; k < A->p[j + 1]; k++)
			cj += x[A->i[k]] * A->x[k];
		c[j] = cj;
	}
	double s = NAN;
	if (la_mpi_gather(c, A->pcount, A->pdispl) == 0) {
		s = 0;
		for (int j = 0; j < A->n; j++)
			s += c[j] * y[j];
	}
	free(c);
	return s;
}

int la_mat_part_set(struct la_mat *A, int c0, int c1)
{
	int P = la_mpi_size(), n = A->n, rc = -1;
	int *cnt = mem_alloc(sizeof(int) * (size_t)P), *dsp = mem_alloc(sizeof(int) * (size_t)P);
	double *r = mem_alloc(sizeof(double) * 2 * (size_t)P);
	if (A->kind != LA_MAT_CSC || !cnt || !dsp || !r)
		goto out;
	for (int q = 0; q < P; q++) {
		cnt[q] = 2;
		dsp[q] = 2 * q;
	}
	r[2 * la_mpi_rank()] = c0;
	r[2 * la_mpi_rank() + 1] = c1;
	if (la_mpi_gather(r, cnt, dsp))
		goto out;
	for (int q = 0; q < P; q++) {
		dsp[q] = (int)r[2 * q];
		cnt[q] = (int)r[2 * q + 1] - dsp[q];
		if (cnt[q] < 0 || dsp[q] != (q ? dsp[q - 1] + cnt[q - 1] : 0))
			goto out;
	}
	if (dsp[P - 1] + cnt[P - 1] != n)
		goto out;
	A->part = 1;
	A->c0 = c0;
	A->c1 = c1;
	A->sym = 1;
	A->pcount = cnt;
	A->pdispl = dsp;
	cnt = dsp = NULL;
	rc = 0;
out:
	free(cnt);
	free(dsp);
	free(r);
	return rc;
}

/* the processes' ranges of part B, for A */
static int part_copy(struct la_mat *A, const struct la_mat *B)
{
	int P = la_mpi_size();
	if (A == B)
		return 0;
	int *cnt = mem_alloc(sizeof(int) * (size_t)P), *dsp = mem_alloc(sizeof(int) * (size_t)P);
	if (!cnt || !dsp) {
		free(cnt);
		free(dsp);
		return -1;
	}
	memcpy(cnt, B->pcount, sizeof(int) * (size_t)P);
	memcpy(dsp, B->pdispl, sizeof(int) * (size_t)P);
	free(A->pcount);
	free(A->pdispl);
	A->part = 1;
	A->c0 = B->c0;
	A->c1 = B->c1;
	A->sym = 1;
	A->pcount = cnt;
	A->pdispl = dsp;
	return 0;
}

int la_mat_part_restrict(struct la_mat *A, const struct la_mat *like)
{
	int n = A->n, c0 = like->c0, c1 = like->c1;
	if (A->kind != LA_MAT_CSC || !like->part || like->n != n)
		return -1;
	size_t nnz = (size_t)(A->p[c1] - A->p[c0]);
	int *p = mem_calloc((size_t)n + 1, sizeof *p), *i = mem_alloc(sizeof *i * (nnz + 1));
	double *x = mem_alloc(sizeof *x * (nnz + 1));
	if (!p || !i || !x) {
		free(p);
		free(i);
		free(x);
		return -1;
	}
	memcpy(i, A->i + A->p[c0], sizeof *i * nnz);
	memcpy(x, A->x + A->p[c0], sizeof *x * nnz);
	for (int j = 0; j <= n; j++)
		p[j] = j <= c0 ? 0 : j >= c1 ? (int)nnz : A->p[j] - A->p[c0];
	if (part_copy(A, like)) {
		free(p);
		free(i);
		free(x);
		return -1;
	}
	free(A->p);
	free(A->i);
	free(A->x);
	A->p = p;
	A->i = i;
	A->x = x;
	A->nx = nnz;
	return 0;
}

int la_mat_part_complete(struct la_mat *A, enum la_mat_kind kind)
{
	int n = A->n, P = la_mpi_size();
	int *p = mem_calloc((size_t)n + 1, sizeof *p), *cnt = mem_alloc(sizeof(int) * (size_t)P),
	    *dsp = mem_alloc(sizeof(int) * (size_t)P), *i = NULL;
	double *w = mem_alloc(sizeof *w * ((size_t)n + 1)), *x = NULL;
	if (!p || !cnt || !dsp || !w)
		goto fail;
	/* the columns' lengths, then their rows and values, from their owners */
	for (int j = A->c0; j < A->c1; j++)
		w[j] = A->p[j + 1] - A->p[j];
	if (la_mpi_gather(w, A->pcount, A->pdispl))
		goto fail;
	for (int j = 0; j < n; j++)
		p[j + 1] = p[j] + (int)w[j];
	size_t nnz = (size_t)p[n];
	free(w);
	w = mem_alloc(sizeof *w * (nnz + 1));
	i = mem_alloc(sizeof *i * (nnz + 1));
	x = mem_alloc(sizeof *x * (nnz + 1));
	if (!w || !i || !x)
		goto fail;
	for (int q = 0; q < P; q++) {
		dsp[q] = p[A->pdispl[q]];
		cnt[q] = p[A->pdispl[q] + A->pcount[q]] - dsp[q];
	}
	for (int j = A->c0; j < A->c1; j++)
		for (int k = A->p[j], e = p[j]; k < A->p[j + 1]; k++, e++) {
			w[e] = A->i[k];
			x[e] = A->x[k];
		}
	if (la_mpi_gather(w, cnt, dsp) || la_mpi_gather(x, cnt, dsp))
		goto fail;
	for (size_t e = 0; e < nnz; e++)
		i[e] = (int)w[e];
	free(w);
	free(cnt);
	free(dsp);
	la_mat_free(A);
	A->n = n;
	A->kind = LA_MAT_CSC;
	A->nx = nnz;
	A->p = p;
	A->i = i;
	A->x = x;
	if (csc_to_kind(A, kind)) {
		la_mat_free(A);
		return -1;
	}
	la_mat_symmetrize(A);
	return 0;
fail:
	free(p);
	free(cnt);
	free(dsp);
	free(w);
	free(i);
	free(x);
	la_mat_free(A);
	return -1;
}

void la_mat_mul(const struct la_mat *A, const double *x, double *y)
{
	if (A->part) {
		part_mul(A, x, y);
		return;
	}
	if (A->kind == LA_MAT_DENSE || A->kind == LA_MAT_BAND) {
		gather(A, x, y, 0, 0, A->n);
		return;
	}
	memset(y, 0, sizeof *y * (size_t)A->n);
	la_mat_muladd(A, 1, x, y);
}

void la_mat_mulsub_rows(const struct la_mat *A, const double *x, double *y, int i0, int i1)
{
	gather(A, x, y, 1, i0, i1);
}

void la_mat_mulsub(const struct la_mat *A, const double *x, double *y, double *tmp)
{
	if (A->kind == LA_MAT_DENSE || A->kind == LA_MAT_BAND) {
		gather(A, x, y, 1, 0, A->n);
		return;
	}
	la_mat_mul(A, x, tmp);
	for (int i = 0; i < A->n; i++)
		y[i] -= tmp[i];
}

double la_mat_dot(const struct la_mat *A, const double *x, const double *y)
{
	/* Σ_j y_j (xᵀ a_j), column by column: no scratch vector needed. */
	if (A->part)
		return part_dot(A, x, y);
	int n = A->n;
	double s = 0;
	for (int j = 0; j < n; j++) {
		double c = 0;
		switch (A->kind) {
		case LA_MAT_DENSE: {
			const double *col = A->x + (size_t)j * n;
			for (int i = imax(0, j - A->ku), hi = imin(n - 1, j + A->kl); i <= hi; i++)
				c += x[i] * col[i];
			break;
		}
		case LA_MAT_BAND: {
			/* column j is contiguous: a_ij at x[ku + i − j + j ld] */
			const double *col = A->x + (size_t)j * band_ld(A) + A->ku - j;
			for (int i = imax(0, j - A->ku), hi = imin(n - 1, j + A->kl); i <= hi; i++)
				c += x[i] * col[i];
			break;
		}
		case LA_MAT_CSC:
			for (int k = A->p[j]; k < A->p[j + 1]; k++)
				c += x[A->i[k]] * A->x[k];
			break;
		default:
			break;
		}
		s += c * y[j];
	}
	return s;
}

void la_mat_to_dense(const struct la_mat *A, double *a)
{
	int n = A->n;
	memset(a, 0, sizeof *a * (size_t)n * (size_t)n);
	if (A->kind == LA_MAT_DENSE) {
		memcpy(a, A->x, sizeof *a * A->nx);
		return;
	}
	for (int j = 0; j < n; j++) {
		if (A->kind == LA_MAT_BAND)
			for (int i = imax(0, j - A->ku), hi = imin(n - 1, j + A->kl); i <= hi; i++)
				a[(size_t)i + (size_t)j * n] = A->x[band_at(A, i, j)];
		else
			for (int k = A->p[j]; k < A->p[j + 1]; k++)
				a[(size_t)A->i[k] + (size_t)j * n] = A->x[k];
	}
}

double la_mat_maxabs(const struct la_mat *A)
{
	double m = 0;
	for (size_t k = 0; k < A->nx; k++)
		m = fmax(m, fabs(A->x[k]));
	return m;
}

int la_mat_sum_init(struct la_mat *S, int nterm, const struct la_mat *const *term)
{
	int n = -1, any_dense = 0, all_band = 1, kl = 0, ku = 0, sym = 1;
	memset(S, 0, sizeof *S);
	if (nterm > LA_MAXTERM)
		return -1;
	for (int k = 0; k < nterm; k++) {
		const struct la_mat *T = term[k];
		if (!T)
			continue;
		n = T->n;
		any_dense |= T->kind == LA_MAT_DENSE;
		all_band &= T->kind == LA_MAT_BAND;
		kl = imax(kl, T->kl);
		ku = imax(ku, T->ku);
		sym &= T->sym;
	}
	if (n < 0)
		return -1;
	S->n = n;
	S->kl = kl;
	S->ku = ku;
	S->sym = sym;
	int *row = NULL, *col = NULL;
	for (int k = 0; k < nterm; k++)
		if (term[k])
			S->term[S->nterm++] = term[k];
	if (any_dense || all_band) {
		/* dense or banded: an entry's place in S follows from its row
		 * and column (la_mat_sum), no map is kept */
		enum la_mat_kind kind = any_dense ? LA_MAT_DENSE : LA_MAT_BAND;
		if (kind == LA_MAT_DENSE)
			S->kl = S->ku = n - 1;
		if (alloc_kind(S, kind))
			goto oom;
		if (kind == LA_MAT_DENSE) {
			S->kl = kl;
			S->ku = ku;
		}
	} else {
		/* The union pattern: every term's entries in one list; each
		 * term keeps the slot of S->x that each of its entries adds
		 * into (int: a compressed matrix has at most INT32_MAX
		 * entries, la_csc_build), all in one array */
		size_t ne = 0, off = 0;
		for (int t = 0; t < S->nterm; t++)
			ne += S->term[t]->nx;
		row = mem_alloc((ne + 1) * sizeof *row);
		col = mem_alloc((ne + 1) * sizeof *col);
		S->slots = mem_alloc((ne + 1) * sizeof *S->slots);
		if (!row || !col || !S->slots)
			goto oom;
		for (int t = 0; t < S->nterm; t++) {
			if (S->term[t]->packed)
				goto oom;   /* not a term of a compressed sum (la.h) */
			la_mat_pattern(S->term[t], row + off, col + off);
			S->slot[t] = S->slots + off;
			off += S->term[t]->nx;
		}
		if (la_csc_build(n, ne, row, col, 0, &S->p, &S->i, S->slots))
			goto oom;
		free(row);
		free(col);
		row = col = NULL;
		S->kind = LA_MAT_CSC;
		S->nx = (size_t)S->p[n];
		S->x = mem_calloc(S->nx + 1, sizeof *S->x);
		if (!S->x)
			goto oom;
		csc_band(S);
		/* parts of the same columns (la_mat_part_restrict): their sum
		 * is the part of the sum */
		const struct la_mat *part = NULL;
		for (int t = 0; t < S->nterm; t++)
			if (S->term[t]->part)
				part = S->term[t];
		for (int t = 0; t < S->nterm && part; t++)
			if (!S->term[t]->part || S->term[t]->c0 != part->c0 || S->term[t]->c1 != part->c1)
				goto oom;
		if (part && part_copy(S, part))
			goto oom;
	}
	return 0;
oom:
	free(row);
	free(col);
	la_mat_free(S);
	return -1;
}

/* S += c T for S dense or banded, on T's entries in the order of T->x
 * (the order of the additions is that of the terms: the sums are those
 * of a map from T's entries to S's slots). */
static void sum_term(struct la_mat *S, const struct la_mat *T, double c)
{
	int n = T->n;
	size_t e = 0;
	for (int j = 0; j < n; j++) {
		double *s = S->kind == LA_MAT_DENSE ? S->x + (size_t)j * (size_t)n : S->x + band_at(S, 0, j);
		switch (T->kind) {
		case LA_MAT_DENSE:
			for (int i = 0; i < n; i++)
				s[i] += c * T->x[e++];
			break;
		case LA_MAT_BAND:
			/* a_ij at x[ku + i - j + j ld]: rows j - ku .. j + kl,
			 * the padding outside the matrix skipped (packed: the
			 * slots of a column are not its own alone) */
			for (int i = j - T->ku; i <= j + T->kl; i++, e++)
				if (i >= 0 && i < n)
					s[i] += c * T->x[T->packed ? band_at(T, i, j) : e];
			break;
		case LA_MAT_CSC:
			for (int k = T->p[j]; k < T->p[j + 1]; k++)
				s[T->i[k]] += c * T->x[k];
			break;
		default:
			break;
		}
	}
}

void la_mat_sum(struct la_mat *S, const double *coef)
{
	memset(S->x, 0, sizeof *S->x * S->nx);
	for (int t = 0; t < S->nterm; t++) {
		const struct la_mat *T = S->term[t];
		double c = coef[t];
		if (S->kind != LA_MAT_CSC) {
			sum_term(S, T, c);
			continue;
		}
		const int *slot = S->slot[t];
		for (size_t e = 0; e < T->nx; e++)
			if (slot[e] >= 0)
				S->x[slot[e]] += c * T->x[e];
	}
}

/* ---- reverse Cuthill-McKee ---- */

/* Breadth-first search from s over the unvisited part; returns the
 * number of nodes reached, order[] receiving them level by level with
 * each node's neighbours in increasing degree (Cuthill and McKee 1969),
 * and *last the last node (a far one: the next start candidate). */
static int bfs(int s, const int *p, const int *ix, const int *deg, int *mark, int stamp, int *order)
{
	int head = 0, tail = 0;
	order[tail++] = s;
	mark[s] = stamp;
	while (head < tail) {
		int v = order[head++], first = tail;
		for (int k = p[v]; k < p[v + 1]; k++) {
			int w = ix[k];
			if (mark[w] != stamp && mark[w] >= 0) {
				mark[w] = stamp;
				order[tail++] = w;
			}
		}
		/* insertion sort of the new level by degree: neighbour lists
		 * are short in the matrices this orders */
		for (int a = first + 1; a < tail; a++) {
			int w = order[a], b = a - 1;
			while (b >= first && deg[order[b]] > deg[w]) {
				order[b + 1] = order[b];
				b--;
			}
			order[b + 1] = w;
		}
	}
	return tail;
}

int la_rcm(int n, const int *p, const int *ix, int *perm)
{
	int *deg = mem_alloc(((size_t)n + 1) * sizeof *deg), *mark = mem_calloc((size_t)n + 1, sizeof *mark);
	int *pinv = mem_alloc(((size_t)n + 1) * sizeof *pinv);
	int done = 0, stamp = 0, bw = 0;
	if (!deg || !mark || !pinv) {
		bw = -1;
		goto out;
	}
	for (int v = 0; v < n; v++)
		deg[v] = p[v + 1] - p[v];
	/* mark: 0 unvisited, > 0 visited by search number stamp in the
	 * current component, -1 placed */
	for (int s0 = 0; s0 < n; s0++) {
		if (mark[s0] < 0)
			continue;
		/* a pseudo-peripheral start: the far end of two searches
		 * (after George and Liu 1979) */
		int s = s0, cnt = 0;
		for (int pass = 0; pass < 2; pass++) {
			cnt = bfs(s, p, ix, deg, mark, ++stamp, perm + done);
			s = perm[done + cnt - 1];
		}
		cnt = bfs(s, p, ix, deg, mark, ++stamp, perm + done);
		for (int k = done; k < done + cnt; k++)
			mark[perm[k]] = -1;
		/* reverse this component's order */
		for (int a = done, b = done + cnt - 1; a < b; a++, b--) {
			int t = perm[a];
			perm[a] = perm[b];
			perm[b] = t;
		}
		done += cnt;
	}
	for (int k = 0; k < n; k++)
		pinv[perm[k]] = k;
	for (int j = 0; j < n; j++)
		for (int k = p[j]; k < p[j + 1]; k++)
			bw = imax(bw, abs(pinv[ix[k]] - pinv[j]));
out:
	free(deg);
	free(mark);
	free(pinv);
	return bw;
}

/* ---- the solver ---- */

struct la_solver {
	const struct la_ops *ops;
	void *st;
	int ok;
	int n;
};

static const struct la_ops *ops_of(enum la_backend b)
{
	switch (b) {
	case LA_LAPACK_DENSE:
		return &la_dense_ops;
	case LA_LAPACK_BAND:
		return &la_band_ops;
	case LA_CHOLMOD:
		return &la_cholmod_ops;
	case LA_UMFPACK:
		return &la_umfpack_ops;
	case LA_PETSC_DIRECT:
	case LA_PETSC_ITERATIVE:
		return la_petsc_ops(b);
	default:
		return NULL;
	}
}

const char *la_backend_name(enum la_backend b)
{
	const struct la_ops *o = ops_of(b);
	return o ? o->name : "auto";
}

/* The symmetrised pattern of A in compressed columns, for the ordering. */
int la_sym_pattern(const struct la_mat *A, int **p, int **ix)
{
	*p = *ix = NULL;
	if (A->kind != LA_MAT_CSC) {
		/* dense or banded: the pattern below is the band |i - j| <= b,
		 * b = max(kl, ku), written directly (no sort, no entry lists:
		 * this runs at the peak of a large model's setup) */
		int n = A->n, b = imax(A->kl, A->ku);
		if ((size_t)n * (size_t)(2 * b + 1) > INT32_MAX)
			return -1;
		*p = mem_alloc(((size_t)n + 1) * sizeof **p);
		*ix = mem_alloc(((size_t)n * (size_t)(2 * b + 1) + 1) * sizeof **ix);
		if (!*p || !*ix) {
			free(*p);
			free(*ix);
			*p = *ix = NULL;
			return -1;
		}
		int k = 0;
		for (int j = 0; j < n; j++) {
			(*p)[j] = k;
			for (int i = imax(0, j - b), hi = imin(n - 1, j + b); i <= hi; i++)
				(*ix)[k++] = i;
		}
		(*p)[n] = k;
		return 0;
	}
	int *row, *col;
	if (la_entries(A, &row, &col))
		return -1;
	la_entries_in_band(A, row, col);
	size_t ne = A->nx;
	int *r2 = mem_realloc(row, (2 * ne + 1) * sizeof *r2), *c2 = r2 ? mem_realloc(col, (2 * ne + 1) * sizeof *c2) : NULL;
	if (!r2 || !c2) {
		free(r2 ? r2 : row);
		free(c2 ? c2 : col);
		return -1;
	}
	/* A dense matrix's zeros within its band kl, ku may be filled by
	 * the next values (a combination is built before its first
	 * la_mat_sum, on the band of its terms): the band is its pattern. */
	for (size_t e = 0; e < ne; e++) {
		r2[ne + e] = r2[e] < 0 ? -1 : c2[e];
		c2[ne + e] = r2[e] < 0 ? 0 : r2[e];
	}
	int rc = la_csc_build(A->n, 2 * ne, r2, c2, 0, p, ix, NULL);
	free(r2);
	free(c2);
	return rc;
}

enum la_backend la_backend_choose(const struct la_mat *A, unsigned flags, int *bandwidth)
{
	int n = A->n, bw = imax(A->kl, A->ku);
	if (bandwidth)
		*bandwidth = bw;
	/* A small matrix is factored dense unless its band is narrow: a
	 * chain's tridiagonal step matrix is solved by dpttrs in O(n) (as
	 * the C reference of bench/ does), where dpotrs goes through dtrsm
	 * and costs several times the whole step at n = 10. */
	if (n <= LA_SMALL_N)
		return bw <= 1 || la_mat_band_pays(n, bw, bw) ? LA_LAPACK_BAND : LA_LAPACK_DENSE;
	if (!la_mat_band_pays(n, bw, bw)) {
		/* reorder: a chain numbered end to end from both sides, or a
		 * grid numbered by rows, has a narrow band after all */
		int *p, *ix, *perm = mem_alloc(((size_t)n + 1) * sizeof *perm);
		if (perm && la_sym_pattern(A, &p, &ix) == 0) {
			int b = la_rcm(n, p, ix, perm);
			if (b >= 0)
				bw = b;
			free(p);
			free(ix);
		}
		free(perm);
		if (bandwidth)
			*bandwidth = bw;
	}
	if (la_mat_band_pays(n, bw, bw))
		return LA_LAPACK_BAND;
	return (flags & LA_SPD) && A->sym ? LA_CHOLMOD : LA_UMFPACK;
}

struct la_solver *la_solver_alloc(const struct la_mat *A, enum la_backend backend, unsigned flags)
{
	if (backend == LA_AUTO)
		backend = la_backend_choose(A, flags, NULL);
	if (backend == LA_CHOLMOD && (!(flags & LA_SPD) || !A->sym))
		return NULL;
	struct la_solver *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->ops = ops_of(backend);
	s->n = A->n;
	if (!s->ops || !(s->st = s->ops->alloc(A, flags))) {
		free(s);
		return NULL;
	}
	return s;
}

void la_solver_free(struct la_solver *s)
{
	if (!s)
		return;
	s->ops->free(s->st);
	free(s);
}

int la_solver_factor(struct la_solver *s, const struct la_mat *A)
{
	int rc = s->ops->factor(s->st, A);
	s->ok = rc == 0;
	return rc;
}

void la_solver_solve(struct la_solver *s, double *b)
{
	if (!s->ok) {
		for (int i = 0; i < s->n; i++)
			b[i] = NAN;
		return;
	}
	s->ops->solve(s->st, b);
}

enum la_backend la_solver_backend(const struct la_solver *s)
{
	return s->ops->id;
}

int la_mat_symmetrize(struct la_mat *A)
{
	int n = A->n;
	if (A->sym)
		return 1;
	/* two passes: the check first, so that a matrix not symmetric to
	 * rounding is left untouched */
	for (int pass = 0; pass < 2; pass++)
		for (int j = 0; j < n; j++) {
			int lo = A->kind == LA_MAT_CSC ? A->p[j] : imax(0, j - A->ku);
			int hi = A->kind == LA_MAT_CSC ? A->p[j + 1] : imin(n, j + A->kl + 1);
			for (int k = lo; k < hi; k++) {
				int i = A->kind == LA_MAT_CSC ? A->i[k] : k;
				if (i < j && pass == 0) {
					/* an entry above whose mirror is not stored (one
					 * triangle, or a band with kl < ku) is symmetric
					 * only when 0: the loop below sees the stored
					 * mirrors alone */
					double x = A->kind == LA_MAT_CSC ? A->x[k] : la_mat_get(A, i, j);
					int stored = A->kind == LA_MAT_CSC ? csc_find(A, j, i) >= 0 : j - i <= A->kl;
					if (!stored && x != 0)
						return 0;
				}
				if (i <= j)
					continue;
				double *a, *b;
				if (A->kind == LA_MAT_CSC) {
					ptrdiff_t q = csc_find(A, j, i);
					if (q < 0) {
						if (A->x[k] != 0)
							return 0;
						continue;
					}
					a = A->x + k, b = A->x + q;
				} else if (A->kind == LA_MAT_DENSE) {
					a = A->x + (size_t)i + (size_t)j * (size_t)n, b = A->x + (size_t)j + (size_t)i * (size_t)n;
				} else {
					if (i - j > A->ku)   /* a_ji outside the band */
						return 0;
					a = A->x + band_at(A, i, j), b = A->x + band_at(A, j, i);
				}
				if (pass == 0 && fabs(*a - *b) > 1e-13 * (fabs(*a) + fabs(*b)))
					return 0;
				if (pass == 1)
					*a = *b = 0.5 * (*a + *b);
			}
		}
	A->sym = 1;
	return 1;
}

int la_mat_band_of_dense(struct la_mat *A)
{
	int n = A->n, kl = A->kl, ku = A->ku;
	if (A->kind != LA_MAT_DENSE || A->nterm || kl + ku + 1 >= n)
		return 0;
	size_t ld = (size_t)(kl + ku + 1);
	double *b = mem_calloc(ld * (size_t)n + 1, sizeof *b);
	if (!b)
		return -1;
	for (int j = 0; j < n; j++)
		for (int i = imax(0, j - ku); i <= imin(n - 1, j + kl); i++)
			b[(size_t)(ku + i - j) + (size_t)j * ld] = A->x[(size_t)i + (size_t)j * (size_t)n];
	free(A->x);
	A->x = b;
	A->nx = ld * (size_t)n;
	A->kind = LA_MAT_BAND;
	return 1;
}

int la_mat_pack(struct la_mat *A)
{
	int n = A->n;
	if (A->kind != LA_MAT_BAND || A->packed || A->kl != 1 || A->ku != 1 || !A->sym || n < 2)
		return 0;
	/* a_jj from x[1 + 3j] to x[1 + 2j], a_j+1,j from x[2 + 3j] to
	 * x[2 + 2j]: each value moves down, into a slot already read, so the
	 * moves in ascending j go in place; the upper triangle's a_j,j+1
	 * (x[3j + 3]) equals a_j+1,j (A->sym) and is dropped */
	double *x = A->x;
	x[0] = 0;
	for (int j = 0; j < n; j++) {
		x[1 + 2 * (size_t)j] = x[1 + 3 * (size_t)j];
		x[2 + 2 * (size_t)j] = j + 1 < n ? x[2 + 3 * (size_t)j] : 0;
	}
	A->nx = 2 * (size_t)n + 1;
	A->packed = 1;
	/* the freed tail goes back to the system (a large block is its own
	 * mapping, which realloc shrinks) */
	double *y = mem_realloc(x, (A->nx + 1) * sizeof *x);
	if (y)
		A->x = y;
	return 1;
}
