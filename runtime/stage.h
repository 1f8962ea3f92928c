/* stage.h — one implicit solve of a nonlinear step, the building block of
 * every nonlinear scheme.
 *
 * The unknowns are x = (y ∈ Rⁿ, ζ ∈ Rᵐ); the scheme fixes affine maps
 *   u = u0 + cu y,  v = v0 + cv y,  z = z0 + cz ζ,  ż = zd0 + czd ζ
 * and the residual
 *   R_u = M (in0 + cm y) + wu [∇ᵤΦ(u, z) + ∇ᵥΨ(v, ż)] + e_u
 *   R_z = ∇_zΦ(u, z) + ∇_żΨ(v, ż) + e_z   (0 ∈ R_z + σ ∂|ż|)
 * and, for dry friction μ_i|u_i'| on dofs, 0 ∈ R_u,i + wu μ_i ∂|v_i|
 * e.g. Newmark: y = aᵏ, cu = βτ², cv = γτ; midpoint: y = v^{k−½}, cu = τ/2.
 * The inclusion of the 1-homogeneous terms σ_j|ż_j| is solved exactly,
 * as the fixed point ż_j = S_{cσ_j}(ż_j − c R_zj) of soft thresholding
 * (the return mapping), by semismooth Newton (Roubíček 2017, eqs. 4 and 12). */
#ifndef DYN_STAGE_H
#define DYN_STAGE_H

#include "problem.h"
#include "newton.h"

struct jacobian;

struct stage {
	struct rt_problem *pb;
	int n, m, N;
	const double *u0, *v0, *z0, *zd0, *in0;   /* in0 may be NULL (zero) */
	double cu, cv, cz, czd, cm, wu;
	double *e;            /* N: the constant part of the residual */
	int solve_u, solve_z; /* the other block is frozen (y or ζ = 0) */
	/* discrete gradient: ∇Φ(x^½) → Gonzalez's DΦ with x^{k-1} below and
	 * xᵏ = x^{k-1} + 2 (x^½ − x^{k-1}) */
	int dg;
	const double *uprev, *zprev;
	double phiprev;       /* Φ(x^{k-1}) */

	/* at the solution */
	double *x;            /* N */
	double *u, *v, *z, *zd;
	double *gphi, *gpsi;  /* gradients (N) at (u, z), (v, ż); gphi is DΦ for dg */
	double *xi;           /* m: the σ parts of the dissipative forces */
	double *xiu;          /* n: the dry-friction forces on the dofs */
	double phi, psi;
	double mag;           /* the size of the residual's terms */
	/* workspace */
	double *Mi, *cr, *cc, *ccpsi, *ue, *ze;
	double *pc;           /* m: the scale c of each soft-thresholding row */
	double *pcu;          /* n: the same for dry friction on dofs */
	double *rbuf, *gq;    /* N */
	double *tw, *ty;      /* N: the state and the size of ∇Φ's terms (stage.c, terms_of_phi) */
	double *tk;           /* N: the kernels' share of ty, once a solve (problem_phi_rounding) */
	int have_tk;
	/* discrete_gradient on a free body (ir_rigid): the direction of
	 * Gonzalez's correction and the rigid motions at x^½ (6 n at most) */
	double *dgdir, *rig;
	/* bilateral constraints: nc multipliers λ after the N unknowns; the
	 * forces Gᵀλ at the stage's u, the equations c(u_end, tc) = 0 at the
	 * step's end u_end = ue0 + cue y (Newmark: the stage's u itself).
	 * The forces take G at (u, tf): tf is tc unless the stage's u is at
	 * another time than u_end (the midpoint rule: u^{k−½} at t_{k−½},
	 * the equation c(uᵏ, tₖ) = 0 at the step's end). */
	int nc, NT;
	const double *ue0;
	double cue, tc, tf;
	/* G is kept as its values on the model's gradient pattern
	 * (problem_constraint_grad: ngrad entries), never nc × n: gs at the
	 * forces' evaluation (u, tf), ge at the equations' (u_end, tc) */
	double *cval, *gs, *ge, *uend;
	double *gtl;          /* n: Gᵀλ */
	double *cw;           /* nc: the weight of each constraint row */
	double *cwe;          /* nc: cw·cue, the rows of G in the Jacobian */
	/* formulation = ggl (stage_ggl): nc more unknowns μ after λ.  The
	 * positions move by G(ū, tf)ᵀμ, ū = u0 + cu y the stage's index-3
	 * position: u = ū + (cu/cue) G(ū)ᵀμ, u_end = ue0 + cue y + G(ū)ᵀμ;
	 * and the velocity equations G(u_end) v_end + ∂c/∂t(u_end, tc) = 0
	 * hold with c(u_end, tc) = 0, v_end = ve0 + cve y (ve0 = a0·v0 of
	 * stage_velocity_constraints). */
	int ggl;
	double *ve0, cve, ms;   /* ms: the largest mass entry */
	double *shift;        /* n: G(ū)ᵀμ (zero without ggl) */
	double *Gm, *Pv, *Ge; /* nc × n: G(ū); ∂(G v_end + ∂c/∂t)/∂u_end; G(u_end) */
	double *ct, *ctt, *Gt, *cwv;   /* nc, nc, nc × n, nc */
	double *vend, *hu;    /* n; N × N: ∂R/∂u, for the μ columns */
	double *ccu;          /* N: 1 on u, 0 on z (the columns of hu) */
	/* ggl on the matrix layer (s->jac): G(ū) on its pattern, ∂R/∂u on the
	 * Jacobian's slots, an n-vector scattering one row of G(ū) */
	double *gmv, *hux, *wv;
	struct newton *nw;
	/* the Jacobian on the matrix layer (runtime/jacobian.h), or NULL: a
	 * dense one, N×N in newton's workspace */
	struct jacobian *jac;
	struct newton_report rep;   /* of the last solve */
	double tol;
	int maxit;
};

int stage_alloc(struct stage *s, struct rt_problem *pb);
void stage_free(struct stage *s);

/* Whether a Newton Jacobian of pb is assembled on the matrix layer
 * (jacobian.h) rather than dense: beyond LA_SMALL_N unknowns or without
 * the dense operators under solver = auto, whenever another solver than
 * dense is chosen, never for a mass depending on u. */
int stage_sparse(const struct rt_problem *pb);
/* The matrix-layer Newton solver of the pattern jacobian_init(*jac, pb,
 * nc, ...) gathers, stored and factored as the run's solver choice asks
 * (spd: Cholesky is tried first; newton_alloc_mat).  *jac is allocated
 * here and left set for the caller's jacobian_free and free, also when
 * NULL (out of memory) is returned. */
struct newton *stage_newton_mat(struct rt_problem *pb, int nc, int spd, struct jacobian **jac);

/* Solve from the initial guess in s->x; on success the solution's
 * quantities are filled in.  scale: the magnitude of the forces before
 * the step (loads, internal forces, inertia), for the relative tolerance;
 * the guess never enters it.  Returns 0, or newton_solve's failure: -1
 * (not converged: *res the relative residual, *iters the iterations), -2
 * (singular Jacobian), -3 (diverged). */
int stage_solve(struct stage *s, double scale, int *iters, double *res);
/* The failure rc of the last stage_solve as a message in err, naming the
 * unknown whose equation is worst as the user wrote it; returns -1. */
int stage_failure(const struct stage *s, int rc, struct rt_error *err);

/* Constraints in a step: c(u_end, tc) = 0 with u_end = ue0 + cue·y (the
 * step's end in the stage's unknown y), Newton starting from the
 * multipliers lam; stage_multipliers copies the solution's back.  The
 * forces' time tf is set to tc; a caller whose stage is at another time
 * sets s->tf afterwards. */
void stage_constraints(struct stage *s, const double *ue0, double cue, double tc, const double *lam);
void stage_multipliers(const struct stage *s, double *lam);

/* formulation = ggl for this stage (Gear, Gupta & Leimkuhler 1985): the
 * μ unknowns and the velocity equations, see struct stage.  Called once
 * after stage_alloc on a model with constraints; 0, or -1 when out of
 * memory.  Each step then states the step's end velocity v_end = a0·v0 +
 * cve·y with stage_velocity_constraints (a no-op without ggl; μ starts
 * from 0); the position
 * correction G(ū)ᵀμ of the solution is left in s->shift. */
int stage_ggl(struct stage *s);
void stage_velocity_constraints(struct stage *s, double a0, const double *v0, double cve);

/* The work −wu λ·G(u)Δu of the constraint forces at the stage's solution
 * over the displacement du, when the constraints move (DESIGN.md,
 * "Energy ledger": W includes moving constraints); 0 for fixed ones,
 * whose discrete work is the scheme's own and stays in the residual. */
double stage_constraint_work(const struct stage *s, const double *du);

#endif
