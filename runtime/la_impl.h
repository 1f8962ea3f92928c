/* la_impl.h — what the backends of the matrix layer share (runtime/la_*.c);
 * nothing outside the layer includes it.  A backend is an ops table, as
 * SUNDIALS' SUNLinearSolver: a new one (PETSc, say) is one more file and one
 * more line in la_solver_alloc, with no stepper touched. */
#ifndef DYN_LA_IMPL_H
#define DYN_LA_IMPL_H

#include <stddef.h>

#include "la.h"

struct la_ops {
	enum la_backend id;
	const char *name;
	/* Symbolic analysis of A's pattern; NULL when it cannot. */
	void *(*alloc)(const struct la_mat *A, unsigned flags);
	/* Numeric factorization of A (A's pattern as at alloc): 0, k > 0 the
	 * unknown (1-based, A's numbering) of a zero or non-positive pivot,
	 * -1 on failure of another kind. */
	int (*factor)(void *st, const struct la_mat *A);
	void (*solve)(void *st, double *b);
	void (*free)(void *st);
};

extern const struct la_ops la_dense_ops, la_band_ops, la_cholmod_ops, la_umfpack_ops;

/* The PETSc backends live in the module dyn-petsc.so (runtime/la_petsc.c),
 * loaded by runtime/la_plugin.c: its one symbol la_petsc_module. */
struct la_petsc_module {
	const struct la_ops *direct, *iterative;
	/* PETSc's options, for its start at the first solver allocated */
	void (*args)(int argc, char **argv);
	void (*finalize)(void);
	/* la_backend_join */
	void (*join)(int status);
	/* la_backend_failure */
	const char *(*failure)(void);
	/* "PETSc x.y.z with MPI (...)" */
	const char *(*describe)(void);
	/* la_mpi_sum, la_mpi_exchange, la_mpi_gather */
	int (*sum)(double *x, int k);
	int (*exchange)(const double *sbuf, const int *scount, const int *sdispl, double *rbuf, const int *rcount,
	                const int *rdispl);
	int (*gather)(double *x, const int *count, const int *displ);
	/* la_mpi_graph_partition */
	int (*graph_partition)(int n, const int *p, const int *ix, int *part);
};
/* The ops of LA_PETSC_DIRECT or LA_PETSC_ITERATIVE, the module loaded if
 * needed; NULL when it is not built or does not load. */
const struct la_ops *la_petsc_ops(enum la_backend b);

/* For a dense A, the entries of la_entries outside its band (A->kl
 * below, A->ku above the diagonal: zero in every value A may take) get
 * row -1, as padding; other kinds are left as they are. */
void la_entries_in_band(const struct la_mat *A, int *row, const int *col);

/* Compressed columns of the ne entries (row[k], col[k]) (entries with
 * row < 0 skipped; only i <= j when upper; the diagonal always present):
 * rows sorted within columns, duplicates merged.  *p (n + 1) and *ix
 * (nnz) are malloc'ed; map (ne, may be NULL) receives the slot of each
 * entry (-1 when skipped).  0 or -1 (out of memory). */
int la_csc_build(int n, size_t ne, const int *row, const int *col, int upper, int **p, int **ix, int *map);

/* The pattern of A + Aᵀ in compressed columns (*p, *ix malloc'ed), for
 * the orderings (a dense matrix is full).  0 or -1. */
int la_sym_pattern(const struct la_mat *A, int **p, int **ix);


#endif
