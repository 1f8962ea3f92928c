/* la_umfpack.c — the UMFPACK backend of the matrix layer: sparse LU with
 * threshold partial pivoting, for the matrices Cholesky cannot take:
 * Newton Jacobians (unsymmetric as soon as a dissipation or a follower
 * load enters), generalized-α step matrices, and saddle-point systems
 * [S Bᵀ; B 0] of constrained models, which are indefinite.  UMFPACK's
 * symbolic analysis (column ordering, COLAMD or AMD) runs once, when the
 * solver is allocated; a refactorization only redoes umfpack_di_numeric;
 * umfpack_di_wsolve takes its workspace from us, so a solve does not
 * allocate.  Iterative refinement (UMFPACK's default, two steps) is kept:
 * it is what brings a badly scaled saddle point to full accuracy. */
#include <config.h>

#include <stdlib.h>
#include <string.h>


#include "extlib.h"
#include "la_impl.h"

struct umf {
	int n;
	size_t ne;
	int *at;                /* slot in Ax of each entry of A->x */
	int *Ap, *Ai;
	double *Ax;
	void *sym, *num;
	double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
	int *Wi;
	double *W, *X;
};

static void umf_free(void *p)
{
	const struct extlib_umfpack *um = extlib_umfpack();
	struct umf *u = p;
	if (!u)
		return;
	if (u->num)
		um->umfpack_di_free_numeric(&u->num);
	if (u->sym)
		um->umfpack_di_free_symbolic(&u->sym);
	free(u->at);
	free(u->Ap);
	free(u->Ai);
	free(u->Ax);
	free(u->Wi);
	free(u->W);
	free(u->X);
	free(u);
}

static void fill(struct umf *u, const struct la_mat *A)
{
	memset(u->Ax, 0, sizeof *u->Ax * (size_t)u->Ap[u->n]);
	for (size_t e = 0; e < u->ne; e++)
		if (u->at[e] >= 0)
			u->Ax[u->at[e]] += A->x[e];
}

static void *umf_alloc(const struct la_mat *A, unsigned flags)
{
	const struct extlib_umfpack *um = extlib_umfpack();
	struct umf *u = calloc(1, sizeof *u);
	int *row = NULL, *col = NULL, n = A->n;
	(void)flags;
	if (!u)
		return NULL;
	u->n = n;
	u->ne = A->nx;
	u->at = malloc((A->nx + 1) * sizeof *u->at);
	u->Wi = malloc(((size_t)n + 1) * sizeof *u->Wi);
	u->W = malloc((5 * (size_t)n + 1) * sizeof *u->W);
	u->X = malloc(((size_t)n + 1) * sizeof *u->X);
	if (!u->at || !u->Wi || !u->W || !u->X || la_entries(A, &row, &col) ||
	    la_csc_build(n, A->nx, row, col, 0, &u->Ap, &u->Ai, u->at))
		goto fail;
	free(row);
	free(col);
	row = col = NULL;
	if (!(u->Ax = malloc(((size_t)u->Ap[n] + 1) * sizeof *u->Ax)))
		goto fail;
	fill(u, A);
	um->umfpack_di_defaults(u->control);
	u->control[UMFPACK_PRL] = 0;
	if (um->umfpack_di_symbolic(n, n, u->Ap, u->Ai, u->Ax, &u->sym, u->control, u->info) != UMFPACK_OK)
		goto fail;
	return u;
fail:
	free(row);
	free(col);
	umf_free(u);
	return NULL;
}

/* The column of the first zero pivot of a singular factorization (the
 * failure path: allocating here is fine). */
static int zero_pivot(struct umf *u)
{
	const struct extlib_umfpack *um = extlib_umfpack();
	int n = u->n, k0 = 0;
	int *P = malloc(((size_t)n + 1) * sizeof *P), *Q = malloc(((size_t)n + 1) * sizeof *Q);
	double *D = malloc(((size_t)n + 1) * sizeof *D);
	if (P && Q && D &&
	    um->umfpack_di_get_numeric(NULL, NULL, NULL, NULL, NULL, NULL, P, Q, D, NULL, NULL, u->num) == UMFPACK_OK) {
		for (int k = 0; k < n && !k0; k++)
			if (D[k] == 0)
				k0 = Q[k] + 1;
	}
	free(P);
	free(Q);
	free(D);
	return k0 ? k0 : 1;
}

static int umf_factor(void *p, const struct la_mat *A)
{
	const struct extlib_umfpack *um = extlib_umfpack();
	struct umf *u = p;
	fill(u, A);
	if (u->num)
		um->umfpack_di_free_numeric(&u->num);
	int st = um->umfpack_di_numeric(u->Ap, u->Ai, u->Ax, u->sym, &u->num, u->control, u->info);
	if (st == UMFPACK_WARNING_singular_matrix)
		return zero_pivot(u);
	return st == UMFPACK_OK ? 0 : -1;
}

static void umf_solve(void *p, double *b)
{
	const struct extlib_umfpack *um = extlib_umfpack();
	struct umf *u = p;
	um->umfpack_di_wsolve(UMFPACK_A, u->Ap, u->Ai, u->Ax, u->X, b, u->num, u->control, u->info, u->Wi, u->W);
	memcpy(b, u->X, sizeof *b * (size_t)u->n);
}

const struct la_ops la_umfpack_ops = {
	.id = LA_UMFPACK,
	.name = "umfpack",
	.alloc = umf_alloc,
	.factor = umf_factor,
	.solve = umf_solve,
	.free = umf_free,
};
