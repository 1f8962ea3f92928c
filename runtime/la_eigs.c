/* la_eigs.c — the lowest modes of a large generalized symmetric
 * eigenproblem K φ = λ M φ by ARPACK's implicitly restarted Lanczos
 * (Lehoucq, Sorensen and Yang 1998, "ARPACK Users' Guide", §3.2.3:
 * dsaupd/dseupd, bmat = 'G', mode 3, shift-invert).  The caller gives
 * the products: y = M x, and y = (K − σM)⁻¹ b from a factorization of
 * the matrix layer (with constraints, of the saddle point
 * [K − σM Gᵀ; G 0], whose solution lies on their tangent space).  The
 * eigenvalues nearest σ are the largest of the operator (K − σM)⁻¹ M,
 * which Lanczos finds first. */
#include <config.h>

#include "extlib.h"
#include "la.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int la_eigs(int n, int nev, double sigma, const struct la_eigs_ops *ops, double *lam, double *phi)
{
	const struct extlib_arpack *ar = extlib_arpack();
	if (nev < 1 || nev >= n)
		return -2;
	/* Lanczos vectors: twice the wanted modes and at least 20 (ARPACK's
	 * advice, §4.2: ncv ≥ 2 nev), at most n */
	int ncv = 2 * nev + 1 < 20 ? 20 : 2 * nev + 1;
	if (ncv > n)
		ncv = n;
	int lworkl = ncv * (ncv + 8), ldv = n, ido = 0, info = 0;
	int iparam[11] = { 0 }, ipntr[11] = { 0 };
	iparam[0] = 1;          /* exact shifts */
	iparam[2] = 1000;       /* restarts at most */
	iparam[6] = 3;          /* mode 3: shift-invert, M inner product */
	double tol = 0;         /* machine precision */
	double *resid = calloc((size_t)n + 1, sizeof(double));
	double *v = malloc(sizeof(double) * (size_t)n * (size_t)ncv);
	double *workd = malloc(sizeof(double) * 3 * (size_t)n);
	double *workl = malloc(sizeof(double) * (size_t)lworkl);
	double *d = malloc(sizeof(double) * (size_t)ncv * 2);
	int *select = calloc((size_t)ncv, sizeof(int));
	double *tmp = malloc(sizeof(double) * ((size_t)n + 1));
	int rc = -1;
	if (!resid || !v || !workd || !workl || !d || !select || !tmp)
		goto out;
	for (;;) {
		ar->dsaupd_(&ido, "G", &n, "LM", &nev, &tol, resid, &ncv, v, &ldv, iparam, ipntr, workd, workl, &lworkl,
		        &info, 1, 2);
		double *x = workd + ipntr[0] - 1, *y = workd + ipntr[1] - 1;
		if (ido == -1) {
			/* y = OP x = (K − σM)⁻¹ M x */
			ops->mmul(ops->ctx, x, tmp);
			memcpy(y, tmp, sizeof(double) * (size_t)n);
			if (ops->solve(ops->ctx, y))
				goto out;
		} else if (ido == 1) {
			/* M x is given at ipntr[2] */
			memcpy(y, workd + ipntr[2] - 1, sizeof(double) * (size_t)n);
			if (ops->solve(ops->ctx, y))
				goto out;
		} else if (ido == 2) {
			ops->mmul(ops->ctx, x, y);
		} else {
			break;
		}
	}
	if (info < 0) {
		rc = -3;
		goto out;
	}
	if (info == 1 || iparam[4] < nev) {
		rc = -4;        /* no convergence within the restarts */
		goto out;
	}
	int rvec = phi != NULL;
	/* the Ritz vectors overwrite the first nev columns of v (allowed) */
	ar->dseupd_(&rvec, "A", select, d, v, &ldv, &sigma, "G", &n, "LM", &nev, &tol, resid, &ncv, v, &ldv,
	        iparam, ipntr, workd, workl, &lworkl, &info, 1, 1, 2);
	if (info != 0) {
		rc = -3;
		goto out;
	}
	/* dseupd gives the eigenvalues in ascending order (of λ, after the
	 * back transformation); the vectors in the first nev columns of v */
	int *ord = select;
	for (int k = 0; k < nev; k++)
		ord[k] = k;
	for (int k = 1; k < nev; k++)   /* insertion sort: nev is small */
		for (int j = k; j > 0 && d[ord[j]] < d[ord[j - 1]]; j--) {
			int t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	for (int k = 0; k < nev; k++)
		lam[k] = d[ord[k]];
	if (phi) {
		double *w = malloc(sizeof(double) * (size_t)n * (size_t)nev);
		if (!w)
			goto out;
		for (int k = 0; k < nev; k++)
			memcpy(w + (size_t)k * n, v + (size_t)ord[k] * n, sizeof(double) * (size_t)n);
		memcpy(phi, w, sizeof(double) * (size_t)n * (size_t)nev);
		free(w);
	}
	rc = 0;
out:
	free(resid);
	free(v);
	free(workd);
	free(workl);
	free(d);
	free(select);
	free(tmp);
	return rc;
}
