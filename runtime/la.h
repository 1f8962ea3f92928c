/* la.h — linear algebra for the steppers, in two parts.
 *
 * The matrix layer: struct la_mat (dense, banded or compressed-column
 * storage, built from triplets), its products and linear combinations, and
 * struct la_solver, a factorization whose backend is chosen from the
 * matrix's structure: LAPACK dense for small systems, LAPACK banded after a
 * reverse Cuthill-McKee ordering, CHOLMOD for symmetric positive definite
 * and UMFPACK for general sparse ones (runtime/la_*.c, one file per
 * backend, behind runtime/la_impl.h).  A stepper asks "factor this
 * combination" and "solve"; it never knows which backend answers.
 *
 * The older dense interface below it: LAPACKE wrappers for dense
 * column-major step matrices and the generalized symmetric eigenproblem.
 *
 * Matrices are given dense, column-major n×n (LAPACK layout); a banded
 * factor copies the band out of the dense matrix when it is factored.
 * Factors are allocated once per run (la_factor_alloc) and refactored in
 * place when the step changes: no allocation in la_factor or la_solve.
 */
#ifndef DYN_LA_H
#define DYN_LA_H

#include <stddef.h>

enum la_kind {
	LA_DENSE_SPD,       /* dpotrf/dpotrs */
	LA_DENSE_GENERAL,   /* dgetrf/dgetrs */
	LA_BAND_SPD,        /* dpbtrf/dpbtrs, kl = ku */
	LA_BAND_GENERAL     /* dgbtrf/dgbtrs */
};

struct la_factor;

struct la_factor *la_factor_alloc(int n, enum la_kind kind, int kl, int ku);
void la_factor_free(struct la_factor *f);
/* A dense factor's order made n, at most the order allocated: a smaller
 * system in the same storage (the basic set of an LCP).  0, or -1 for a
 * band kind or n out of range. */
int la_factor_order(struct la_factor *f, int n);

/* Factor the dense column-major n×n matrix a (not modified).  Returns 0, or
 * k > 0 when pivot k (1-based) is not positive (SPD kinds) or is zero
 * (general kinds), as LAPACK's info. */
int la_factor(struct la_factor *f, const double *a);

/* Solve in place with the last successful factorization: b := A⁻¹ b. */
void la_solve(const struct la_factor *f, double *b);

/* Lower and upper bandwidths of the nonzero pattern of a (entries with
 * |a_ij| > 0). */
void la_bandwidth(int n, const double *a, int *kl, int *ku);

/* Largest |a_ij - a_ji| relative to the largest |a_ij|: 0 for a symmetric
 * matrix. */
double la_asymmetry(int n, const double *a);

/* An orthonormal basis Z (n × (n − nc), columns) of the null space of G
 * (nc × n, column-major), by Gram–Schmidt; Q is nc × n room, v n.
 * Returns its dimension, or −1 when the rows of G are dependent. */
int la_null_space(int n, int nc, const double *G, double *Z, double *Q, double *v);

/* B = Zᵀ A Z (r × r, leading dimension r) for a dense n × n A and the r
 * columns of Z (n × r); T is n × r room; B may be A. */
void la_congruence(int n, int r, const double *Z, const double *A, double *T, double *B);

/* Generalized symmetric-definite eigenproblem K φ = λ M φ (dsygvd).
 * w receives the n eigenvalues in ascending order, phi (n×n, may be NULL)
 * the M-normalised eigenvectors as columns.  Returns 0, or k > 0 when M is
 * not positive definite (pivot k), or -1 when the iteration failed. */
int la_sygv(int n, const double *k, const double *m, double *w, double *phi);
/* The same, each eigenvalue within a few ε of itself rather than of the
 * largest where the pencil allows: the lowest from the inverted pencil
 * M φ = μ (K + σM) φ (la.c).  For the modes a user reads: the lowest
 * nwant of them (n: all) are those computed with care. */
int la_sygv_low(int n, int nwant, const double *k, const double *m, double *w, double *phi);

/* y := A x for a dense column-major n×n A. */
void la_gemv(int n, const double *a, const double *x, double *y);

/* y := A x for a dense column-major n×n A whose nonzeros lie within the
 * band kl below and ku above the diagonal: O(n (kl + ku)) work. */
void la_gemv_band(int n, int kl, int ku, const double *a, const double *x, double *y);

/* xᵀ A y. */
double la_quad(int n, const double *a, const double *x, const double *y);


/* ---- The matrix layer ---- */

/* Below this order every matrix is stored dense and factored dense
 * unless its band is narrow (la_backend_choose): LAPACK's blocked dense
 * kernels beat any sparse bookkeeping on such sizes, but not the O(n)
 * tridiagonal and banded solvers. */
enum { LA_SMALL_N = 64 };
/* The most terms of one linear combination (a M + b C + c K, plus a
 * constraint block). */
enum { LA_MAXTERM = 6 };

enum la_mat_kind {
	LA_MAT_AUTO,        /* construction only: chosen from n and the band */
	LA_MAT_DENSE,       /* x[i + j n], n² entries */
	LA_MAT_BAND,        /* x[ku + i - j + j ld], ld = kl + ku + 1: LAPACK's
	                       general band layout without dgbtrf's fill rows;
	                       slots outside the matrix are kept at zero.  A
	                       symmetric tridiagonal packed by la_mat_pack has
	                       ld = 2: a_ij at x[1 + i + j], a_ij and a_ji in
	                       one slot */
	LA_MAT_CSC          /* compressed columns p (n + 1), i (nnz), x (nnz);
	                       rows sorted, no duplicates, diagonal stored */
};

struct la_mat {
	enum la_mat_kind kind;
	int n;
	int sym;            /* the values are symmetric (exactly) */
	int kl, ku;         /* bandwidths of the pattern, natural order */
	int packed;         /* LA_MAT_BAND with ld = 2 (la_mat_pack) */
	size_t nx;          /* length of x: n², ld n (2 n + 1 packed) or nnz */
	double *x;
	int *p, *i;         /* CSC only */
	/* a combination built by la_mat_sum_init: its terms and, when S is
	 * compressed, for each term the slot of S->x that each entry of the
	 * term's x adds into (NULL for dense and banded S: the slot follows
	 * from the row and column) */
	int nterm;
	const struct la_mat *term[LA_MAXTERM];
	int *slot[LA_MAXTERM];   /* into slots, the one allocation */
	int *slots;
	/* part: a symmetric matrix in compressed columns of which this
	 * process holds columns c0 .. c1 − 1 alone, the others unspecified
	 * (empty, or partial sums): a partitioned explicit run's stiffness,
	 * assembled by each process for its own rows (la_mat_part_set;
	 * doc/DESIGN.md, "Several processes").  pcount, pdispl: every
	 * process's columns. */
	int part, c0, c1;
	int *pcount, *pdispl;
};

/* A from nnz triplets (row[k], col[k], val[k]), 0-based, duplicates summed.
 * kind LA_MAT_AUTO: dense when n <= LA_SMALL_N, banded when the band is
 * narrow (la_mat_band_pays), compressed columns otherwise.  Returns 0, -1
 * when out of memory, -2 for an index outside 0..n-1 (A is then empty;
 * la_mat_free it in every case). */
int la_mat_triplets(struct la_mat *A, enum la_mat_kind kind, int n, size_t nnz, const int *row, const int *col,
                    const double *val);
/* The same from entries that a function gives: each(src, add, acc) calls
 * add(acc, i, j, v) for every entry, always in the same order (the order
 * in which duplicates are summed).  It is called twice for a dense or
 * banded A (its band, then its values: no triplets written out) and
 * once for compressed columns, whose triplets it writes for
 * la_mat_triplets. */
typedef void la_entry_fn(void *acc, int i, int j, double v);
int la_mat_entries(struct la_mat *A, enum la_mat_kind kind, int n,
                   void (*each)(const void *src, la_entry_fn *add, void *acc), const void *src);
/* The same from entries already in compressed-column order (by column,
 * rows increasing and distinct within each): no sort, no map; -2 when
 * they are not. */
int la_mat_csc_entries(struct la_mat *A, enum la_mat_kind kind, int n, size_t nnz, const int *row, const int *col,
                       const double *val);
/* The same, A taking row and val as its own (freed with A, or at once
 * when the entries are refused): a matrix of 10^7 entries then is not
 * held twice while A is built.  row and val come from malloc, nnz + 1
 * entries each. */
int la_mat_csc_adopt(struct la_mat *A, enum la_mat_kind kind, int n, size_t nnz, int *row, const int *col,
                     double *val);
/* A from a dense column-major n×n array (its nonzeros are the pattern). */
int la_mat_from_dense(struct la_mat *A, enum la_mat_kind kind, int n, const double *a);
void la_mat_free(struct la_mat *A);
/* D: A's entries (pattern and values) in a matrix of order N >= A->n (the
 * leading block of a saddle point), stored as kind. */
int la_mat_resize(struct la_mat *D, const struct la_mat *A, int N, enum la_mat_kind kind);
/* Whether banded storage of bandwidths kl, ku is cheaper than compressed
 * columns for order n. */
int la_mat_band_pays(int n, int kl, int ku);

/* y := A x (y must not overlap x), and y += alpha A x. */
void la_mat_mul(const struct la_mat *A, const double *x, double *y);
void la_mat_muladd(const struct la_mat *A, double alpha, const double *x, double *y);
/* y := y − A x, to the bit y − t with t = A x from la_mat_mul; tmp (n)
 * is scratch, used only by compressed columns (dense and banded
 * matrices subtract row by row, in one pass). */
void la_mat_mulsub(const struct la_mat *A, const double *x, double *y, double *tmp);
/* The same for rows i0 ≤ i < i1 of a dense or banded A only (reading x
 * within A's band of those rows): a stepper that forms x a block ahead. */
void la_mat_mulsub_rows(const struct la_mat *A, const double *x, double *y, int i0, int i1);
/* xᵀ A y. */
double la_mat_dot(const struct la_mat *A, const double *x, const double *y);

/* A, in compressed columns and symmetric, becomes a part (struct la_mat):
 * this process's columns c0 .. c1 − 1, the processes' ranges ascending
 * and covering 0 .. n − 1 in rank order.  Collective.  Then la_mat_mul
 * and la_mat_dot form this process's rows (row j is column j) and gather
 * every process's: the serial products' bits on every process, at one
 * all-gather of n values each (a failed one leaves NaN).  0, or -1 when
 * MPI fails or out of memory. */
int la_mat_part_set(struct la_mat *A, int c0, int c1);
/* A, in compressed columns (whole, or a part of like's columns), keeps
 * like's columns alone (the others, and their storage, dropped) and
 * becomes a part of them.  Not collective: like's ranges are copied.
 * For the operators of an implicit run whose step matrix's rows go to
 * PETSc by process (scheme_linear.parts).  0, or -1 when out of memory
 * (A unchanged). */
int la_mat_part_restrict(struct la_mat *A, const struct la_mat *like);
/* A part made whole: every column from the process that holds it,
 * stored as kind (la_mat_triplets' kinds), the matrix the serial run
 * assembles.  Collective.  0, or -1 when MPI fails or out of memory (A
 * is then freed). */
int la_mat_part_complete(struct la_mat *A, enum la_mat_kind kind);
/* The entry a_ij (0 when not stored). */
double la_mat_get(const struct la_mat *A, int i, int j);
/* The index in A->x of a_ij, or -1 when (i, j) is not in A's pattern (a
 * dense matrix holds every entry; a band those within kl, ku): the slot
 * that a Jacobian's assembly adds into (binary search in compressed
 * columns, O(log nnz)). */
ptrdiff_t la_mat_slot(const struct la_mat *A, int i, int j);
/* A into the dense column-major n×n array a. */
void la_mat_to_dense(const struct la_mat *A, double *a);
/* The largest |a_ij|. */
double la_mat_maxabs(const struct la_mat *A);
/* Make A exactly symmetric when it is so to rounding: every pair within
 * 1e-13 of its size (an operator assembled from an energy's Hessian,
 * whose two triangles are computed apart) becomes its mean, and A->sym
 * is set; a matrix further from symmetric is left as it is.  Returns
 * A->sym. */
int la_mat_symmetrize(struct la_mat *A);
/* Whether A is diagonal (no nonzero value off it): 1 with its diagonal
 * in d (n), 0 when it is not, -1 when out of memory. */
int la_mat_diagonal(const struct la_mat *A, double *d);

/* A symmetric tridiagonal band (kl = ku = 1, A->sym) packed in place to
 * one triangle, 2n + 1 values instead of 3n (the shape of a chain's K and
 * C, which the linear step reads every step: 16 MB less at 10⁶ dofs).  A
 * packed matrix serves la_mat_get, the products (mul, muladd, mulsub,
 * dot), to_dense, maxabs, la_rows_of and the terms of a dense or banded
 * la_mat_sum; a slot stands for a_ij and a_ji, so nothing may assemble
 * into it by slot or take its pattern (la_mat_pattern, la_mat_slot, a
 * compressed sum): the linear path's operators once assembled.  Returns
 * 1 when packed, 0 when A is not of that shape (left as it is). */
int la_mat_pack(struct la_mat *A);
/* A dense A whose band (kl, ku) is narrower than n moved in place to
 * banded storage, the same values: the small operators that LA_MAT_AUTO
 * stores densely (n <= LA_SMALL_N) take a banded path's kernels (a
 * chain's pass, la_mat_pack).  Returns 1 when moved, 0 when A is not
 * dense or its band fills it, -1 when out of memory (A unchanged). */
int la_mat_band_of_dense(struct la_mat *A);

/* The pattern of A as entries in the order of A->x: for each k < A->nx,
 * row[k], col[k] (row -1: a band's padding slot). */
void la_mat_pattern(const struct la_mat *A, int *row, int *col);
/* The same into two malloc'ed arrays of A->nx (the caller frees them).
 * 0, or -1 when out of memory. */
int la_entries(const struct la_mat *A, int **row, int **col);

/* S as a linear combination of nterm matrices of one order, on the union
 * of their patterns (dense when one is dense, banded when all are banded,
 * compressed columns otherwise; NULL terms are skipped as zero).  The
 * terms must outlive S.  la_mat_sum then sets S = Σ coef[k] term[k]
 * without allocating.  Returns 0 or -1 (out of memory). */
int la_mat_sum_init(struct la_mat *S, int nterm, const struct la_mat *const *term);
void la_mat_sum(struct la_mat *S, const double *coef);

/* A factorization.  The backend is fixed when it is allocated, from the
 * pattern of the matrix it will factor; la_solver_factor then takes any
 * matrix of that same pattern (new values: the numeric factorization is
 * redone, the symbolic analysis is kept).  la_solver_solve never
 * allocates; la_solver_factor does not either, except inside UMFPACK's
 * numeric factorization (its own object, once per refactorization). */
enum la_backend {
	LA_AUTO,            /* from the structure (la_solver_alloc) */
	LA_LAPACK_DENSE,    /* dpotrf / dgetrf */
	LA_LAPACK_BAND,     /* dpttrf / dpbtrf / dgbtrf after reverse Cuthill-McKee */
	LA_CHOLMOD,         /* sparse Cholesky (SPD only) */
	LA_UMFPACK,         /* sparse LU */
	LA_PETSC_DIRECT,    /* PETSc: MUMPS (or PETSc's) LU / Cholesky */
	LA_PETSC_ITERATIVE  /* PETSc: CG (SPD) or GMRES + algebraic multigrid */
};
enum {
	LA_SPD = 1u << 0    /* the matrix is expected symmetric positive
	                       definite: Cholesky kinds (a failure reports the
	                       pivot that is not positive) */
};

struct la_solver;

/* NULL when out of memory, or when the backend cannot take the matrix
 * (CHOLMOD without LA_SPD or a non-symmetric pattern). */
struct la_solver *la_solver_alloc(const struct la_mat *A, enum la_backend backend, unsigned flags);
void la_solver_free(struct la_solver *s);
/* Returns 0; k > 0 when the matrix is singular or (LA_SPD) not positive
 * definite, k the unknown (1-based, in A's numbering) where this showed;
 * -1 when out of memory. */
int la_solver_factor(struct la_solver *s, const struct la_mat *A);
/* b := A⁻¹ b with the last successful factorization (NaN after a failed
 * one). */
void la_solver_solve(struct la_solver *s, double *b);
enum la_backend la_solver_backend(const struct la_solver *s);
const char *la_backend_name(enum la_backend b);
/* The backend LA_AUTO picks for A, and the bandwidth after the
 * reverse Cuthill-McKee ordering (may be NULL). */
enum la_backend la_backend_choose(const struct la_mat *A, unsigned flags, int *bandwidth);

/* The PETSc backends (runtime/la_petsc.c; dyn(1), PETSC): PETSc and MPI
 * start at the first such solver allocated, never before.
 * la_backend_args keeps PETSc's own command-line options (argv need not
 * hold the program's name) for that start; la_backend_finalize stops
 * PETSc if it was started (call it once, at exit, from the thread that
 * ran the solvers).  la_backend_failure takes the reason of the last
 * failed solve of such a backend (NULL when none), which filled its
 * vector with NaN.  la_backend_petsc describes the PETSc built in, NULL
 * without it. */
void la_backend_args(int argc, char **argv);
/* NULL when the PETSc backends can be used, else why not (built without
 * PETSc, or its module dyn-petsc.so does not load: runtime/la_plugin.c). */
const char *la_backend_load_error(void);
void la_backend_finalize(void);
/* On several MPI processes with PETSc started, before
 * la_backend_finalize on every process: a barrier, which a process that
 * failed (status non-zero) waits at for 5 s at most, then ends every
 * process (MPI_Abort, not returning): its failure was then its own, and
 * the others wait for it elsewhere.  Otherwise nothing. */
void la_backend_join(int status);
const char *la_backend_failure(void);
const char *la_backend_petsc(void);

/* Runs on several MPI processes (dyn(1), MPI): lang/main.c reads the
 * launcher's environment and sets the rank and the number of processes
 * before anything runs (0 and 1 otherwise).  Every process runs the whole
 * script; what is distributed is the matrix layer's PETSc solvers (their
 * matrices' rows partitioned, MPIAIJ, runtime/la_petsc.c) and the rows
 * of an explicit step (runtime/part.c). */
void la_mpi_set(int rank, int size);
int la_mpi_rank(void);
int la_mpi_size(void);
/* The collectives of runtime/part.c, through the PETSc module (MPI started
 * by PETSc if it was not): la_mpi_sum adds k values (k <= 64) over the
 * processes, the same bits on all; la_mpi_exchange is MPI_Alltoallv of
 * doubles; la_mpi_gather makes x whole on every process from its blocks
 * (process r's at displ[r], count[r] values).  0, or -1 when MPI fails or
 * dyn has no PETSc module. */
int la_mpi_sum(double *x, int k);
int la_mpi_exchange(const double *sbuf, const int *scount, const int *sdispl, double *rbuf, const int *rcount,
                    const int *rdispl);
int la_mpi_gather(double *x, const int *count, const int *displ);
/* part[i] in 0 .. P − 1 for each vertex i of a graph every process holds
 * whole (compressed rows p, ix: symmetric, no loops), from PETSc's
 * MatPartitioning (PT-Scotch in Debian's PETSc; -mat_partitioning_type
 * chooses), the same on every process.  Collective.  0; -2 when PETSc
 * refused -mat_partitioning_type (la_backend_failure says why); -1 when
 * PETSc fails otherwise or dyn has no PETSc module. */
int la_mpi_graph_partition(int n, const int *p, const int *ix, int *part);

/* ---- Large eigenproblems ---- */

/* The products of a shift-invert Lanczos iteration for K φ = λ M φ. */
struct la_eigs_ops {
	void *ctx;
	/* y := M x */
	void (*mmul)(void *ctx, const double *x, double *y);
	/* b := (K − σM)⁻¹ b, on the constraints' tangent space when there
	 * are constraints; non-zero on failure */
	int (*solve)(void *ctx, double *b);
};
/* The nev eigenvalues nearest sigma (ascending) into lam and their
 * M-orthonormal vectors (n × nev, columns; may be NULL) into phi, by
 * ARPACK (dsaupd/dseupd, mode 3, tolerance: machine precision).
 * Returns 0; -1 out of memory or a failed solve, -2 nev outside
 * 1..n−1, -3 ARPACK's error, -4 no convergence. */
int la_eigs(int n, int nev, double sigma, const struct la_eigs_ops *ops, double *lam, double *phi);

/* The products of a Lanczos iteration for the largest eigenvalue of
 * K φ = λ M φ. */
struct la_eigmax_ops {
	void *ctx;
	/* y := K x */
	void (*kmul)(void *ctx, const double *x, double *y);
	/* xᵀ M x */
	double (*mdot)(void *ctx, const double *x);
	/* b := M⁻¹ b; non-zero on failure */
	int (*msolve)(void *ctx, double *b);
	/* On several processes (sum not NULL): the vectors are this
	 * process's rows first .. first + n − 1 of nglobal, kmul and mdot
	 * those of the whole operators (mdot's sum is every process's), and
	 * sum adds k values over the processes, the same bits on all
	 * (la_mpi_sum), so that every process takes the same steps */
	int (*sum)(double *x, int k);
	int first, nglobal;
};
/* The largest eigenvalue of K φ = λ M φ (K symmetric, M symmetric
 * positive definite, order n) into *lmax, from below, by Lanczos in the
 * M inner product (runtime/la_eigmax.c): at most maxit steps, stopped
 * when its Ritz vector's residual is within rtol |λ|; *steps (may be
 * NULL) the steps taken.  Returns 0; -1 out of memory, -2 a failed
 * solve or a zero xᵀMx, -3 a product that is not finite (K's entries:
 * a Hessian with a NaN). */
int la_eig_max(int n, const struct la_eigmax_ops *ops, int maxit, double rtol, double *lmax, int *steps);

/* The power iteration's products, on the entries lo .. hi − 1 of its
 * vectors: all of them on one process, a process's own rows under MPI,
 * whose sums then go through sum.  Each returns 0, or -1 when it fails
 * (MPI). */
struct la_power_ops {
	void *ctx;
	int lo, hi;
	int (*kmul)(void *ctx, double *x, double *y);        /* y := K x (x's ghosts may be filled) */
	int (*mmul)(void *ctx, const double *x, double *y);  /* y := M x */
	int (*msolve)(void *ctx, double *b);                 /* b := M⁻¹ b */
	int (*sum)(void *ctx, double *s);                    /* *s over the processes; NULL: one */
};
/* Iterations x := M⁻¹(K + σM)x, M-normalised, of a warm start x (a start
 * vector with a component along every mode of interest when x is 0),
 * until the Rayleigh quotient θ = xᵀKx/xᵀMx settles to 1e-10, at most it
 * (500 the first time, *warm 0): a lower bound of the largest eigenvalue
 * of K + σM against M, less σ, tracked step after step by the stability
 * monitors (omega.c, part_phi.c).  y and t are scratch of x's length.
 * 0 with *theta, or -1 when an operation failed. */
int la_eig_power(const struct la_power_ops *op, double *x, double *y, double *t, double sigma, int *warm, int it,
                 double *theta);

/* A reverse Cuthill-McKee ordering of the symmetric pattern (p, ix),
 * compressed columns: perm[k] is the unknown placed k-th.  Returns the
 * bandwidth max |pinv[i] - pinv[j]| over the entries, or -1 when out of
 * memory.  The band solver's ordering, and a mesh's for its partition
 * (fe_space_node_order). */
int la_rcm(int n, const int *p, const int *ix, int *perm);

#endif
