/* la_petsc.c — the PETSc backend of the matrix layer (solver = direct |
 * iterative, dyn(5) RUNS, Options): the step matrix, held in compressed
 * columns by the layer, is copied into a PETSc Mat and solved by a KSP.
 *
 *   direct     KSPPREONLY with LU, or Cholesky for an SPD matrix, by MUMPS
 *              when PETSc has it (as code_aster and FEniCS do), else by
 *              PETSc's own factorization;
 *   iterative  CG for an SPD matrix (M + γτC + βτ²K), GMRES otherwise
 *              (Newton Jacobians, saddle points), preconditioned by hypre's
 *              BoomerAMG when PETSc has it, else by GAMG.
 *
 * PETSc's own options (-ksp_type, -pc_type, -ksp_rtol, ...) from dyn's
 * command line (la_backend_args) and from PETSC_OPTIONS are applied after
 * these defaults (KSPSetFromOptions), so they win, as PETSc users expect.
 *
 * This file is not linked into dyn: it is the module dyn-petsc.so, which
 * runtime/la_plugin.c loads (dlopen) at the first PETSc solver or at
 * --version, so that the hundred shared libraries PETSc brings (MPI,
 * MUMPS, hypre, ...) cost nothing to the runs that do not use them (their
 * loading took 70 ms of CPU at each start of dyn).  It calls back into
 * dyn (la_entries, la_csc_build; dyn is linked with -rdynamic).
 *
 * On one process the Mat is SeqAIJ, preallocated exactly from the
 * layer's pattern (MatSeqAIJSetPreallocationCSR), and refilled in place at
 * each refactorization.  On several (mpirun, dyn(1) MPI) every process
 * holds the whole matrix of the layer (the driver is replicated): the
 * unknowns are partitioned by MatPartitioning, each process fills the
 * MPIAIJ rows it owns, puts its rows of b in and gathers the whole
 * solution back.  A matrix held by columns (la.h, part: the step matrix
 * of an implicit run on a mesh, scheme_linear.parts) is not partitioned:
 * each process's columns are its rows, in the layer's numbering.
 * PETSc and MPI are started at the first solver allocated (a run that
 * never asks for them never pays MPI_Init) and stopped by
 * la_backend_finalize.
 *
 * A failed solve (KSP's negative converged reason, a zero pivot reported by
 * the PC, or a solution whose true residual ‖b − Ax‖/‖b‖ exceeds
 * max(100 rtol, 1e-9): KSPPREONLY with a preconditioner that is not a
 * factorization "converges" in one application whatever the answer) fills
 * b with NaN, as every backend's failed factor does, and leaves PETSc's
 * reason for la_backend_failure, which the run reports (exit 4). */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "la_impl.h"

#include <petscksp.h>

/* ---- starting and stopping PETSc ---- */

enum { MAXARG = 64 };
static char *pargv[MAXARG + 3];
static int pargc;
static int started;             /* 1: PetscInitialize succeeded; -1: it failed */
static char failure[512];       /* the last failure, for la_backend_failure */
static PetscMPIInt nproc = 1, myrank;   /* PETSC_COMM_WORLD's */
static MPI_Comm joincomm = MPI_COMM_NULL;   /* petsc_join's own: its barrier
                                               matches no other operation */

/* argv[0] is the program's name, as PetscInitialize wants.  PETSc's own
 * signal handler is turned off: dyn's handles Ctrl-C (exit 130, complete
 * records). */
static void set_args(int argc, char **argv)
{
	pargc = 0;
	pargv[pargc++] = (char *)"dyn";
	pargv[pargc++] = (char *)"-no_signal_handler";
	for (int k = 0; k < argc && pargc < MAXARG + 2; k++)
		pargv[pargc++] = argv[k];
	pargv[pargc] = NULL;
}

static void set_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_failure(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(failure, sizeof failure, fmt, ap);
	va_end(ap);
}

static const char *take_failure(void)
{
	static char taken[sizeof failure];
	if (!failure[0])
		return NULL;
	memcpy(taken, failure, sizeof taken);
	failure[0] = 0;
	return taken;
}

/* PETSc refused one of its options (the command line's or
 * PETSC_OPTIONS', -ksp_type nonsense): its own message, which the run
 * reports instead of a failed allocation */
static void options_failure(void)
{
	const char *text = NULL;
	char *specific = NULL;
	PetscErrorMessage(0, &text, &specific);
	set_failure("PETSc refused its options (command line or PETSC_OPTIONS): %s",
	            specific && *specific ? specific : "no reason given");
}

static int petsc_start(void)
{
	if (started)
		return started > 0 ? 0 : -1;
	int argc = pargc;
	char **argv = pargv;
	if (PetscInitialize(&argc, &argv, NULL, NULL)) {
		started = -1;
		set_failure("PETSc did not start (PetscInitialize failed)");
		return -1;
	}
	started = 1;
	/* errors come back as codes, checked here, never as PETSc's
	 * traceback on stderr */
	PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
	PetscMPIInt size = 1, rank = 0;
	MPI_Comm_size(PETSC_COMM_WORLD, &size);
	MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
	nproc = size;
	myrank = rank;
	if (size > 1 && MPI_Comm_dup(PETSC_COMM_WORLD, &joincomm) != MPI_SUCCESS) {
		set_failure("PETSc started, but MPI_Comm_dup failed");
		return -1;
	}
	if (size != la_mpi_size()) {
		/* lang/main.c reads Open MPI's and MPICH's environment; this is
		 * a launcher it did not recognise, whose processes would each
		 * believe they run alone */
		set_failure("started on %d MPI processes by a launcher that dyn does not recognise (dyn(1), MPI: Open "
		            "MPI's and MPICH's mpirun); run one process", (int)size);
		return -1;
	}
	return 0;
}

static void petsc_finalize(void)
{
	if (started > 0) {
		if (joincomm != MPI_COMM_NULL)
			MPI_Comm_free(&joincomm);
		PetscPopErrorHandler();
		PetscFinalize();
	}
	started = 0;
}

/* The end of a run on several processes, on every process: a barrier
 * that the others must reach too.  A process whose status is a failure
 * waits for them 5 s at most, then ends them all (MPI_Abort, and mpirun
 * exits with status): when the failure was its alone (a record file
 * that only rank 0 writes could not be written), the others wait in a
 * collective operation for it and would never come, and MPI_Finalize
 * would wait for them.  A failure that every process met (a NaN, a
 * failed solve: the same on all of them) ends them normally. */
static void petsc_join(int status)
{
	if (started <= 0 || nproc == 1)
		return;
	fflush(stdout);
	fflush(stderr);
	MPI_Request rq;
	if (MPI_Ibarrier(joincomm, &rq) != MPI_SUCCESS)
		MPI_Abort(PETSC_COMM_WORLD, status ? status : 1);
	if (!status) {
		(void)MPI_Wait(&rq, MPI_STATUS_IGNORE);
		return;
	}
	for (int i = 0; i < 500; i++) {
		int done = 0;
		(void)MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	MPI_Abort(PETSC_COMM_WORLD, status);
}

static const char *describe(void)
{
	static char buf[128];
	snprintf(buf, sizeof buf, "PETSc %d.%d.%d with MPI (direct: %s; iterative: CG/GMRES + %s)", PETSC_VERSION_MAJOR,
	         PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR,
#ifdef PETSC_HAVE_MUMPS
	         "MUMPS",
#else
	         "PETSc LU",
#endif
#ifdef PETSC_HAVE_HYPRE
	         "hypre BoomerAMG"
#else
	         "GAMG"
#endif
	);
	return buf;
}

/* ---- the solver ---- */

struct pk {
	int n;
	int iterative;
	int spd;
	size_t ne;
	PetscInt *at;           /* slot in the Mat's value array of each entry of A->x (-1: padding, or a row
	                           another process owns) */
	PetscInt nnz;           /* entries of the Mat (of this process's rows) */
	Mat A;
	KSP ksp;
	Vec b, x, r;
	int setup;              /* the KSP was set up for the current values */
	PetscReal anorm;        /* ‖A‖_F of the current values (pk_solve's backward error) */
	int split_checked;      /* saddle_split looked at the first values */
	char what[96];          /* "ksp cg, pc hypre", for the messages */
	/* on several processes (nproc > 1): the rows rstart..rend-1 of the
	 * partitioned numbering are this process's; perm[i] is the
	 * partitioned number of the layer's unknown i, iperm its inverse;
	 * ai, aj the compressed rows of those rows (global partitioned
	 * columns, sorted), v their values; the solution is gathered to every
	 * process through all (into xall) */
	PetscInt *perm, *iperm, rstart, rend;
	PetscInt *ai, *aj;
	PetscScalar *v;
	VecScatter all;
	Vec xall;
};

static void pk_free(void *p)
{
	struct pk *k = p;
	if (!k)
		return;
	if (started > 0) {
		KSPDestroy(&k->ksp);
		MatDestroy(&k->A);
		VecDestroy(&k->b);
		VecDestroy(&k->x);
		VecDestroy(&k->r);
		VecScatterDestroy(&k->all);
		VecDestroy(&k->xall);
	}
	free(k->at);
	free(k->perm);
	free(k->iperm);
	free(k->ai);
	free(k->aj);
	free(k->v);
	free(k);
}

/* ---- several processes: the rows partitioned ---- */

/* partitioning_apply on this process alone */
static int partitioning_apply_here(Mat adj, MatPartitioning *mp, IS *is)
{
	if (MatPartitioningCreate(PETSC_COMM_WORLD, mp) || MatPartitioningSetAdjacency(*mp, adj) ||
#if defined(PETSC_HAVE_PTSCOTCH)
	    MatPartitioningSetType(*mp, MATPARTITIONINGPTSCOTCH)
#elif defined(PETSC_HAVE_PARMETIS)
	    MatPartitioningSetType(*mp, MATPARTITIONINGPARMETIS)
#else
	    MatPartitioningSetType(*mp, MATPARTITIONINGCURRENT)
#endif
	)
		return -1;
	if (MatPartitioningSetFromOptions(*mp)) {
		options_failure();
		return 1;
	}
	return MatPartitioningApply(*mp, is) ? -1 : 0;
}

/* The parts of the graph adj (MatCreateMPIAdj): PT-Scotch or ParMETIS
 * when PETSc has them, else its "current" partition, contiguous blocks;
 * the option -mat_partitioning_type chooses.  *mp is the caller's to
 * destroy.  0; 1 when PETSc refused the option (an unknown type, or one
 * this PETSc lacks: the failure says so, and the run stops as for any
 * option refused); -1 when the partitioner failed on this graph (the
 * caller takes contiguous blocks).  The outcome is every process's (the
 * worst of theirs), so that none goes on to a collective (ISAllGather)
 * that another, failing alone, skips. */
static int partitioning_apply(Mat adj, MatPartitioning *mp, IS *is)
{
	int pa = partitioning_apply_here(adj, mp, is);
	int worst = pa > 0 ? 2 : pa < 0 ? 1 : 0;   /* a refused option first */
	if (MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD) != MPI_SUCCESS)
		return -1;
	return worst == 2 ? 1 : worst == 1 ? -1 : 0;
}

/* The partition of the unknowns: the graph of A + Aᵀ, given to PETSc's
 * MatPartitioning (PT-Scotch or ParMETIS when PETSc has them, else its
 * "current" partition, contiguous blocks of the layer's numbering; the
 * option -mat_partitioning_type chooses), each process handing over the
 * rows of one contiguous block of the replicated pattern.  The parts are
 * numbered in rank order (ISPartitioningToNumbering), so that each
 * process owns one contiguous range of rows, as PETSc's layouts want. */
static int partition(struct pk *k, const struct la_mat *A)
{
	int n = A->n, *p = NULL, *ix = NULL, rc = -1;
	if (A->part) {
		/* a part (la.h): this process holds columns c0 .. c1 − 1 of a
		 * symmetric matrix, which are its rows, in the layer's numbering */
		k->rstart = A->c0;
		k->rend = A->c1;
		k->perm = malloc(((size_t)n + 1) * sizeof *k->perm);
		k->iperm = malloc(((size_t)n + 1) * sizeof *k->iperm);
		if (!k->perm || !k->iperm)
			return -1;
		for (int i = 0; i < n; i++)
			k->perm[i] = k->iperm[i] = i;
		return 0;
	}
	PetscInt b0 = (PetscInt)((long long)n * myrank / nproc), b1 = (PetscInt)((long long)n * (myrank + 1) / nproc);
	PetscInt nl = b1 - b0, *ia = NULL, *ja = NULL, *counts = NULL;
	Mat adj = NULL;
	MatPartitioning part = NULL;
	IS is = NULL, num = NULL, numall = NULL;
	if (la_sym_pattern(A, &p, &ix))
		return -1;
	PetscInt len = 0;
	for (PetscInt i = b0; i < b1; i++)
		for (int q = p[i]; q < p[i + 1]; q++)
			len += ix[q] != i;
	/* MatCreateMPIAdj takes ia and ja, PETSc's allocations */
	if (PetscMalloc1(nl + 1, &ia) || PetscMalloc1(len + 1, &ja))
		goto out;
	ia[0] = 0;
	len = 0;
	for (PetscInt i = b0; i < b1; i++) {
		for (int q = p[i]; q < p[i + 1]; q++)
			if (ix[q] != i)
				ja[len++] = ix[q];
		ia[i - b0 + 1] = len;
	}
	if (MatCreateMPIAdj(PETSC_COMM_WORLD, nl, n, ia, ja, NULL, &adj))
		goto out;
	ia = ja = NULL;
	int pa = partitioning_apply(adj, &part, &is);
	if (pa > 0)
		goto out;
	if (pa < 0) {
		/* the partitioner failed on this graph (-mat_partitioning_type
		 * square on a graph that is not a grid): contiguous blocks of
		 * the layer's numbering, as PETSc's "current" partition */
		k->rstart = b0;
		k->rend = b1;
		k->perm = malloc(((size_t)n + 1) * sizeof *k->perm);
		k->iperm = malloc(((size_t)n + 1) * sizeof *k->iperm);
		if (!k->perm || !k->iperm)
			goto out;
		for (int i = 0; i < n; i++)
			k->perm[i] = k->iperm[i] = i;
		rc = 0;
		goto out;
	}
	if (ISPartitioningToNumbering(is, &num) || ISAllGather(num, &numall))
		goto out;
	if (!(counts = calloc((size_t)nproc, sizeof *counts)) || ISPartitioningCount(is, nproc, counts))
		goto out;
	k->rstart = 0;
	for (int r = 0; r < myrank; r++)
		k->rstart += counts[r];
	k->rend = k->rstart + counts[myrank];
	k->perm = malloc(((size_t)n + 1) * sizeof *k->perm);
	k->iperm = malloc(((size_t)n + 1) * sizeof *k->iperm);
	const PetscInt *g;
	if (!k->perm || !k->iperm || ISGetIndices(numall, &g))
		goto out;
	for (int i = 0; i < n; i++) {
		k->perm[i] = g[i];
		k->iperm[g[i]] = i;
	}
	ISRestoreIndices(numall, &g);
	rc = 0;
out:
	free(p);
	free(ix);
	free(counts);
	PetscFree(ia);
	PetscFree(ja);
	ISDestroy(&is);
	ISDestroy(&num);
	ISDestroy(&numall);
	MatPartitioningDestroy(&part);
	MatDestroy(&adj);
	return rc;
}

struct colent {
	PetscInt col;
	size_t e;
};

static int colent_cmp(const void *a, const void *b)
{
	const struct colent *x = a, *y = b;
	return (x->col > y->col) - (x->col < y->col);
}

/* The MPIAIJ matrix of this process's rows, preallocated exactly from the
 * replicated pattern (row, col: A's entries, la_entries), and the slot of
 * each entry of A->x among them. */
static int mpi_mat(struct pk *k, const struct la_mat *A, const int *row, const int *col)
{
	if (partition(k, A))
		return -1;
	/* a part's column j is row j (symmetric): its entries transposed */
	if (A->part) {
		const int *t = row;
		row = col;
		col = t;
	}
	PetscInt nloc = k->rend - k->rstart;
	struct colent *ce = NULL;
	int rc = -1;
	k->ai = calloc((size_t)nloc + 2, sizeof *k->ai);
	if (!k->ai)
		return -1;
	for (size_t e = 0; e < A->nx; e++)
		if (row[e] >= 0 && k->perm[row[e]] >= k->rstart && k->perm[row[e]] < k->rend)
			k->ai[k->perm[row[e]] - k->rstart + 1]++;
	for (PetscInt r = 0; r < nloc; r++)
		k->ai[r + 1] += k->ai[r];
	k->nnz = k->ai[nloc];
	ce = malloc(((size_t)k->nnz + 1) * sizeof *ce);
	k->aj = malloc(((size_t)k->nnz + 1) * sizeof *k->aj);
	k->v = calloc((size_t)k->nnz + 1, sizeof *k->v);
	PetscInt *fill = calloc((size_t)nloc + 1, sizeof *fill);
	if (!ce || !k->aj || !k->v || !fill)
		goto out;
	for (size_t e = 0; e < A->nx; e++) {
		k->at[e] = -1;
		if (row[e] < 0)
			continue;
		PetscInt r = k->perm[row[e]] - k->rstart;
		if (r < 0 || r >= nloc)
			continue;
		struct colent c = { k->perm[col[e]], e };
		ce[k->ai[r] + fill[r]++] = c;
	}
	/* a row's columns sorted, as the CSR preallocation wants (the
	 * layer's pattern has no repeated entry) */
	for (PetscInt r = 0; r < nloc; r++) {
		qsort(ce + k->ai[r], (size_t)(k->ai[r + 1] - k->ai[r]), sizeof *ce, colent_cmp);
		for (PetscInt q = k->ai[r]; q < k->ai[r + 1]; q++) {
			k->aj[q] = ce[q].col;
			k->at[ce[q].e] = q;
		}
	}
	if (MatCreate(PETSC_COMM_WORLD, &k->A) || MatSetSizes(k->A, nloc, nloc, k->n, k->n) ||
	    MatSetType(k->A, MATMPIAIJ) || MatMPIAIJSetPreallocationCSR(k->A, k->ai, k->aj, NULL) ||
	    MatSetOption(k->A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE))
		goto out;
	rc = 0;
out:
	free(ce);
	free(fill);
	return rc;
}

/* BoomerAMG's settings for the step matrices of solids.  PETSc's
 * defaults (Falgout coarsening, classical interpolation, no limit on the
 * interpolation's entries) keep hypre's older choice, whose coarse
 * operators grow dense on 3-D elasticity: the 3-D block of bench/
 * (P1 tetrahedra, 295 000 unknowns) took 5.5 s a newmark step and 820 MB
 * for the hierarchy, and at 10^6 unknowns 13.8 GB in all.  hypre's
 * manual advises for 3-D problems HMIS coarsening with extended+i
 * interpolation, at most 4 entries per row of it, a strength threshold
 * of 0.5 and one level of aggressive coarsening: 1.65 s a step and
 * 165 MB there (and 2.4 times as fast on the 2-D block), a few more
 * iterations each far cheaper.  Put in PETSc's options for the
 * KSPSetFromOptions that reads them, where the user gave none of that
 * name (theirs win, -pc_type included: unused by another PC), and taken
 * out after (amg_defaults_pop), so that -options_left shows only the
 * user's.  Returns the set as a bit mask, or -1. */
static const char *const amg_default[][2] = {
	{ "-pc_hypre_boomeramg_coarsen_type", "HMIS" },
	{ "-pc_hypre_boomeramg_interp_type", "ext+i" },
	{ "-pc_hypre_boomeramg_P_max", "4" },
	{ "-pc_hypre_boomeramg_agg_nl", "1" },
	{ "-pc_hypre_boomeramg_strong_threshold", "0.5" },
};
enum { AMG_NDEFAULT = sizeof amg_default / sizeof amg_default[0] };

static int amg_defaults_push(void)
{
#ifdef PETSC_HAVE_HYPRE
	int set = 0;
	for (int i = 0; i < AMG_NDEFAULT; i++) {
		PetscBool has = PETSC_FALSE;
		if (PetscOptionsHasName(NULL, NULL, amg_default[i][0], &has))
			return -1;
		if (has)
			continue;
		if (PetscOptionsSetValue(NULL, amg_default[i][0], amg_default[i][1]))
			return -1;
		set |= 1 << i;
	}
	return set;
#else
	return 0;
#endif
}

static void amg_defaults_pop(int set)
{
	for (int i = 0; i < AMG_NDEFAULT; i++)
		if (set > 0 && (set & (1 << i)))
			PetscOptionsClearValue(NULL, amg_default[i][0]);
}

static void *pk_alloc(const struct la_mat *A, unsigned flags, int iterative)
{
	if (petsc_start())
		return NULL;
	struct pk *k = calloc(1, sizeof *k);
	int *row = NULL, *col = NULL, *p = NULL, *ix = NULL, *map = NULL;
	PetscInt *ai = NULL, *aj = NULL;
	if (!k)
		return NULL;
	k->n = A->n;
	k->ne = A->nx;
	k->iterative = iterative;
	k->spd = (flags & LA_SPD) && A->sym;
	map = malloc((A->nx + 1) * sizeof *map);
	k->at = malloc((A->nx + 1) * sizeof *k->at);
	if (!map || !k->at || la_entries(A, &row, &col))
		goto fail;
	MPI_Comm comm = nproc > 1 ? PETSC_COMM_WORLD : PETSC_COMM_SELF;
	if (nproc > 1) {
		if (mpi_mat(k, A, row, col))
			goto fail;
	} else {
		/* compressed rows (PETSc's AIJ) are the compressed columns of
		 * the transpose: the entries with row and column swapped */
		if (la_csc_build(A->n, A->nx, col, row, 0, &p, &ix, map))
			goto fail;
		k->nnz = p[A->n];
		ai = malloc(((size_t)A->n + 1) * sizeof *ai);
		aj = malloc(((size_t)k->nnz + 1) * sizeof *aj);
		if (!ai || !aj)
			goto fail;
		for (int i = 0; i <= A->n; i++)
			ai[i] = p[i];
		for (PetscInt e = 0; e < k->nnz; e++)
			aj[e] = ix[e];
		for (size_t e = 0; e < A->nx; e++)
			k->at[e] = map[e];
		PetscInt n = A->n;
		if (MatCreate(PETSC_COMM_SELF, &k->A) || MatSetSizes(k->A, n, n, n, n) || MatSetType(k->A, MATSEQAIJ) ||
		    MatSeqAIJSetPreallocationCSR(k->A, ai, aj, NULL) ||
		    MatSetOption(k->A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE))
			goto fail;
	}
	/* symmetric, but not declared positive definite: MUMPS then
	 * factors LDLᵀ with pivoting (its SYM = 2), which also takes the
	 * indefinite Jacobian of a non-convex energy, where CHOLMOD's failed
	 * LLᵀ sends Newton to LU (runtime/newton.c); eternal, as refilled
	 * values stay symmetric (MatAssemblyEnd would otherwise forget it) */
	if (k->spd && (MatSetOption(k->A, MAT_SYMMETRIC, PETSC_TRUE) ||
	               MatSetOption(k->A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE)))
		goto fail;
	if (MatCreateVecs(k->A, &k->x, &k->b) || VecDuplicate(k->b, &k->r))
		goto fail;
	if (nproc > 1 && VecScatterCreateToAll(k->x, &k->all, &k->xall))
		goto fail;
	KSP ksp;
	PC pc;
	if (KSPCreate(comm, &ksp))
		goto fail;
	k->ksp = ksp;
	if (KSPSetOperators(ksp, k->A, k->A) || KSPGetPC(ksp, &pc))
		goto fail;
	if (!iterative) {
		if (KSPSetType(ksp, KSPPREONLY) || PCSetType(pc, k->spd ? PCCHOLESKY : PCLU))
			goto fail;
#ifdef PETSC_HAVE_MUMPS
		if (PCFactorSetMatSolverType(pc, MATSOLVERMUMPS))
			goto fail;
		/* on several processes MUMPS counts the negative pivots (the
		 * inertia, definite()) only without ScaLAPACK at the root, and
		 * the null ones only when it looks for them (ICNTL(24)): a
		 * mass zero on part of a body factored "successfully", its
		 * LDLᵀ having no negative pivot, and the run went on */
		Mat F;
		if (k->spd && (PCFactorSetUpMatSolverType(pc) || PCFactorGetMatrix(pc, &F) ||
		               (nproc > 1 && MatMumpsSetIcntl(F, 13, 1)) || MatMumpsSetIcntl(F, 24, 1)))
			goto fail;
#endif
	} else {
		/* the residual that KSP tests is the true one (unpreconditioned
		 * norm: CG supports it, GMRES has it with right preconditioning),
		 * so that the run's tolerance is one on b − Ax */
		if (KSPSetType(ksp, k->spd ? KSPCG : KSPGMRES) ||
		    (k->spd ? KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED) : KSPSetPCSide(ksp, PC_RIGHT)))
			goto fail;
#ifdef PETSC_HAVE_HYPRE
		if (PCSetType(pc, PCHYPRE) || PCHYPRESetType(pc, "boomeramg"))
			goto fail;
#else
		if (PCSetType(pc, PCGAMG))
			goto fail;
#endif
	}
	/* 1e-12 relative: each step's solution then holds to about 1e-12
	 * κ(S); the step matrices of implicit schemes (M + βτ²K) are well
	 * conditioned at usable steps, so this stays far below the scheme's
	 * own error, at a few more iterations than the 1e-5 of PETSc's
	 * default.  A direct solve (KSPPREONLY) ignores it, but the check
	 * of the true residual in pk_solve reads it. */
	if (KSPSetTolerances(ksp, 1e-12, 1e-300, PETSC_DEFAULT, 10000))
		goto fail;
	int amg_set = iterative ? amg_defaults_push() : 0;
	if (amg_set < 0)
		goto fail;
	PetscErrorCode from_options = KSPSetFromOptions(ksp);
	amg_defaults_pop(amg_set);
	if (from_options) {
		options_failure();
		goto fail;
	}
	{
		KSPType kt;
		PCType pt;
		KSPGetType(ksp, &kt);
		PCGetType(pc, &pt);
		snprintf(k->what, sizeof k->what, "ksp %s, pc %s", kt ? kt : "?", pt ? pt : "?");
	}
	free(row);
	free(col);
	free(p);
	free(ix);
	free(map);
	free(ai);
	free(aj);
	return k;
fail:
	free(row);
	free(col);
	free(p);
	free(ix);
	free(map);
	free(ai);
	free(aj);
	pk_free(k);
	return NULL;
}

static void *pk_alloc_direct(const struct la_mat *A, unsigned flags)
{
	return pk_alloc(A, flags, 0);
}

static void *pk_alloc_iterative(const struct la_mat *A, unsigned flags)
{
	return pk_alloc(A, flags, 1);
}

/* An iterative solve of a saddle point [A Bᵀ; B 0] (constraints'
 * multipliers, whose rows have a zero diagonal): algebraic multigrid or
 * an incomplete factorization of the whole breaks down on the zero
 * block (GMRES + hypre: DIVERGED_BREAKDOWN, or NaN), so the
 * preconditioner is PETSc's field split on the saddle point it detects,
 * the Schur complement S = −B diag(A)⁻¹Bᵀ preconditioned by itself
 * (selfp), as PETSc's manual advises for Stokes-like systems.  Decided
 * at the first values, and only when the user chose no -pc_type (the
 * -fieldsplit_* options then apply). */
static int saddle_split(struct pk *k)
{
	if (!k->iterative || k->spd || k->split_checked)
		return 0;
	k->split_checked = 1;
	PetscBool set = PETSC_FALSE;
	IS zeros = NULL;
	PetscInt nz = 0;
	if (PetscOptionsHasName(NULL, NULL, "-pc_type", &set) || set)
		return 0;
	if (MatFindZeroDiagonals(k->A, &zeros))
		return -1;
	ISGetSize(zeros, &nz);
	ISDestroy(&zeros);
	if (nz == 0)
		return 0;
	PC pc;
	PetscBool kset = PETSC_FALSE, side = PETSC_FALSE, sset = PETSC_FALSE;
	if (PetscOptionsHasName(NULL, NULL, "-ksp_type", &kset) ||
	    PetscOptionsHasName(NULL, NULL, "-ksp_pc_side", &side) ||
	    PetscOptionsHasName(NULL, NULL, "-pc_fieldsplit_schur_precondition", &sset))
		return -1;
	/* (FGMRES preconditions on the right only: a side asked for keeps
	 * the Krylov method that has it) */
	kset = kset || side;
	/* The split's inner solves (A's block by GMRES + an incomplete
	 * factorisation to PETSc's 1e-5, S's by its own Krylov solve) make
	 * the preconditioner change from one application to the next: plain
	 * GMRES then reports a residual of 1e-17 while the true one is 1e-8
	 * (on several processes, whose block Jacobi is the less exact), and
	 * the residual check failed the step.  Flexible GMRES (Saad 1993)
	 * allows a preconditioner that varies; right-preconditioned, its
	 * residual is the true one. */
	if (!kset && KSPSetType(k->ksp, KSPFGMRES))
		return -1;
	/* detecting the saddle point sets S's preconditioner to S itself
	 * (PCSetFromOptions applies it): selfp is set after, unless the
	 * user chose one */
	if (KSPGetPC(k->ksp, &pc) || PCSetType(pc, PCFIELDSPLIT) || PCFieldSplitSetDetectSaddlePoint(pc, PETSC_TRUE) ||
	    PCFieldSplitSetType(pc, PC_COMPOSITE_SCHUR) || PCSetFromOptions(pc) ||
	    (!sset && PCFieldSplitSetSchurPre(pc, PC_FIELDSPLIT_SCHUR_PRE_SELFP, NULL)))
		return -1;
	KSPType kt;
	KSPGetType(k->ksp, &kt);
	snprintf(k->what, sizeof k->what, "ksp %s, pc fieldsplit", kt ? kt : "?");
	return 0;
}

/* A direct factorization of a matrix declared positive definite
 * (LA_SPD): MUMPS factors a symmetric matrix LDLᵀ with pivoting, which
 * succeeds on an indefinite one, and a step matrix the other backends
 * refuse (a negative stiffness) was integrated to 1e12.  Its inertia
 * (MatGetInertia of the factor) says whether it is definite: n + 1 (no
 * pivot has a number here) with the counts as the failure's reason when
 * not, so that the caller refuses it as the others do, or takes LU
 * (runtime/newton.c); 0 otherwise, and when the factor cannot tell. */
static int definite(struct pk *k)
{
	if (!k->spd || k->iterative)
		return 0;
	PC pc;
	Mat F;
	PetscInt nneg = 0;
	if (KSPGetPC(k->ksp, &pc) || PCFactorGetMatrix(pc, &F))
		return 0;
	PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
	/* MUMPS gives the negative pivots (its INFOG(12)), and with
	 * ICNTL(24) the null ones (INFOG(28)); a factorization that cannot
	 * count those answers with an error, and is asked for the negative
	 * ones alone */
	PetscInt nzero = 0;
	PetscErrorCode e = MatGetInertia(F, &nneg, &nzero, NULL);
	if (e) {
		nzero = 0;
		e = MatGetInertia(F, &nneg, NULL, NULL);
	}
	PetscPopErrorHandler();
	if (e || (nneg == 0 && nzero == 0))
		return 0;
	if (nneg)
		set_failure("PETSc's factorization (%s) found the matrix not positive definite: %d negative pivot%s",
		            k->what, (int)nneg, nneg == 1 ? "" : "s");
	else
		set_failure("PETSc's factorization (%s) found the matrix singular: %d null pivot%s", k->what,
		            (int)nzero, nzero == 1 ? "" : "s");
	return k->n + 1;
}

/* KSPSetUp, the factorization (or the preconditioner's setup), and
 * whether it failed: a singular matrix under LU (MUMPS's zero pivot).
 * Left to the solve, the failure came out as "a right-hand side that
 * is not finite" at the next solve, never as the singular matrix the
 * caller names (Newton's "the Jacobian of the step is singular"), and
 * a KSPSolve after it left the PC unusable ("Cannot embed PCPreSolve()
 * more than twice"), so that on_failure = halve could not retry.  Now
 * the reason is the failure's and the caller is told n + 1 (no pivot
 * numbered); the next values are factored anew. */
static int setup_failed(struct pk *k)
{
	PC pc;
	PCFailedReason pr = PC_NOERROR;
	/* an error without a PC's reason (no ICC for an MPIAIJ matrix: a
	 * choice of the user's options) is the solve's to report, with
	 * PETSc's message, as before */
	KSPSetUp(k->ksp);
	if (KSPGetPC(k->ksp, &pc) == 0)
		PCGetFailedReason(pc, &pr);
	if (pr == PC_NOERROR)
		return 0;
	set_failure("PETSc's factorization (%s) failed: %s", k->what, PCFailedReasons[pr]);
	/* a PC whose setup failed is set up no more, whatever the next
	 * values (on_failure = halve retried the step on the failed
	 * factor): reset, and the next pk_factor sets it up anew, with
	 * MUMPS's controls (pk_alloc) again */
	PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
	if (KSPReset(k->ksp) == 0 && KSPSetOperators(k->ksp, k->A, k->A) == 0 && KSPGetPC(k->ksp, &pc) == 0) {
#ifdef PETSC_HAVE_MUMPS
		Mat F;
		if (k->spd && !k->iterative && PCFactorSetUpMatSolverType(pc) == 0 && PCFactorGetMatrix(pc, &F) == 0) {
			if (nproc > 1)
				MatMumpsSetIcntl(F, 13, 1);
			MatMumpsSetIcntl(F, 24, 1);
		}
#endif
	}
	PetscPopErrorHandler();
	return 1;
}

/* The values of A into the Mat, then the factorization or the
 * preconditioner's setup.  A failure there (a zero pivot) is left for the
 * solve to report, with PETSc's reason: the layer's pivot number has no
 * counterpart in MUMPS or hypre. */
static int pk_factor(void *p, const struct la_mat *A)
{
	struct pk *k = p;
	PetscScalar *v;
	if (nproc > 1) {
		/* this process's rows, row by row; every process then takes
		 * part in the assembly, which exchanges nothing (no entry
		 * belongs to another's rows) */
		memset(k->v, 0, sizeof *k->v * (size_t)k->nnz);
		for (size_t e = 0; e < k->ne; e++)
			if (k->at[e] >= 0)
				k->v[k->at[e]] += A->x[e];
		for (PetscInt r = 0; r < k->rend - k->rstart; r++) {
			PetscInt g = k->rstart + r;
			if (MatSetValues(k->A, 1, &g, k->ai[r + 1] - k->ai[r], k->aj + k->ai[r], k->v + k->ai[r],
			                 INSERT_VALUES))
				return -1;
		}
		if (MatAssemblyBegin(k->A, MAT_FINAL_ASSEMBLY) || MatAssemblyEnd(k->A, MAT_FINAL_ASSEMBLY))
			return -1;
		MatNorm(k->A, NORM_FROBENIUS, &k->anorm);
		if (saddle_split(k))
			return -1;
		if (setup_failed(k))
			return k->n + 1;
		return definite(k);
	}
	if (MatSeqAIJGetArray(k->A, &v))
		return -1;
	memset(v, 0, sizeof *v * (size_t)k->nnz);
	for (size_t e = 0; e < k->ne; e++)
		if (k->at[e] >= 0)
			v[k->at[e]] += A->x[e];
	if (MatSeqAIJRestoreArray(k->A, &v))
		return -1;
	MatNorm(k->A, NORM_FROBENIUS, &k->anorm);
	if (saddle_split(k))
		return -1;
	/* the restore raised the Mat's state: KSPSetUp redoes the numeric
	 * factorization (or the AMG hierarchy) on the kept symbolic one */
	if (setup_failed(k))
		return k->n + 1;
	return definite(k);
}

static void nan_fill(double *b, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = NAN;
}

static void pk_solve(void *p, double *b)
{
	struct pk *k = p;
	PetscScalar *a;
	PetscReal nb, nr, nx, rtol;
	KSPConvergedReason reason;
	PetscInt its = 0;
	if (VecGetArray(k->b, &a))
		goto fail;
	if (nproc > 1)
		/* b is whole on every process: each takes its rows */
		for (PetscInt g = k->rstart; g < k->rend; g++)
			a[g - k->rstart] = b[k->iperm[g]];
	else
		memcpy(a, b, sizeof *b * (size_t)k->n);
	VecRestoreArray(k->b, &a);
	VecNorm(k->b, NORM_2, &nb);
	if (!isfinite(nb)) {
		/* a NaN from an earlier failed solve (the initial
		 * acceleration's, before the first step), or an infinite load;
		 * an earlier failure not yet reported is the one to name (a
		 * step of two solves, the first failing) */
		if (!failure[0])
			set_failure("PETSc's solve (%s) was given a right-hand side that is not finite (an earlier "
			            "solve failed, or a load is not finite)", k->what);
		nan_fill(b, k->n);
		return;
	}
	if (nb == 0) {
		memset(b, 0, sizeof *b * (size_t)k->n);
		return;
	}
	if (KSPSolve(k->ksp, k->b, k->x))
		goto fail;
	KSPGetConvergedReason(k->ksp, &reason);
	KSPGetIterationNumber(k->ksp, &its);
	if (reason < 0) {
		PC pc;
		PCFailedReason pr = PC_NOERROR;
		KSPGetPC(k->ksp, &pc);
		PCGetFailedReason(pc, &pr);
		if (reason == KSP_DIVERGED_PC_FAILED && pr != PC_NOERROR)
			set_failure("PETSc's solve (%s) failed: %s (%s)", k->what, KSPConvergedReasons[reason],
			            PCFailedReasons[pr]);
		else
			set_failure("PETSc's solve (%s) failed: %s after %d iterations", k->what, KSPConvergedReasons[reason],
			            (int)its);
		nan_fill(b, k->n);
		return;
	}
	/* The true residual, whatever KSP tested, as a normwise backward
	 * error ‖b − Ax‖/(‖A‖‖x‖ + ‖b‖) (Rigal and Gaches 1967): a solution
	 * that holds a body against its load (‖A‖‖x‖ ≫ ‖b‖, a slender
	 * cantilever under its weight) leaves a residual of rounding that is
	 * large against ‖b‖ alone; judged by ‖b‖, MUMPS's exact factorisation
	 * was refused there (1e-8 relative) and init equilibrium ended in NaN. */
	MatMult(k->A, k->x, k->r);
	VecAYPX(k->r, -1.0, k->b);
	VecNorm(k->r, NORM_2, &nr);
	VecNorm(k->x, NORM_2, &nx);
	KSPGetTolerances(k->ksp, &rtol, NULL, NULL, NULL);
	double tol = fmax(100 * rtol, 1e-9), size = (double)(k->anorm * nx + nb);
	if (!(nr <= tol * size)) {
		set_failure("PETSc's solve (%s) left a residual %.3g relative to |A||x| + |b|, above %.3g (100 times "
		            "-ksp_rtol, at least 1e-9)", k->what, (double)nr / size, tol);
		nan_fill(b, k->n);
		return;
	}
	const PetscScalar *x;
	if (nproc > 1) {
		/* the solution whole on every process, in the layer's numbering */
		if (VecScatterBegin(k->all, k->x, k->xall, INSERT_VALUES, SCATTER_FORWARD) ||
		    VecScatterEnd(k->all, k->x, k->xall, INSERT_VALUES, SCATTER_FORWARD) || VecGetArrayRead(k->xall, &x))
			goto fail;
		for (int i = 0; i < k->n; i++)
			b[i] = x[k->perm[i]];
		VecRestoreArrayRead(k->xall, &x);
		return;
	}
	if (VecGetArrayRead(k->x, &x))
		goto fail;
	memcpy(b, x, sizeof *b * (size_t)k->n);
	VecRestoreArrayRead(k->x, &x);
	return;
fail:
	{
		/* PETSc's own message says which (a factorization that this
		 * matrix type lacks: icc on MPIAIJ) */
		const char *text = NULL;
		char *specific = NULL;
		PetscErrorMessage(0, &text, &specific);
		set_failure("PETSc's solve (%s) stopped on an error of PETSc: %s", k->what,
		            specific && *specific ? specific : text ? text : "no reason given");
	}
	nan_fill(b, k->n);
}

static const struct la_ops la_petsc_direct_ops = {
	.id = LA_PETSC_DIRECT,
	.name = "petsc-direct",
	.alloc = pk_alloc_direct,
	.factor = pk_factor,
	.solve = pk_solve,
	.free = pk_free,
};

static const struct la_ops la_petsc_iterative_ops = {
	.id = LA_PETSC_ITERATIVE,
	.name = "petsc-iterative",
	.alloc = pk_alloc_iterative,
	.factor = pk_factor,
	.solve = pk_solve,
	.free = pk_free,
};


/* ---- collectives of a partitioned explicit run (runtime/part.c) ---- */

/* The sums of k partial values, the same bits on every process: each
 * process's k values gathered to all, then added in rank order (an
 * MPI_Allreduce may add in a different order on different processes, and
 * the ledger decides identically everywhere when a run stops). */
static int mpi_sum(double *x, int k)
{
	if (petsc_start() || k <= 0 || k > 64)
		return -1;
	double all[64 * 64], *buf = nproc * k <= 64 * 64 ? all : malloc(sizeof(double) * (size_t)nproc * (size_t)k);
	if (!buf)
		return -1;
	int rc = MPI_Allgather(x, k, MPI_DOUBLE, buf, k, MPI_DOUBLE, PETSC_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
	for (int j = 0; j < k && rc == 0; j++) {
		double s = 0;
		for (int r = 0; r < nproc; r++)
			s += buf[(size_t)r * (size_t)k + (size_t)j];
		x[j] = s;
	}
	if (buf != all)
		free(buf);
	return rc;
}

/* Every process's values to every other, by counts and offsets per
 * process (the ghost values of a partitioned vector) */
static int mpi_exchange(const double *sbuf, const int *scount, const int *sdispl, double *rbuf, const int *rcount,
                        const int *rdispl)
{
	if (petsc_start())
		return -1;
	return MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, PETSC_COMM_WORLD) ==
	       MPI_SUCCESS ? 0 : -1;
}

/* x whole on every process, each process's block [displ[r], displ[r] +
 * count[r]) from process r */
static int mpi_gather(double *x, const int *count, const int *displ)
{
	if (petsc_start())
		return -1;
	return MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, count, displ, MPI_DOUBLE, PETSC_COMM_WORLD) ==
	       MPI_SUCCESS ? 0 : -1;
}

static int cmp_petscint(const void *a, const void *b)
{
	PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
	return (x > y) - (x < y);
}

/* The part of each vertex of a graph that every process holds whole
 * (compressed rows p, ix, symmetric, no loops): partitioning_apply, each
 * process handing over one contiguous block of the rows (each sorted, as
 * MatCreateMPIAdj requires), the parts gathered to every process.  0;
 * -2 when PETSc refused -mat_partitioning_type (the failure says why);
 * -1 otherwise. */
static int mpi_graph_partition(int n, const int *p, const int *ix, int *part)
{
	if (petsc_start())
		return -1;
	PetscInt b0 = (PetscInt)((long long)n * myrank / nproc), b1 = (PetscInt)((long long)n * (myrank + 1) / nproc);
	PetscInt nl = b1 - b0, *ia = NULL, *ja = NULL;
	Mat adj = NULL;
	MatPartitioning mp = NULL;
	IS is = NULL, all = NULL;
	int rc = -1;
	if (PetscMalloc1(nl + 1, &ia) || PetscMalloc1((PetscInt)(p[b1] - p[b0]) + 1, &ja))
		goto out;
	for (PetscInt i = b0; i <= b1; i++)
		ia[i - b0] = p[i] - p[b0];
	for (PetscInt q = p[b0]; q < p[b1]; q++)
		ja[q - p[b0]] = ix[q];
	for (PetscInt i = 0; i < nl; i++)
		qsort(ja + ia[i], (size_t)(ia[i + 1] - ia[i]), sizeof *ja, cmp_petscint);
	/* MatCreateMPIAdj takes ia and ja, PETSc's allocations */
	if (MatCreateMPIAdj(PETSC_COMM_WORLD, nl, n, ia, ja, NULL, &adj))
		goto out;
	ia = ja = NULL;
	int pa = partitioning_apply(adj, &mp, &is);
	if (pa > 0)
		rc = -2;
	if (pa || ISAllGather(is, &all))
		goto out;
	const PetscInt *g;
	if (ISGetIndices(all, &g))
		goto out;
	for (int i = 0; i < n; i++)
		part[i] = (int)g[i];
	ISRestoreIndices(all, &g);
	rc = 0;
out:
	PetscFree(ia);
	PetscFree(ja);
	ISDestroy(&is);
	ISDestroy(&all);
	MatPartitioningDestroy(&mp);
	MatDestroy(&adj);
	return rc;
}

const struct la_petsc_module la_petsc_module = {
	.graph_partition = mpi_graph_partition,
	.sum = mpi_sum,
	.exchange = mpi_exchange,
	.gather = mpi_gather,
	.direct = &la_petsc_direct_ops,
	.iterative = &la_petsc_iterative_ops,
	.args = set_args,
	.finalize = petsc_finalize,
	.join = petsc_join,
	.failure = take_failure,
	.describe = describe,
};
