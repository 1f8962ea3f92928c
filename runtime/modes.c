/* modes.c — natural frequencies and mode shapes of a model linearised at
 * its initial state: K φ = ω² M φ with K = ∂²Φ/∂u² (stiffness matrix
 * included) and M = M(u₀), LAPACK dsygvd (the REPL's :eig).
 *
 * With constraints the motion stays on their tangent space, the null
 * space of G = ∂c/∂u: with Z an orthonormal basis of it, Zᵀ K Z q =
 * ω² Zᵀ M Z q and φ = Z q, where K adds the constraint forces' geometric
 * stiffness Σ λ_k ∇²c_k, λ the multipliers of the initial acceleration
 * (the pendulum's tension gives ω² = g/L at the bottom). */
#include <config.h>

#include "run.h"
#include "la.h"
#include "problem.h"
#include "nlstep.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An orthonormal basis Z (n × (n − nc), columns) of the null space of G
 * (nc × n, column-major), by Gram–Schmidt: the rows of G first, then the
 * unit vectors, keeping what is left of each.  Returns its dimension, or
 * −1 when the rows of G are dependent. */
static int null_space(int n, int nc, const double *G, double *Z, double *Q, double *v)
{
	int nq = 0, nz = 0;
	for (int k = 0; k < nc + n; k++) {
		for (int i = 0; i < n; i++)
			v[i] = k < nc ? G[k + (size_t)i * nc] : (i == k - nc);
		double n0 = 0, nn = 0;
		for (int i = 0; i < n; i++)
			n0 += v[i] * v[i];
		for (int pass = 0; pass < 2; pass++)   /* twice is enough (Kahan) */
			for (int q = 0; q < nq + nz; q++) {
				const double *e = q < nq ? Q + (size_t)q * n : Z + (size_t)(q - nq) * n;
				double d = 0;
				for (int i = 0; i < n; i++)
					d += e[i] * v[i];
				for (int i = 0; i < n; i++)
					v[i] -= d * e[i];
			}
		for (int i = 0; i < n; i++)
			nn += v[i] * v[i];
		if (k < nc && !(nn > 1e-20 * n0))
			return -1;
		if (k >= nc && !(nn > 1e-2))
			continue;
		double *dst = k < nc ? Q + (size_t)nq++ * n : Z + (size_t)nz++ * n;
		for (int i = 0; i < n; i++)
			dst[i] = v[i] / sqrt(nn);
		if (nz == n - nc)
			break;
	}
	return nz;
}

/* K and M projected on the null space of the constraints' gradient (its
 * basis into Z, n × n room), the geometric stiffness of their forces
 * added to K; returns the dimension, or −1. */
static int project_constraints(struct rt_problem *pb, const struct ir_model *m, double *K, double *M,
                               double *Z, struct rt_error *err)
{
	int n = pb->n, nc = pb->nc;
	size_t nn = (size_t)n * (size_t)n;
	double *buf = calloc(3 * nn + 8 * (size_t)n + 2 * (size_t)nc + 1, sizeof(double));
	struct nl_common c;
	memset(&c, 0, sizeof c);
	if (!buf || nl_common_alloc(&c, pb)) {
		free(buf);
		nl_common_free(&c);
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -1;
	}
	double *Q = buf, *T = Q + nn, *G = T + nn, *v = G + nn, *a = v + n, *zz = a + n;
	double *zd = zz + n, *lam = zd + n;
	/* the multipliers at the initial state */
	struct rt_state x = { m->u0, m->v0, a, zz, zd, lam };
	nl_acceleration(&c, 0, &x);
	problem_constraints(pb, 0, m->u0, NULL, G);
	problem_add_constraint_hess(pb, lam, 1, K, n);
	int r = null_space(n, nc, G, Z, Q, v);
	if (r < 0) {
		snprintf(err->msg, sizeof err->msg, "the constraints of model %s are not independent at the "
		         "initial state", m->name);
	} else {
		/* K ← Zᵀ K Z, M ← Zᵀ M Z (r × r, leading dimension r) */
		for (int pass = 0; pass < 2; pass++) {
			double *A = pass ? M : K;
			for (int j = 0; j < r; j++)
				for (int i = 0; i < n; i++) {
					double s = 0;
					for (int l = 0; l < n; l++)
						s += A[i + (size_t)l * n] * Z[l + (size_t)j * n];
					T[i + (size_t)j * n] = s;
				}
			for (int j = 0; j < r; j++)
				for (int i = 0; i < r; i++) {
					double s = 0;
					for (int l = 0; l < n; l++)
						s += Z[l + (size_t)i * n] * T[l + (size_t)j * n];
					A[i + (size_t)j * r] = s;
				}
		}
	}
	nl_common_free(&c);
	free(buf);
	return r;
}

int rt_modes(const struct ir_model *m, double *w2, double *phi, int *nmodes, struct rt_error *err)
{
	memset(err, 0, sizeof *err);
	*nmodes = 0;
	/* the model's operators and energies, stored densely: no run, no
	 * scheme (the frequencies are the model's) */
	struct rt_problem pb;
	if (problem_init(&pb, m, 0, err)) {
		problem_free(&pb);
		return -1;
	}
	int n = pb.n, N = pb.N;
	if (N > IR_DENSE_MAX || !pb.M) {
		snprintf(err->msg, sizeof err->msg, "the eigen-analysis is dense (LAPACK dsygvd): up to %d unknowns, "
		         "model %s has %d", (int)IR_DENSE_MAX, m->name, N);
		problem_free(&pb);
		return -1;
	}
	double *J = calloc((size_t)N * (size_t)N + 1, sizeof(double));
	double *K = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *M = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *Z = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *q = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	int rc = -1;
	if (J && K && M && Z && q) {
		problem_phi(&pb, m->u0, m->z0, NULL);
		problem_add_hess_phi(&pb, NULL, NULL, J, N);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				K[i + (size_t)j * n] = J[i + (size_t)j * N];
		problem_mass(&pb, m->u0, M);
		int r = n;
		if (pb.nc > 0)
			r = project_constraints(&pb, m, K, M, Z, err);
		int info = r < 0 ? 0 : la_sygv(r, K, M, w2, pb.nc > 0 ? q : phi);
		if (r < 0) {
			/* err says why */
		} else if (info == 0) {
			rc = 0;
			*nmodes = r;
			/* φ = Z q: the shapes in the dofs (n rows, r columns) */
			for (int k = 0; k < r && pb.nc > 0 && phi; k++)
				for (int i = 0; i < n; i++) {
					double s = 0;
					for (int l = 0; l < r; l++)
						s += Z[i + (size_t)l * n] * q[l + (size_t)k * r];
					phi[i + (size_t)k * n] = s;
				}
		} else {
			snprintf(err->msg, sizeof err->msg, "the eigenproblem K phi = w^2 M phi failed (%s)",
			         info > 0 ? "the mass is not positive definite" : "no convergence");
		}
	} else {
		snprintf(err->msg, sizeof err->msg, "out of memory");
	}
	free(J);
	free(K);
	free(M);
	free(Z);
	free(q);
	problem_free(&pb);
	return rc;
}
