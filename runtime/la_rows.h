/* la_rows.h — an operator of the dense or banded kind of the matrix layer
 * (la.h) read row by row, for the passes that form a row's product
 * while the row's state is in cache (the linear step's ledger, run.c;
 * the Newmark family's one pass, scheme_newmark.c).  Every product adds
 * its terms a_ij x_j in ascending j from 0, the order of la_mat_mul and
 * la_mat_dot, so that the passes give their bits. */
#ifndef DYN_LA_ROWS_H
#define DYN_LA_ROWS_H

#include "la.h"

#include <stddef.h>

/* An operator of the dense or banded kind, row by row: a_ij at
 * a[i + j s], within the pattern's band kl, ku (la.h's layouts). */
struct la_rows {
	const double *a;
	size_t s;
	int kl, ku;
};

static inline struct la_rows la_rows_of(const struct la_mat *A)
{
	struct la_rows r = { A->x, (size_t)A->n, A->kl, A->ku };
	if (A->kind == LA_MAT_BAND) {
		r.a = A->x + A->ku;
		r.s = A->packed ? 1 : (size_t)(A->kl + A->ku);   /* ld − 1 (la.h) */
	}
	return r;
}

/* Σ_j a_ij x_j in ascending j from 0, the common bands unrolled (the
 * branches on the band go the same way at every row) */
static inline double la_row_dot(const struct la_rows *R, int n, int i, const double *x)
{
	const double *a = R->a + i;
	double s = 0;
	if (R->kl == 0 && R->ku == 0) {
		s += a[(size_t)i * R->s] * x[i];
		return s;
	}
	if (R->kl == 1 && R->ku == 1 && i > 0 && i < n - 1) {
		s += a[(size_t)(i - 1) * R->s] * x[i - 1];
		s += a[(size_t)i * R->s] * x[i];
		s += a[(size_t)(i + 1) * R->s] * x[i + 1];
		return s;
	}
	for (int j = i - R->kl < 0 ? 0 : i - R->kl, hi = i + R->ku < n ? i + R->ku : n - 1; j <= hi; j++)
		s += a[(size_t)j * R->s] * x[j];
	return s;
}

/* the same of x_j = y_j + z_j, or 2 z_j when y is NULL */
static inline double la_row_dot2(const struct la_rows *R, int n, int i, const double *y, const double *z)
{
	const double *a = R->a + i;
	double s = 0;
#define X(j) (y ? y[j] + z[j] : 2 * z[j])
	if (R->kl == 0 && R->ku == 0) {
		s += a[(size_t)i * R->s] * X(i);
		return s;
	}
	if (R->kl == 1 && R->ku == 1 && i > 0 && i < n - 1) {
		s += a[(size_t)(i - 1) * R->s] * X(i - 1);
		s += a[(size_t)i * R->s] * X(i);
		s += a[(size_t)(i + 1) * R->s] * X(i + 1);
		return s;
	}
	for (int j = i - R->kl < 0 ? 0 : i - R->kl, hi = i + R->ku < n ? i + R->ku : n - 1; j <= hi; j++)
		s += a[(size_t)j * R->s] * X(j);
#undef X
	return s;
}

#endif
