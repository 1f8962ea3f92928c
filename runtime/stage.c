/* stage.c — residual and Jacobian of a nonlinear stage (stage.h), solved
 * by Newton (newton.c). */
#include <config.h>

#include "stage.h"
#include "jacobian.h"
#include "la.h"
#include "newton.h"
#include "mem.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the stage's Jacobian is assembled in the matrix layer rather
 * than as a dense N×N array.  The dense path (LU by dgetrf) stays for
 * small models (up to LA_SMALL_N unknowns) under solver = auto, where it is
 * what the results were measured with, for solver = dense, and for what
 * only it implements: a mass depending on u (the midpoint rule's own
 * (u, p) iteration). */
int stage_sparse(const struct rt_problem *pb)
{
	if (pb->varmass)
		return 0;
	if (pb->jac_auto || pb->backend == LA_AUTO)
		return !(pb->N + pb->nc <= LA_SMALL_N && pb->M);
	return pb->backend != LA_LAPACK_DENSE;
}

struct newton *stage_newton_mat(struct rt_problem *pb, int nc, int spd, struct jacobian **jac)
{
	static const enum la_mat_kind kind_of[] = {
		[LA_AUTO] = LA_MAT_AUTO, [LA_LAPACK_DENSE] = LA_MAT_DENSE, [LA_LAPACK_BAND] = LA_MAT_BAND,
		[LA_CHOLMOD] = LA_MAT_CSC, [LA_UMFPACK] = LA_MAT_CSC, [LA_PETSC_DIRECT] = LA_MAT_CSC,
		[LA_PETSC_ITERATIVE] = LA_MAT_CSC
	};
	enum la_backend b = pb->jac_auto ? LA_AUTO : pb->backend;
	*jac = mem_calloc(1, sizeof **jac);
	if (!*jac || jacobian_init(*jac, pb, nc, kind_of[b]))
		return NULL;
	return newton_alloc_mat(&(*jac)->A, b, spd);
}

/* The stage's Newton solver: on the matrix layer (s->jac) when
 * stage_sparse says so, dense otherwise.  Cholesky is tried when the
 * Jacobian can be symmetric positive definite: no constraint rows (the
 * saddle point is indefinite) and no soft-thresholding rows (scaled
 * rows are not symmetric); a symmetric Jacobian of a convex energy
 * (the midpoint rule on the Fermi–Pasta–Ulam chain: 2M/τ + τ/2 ∇²Φ) is. */
static struct newton *stage_newton(struct stage *s)
{
	struct rt_problem *pb = s->pb;
	if (!stage_sparse(pb))
		return newton_alloc(s->NT);
	int spd = s->nc == 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		spd &= !(pb->sigma_u[i] > 0);
	for (int j = 0; j < pb->m && pb->sigma; j++)
		spd &= !(pb->sigma[j] > 0);
	return stage_newton_mat(pb, s->nc, spd, &s->jac);
}

int stage_alloc(struct stage *s, struct rt_problem *pb)
{
	memset(s, 0, sizeof *s);
	s->pb = pb;
	s->n = pb->n;
	s->m = pb->m;
	s->N = pb->N;
	s->nc = pb->nc;
	s->NT = pb->N + pb->nc;
	/* room for the μ unknowns of formulation = ggl (stage_ggl) */
	size_t N = (size_t)(pb->N + 2 * pb->nc) + 1;
	s->e = mem_calloc(N, sizeof(double));
	s->x = mem_calloc(N, sizeof(double));
	s->u = mem_calloc(N, sizeof(double));
	s->v = mem_calloc(N, sizeof(double));
	s->z = mem_calloc(N, sizeof(double));
	s->zd = mem_calloc(N, sizeof(double));
	s->gphi = mem_calloc(N, sizeof(double));
	s->gpsi = mem_calloc(N, sizeof(double));
	s->xi = mem_calloc(N, sizeof(double));
	s->Mi = mem_calloc(N, sizeof(double));
	s->cr = mem_calloc(N, sizeof(double));
	s->cc = mem_calloc(N, sizeof(double));
	s->ccpsi = mem_calloc(N, sizeof(double));
	s->ue = mem_calloc(N, sizeof(double));
	s->ze = mem_calloc(N, sizeof(double));
	s->pc = mem_calloc(N, sizeof(double));
	s->rbuf = mem_calloc(N, sizeof(double));
	s->gq = mem_calloc(N, sizeof(double));
	s->tw = mem_calloc(N, sizeof(double));
	s->ty = mem_calloc(N, sizeof(double));
	s->tk = mem_calloc(N, sizeof(double));
	s->xiu = mem_calloc(N, sizeof(double));
	s->pcu = mem_calloc(N, sizeof(double));
	s->nw = stage_newton(s);
	s->cval = mem_calloc((size_t)s->nc + 1, sizeof(double));
	s->gs = mem_calloc((size_t)pb->ir->ngrad + 1, sizeof(double));
	s->ge = mem_calloc((size_t)pb->ir->ngrad + 1, sizeof(double));
	s->gtl = mem_calloc((size_t)s->n + 1, sizeof(double));
	s->uend = mem_calloc((size_t)s->n + 1, sizeof(double));
	s->cw = mem_calloc((size_t)s->nc + 1, sizeof(double));
	s->cwe = mem_calloc((size_t)s->nc + 1, sizeof(double));
	s->shift = mem_calloc((size_t)s->n + 1, sizeof(double));
	if (pb->ir->rigid) {
		s->dgdir = mem_calloc((size_t)s->n + 1, sizeof(double));
		s->rig = mem_calloc(6 * (size_t)s->n + 1, sizeof(double));
		if (!s->dgdir || !s->rig) {
			stage_free(s);
			return -1;
		}
	}
	s->solve_u = s->solve_z = 1;
	s->wu = 1;
	s->tol = 1e-13;
	s->maxit = 25;
	if (!s->e || !s->x || !s->u || !s->v || !s->z || !s->zd || !s->gphi || !s->gpsi || !s->xi ||
	    !s->Mi || !s->cr || !s->cc || !s->ccpsi || !s->ue || !s->ze || !s->pc || !s->rbuf || !s->gq || !s->tw || !s->ty || !s->tk || !s->xiu || !s->pcu || !s->nw || !s->cval || !s->gs || !s->ge || !s->gtl || !s->uend || !s->cw || !s->cwe || !s->shift) {
		stage_free(s);
		return -1;
	}
	return 0;
}

void stage_free(struct stage *s)
{
	free(s->e); free(s->x); free(s->u); free(s->v); free(s->z); free(s->zd);
	free(s->gphi); free(s->gpsi); free(s->xi); free(s->Mi); free(s->cr); free(s->cc);
	free(s->ccpsi); free(s->ue); free(s->ze); free(s->pc); free(s->rbuf); free(s->gq); free(s->tw); free(s->ty); free(s->tk); free(s->xiu); free(s->pcu);
	free(s->cval); free(s->gs); free(s->ge); free(s->gtl); free(s->Ge); free(s->uend); free(s->cw); free(s->cwe); free(s->shift);
	free(s->Gm); free(s->Pv); free(s->ct); free(s->ctt); free(s->Gt); free(s->cwv); free(s->vend); free(s->ve0); free(s->hu);
	free(s->ccu); free(s->gmv); free(s->hux); free(s->wv);
	free(s->dgdir); free(s->rig);
	newton_free(s->nw);
	s->nw = NULL;
	if (s->jac)
		jacobian_free(s->jac);
	free(s->jac);
	/* freed twice is freed once: stage_alloc frees what it allocated
	 * when it fails, and the stepper's own cleanup then frees its stage
	 * again (a double free when memory ran out at a scheme's setup) */
	memset(s, 0, sizeof *s);
}

/* soft thresholding S_λ(x) = sign(x) max(|x| − λ, 0) */
static double soft(double x, double lambda)
{
	return x > lambda ? x - lambda : x < -lambda ? x + lambda : 0;
}

/* The values of G from the last problem_constraints, on the model's
 * gradient pattern, into g (ngrad entries). */
static void keep_grad(const struct stage *s, double *g)
{
	const int *gk, *gi;
	const double *val;
	int ng = problem_constraint_grad(s->pb, &gk, &gi, &val, NULL);
	memcpy(g, val, sizeof(double) * (size_t)ng);
}

/* formulation = ggl: the position correction G(ū)ᵀμ at the stage's
 * index-3 position ū = u0 + cu y (in s->u on entry; at the forces' time
 * tf), added whole to the
 * step's end and in the proportion cu/cue to the stage's u (the midpoint
 * rule's u^{k−½} moves by half of it, Newmark's uᵏ by all of it). */
static void ggl_shift(struct stage *s, const double *mu)
{
	int n = s->n, nc = s->nc;
	if (s->jac) {
		/* G(ū) on its pattern */
		problem_constraints(s->pb, s->tf, s->u, NULL, NULL);
		keep_grad(s, s->gmv);
		memset(s->shift, 0, sizeof(double) * (size_t)n);
		problem_constraint_gt(s->pb, s->gmv, mu, 1, s->shift);
		for (int i = 0; i < n; i++)
			s->u[i] += s->cu / s->cue * s->shift[i];
		return;
	}
	problem_constraints(s->pb, s->tf, s->u, NULL, s->Gm);
	for (int i = 0; i < n; i++) {
		double d = 0;
		for (int k = 0; k < nc; k++)
			d += s->Gm[k + (size_t)i * nc] * mu[k];
		s->shift[i] = d;
		s->u[i] += s->cu / s->cue * d;
	}
}

/* formulation = ggl: the velocity rows G(u_end) v_end + ∂c/∂t(u_end, tc)
 * = 0, after the position rows (which left G(u_end), its Hessians and the
 * rates' inputs from the evaluation at u_end), and the Jacobian's μ
 * columns: ∂u/∂μ = (cu/cue) G(ū)ᵀ, ∂u_end/∂μ = G(ū)ᵀ.  The dependence of
 * G(ū) on y (Σ μ_k ∇²c_k(ū) cu) is left out of the Jacobian: μ vanishes
 * with the step (it is O(τ³) for the midpoint rule), so Newton keeps its
 * quadratic convergence to within a factor O(|μ|). */
static void ggl_rows_sparse(struct stage *s, const double *y, double *R, double *J);

static void ggl_rows(struct stage *s, const double *y, double *R, double *J)
{
	if (s->jac) {
		ggl_rows_sparse(s, y, R, J);
		return;
	}
	struct rt_problem *pb = s->pb;
	const struct ir_model *m = pb->ir;
	int n = s->n, nc = s->nc, NS = s->N, N = s->NT;
	for (int i = 0; i < n; i++)
		s->vend[i] = s->ve0[i] + s->cve * y[i];
	/* G(u_end) dense: this dense Jacobian is (stage_ggl) */
	memset(s->Ge, 0, sizeof(double) * (size_t)nc * (size_t)n);
	for (int q = 0; q < m->ngrad; q++)
		s->Ge[m->gk[q] + (size_t)m->gi[q] * nc] += s->ge[q];
	problem_constraint_rates(pb, s->ct, s->ctt, s->Gt);
	for (int k = 0; k < nc; k++) {
		double gv = s->ct[k];
		for (int i = 0; i < n; i++)
			gv += s->Ge[k + (size_t)i * nc] * s->vend[i];
		R[NS + nc + k] = s->cwv[k] * gv;
	}
	if (!J)
		return;
	/* Pv = ∂(G v_end + ∂c/∂t)/∂u_end = Σ_j ∇²c_k[i][j] v_end,j + ∂G/∂t */
	memcpy(s->Pv, s->Gt, sizeof(double) * (size_t)nc * (size_t)n);
	const double *h = pb->out_c + nc + m->ngrad;
	for (int q = 0; q < m->nhess; q++)
		s->Pv[m->hk[q] + (size_t)m->hi[q] * nc] += h[q] * s->vend[m->hj[q]];
	for (int k = 0; k < nc; k++)
		for (int i = 0; i < n; i++)
			J[NS + nc + k + (size_t)i * N] =
			        s->cwv[k] * (s->Ge[k + (size_t)i * nc] * s->cve + s->Pv[k + (size_t)i * nc] * s->cue);
	double r = s->cu / s->cue;
	for (int l = 0; l < nc; l++) {
		double *col = J + (size_t)(NS + nc + l) * N;
		for (int i = 0; i < n; i++) {
			double g = s->Gm[l + (size_t)i * nc];
			if (g == 0)
				continue;
			for (int a = 0; a < NS; a++)
				col[a] += s->hu[a + (size_t)i * NS] * r * g;
			for (int k = 0; k < nc; k++) {
				col[NS + k] += s->cw[k] * s->Ge[k + (size_t)i * nc] * g;
				col[NS + nc + k] += s->cwv[k] * s->Pv[k + (size_t)i * nc] * g;
			}
		}
	}
}

/* ggl_rows on the matrix layer: the same rows and columns from the
 * entries of G and of the constraints' Hessians (jacobian_init_ggl), with
 * ∂R/∂u in s->hux on the Jacobian's slots.  O(entries) and O(nc n) for
 * the nc × nc blocks (one row of G(ū) scattered at a time). */
static void ggl_rows_sparse(struct stage *s, const double *y, double *R, double *J)
{
	struct rt_problem *pb = s->pb;
	const struct ir_model *m = pb->ir;
	const struct jacobian *jc = s->jac;
	int n = s->n, nc = s->nc, NS = s->N;
	for (int i = 0; i < n; i++)
		s->vend[i] = s->ve0[i] + s->cve * y[i];
	/* rates at u_end, the last evaluation */
	const int *gk, *gi;
	const double *gv, *gt;
	int ng = problem_constraint_grad(pb, &gk, &gi, &gv, &gt);
	problem_constraint_rates(pb, s->ct, s->ctt, NULL);
	for (int k = 0; k < nc; k++)
		s->cwe[k] = s->ct[k];
	for (int q = 0; q < ng; q++)
		s->cwe[gk[q]] += s->ge[q] * s->vend[gi[q]];
	for (int k = 0; k < nc; k++)
		R[NS + nc + k] = s->cwv[k] * s->cwe[k];
	if (!J)
		return;
	const double *h = pb->out_c + nc + m->ngrad;
	/* the velocity rows' y columns: cwv (Ge cve + Pv cue), Pv = ∂ₜG +
	 * Σ ∇²c v_end */
	for (int q = 0; q < ng; q++)
		J[jc->svg[q]] += s->cwv[gk[q]] * (s->ge[q] * s->cve + (gt ? gt[q] : 0) * s->cue);
	for (int q = 0; q < m->nhess; q++)
		J[jc->svh[q]] += s->cwv[m->hk[q]] * h[q] * s->vend[m->hj[q]] * s->cue;
	/* the μ columns: ∂R/∂u (cu/cue) G(ū)ᵀ on the rows of the state */
	double r = s->cu / s->cue;
	for (int q = 0; q < ng; q++)
		for (size_t p = jc->mup[q]; p < jc->mup[q + 1]; p++)
			J[jc->mut[p]] += s->hux[jc->mus[p]] * r * s->gmv[q];
	/* and the nc × nc blocks: cw G(u_end) G(ū)ᵀ, cwv Pv G(ū)ᵀ */
	for (int l = 0; l < nc; l++) {
		for (int q = 0; q < ng; q++)
			if (gk[q] == l)
				s->wv[gi[q]] = s->gmv[q];
		for (int q = 0; q < ng; q++) {
			int k = gk[q];
			double g = s->wv[gi[q]];
			J[jc->sgmu[k + (size_t)l * nc]] += s->cw[k] * s->ge[q] * g;
			J[jc->svmu[k + (size_t)l * nc]] += s->cwv[k] * (gt ? gt[q] : 0) * g;
		}
		for (int q = 0; q < m->nhess; q++)
			J[jc->svmu[m->hk[q] + (size_t)l * nc]] += s->cwv[m->hk[q]] * h[q] * s->vend[m->hj[q]] *
			                                          s->wv[m->hi[q]];
		for (int q = 0; q < ng; q++)
			s->wv[gi[q]] = 0;
	}
}

/* The Jacobian of the energies and the inertia on the matrix layer, as
 * the dense block of residual() below: J += diag(cr) (∇²Φ cc + ∇²Ψ ccψ)
 * + cm M, identity rows for a frozen block. */
static void jac_values(struct stage *s, double *J)
{
	struct rt_problem *pb = s->pb;
	int n = s->n, m = s->m;
	for (int i = 0; i < n; i++) {
		s->cr[i] = s->solve_u ? s->wu : 0;
		s->cc[i] = s->solve_u ? s->cu : 0;
		s->ccpsi[i] = s->solve_u ? s->cv : 0;
	}
	for (int j = 0; j < m; j++) {
		s->cr[n + j] = s->solve_z ? 1 : 0;
		s->cc[n + j] = s->solve_z ? s->cz : 0;
		s->ccpsi[n + j] = s->solve_z ? s->czd : 0;
	}
	jacobian_add_phi(s->jac, pb, s->cr, s->cc, J);
	jacobian_add_psi(s->jac, pb, s->cr, s->ccpsi, J);
	if (s->solve_u) {
		jacobian_add_mass(s->jac, pb, s->cm, J);
	} else {
		for (int i = 0; i < n; i++)
			J[s->jac->diag[i]] = 1;
	}
	if (!s->solve_z)
		for (int j = 0; j < m; j++)
			J[s->jac->diag[n + j]] = 1;
}

/* The direction of Gonzalez's correction on a free elastic body: Δu
 * without its rigid part, d = Δu − Σ_k (b_k·Δu) b_k with b_k the
 * orthonormalised translations and infinitesimal rotations about the
 * origin at the midpoint placement q^½ = X + u^½ (ir_rigid).  An
 * invariant Φ has ∇Φ(q^½) orthogonal to the b_k; d is too, so
 * DΦ = ∇Φ(x^½) + c d keeps Σ DΦ = 0 and Σ q^½ × DΦ = 0: the step
 * conserves the linear and angular momenta exactly, as the midpoint rule
 * does, while c = [Φ(xᵏ) − Φ(xᵏ⁻¹) − ∇Φ(x^½)·Δx]/(d·Δx) keeps the
 * energy exact (d·Δx = |d|²).  A rigid step (Δu = 2 tan(θ/2) J q^½ for a
 * rotation by θ, Cayley) has d = 0 and a zero bracket.  Returns d·Δu. */
static double rigid_direction(struct stage *s)
{
	const struct ir_rigid *rg = s->pb->ir->rigid;
	int n = s->n, dim = rg->dim, nb = dim == 1 ? 1 : dim == 2 ? 3 : 6;   /* translations, rotations */
	double *b = s->rig, *d = s->dgdir;
	memset(b, 0, sizeof(double) * (size_t)nb * (size_t)n);
	for (long p = 0; p < rg->nnode; p++) {
		double q[3];
		size_t i0 = (size_t)rg->first + (size_t)p * (size_t)dim;
		for (int c = 0; c < dim; c++) {
			q[c] = rg->X[(size_t)p * (size_t)dim + (size_t)c] + s->u[i0 + (size_t)c];
			b[(size_t)c * (size_t)n + i0 + (size_t)c] = 1;
		}
		if (dim == 2) {
			b[2 * (size_t)n + i0] = -q[1];
			b[2 * (size_t)n + i0 + 1] = q[0];
		} else if (dim == 3) {
			/* e_k × q for k = x, y, z */
			double *r0 = b + 3 * (size_t)n + i0, *r1 = b + 4 * (size_t)n + i0, *r2 = b + 5 * (size_t)n + i0;
			r0[1] = -q[2], r0[2] = q[1];
			r1[0] = q[2], r1[2] = -q[0];
			r2[0] = -q[1], r2[1] = q[0];
		}
	}
	/* modified Gram–Schmidt (the translations are orthogonal already) */
	for (int k = 0; k < nb; k++) {
		double *bk = b + (size_t)k * (size_t)n;
		for (int j = 0; j < k; j++) {
			const double *bj = b + (size_t)j * (size_t)n;
			double dot = 0;
			for (int i = 0; i < n; i++)
				dot += bj[i] * bk[i];
			for (int i = 0; i < n; i++)
				bk[i] -= dot * bj[i];
		}
		double nn = 0;
		for (int i = 0; i < n; i++)
			nn += bk[i] * bk[i];
		nn = nn > 0 ? 1 / sqrt(nn) : 0;
		for (int i = 0; i < n; i++)
			bk[i] *= nn;
	}
	for (int i = 0; i < n; i++)
		d[i] = 2 * (s->u[i] - s->uprev[i]);
	for (int k = 0; k < nb; k++) {
		const double *bk = b + (size_t)k * (size_t)n;
		double dot = 0;
		for (int i = 0; i < n; i++)
			dot += bk[i] * d[i];
		for (int i = 0; i < n; i++)
			d[i] -= dot * bk[i];
	}
	double dd = 0;
	for (int i = 0; i < n; i++)
		dd += d[i] * 2 * (s->u[i] - s->uprev[i]);
	return dd;
}

/* The terms of ∇Φ bound the rounding of R as much as R's own terms do:
 * a body held in equilibrium by a load (gravity in Φ, a preload) has
 * Ku and the load each large and ∇Φ, the residual and s->mag near 0, so
 * that a bound of tol·mag asks for a residual below the rounding of Ku
 * and Newton stalls there (a cantilever under its weight: 5e-15 against a
 * bound of 1e-25).  Σ_j |H_ij| |w_j|, w = (u, z), is the size of the
 * terms of row i for a quadratic Φ (the componentwise measure of a
 * backward error, Oettli & Prager 1964) and the linearised one for
 * another; taken at the Jacobian's evaluations, whose Hessian is the
 * current one.  A kernel whose gradient cancels inside its program adds
 * the magnitude of those terms (s->tk, problem_phi_rounding): a
 * neo-Hookean block under a small load has μF and μF⁻ᵀ of size μ in
 * its stress and Σ|H||w| of size μ|∇u|, and Newton stalled at 1e-9
 * relative, 1e4 times above a bound it could not reach. */
static void terms_of_phi(struct stage *s)
{
	int n = s->n, m = s->m;
	for (int i = 0; i < n; i++)
		s->tw[i] = s->u[i];
	for (int j = 0; j < m; j++)
		s->tw[n + j] = s->z[j];
	if (s->have_tk)
		memcpy(s->ty, s->tk, sizeof(double) * (size_t)(n + m));
	else
		memset(s->ty, 0, sizeof(double) * (size_t)(n + m));
	problem_phi_terms(s->pb, s->tw, s->ty);
	for (int i = 0; i < n && s->solve_u; i++)
		s->mag = fmax(s->mag, fabs(s->wu) * s->ty[i]);
	for (int j = 0; j < m && s->solve_z; j++)
		s->mag = fmax(s->mag, s->ty[n + j]);
}

static int residual(void *ctx, const double *x, double *R, double *J)
{
	struct stage *s = ctx;
	struct rt_problem *pb = s->pb;
	int n = s->n, m = s->m, NS = s->N, N = s->NT;   /* N: the leading dimension of J */
	const double *y = x, *zeta = x + n;
	for (int i = 0; i < n; i++) {
		s->u[i] = s->u0[i] + (s->solve_u ? s->cu * y[i] : 0);
		s->v[i] = s->v0[i] + (s->solve_u ? s->cv * y[i] : 0);
	}
	for (int j = 0; j < m; j++) {
		s->z[j] = s->z0[j] + (s->solve_z ? s->cz * zeta[j] : 0);
		s->zd[j] = s->zd0[j] + (s->solve_z ? s->czd * zeta[j] : 0);
	}
	if (s->ggl && s->solve_u)
		ggl_shift(s, x + NS + s->nc);
	s->phi = problem_phi(pb, s->u, s->z, s->gphi);
	if (s->dg) {
		/* Gonzalez (1996): DΦ = ∇Φ(x^½) + [Φ(xᵏ) − Φ(xᵏ⁻¹) − ∇Φ(x^½)·Δx] Δx/|Δx|²
		 * (DESIGN.md, "Schemes", discrete_gradient) */
		double dd = 0, xx = 0;
		for (int i = 0; i < n; i++) {
			double d = 2 * (s->u[i] - s->uprev[i]);
			dd += d * d;
			xx += s->u[i] * s->u[i];
		}
		for (int j = 0; j < m; j++) {
			double d = 2 * (s->z[j] - s->zprev[j]);
			dd += d * d;
			xx += s->z[j] * s->z[j];
		}
		/* The bracket Φ(xᵏ) − Φ(xᵏ⁻¹) − ∇Φ(x^½)·Δx is O(|Δx|³): evaluated
		 * from Φ values it cancels catastrophically for small steps.
		 * Written as ∫₀¹ (∇Φ(x(s)) − ∇Φ(x^½))·Δx ds and integrated by
		 * 3-point Gauss–Legendre it needs only gradient differences, and
		 * is exact for potentials up to degree 6 (1e-14 per step
		 * otherwise at these step sizes). */
		if (dd > 1e-28 * (1 + xx)) {
			double *g = s->gphi, *gq = s->gq;
			double phimid = s->phi;
			static const double node = 0.3872983346207417;   /* √(3/5)/2 */
			double bracket = 0;
			for (int q = -1; q <= 1; q += 2) {
				for (int i = 0; i < n; i++)
					s->ue[i] = s->u[i] + q * node * 2 * (s->u[i] - s->uprev[i]);
				for (int j = 0; j < m; j++)
					s->ze[j] = s->z[j] + q * node * 2 * (s->z[j] - s->zprev[j]);
				problem_phi(pb, s->ue, s->ze, gq);
				for (int i = 0; i < n; i++)
					bracket += 5.0 / 18 * (gq[i] - g[i]) * 2 * (s->u[i] - s->uprev[i]);
				for (int j = 0; j < m; j++)
					bracket += 5.0 / 18 * (gq[n + j] - g[n + j]) * 2 * (s->z[j] - s->zprev[j]);
			}
			/* The rule is exact for polynomials of degree 6 at most; for
			 * other potentials (cos u, exp) its error would show in the
			 * ledger at large steps (2e-10 at τ = 0.2 on a cos(u)·p
			 * coupling).  The bracket from Φ values, exact in energy by
			 * construction, is noisier (its rounding, a few ulps of the
			 * magnitude of Φ's terms, divided by |Δx| in the force), so
			 * it replaces the rule only where the two differ by more than
			 * that rounding.  That magnitude, not |Φ|: a pendulum's
			 * 1 − cos θ at θ = 0.01 is 5e-5 rounded to 1e-16, and the
			 * values' noise, taken for the rule's error near a turning
			 * point (Δθ ≈ 5e-7), left Newton 1e-9 above its bound.
			 * Four units of it (vm_eval_magnitude's running bound):
			 * sixteen let the rule's error stand at 1e-13 a step on a
			 * moving neo-Hookean plate (tests/verify/
			 * dg_neohooke_balance.dyn). */
			double phiend = 0, gd = 0, size = 0;
			for (int i = 0; i < n; i++) {
				s->ue[i] = s->uprev[i] + 2 * (s->u[i] - s->uprev[i]);
				gd += g[i] * 2 * (s->u[i] - s->uprev[i]);
				size += fabs(g[i] * 2 * (s->u[i] - s->uprev[i]));
			}
			for (int j = 0; j < m; j++) {
				s->ze[j] = s->zprev[j] + 2 * (s->z[j] - s->zprev[j]);
				gd += g[n + j] * 2 * (s->z[j] - s->zprev[j]);
				size += fabs(g[n + j] * 2 * (s->z[j] - s->zprev[j]));
			}
			phiend = problem_phi(pb, s->ue, s->ze, NULL);
			double byvalues = phiend - s->phiprev - gd;
			size += fabs(phiend) + fabs(s->phiprev) + 2 * problem_phi_magnitude(pb, s->ue, s->ze);
			if (fabs(byvalues - bracket) > 4 * DBL_EPSILON * size)
				bracket = byvalues;
			/* on a free body the correction leaves the rigid motions
			 * out (rigid_direction), unless the step is rigid to
			 * rounding (no deformation to carry it) */
			double ddr = s->dgdir && m == 0 ? rigid_direction(s) : 0;
			if (ddr > 1e-24 * dd) {
				double c = bracket / ddr;
				for (int i = 0; i < n; i++)
					g[i] += c * s->dgdir[i];
			} else {
				double c = bracket / dd;
				for (int i = 0; i < n; i++)
					g[i] += c * 2 * (s->u[i] - s->uprev[i]);
			}
			for (int j = 0; j < m; j++)
				g[n + j] += bracket / dd * 2 * (s->z[j] - s->zprev[j]);
			/* the Jacobian uses the midpoint Hessian: evaluate there last */
			problem_phi(pb, s->u, s->z, NULL);
			s->phi = phimid;
		}
	}
	s->psi = problem_psi(pb, s->v, s->zd, s->gpsi);

	/* R_u; mag is the size of the terms that cancel in it, which bounds
	 * the residual rounding allows */
	s->mag = 0;
	if (s->solve_u) {
		for (int i = 0; i < n; i++)
			s->ue[i] = (s->in0 ? s->in0[i] : 0) + s->cm * y[i];
		/* a mesh model has no dense mass even when its step is dense
		 * (solver = dense): its matrix layer's mass serves */
		if (s->jac || !pb->M)
			la_mat_mul(&pb->Mm, s->ue, s->Mi);
		else
			la_gemv(n, pb->M, s->ue, s->Mi);
		for (int i = 0; i < n; i++) {
			R[i] = s->Mi[i] + s->wu * (s->gphi[i] + s->gpsi[i]) + s->e[i];
			s->mag = fmax(s->mag, fabs(s->Mi[i]) + fabs(s->wu * s->gphi[i]) + fabs(s->wu * s->gpsi[i]) +
			                      fabs(s->e[i]));
		}
	} else {
		for (int i = 0; i < n; i++)
			R[i] = y[i];
	}
	/* R_z */
	for (int j = 0; j < m; j++) {
		R[n + j] = s->solve_z ? s->gphi[n + j] + s->gpsi[n + j] + s->e[n + j] : zeta[j];
		if (s->solve_z)
			s->mag = fmax(s->mag, fabs(s->gphi[n + j]) + fabs(s->gpsi[n + j]) + fabs(s->e[n + j]));
	}

	if (J && s->jac) {
		jac_values(s, J);
		if (s->ggl && s->solve_u) {
			/* ∂R/∂u for the μ columns (ggl_rows_sparse) */
			memset(s->hux, 0, sizeof(double) * s->jac->A.nx);
			jacobian_add_phi(s->jac, pb, s->cr, s->ccu, s->hux);
		}
	} else if (J) {
		for (int i = 0; i < n; i++) {
			s->cr[i] = s->solve_u ? s->wu : 0;
			s->cc[i] = s->solve_u ? s->cu : 0;
			s->ccpsi[i] = s->solve_u ? s->cv : 0;
		}
		for (int j = 0; j < m; j++) {
			s->cr[n + j] = s->solve_z ? 1 : 0;
			s->cc[n + j] = s->solve_z ? s->cz : 0;
			s->ccpsi[n + j] = s->solve_z ? s->czd : 0;
		}
		problem_add_hess_phi(pb, s->cr, s->cc, J, N);
		problem_add_hess_psi(pb, s->cr, s->ccpsi, J, N);
		if (s->ggl && s->solve_u) {
			memset(s->hu, 0, sizeof(double) * (size_t)NS * (size_t)NS);
			problem_add_hess_phi(pb, s->cr, s->ccu, s->hu, NS);
		}
		if (s->solve_u) {
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++)
					J[i + (size_t)j * N] += s->cm * (pb->M ? pb->M[i + (size_t)j * n] : la_mat_get(&pb->Mm, i, j));
		} else {
			for (int i = 0; i < n; i++)
				J[i + (size_t)i * N] = 1;
		}
		if (!s->solve_z)
			for (int j = 0; j < m; j++)
				J[n + j + (size_t)(n + j) * N] = 1;
	}

	if (J)
		terms_of_phi(s);

	/* the σ_j |ż_j| inclusions, as soft-thresholding fixed points */
	/* bilateral constraints: forces Gᵀλ in the u rows, c(u_end) = 0 */
	if (s->nc) {
		const double *lam = x + NS;
		const struct ir_model *im = pb->ir;
		int nc = s->nc;
		if (s->solve_u) {
			/* G on its pattern (O(entries), never nc × n) */
			problem_constraints(pb, s->tf, s->u, NULL, NULL);
			keep_grad(s, s->gs);
			memset(s->gtl, 0, sizeof(double) * (size_t)n);
			problem_constraint_gt(pb, s->gs, lam, 1, s->gtl);
			for (int i = 0; i < n; i++)
				R[i] += s->wu * s->gtl[i];
			if (J && s->jac) {
				jacobian_add_constraint_hess(s->jac, pb, lam, s->wu * s->cu, J);
				jacobian_add_gt(s->jac, pb, s->wu, J);
				if (s->ggl)
					jacobian_add_constraint_hess(s->jac, pb, lam, s->wu, s->hux);
			} else if (J) {
				problem_add_constraint_hess(pb, lam, s->wu * s->cu, J, N);
				for (int q = 0; q < im->ngrad; q++)
					J[im->gi[q] + (size_t)(NS + im->gk[q]) * N] += s->wu * s->gs[q];
				if (s->ggl)
					problem_add_constraint_hess(pb, lam, s->wu, s->hu, NS);
			}
			for (int i = 0; i < n; i++)
				s->uend[i] = s->ue0[i] + s->cue * y[i] + s->shift[i];
			problem_constraints(pb, s->tc, s->uend, s->cval, NULL);
			keep_grad(s, s->ge);
			for (int k = 0; k < nc; k++)
				R[NS + k] = s->cval[k] * s->cw[k];
			if (J && !s->jac)   /* J is zero there (newton.c) */
				for (int q = 0; q < im->ngrad; q++)
					J[NS + im->gk[q] + (size_t)im->gi[q] * N] = s->ge[q] * s->cw[im->gk[q]] * s->cue;
			if (J && s->jac) {
				for (int k = 0; k < nc; k++)
					s->cwe[k] = s->cw[k] * s->cue;
				jacobian_add_g(s->jac, pb, s->cwe, J);
			}
			if (s->ggl)
				ggl_rows(s, y, R, J);
		} else {
			for (int k = 0; k < N - NS; k++) {
				R[NS + k] = x[NS + k];
				if (J && s->jac)
					J[s->jac->diag[NS + k]] = 1;
				else if (J)
					J[NS + k + (size_t)(NS + k) * N] = 1;
			}
		}
	}

	/* dry friction μ_i |u_i'| on dofs: 0 ∈ R_i + wu μ_i ∂|v_i|, the same
	 * fixed point in the rate v_i = v0_i + cv y_i (the force is −R_i/wu) */
	for (int i = 0; i < n && s->solve_u && pb->sigma_u; i++) {
		double mu = pb->sigma_u[i] * s->wu;
		if (!(mu > 0)) {
			s->xiu[i] = 0;
			continue;
		}
		double c = s->pcu[i] > 0 ? s->pcu[i] : 1;
		if (J) {
			double dii = s->jac ? J[s->jac->diag[i]] : J[i + (size_t)i * N];
			c = fabs(dii) > 1e-300 && s->cv > 0 ? s->cv / fabs(dii) : 1;
			s->pcu[i] = c;
		}
		double q = s->v[i] - c * R[i];
		int sliding = fabs(q) > c * mu;
		s->xiu[i] = -R[i] / s->wu;
		R[i] = s->v[i] - soft(q, c * mu);
		if (J && s->jac) {
			if (sliding)
				jacobian_scale_row(s->jac, i, c, J);
			else
				jacobian_unit_row(s->jac, i, s->cv > 0 ? s->cv : 1, J);
		} else if (J) {
			if (sliding) {
				for (int k = 0; k < N; k++)
					J[i + (size_t)k * N] *= c;
			} else {
				for (int k = 0; k < N; k++)
					J[i + (size_t)k * N] = 0;
				J[i + (size_t)i * N] = s->cv > 0 ? s->cv : 1;
			}
		}
	}
	for (int j = 0; j < m && s->solve_z; j++) {
		double sg = pb->sigma[j];
		if (!(sg > 0)) {
			s->xi[j] = 0;
			continue;
		}
		int r = n + j;
		/* c scales the row like the identity; any c > 0 has the same
		 * solutions, so residual-only calls reuse the last Jacobian's */
		double c = s->pc[j] > 0 ? s->pc[j] : 1;
		if (J) {
			double djj = s->jac ? J[s->jac->diag[r]] : J[r + (size_t)r * N];
			c = fabs(djj) > 1e-300 ? s->czd / fabs(djj) : 1;
			s->pc[j] = c;
		}
		double q = s->zd[j] - c * R[r];
		int plastic = fabs(q) > c * sg;
		s->xi[j] = -R[r];
		R[r] = s->zd[j] - soft(q, c * sg);
		if (J && s->jac) {
			if (plastic)
				jacobian_scale_row(s->jac, r, c, J);
			else
				jacobian_unit_row(s->jac, r, s->czd, J);
		} else if (J) {
			if (plastic) {
				for (int k = 0; k < N; k++)
					J[r + (size_t)k * N] *= c;
			} else {
				for (int k = 0; k < N; k++)
					J[r + (size_t)k * N] = 0;
				J[r + (size_t)r * N] = s->czd;
			}
		}
	}
	return 0;
}

/* The constraint rows are c(u_end)/cue, a force per unit mass like the
 * other rows; but c is computed from u_end to within a few ulps of its
 * terms, Σᵢ|∂c/∂uᵢ·uᵢ| + |c|, and 1/cue (1/βτ² for Newmark) magnifies
 * that floor beyond the force tolerance when the step is small.  Such a
 * row is scaled down to put its floor a decade under the tolerance:
 * Newton then stops when c is at rounding, whatever τ.  Scaling a row
 * changes when the iteration stops, not the solution. */
static void constraint_weights(struct stage *s, double scale)
{
	int n = s->n, nc = s->nc;
	if (!nc)
		return;
	for (int k = 0; k < nc; k++)
		s->cw[k] = 1 / s->cue;
	if (!s->solve_u)
		return;
	const struct ir_model *m = s->pb->ir;
	problem_constraints(s->pb, s->tc, s->ue0, s->cval, NULL);
	keep_grad(s, s->ge);
	/* Σᵢ|∂c/∂uᵢ·uᵢ| + |c| per row, on G's pattern (in cwe, set again
	 * before each use) */
	for (int k = 0; k < nc; k++)
		s->cwe[k] = fabs(s->cval[k]);
	for (int q = 0; q < m->ngrad; q++)
		s->cwe[m->gk[q]] += fabs(s->ge[q] * s->ue0[m->gi[q]]);
	for (int k = 0; k < nc; k++) {
		double terms = s->cwe[k];
		double floor = 8 * DBL_EPSILON * terms / s->cue;
		double limit = 0.1 * s->tol * scale;
		if (floor > limit)
			s->cw[k] *= limit / floor;
	}
	if (!s->ggl)
		return;
	/* the velocity rows in force units: (G v_end + ∂c/∂t)·m cm/cve
	 * changes with y as the inertia cm M y of R_u does (m the largest
	 * mass entry).  Their floor, at u_end ≈ ue0 and the starting guess's
	 * v_end, is capped as above. */
	problem_constraint_rates(s->pb, s->ct, s->ctt, NULL);
	for (int i = 0; i < n; i++)
		s->vend[i] = s->ve0[i] + s->cve * s->x[i];
	for (int k = 0; k < nc; k++)
		s->cwe[k] = fabs(s->ct[k]);
	for (int q = 0; q < m->ngrad; q++)
		s->cwe[m->gk[q]] += fabs(s->ge[q] * s->vend[m->gi[q]]);
	for (int k = 0; k < nc; k++) {
		double terms = s->cwe[k];
		s->cwv[k] = s->ms * fabs(s->cm) / s->cve;
		double floor = 8 * DBL_EPSILON * terms * s->cwv[k];
		double limit = 0.1 * s->tol * scale;
		if (floor > limit)
			s->cwv[k] *= limit / floor;
	}
}

void stage_constraints(struct stage *s, const double *ue0, double cue, double tc, const double *lam)
{
	s->ue0 = ue0;
	s->cue = cue;
	s->tc = tc;
	s->tf = tc;
	for (int k = 0; k < s->nc; k++)
		s->x[s->N + k] = lam[k];
}

int stage_ggl(struct stage *s)
{
	struct rt_problem *pb = s->pb;
	int n = s->n, nc = s->nc, NS = s->N;
	if (!nc)
		return 0;
	s->ct = mem_calloc((size_t)nc, sizeof(double));
	s->ctt = mem_calloc((size_t)nc, sizeof(double));
	s->cwv = mem_calloc((size_t)nc, sizeof(double));
	s->vend = mem_calloc((size_t)n + 1, sizeof(double));
	s->ve0 = mem_calloc((size_t)n + 1, sizeof(double));
	s->ccu = mem_calloc((size_t)NS + 1, sizeof(double));
	newton_free(s->nw);
	s->nw = NULL;
	s->NT = NS + 2 * nc;
	if (s->jac) {
		/* on the matrix layer: the μ columns and velocity rows on their
		 * patterns (jacobian_init_ggl), LU (the saddle point is
		 * indefinite) */
		jacobian_free(s->jac);
		enum la_backend b = pb->jac_auto || pb->backend == LA_LAPACK_BAND ? LA_AUTO : pb->backend;
		s->gmv = mem_calloc((size_t)pb->ir->ngrad + 1, sizeof(double));
		s->wv = mem_calloc((size_t)n + 1, sizeof(double));
		if (!s->gmv || !s->wv || jacobian_init_ggl(s->jac, pb, nc) ||
		    !(s->hux = mem_calloc(s->jac->A.nx + 1, sizeof(double))) ||
		    !(s->nw = newton_alloc_mat(&s->jac->A, b, 0)))
			return -1;
	} else {
		/* dense: G(ū), Pv, ∂G/∂t and G(u_end) nc × n, ∂R/∂u N × N */
		size_t gn = (size_t)nc * (size_t)n + 1;
		s->Gm = mem_calloc(gn, sizeof(double));
		s->Pv = mem_calloc(gn, sizeof(double));
		s->Gt = mem_calloc(gn, sizeof(double));
		s->Ge = mem_calloc(gn, sizeof(double));
		s->hu = mem_calloc((size_t)NS * (size_t)NS + 1, sizeof(double));
		if (pb->M)
			s->nw = newton_alloc(s->NT);
		if (!s->Gm || !s->Pv || !s->Gt || !s->Ge || !s->hu || !s->nw)
			return -1;
	}
	if (!s->ct || !s->ctt || !s->cwv || !s->vend || !s->ve0 || !s->ccu)
		return -1;
	for (int i = 0; i < n; i++)
		s->ccu[i] = 1;
	s->ms = la_mat_maxabs(&pb->Mm);
	s->ggl = 1;
	return 0;
}

void stage_velocity_constraints(struct stage *s, double a0, const double *v0, double cve)
{
	if (!s->ggl)
		return;
	for (int i = 0; i < s->n; i++)
		s->ve0[i] = a0 * v0[i];
	s->cve = cve;
	for (int k = 0; k < s->nc; k++)
		s->x[s->N + s->nc + k] = 0;
}

void stage_multipliers(const struct stage *s, double *lam)
{
	for (int k = 0; k < s->nc; k++)
		lam[k] = s->x[s->N + k];
}

double stage_constraint_work(const struct stage *s, const double *du)
{
	if (!s->nc || !s->pb->ir->constraint_moving)
		return 0;
	const struct ir_model *m = s->pb->ir;
	const double *lam = s->x + s->N;
	double w = 0;
	for (int q = 0; q < m->ngrad; q++)
		w -= s->wu * lam[m->gk[q]] * s->gs[q] * du[m->gi[q]];
	return w;
}

int stage_solve(struct stage *s, double scale, int *iters, double *res)
{
	struct newton_report *rep = &s->rep;
	for (int j = 0; j < s->m; j++)
		s->pc[j] = 0;
	for (int i = 0; i < s->n; i++)
		s->pcu[i] = 0;
	/* The scale is the caller's, from the state before the step (loads,
	 * internal forces, inertia): the guess in s->x does not enter it, so
	 * a predictor far off cannot loosen the test (newton.c judges each
	 * iterate by its own terms, s->mag). */
	if (!(scale > 0))
		scale = 1;
	constraint_weights(s, scale);
	newton_set_terms(s->nw, &s->mag);
	/* A predictor where the residual is not finite (e.g. exp(u²) far
	 * along the initial acceleration) gives Newton nothing to start from:
	 * pull the guess toward the state before the step (y, ζ = 0) until it
	 * is finite. */
	for (int k = 0; k < 60; k++) {
		residual(s, s->x, s->rbuf, NULL);
		int finite = 1;
		for (int i = 0; i < s->NT && finite; i++)
			finite = isfinite(s->rbuf[i]);
		if (finite)
			break;
		for (int i = 0; i < s->N; i++)
			s->x[i] *= 0.5;
	}
	/* The rounding of the kernels' gradient, at the guess: it changes
	 * with the state as the terms do, little within a step, and costs
	 * an evaluation of the kernels, so it is taken once a solve */
	s->have_tk = 0;
	if (s->solve_u || s->solve_z) {
		memset(s->tk, 0, sizeof(double) * (size_t)(s->n + s->m));
		s->have_tk = problem_phi_rounding(s->pb, s->u, s->z, s->tk);
	}
	int rc = newton_solve(s->nw, residual, s, s->x, s->tol, scale, s->maxit, rep);
	*iters = rep->iterations;
	*res = rep->bound > 0 ? rep->residual * s->tol / rep->bound : rep->residual;
	/* leave the quantities of the final x */
	residual(s, s->x, s->rbuf, NULL);
	return rc;
}

/* The unknown of row i as the user wrote it: a dof, an internal variable
 * or a constraint. */
static void row_name(const struct stage *s, int i, char *buf, size_t size, double *value)
{
	*value = NAN;
	if (i < 0)
		snprintf(buf, size, "?");
	else if (i < s->n) {
		ir_unknown_name(s->pb->ir, i, buf, size);
		*value = s->u[i];
	} else if (i < s->N) {
		ir_unknown_name(s->pb->ir, i, buf, size);
		*value = s->z[i - s->n];
	} else if (i < s->N + s->nc)
		snprintf(buf, size, "constraint %d", i - s->N + 1);
	else   /* formulation = ggl */
		snprintf(buf, size, "the velocity of constraint %d", i - s->N - s->nc + 1);
}

int stage_failure(const struct stage *s, int rc, struct rt_error *err)
{
	const struct newton_report *rep = &s->rep;
	char name[128];
	double value;
	row_name(s, rep->worst, name, sizeof name, &value);
	double rel = rep->bound > 0 ? rep->residual * s->tol / rep->bound : rep->residual;
	int it = rep->iterations;
	if (rc == -2)
		snprintf(err->msg, sizeof err->msg, "the Jacobian of the step is singular");
	else if (rc == -4)
		snprintf(err->msg, sizeof err->msg, "out of memory for the factorization of the step's Jacobian "
		         "(%d unknowns)", s->NT);
	else if (rc == -3)
		snprintf(err->msg, sizeof err->msg, "Newton diverged: the equation of %s is %s at %s = %.3g "
		         "after %d iteration%s", name, isnan(rep->residual) ? "NaN" : "infinite", name, value, it,
		         it == 1 ? "" : "s");
	else
		snprintf(err->msg, sizeof err->msg, "Newton did not converge in %d iteration%s, residual %.2g "
		         "(largest in the equation of %s)", it, it == 1 ? "" : "s", rel, name);
	return -1;
}
