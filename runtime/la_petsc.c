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
 * This first part runs on one process: the Mat is SeqAIJ, preallocated
 * exactly from the layer's pattern (MatSeqAIJSetPreallocationCSR), and
 * refilled in place at each refactorization.  PETSc and MPI are started at
 * the first solver allocated (a run that never asks for them never pays
 * MPI_Init) and stopped by la_backend_finalize.
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

#include "la_impl.h"

#include <petscksp.h>

/* ---- starting and stopping PETSc ---- */

enum { MAXARG = 64 };
static char *pargv[MAXARG + 3];
static int pargc;
static int started;             /* 1: PetscInitialize succeeded; -1: it failed */
static char failure[512];       /* the last failure, for la_backend_failure */

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
	PetscMPIInt size = 1;
	MPI_Comm_size(PETSC_COMM_WORLD, &size);
	if (size > 1) {
		/* lang/main.c refuses such a start from mpirun's environment;
		 * this is the launcher it did not recognise */
		set_failure("started on %d MPI processes: runs on several processes are not implemented yet "
		            "(dyn(1), BUGS); run one process", (int)size);
		return -1;
	}
	return 0;
}

static void petsc_finalize(void)
{
	if (started > 0) {
		PetscPopErrorHandler();
		PetscFinalize();
	}
	started = 0;
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
	PetscInt *at;           /* slot in the Mat's value array of each entry of A->x (-1: padding) */
	PetscInt nnz;
	Mat A;
	KSP ksp;
	Vec b, x, r;
	int setup;              /* the KSP was set up for the current values */
	char what[96];          /* "ksp cg, pc hypre", for the messages */
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
	}
	free(k->at);
	free(k);
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
	/* compressed rows (PETSc's AIJ) are the compressed columns of the
	 * transpose: the entries with row and column swapped */
	map = malloc((A->nx + 1) * sizeof *map);
	k->at = malloc((A->nx + 1) * sizeof *k->at);
	if (!map || !k->at || la_entries(A, &row, &col) || la_csc_build(A->n, A->nx, col, row, 0, &p, &ix, map))
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
	/* symmetric, but not declared positive definite: MUMPS then
	 * factors LDLᵀ with pivoting (its SYM = 2), which also takes the
	 * indefinite Jacobian of a non-convex energy, where CHOLMOD's failed
	 * LLᵀ sends Newton to LU (runtime/newton.c) */
	if (k->spd && MatSetOption(k->A, MAT_SYMMETRIC, PETSC_TRUE))
		goto fail;
	if (MatCreateVecs(k->A, &k->x, &k->b) || VecDuplicate(k->b, &k->r))
		goto fail;
	KSP ksp;
	PC pc;
	if (KSPCreate(PETSC_COMM_SELF, &ksp))
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
	if (KSPSetFromOptions(ksp))
		goto fail;
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

/* The values of A into the Mat, then the factorization or the
 * preconditioner's setup.  A failure there (a zero pivot) is left for the
 * solve to report, with PETSc's reason: the layer's pivot number has no
 * counterpart in MUMPS or hypre. */
static int pk_factor(void *p, const struct la_mat *A)
{
	struct pk *k = p;
	PetscScalar *v;
	if (MatSeqAIJGetArray(k->A, &v))
		return -1;
	memset(v, 0, sizeof *v * (size_t)k->nnz);
	for (size_t e = 0; e < k->ne; e++)
		if (k->at[e] >= 0)
			v[k->at[e]] += A->x[e];
	if (MatSeqAIJRestoreArray(k->A, &v))
		return -1;
	/* the restore raised the Mat's state: KSPSetUp redoes the numeric
	 * factorization (or the AMG hierarchy) on the kept symbolic one */
	KSPSetUp(k->ksp);
	return 0;
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
	PetscReal nb, nr, rtol;
	KSPConvergedReason reason;
	PetscInt its = 0;
	if (VecGetArray(k->b, &a))
		goto fail;
	memcpy(a, b, sizeof *b * (size_t)k->n);
	VecRestoreArray(k->b, &a);
	VecNorm(k->b, NORM_2, &nb);
	if (!isfinite(nb)) {
		/* a NaN from an earlier failed solve (the initial
		 * acceleration's, before the first step), or an infinite load */
		set_failure("PETSc's solve (%s) was given a right-hand side that is not finite (an earlier solve "
		            "failed, or a load is not finite)", k->what);
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
	/* the true residual, whatever KSP tested */
	MatMult(k->A, k->x, k->r);
	VecAYPX(k->r, -1.0, k->b);
	VecNorm(k->r, NORM_2, &nr);
	KSPGetTolerances(k->ksp, &rtol, NULL, NULL, NULL);
	double tol = fmax(100 * rtol, 1e-9);
	if (!(nr <= tol * nb)) {
		set_failure("PETSc's solve (%s) left a relative residual %.3g, above %.3g (100 times -ksp_rtol, at least "
		            "1e-9)", k->what, (double)(nr / nb), tol);
		nan_fill(b, k->n);
		return;
	}
	const PetscScalar *x;
	if (VecGetArrayRead(k->x, &x))
		goto fail;
	memcpy(b, x, sizeof *b * (size_t)k->n);
	VecRestoreArrayRead(k->x, &x);
	return;
fail:
	set_failure("PETSc's solve (%s) stopped on an error of PETSc", k->what);
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


const struct la_petsc_module la_petsc_module = {
	.direct = &la_petsc_direct_ops,
	.iterative = &la_petsc_iterative_ops,
	.args = set_args,
	.finalize = petsc_finalize,
	.failure = take_failure,
	.describe = describe,
};
