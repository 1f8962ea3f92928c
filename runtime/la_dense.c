/* la_dense.c — the LAPACK dense backend of the matrix layer: dpotrf /
 * dgetrf on an n×n copy.  Chosen for n <= LA_SMALL_N when the band is
 * not narrow, where LAPACK's blocked kernels are faster than any sparse
 * bookkeeping, and available on
 * any matrix as the reference the other backends are tested against. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "la_impl.h"
#include "mem.h"

struct dense {
	int n, spd;
	size_t *at;             /* position in a of each entry of A->x */
	size_t ne;
	double *a;
	lapack_int *ipiv;
};

static void dense_free(void *p)
{
	struct dense *d = p;
	if (!d)
		return;
	free(d->at);
	free(d->a);
	free(d->ipiv);
	free(d);
}

static void *dense_alloc(const struct la_mat *A, unsigned flags)
{
	struct dense *d = mem_calloc(1, sizeof *d);
	int *row = NULL, *col = NULL, n = A->n;
	if (!d)
		return NULL;
	d->n = n;
	d->spd = (flags & LA_SPD) != 0;
	d->ne = A->nx;
	d->at = mem_alloc((A->nx + 1) * sizeof *d->at);
	d->a = mem_alloc(((size_t)n * (size_t)n + 1) * sizeof *d->a);
	d->ipiv = mem_alloc(((size_t)n + 1) * sizeof *d->ipiv);
	if (!d->at || !d->a || !d->ipiv || la_entries(A, &row, &col)) {
		dense_free(d);
		return NULL;
	}
	for (size_t e = 0; e < A->nx; e++)
		d->at[e] = row[e] < 0 ? (size_t)-1 : (size_t)row[e] + (size_t)col[e] * (size_t)n;
	free(row);
	free(col);
	return d;
}

static int dense_factor(void *p, const struct la_mat *A)
{
	struct dense *d = p;
	lapack_int n = d->n, info;
	memset(d->a, 0, sizeof *d->a * (size_t)n * (size_t)n);
	for (size_t e = 0; e < d->ne; e++)
		if (d->at[e] != (size_t)-1)
			d->a[d->at[e]] += A->x[e];
	/* The *_work entry points: no NaN scan, no allocation (la.c). */
	if (d->spd)
		info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, d->a, n);
	else
		info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, d->a, n, d->ipiv);
	return info < 0 ? -1 : (int)info;
}

static void dense_solve(void *p, double *b)
{
	struct dense *d = p;
	lapack_int n = d->n;
	if (d->spd)
		LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, 1, d->a, n, b, n);
	else
		LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, d->a, n, d->ipiv, b, n);
}

const struct la_ops la_dense_ops = {
	.id = LA_LAPACK_DENSE,
	.name = "dense",
	.alloc = dense_alloc,
	.factor = dense_factor,
	.solve = dense_solve,
	.free = dense_free,
};
