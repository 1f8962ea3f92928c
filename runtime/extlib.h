/* extlib.h — CHOLMOD, UMFPACK and ARPACK, the libraries that only some
 * runs need, loaded at their first use.
 *
 * Linked into dyn, the three and what they pull in (AMD, COLAMD, CAMD,
 * CCOLAMD, METIS, OpenMP, SuiteSparse_config) are ten shared libraries
 * that the dynamic loader maps and relocates at every start of dyn: 2 ms
 * of CPU before the first statement, a tenth of a 10³-mass chain's whole
 * run, although a chain, a small model or a banded one never calls them.
 * Where configure found their sonames (CHOLMOD_SONAME, UMFPACK_SONAME,
 * ARPACK_SONAME in config.h), dyn is not linked with them: the first call
 * of extlib_cholmod, extlib_umfpack or extlib_arpack loads the library
 * (dlopen) and looks up the functions dyn calls.  Otherwise they are
 * linked, and these return the functions themselves.
 *
 * A library that does not load is an installation's fault, not a
 * script's: dyn says which and why on stderr and exits with status 3.
 *
 * Callers call through the table, under the library's own names:
 * extlib_cholmod()->cholmod_analyze(S, &c). */
#ifndef DYN_EXTLIB_H
#define DYN_EXTLIB_H

#include <stddef.h>

#ifdef HAVE_SUITESPARSE_CHOLMOD_H
#include <suitesparse/cholmod.h>
#include <suitesparse/umfpack.h>
#else
#include <cholmod.h>
#include <umfpack.h>
#endif

/* ARPACK's Fortran entry points (gfortran: trailing underscore, string
 * lengths appended by value); Debian's ARPACK has no C header. */
void dsaupd_(int *ido, const char *bmat, const int *n, const char *which, const int *nev, const double *tol,
             double *resid, const int *ncv, double *v, const int *ldv, int *iparam, int *ipntr, double *workd,
             double *workl, const int *lworkl, int *info, size_t lbmat, size_t lwhich);
void dseupd_(const int *rvec, const char *howmny, int *select, double *d, double *z, const int *ldz,
             const double *sigma, const char *bmat, const int *n, const char *which, const int *nev,
             const double *tol, double *resid, const int *ncv, double *v, const int *ldv, int *iparam, int *ipntr,
             double *workd, double *workl, const int *lworkl, int *info, size_t lhowmny, size_t lbmat,
             size_t lwhich);

/* The functions dyn calls, by library: a new call adds its name here. */
#define EXTLIB_CHOLMOD(X) \
	X(cholmod_start) X(cholmod_finish) X(cholmod_allocate_sparse) X(cholmod_free_sparse) \
	X(cholmod_analyze) X(cholmod_factorize) X(cholmod_free_factor) X(cholmod_solve2) \
	X(cholmod_zeros) X(cholmod_free_dense) X(cholmod_read_matrix) X(cholmod_dense_to_sparse) \
	X(cholmod_triplet_to_sparse) X(cholmod_free_triplet) X(cholmod_copy)
#define EXTLIB_UMFPACK(X) \
	X(umfpack_di_defaults) X(umfpack_di_symbolic) X(umfpack_di_numeric) X(umfpack_di_get_numeric) \
	X(umfpack_di_wsolve) X(umfpack_di_free_numeric) X(umfpack_di_free_symbolic)
#define EXTLIB_ARPACK(X) X(dsaupd_) X(dseupd_)

#define EXTLIB_POINTER(f) __typeof__(&f) f;
struct extlib_cholmod {
	EXTLIB_CHOLMOD(EXTLIB_POINTER)
};
struct extlib_umfpack {
	EXTLIB_UMFPACK(EXTLIB_POINTER)
};
struct extlib_arpack {
	EXTLIB_ARPACK(EXTLIB_POINTER)
};
#undef EXTLIB_POINTER

const struct extlib_cholmod *extlib_cholmod(void);
const struct extlib_umfpack *extlib_umfpack(void);
const struct extlib_arpack *extlib_arpack(void);

#endif
