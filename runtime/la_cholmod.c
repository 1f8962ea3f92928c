/* la_cholmod.c — the CHOLMOD backend of the matrix layer: sparse Cholesky
 * for symmetric positive definite step matrices (M + γτC + βτ²K and the
 * like) whose band is wide even after reordering (a mesh, a structure).
 * CHOLMOD orders for fill (AMD, METIS when built in) and picks the
 * supernodal factorization for large fronts, where a banded LAPACK factor
 * would fill the whole band.  cholmod_analyze runs once, when the solver
 * is allocated; cholmod_factorize reuses its L whenever the values change;
 * cholmod_solve2 reuses its workspace, so a solve does not allocate. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "extlib.h"
#include "la_impl.h"

struct chol {
	cholmod_common c;
	int started;
	int n;
	size_t ne;
	int *at;                /* slot in S->x of each entry (-1: lower half) */
	cholmod_sparse *S;      /* upper triangle (stype 1) */
	cholmod_factor *L;
	cholmod_dense *B, *X, *Y, *E;
};

static void chol_free(void *p)
{
	const struct extlib_cholmod *cm = extlib_cholmod();
	struct chol *h = p;
	if (!h)
		return;
	if (h->started) {
		cm->cholmod_free_dense(&h->B, &h->c);
		cm->cholmod_free_dense(&h->X, &h->c);
		cm->cholmod_free_dense(&h->Y, &h->c);
		cm->cholmod_free_dense(&h->E, &h->c);
		cm->cholmod_free_factor(&h->L, &h->c);
		cm->cholmod_free_sparse(&h->S, &h->c);
		cm->cholmod_finish(&h->c);
	}
	free(h->at);
	free(h);
}

static void *chol_alloc(const struct la_mat *A, unsigned flags)
{
	const struct extlib_cholmod *cm = extlib_cholmod();
	struct chol *h = calloc(1, sizeof *h);
	int *row = NULL, *col = NULL, *p = NULL, *ix = NULL;
	(void)flags;
	if (!h)
		return NULL;
	h->n = A->n;
	h->ne = A->nx;
	if (!cm->cholmod_start(&h->c))
		goto fail;
	h->started = 1;
	h->c.print = 0;         /* failures come back as statuses, not text */
	/* LLᵀ, never LDLᵀ: an LDLᵀ of an indefinite matrix succeeds, and a
	 * step matrix that is not positive definite must be reported */
	h->c.final_ll = 1;
	h->at = malloc((A->nx + 1) * sizeof *h->at);
	if (!h->at || la_entries(A, &row, &col) || la_csc_build(A->n, A->nx, row, col, 1, &p, &ix, h->at))
		goto fail;
	size_t nnz = (size_t)p[A->n];
	h->S = cm->cholmod_allocate_sparse((size_t)A->n, (size_t)A->n, nnz, 1, 1, 1, CHOLMOD_REAL, &h->c);
	if (!h->S)
		goto fail;
	memcpy(h->S->p, p, ((size_t)A->n + 1) * sizeof *p);
	memcpy(h->S->i, ix, nnz * sizeof *ix);
	memset(h->S->x, 0, nnz * sizeof(double));
	h->L = cm->cholmod_analyze(h->S, &h->c);
	h->B = cm->cholmod_zeros((size_t)A->n, 1, CHOLMOD_REAL, &h->c);
	if (!h->L || !h->B)
		goto fail;
	free(row);
	free(col);
	free(p);
	free(ix);
	return h;
fail:
	free(row);
	free(col);
	free(p);
	free(ix);
	chol_free(h);
	return NULL;
}

static int chol_factor(void *p, const struct la_mat *A)
{
	const struct extlib_cholmod *cm = extlib_cholmod();
	struct chol *h = p;
	double *x = h->S->x;
	memset(x, 0, sizeof *x * h->S->nzmax);
	for (size_t e = 0; e < h->ne; e++)
		if (h->at[e] >= 0)
			x[h->at[e]] += A->x[e];
	if (!cm->cholmod_factorize(h->S, h->L, &h->c))
		return -1;
	if (h->c.status == CHOLMOD_NOT_POSDEF || h->L->minor < h->L->n) {
		/* minor is the failing column of the permuted matrix */
		const int *perm = h->L->Perm;
		int k = (int)h->L->minor;
		return (perm ? perm[k] : k) + 1;
	}
	return h->c.status < 0 ? -1 : 0;
}

static void chol_solve(void *p, double *b)
{
	const struct extlib_cholmod *cm = extlib_cholmod();
	struct chol *h = p;
	memcpy(h->B->x, b, sizeof *b * (size_t)h->n);
	/* X, Y and E are allocated by the first call and reused after */
	if (!cm->cholmod_solve2(CHOLMOD_A, h->L, h->B, NULL, &h->X, NULL, &h->Y, &h->E, &h->c)) {
		for (int i = 0; i < h->n; i++)
			b[i] = 0.0 / 0.0;
		return;
	}
	memcpy(b, h->X->x, sizeof *b * (size_t)h->n);
}

const struct la_ops la_cholmod_ops = {
	.id = LA_CHOLMOD,
	.name = "cholmod",
	.alloc = chol_alloc,
	.factor = chol_factor,
	.solve = chol_solve,
	.free = chol_free,
};
