/* la_band.c — the LAPACK banded backend of the matrix layer, after a
 * reverse Cuthill-McKee ordering (la_rcm): dpttrf for a symmetric positive
 * definite tridiagonal matrix (a chain of springs: O(n) with no band
 * bookkeeping at all), dpbtrf for a wider SPD band, dgbtrf (partial
 * pivoting) otherwise.  An SPD diagonal (a lumped mass, the step matrix of
 * an explicit scheme) is divided by, as dpttrs would with no
 * off-diagonal (the same quotients, without its two sweeps).  Chosen when the reordered band is narrow: then
 * LAPACK's band kernels, O(n b²), beat a general sparse factorization,
 * whose symbolic and indexing costs they do not pay. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "la_impl.h"
#include "mem.h"

enum variant { DG, PT, PB, GB };

struct band {
	int n, kl, ku, ld;
	enum variant v;
	int *perm;              /* perm[k]: the unknown placed k-th; NULL,
	                           with at and tmp, for a banded matrix in its
	                           own order */
	int ident;              /* perm is the identity (a chain in its own
	                           order): solved in place, no copies */
	int *at;                /* position in ab of each entry of A->x, -1
	                           for none: 32 bits, as len < INT32_MAX */
	size_t ne, len;
	double *ab;             /* PT: d (n) then e (n - 1) */
	double *tmp;
	lapack_int *ipiv;
};

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static void band_free(void *p)
{
	struct band *b = p;
	if (!b)
		return;
	free(b->perm);
	free(b->at);
	free(b->ab);
	free(b->tmp);
	free(b->ipiv);
	free(b);
}

/* The place in ab of the entry (i, j) of the reordered matrix, or -1
 * when the factorization does not read it. */
static int slot_of(const struct band *b, int i, int j)
{
	switch (b->v) {
	case DG:
		return i == j ? i : -1;
	case PT:        /* d then the superdiagonal e; lower half skipped */
		return i == j ? i : i + 1 == j ? b->n + i : -1;
	case PB:        /* upper band: a_ij at ab[kd + i - j, j] */
		return i <= j ? b->ku + i - j + j * b->ld : -1;
	case GB:
		return b->kl + b->ku + i - j + j * b->ld;
	}
	return -1;
}

/* An ordering of A's unknowns that narrows its band (reverse
 * Cuthill–McKee, or the natural order when RCM gives no narrower band),
 * into b->perm; b->ident, b->kl, b->ku in that order.  A's entries
 * (row, col; −1 outside its band) and the inverse permutation are
 * returned for the map of entries band_alloc builds; 0 or −1. */
static int band_order(struct band *b, const struct la_mat *A, int **prow, int **pcol, int **ppinv)
{
	int n = A->n, *p = NULL, *ix = NULL, *row = NULL, *col = NULL, *pinv = NULL;
	b->perm = mem_alloc(((size_t)n + 1) * sizeof *b->perm);
	pinv = mem_alloc(((size_t)n + 1) * sizeof *pinv);
	b->tmp = mem_alloc(((size_t)n + 1) * sizeof *b->tmp);
	b->at = mem_alloc((A->nx + 1) * sizeof *b->at);
	int bw = -1;
	if (!b->perm || !pinv || !b->tmp || !b->at || la_sym_pattern(A, &p, &ix) ||
	    (bw = la_rcm(n, p, ix, b->perm)) < 0 || la_entries(A, &row, &col))
		goto fail;
	la_entries_in_band(A, row, col);
	/* the natural order when its band is no wider than the reordered
	 * one (a chain numbered along itself, which reverse Cuthill-McKee
	 * only reverses): the solve then permutes nothing */
	if (imax(A->kl, A->ku) <= bw)
		for (int k = 0; k < n; k++)
			b->perm[k] = k;
	b->ident = 1;
	for (int k = 0; k < n; k++) {
		pinv[b->perm[k]] = k;
		b->ident &= b->perm[k] == k;
	}
	for (size_t e = 0; e < A->nx; e++)
		if (row[e] >= 0) {
			int i = pinv[row[e]], j = pinv[col[e]];
			b->kl = imax(b->kl, i - j);
			b->ku = imax(b->ku, j - i);
		}
	free(p);
	free(ix);
	*prow = row;
	*pcol = col;
	*ppinv = pinv;
	return 0;
fail:
	free(p);
	free(ix);
	free(row);
	free(col);
	free(pinv);
	return -1;
}

static void *band_alloc(const struct la_mat *A, unsigned flags)
{
	struct band *b = mem_calloc(1, sizeof *b);
	int n = A->n, *row = NULL, *col = NULL, *pinv = NULL;
	if (!b)
		return NULL;
	b->n = n;
	b->ne = A->nx;
	/* a diagonal in compressed columns (a lumped mass): one entry a
	 * column, the diagonal's, so that its entries are in band order */
	int diag = A->kind == LA_MAT_CSC && A->kl == 0 && A->ku == 0 && A->nx == (size_t)n;
	if ((A->kind == LA_MAT_BAND && imax(A->kl, A->ku) <= 1) || diag) {
		/* a tridiagonal (or diagonal) band: no ordering narrows it,
		 * and in its own order no map is kept (below); its pattern,
		 * entries and an ordering would be built only to be dropped
		 * (28 bytes per unknown at the setup's peak; 24 for a lumped
		 * mass, the permutation, its scratch and the map kept) */
		b->ident = 1;
		b->kl = imin(A->kl, n - 1);
		b->ku = imin(A->ku, n - 1);
	} else if (band_order(b, A, &row, &col, &pinv))
		goto fail;
	if (flags & LA_SPD) {
		b->kl = b->ku = imax(b->kl, b->ku);
		b->v = b->ku == 0 ? DG : b->ku <= 1 ? PT : PB;
		b->ld = b->ku + 1;
		b->len = b->v == DG ? (size_t)n : b->v == PT ? 2 * (size_t)n : (size_t)b->ld * (size_t)n;
	} else {
		b->v = GB;
		/* dgbtrf wants kl rows on top for the fill of row interchanges */
		b->ld = 2 * b->kl + b->ku + 1;
		b->len = (size_t)b->ld * (size_t)n;
		if (!(b->ipiv = mem_alloc(((size_t)n + 1) * sizeof *b->ipiv)))
			goto fail;
	}
	if (b->len >= INT32_MAX || !(b->ab = mem_alloc((b->len + 1) * sizeof *b->ab)))
		goto fail;
	if (b->ident && (A->kind == LA_MAT_BAND || diag)) {
		/* a banded matrix in its own order: the place of an entry in
		 * ab follows from its row and column (band_factor), no map
		 * and no permutation are kept (20 bytes per unknown of a
		 * chain's step matrix) */
		free(b->at);
		free(b->perm);
		free(b->tmp);
		b->at = NULL;
		b->perm = NULL;
		b->tmp = NULL;
	} else {
		for (size_t e = 0; e < A->nx; e++)
			b->at[e] = row[e] < 0 ? -1 : slot_of(b, pinv[row[e]], pinv[col[e]]);
	}
	free(row);
	free(col);
	free(pinv);
	return b;
fail:
	free(row);
	free(col);
	free(pinv);
	band_free(b);
	return NULL;
}

static int band_factor(void *p, const struct la_mat *A)
{
	struct band *b = p;
	lapack_int n = b->n, info = 0;
	memset(b->ab, 0, sizeof *b->ab * b->len);
	if (!b->at) {
		/* banded A in its own order (band_alloc): column by column,
		 * the entries of A->x in their order */
		size_t e = 0;
		for (int j = 0; j < n; j++)
			for (int i = j - A->ku; i <= j + A->kl; i++, e++) {
				int q = i >= 0 && i < n ? slot_of(b, i, j) : -1;
				if (q >= 0)
					b->ab[q] += A->x[e];
			}
	} else {
		for (size_t e = 0; e < b->ne; e++)
			if (b->at[e] >= 0)
				b->ab[b->at[e]] += A->x[e];
	}
	switch (b->v) {
	case DG:        /* dpttrf's test: the first pivot that is not > 0 */
		for (lapack_int i = 0; i < n && !info; i++)
			if (!(b->ab[i] > 0))
				info = i + 1;
		break;
	case PT:
		info = LAPACKE_dpttrf_work(n, b->ab, b->ab + n);
		break;
	case PB:
		info = LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'U', n, b->ku, b->ab, b->ld);
		break;
	case GB:
		info = LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, n, n, b->kl, b->ku, b->ab, b->ld, b->ipiv);
		break;
	}
	if (info < 0)
		return -1;
	/* LAPACK's pivot is in the reordered numbering */
	return info > 0 ? (b->perm ? b->perm[info - 1] + 1 : info) : 0;
}

static void band_solve(void *p, double *x)
{
	struct band *b = p;
	lapack_int n = b->n;
	double *y = b->ident ? x : b->tmp;
	if (!b->ident)
		for (int k = 0; k < n; k++)
			y[k] = x[b->perm[k]];
	switch (b->v) {
	case DG:
		for (lapack_int i = 0; i < n; i++)
			y[i] /= b->ab[i];
		break;
	case PT: {
		/* dpttrs's two sweeps for one right-hand side (LAPACK's dptts2:
		 * L D Lᵀ y = x with L unit lower bidiagonal), written out: the
		 * same operations in the same order, so the same bits, without
		 * the wrapper and the Fortran calls that cost a short chain's
		 * solve three times its arithmetic (make bench, n = 10) */
		const double *d = b->ab, *e = b->ab + n;
		if (n == 1) {
			y[0] *= 1 / d[0];   /* dptts2's DSCAL by 1/d */
			break;
		}
		for (lapack_int i = 1; i < n; i++)
			y[i] = y[i] - y[i - 1] * e[i - 1];
		y[n - 1] = y[n - 1] / d[n - 1];
		for (lapack_int i = n - 2; i >= 0; i--)
			y[i] = y[i] / d[i] - y[i + 1] * e[i];
		break;
	}
	case PB:
		LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'U', n, b->ku, 1, b->ab, b->ld, y, n);
		break;
	case GB:
		LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, b->kl, b->ku, 1, b->ab, b->ld, b->ipiv, y, n);
		break;
	}
	if (!b->ident)
		for (int k = 0; k < n; k++)
			x[b->perm[k]] = y[k];
}

const struct la_ops la_band_ops = {
	.id = LA_LAPACK_BAND,
	.name = "banded",
	.alloc = band_alloc,
	.factor = band_factor,
	.solve = band_solve,
	.free = band_free,
};
