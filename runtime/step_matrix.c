/* step_matrix.c — the step matrices of the linear path: A = cM M + cC C +
 * cK K on the union of the operators' patterns, and with linear
 * constraints B u = G(t) the saddle point [A w s Bᵀ; s B 0].  The pattern
 * and the factorization's symbolic analysis are made once; a new step
 * size refills the values (la_mat_sum) and redoes the numeric
 * factorization only.  Which backend factors is the matrix layer's
 * business (la.h): dense LAPACK for small models, banded LAPACK for
 * chains, CHOLMOD or UMFPACK for the rest. */
#include <config.h>

#include "stepper.h"
#include "la.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct step_matrix {
	const struct rt_system *sys;
	int spd, nt;
	int stiffness;      /* K is a term */
	/* with constraints, the operators and the blocks Bᵀ, B at order
	 * n + nc (the terms of S) */
	struct la_mat ext[3], bt, b;
	struct la_mat S;
	struct la_solver *f;
	double bscale;
};

void step_matrix_free(struct step_matrix *sm)
{
	if (!sm)
		return;
	la_solver_free(sm->f);
	la_mat_free(&sm->S);
	for (int k = 0; k < 3; k++)
		la_mat_free(&sm->ext[k]);
	la_mat_free(&sm->bt);
	la_mat_free(&sm->b);
	free(sm);
}

/* The blocks of B (sys's triplets) at order n + nc: Bᵀ in the upper
 * right (transpose nonzero), B in the lower left.  Zero entries are
 * dropped, as the dense B's were. */
static int constraint_blocks(struct step_matrix *sm, enum la_mat_kind kind)
{
	const struct rt_system *sys = sm->sys;
	int n = sys->n;
	size_t nb = (size_t)sys->nb, k = 0;
	int *r = mem_alloc(sizeof(int) * (nb + 1)), *c = mem_alloc(sizeof(int) * (nb + 1));
	double *v = mem_alloc(sizeof(double) * (nb + 1));
	int rc = -1;
	if (r && c && v) {
		for (size_t q = 0; q < nb; q++)
			if (sys->bv[q] != 0) {
				r[k] = n + sys->bk[q];
				c[k] = sys->bi[q];
				v[k++] = sys->bv[q];
			}
		rc = la_mat_triplets(&sm->b, kind, sm->nt, k, r, c, v);
		if (!rc)
			rc = la_mat_triplets(&sm->bt, kind, sm->nt, k, c, r, v);
	}
	free(r);
	free(c);
	free(v);
	return rc;
}

struct step_matrix *step_matrix_alloc(const struct rt_system *sys, int spd, int stiffness)
{
	struct step_matrix *sm = mem_calloc(1, sizeof *sm);
	if (!sm)
		return NULL;
	sm->sys = sys;
	sm->nt = sys->n + sys->nc;
	sm->stiffness = stiffness;
	/* the saddle point is indefinite: never Cholesky */
	sm->spd = spd && sys->nc == 0;
	const struct la_mat *term[5] = { sys->M, sys->C, stiffness ? sys->K : NULL, NULL, NULL };
	if (sys->nc) {
		/* a band is no use once B's rows join: dense stays dense, the
		 * rest goes to compressed columns */
		enum la_mat_kind kind = sys->M->kind == LA_MAT_DENSE ? LA_MAT_DENSE : LA_MAT_CSC;
		for (int k = 0; k < 3; k++)
			if (term[k]) {
				if (la_mat_resize(&sm->ext[k], term[k], sm->nt, kind))
					goto oom;
				term[k] = &sm->ext[k];
			}
		if (constraint_blocks(sm, kind))
			goto oom;
		term[3] = &sm->bt;
		term[4] = &sm->b;
	}
	/* the terms without the absent ones (la_mat_sum_init skips a NULL
	 * term; step_factor's coefficients follow the same order) */
	if (la_mat_sum_init(&sm->S, sys->nc ? 5 : 3, term))
		goto oom;
	return sm;
oom:
	step_matrix_free(sm);
	return NULL;
}

int step_factor(struct step_matrix *sm, double cM, double cC, double cK, double w)
{
	const struct rt_system *sys = sm->sys;
	/* coefficients in the order of the non-NULL terms */
	double coef[5];
	int k = 0;
	coef[k++] = cM;
	if (sys->C)
		coef[k++] = cC;
	if (sm->stiffness)
		coef[k++] = cK;
	/* a banded step matrix's values were dropped after the last
	 * factorization (below): they come back for a new step size */
	if (!sm->S.x && !(sm->S.x = mem_alloc(sizeof(double) * (sm->S.nx + 1))))
		return -1;
	if (sys->nc) {
		coef[k] = coef[k + 1] = 0;
		la_mat_sum(&sm->S, coef);
		/* equilibrate the two blocks: LU with partial pivoting then
		 * sees entries of one size (a stiffness of 1e8 against B of 1) */
		double amax = la_mat_maxabs(&sm->S), bmax = la_mat_maxabs(&sm->b);
		sm->bscale = bmax > 0 && amax > 0 ? amax / bmax : 1;
		coef[k] = w * sm->bscale;
		coef[k + 1] = sm->bscale;
	}
	la_mat_sum(&sm->S, coef);
	if (!sm->f) {
		/* the symbolic analysis, at the first factorization (UMFPACK
		 * looks at the values to choose its strategy) */
		enum la_backend b = sys->backend;
		/* an explicit scheme's step matrix with a lumped mass (βτ²K
		 * = 0, no damping or a diagonal one: a diagonal pattern) is
		 * solved on every process alike, as by one process:
		 * distributing it over several (their default, dyn(1) MPI)
		 * would add an all-gather to each step and save nothing */
		if (sys->backend_mpi && sys->nc == 0 && cK == 0 && !sm->S.part &&
		    (!sys->C || cC == 0 || (sys->C->kl == 0 && sys->C->ku == 0)) && sys->M->kl == 0 && sys->M->ku == 0)
			b = LA_AUTO;
		if (b == LA_CHOLMOD && !(sm->spd && sm->S.sym))
			b = LA_UMFPACK;
		sm->f = la_solver_alloc(&sm->S, b, sm->spd && sm->S.sym ? LA_SPD : 0);
		if (!sm->f)
			return -1;
	}
	int rc = la_solver_factor(sm->f, &sm->S);
	/* The banded solver works in its own copy (la_band.c) and nothing
	 * else reads S between step sizes: its values (3 doubles per unknown
	 * of a chain) are not kept through the run. */
	if (rc == 0 && sm->S.kind == LA_MAT_BAND && la_solver_backend(sm->f) == LA_LAPACK_BAND) {
		free(sm->S.x);
		sm->S.x = NULL;
	}
	return rc;
}

double step_matrix_scale(const struct step_matrix *sm)
{
	return sm->sys->nc ? sm->bscale : 1;
}

void step_solve(struct step_matrix *sm, double *b)
{
	la_solver_solve(sm->f, b);
}

void step_solve_saddle(struct step_matrix *sm, double t, const double *ut, double c, double *rhs)
{
	const struct rt_system *sys = sm->sys;
	int n = sys->n, nc = sys->nc;
	double *g = rhs + n;
	sys->gfun(sys->load_ctx, t, g);
	for (int q = 0; q < sys->nb; q++)
		g[sys->bk[q]] -= sys->bv[q] * ut[sys->bi[q]];
	for (int k = 0; k < nc; k++)
		g[k] = sm->bscale * g[k] / c;
	la_solver_solve(sm->f, rhs);
	for (int k = 0; k < nc; k++)
		sys->lam[k] = sm->bscale * g[k];
}

const char *step_pivot_name(const struct rt_system *sys, int k, char *buf, size_t size)
{
	return k >= 1 && k <= sys->n ? ir_dof_name(sys->model, k - 1, buf, size) : "a constraint's multiplier";
}

int step_factor_checked(struct step_matrix *sm, const struct rt_system *sys, double cM, double cC, double cK,
                        double w, const char *what, struct rt_error *err)
{
	int info = step_factor(sm, cM, cC, cK, w);
	if (info == 0)
		return 0;
	if (info < 0)
		snprintf(err->msg, sizeof err->msg, "out of memory for the step matrix (%d dofs)", sys->n);
	else if (info > sm->S.n) {
		/* a backend that numbers no pivot (PETSc's): its reason */
		const char *why = la_backend_failure();
		snprintf(err->msg, sizeof err->msg, "%s (%s)", what, why ? why : "no pivot named");
	} else {
		char nm[IR_NAME_SIZE];
		snprintf(err->msg, sizeof err->msg, "%s at pivot %d (dof %s)", what, info,
		         step_pivot_name(sys, info, nm, sizeof nm));
	}
	err->code = 3;
	return -1;
}
