/* modes.c — natural frequencies and mode shapes of a model linearised at
 * its initial state (its static equilibrium with init equilibrium):
 * K φ = ω² M φ with K = ∂²Φ/∂u² (stiffness matrix included) and M =
 * M(u₀), LAPACK dsygvd (the REPL's :eig).
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
#include "mem.h"

#include <float.h>
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* K and M projected on the null space of the constraints' gradient (its
 * basis into Z, n × n room), the geometric stiffness of their forces
 * added to K; returns the dimension, or −1. */
static int project_constraints(struct rt_problem *pb, const struct ir_model *m, double *K, double *M,
                               double *Z, struct rt_error *err)
{
	int n = pb->n, nc = pb->nc;
	size_t nn = (size_t)n * (size_t)n;
	double *buf = mem_calloc(3 * nn + 8 * (size_t)n + 2 * (size_t)nc + 1, sizeof(double));
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
	int r = la_null_space(n, nc, G, Z, Q, v);
	if (r < 0) {
		snprintf(err->msg, sizeof err->msg, "the constraints of model %s are not independent at the "
		         "initial state", m->name);
	} else {
		la_congruence(n, r, Z, K, T, K);
		la_congruence(n, r, Z, M, T, M);
	}
	nl_common_free(&c);
	free(buf);
	return r;
}

/* The shift-invert operator of the large path: S = [K − σM Gᵀ; G 0]
 * (no G without constraints) factored once, M in the matrix layer. */
struct shift_op {
	const struct la_mat *M;
	struct la_solver *f;
	int n, nt;
	double *b;          /* nt */
};

static void op_mmul(void *ctx, const double *x, double *y)
{
	struct shift_op *o = ctx;
	la_mat_mul(o->M, x, y);
}

static int op_solve(void *ctx, double *b)
{
	struct shift_op *o = ctx;
	memcpy(o->b, b, sizeof(double) * (size_t)o->n);
	for (int k = o->n; k < o->nt; k++)
		o->b[k] = 0;
	la_solver_solve(o->f, o->b);
	memcpy(b, o->b, sizeof(double) * (size_t)o->n);
	return 0;
}

/* The lowest k modes of a large model by shift-invert Lanczos (la_eigs,
 * ARPACK), no n × n array: K from the stiffness operator (a quadratic
 * potential is folded there), the constraints' geometric stiffness
 * Σ λ_k ∇²c_k from the Hessian entries of the model, and with
 * constraints the saddle point [K − σM Gᵀ; G 0], whose solutions lie on
 * the tangent space.  σ = 0 when K is positive definite (Cholesky
 * succeeds); otherwise σ = −10⁻⁸ of the largest K_ii/M_ii, which lets a
 * singular K (rigid-body modes, ω = 0) be factored by LU.  The modes are
 * then the k nearest σ: the lowest for K ≥ 0. */
/* A rigid-body mode (a free–free body, a mechanism) has ω² = 0, which
 * the eigensolvers return as ± their rounding: LAPACK's dsygvd, backward
 * stable, within a few ε of the pencil's largest eigenvalue (measured
 * 0.1 ε on a free bar of 10 cells, 1.5 ε on free 3-D blocks of up to
 * 1188 dofs); what lies within rel times scale, an estimate of that
 * largest ω², is 0, not an unstable mode.  rel is 16 √r ε there: a
 * bound far above that rounding, and far below the real modes of stiff
 * models, whose spectrum spans many decades.  1000 r ε was once taken,
 * and a Hermite cantilever's first bending mode fell under it from 100
 * cells on (ω² = 12.4 beside 3.6e11: reported ω = 0), as did a penalty
 * link of 1e12 beside a unit spring; a fixed 1e-10 had taken a soft
 * support's mode (ω² = 5e-5 beside 2e7) before that.  ARPACK's
 * shift-invert: see modes_large. */
static void snap_rigid(double *w2, int r, double scale, double rel)
{
	for (int j = 0; j < r; j++)
		scale = fmax(scale, fabs(w2[j]));
	for (int j = 0; j < r; j++)
		if (fabs(w2[j]) <= rel * scale)
			w2[j] = 0;
}

static int modes_large(struct rt_problem *pb, int k, double *w2, double *phi, struct rt_error *err)
{
	const struct ir_model *m = pb->ir;
	int n = pb->n, nc = pb->nc, nt = n + nc, rc = -1;
	const int *gk = NULL, *gi = NULL;
	const double *gv = NULL;
	int ng = 0;
	double *lam = NULL, *buf = NULL;
	if (nc) {
		/* the multipliers at the initial state (sparse saddle point) */
		struct nl_common c;
		buf = mem_calloc(4 * (size_t)n + (size_t)nc + 1, sizeof(double));
		if (!buf || nl_common_alloc(&c, pb)) {
			free(buf);
			nl_common_free(&c);
			snprintf(err->msg, sizeof err->msg, "out of memory");
			return -1;
		}
		double *a = buf, *zz = a + n, *zd = zz + n;
		lam = zd + n;
		struct rt_state x = { m->u0, m->v0, a, zz, zd, lam };
		nl_acceleration(&c, 0, &x);
		nl_common_free(&c);
		problem_constraints(pb, 0, m->u0, NULL, NULL);
		ng = problem_constraint_grad(pb, &gk, &gi, &gv, NULL);
	}
	size_t nk = pb->Km.nx, nm = pb->Mm.nx;
	size_t ne = nk + nm + (size_t)(nc ? m->nhess : 0) + 2 * (size_t)ng;
	int *row = mem_alloc(sizeof(int) * (ne + 1)), *col = mem_alloc(sizeof(int) * (ne + 1));
	int *mr = mem_alloc(sizeof(int) * (nm + 1)), *mc = mem_alloc(sizeof(int) * (nm + 1));
	double *val = mem_alloc(sizeof(double) * (ne + 1));
	struct shift_op op = { &pb->Mm, NULL, n, nt, mem_calloc((size_t)nt + 1, sizeof(double)) };
	struct la_mat S;
	memset(&S, 0, sizeof S);
	if (!row || !col || !mr || !mc || !val || !op.b) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
		goto out;
	}
	la_mat_pattern(&pb->Mm, mr, mc);
	double ratio = 0;
	for (size_t e = 0; e < nm; e++)
		if (mr[e] >= 0 && mr[e] == mc[e]) {
			double mi = la_mat_get(&pb->Mm, mr[e], mr[e]), ki = la_mat_get(&pb->Km, mr[e], mr[e]);
			if (mi > 0 && ki / mi > ratio)
				ratio = ki / mi;
		}
	for (int attempt = 0; attempt < 2; attempt++) {
		double sigma = attempt == 0 ? 0 : -1e-8 * (ratio > 0 ? ratio : 1);
		size_t e = 0;
		la_mat_pattern(&pb->Km, row, col);
		for (size_t q = 0; q < nk; q++)
			if (row[q] >= 0) {
				val[e] = la_mat_get(&pb->Km, row[q], col[q]);
				row[e] = row[q];
				col[e++] = col[q];
			}
		for (size_t q = 0; q < nm && sigma != 0; q++)
			if (mr[q] >= 0) {
				row[e] = mr[q];
				col[e] = mc[q];
				val[e++] = -sigma * la_mat_get(&pb->Mm, mr[q], mc[q]);
			}
		if (nc) {
			const double *h = pb->out_c + nc + m->ngrad;
			for (int q = 0; q < m->nhess; q++) {
				row[e] = m->hi[q];
				col[e] = m->hj[q];
				val[e++] = lam[m->hk[q]] * h[q];
			}
			for (int q = 0; q < ng; q++) {
				row[e] = n + gk[q];
				col[e] = gi[q];
				val[e++] = gv[q];
				row[e] = gi[q];
				col[e] = n + gk[q];
				val[e++] = gv[q];
			}
		}
		la_mat_free(&S);
		la_solver_free(op.f);
		op.f = NULL;
		int spd = attempt == 0 && nc == 0;
		if (la_mat_triplets(&S, LA_MAT_AUTO, nt, e, row, col, val) ||
		    !(op.f = la_solver_alloc(&S, spd ? LA_AUTO : LA_UMFPACK, spd ? LA_SPD : 0))) {
			snprintf(err->msg, sizeof err->msg, "out of memory");
			goto out;
		}
		int info = la_solver_factor(op.f, &S);
		if (info < 0) {
			snprintf(err->msg, sizeof err->msg, "out of memory");
			goto out;
		}
		if (info > 0 && attempt == 0)
			continue;
		if (info > 0) {
			snprintf(err->msg, sizeof err->msg, "K - sigma M is singular for model %s (%s)", m->name,
			         nc ? "dependent constraints at the initial state?" : "sigma an eigenvalue");
			goto out;
		}
		struct la_eigs_ops ops = { &op, op_mmul, op_solve };
		int r = la_eigs(n, k, sigma, &ops, w2, phi);
		if (r == 0) {
			rc = 0;
			/* A rigid mode's ω² comes within the factorization's
			 * rounding of 0, whether K was factored with the shift
			 * (σ < 0: its Cholesky factor failed) or without it (K
			 * singular only to rounding passes Cholesky): measured
			 * 1e-19 of K's largest K_ii/M_ii and below, on free
			 * beams and blocks.  1e-15 of that scale is 0, not the
			 * 1e-10 of it once taken, under which a Hermite
			 * cantilever's first bending mode fell from 400 cells
			 * on (ω² = 12.4 beside 2e13).  With no stiffness on the
			 * diagonal (K = 0, a free mass) the scale is 1. */
			snap_rigid(w2, k, ratio > 0 ? ratio : 1, 1e-15);
		}
		else
			snprintf(err->msg, sizeof err->msg, "the eigenproblem K phi = w^2 M phi failed (ARPACK: %s)",
			         r == -4 ? "no convergence" : r == -1 ? "out of memory" : "error");
		break;
	}
out:
	la_mat_free(&S);
	la_solver_free(op.f);
	free(op.b);
	free(row);
	free(col);
	free(mr);
	free(mc);
	free(val);
	free(buf);
	return rc;
}

/* The displacements the modes are linearised at (n values into u): the
 * initial ones, or with init equilibrium the static equilibrium under the
 * loads at t = 0, where a run from 0 starts (a run's tolerance and
 * iterations by default; with constraints or contacts, which a run's
 * equilibrium refuses, the initial ones).  0, or -1 with err. */
static int linearised_at(struct rt_problem *pb, const struct ir_model *m, double *u, struct rt_error *err)
{
	int n = pb->n, nz = pb->m;
	memcpy(u, m->u0, sizeof(double) * (size_t)n);
	if (!m->init_equilibrium || pb->nc || m->contact.n)
		return 0;
	double *v = mem_calloc((size_t)n + 1, sizeof(double)), *a = mem_calloc((size_t)n + 1, sizeof(double));
	double *z = mem_calloc((size_t)nz + 1, sizeof(double)), *zd = mem_calloc((size_t)nz + 1, sizeof(double));
	int rc = -1;
	if (!v || !a || !z || !zd) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
	} else {
		memcpy(z, m->z0, sizeof(double) * (size_t)nz);
		struct rt_state x = { u, v, a, z, zd, NULL };
		rc = rt_equilibrium(pb, 0, 1e-13, 25, &x, err) ? -1 : 0;
	}
	free(v);
	free(a);
	free(z);
	free(zd);
	return rc;
}

static int modes_compute(const struct ir_model *m, int kmax, double *w2, double *phi, int *nmodes,
                         struct rt_error *err);

/* The modes with each shape's sign fixed: its largest entry positive
 * (the first of equal ones), for modes() and :eig alike (:eig printed
 * the two-mass model's first shape as (-0.707, -0.707)). */
int rt_modes(const struct ir_model *m, int kmax, double *w2, double *phi, int *nmodes, struct rt_error *err)
{
	int rc = modes_compute(m, kmax, w2, phi, nmodes, err);
	int n = m->ndof;
	for (int j = 0; rc == 0 && phi && j < *nmodes; j++) {
		double *p = phi + (size_t)j * n, big = 0;
		for (int i = 0; i < n; i++)
			if (fabs(p[i]) > fabs(big))
				big = p[i];
		for (int i = 0; i < n && big < 0; i++)
			p[i] = -p[i];
	}
	return rc;
}

static int modes_compute(const struct ir_model *m, int kmax, double *w2, double *phi, int *nmodes,
                         struct rt_error *err)
{
	memset(err, 0, sizeof *err);
	*nmodes = 0;
	/* the model's operators and energies: no run, no scheme (the
	 * frequencies are the model's) */
	struct rt_problem pb;
	if (problem_init(&pb, m, 0, err)) {
		problem_free(&pb);
		return -1;
	}
	int n = pb.n, N = pb.N;
	if (N > RT_MODES_DENSE_MAX && kmax > 0) {
		int rc = -1;
		if (pb.varmass || pb.m > 0 || m->potential || m->contact.n)
			snprintf(err->msg, sizeof err->msg, "the modes of model %s (%d unknowns) need the dense "
			         "eigen-analysis, up to %d: beyond, only models whose stiffness and mass are "
			         "constant operators (no nonlinear potential, M(u) or internal variables)",
			         m->name, N, (int)RT_MODES_DENSE_MAX);
		else if (kmax >= n - pb.nc)
			snprintf(err->msg, sizeof err->msg, "model %s has %d modes: ARPACK computes fewer than all "
			         "of a large model (ask for fewer than %d)", m->name, n - pb.nc, n - pb.nc);
		else if ((rc = modes_large(&pb, kmax, w2, phi, err)) == 0)
			*nmodes = kmax;
		problem_free(&pb);
		return rc;
	}
	if (problem_dense(&pb)) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the eigen-analysis of model %s", m->name);
		problem_free(&pb);
		return -1;
	}
	if (N > IR_DENSE_MAX || !pb.M) {
		snprintf(err->msg, sizeof err->msg, "the eigen-analysis is dense (LAPACK dsygvd): up to %d unknowns, "
		         "model %s has %d", (int)IR_DENSE_MAX, m->name, N);
		problem_free(&pb);
		return -1;
	}
	double *J = mem_calloc((size_t)N * (size_t)N + 1, sizeof(double));
	double *K = mem_calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *M = mem_calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *Z = mem_calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *q = mem_calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *full = phi && kmax > 0 && kmax < n ? mem_calloc((size_t)n * (size_t)n + 1, sizeof(double)) : NULL;
	double *out = full ? full : phi;
	double *u = mem_calloc((size_t)n + 1, sizeof(double));
	int rc = -1;
	if ((phi && kmax > 0 && kmax < n && !full) || !u) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
	} else if (linearised_at(&pb, m, u, err)) {
		/* err says why */
	} else if (J && K && M && Z && q) {
		problem_phi(&pb, u, m->z0, NULL);
		problem_add_hess_phi(&pb, NULL, NULL, J, N);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				K[i + (size_t)j * n] = J[i + (size_t)j * N];
		problem_mass(&pb, u, M);
		int r = n;
		if (pb.nc > 0)
			r = project_constraints(&pb, m, K, M, Z, err);
		int info = r < 0 ? 0 : la_sygv_low(r, kmax > 0 && kmax < r ? kmax : r, K, M, w2, pb.nc > 0 ? q : out);
		if (r < 0) {
			/* err says why */
		} else if (info == 0) {
			rc = 0;
			snap_rigid(w2, r, 0, 16 * sqrt((double)r) * DBL_EPSILON);
			*nmodes = kmax > 0 && kmax < r ? kmax : r;
			/* φ = Z q: the shapes in the dofs (n rows, r columns) */
			for (int k = 0; k < r && pb.nc > 0 && phi; k++)
				for (int i = 0; i < n; i++) {
					double s = 0;
					for (int l = 0; l < r; l++)
						s += Z[i + (size_t)l * n] * q[l + (size_t)k * r];
					out[i + (size_t)k * n] = s;
				}
			if (full)
				memcpy(phi, full, sizeof(double) * (size_t)n * (size_t)*nmodes);
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
	free(full);
	free(u);
	problem_free(&pb);
	return rc;
}

int rt_modal_mass(const struct ir_model *m, int k, const double *phi, const double *d, double *gamma, double *meff,
                  double *total, struct rt_error *err)
{
	memset(err, 0, sizeof *err);
	struct rt_problem pb;
	if (problem_init(&pb, m, 0, err)) {
		problem_free(&pb);
		return -1;
	}
	int n = pb.n, rc = -1;
	double *Md = mem_calloc((size_t)n + 1, sizeof(double)), *u = mem_calloc((size_t)n + 1, sizeof(double));
	if (!Md || !u) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
	} else if (pb.varmass && linearised_at(&pb, m, u, err)) {
		/* err says why */
	} else {
		/* M d: the constant operator, or M(u₀) d as the momentum of the
		 * velocity d (the mass the modes were computed with) */
		if (pb.varmass)
			problem_kinetic(&pb, u, d, Md, NULL);
		else
			la_mat_mul(&pb.Mm, d, Md);
		/* d is a rigid translation (the support's direction, or x),
		 * under which the nodes held by fix move too: the columns and
		 * rows of the mass that fix removes come back from the lowering
		 * (ir_model.modal_c, modal_held), so that Γ = φᵀ M d and the
		 * total dᵀ M d are the whole body's, as with the nodes held by
		 * constraints (a bar fixed at one end, 4 cells, consistent
		 * mass: meff₁ 0.770 without them, 0.8104 with, 8/π² = 0.8106
		 * the exact one) */
		int held = !pb.varmass;
		for (int i = 0; i < n && held && m->modal_c; i++)
			Md[i] += m->modal_c[i];
		double t = held ? m->modal_held : 0;
		for (int i = 0; i < n; i++)
			t += d[i] * Md[i];
		*total = t;
		/* Γ_j = φ_jᵀ M d / φ_jᵀ M φ_j with φ_jᵀ M φ_j = 1, the effective
		 * mass Γ_j² (code_aster's MASS_EFFE_D*, OpenSees' modalProperties) */
		for (int j = 0; j < k; j++) {
			double g = 0;
			for (int i = 0; i < n; i++)
				g += phi[i + (size_t)j * n] * Md[i];
			gamma[j] = g;
			meff[j] = g * g;
		}
		rc = 0;
	}
	free(Md);
	free(u);
	problem_free(&pb);
	return rc;
}
