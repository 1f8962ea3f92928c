/* problem.c — builds the runtime's view of a model from the IR and
 * evaluates its energies, their gradients and Hessians, and its loads.
 * Operators are checked here, before any step: the mass must be symmetric
 * positive definite (at the initial state when it depends on u). */
#include <config.h>

#include "problem.h"
#include "arena.h"
#include "la.h"
#include "varmass.h"
#include "vm.h"
#include "mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct rt_error *err, struct ir_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rt_error *err, struct ir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->loc = loc;
	err->code = 3;
	return 3;
}

/* A constant operator that must be symmetric (the mass; the stiffness,
 * the Hessian of ½uᵀKu, which the ledger, the eigen-analysis and the
 * Cholesky factorizations take it for): every stored entry against its
 * transpose, which need not be stored (a band with kl ≠ ku, compressed
 * columns with one triangle: a missing entry is 0). */
static int check_symmetric(const struct la_mat *A, const char *what, struct ir_loc loc, struct rt_error *err)
{
	if (A->sym || !A->x)
		return 0;
	double scale = la_mat_maxabs(A);
	int *row, *col;
	if (la_entries(A, &row, &col))
		return fail(err, loc, "out of memory");
	int rc = 0;
	for (size_t e = 0; e < A->nx && !rc; e++) {
		int i = row[e], j = col[e];
		if (i < 0 || i == j)
			continue;
		double x = la_mat_get(A, i, j), y = la_mat_get(A, j, i);
		/* within 1e-12 of the largest entry counts as symmetric
		 * (a matrix written with rounded decimals) */
		if (fabs(x - y) > 1e-12 * scale) {
			int a = i < j ? i : j, b = i < j ? j : i;
			rc = fail(err, loc, "the %s matrix is not symmetric: entry (%d, %d) is %.15g but (%d, %d) is %.15g",
			          what, a + 1, b + 1, la_mat_get(A, a, b), b + 1, a + 1, la_mat_get(A, b, a));
		}
	}
	free(row);
	free(col);
	return rc;
}

/* Every stored entry of a constant operator must be a number: a density
 * or a coefficient that overflows (integral(bar, 0.5*u'^2*1e308*10))
 * folds into an infinite mass, which factors and then gives every
 * acceleration as 0, a body that never moves.  One pass over the values;
 * the pattern is read only to name the entry. */
static int check_finite_part(struct rt_problem *pb, const struct la_mat *A, const char *what, struct ir_loc loc,
                             struct rt_error *err);
static int not_finite(struct rt_problem *pb, int i, int j, double x, const char *what, struct ir_loc loc,
                      struct rt_error *err);

static int check_finite(struct rt_problem *pb, const struct la_mat *A, const char *what, struct ir_loc loc,
                        struct rt_error *err)
{
	size_t bad = 0;
	if (A->part)
		return check_finite_part(pb, A, what, loc, err);
	while (bad < A->nx && isfinite(A->x[bad]))
		bad++;
	if (!A->x || bad == A->nx)
		return 0;
	int *row, *col;
	if (la_entries(A, &row, &col))
		return fail(err, loc, "out of memory");
	int i = row[bad], j = col[bad];
	double x = A->x[bad];
	free(row);
	free(col);
	return not_finite(pb, i, j, x, what, loc, err);
}

/* A damping matrix that is not positive semidefinite feeds energy into
 * the motion; a negative diagonal entry (c_ii = e_iᵀ C e_i) shows it,
 * as the sign slips damping [-0.1], rayleigh(-0.5, 0), rayleigh(0,
 * -0.01) or a dissipation -0.05*u'^2 make it (they ran, the motion
 * growing, status 0).  A part's columns are searched by their process,
 * and every process names the first entry found. */
static int check_damping(struct rt_problem *pb, const struct la_mat *C, struct ir_loc loc, struct rt_error *err)
{
	int i0 = C->part ? C->c0 : 0, i1 = C->part ? C->c1 : pb->n, bad = -1;
	double x = 0;
	for (int i = i0; i < i1 && bad < 0; i++)
		if (la_mat_get(C, i, i) < 0) {
			bad = i;
			x = la_mat_get(C, i, i);
		}
	if (C->part && la_mpi_size() > 1) {
		int P = la_mpi_size(), r = la_mpi_rank();
		double *v = mem_calloc(2 * (size_t)P, sizeof *v);
		if (!v)
			return fail(err, loc, "out of memory");
		v[2 * r] = bad;
		v[2 * r + 1] = x;
		int rc = la_mpi_sum(v, 2 * P);
		bad = -1;
		for (int q = 0; q < P && bad < 0 && rc == 0; q++)
			if (v[2 * q] >= 0) {
				bad = (int)v[2 * q];
				x = v[2 * q + 1];
			}
		free(v);
		if (rc)
			return fail(err, loc, "MPI failed in the check of the damping matrix");
	}
	if (bad < 0)
		return 0;
	char nm[IR_NAME_SIZE];
	return fail(err, loc, "the damping matrix is not positive semidefinite: its diagonal entry (%d, %d), of dof %s, "
	            "is %.6g < 0: it would feed energy into the motion", bad + 1, bad + 1,
	            ir_dof_name(pb->ir, bad, nm, sizeof nm), x);
}

/* The same of a part (la.h), each process's columns searched and the
 * first entry found named by every process: all of them stop */
static int check_finite_part(struct rt_problem *pb, const struct la_mat *A, const char *what, struct ir_loc loc,
                             struct rt_error *err)
{
	int P = la_mpi_size(), r = la_mpi_rank();
	double *v = mem_calloc(3 * (size_t)P, sizeof *v);
	int *cnt = mem_alloc(sizeof(int) * (size_t)P), *dsp = mem_alloc(sizeof(int) * (size_t)P);
	if (!v || !cnt || !dsp) {
		free(v);
		free(cnt);
		free(dsp);
		return fail(err, loc, "out of memory");
	}
	for (int q = 0; q < P; q++) {
		cnt[q] = 3;
		dsp[q] = 3 * q;
	}
	v[3 * r] = -1;
	for (int j = A->c0; j < A->c1 && v[3 * r] < 0; j++)
		for (int k = A->p[j]; k < A->p[j + 1]; k++)
			if (!isfinite(A->x[k])) {
				v[3 * r] = j;
				v[3 * r + 1] = A->i[k];
				v[3 * r + 2] = A->x[k];
				break;
			}
	v[3 * r] += 1;   /* 0: none on that process */
	int gathered = la_mpi_gather(v, cnt, dsp);
	free(cnt);
	free(dsp);
	if (gathered) {
		free(v);
		return fail(err, loc, "MPI failed to check the %s matrix on every process", what);
	}
	int q = 0;
	while (q < P && v[3 * q] == 0)
		q++;
	int rc = 0;
	if (q < P)
		rc = not_finite(pb, (int)v[3 * q + 1], (int)v[3 * q] - 1, v[3 * q + 2], what, loc, err);
	free(v);
	return rc;
}

/* The message of a stiffness or damping entry (i, j) of value x */
static int not_finite(struct rt_problem *pb, int i, int j, double x, const char *what, struct ir_loc loc,
                      struct rt_error *err)
{
	char ni[IR_NAME_SIZE], nj[IR_NAME_SIZE];
	ir_unknown_name(pb->ir, i, ni, sizeof ni);
	ir_unknown_name(pb->ir, j, nj, sizeof nj);
	if (i == j)
		return fail(err, loc, "the %s matrix is not finite: its entry (%d, %d), of %s, is %s", what, i + 1, j + 1,
		            ni, isnan(x) ? "NaN" : "infinite (its coefficients overflow)");
	return fail(err, loc, "the %s matrix is not finite: its entry (%d, %d), of %s and %s, is %s", what, i + 1,
	            j + 1, ni, nj, isnan(x) ? "NaN" : "infinite (its coefficients overflow)");
}

/* The mass must be symmetric positive definite.  Its factor is kept
 * (pb->Mf): the consistent initial acceleration solves with it, so the
 * mass is factored once per run, by the backend its structure calls for. */
static int check_mass(struct rt_problem *pb, const struct la_mat *M, struct ir_loc loc, struct rt_error *err)
{
	int n = pb->n;
	if (check_finite(pb, M, "mass", loc, err) || check_symmetric(M, "mass", loc, err))
		return 3;
	/* a positive pivot far below the others factors, and then gives an
	 * acceleration of no meaning (mass [1e-320, 0; 0, 1]: infinite at
	 * t = 0): a diagonal entry below 1e-16 of the largest is a mass the
	 * double precision cannot hold beside the others */
	double dmax = 0;
	for (int i = 0; i < n; i++)
		dmax = fmax(dmax, la_mat_get(M, i, i));
	for (int i = 0; i < n && dmax > 0; i++) {
		double d = la_mat_get(M, i, i);
		if (d > 0 && d < 1e-16 * dmax) {
			char nm[IR_NAME_SIZE];
			return fail(err, loc, "the mass matrix is numerically singular: the mass of %s, %.3g, is below "
			            "1e-16 of the largest (%.3g)%s", ir_unknown_name(pb->ir, i, nm, sizeof nm), d, dmax,
			            pb->varmass ? " at the initial state" : "");
		}
	}
	la_solver_free(pb->Mf);
	/* a nearly symmetric mass is factored by LU: Cholesky backends take
	 * only exactly symmetric matrices; a lumped (diagonal) one on every
	 * process alike, where the default of several processes would
	 * distribute it (step_factor) */
	enum la_backend b = pb->backend_mpi && M->kl == 0 && M->ku == 0 ? LA_AUTO : pb->backend;
	pb->Mf = la_solver_alloc(M, M->sym ? b : (b == LA_CHOLMOD ? LA_UMFPACK : b), M->sym ? LA_SPD : 0);
	if (!pb->Mf) {
		/* PETSc's backends also fail here when PETSc does not start */
		const char *why = la_backend_failure();
		if (why)
			return fail(err, loc, "the mass matrix: %s", why);
		return fail(err, loc, "out of memory for the mass matrix (%d dofs)", n);
	}
	int info = la_solver_factor(pb->Mf, M);
	if (info < 0)
		return fail(err, loc, "out of memory for the mass matrix (%d dofs)", n);
	char nm[IR_NAME_SIZE];
	const char *why = info > n ? la_backend_failure() : NULL;
	if (info > n)   /* a backend that numbers no pivot (PETSc's) */
		return fail(err, loc, "the mass matrix is not positive definite (%s)%s", why ? why : "no pivot named",
		            pb->varmass ? " at the initial state" : "");
	if (info > 0)
		return fail(err, loc, "the mass matrix is not positive definite: pivot %d (dof %s)%s", info,
		            ir_unknown_name(pb->ir, info - 1, nm, sizeof nm), pb->varmass ? " at the initial state" : "");
	return 0;
}

static int operator_of(struct la_mat *A, const struct ir_matrix *m, int n, enum la_mat_kind kind,
                       struct ir_matrix *own);

/* An operator of the IR as a la_mat: from its dense array when it has one,
 * from its triplets otherwise (no entries: the zero matrix).  release:
 * the IR's matrix whose entries go back to the lowering's arena once A
 * is built (ir_matrix_release), or NULL. */
static int operator_mat(struct la_mat *A, const struct ir_matrix *m, int n, enum la_mat_kind kind,
                        struct ir_matrix *release)
{
	int rc = operator_of(A, m, n, kind, release);
	if (rc == 0 && release)
		ir_matrix_release(release);
	return rc;
}

/* The entries of an operator with blocks (a sum's springs), summed into
 * the matrix layer's storage as they are generated: no triplets. */
static void ir_entries(const void *src, la_entry_fn *add, void *acc)
{
	ir_matrix_each(src, add, acc);
}

/* Entries in compressed-column order into A: the IR's arrays taken as
 * they are when own (the IR's matrix, released after A is built: m
 * itself) holds them in blocks of their own (arena_detach), copied
 * otherwise */
static int csc_of(struct la_mat *A, const struct ir_matrix *m, int n, enum la_mat_kind kind, struct ir_matrix *own)
{
	int *row = own && own->arena ? arena_detach(own->arena, own->row) : NULL;
	double *val = row ? arena_detach(own->arena, own->val) : NULL;
	if (!row)
		return la_mat_csc_entries(A, kind, n, (size_t)m->nnz, m->row, m->col, m->val);
	own->row = NULL;
	if (!val) {
		int rc = la_mat_csc_entries(A, kind, n, (size_t)m->nnz, row, m->col, m->val);
		free(row);
		return rc;
	}
	own->val = NULL;
	return la_mat_csc_adopt(A, kind, n, (size_t)m->nnz, row, m->col, val);
}

static int operator_of(struct la_mat *A, const struct ir_matrix *m, int n, enum la_mat_kind kind,
                       struct ir_matrix *own)
{
	if (m->a)
		return la_mat_from_dense(A, kind, n, m->a);
	if (m->part) {
		/* this process's columns, exactly symmetric by their assembly
		 * (fe_form_assemble): kept in compressed columns, as the
		 * partitioned step reads them (la.h, part) */
		int rc = m->csc ? csc_of(A, m, n, LA_MAT_CSC, own)
		                : la_mat_triplets(A, LA_MAT_CSC, n, (size_t)m->nnz, m->row, m->col, m->val);
		return rc ? rc : la_mat_part_set(A, m->c0, m->c1);
	}
	/* entries folded from an energy's Hessian (a model on a mesh) are
	 * symmetric to rounding only, its two triangles being derived
	 * apart: made exactly so, the step matrix is recognised as
	 * symmetric and factored by Cholesky (CHOLMOD), not LU */
	int rc = m->nblock ? la_mat_entries(A, kind, n, ir_entries, m)
	         : m->csc  ? csc_of(A, m, n, kind, own)
	                   : la_mat_triplets(A, kind, n, (size_t)m->nnz, m->row, m->col, m->val);
	if (rc == 0)
		la_mat_symmetrize(A);
	return rc;
}

int problem_dense(struct rt_problem *pb)
{
	int n = pb->n;
	if (n > IR_DENSE_MAX)
		return 0;
	size_t nn = (size_t)n * (size_t)n;
	if (!pb->M) {
		if (!(pb->Mbuf = mem_alloc(sizeof(double) * (nn + 1))))
			return -1;
		la_mat_to_dense(&pb->Mm, pb->Mbuf);
		pb->M = pb->Mbuf;
	}
	if (!pb->K) {
		if (!(pb->Kbuf = mem_alloc(sizeof(double) * (nn + 1))))
			return -1;
		la_mat_to_dense(&pb->Km, pb->Kbuf);
		pb->K = pb->Kbuf;
	}
	return 0;
}

/* C = M Φ diag(2ξωᵢ) Φᵀ M with M-normalised modes (DESIGN.md, "More
 * statements": code_aster's AMOR_MODAL).  With constraints the modes are
 * the constrained ones, as code_aster's modes with dualised boundary
 * conditions: Φ = Z Ψ with Z a basis of the null space of the
 * constraints' gradient B and Zᵀ K Z ψ = ω² Zᵀ M Z ψ, so that on the
 * motions the constraints allow, u' = Z q', every mode gets ξ
 * (Zᵀ C Z = M_r Ψ diag(2ξω) Ψᵀ M_r, diagonal in the modal coordinates).
 * B must be constant (c = B u − g(t)): the modes of a nonlinear
 * constraint change with the configuration. */
static int modal_damping(struct rt_problem *pb, struct rt_error *err)
{
	const struct ir_model *m = pb->ir;
	int n = pb->n, nc = pb->nc, r = n;
	if (nc > 0 && !m->constraint_linear)
		return fail(err, m->damping.loc, "modal damping with constraints needs them linear (c = B u - g(t), B "
		            "constant): the modes of model %s would change with its configuration (use rayleigh(a0, a1) "
		            "or a dissipation)", m->name);
	size_t nn = (size_t)n * (size_t)n, ncn = (size_t)nc * (size_t)n;
	double *w = mem_alloc(sizeof(double) * (size_t)n), *phi = mem_alloc(sizeof(double) * nn);
	double *mp = mem_alloc(sizeof(double) * nn), *C = mem_calloc(nn, sizeof(double));
	double *Z = NULL, *Kr = NULL, *Mr = NULL, *work = NULL;
	int rc = 0;
	if (!w || !phi || !mp || !C) {
		rc = fail(err, m->loc, "out of memory");
		goto out;
	}
	if (nc > 0) {
		Z = mem_alloc(sizeof(double) * nn);
		Kr = mem_alloc(sizeof(double) * nn);
		Mr = mem_alloc(sizeof(double) * nn);
		work = mem_alloc(sizeof(double) * (nn + 2 * ncn + (size_t)n));
		if (!Z || !Kr || !Mr || !work) {
			rc = fail(err, m->loc, "out of memory");
			goto out;
		}
		double *G = work + nn, *Q = G + ncn, *v = Q + ncn;
		problem_constraints(pb, 0, m->u0, NULL, G);   /* B: any t */
		if ((r = la_null_space(n, nc, G, Z, Q, v)) < 0) {
			rc = fail(err, m->damping.loc, "modal damping: the constraints of model %s are not independent",
			          m->name);
			goto out;
		}
		la_congruence(n, r, Z, pb->K, work, Kr);
		la_congruence(n, r, Z, pb->M, work, Mr);
	}
	if (la_sygv_low(r, r, Kr ? Kr : pb->K, Mr ? Mr : pb->M, w, phi) != 0) {
		rc = fail(err, m->damping.loc, "modal damping: the eigenproblem K φ = ω² M φ failed");
		goto out;
	}
	if (Z)   /* φ_k = Z ψ_k, ψ_k the k-th column (length r) */
		for (int k = 0; k < r; k++) {
			const double *psi = phi + (size_t)k * r;
			double *x = mp + (size_t)k * n;
			for (int i = 0; i < n; i++) {
				double s = 0;
				for (int l = 0; l < r; l++)
					s += Z[i + (size_t)l * n] * psi[l];
				x[i] = s;
			}
		}
	else
		memcpy(mp, phi, sizeof(double) * nn);
	for (int k = 0; k < r; k++) {
		la_gemv(n, pb->M, mp + (size_t)k * n, phi);
		double xi = m->modal_xi[k < m->nmodal_xi ? k : m->nmodal_xi - 1];
		double c = 2 * xi * sqrt(w[k] > 0 ? w[k] : 0);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				C[i + (size_t)j * n] += c * phi[i] * phi[j];
	}
	for (int j = 0; j < n; j++)   /* symmetrise against round-off */
		for (int i = j + 1; i < n; i++) {
			double s = 0.5 * (C[i + (size_t)j * n] + C[j + (size_t)i * n]);
			C[i + (size_t)j * n] = C[j + (size_t)i * n] = s;
		}
	pb->Cbuf = C;
	pb->C = C;
	C = NULL;
out:
	free(Z);
	free(Kr);
	free(Mr);
	free(work);
	free(w);
	free(phi);
	free(mp);
	free(C);
	return rc;
}

/* A kinetic energy must be a quadratic form in the velocities, T(u, v) =
 * ½vᵀM(u)v: T(u, 0) = 0 and T(u, 2v) = 4T(u, v), checked at the initial
 * configuration and a shifted one (lowering knew only that the Hessian in
 * v is constant or independent of v). */
static int check_quadratic(struct rt_problem *pb, struct rt_error *err)
{
	const struct ir_model *m = pb->ir;
	int n = pb->n;
	double *reg = mem_calloc((size_t)m->kinetic_value->n + 1, sizeof(double));
	double *u = mem_calloc((size_t)n + 1, sizeof(double)), *v = mem_calloc((size_t)n + 1, sizeof(double));
	int rc = 0;
	if (!reg || !u || !v) {
		rc = fail(err, m->loc, "out of memory");
		goto out;
	}
	for (int shift = 0; shift < 2 && !rc; shift++) {
		for (int i = 0; i < n; i++)
			u[i] = m->u0[i] + shift;
		double t[3];
		for (int c = 0; c < 3; c++) {
			for (int i = 0; i < n; i++)
				v[i] = c == 0 ? 0 : (c == 1 ? 1 : 2) * (1 + 0.37 * i);
			struct vm_input in = { 0, u, v, NULL, NULL, NULL, m->table, pb->hint };
			vm_eval(m->kinetic_value, reg, &in, &t[c]);
		}
		double scale = fabs(t[1]) + fabs(t[2]) + 1e-300;
		if (fabs(t[0]) > 1e-12 * scale || fabs(t[2] - 4 * t[1]) > 1e-12 * scale)
			rc = fail(err, m->kinetic_loc, "the kinetic energy must be a quadratic form in the velocities, "
			          "1/2 u'^T M(u) u': terms without or linear in the velocities belong in the potential");
	}
out:
	free(reg);
	free(u);
	free(v);
	return rc;
}

static double *scratch(size_t n)
{
	return mem_calloc(n + 1, sizeof(double));
}

static int init(struct rt_problem *pb, const struct ir_model *m, int solver, struct ir_model *release,
                struct rt_error *err);

int problem_init(struct rt_problem *pb, const struct ir_model *m, int solver, struct rt_error *err)
{
	return init(pb, m, solver, NULL, err);
}

int problem_init_releasing(struct rt_problem *pb, struct ir_model *m, int solver, struct rt_error *err)
{
	return init(pb, m, solver, m, err);
}

static int init(struct rt_problem *pb, const struct ir_model *m, int solver, struct ir_model *release,
                struct rt_error *err)
{
	memset(pb, 0, sizeof *pb);
	memset(err, 0, sizeof *err);
	pb->ir = m;
	pb->n = m->ndof;
	pb->m = m->nint;
	pb->N = pb->n + pb->m;
	int n = pb->n, N = pb->N;
	/* Storage and factorization follow the run's solver option; auto
	 * lets the layer decide from the structure (la_backend_choose). */
	static const enum la_mat_kind kind_of[] = { LA_MAT_AUTO, LA_MAT_DENSE, LA_MAT_AUTO, LA_MAT_CSC, LA_MAT_CSC,
		                                    LA_MAT_CSC };
	static const enum la_backend backend_of[] = { LA_AUTO, LA_LAPACK_DENSE, LA_LAPACK_BAND, LA_CHOLMOD,
		                                      LA_PETSC_DIRECT, LA_PETSC_ITERATIVE };
	/* On several MPI processes a model on a mesh solves through PETSc's
	 * distributed direct solver unless the run says otherwise (dyn(1),
	 * MPI): the serial backends would factor the same matrix on every
	 * process. */
	int mpi_default = solver == IR_SOLVER_AUTO && la_mpi_size() > 1 && m->nfe > 0;
	if (mpi_default)
		solver = IR_SOLVER_DIRECT;
	enum la_mat_kind kind = kind_of[solver];
	pb->backend = backend_of[solver];
	pb->backend_mpi = mpi_default;
	/* Dense storage of n² doubles is refused beyond 1 GB rather than
	 * left to fail in malloc or to swap. */
	if (kind == LA_MAT_DENSE && (double)n * n * sizeof(double) > 1e9)
		return fail(err, m->loc, "model %s has %d dofs: solver = dense would hold %.3g GB per matrix; "
		            "use solver = banded, sparse or auto", m->name, n, (double)n * n * sizeof(double) / 1e9);
	pb->M = m->mass.a;
	pb->K = m->stiffness.a;
	pb->C = m->damping_kind == IR_DAMP_MATRIX ? m->damping.a : NULL;
	pb->hasC = m->damping_kind == IR_DAMP_MATRIX;
	if (operator_mat(&pb->Mm, &m->mass, n, kind, release ? &release->mass : NULL) ||
	    operator_mat(&pb->Km, &m->stiffness, n, kind, release ? &release->stiffness : NULL) ||
	    (pb->hasC && operator_mat(&pb->Cm, &m->damping, n, kind, release ? &release->damping : NULL)))
		return fail(err, m->loc, "out of memory for the operators of model %s (%d dofs)", m->name, n);
	pb->sigma = m->sigma;
	pb->sigma_u = m->sigma_u;
	pb->varmass = m->kinetic != NULL;
	pb->linear = !ir_model_nonlinear(m);
	pb->reg_f = scratch(m->force ? (size_t)m->force->n : 0);
	if (rt_kernels_init_gaps(&pb->kf, m->fkernel, m->nfkernel))
		return fail(err, m->loc, "out of memory");
	pb->nload_pat = -1;
	pb->reg_s = scratch(m->support ? (size_t)m->support->n : 0);
	pb->md = scratch(m->support ? (size_t)n : 0);   /* M d: with a support only */
	pb->hint = mem_calloc((size_t)m->ntable + 1, sizeof(int));
	pb->tmp = scratch((size_t)N);
	if (m->potential) {
		pb->reg_phi = scratch((size_t)m->potential->prog->n);
		pb->out_phi = scratch((size_t)m->potential->prog->nout);
		pb->mag_phi = scratch((size_t)m->potential->prog->n);
		pb->vidx_phi = mem_calloc((size_t)m->potential->prog->n + 1, sizeof(int));
		if (pb->vidx_phi)
			pb->nvidx_phi = vm_needed(m->potential->prog, 0, 1, pb->vidx_phi);
		pb->phi_key = scratch((size_t)N);
		pb->phi_g = scratch((size_t)N);
	}
	if (m->dissipation) {
		pb->reg_psi = scratch((size_t)m->dissipation->prog->n);
		pb->out_psi = scratch((size_t)m->dissipation->prog->nout);
	}
	if (m->kinetic) {
		pb->reg_kin = scratch((size_t)m->kinetic->prog->n);
		pb->out_kin = scratch((size_t)m->kinetic->prog->nout);
	}
	if (rt_kernels_init(&pb->kphi, m->potential, n) || rt_kernels_init(&pb->kpsi, m->dissipation, n))
		return fail(err, m->loc, "out of memory");
	pb->ncontact = m->contact.n;
	if (m->contact.prog) {
		const struct ir_gaps *g = &m->contact;
		pb->reg_ct = scratch((size_t)g->prog->n);
		pb->out_ct = scratch(g->out_map ? (size_t)g->nout : (size_t)g->prog->nout);
		if (!pb->reg_ct || !pb->out_ct)
			return fail(err, m->loc, "out of memory");
		if (g->out_map && (!(pb->prog_ct = scratch((size_t)g->prog->nout)) ||
		                   rt_kernels_init_gaps(&pb->kct, g->kernel, g->nkernel)))
			return fail(err, m->loc, "out of memory");
	}
	if (m->slip.prog) {
		pb->reg_sl = scratch((size_t)m->slip.prog->n);
		pb->out_sl = scratch((size_t)m->slip.prog->nout);
		if (!pb->reg_sl || !pb->out_sl)
			return fail(err, m->loc, "out of memory");
	}
	pb->nc = m->nconstraint;
	if (m->constraint) {
		pb->reg_c = scratch((size_t)m->constraint->n);
		pb->out_c = scratch(m->constraint_out ? (size_t)m->constraint_nout : (size_t)m->constraint->nout);
		if (!pb->reg_c || !pb->out_c)
			return fail(err, m->loc, "out of memory");
		if (m->constraint_out && (!(pb->prog_c = scratch((size_t)m->constraint->nout)) ||
		                          rt_kernels_init_gaps(&pb->kc, m->ckernel, m->nckernel)))
			return fail(err, m->loc, "out of memory");
	}
	if (m->dissipation_terms) {
		pb->reg_dt = scratch((size_t)m->dissipation_terms->n);
		pb->out_dt = scratch((size_t)m->dissipation_terms->nout);
		if (!pb->reg_dt || !pb->out_dt)
			return fail(err, m->loc, "out of memory");
	}
	if (!pb->reg_f || !pb->reg_s || !pb->md || !pb->hint || !pb->tmp ||
	    (m->potential && (!pb->reg_phi || !pb->out_phi || !pb->phi_key || !pb->phi_g || !pb->mag_phi ||
	                      !pb->vidx_phi)) ||
	    (m->dissipation && (!pb->reg_psi || !pb->out_psi)) ||
	    (m->kinetic && (!pb->reg_kin || !pb->out_kin)))
		return fail(err, m->loc, "out of memory");

	if (m->kinetic_value && check_quadratic(pb, err))
		return 3;
	/* M(u) is evaluated and factored on the matrix layer (varmass.h),
	 * checked positive definite at the initial state */
	if (pb->varmass) {
		if (!(pb->vm = mem_calloc(1, sizeof *pb->vm)) || varmass_init(pb->vm, pb))
			return fail(err, m->loc, "out of memory for the mass matrix (%d dofs)", n);
		varmass_eval(pb->vm, pb, m->u0);
		if (check_mass(pb, &pb->vm->A, m->kinetic->loc, err))
			return 3;
	} else if (check_mass(pb, &pb->Mm, m->mass.loc, err)) {
		return 3;
	}
	if (check_finite(pb, &pb->Km, "stiffness", m->stiffness.loc, err) ||
	    check_symmetric(&pb->Km, "stiffness", m->stiffness.loc, err) ||
	    (pb->hasC && (check_finite(pb, &pb->Cm, "damping", m->damping.loc, err) ||
	                  check_damping(pb, &pb->Cm, m->damping.loc, err))))
		return 3;
	if (m->damping_kind == IR_DAMP_MODAL) {
		if (n <= IR_DENSE_MAX && problem_dense(pb))
			return fail(err, m->loc, "out of memory");
		if (!pb->M || !pb->K)
			return fail(err, m->damping.loc, "modal damping needs the dense eigen-analysis, up to %d dofs: "
			            "model %s has %d (use rayleigh(a0, a1) or a damping matrix)",
			            (int)IR_DENSE_MAX, m->name, n);
		if (modal_damping(pb, err) || la_mat_from_dense(&pb->Cm, kind, n, pb->Cbuf))
			return err->msg[0] ? 3 : fail(err, m->loc, "out of memory");
		pb->hasC = 1;
	}
	/* the support's load −M d a(t) with a constant mass; with M(u) it is
	 * evaluated where the steppers need it (problem_support_load) */
	if (m->support && !pb->varmass)
		la_mat_mul(&pb->Mm, m->support_dir, pb->md);
	return 0;
}

void problem_free(struct rt_problem *pb)
{
	if (pb->vm)
		varmass_free(pb->vm);
	free(pb->vm);
	free(pb->Cbuf);
	free(pb->Mbuf);
	free(pb->Kbuf);
	la_mat_free(&pb->Mm);
	la_mat_free(&pb->Cm);
	la_mat_free(&pb->Km);
	la_solver_free(pb->Mf);
	free(pb->reg_f);
	free(pb->load_pat);
	free(pb->reg_s);
	free(pb->md);
	free(pb->hint);
	free(pb->tmp);
	free(pb->reg_phi);
	free(pb->out_phi);
	free(pb->mag_phi);
	free(pb->vidx_phi);
	free(pb->phi_key);
	free(pb->phi_g);
	free(pb->reg_psi);
	rt_kernels_free(&pb->kphi);
	rt_kernels_free(&pb->kpsi);
	free(pb->out_psi);
	free(pb->reg_kin);
	free(pb->out_kin);
	free(pb->reg_dt);
	free(pb->out_dt);
	free(pb->reg_c);
	free(pb->out_ct);
	free(pb->reg_ct);
	free(pb->out_sl);
	free(pb->reg_sl);
	free(pb->out_c);
	free(pb->prog_c);
	rt_kernels_free(&pb->kc);
	free(pb->prog_ct);
	rt_kernels_free(&pb->kct);
	rt_kernels_free(&pb->kf);
	memset(pb, 0, sizeof *pb);
}

double problem_support(struct rt_problem *pb, double t)
{
	const struct ir_model *m = pb->ir;
	if (!m->support)
		return 0;
	struct vm_input in = { t, NULL, NULL, NULL, NULL, NULL, m->table, pb->hint };
	double ag;
	vm_eval(m->support, pb->reg_s, &in, &ag);
	return ag;
}

void problem_load(struct rt_problem *pb, double t, double *f)
{
	const struct ir_model *m = pb->ir;
	struct vm_input in = { t, NULL, NULL, NULL, NULL, NULL, m->table, pb->hint };
	if (m->force)
		vm_eval(m->force, pb->reg_f, &in, f);
	else
		memset(f, 0, sizeof(double) * (size_t)pb->N);
	rt_kernels_loads(&pb->kf, &in, f);
	if (m->support && !pb->varmass) {
		double ag = problem_support(pb, t);
		for (int i = 0; i < pb->n; i++)
			f[i] -= pb->md[i] * ag;
	}
}

/* A support's load is on every dof with mass, and the entries a family
 * of loads (fkernel) writes are known only as it runs: the pattern is
 * then every entry. */
static int load_everywhere(const struct rt_problem *pb)
{
	const struct ir_model *m = pb->ir;
	return (m->support && !pb->varmass) || m->nfkernel > 0;
}

int problem_load_pattern(struct rt_problem *pb, const int **idx)
{
	const struct ir_model *m = pb->ir;
	if (pb->nload_pat < 0) {
		/* counted, then listed */
		int np = 0, every = load_everywhere(pb);
		for (int pass = 0; pass < 2; pass++) {
			np = 0;
			for (int j = 0; j < pb->N; j++) {
				const struct ir_insn *x = m->force ? &m->force->insn[m->force->out[j]] : NULL;
				if (every || (x && !(x->op == IR_CONST && x->k == 0))) {
					if (pass == 1)
						pb->load_pat[np] = j;
					np++;
				}
			}
			if (pass == 0 && !(pb->load_pat = mem_alloc(sizeof(int) * ((size_t)np + 1))))
				return -1;
		}
		pb->nload_pat = np;
	}
	*idx = pb->load_pat;
	return pb->nload_pat;
}

void problem_load_pattern_eval(struct rt_problem *pb, double t, double *f)
{
	const struct ir_model *m = pb->ir;
	if (load_everywhere(pb)) {
		/* the pattern is every entry */
		problem_load(pb, t, f);
		return;
	}
	if (!m->force || pb->nload_pat <= 0)
		return;
	struct vm_input in = { t, NULL, NULL, NULL, NULL, NULL, m->table, pb->hint };
	vm_eval_some(m->force, pb->reg_f, &in, pb->load_pat, pb->nload_pat, f);
}

void problem_support_load(struct rt_problem *pb, const double *u, double ag, double *f)
{
	const struct ir_model *m = pb->ir;
	if (!m->support || !pb->varmass || ag == 0)
		return;
	/* M(u) d is the momentum of the velocity d */
	problem_kinetic(pb, u, m->support_dir, pb->md, NULL);
	for (int i = 0; i < pb->n; i++)
		f[i] -= pb->md[i] * ag;
}

void problem_load_at(struct rt_problem *pb, double t, const double *u, double *f)
{
	problem_load(pb, t, f);
	if (pb->varmass)
		problem_support_load(pb, u, problem_support(pb, t), f);
}

/* ½xᵀAx with A x into y (length n), in the operator's storage.  y NULL:
 * A x is not wanted, and a symmetric A gives the form without it, to the
 * same bits (la_mat_dot's column j of A is its row j, summed in the same
 * order as the product's y_j; one pass, no vector written). */
static double quad(struct rt_problem *pb, const struct la_mat *A, const double *x, double *y)
{
	if (!y && A->sym)
		return 0.5 * la_mat_dot(A, x, x);
	if (!y)
		y = pb->tmp;
	la_mat_mul(A, x, y);
	double s = 0;
	for (int i = 0; i < pb->n; i++)
		s += x[i] * y[i];
	return 0.5 * s;
}

/* Whether problem_phi's last evaluation was at (u, z), bit for bit */
static int phi_same(const struct rt_problem *pb, const double *u, const double *z)
{
	size_t n = (size_t)pb->n, m = (size_t)(pb->N - pb->n);
	return pb->phi_have && memcmp(pb->phi_key, u, n * sizeof(double)) == 0 &&
	       (m == 0 || memcmp(pb->phi_key + n, z, m * sizeof(double)) == 0);
}

/* Φ + ½uᵀKu at (u, z) and, with g, its gradient: the evaluation itself */
static double phi_eval(struct rt_problem *pb, const double *u, const double *z, double *g)
{
	const struct ir_model *m = pb->ir;
	int N = pb->N;
	/* Ku straight into g: no scratch of n touched (8 MB at 10⁶ dofs) */
	double val = quad(pb, &pb->Km, u, g);
	if (g)
		for (int j = pb->n; j < N; j++)
			g[j] = 0;
	if (m->potential) {
		struct vm_input in = { 0, u, NULL, NULL, z, NULL, m->table, pb->hint };
		vm_eval(m->potential->prog, pb->reg_phi, &in, pb->out_phi);
		val += pb->out_phi[0];
		if (g)
			for (int k = 0; k < N; k++)
				g[k] += pb->out_phi[1 + k];
		val += rt_kernels_eval(&pb->kphi, &in, u, z, g);
	}
	return val;
}

/* A potential's program (its sums' kernels: a finite element's energy
 * density at every quadrature point) is most of a step's work, and a
 * step often asks for it three times at one state: an explicit step's
 * gradient at uᵏ, the ledger's Φ(uᵏ) at the step's end, and the next
 * step's stability estimate, whose K(uᵏ) is the Hessian that evaluation
 * kept.  The last evaluation's value and gradient are kept with its
 * (u, z): the same state, bit for bit, gives them back (and its Hessians
 * are still the kernels' kept ones), so that the results are those of an
 * evaluation. */
double problem_phi(struct rt_problem *pb, const double *u, const double *z, double *g)
{
	if (!pb->ir->potential)
		return phi_eval(pb, u, z, g);
	size_t n = (size_t)pb->n, N = (size_t)pb->N;
	if (!phi_same(pb, u, z)) {
		pb->phi_val = phi_eval(pb, u, z, pb->phi_g);
		memcpy(pb->phi_key, u, n * sizeof(double));
		if (N > n)
			memcpy(pb->phi_key + n, z, (N - n) * sizeof(double));
		pb->phi_have = 1;
	}
	if (g)
		memcpy(g, pb->phi_g, N * sizeof(double));
	return pb->phi_val;
}

int problem_phi_rounding(struct rt_problem *pb, const double *u, const double *z, double *y)
{
	const struct ir_model *m = pb->ir;
	if (!m->potential || !pb->kphi.f)
		return 0;
	struct vm_input in = { 0, u, NULL, NULL, z, NULL, m->table, pb->hint };
	rt_kernels_rounding(&pb->kphi, &in, u, z, y);
	return 1;
}

static void add_hess(const struct ir_func *f, const double *h, const double *cr, const double *cc, double *J, int ld)
{
	for (int k = 0; k < f->nnz; k++) {
		int i = f->row[k], j = f->col[k];
		double c = (cr ? cr[i] : 1) * (cc ? cc[j] : 1);
		J[i + (size_t)j * ld] += c * h[k];
	}
}

/* J += diag(cr) A diag(cc), A in any storage of the matrix layer. */
static void add_matrix(const struct la_mat *A, const double *cr, const double *cc, double *J, int ld)
{
	int n = A->n;
	for (int j = 0; j < n; j++) {
		double wj = cc ? cc[j] : 1;
		switch (A->kind) {
		case LA_MAT_CSC:
			for (int k = A->p[j]; k < A->p[j + 1]; k++) {
				int i = A->i[k];
				J[i + (size_t)j * ld] += (cr ? cr[i] : 1) * wj * A->x[k];
			}
			break;
		default: {
			int lo = j - A->ku < 0 ? 0 : j - A->ku, hi = j + A->kl >= n ? n - 1 : j + A->kl;
			for (int i = lo; i <= hi; i++) {
				double a = la_mat_get(A, i, j);
				if (a != 0)
					J[i + (size_t)j * ld] += (cr ? cr[i] : 1) * wj * a;
			}
			break;
		}
		}
	}
}

void problem_add_hess_phi(struct rt_problem *pb, const double *cr, const double *cc, double *J, int ld)
{
	add_matrix(&pb->Km, cr, cc, J, ld);
	if (pb->ir->potential)
		add_hess(pb->ir->potential, pb->out_phi + 1 + pb->N, cr, cc, J, ld);
	rt_kernels_add_hess(&pb->kphi, cr, cc, J, ld);
}

/* y_i += Σ_j |a_ij| |w_j| over the entries of A. */
static void matrix_terms(const struct la_mat *A, const double *w, double *y)
{
	int n = A->n;
	for (int j = 0; j < n; j++) {
		double wj = fabs(w[j]);
		if (A->kind == LA_MAT_CSC) {
			for (int k = A->p[j]; k < A->p[j + 1]; k++)
				y[A->i[k]] += fabs(A->x[k]) * wj;
			continue;
		}
		int lo = j - A->ku < 0 ? 0 : j - A->ku, hi = j + A->kl >= n ? n - 1 : j + A->kl;
		for (int i = lo; i <= hi; i++)
			y[i] += fabs(la_mat_get(A, i, j)) * wj;
	}
}

/* ½ Σ_ij |a_ij| |w_i| |w_j|, column by column (no scratch) */
static double matrix_quad_terms(const struct la_mat *A, const double *w)
{
	int n = A->n;
	double s = 0;
	for (int j = 0; j < n; j++) {
		double wj = fabs(w[j]), c = 0;
		if (A->kind == LA_MAT_CSC)
			for (int k = A->p[j]; k < A->p[j + 1]; k++)
				c += fabs(A->x[k]) * fabs(w[A->i[k]]);
		else
			for (int i = j - A->ku < 0 ? 0 : j - A->ku, hi = j + A->kl >= n ? n - 1 : j + A->kl; i <= hi; i++)
				c += fabs(la_mat_get(A, i, j)) * fabs(w[i]);
		s += c * wj;
	}
	return 0.5 * s;
}

double problem_phi_magnitude(struct rt_problem *pb, const double *u, const double *z)
{
	const struct ir_model *m = pb->ir;
	double mag = pb->Km.x ? matrix_quad_terms(&pb->Km, u) : 0;
	if (m->potential) {
		struct vm_input in = { 0, u, NULL, NULL, z, NULL, m->table, pb->hint };
		double v = 0;
		vm_eval_magnitude(m->potential->prog, pb->vidx_phi, pb->nvidx_phi, pb->reg_phi, pb->mag_phi, &in, 0, NULL,
		                  0, 1, &v);
		mag += v + rt_kernels_value_magnitude(&pb->kphi, &in, u, z);
	}
	return mag;
}

void problem_phi_terms(const struct rt_problem *pb, const double *w, double *y)
{
	if (pb->Km.x)
		matrix_terms(&pb->Km, w, y);
	const struct ir_func *f = pb->ir->potential;
	if (f) {
		const double *h = pb->out_phi + 1 + pb->N;
		for (int k = 0; k < f->nnz; k++)
			y[f->row[k]] += fabs(h[k]) * fabs(w[f->col[k]]);
	}
	rt_kernels_terms(&pb->kphi, w, y);
}

double problem_psi(struct rt_problem *pb, const double *v, const double *zd, double *g)
{
	const struct ir_model *m = pb->ir;
	int N = pb->N;
	double val = 0;
	if (g)
		memset(g, 0, sizeof(double) * (size_t)N);
	if (pb->hasC)
		val = quad(pb, &pb->Cm, v, g);   /* Cv into g, as Ku in problem_phi */
	if (m->dissipation) {
		struct vm_input in = { 0, NULL, v, NULL, NULL, zd, m->table, pb->hint };
		vm_eval(m->dissipation->prog, pb->reg_psi, &in, pb->out_psi);
		val += pb->out_psi[0];
		if (g)
			for (int k = 0; k < N; k++)
				g[k] += pb->out_psi[1 + k];
		val += rt_kernels_eval(&pb->kpsi, &in, v, zd, g);
	}
	return val;
}

void problem_add_hess_psi(struct rt_problem *pb, const double *cr, const double *cc, double *J, int ld)
{
	if (pb->hasC)
		add_matrix(&pb->Cm, cr, cc, J, ld);
	if (pb->ir->dissipation)
		add_hess(pb->ir->dissipation, pb->out_psi + 1 + pb->N, cr, cc, J, ld);
	rt_kernels_add_hess(&pb->kpsi, cr, cc, J, ld);
}

static void eval_kinetic(struct rt_problem *pb, const double *u, const double *v)
{
	const struct ir_model *m = pb->ir;
	struct vm_input in = { 0, u, v, NULL, NULL, NULL, m->table, pb->hint };
	vm_eval(m->kinetic->prog, pb->reg_kin, &in, pb->out_kin);
}

void problem_mass(struct rt_problem *pb, const double *u, double *Mu)
{
	int n = pb->n;
	la_mat_to_dense(&pb->Mm, Mu);
	if (!pb->varmass)
		return;
	/* M(u) does not depend on v: evaluate with v = 0 */
	memset(pb->tmp, 0, sizeof(double) * (size_t)n);
	eval_kinetic(pb, u, pb->tmp);
	const struct ir_kinetic *k = pb->ir->kinetic;
	for (int e = 0; e < k->nnz; e++)
		Mu[k->row[e] + (size_t)k->col[e] * n] += pb->out_kin[1 + n + e];
}

const double *problem_mass_u(struct rt_problem *pb, const double *u)
{
	/* M(u) does not depend on v: evaluated with v = 0 */
	memset(pb->tmp, 0, sizeof(double) * (size_t)pb->n);
	eval_kinetic(pb, u, pb->tmp);
	return pb->out_kin + 1 + pb->n;
}

double problem_kinetic(struct rt_problem *pb, const double *u, const double *v, double *p, double *dTdu)
{
	int n = pb->n;
	double T = quad(pb, &pb->Mm, v, p);
	if (dTdu)
		memset(dTdu, 0, sizeof(double) * (size_t)n);
	if (!pb->varmass)
		return T;
	eval_kinetic(pb, u, v);
	const struct ir_kinetic *k = pb->ir->kinetic;
	T += pb->out_kin[0];
	if (dTdu)
		for (int i = 0; i < n; i++)
			dTdu[i] = pb->out_kin[1 + i];
	if (p)
		for (int e = 0; e < k->nnz; e++)
			p[k->row[e]] += pb->out_kin[1 + n + e] * v[k->col[e]];
	return T;
}

int problem_nterm(const struct rt_problem *pb)
{
	/* the dissipation statements, the damping matrix, then Coulomb
	 * friction at the contacts */
	return pb->ir->ndissipation + (pb->hasC ? 1 : 0) + (pb->ir->contact.friction ? 1 : 0);
}

void problem_dissipation_terms(struct rt_problem *pb, const double *v, const double *zd, double wu, double wz,
                               const double *du, const double *dz, double *dterm)
{
	const struct ir_model *m = pb->ir;
	int n = pb->n, N = pb->N;
	if (m->dissipation_terms) {
		struct vm_input in = { 0, NULL, v, NULL, NULL, zd, m->table, pb->hint };
		vm_eval(m->dissipation_terms, pb->reg_dt, &in, pb->out_dt);
		for (int k = 0; k < m->ndissipation; k++) {
			const double *g = pb->out_dt + (size_t)k * (size_t)N;
			double d = 0;
			for (int i = 0; i < n; i++)
				d += wu * du[i] * g[i];
			for (int j = 0; j < pb->m; j++)
				d += wz * dz[j] * g[n + j];
			dterm[k] += d;
		}
	}
	if (m->dissipation) {
		struct vm_input in = { 0, NULL, v, NULL, NULL, zd, m->table, pb->hint };
		rt_kernels_dterms(&pb->kpsi, &in, v, zd, wu, wz, du, dz, dterm);
	}
	if (pb->hasC) {
		la_mat_mul(&pb->Cm, v, pb->tmp);
		double d = 0;
		for (int i = 0; i < n; i++)
			d += wu * du[i] * pb->tmp[i];
		dterm[m->ndissipation] += d;
	}
}

void problem_sigma_terms(struct rt_problem *pb, const double *dz, double *dterm)
{
	for (int j = 0; j < pb->m; j++)
		if (pb->sigma[j] > 0)
			dterm[pb->ir->sigma_term[j]] += pb->sigma[j] * fabs(dz[j]);
}

double problem_friction_terms(struct rt_problem *pb, const double *du, const double *xiu, double *dterm)
{
	double d = 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		if (pb->sigma_u[i] > 0) {
			double w = du[i] * xiu[i];
			dterm[pb->ir->sigma_u_term[i]] += w;
			d += w;
		}
	return d;
}

static void gaps_place(struct rt_problem *pb, const double *out, int nk, int ngrad, const int *gk, const int *gi,
                       double *c, double *Gd);

/* Values and gradients of gap functions (constraints or contacts, ir.h):
 * the program's outputs are the nk values, then the gradient entries. */
static void gaps_eval(struct rt_problem *pb, const struct ir_prog *prog, double *reg, double *out, int nk,
                      int ngrad, const int *gk, const int *gi, double t, const double *u, double *c, double *Gd)
{
	struct vm_input in = { t, u, NULL, NULL, NULL, NULL, pb->ir->table, pb->hint };
	vm_eval(prog, reg, &in, out);
	gaps_place(pb, out, nk, ngrad, gk, gi, c, Gd);
}

/* The values and the dense gradient from a layout of gap functions. */
static void gaps_place(struct rt_problem *pb, const double *out, int nk, int ngrad, const int *gk, const int *gi,
                       double *c, double *Gd)
{
	int n = pb->n;
	if (c)
		memcpy(c, out, sizeof(double) * (size_t)nk);
	if (Gd) {
		memset(Gd, 0, sizeof(double) * (size_t)nk * (size_t)n);
		for (int q = 0; q < ngrad; q++)
			Gd[gk[q] + (size_t)gi[q] * nk] += out[nk + q];
	}
}

/* Gap functions with kernels (sums and families lowered once): the
 * program's outputs to their places in the layout, then the kernels'
 * (ir.h, struct ir_gaps). */
static void gaps_kernels(struct rt_problem *pb, const struct ir_prog *prog, const int *out_map, long nout,
                         struct rt_kernels *ks, double *reg, double *pout, double *out, int nk, int ngrad,
                         const int *gk, const int *gi, double t, const double *u, double *c, double *Gd)
{
	struct vm_input in = { t, u, NULL, NULL, NULL, NULL, pb->ir->table, pb->hint };
	vm_eval(prog, reg, &in, pout);
	memset(out, 0, sizeof(double) * (size_t)nout);
	for (int j = 0; j < prog->nout; j++)
		out[out_map[j]] = pout[j];
	rt_kernels_gaps(ks, &in, u, nk, ngrad, out);
	gaps_place(pb, out, nk, ngrad, gk, gi, c, Gd);
}

void problem_constraints(struct rt_problem *pb, double t, const double *u, double *c, double *Gd)
{
	const struct ir_model *m = pb->ir;
	if (m->constraint_out)
		gaps_kernels(pb, m->constraint, m->constraint_out, m->constraint_nout, &pb->kc, pb->reg_c, pb->prog_c,
		             pb->out_c, m->nconstraint, m->ngrad, m->gk, m->gi, t, u, c, Gd);
	else
		gaps_eval(pb, m->constraint, pb->reg_c, pb->out_c, m->nconstraint, m->ngrad, m->gk, m->gi, t, u, c,
		          Gd);
}

void problem_constraint_rates(struct rt_problem *pb, double *ct, double *ctt, double *Gt)
{
	const struct ir_model *m = pb->ir;
	int nc = m->nconstraint, n = pb->n;
	const double *o = pb->out_c + nc + m->ngrad + m->nhess;
	if (!m->constraint_moving) {
		memset(ct, 0, sizeof(double) * (size_t)nc);
		memset(ctt, 0, sizeof(double) * (size_t)nc);
		if (Gt)
			memset(Gt, 0, sizeof(double) * (size_t)nc * (size_t)n);
		return;
	}
	memcpy(ct, o, sizeof(double) * (size_t)nc);
	memcpy(ctt, o + nc, sizeof(double) * (size_t)nc);
	if (!Gt)
		return;
	memset(Gt, 0, sizeof(double) * (size_t)nc * (size_t)n);
	for (int q = 0; q < m->ngrad; q++)
		Gt[m->gk[q] + (size_t)m->gi[q] * nc] += o[2 * nc + q];
}

int problem_constraint_grad(const struct rt_problem *pb, const int **gk, const int **gi, const double **val,
                            const double **gt)
{
	const struct ir_model *m = pb->ir;
	int nc = m->nconstraint;
	*gk = m->gk;
	*gi = m->gi;
	*val = pb->out_c + nc;
	if (gt)
		*gt = m->constraint_moving ? pb->out_c + nc + m->ngrad + m->nhess + 2 * nc : NULL;
	return m->ngrad;
}

void problem_constraint_gt(const struct rt_problem *pb, const double *g, const double *lambda, double coef,
                           double *f)
{
	const struct ir_model *m = pb->ir;
	for (int q = 0; q < m->ngrad; q++)
		f[m->gi[q]] += coef * g[q] * lambda[m->gk[q]];
}

void problem_add_constraint_hess(struct rt_problem *pb, const double *lambda, double coef, double *J, int ld)
{
	const struct ir_model *m = pb->ir;
	const double *h = pb->out_c + m->nconstraint + m->ngrad;
	for (int q = 0; q < m->nhess; q++)
		J[m->hi[q] + (size_t)m->hj[q] * ld] += coef * lambda[m->hk[q]] * h[q];
}

void problem_contacts(struct rt_problem *pb, const double *u, double *phi, double *Gd)
{
	const struct ir_gaps *g = &pb->ir->contact;
	if (g->out_map)
		gaps_kernels(pb, g->prog, g->out_map, g->nout, &pb->kct, pb->reg_ct, pb->prog_ct, pb->out_ct, g->n,
		             g->ngrad, g->gk, g->gi, 0, u, phi, Gd);
	else
		gaps_eval(pb, g->prog, pb->reg_ct, pb->out_ct, g->n, g->ngrad, g->gk, g->gi, 0, u, phi, Gd);
	if (pb->contact_nan)
		return;
	/* a gap of +∞ is an open contact, as the schemes take it */
	for (int k = 0; k < g->n; k++)
		if (!(pb->out_ct[k] > -INFINITY)) {
			pb->contact_nan = 1 + k;
			pb->contact_nan_gap = pb->out_ct[k];
			return;
		}
	/* a normal that is not defined matters where the contact can act:
	 * R - sqrt(x^2 + y^2) >= 0, a ring around a ball at its centre, has
	 * none there, and needs none */
	for (int q = 0; q < g->ngrad; q++)
		if (!isfinite(pb->out_ct[g->n + q]) && !(pb->out_ct[g->gk[q]] > 0)) {
			pb->contact_nan = -(1 + g->gk[q]);
			return;
		}
}

void problem_slips(struct rt_problem *pb, const double *u, double *s, double *Td)
{
	const struct ir_gaps *g = &pb->ir->slip;
	gaps_eval(pb, g->prog, pb->reg_sl, pb->out_sl, g->n, g->ngrad, g->gk, g->gi, 0, u, s, Td);
}

int problem_contact_grad(const struct rt_problem *pb, const int **gk, const int **gi, const double **val)
{
	const struct ir_gaps *g = &pb->ir->contact;
	*gk = g->gk;
	*gi = g->gi;
	*val = pb->out_ct + g->n;
	return g->ngrad;
}

void problem_add_contact_hess(struct rt_problem *pb, const double *mu, double coef, double *J, int ld)
{
	const struct ir_gaps *g = &pb->ir->contact;
	const double *h = pb->out_ct + g->n + g->ngrad;
	for (int q = 0; q < g->nhess; q++)
		J[g->hi[q] + (size_t)g->hj[q] * ld] += coef * mu[g->hk[q]] * h[q];
}
