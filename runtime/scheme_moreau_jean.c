/* scheme_moreau_jean.c — Moreau–Jean time stepping (DESIGN.md, "Schemes";
 * Jean 1999, Acary & Brogliato 2008 §7.2): velocity-level contact with
 * Newton's impact law, one LCP per step.
 *
 *   M(v₊ − v) = τ[θF(u₊, v₊, t₊) + (1−θ)F(u, v, t)] + G_Aᵀ P
 *   u₊ = u + τ[θv₊ + (1−θ)v]
 *   0 ≤ G_A v₊ + e G_A v  ⊥  P ≥ 0   on the active contacts A
 *
 * with F = f − ∇Φ − ∇Ψ, G = ∂φ/∂u at u, and A the contacts whose gap is
 * predicted closed, φ_i(u) + τ/2 G_i v ≤ 0 (Acary & Brogliato's
 * activation with γ = ½), with τ²/2 min(0, G_i M⁻¹F) added so that a
 * body resting on an obstacle, φ and G v at rounding level, stays in
 * contact.  The impulse P is a Lagrange multiplier of the
 * impact law at the velocity level; positions may penetrate by O(τ²) per
 * step, not more (they are never projected).
 *
 * Each Newton iteration linearises the smooth part, W = M + τθ∇²Ψ +
 * τ²θ²∇²Φ, computes the free velocity v_free = v₊ − W⁻¹R(v₊), and solves
 * the LCP y = D P + q, D = G_A W⁻¹ G_Aᵀ, q = G_A v_free + e G_A v by
 * Murty's principal pivoting (finite for the positive definite D); for
 * a linear smooth part the first iteration is exact.  W is dense (n × n,
 * LU) where the implicit schemes' Newton Jacobian is (stage_sparse: up
 * to LA_SMALL_N unknowns under solver = auto, solver = dense, M(u));
 * otherwise it is that Jacobian on the matrix layer (jacobian.c: the
 * pattern of M, K, C and the Hessians' entries, filled here with the
 * dense W's weights and order, so with its values) factored as
 * Newton factors it (newton.c: Cholesky while symmetric positive
 * definite, LU otherwise), and W⁻¹G_Aᵀ comes from that factor: no limit
 * on n but memory.
 *
 * Bilateral constraints c(u) = 0 enter the same per-step problem as
 * equalities on the velocity of the step, with C = ∂c/∂u at the step's
 * midpoint u_m = (u + u₊)/2:
 *
 *   M(v₊ − v) = τ[...] + CᵀΛ + G_Aᵀ P,   C(u_m)(θv₊ + (1−θ)v) = 0,
 *
 * i.e. C(u_m)Δu = 0.  For a quadratic c (a rod, a distance) that is
 * c(u₊) − c(u) exactly (the midpoint rule integrates a linear
 * derivative exactly), so positions stay on the constraints to rounding
 * and the constraint's impulse does no work (ΔuᵀCᵀΛ = 0): between
 * impacts, θ = ½ keeps the energy balance of the trapezoidal rule.  The
 * impact law sees the constrained system: an impulse on a contact is
 * spread through the constraints' reactions, and the velocity after it
 * satisfies C(u_m)v₊ = −C(u_m)v (1−θ)/θ = O(τ).  The rows of C are
 * basic in every pivot of Murty's method (free multipliers Λ); C(u_m)
 * depends on v₊ and is updated with it in the iteration (a fixed point
 * contracting by O(τ|v|‖∇²c‖)).  For a c that is not quadratic, u₊ is
 * then brought back onto c = 0 by Newton's method along M⁻¹Cᵀ (a
 * correction of O(τ³) per step).  The recorded multiplier is the step's
 * mean force, λ = −Λ/τ (the sign of the equation of motion's +Cᵀλ).
 *
 * Coulomb friction at a contact with μ > 0 (dyn(5), "Friction at
 * contacts"; Acary & Brogliato 2008 §13.4, Jean 1999): the tangent rows
 * T are the gradients of the contact point's slip coordinates s(u)
 * (`friction MU along S`: one in the plane, two in space; on a mesh
 * region, the node's other components of the field), so that T v
 * is the slip velocity of the contact point whatever the coordinates (a
 * rigid block's x, y, θ); without `along`, for one point's coordinates
 * (a mass m I), the directions orthogonal to G in that metric, of the
 * same length as G so that |P_t|/P_n compares forces: T = (−G₂, G₁) in
 * the plane, two orthogonal ones in space.  The active contact adds the
 * rows T v₊ with impulses P_t and the per-step problem becomes Signorini
 * and Coulomb in impulses (De Saxcé's cone complementarity),
 *
 *   0 ≤ G v₊ + e G v ⊥ P_n ≥ 0,   |P_t| ≤ μP_n,
 *   T v₊ ≠ 0  ⇒  P_t = −μP_n T v₊/|T v₊|,
 *
 * solved by projected Gauss–Seidel over the blocks (an equality row, a
 * frictionless contact, a frictional contact) with an exact local
 * solver for the 2 × 2 or 3 × 3 block: separation, sticking (P = −D⁻¹q
 * in the cone) or sliding (P_t = −μP_n d, (DP + q)_n = 0, the slip along
 * d; in the plane d = ±1, in space the angle of d is the root of one
 * scalar equation, coulomb_cone) — one of them holds for a positive
 * definite block whatever μ (no_local_solution).  One sweep is exact for one
 * contact; with several, the sweeps stop when the impulses change by
 * less than contact_tolerance (relative) and fail, naming the problem,
 * after contact_iterations.  The friction impulse's work pairs with the
 * step's displacement, ΔD_f = −P_t TΔu/τ, which is the ledger's last
 * dissipation term (with θ = ½, ½(v₊ + v)ᵀM(v₊ − v) = ΔuᵀM(v₊ − v)/τ, so
 * the balance holds with it exactly).
 *
 * A mass depending on u (DESIGN.md, "Schemes") enters in the momentum
 * form, p(u₊, v₊) − p(u, v) in place of M(v₊ − v), p = M(u)v, with ∂ᵤT
 * among the forces F: the impulse acts in the metric of M(u₊), the mass
 * at the step's state as in Siconos' MoreauJeanOSI for Lagrangian
 * systems, and W takes M(u₊) for ∂p/∂v₊.  Internal variables are solved
 * in each iteration at (u₊, v₊) by the stage with u frozen: the
 * backward-Euler return mapping 0 ∈ ∂Ψ(v₊, ż₊) + ∂_zΦ(u₊, z₊) − g(t₊),
 * z₊ = z + τż₊, exact for σ|ż| (soft thresholding); ∇ᵤΦ(u₊, z₊) then
 * enters R.  Both leave W without some derivatives (of p and ∂ᵤT in u₊,
 * of z₊ in v₊), so the iteration is a fixed point contracting by O(τ);
 * at its limit the step's equations and the impact law hold exactly.
 *
 * Ledger (midpoint-like pairing): ΔW = Δu·(θf₊ + (1−θ)f) + Δz·g₊,
 * ΔD = Δu·(θ∇Ψ(v₊) + (1−θ)∇Ψ(v)) + Δz·∇_żΨ(v₊, ż₊) + σ|Δz|; an
 * impact's loss shows in the residual. */
#include <config.h>

#include "scheme.h"
#include "jacobian.h"
#include "la.h"
#include "newton.h"
#include "stage.h"
#include "mem.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct moreau {
	struct rt_problem *pb;
	struct nl_common c;
	double theta;
	int nk, nc, nr;               /* contacts, constraints, nc + 3nk rows */
	int nsl;                      /* slip coordinates (`along`) */
	double *T;                    /* nsl × n: their gradients */
	const double *mu;             /* nk: Coulomb's μ, or NULL */
	double ctol;                  /* frictional problem: relative change */
	int cmaxit;                   /* and sweeps */
	double vtol;                  /* the step's iteration: velocity change, relative */
	int maxit;                    /* and iterations (tolerance, max_iterations) */
	int *rkind;                   /* nr: ROW_* of each row of the step */
	double *v1, *u1, *R, *F0, *gphi, *gpsi, *f0, *f1, *psi0, *du, *vold;   /* n */
	double *uproj;                /* n: u before a projection's iteration */
	double *tw, *ty;              /* N: (u₊, z₊) and the size of ∇Φ's terms there (satisfied) */
	double *wpsi, *wphi;                                            /* n weights */
	double *W;                    /* n × n */
	struct la_factor *wf;
	/* W on the matrix layer (a nonlinear model beyond the dense path:
	 * stage_sparse): the pattern of the implicit stage's Jacobian
	 * (jacobian.c) of order N, its z rows and columns the identity, and
	 * the stage's factorization (newton_factor: Cholesky while symmetric
	 * positive definite, LU otherwise) */
	struct jacobian *jac;
	struct newton *nw;
	double *wrow, *wx;            /* N: 1 on the u rows, 0 on the z rows;
	                                 a right-hand side of order N */
	double *G;                    /* nk × n: the contacts' gradients */
	double *H, *WG;               /* nr × n: the step's rows (C, then G_A);
	                                 n × nr: W⁻¹H_rᵀ in column r */
	double *phi;                  /* nk */
	double *q, *P, *y;            /* nr */
	int *active, *basic, *idx;    /* nk, nr, nr: the contact of each row */
	int *bidx;                    /* nr: the basic rows of lcp_solve */
	int *pushed;                  /* nk: in the basic set of the last LCP */
	int badrow;                   /* the first row of a frictional contact
	                                 whose local problem had no solution */
	double *D;                    /* nr × nr */
	struct la_factor *df;
	double *Dsub, *rhs;           /* nr × nr, nr */
	double *Dfac;                 /* nr × nr: the D_BB that df holds
	                                 factored, fnb rows (−1: none) */
	int fnb;
	int *hnz;                     /* n: a row of H's nonzero columns */
	double *cval, *Gc, *X, *A;    /* nc, nc × n, n × nc, nc × nc */
	struct la_factor *af;         /* C M⁻¹ Cᵀ */
	/* a mass depending on u: the momenta p = M(u)v at both ends and
	 * ∂ᵤT there (n each) */
	double *p0, *p1, *dT0, *dT1;
	/* internal variables: the z block solved by the stage with u frozen
	 * (the return mapping at t₊), z and ż before the step, the step's
	 * Δz, zeros (m each); Wz the N × N frame the Hessians are added in */
	struct stage st;
	int hasst;
	double *zprev, *zdprev, *dz, *zero, *Wz;
	/* a linear smooth part (operators only, no constraint): W = M +
	 * τθC + τ²θ²K in the matrix layer, factored once per step size */
	int lin;
	struct la_mat Wm;
	struct la_solver *ws;
	double tauf;                  /* the step W was factored for, or 0 */
};

static void mj_free(void *p)
{
	struct moreau *s = p;
	if (!s)
		return;
	nl_common_free(&s->c);
	free(s->v1); free(s->u1); free(s->R); free(s->F0); free(s->gphi); free(s->gpsi); free(s->f0);
	free(s->f1); free(s->psi0); free(s->du); free(s->vold); free(s->wpsi); free(s->wphi); free(s->W);
	free(s->uproj); free(s->tw); free(s->ty);
	free(s->G); free(s->H); free(s->WG); free(s->phi); free(s->q); free(s->P); free(s->y); free(s->active); free(s->bidx); free(s->pushed);
	free(s->basic); free(s->idx); free(s->D); free(s->Dsub); free(s->rhs); free(s->Dfac); free(s->hnz);
	free(s->cval); free(s->Gc); free(s->X); free(s->A); free(s->rkind); free(s->T);
	free(s->p0); free(s->p1); free(s->dT0); free(s->dT1);
	free(s->zprev); free(s->zdprev); free(s->dz); free(s->zero); free(s->Wz);
	free(s->wrow); free(s->wx);
	newton_free(s->nw);
	if (s->jac)
		jacobian_free(s->jac);
	free(s->jac);
	if (s->hasst)
		stage_free(&s->st);
	la_solver_free(s->ws);
	la_mat_free(&s->Wm);
	la_factor_free(s->wf);
	la_factor_free(s->df);
	la_factor_free(s->af);
	free(s);
}

struct moreau_params {
	double theta;
};

static void *mj_alloc(struct rt_problem *pb, const void *par, const struct nl_options *opt, struct rt_error *err)
{
	double theta = ((const struct moreau_params *)par)->theta;   /* in (0, 1]: moreau_check */
	if (pb->nc > 0 && pb->ir->constraint_moving) {
		return nl_refuse(err, "moreau_jean does not support moving constraints (c depending on t)");
	}
	struct moreau *s = mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	int n = pb->n, m = pb->m, N = pb->N, nk = pb->ir->contact.n, nc = pb->nc, nr = 3 * nk + nc,
	    nsl = pb->ir->slip.n;
	s->pb = pb;
	s->mu = pb->ir->contact.friction;
	s->ctol = opt->contact_tol > 0 ? opt->contact_tol : 1e-12;
	s->cmaxit = opt->contact_maxit > 0 ? opt->contact_maxit : 1000;
	/* the run's tolerance and max_iterations (dyn(5)): the default
	 * tolerance 1e-13 is the bound 1e3 ε on the velocity's change the
	 * iteration was measured with, and the bound scales with it */
	s->vtol = (opt->tol > 0 ? opt->tol / 1e-13 : 1) * 1e3 * DBL_EPSILON;
	s->maxit = opt->maxit > 0 ? opt->maxit : 25;
	s->theta = theta;
	s->nk = nk;
	s->nc = nc;
	s->nr = nr;
	s->nsl = nsl;
	/* the smooth forces are linear when Φ and Ψ are the operators' (a
	 * finite-element model's folded energies included) and the mass is
	 * constant: one factor of W per step size, and the contact problem
	 * on the active rows only (DESIGN.md, "Schemes") */
	const struct ir_model *im = pb->ir;
	s->lin = !im->potential && !im->dissipation && !im->kinetic && m == 0 && nc == 0 && !pb->kphi.f &&
	         !pb->kpsi.f && pb->Mm.n == n;
	/* otherwise W is dense (n × n, LU) where the implicit stage's
	 * Jacobian is, and where the dense operators exist (up to
	 * IR_DENSE_MAX dofs: run.c); on the matrix layer beyond */
	int sp = !s->lin && !pb->varmass && (stage_sparse(pb) || !pb->M);
	/* the loads and gradients have N entries (u, then z) */
	if (nl_vectors((size_t)n, &s->v1, &s->u1, &s->R, &s->F0, &s->du, &s->vold, &s->uproj, (double **)NULL) ||
	    nl_vectors((size_t)N, &s->gphi, &s->gpsi, &s->f0, &s->f1, &s->psi0, &s->wpsi, &s->wphi, &s->tw, &s->ty,
	                (double **)NULL) ||
	    (pb->varmass && nl_vectors((size_t)n, &s->p0, &s->p1, &s->dT0, &s->dT1, (double **)NULL)) ||
	    (m > 0 && (nl_vectors((size_t)m, &s->zprev, &s->zdprev, &s->dz, &s->zero, (double **)NULL) ||
	               (!sp && nl_vectors((size_t)N * (size_t)N, &s->Wz, (double **)NULL)))) ||
	    (!s->lin && !sp && nl_vectors((size_t)n * (size_t)n, &s->W, (double **)NULL)) ||
	    (sp && nl_vectors((size_t)N, &s->wrow, &s->wx, (double **)NULL)) ||
	    nl_vectors((size_t)n * (size_t)nk, &s->G, (double **)NULL) ||
	    nl_vectors((size_t)n * (size_t)nsl, &s->T, (double **)NULL) ||
	    nl_vectors((size_t)n * (size_t)nr, &s->H, &s->WG, (double **)NULL) ||
	    nl_vectors((size_t)nk, &s->phi, (double **)NULL) ||
	    nl_vectors((size_t)nr, &s->q, &s->P, &s->y, &s->rhs, (double **)NULL) ||
	    nl_vectors((size_t)nr * (size_t)nr, &s->D, &s->Dsub, &s->Dfac, (double **)NULL) ||
	    !(s->hnz = mem_calloc((size_t)n + 1, sizeof(int))) ||
	    nl_vectors((size_t)nc, &s->cval, (double **)NULL) ||
	    nl_vectors((size_t)nc * (size_t)n, &s->Gc, &s->X, (double **)NULL) ||
	    nl_vectors((size_t)nc * (size_t)nc, &s->A, (double **)NULL) ||
	    !(s->active = mem_calloc((size_t)nk + 1, sizeof(int))) || !(s->rkind = mem_calloc((size_t)nr + 1, sizeof(int))) || !(s->basic = mem_calloc((size_t)nr + 1, sizeof(int))) ||
	    !(s->idx = mem_calloc((size_t)nr + 1, sizeof(int))) || !(s->bidx = mem_calloc((size_t)nr + 1, sizeof(int))) ||
	    !(s->pushed = mem_calloc((size_t)nk + 1, sizeof(int))) ||
	    (!s->lin && !sp && !(s->wf = la_factor_alloc(n, LA_DENSE_GENERAL, 0, 0))) ||
	    (nr > 0 && !(s->df = la_factor_alloc(nr, LA_DENSE_GENERAL, 0, 0))) ||
	    (nc > 0 && !(s->af = la_factor_alloc(nc, LA_DENSE_GENERAL, 0, 0))) ||
	    nl_common_alloc(&s->c, pb)) {
		mj_free(s);
		return nl_refuse(err, "out of memory for the step");
	}
	s->fnb = -1;
	if (s->lin) {
		/* M, K, then C when there is one (la_mat_sum's coefficients
		 * follow the terms given) */
		const struct la_mat *term[3] = { &pb->Mm, &pb->Km, &pb->Cm };
		if (la_mat_sum_init(&s->Wm, pb->hasC ? 3 : 2, term)) {
			mj_free(s);
			return nl_refuse(err, "out of memory for the step");
		}
		double coef[3] = { 1, 0, 0 };
		la_mat_sum(&s->Wm, coef);
		/* W is SPD with M (checked) and C, K positive semidefinite;
		 * a backend that takes only SPD matrices is asked for it */
		s->ws = la_solver_alloc(&s->Wm, pb->backend, LA_SPD);
		if (!s->ws)
			s->ws = la_solver_alloc(&s->Wm, pb->backend, 0);
		if (!s->ws) {
			mj_free(s);
			return nl_refuse(err, "out of memory for the step");
		}
	}
	if (sp) {
		/* W = M + τθ∇²Ψ + τ²θ²∇²Φ, symmetric positive definite for a
		 * convex Φ (the stage's Cholesky, LU when it is not) */
		if (!(s->nw = stage_newton_mat(pb, 0, 1, &s->jac))) {
			mj_free(s);
			return nl_refuse(err, "out of memory for the step");
		}
		for (int i = 0; i < n; i++)
			s->wrow[i] = 1;
	}
	if (m > 0) {
		if (stage_alloc(&s->st, pb)) {
			mj_free(s);
			return nl_refuse(err, "out of memory for the step");
		}
		s->hasst = 1;
	}
	return s;
}

/* Murty's principal pivoting for the mixed problem over the nr rows of
 * the step: y_r = (D P + q)_r = 0 with P_r free for the ne equality rows
 * (the constraints, always basic), 0 ≤ y_r ⊥ P_r ≥ 0 for the others (the
 * active contacts).  The basic set B has y_B = 0, P_B = −D_BB⁻¹ q_B; the
 * first contact row violating P ≥ 0 (in B) or y ≥ 0 (out of B) changes
 * side.  Finite for a P-matrix from any starting set (Murty 1974); with
 * the equality rows eliminated D's Schur complement is again positive
 * definite when the rows are independent, so the solution is unique.
 * murty pivots from the basis in s->basic, at most maxit times: 0 with
 * P, y and the pushed set, -1 when D_BB is singular on the way or the
 * pivots run out; lcp_solve chooses the start. */
static int murty(struct moreau *s, int ne, int nr, int maxit)
{
	int ld = s->nr, *bi = s->bidx;
	for (int iter = 0; iter < maxit; iter++) {
		/* P_B from D_BB P_B = −q_B, B's rows gathered in order */
		int nb = 0;
		for (int a = 0; a < nr; a++)
			if (s->basic[a])
				bi[nb++] = a;
		for (int p = 0; p < nb; p++) {
			s->rhs[p] = -s->q[bi[p]];
			for (int q = 0; q < nb; q++)
				s->Dsub[p + (size_t)q * nb] = s->D[bi[p] + (size_t)bi[q] * ld];
		}
		/* D_BB as last factored (a body resting on the obstacle under
		 * linear forces and affine gaps: the same every step) keeps its
		 * factor: 1000 masses on the floor took a factorization of
		 * their 1000 rows a step */
		int same = nb == s->fnb;
		for (size_t e = 0; same && e < (size_t)nb * (size_t)nb; e++)
			same = s->Dsub[e] == s->Dfac[e];
		if (nb > 0 && !same) {
			s->fnb = -1;
			if (la_factor_order(s->df, nb) || la_factor(s->df, s->Dsub) != 0)
				return -1;
			memcpy(s->Dfac, s->Dsub, sizeof(double) * (size_t)nb * (size_t)nb);
			s->fnb = nb;
		}
		if (nb > 0)
			la_solve(s->df, s->rhs);
		for (int a = 0; a < nr; a++)
			s->P[a] = 0;
		for (int p = 0; p < nb; p++)
			s->P[bi[p]] = s->rhs[p];
		int flip = -1;
		for (int a = ne; a < nr && flip < 0; a++) {
			double ya = s->q[a];
			for (int b = 0; b < nr; b++)
				ya += s->D[a + (size_t)b * ld] * s->P[b];
			s->y[a] = ya;
			double tol = 1e-13 * (fabs(s->q[a]) + 1e-300);
			if ((s->basic[a] && s->P[a] < 0) || (!s->basic[a] && ya < -tol))
				flip = a;
		}
		if (flip < 0) {
			for (int k = 0; k < s->nk; k++)
				s->pushed[k] = 0;
			for (int a = ne; a < nr; a++)
				s->pushed[s->idx[a]] = s->basic[a];
			return 0;
		}
		s->basic[flip] = !s->basic[flip];
	}
	return -1;
}

/* The LCP of the step's rows.  First from the rows that pushed at the
 * last solve and would close again with no impulse (q < 0), or, when
 * there are none, from all those that would close: a slab landing on
 * the floor, resting on it or leaving it in one basis, where the rows
 * that pushed, pivoted one a time with a factorization each, took O(na⁴)
 * a step (1000 masses: 306 s for 200 steps).  At most 16 pivots there,
 * and not with more rows than dofs: a body on dependent contacts (a bar
 * on six points) can start from a basis that is singular to rounding,
 * from which the pivots wander.
 * Then, as before, from the rows that pushed, with the whole budget of
 * Murty's least-index pivoting, which ends on a P-matrix. */
static int lcp_solve(struct moreau *s, int ne, int nr)
{
	int na = nr - ne, any = 0, nb = 0;
	for (int a = ne; a < nr; a++)
		any |= s->pushed[s->idx[a]] && s->q[a] < 0;
	for (int a = 0; a < nr; a++) {
		s->basic[a] = a < ne || (s->q[a] < 0 && (!any || s->pushed[s->idx[a]]));
		nb += s->basic[a];
	}
	/* more rows than dofs are dependent: no such start */
	if (nb <= s->pb->n && murty(s, ne, nr, 16) == 0)
		return 0;
	for (int a = 0; a < nr; a++)
		s->basic[a] = a < ne || s->pushed[s->idx[a]];
	return murty(s, ne, nr, 1 << (na < 20 ? na : 20));
}

enum { ROW_EQ, ROW_NORMAL, ROW_FRICTION, ROW_TANGENT };   /* ROW_FRICTION: a normal row followed by its tangent */

/* The exact solution of one frictional contact's 2 × 2 problem
 * y = D P + q (normal n then tangent t) under Signorini and Coulomb:
 * separation, sticking or sliding (see the head of the file). */
static int coulomb_local(double a, double b, double c, double qn, double qt, double mu, double *pn, double *pt)
{
	if (qn >= 0) {
		*pn = *pt = 0;
		return 0;
	}
	double det = a * c - b * b;
	if (det > 0) {
		double sn = (-qn * c + qt * b) / det, st = (-qt * a + qn * b) / det;
		if (sn >= 0 && fabs(st) <= mu * sn * (1 + 1e-14)) {
			*pn = sn;
			*pt = st;
			return 0;
		}
	}
	for (int sg = -1; sg <= 1; sg += 2) {
		/* slip with sign sg: P_t = −sg μ P_n, y_n = 0, sg y_t >= 0 */
		double den = a - sg * mu * b;
		if (!(den > 0))
			continue;
		double sn = -qn / den;
		double yt = (b - sg * mu * c) * sn + qt;
		if (sg * yt >= -1e-14 * (fabs(qt) + fabs(b * sn) + fabs(c * mu * sn))) {
			*pn = sn;
			*pt = -sg * mu * sn;
			return 0;
		}
	}
	return -1;
}

/* The sliding state in direction φ of coulomb_cone: P_n, y_t, g = d × y_t,
 * h = d · y_t; 0 when D_nn − μD_nt·d ≤ 0 (no such state). */
static int slide_at(const double *Dl, const double *q, double mu, double phi, double *pn, double *yt, double *g,
                    double *h)
{
	double d1 = cos(phi), d2 = sin(phi);
	double den = Dl[0] - mu * (Dl[3] * d1 + Dl[6] * d2);
	*g = *h = 0;
	if (!(den > 0))
		return 0;
	*pn = -q[0] / den;
	for (int i = 0; i < 2; i++)
		yt[i] = q[1 + i] + *pn * (Dl[1 + i] - mu * (Dl[1 + i + 3] * d1 + Dl[1 + i + 6] * d2));
	*g = d1 * yt[1] - d2 * yt[0];
	*h = d1 * yt[0] + d2 * yt[1];
	return 1;
}

/* A root of g = d × y_t in [lo, hi] (g(lo) = glo, the two ends of
 * opposite signs), refined by bisection to rounding; 0 with P set when
 * it is a slip, d · y_t ≥ 0 (the other root of a pair is the opposite
 * direction's). */
static int slide_root(const double *Dl, const double *q, double mu, double lo, double glo, double hi, double *P)
{
	double pn = 0, yt[2], gh, hh;
	for (int b = 0; b < 200 && lo < hi; b++) {
		double mid = 0.5 * (lo + hi), gm, hm;
		if (mid <= lo || mid >= hi || !slide_at(Dl, q, mu, mid, &pn, yt, &gm, &hm))
			break;
		if ((gm > 0) == (glo > 0) && gm != 0) {
			lo = mid;
			glo = gm;
		} else {
			hi = mid;
		}
	}
	if (!slide_at(Dl, q, mu, hi, &pn, yt, &gh, &hh))
		return -1;
	double scale = fabs(q[1]) + fabs(q[2]) + fabs(pn) * (fabs(Dl[1]) + fabs(Dl[2]) + mu * (fabs(Dl[4]) +
	               fabs(Dl[5]) + fabs(Dl[7]) + fabs(Dl[8])));
	if (!(hh >= -1e-13 * scale))
		return -1;
	P[0] = pn;
	P[1] = -mu * pn * cos(hi);
	P[2] = -mu * pn * sin(hi);
	return 0;
}

/* The edge of the sliding states between angle a (a state) and b (none),
 * by bisection: the last angle on a's side, where P_n grows without
 * bound and g takes the sign of its limit. */
static double slide_edge(const double *Dl, const double *q, double mu, double a, double b, double *ga)
{
	double pn, yt[2], h;
	for (int k = 0; k < 60; k++) {
		double mid = 0.5 * (a + b), g;
		if (mid == a || mid == b)
			break;
		if (slide_at(Dl, q, mu, mid, &pn, yt, &g, &h))
			a = mid;
		else
			b = mid;
	}
	slide_at(Dl, q, mu, a, &pn, yt, ga, &h);
	return a;
}

/* The exact solution of one frictional contact's 3 × 3 problem
 * y = D P + q (normal, then two tangents; Dl column-major) under
 * Signorini and Coulomb's cone |P_t| ≤ μP_n, y_t ≠ 0 ⇒ P_t = −μP_n
 * y_t/|y_t| (De Saxcé's cone complementarity at one contact):
 * separation when q_n ≥ 0; sticking, P = −D⁻¹q inside the cone; or
 * sliding in the direction d = (cos φ, sin φ) of the tangent plane, with
 * P = P_n(1, −μd), y_n = 0 (so P_n = −q_n/(D_nn − μD_nt·d)) and y_t =
 * λd, λ ≥ 0.  The last is one equation in φ, d × y_t(φ) = 0, whose
 * roots are bracketed on 720 angles and refined by bisection to rounding;
 * the root with d·y_t ≥ 0 is the slip.  When μ|D_nt| > D_nn the sliding
 * states exist on an arc of directions only (D_nn − μD_nt·d > 0), and a
 * root may lie between the arc's edge and the first angle of the grid
 * on it: the edges are found by bisection and bracket too (a random
 * search over positive definite D found no problem left without a
 * solution).  0, or -1 when none is found. */
static int coulomb_cone(const double *Dl, const double *q, double mu, double *P)
{
	P[0] = P[1] = P[2] = 0;
	if (q[0] >= 0)
		return 0;
#define DL(i, j) Dl[(i) + 3 * (j)]
	double c00 = DL(1, 1) * DL(2, 2) - DL(1, 2) * DL(2, 1), c01 = DL(1, 2) * DL(2, 0) - DL(1, 0) * DL(2, 2),
	       c02 = DL(1, 0) * DL(2, 1) - DL(1, 1) * DL(2, 0);
	double det = DL(0, 0) * c00 + DL(0, 1) * c01 + DL(0, 2) * c02;
	if (det > 0) {
		/* −D⁻¹q by the adjugate */
		double adj[9] = {
			c00, c01, c02,
			DL(0, 2) * DL(2, 1) - DL(0, 1) * DL(2, 2), DL(0, 0) * DL(2, 2) - DL(0, 2) * DL(2, 0),
			DL(0, 1) * DL(2, 0) - DL(0, 0) * DL(2, 1),
			DL(0, 1) * DL(1, 2) - DL(0, 2) * DL(1, 1), DL(0, 2) * DL(1, 0) - DL(0, 0) * DL(1, 2),
			DL(0, 0) * DL(1, 1) - DL(0, 1) * DL(1, 0)
		};   /* adj[i + 3j] = (D⁻¹)_ij det */
		double st[3];
		for (int i = 0; i < 3; i++)
			st[i] = -(adj[i] * q[0] + adj[i + 3] * q[1] + adj[i + 6] * q[2]) / det;
		if (st[0] >= 0 && hypot(st[1], st[2]) <= mu * st[0] * (1 + 1e-14)) {
			memcpy(P, st, sizeof st);
			return 0;
		}
	}
#undef DL
	/* sliding: g(φ) = d × y_t(φ), h(φ) = d · y_t(φ) */
	enum { NPHI = 720 };
	double ga = 0, pn = 0, yt[2], prev = 0;
	int va = 0;
	for (int k = 0; k <= NPHI; k++) {
		double phi = 2 * M_PI * k / NPHI, g, h;
		int v = slide_at(Dl, q, mu, phi, &pn, yt, &g, &h);
		/* a slip along a grid direction, y_t ∥ d to rounding: a body
		 * sliding along an axis of a symmetric block has g(0) = 0
		 * exactly, which no sign change brackets (the first angle's g
		 * is not compared with anything) */
		if (v && h > 0 && fabs(g) <= 1e-14 * h) {
			P[0] = pn;
			P[1] = -mu * pn * cos(phi);
			P[2] = -mu * pn * sin(phi);
			return 0;
		}
		if (k > 0 && v != va) {
			/* an edge of the arc of sliding states in (prev, φ) */
			double ge, e = v ? slide_edge(Dl, q, mu, phi, prev, &ge) : slide_edge(Dl, q, mu, prev, phi, &ge);
			if (v && (ge == 0 || (g > 0) != (ge > 0)) && slide_root(Dl, q, mu, e, ge, phi, P) == 0)
				return 0;
			if (va && (ge == 0 || (ge > 0) != (ga > 0)) && slide_root(Dl, q, mu, prev, ga, e, P) == 0)
				return 0;
		} else if (v && va && (g == 0 || (g > 0) != (ga > 0)) && slide_root(Dl, q, mu, prev, ga, phi, P) == 0) {
			return 0;
		}
		va = v;
		ga = g;
		prev = phi;
	}
	return -1;
}

/* Projected Gauss–Seidel over the blocks of the nr rows (kinds in
 * s->rkind): each block solved exactly with the others fixed.  0, or -1
 * with *sweeps and *change when it did not converge (or a local problem
 * had no solution: *change is then NaN, s->badrow its first row). */
static int pgs_solve(struct moreau *s, int nr, int *sweeps, double *change)
{
	int ld = s->nr;
	const double *D = s->D;
	for (int a = 0; a < nr; a++)
		s->P[a] = 0;
	for (int it = 1; it <= s->cmaxit; it++) {
		double dmax = 0, pmax = 0;
		for (int a = 0; a < nr; a++) {
			int kind = s->rkind[a];
			int bs = 1;
			while (kind == ROW_FRICTION && a + bs < nr && s->rkind[a + bs] == ROW_TANGENT)
				bs++;
			double y[3], pl[3] = { 0, 0, 0 };
			for (int r = 0; r < bs; r++) {
				y[r] = s->q[a + r];
				for (int b = 0; b < nr; b++)
					if (b < a || b >= a + bs)
						y[r] += D[a + r + (size_t)b * ld] * s->P[b];
			}
			double daa = D[a + (size_t)a * ld];
			int bad = 0;
			if (kind == ROW_EQ) {
				pl[0] = -y[0] / daa;
			} else if (kind == ROW_NORMAL) {
				pl[0] = fmax(0, -y[0] / daa);
			} else if (bs == 2) {
				bad = coulomb_local(daa, D[a + (size_t)(a + 1) * ld], D[a + 1 + (size_t)(a + 1) * ld], y[0],
				                    y[1], s->mu[s->idx[a]], &pl[0], &pl[1]);
			} else {
				double Dl[9];
				for (int i = 0; i < 3; i++)
					for (int j = 0; j < 3; j++)
						Dl[i + 3 * j] = D[a + i + (size_t)(a + j) * ld];
				bad = coulomb_cone(Dl, y, s->mu[s->idx[a]], pl);
			}
			if (bad) {
				*sweeps = it;
				*change = NAN;
				s->badrow = a;
				return -1;
			}
			for (int r = 0; r < bs; r++) {
				dmax = fmax(dmax, fabs(pl[r] - s->P[a + r]));
				pmax = fmax(pmax, fabs(pl[r]));
				s->P[a + r] = pl[r];
			}
			a += bs - 1;
		}
		*sweeps = it;
		*change = dmax / (pmax + DBL_MIN);
		if (dmax <= s->ctol * pmax)
			return 0;
	}
	return -1;
}

/* The mass-orthogonal correction x −= M⁻¹Cᵀ(CM⁻¹Cᵀ)⁻¹ r with C = ∂c/∂u
 * in s->Gc: X = M⁻¹Cᵀ and A = C X are formed and A factored here. */
static int constraint_correct(struct moreau *s, double *x, const double *r)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nc = s->nc;
	for (int k = 0; k < nc; k++) {
		double *col = s->X + (size_t)k * n;
		for (int i = 0; i < n; i++)
			col[i] = s->Gc[k + (size_t)i * nc];
		nl_mass_solve(&s->c, col);
	}
	for (int k = 0; k < nc; k++)
		for (int l = 0; l < nc; l++) {
			double a = 0;
			for (int i = 0; i < n; i++)
				a += s->Gc[k + (size_t)i * nc] * s->X[i + (size_t)l * n];
			s->A[k + (size_t)l * nc] = a;
		}
	if (la_factor(s->af, s->A) != 0)
		return -1;
	memcpy(s->rhs, r, sizeof(double) * (size_t)nc);
	la_solve(s->af, s->rhs);
	for (int k = 0; k < nc; k++)
		for (int i = 0; i < n; i++)
			x[i] -= s->X[i + (size_t)k * n] * s->rhs[k];
	return 0;
}

/* u back onto c(u) = 0 by Newton's method along M⁻¹Cᵀ (quadratic
 * convergence; no iteration at all when c(u) = 0 already).  It fails
 * when an iterate is farther from the constraints than the step left u
 * (Newton's method outside its basin: a step too long for the
 * constraints' curvature, which a smaller one cures), when
 * C M⁻¹ Cᵀ becomes singular on the way there, or after 10 iterations;
 * singular at the start, the gradients at the step's end are
 * dependent. */
static int constraint_project(struct moreau *s, double t, double *u, struct rt_error *err)
{
	struct rt_problem *pb = s->pb;
	int n = pb->n, nc = s->nc;
	double scale = nl_maxabs(n, u) + DBL_MIN, r0 = 0;
	for (int it = 0;; it++) {
		problem_constraints(pb, t, u, s->cval, s->Gc);
		double r = nl_maxabs(nc, s->cval);
		if (it == 0)
			r0 = r;
		/* u before, in its own scratch: P (nr long) still holds the
		 * step's impulses, which the friction ledger reads after this */
		memcpy(s->uproj, u, sizeof(double) * (size_t)n);
		int singular = it < 10 && r <= r0 && constraint_correct(s, u, s->cval);
		if (singular && it == 0) {
			snprintf(err->msg, sizeof err->msg, "the constraints' gradients are dependent (C M^-1 C^T "
			         "singular)");
			err->code = 4;
			return -1;
		}
		if (singular || it == 10 || !(r <= r0)) {
			snprintf(err->msg, sizeof err->msg, "the positions could not be brought back onto the "
			         "constraints: residual %.3g after %d Newton iteration%s (%.3g after the step)", r, it,
			         it == 1 ? "" : "s", r0);
			err->code = 4;
			return -1;
		}
		double moved = 0;
		for (int i = 0; i < n; i++)
			moved = nl_max_keep(moved, fabs(u[i] - s->uproj[i]));
		if (moved <= 8 * DBL_EPSILON * scale)
			return 0;
	}
}

/* The tangent rows of frictional contact k, from row r of s->H: the
 * gradients of its slip coordinates (`along`), or, for one point's
 * coordinates (a mass m I, checked by the language), the directions
 * orthogonal to the gap's gradient G, of G's length so that the
 * impulses compare as forces: T = (−G₂, G₁) in the plane; in space
 * t₁ = the coordinate axis least aligned with G made orthogonal to it,
 * t₂ = Ĝ × t₁.  Returns their number. */
static int tangents(struct moreau *s, int k, int r)
{
	int n = s->pb->n, nk = s->nk, ld = s->nr;
	const int *first = s->pb->ir->contact.slip_first;
	if (first && first[k + 1] > first[k]) {
		for (int j = first[k]; j < first[k + 1]; j++)
			for (int i = 0; i < n; i++)
				s->H[r + j - first[k] + (size_t)i * ld] = s->T[j + (size_t)i * s->nsl];
		return first[k + 1] - first[k];
	}
	const double *g = s->G + k;   /* stride nk */
	if (n == 2) {
		s->H[r] = -g[nk];
		s->H[r + (size_t)ld] = g[0];
		return 1;
	}
	double gn = sqrt(g[0] * g[0] + g[nk] * g[nk] + g[2 * nk] * g[2 * nk]);
	double u[3] = { g[0] / gn, g[nk] / gn, g[2 * nk] / gn }, t[3] = { 0, 0, 0 };
	int a = 0;
	for (int i = 1; i < 3; i++)
		if (fabs(u[i]) < fabs(u[a]))
			a = i;
	t[a] = 1;
	double tn = 0;
	for (int i = 0; i < 3; i++)
		t[i] -= u[a] * u[i];
	tn = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
	double t2[3] = { u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0] };
	double t2n = sqrt(t2[0] * t2[0] + t2[1] * t2[1] + t2[2] * t2[2]);
	for (int i = 0; i < 3; i++) {
		s->H[r + (size_t)i * ld] = gn * t[i] / tn;
		s->H[r + 1 + (size_t)i * ld] = gn * t2[i] / t2n;
	}
	return 2;
}

/* A frictional contact whose slip moves along its gap's gradient (`along
 * S` with S moving the contact point off the obstacle): the block of
 * its rows in D is singular, its tangential impulse acts as a normal
 * one, and a "solution" of the local problem may exist (for mu <= 1)
 * and split the normal impulse arbitrarily between the laws, so that
 * the ledger's friction dissipation comes out negative.  Such a contact
 * is refused whatever mu, as soon as it is active, by the Gram
 * determinant of its block against its diagonal (1e-10: a slip at an
 * angle of 1e-5 from the gap still runs).  The contact's number (from
 * 1), or 0. */
static int slip_along_gap(const struct moreau *s, int nr)
{
	int ld = s->nr;
	for (int a = 0; a < nr; a++) {
		if (s->rkind[a] != ROW_FRICTION)
			continue;
		int bs = 1;
		while (a + bs < nr && s->rkind[a + bs] == ROW_TANGENT)
			bs++;
		double Dl[9], diag = 1;
		for (int i = 0; i < bs; i++) {
			for (int j = 0; j < bs; j++)
				Dl[i + 3 * j] = s->D[a + i + (size_t)(a + j) * ld];
			diag *= Dl[i + 3 * i];
		}
		double det = bs == 2 ? Dl[0] * Dl[4] - Dl[3] * Dl[1]
		             : Dl[0] * (Dl[4] * Dl[8] - Dl[7] * Dl[5]) - Dl[3] * (Dl[1] * Dl[8] - Dl[7] * Dl[2]) +
		               Dl[6] * (Dl[1] * Dl[5] - Dl[4] * Dl[2]);
		if (bs > 1 && det <= 1e-10 * diag)
			return s->idx[a] + 1;
	}
	return 0;
}

/* The failure of a frictional contact's local problem (s->badrow).  For
 * a positive definite block separation, sticking or sliding always
 * holds, whatever μ (in the plane the three cover the half-plane q_n < 0:
 * the rays −D(1, ±μ) bound the sticking cone and each sliding cone lies
 * between one of them and the axis q_n = 0; in space a random search
 * over positive definite blocks found no problem without a solution);
 * singular blocks are refused before (slip_along_gap), so this is a
 * bug. */
static int no_local_solution(struct moreau *s, struct rt_error *err)
{
	int k = s->idx[s->badrow];
	err->code = 4;
	snprintf(err->msg, sizeof err->msg, "the frictional contact problem: no solution found at contact %d "
	         "(mu = %g), although one exists; this is a bug of dyn, please report it", k + 1, s->mu[k]);
	return -1;
}

/* Whether the iterate v₊ with the impulses P of its contact problem
 * satisfies the step's equation R(v₊) − HᵀP = 0 to the iteration's
 * tolerance, relative to the size of its terms (M Δv, τθF₊, τ(1−θ)F,
 * HᵀP, row by row); s->R holds R(v₊), s->H and s->P the rows and
 * impulses that gave v₊.  That is the solution, whatever a new contact
 * problem would give: re-solved from data equal to rounding, it may
 * land on another of its solutions at the stick–slip transition, where
 * they jump with the data, and the iteration then cycled between them
 * (a block sliding to rest under its weight stated in the potential, a
 * linear model, failed after 25 iterations at a residual of 0.36).  For
 * linear smooth forces the first iterate satisfies it.  Contacts only:
 * their rows G(u) are taken at the step's start, constraints' move. */
static int satisfied(struct moreau *s, int nr, int vm, double tau, double th, const double *z1)
{
	int n = s->pb->n, N = s->pb->N, ld = s->nr;
	double worst = 0, size = DBL_MIN;
	/* ∇Φ's own terms, Σ_j |∂²Φ/∂u_i∂u_j| |u_j| (a body held by its
	 * support against its weight: Ku and the weight cancel in ∇Φ) */
	memcpy(s->tw, s->u1, sizeof(double) * (size_t)n);
	if (N > n)
		memcpy(s->tw + n, z1, sizeof(double) * (size_t)(N - n));
	memset(s->ty, 0, sizeof(double) * (size_t)N);
	problem_phi_terms(s->pb, s->tw, s->ty);
	for (int i = 0; i < n; i++) {
		double hp = 0, ha = 0;
		for (int r = 0; r < nr; r++) {
			double t = s->H[r + (size_t)i * ld] * s->P[r];
			hp += t;
			ha += fabs(t);
		}
		double fnew = tau * th * (s->f1[i] - s->gphi[i] - s->gpsi[i] + (vm ? s->dT1[i] : 0));
		double fold = tau * (1 - th) * s->F0[i];
		worst = nl_max_keep(worst, fabs(s->R[i] - hp));
		size = fmax(size, fabs(s->R[i] + fnew + fold) + fabs(fnew) + fabs(fold) + tau * th * s->ty[i] + ha);
	}
	return worst <= s->vtol * size;
}

/* b := W⁻¹b (n entries) with the iteration's factor of W: dense, or on
 * the matrix layer, where the z rows of the order-N system are the
 * identity and take a zero right-hand side. */
static void w_solve(struct moreau *s, double *b)
{
	int n = s->pb->n, N = s->pb->N;
	if (!s->nw) {
		la_solve(s->wf, b);
	} else if (N == n) {
		newton_factored_solve(s->nw, b);
	} else {
		memcpy(s->wx, b, sizeof(double) * (size_t)n);
		memset(s->wx + n, 0, sizeof(double) * (size_t)(N - n));
		newton_factored_solve(s->nw, s->wx);
		memcpy(b, s->wx, sizeof(double) * (size_t)n);
	}
}

/* W = M + τθ∇²Ψ + τ²θ²∇²Φ on the matrix layer from the Hessians of the
 * last problem_phi and problem_psi, the terms added in the dense path's
 * order (M, then K, Φ's scalar part and kernels, then Ψ's), each entry
 * weighted as problem_add_hess_phi weighs it (by its column's w), so
 * without internal variables the values are the dense W's to the bit
 * (with them the dense path sums the Hessians apart before adding M:
 * the same to rounding); then factored.  0, k > 0 singular, -1 out of
 * memory. */
static int w_factor(struct moreau *s)
{
	struct rt_problem *pb = s->pb;
	struct jacobian *J = s->jac;
	double *x = J->A.x;
	int n = pb->n, m = pb->m;
	const double *cr = m ? s->wrow : NULL;
	memset(x, 0, sizeof(double) * J->A.nx);
	jacobian_add_mass(J, pb, 1, x);
	jacobian_add_phi(J, pb, cr, s->wphi, x);
	jacobian_add_psi(J, pb, cr, s->wpsi, x);
	for (int j = 0; j < m; j++)
		x[J->diag[n + j]] = 1;
	return newton_factor(s->nw);
}

/* The impulses of the step's nr rows (ne equalities first, na contact
 * rows after them) in s->P, and v_free (in s->du) moved by W⁻¹HᵀP: the
 * Delassus operator D = H W⁻¹ Hᵀ from one solve with W's factor per row,
 * q = H v_free + (the impact law's or the constraints' term) H v, then
 * Murty's pivoting, or projected Gauss–Seidel with friction.  0, or -1
 * (NL_UNSTABLE when a smaller step cannot help) with err set. */
static int row_impulses(struct moreau *s, int ne, int na, int nr, int friction, const double *v,
                        struct rt_error *err)
{
	int n = s->pb->n, ld = s->nr;
	double th = s->theta;
	const double *e = s->pb->ir->contact.restitution;
	for (int a = 0; a < nr; a++) {
		double *col = s->WG + (size_t)a * n;
		for (int i = 0; i < n; i++)
			col[i] = s->H[a + (size_t)i * ld];
		if (s->lin)
			la_solver_solve(s->ws, col);
		else
			w_solve(s, col);
	}
	for (int a = 0; a < nr; a++) {
		double gf = 0, gv = 0;
		int nz = 0;
		for (int i = 0; i < n; i++) {
			double h = s->H[a + (size_t)i * ld];
			gf += h * s->du[i];
			gv += h * v[i];
			if (h != 0)
				s->hnz[nz++] = i;
		}
		/* C(θv₊ + (1−θ)v) = 0; G_k v₊ + e_k G_k v ≥ 0 */
		int kind = s->rkind[a];
		s->q[a] = gf + (kind == ROW_EQ ? (1 - th) / th : kind == ROW_TANGENT ? 0 : e[s->idx[a]]) * gv;
		/* the row's nonzeros only: a contact's gradient touches a few
		 * dofs, and D is nr² of these sums */
		for (int b = 0; b < nr; b++) {
			double d = 0;
			const double *wg = s->WG + (size_t)b * n;
			for (int p = 0; p < nz; p++)
				d += s->H[a + (size_t)s->hnz[p] * ld] * wg[s->hnz[p]];
			s->D[a + (size_t)b * ld] = d;
		}
	}
	if (friction) {
		int sweeps = 0, k = slip_along_gap(s, nr);
		double chg = 0;
		if (k) {
			/* a smaller step does not cure it (NL_UNSTABLE: no advice) */
			err->code = 4;
			snprintf(err->msg, sizeof err->msg, "the frictional contact problem is singular at "
			         "contact %d: its slip moves along its gap's gradient (friction MU along S needs "
			         "a slip S along the obstacle)", k);
			return NL_UNSTABLE;
		}
		if (pgs_solve(s, nr, &sweeps, &chg)) {
			if (isnan(chg))
				return no_local_solution(s, err);
			else
				snprintf(err->msg, sizeof err->msg, "the frictional contact problem did not "
				         "converge in %d sweeps (relative change %.3g > contact_tolerance = "
				         "%g); raise contact_iterations", sweeps, chg, s->ctol);
			err->code = 4;
			return -1;
		}
	} else if (lcp_solve(s, ne, nr)) {
		snprintf(err->msg, sizeof err->msg, "%s", na ? "the contact problem (LCP) has no solution found "
		         "(dependent contact gradients?)" : "the constraints' gradients are dependent");
		err->code = 4;
		return -1;
	}
	for (int a = 0; a < nr; a++)
		for (int i = 0; i < n; i++)
			s->du[i] += s->WG[i + (size_t)a * n] * s->P[a];
	return 0;
}

static int mj_step(void *p, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                   double *dterm, struct rt_error *err)
{
	struct moreau *s = p;
	struct rt_problem *pb = s->pb;
	int n = pb->n, m = pb->m, N = pb->N, nk = s->nk, ne = s->nc, ld = s->nr, vm = pb->varmass, rc;
	double th = s->theta;
	/* with M(u) the support's load −M(u) d a(t) is taken at each end's u */
	problem_load_at(pb, t0, x->u, s->f0);
	problem_load(pb, t1, s->f1);
	problem_phi(pb, x->u, x->z, s->gphi);
	problem_psi(pb, x->v, x->zd, s->psi0);
	double zscale = fmax(nl_maxabs(N, s->f1), nl_maxabs(N, s->gphi));
	if (vm) {
		/* p = M(u)v and ∂ᵤT at the start; M(u) factored for the
		 * activation's M⁻¹F and the constraints' projection */
		problem_kinetic(pb, x->u, x->v, s->p0, s->dT0);
		problem_mass(pb, x->u, s->c.Mu);
		if (la_factor(s->c.mf, s->c.Mu) != 0)
			return nl_fail(err, 0, 0, -2);
	}
	for (int i = 0; i < n; i++) {
		s->F0[i] = s->f0[i] - s->gphi[i] - s->psi0[i] + (vm ? s->dT0[i] : 0);
		s->wpsi[i] = tau * th;
		s->wphi[i] = tau * tau * th * th;
	}
	for (int j = 0; j < m; j++) {
		/* the z rows of the Hessians are not wanted (the z block is the
		 * stage's) */
		s->wpsi[n + j] = s->wphi[n + j] = 0;
		s->zprev[j] = x->z[j];
		s->zdprev[j] = x->zd[j];
		s->st.x[n + j] = x->zd[j];
	}
	if (!(zscale > 0))
		zscale = 1;
	/* the step's rows: the constraints' gradients (at the midpoint, set
	 * in the iteration), then the active contacts' at u */
	/* the velocity's scale: the loads at the step's end count too, or a
	 * body at rest under a load that starts from 0 (F0 sin(w t)) would
	 * have the scale DBL_MIN and a step that never converges */
	double vscale = nl_maxabs(n, x->v) + tau * fmax(nl_maxabs(n, s->F0), nl_maxabs(n, s->f1)) + DBL_MIN;
	int na = 0, friction = 0;
	for (int r = 0; r < ne; r++)
		s->rkind[r] = ROW_EQ;
	if (s->lin) {
		/* (M + τθC + τ²θ²K)(v_free − v) = τ[θf₊ + (1−θ)f − Ku − Cv −
		 * θτKv]: the iteration's first step, exact for linear forces,
		 * with W factored once per step size */
		if (tau != s->tauf) {
			double coef[3] = { 1, tau * tau * th * th, tau * th };
			la_mat_sum(&s->Wm, coef);
			s->tauf = 0;
			if (la_solver_factor(s->ws, &s->Wm) != 0)
				return nl_fail(err, 0, 0, -2);
			s->tauf = tau;
		}
		for (int i = 0; i < n; i++)
			s->du[i] = tau * (th * s->f1[i] + (1 - th) * s->f0[i] - s->gphi[i] - s->psi0[i]);
		la_mat_muladd(&pb->Km, -tau * tau * th, x->v, s->du);
		la_solver_solve(s->ws, s->du);
		for (int i = 0; i < n; i++)
			s->du[i] += x->v[i];   /* v_free */
	}
	if (nk) {
		problem_contacts(pb, x->u, s->phi, s->G);
		if (s->nsl)
			problem_slips(pb, x->u, NULL, s->T);
		/* the smooth acceleration M⁻¹F at the start, into R (scratch) */
		memcpy(s->R, s->F0, sizeof(double) * (size_t)n);
		nl_mass_solve(&s->c, s->R);
		for (int k = 0; k < nk; k++) {
			double gv = 0, ga = 0, gn = 0;
			for (int i = 0; i < n; i++) {
				gv += s->G[k + (size_t)i * nk] * x->v[i];
				ga += s->G[k + (size_t)i * nk] * s->R[i];
				gn = fmax(gn, fabs(s->G[k + (size_t)i * nk]));
			}
			/* predicted closed within half a step, counting the smooth
			 * forces when they push towards the obstacle: a body resting
			 * on it (φ and G v zero up to rounding, and drifting away by
			 * rounding) stays in contact instead of falling freely
			 * through one step in every few (chattering) */
			double round = 64 * DBL_EPSILON * gn * (nl_maxabs(n, x->u) + tau * vscale);
			double closing = 0.5 * tau * gv + 0.5 * tau * tau * fmin(0, ga);
			if (s->lin) {
				/* on the linear path, half of what the step without
				 * the contact moves the gap, ½τ G (θ v_free + (1 − θ)
				 * v): ½τGv at constant velocity, as above, and closing
				 * under a force towards the obstacle.  The explicit
				 * ½τ²Ga overshoots a stiff spring's pull (ωτ > √2): a
				 * mass on a spring of 1e6 was held at 0.5 mm from a
				 * stop it never reaches, pushed by it every step */
				double gf = 0;
				for (int i = 0; i < n; i++)
					gf += s->G[k + (size_t)i * nk] * s->du[i];
				closing = 0.5 * tau * (th * gf + (1 - th) * gv);
			}
			s->active[k] = s->phi[k] + closing <= round;
			if (!s->active[k])
				continue;
			int r = ne + na, fr = s->mu && s->mu[k] > 0;
			for (int i = 0; i < n; i++)
				s->H[r + (size_t)i * ld] = s->G[k + (size_t)i * nk];
			s->rkind[r] = fr ? ROW_FRICTION : ROW_NORMAL;
			s->idx[r] = k;
			na++;
			if (fr) {
				int nt = tangents(s, k, r + 1);
				for (int j = 1; j <= nt; j++) {
					s->rkind[r + j] = ROW_TANGENT;
					s->idx[r + j] = k;
				}
				na += nt;
				friction = 1;
			}
		}
	}
	int nr = ne + na;
	memcpy(s->v1, x->v, sizeof(double) * (size_t)n);
	int converged = 0, it;
	if (s->lin) {
		/* v_free, formed before the contacts' activation */
		if (nr && (rc = row_impulses(s, ne, na, nr, friction, x->v, err)) != 0)
			return rc;
		memcpy(s->v1, s->du, sizeof(double) * (size_t)n);
		converged = 1;
		for (int i = 0; i < n; i++)
			converged &= isfinite(s->v1[i]);
		if (!converged)
			return nl_fail(err, 1, NAN, -1);
	}
	for (it = 0; it < s->maxit && !converged; it++) {
		/* R(v₊) = M(v₊ − v) − τ[θF(u₊, v₊) + (1−θ)F] (without the
		 * impulse); with M(u), p(u₊, v₊) − p(u, v) in place of M(v₊ − v)
		 * and F counting ∂ᵤT (DESIGN.md, "Schemes") */
		for (int i = 0; i < n; i++)
			s->u1[i] = x->u[i] + tau * (th * s->v1[i] + (1 - th) * x->v[i]);
		const double *z1 = x->z, *zd1 = x->zd;
		if (m) {
			/* z₊ at (u₊, v₊) by the return mapping, u frozen:
			 * 0 ∈ ∂Ψ(v₊, ż₊) + ∂_zΦ(u₊, z₊) − g(t₊), z₊ = z + τż₊ */
			struct stage *st = &s->st;
			st->solve_u = 0;
			st->solve_z = 1;
			st->dg = 0;
			st->u0 = s->u1;
			st->cu = 0;
			st->v0 = s->v1;
			st->cv = 0;
			st->in0 = NULL;
			st->cm = 0;
			st->z0 = s->zprev;
			st->cz = tau;
			st->zd0 = s->zero;
			st->czd = 1;
			for (int i = 0; i < n; i++)
				st->x[i] = st->e[i] = 0;
			for (int k = N; k < st->NT; k++)
				st->x[k] = 0;
			for (int j = 0; j < m; j++)
				st->e[n + j] = -s->f1[n + j];
			int iters;
			double res;
			rc = stage_solve(st, zscale, &iters, &res);
			if (rc)
				return stage_failure(st, rc, err);
			z1 = st->z;
			zd1 = st->zd;
		}
		if (vm) {
			problem_load_at(pb, t1, s->u1, s->f1);
			problem_kinetic(pb, s->u1, s->v1, s->p1, s->dT1);
		}
		problem_phi(pb, s->u1, z1, s->gphi);
		problem_psi(pb, s->v1, zd1, s->gpsi);
		if (s->nw) {
			/* M(v₊ − v) from M's entries, into R */
			for (int i = 0; i < n; i++)
				s->du[i] = s->v1[i] - x->v[i];
			la_mat_mul(&pb->Mm, s->du, s->R);
		}
		for (int i = 0; i < n; i++) {
			double r = 0;
			if (vm)
				r = s->p1[i] - s->p0[i];
			else if (s->nw)
				r = s->R[i];
			else
				for (int j = 0; j < n; j++)
					r += pb->M[i + (size_t)j * n] * (s->v1[j] - x->v[j]);
			s->R[i] = r - tau * (th * (s->f1[i] - s->gphi[i] - s->gpsi[i] + (vm ? s->dT1[i] : 0)) +
			                     (1 - th) * s->F0[i]);
		}
		/* (not with constraints: their rows C(u_m) move with v₊, and the
		 * iteration converges them too) */
		if (it > 0 && ne == 0 && satisfied(s, nr, vm, tau, th, z1)) {
			converged = 1;
			break;
		}
		/* W = M + τθ∇²Ψ + τ²θ²∇²Φ; with M(u), M(u₊) without the
		 * derivatives of M(u₊)v₊ and ∂ᵤT in v₊ (a fixed point
		 * contracting by O(τ|v| |∂M|/|M|)), and with internal
		 * variables without ∂z₊/∂v₊ (O(τ²|∂²Φ/∂u∂z|/|M|)) */
		if (s->nw) {
			int frc = w_factor(s);
			if (frc < 0) {
				snprintf(err->msg, sizeof err->msg, "out of memory for the factorization of the step's "
				         "Jacobian (%d unknowns)", N);
				return -1;
			}
			if (frc > 0)
				return nl_fail(err, it, nl_maxabs(n, s->R), -2);
		} else {
			if (vm)
				problem_mass(pb, s->u1, s->W);
			else
				memcpy(s->W, pb->M, sizeof(double) * (size_t)n * (size_t)n);
			if (m) {
				memset(s->Wz, 0, sizeof(double) * (size_t)N * (size_t)N);
				problem_add_hess_phi(pb, NULL, s->wphi, s->Wz, N);
				problem_add_hess_psi(pb, NULL, s->wpsi, s->Wz, N);
				for (int j = 0; j < n; j++)
					for (int i = 0; i < n; i++)
						s->W[i + (size_t)j * n] += s->Wz[i + (size_t)j * N];
			} else {
				problem_add_hess_phi(pb, NULL, s->wphi, s->W, n);
				problem_add_hess_psi(pb, NULL, s->wpsi, s->W, n);
			}
			if (la_factor(s->wf, s->W) != 0)
				return nl_fail(err, it, nl_maxabs(n, s->R), -2);
		}
		w_solve(s, s->R);
		/* C at u_m = (u + u₊)/2 for the constraint rows */
		if (ne) {
			for (int i = 0; i < n; i++)
				s->du[i] = 0.5 * (x->u[i] + s->u1[i]);
			problem_constraints(pb, t0, s->du, s->cval, s->Gc);
			for (int k = 0; k < ne; k++)
				for (int i = 0; i < n; i++)
					s->H[k + (size_t)i * ld] = s->Gc[k + (size_t)i * ne];
		}
		/* v_free = v₊ − W⁻¹R; with rows, v₊ = v_free + W⁻¹HᵀP */
		double change = 0;
		for (int i = 0; i < n; i++)
			s->du[i] = s->v1[i] - s->R[i];   /* v_free */
		if (nr && (rc = row_impulses(s, ne, na, nr, friction, x->v, err)) != 0)
			return rc;
		for (int i = 0; i < n; i++) {
			change = nl_max_keep(change, fabs(s->du[i] - s->v1[i]));
			s->v1[i] = s->du[i];
		}
		if (!isfinite(change))
			return nl_fail(err, it + 1, change, -1);
		converged = change <= s->vtol * vscale;
	}
	if (!converged)
		return nl_fail(err, it, nl_maxabs(n, s->R) / vscale, -1);
	/* the constraints' mean forces over the step, λ = −Λ/τ */
	for (int k = 0; k < ne; k++)
		x->lam[k] = -s->P[k] / tau;
	/* the contacts' normal impulses P_n of the step, after the
	 * multipliers (record impulse): 0 on an open contact */
	for (int k = 0; k < nk; k++)
		x->lam[ne + k] = 0;
	for (int r = ne; r < nr; r++)
		if (s->rkind[r] == ROW_NORMAL || s->rkind[r] == ROW_FRICTION)
			x->lam[ne + s->idx[r]] = s->P[r];
	/* with friction, the magnitudes |P_t| after them (record impulse_t) */
	if (s->mu) {
		for (int k = 0; k < nk; k++)
			x->lam[ne + nk + k] = 0;
		for (int r = ne; r < nr; r++)
			if (s->rkind[r] == ROW_TANGENT)
				x->lam[ne + nk + s->idx[r]] = hypot(x->lam[ne + nk + s->idx[r]], s->P[r]);
	}
	/* the state at t₁ and the ledger */
	memcpy(s->vold, x->v, sizeof(double) * (size_t)n);
	memcpy(s->u1, x->u, sizeof(double) * (size_t)n);
	double w = 0, d = 0;
	for (int i = 0; i < n; i++) {
		x->u[i] += tau * (th * s->v1[i] + (1 - th) * x->v[i]);
		x->v[i] = s->v1[i];
	}
	if (ne && constraint_project(s, t1, x->u, err))
		return -1;
	for (int i = 0; i < n; i++)
		s->du[i] = x->u[i] - s->u1[i];
	/* internal variables: backward Euler's pairing, ΔW_z = Δz·g₊,
	 * ΔD_z = Δz·∇_żΨ(v₊, ż₊) + σ|Δz| */
	for (int j = 0; j < m; j++) {
		s->dz[j] = s->st.z[j] - s->zprev[j];
		x->z[j] = s->st.z[j];
		x->zd[j] = s->st.zd[j];
	}
	problem_psi(pb, x->v, x->zd, s->gpsi);
	for (int i = 0; i < n; i++) {
		w += s->du[i] * (th * s->f1[i] + (1 - th) * s->f0[i]);
		d += s->du[i] * (th * s->gpsi[i] + (1 - th) * s->psi0[i]);
	}
	for (int j = 0; j < m; j++) {
		w += s->dz[j] * s->f1[n + j];
		d += s->dz[j] * s->gpsi[n + j];
	}
	if (m)
		d += nl_sigma_dissipation(pb, s->zprev, x->z);
	problem_dissipation_terms(pb, s->vold, s->zdprev, 1 - th, 0, s->du, s->dz, dterm);
	problem_dissipation_terms(pb, x->v, x->zd, th, 1, s->du, s->dz, dterm);
	problem_sigma_terms(pb, s->dz, dterm);
	if (s->mu) {
		/* Coulomb friction's dissipation −P_t TΔu/τ: the last term */
		double df = 0;
		for (int r = 0; r < nr; r++)
			if (s->rkind[r] == ROW_TANGENT) {
				double tdu = 0;
				for (int i = 0; i < n; i++)
					tdu += s->H[r + (size_t)i * ld] * s->du[i];
				df -= s->P[r] * tdu / tau;
			}
		d += df;
		dterm[problem_nterm(pb) - 1] += df;
	}
	/* the recorded acceleration: the step's mean, impulse included */
	for (int i = 0; i < n; i++)
		x->a[i] = (x->v[i] - s->vold[i]) / tau;
	*dW = w;
	*dD = d;
	return 0;
}

static const struct scheme_newton nl_moreau_jean = {
	.alloc = mj_alloc,
	.step = mj_step,
	.free = mj_free,
};

static void moreau_params(const double *p, void *par)
{
	((struct moreau_params *)par)->theta = p[0];
}

/* θ weighs the step's end in the θ-method on the forces (Acary &
 * Brogliato 2008, §7.2): θ = 0 is explicit, θ > 1 extrapolates beyond
 * the step */
static int moreau_check(const double *p, char *msg, size_t size)
{
	if (p[0] > 0 && p[0] <= 1)
		return 0;
	snprintf(msg, size, "moreau_jean(theta = %g): theta must lie in (0, 1]", p[0]);
	return -1;
}

/* Between impacts the scheme is the θ-method on the velocity, stable at
 * any step for θ ≥ ½ (its amplification of ü + ω²u = 0 has modulus
 * [(1 + (1−θ)²Ω²)/(1 + θ²Ω²)]^½ ≤ 1 exactly then, Ω = ωτ); below, every
 * mode grows */
static int moreau_stable(const void *par)
{
	return ((const struct moreau_params *)par)->theta >= 0.5;
}

const struct scheme_type scheme_moreau_jean = {
	.family = IR_MOREAU_JEAN,
	.params_size = sizeof(struct moreau_params),
	.params = moreau_params,
	.check_params = moreau_check,
	.stable_params = moreau_stable,
	.newton = &nl_moreau_jean,
};
