/* modes.c — natural frequencies and mode shapes of a model linearised at
 * its initial state: K φ = ω² M φ with K = ∂²Φ/∂u² (stiffness matrix
 * included) and M = M(u₀), LAPACK dsygvd (the REPL's :eig). */
#include <config.h>

#include "run.h"
#include "la.h"
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_modes(const struct ir_model *m, double *w2, double *phi, struct rt_error *err)
{
	memset(err, 0, sizeof *err);
	/* the frequencies of a constrained model are those of K and M
	 * projected on the tangent space of the constraints: not computed
	 * (K φ = ω² M φ alone would be silently wrong) */
	if (m->nconstraint > 0) {
		snprintf(err->msg, sizeof err->msg, "model %s has constraints: its modes (on the tangent space "
		         "of the constraints) are not computed", m->name);
		err->code = 3;
		return -1;
	}
	struct ir_run plan = { 0 };
	plan.model = (struct ir_model *)m;
	plan.scheme.family = IR_NEWMARK;
	plan.scheme.p[0] = 0.25;
	plan.scheme.p[1] = 0.5;
	plan.solver = IR_SOLVER_DENSE;
	plan.dt = plan.last_dt = 1;
	plan.t1 = 1;
	plan.nstep = 1;
	struct rt_problem pb;
	if (problem_init(&pb, &plan, err)) {
		problem_free(&pb);
		return -1;
	}
	int n = pb.n, N = pb.N;
	double *J = calloc((size_t)N * (size_t)N + 1, sizeof(double));
	double *K = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *M = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	int rc = -1;
	if (J && K && M) {
		problem_phi(&pb, m->u0, m->z0, NULL);
		problem_add_hess_phi(&pb, NULL, NULL, J, N);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				K[i + (size_t)j * n] = J[i + (size_t)j * N];
		problem_mass(&pb, m->u0, M);
		int info = la_sygv(n, K, M, w2, phi);
		if (info == 0)
			rc = 0;
		else
			snprintf(err->msg, sizeof err->msg, "the eigenproblem K phi = w^2 M phi failed (%s)",
			         info > 0 ? "the mass is not positive definite" : "no convergence");
	} else {
		snprintf(err->msg, sizeof err->msg, "out of memory");
	}
	free(J);
	free(K);
	free(M);
	problem_free(&pb);
	return rc;
}
