/* run.c — the driver: builds the system from the IR, checks the operators,
 * walks the time grid, calls the stepper, keeps the histories and the
 * energy ledger, and writes the records (DESIGN.md, "Time grid",
 * "Records", "Energy ledger").
 *
 * Everything is allocated before the first step; the loop allocates
 * nothing. */
#include <config.h>

#include "run.h"
#include "fe_output.h"
#include "la.h"
#include "la_rows.h"
#include "scheme.h"
#include "vm.h"
#include "problem.h"
#include "nlstep.h"
#include "omega.h"
#include "stage.h"
#include "fmt.h"
#include "outfile.h"
#include "part.h"
#include "part_phi.h"
#include "jacobian.h"
#include "mem.h"

#include <errno.h>
#include <signal.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rt_energy_name[RT_NENERGY] = {
	"kinetic", "stored", "dissipated", "work", "residual"
};

static int fail(struct rt_error *err, int code, struct ir_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct rt_error *err, int code, struct ir_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->loc = loc;
	err->code = code;
	return code;
}

/* Beyond this many entries of G (nc × n), or when the Gram–Schmidt test
 * of independence would take more than RT_CONSTRAINT_CHECK_DENSE nc
 * operations (nc² n, a second), the initial constraints are checked on
 * G's entries (check_constraints_sparse), without that test: a family of
 * 10⁵ constraints on 10⁵ dofs would take 10¹⁵ operations and 80 GB. */
#define RT_CONSTRAINT_CHECK_DENSE 1.6e7

/* The initial values and rates of the constraints (as below) from G's
 * entries, in O(entries); a zero gradient is refused, a dependent one
 * shows as a singular saddle point at the first step. */
static int check_constraints_sparse(struct rt_problem *pb, double t0, const struct rt_state *x,
                                    const struct ir_loc *loc, struct rt_error *err)
{
	int nc = pb->nc;
	double *c = mem_calloc((size_t)nc, sizeof(double)), *ct = mem_calloc((size_t)nc, sizeof(double));
	double *ctt = mem_calloc((size_t)nc, sizeof(double)), *acc = mem_calloc(3 * (size_t)nc, sizeof(double));
	int rc = 0;
	if (!c || !ct || !ctt || !acc) {
		rc = fail(err, 3, loc[0], "out of memory");
		goto out;
	}
	problem_constraints(pb, t0, x->u, c, NULL);
	problem_constraint_rates(pb, ct, ctt, NULL);
	const int *gk, *gi;
	const double *g;
	int ng = problem_constraint_grad(pb, &gk, &gi, &g, NULL);
	double *terms = acc, *gvterms = acc + nc, *norm = acc + 2 * (size_t)nc;
	for (int k = 0; k < nc; k++) {
		terms[k] = fabs(c[k]);
		gvterms[k] = fabs(ct[k]);
	}
	for (int q = 0; q < ng; q++) {
		int k = gk[q], i = gi[q];
		terms[k] += fabs(g[q] * x->u[i]);
		ct[k] += g[q] * x->v[i];
		gvterms[k] += fabs(g[q] * x->v[i]);
		norm[k] += g[q] * g[q];
	}
	for (int k = 0; k < nc && rc == 0; k++) {
		if (!(fabs(c[k]) <= 1e-8 * terms[k]))
			rc = fail(err, 3, loc[k], "the initial state does not satisfy constraint %d: its two sides "
			          "differ by %.6g", k + 1, c[k]);
		else if (!(fabs(ct[k]) <= 1e-8 * gvterms[k]))
			rc = fail(err, 3, loc[k], "the initial velocity is not tangent to constraint %d: its rate "
			          "of change is %.6g, not 0", k + 1, ct[k]);
		else if (!(norm[k] > 0))
			rc = fail(err, 3, loc[k], "constraint %d has a zero gradient at the initial state: its "
			          "multiplier is undetermined (state it so that dc/du is not 0, e.g. x == 0 rather "
			          "than x^2 == 0)", k + 1);
	}
out:
	free(c);
	free(ct);
	free(ctt);
	free(acc);
	return rc;
}

/* An index-3 scheme enforces c(uᵏ) = 0 from the first step on, so an
 * initial state off the constraint would be pulled onto it in one step by
 * an impulse that no equation accounts for; a velocity that breaks the
 * hidden constraint dc/dt = G v + ∂c/∂t = 0 likewise.  Both are refused.
 * Tolerance: 1e-8 of the size of the terms, so that an initial position
 * typed with 9 or more digits passes and a wrong one does not. */
static int check_initial_constraints(struct rt_problem *pb, double t0, const struct rt_state *x,
                                     const struct ir_loc *loc, struct rt_error *err)
{
	int n = pb->n, nc = pb->nc;
	if ((double)nc * n > RT_CONSTRAINT_CHECK_DENSE || (double)nc * nc * n > 1e9)
		return check_constraints_sparse(pb, t0, x, loc, err);
	double *c = mem_calloc((size_t)nc, sizeof(double)), *G = mem_calloc((size_t)nc * (size_t)n, sizeof(double));
	if (!c || !G) {
		free(c);
		free(G);
		return fail(err, 3, loc[0], "out of memory");
	}
	problem_constraints(pb, t0, x->u, c, G);
	double *ct = mem_calloc((size_t)nc, sizeof(double)), *ctt = mem_calloc((size_t)nc, sizeof(double));
	double *Gt = mem_calloc((size_t)nc * (size_t)n, sizeof(double));
	if (!ct || !ctt || !Gt) {
		free(c); free(G); free(ct); free(ctt); free(Gt);
		return fail(err, 3, loc[0], "out of memory");
	}
	problem_constraint_rates(pb, ct, ctt, Gt);
	int rc = 0;
	for (int k = 0; k < nc && rc == 0; k++) {
		double terms = fabs(c[k]), gv = ct[k], gvterms = fabs(ct[k]);
		for (int i = 0; i < n; i++) {
			terms += fabs(G[k + (size_t)i * nc] * x->u[i]);
			gv += G[k + (size_t)i * nc] * x->v[i];
			gvterms += fabs(G[k + (size_t)i * nc] * x->v[i]);
		}
		if (!(fabs(c[k]) <= 1e-8 * terms))
			rc = fail(err, 3, loc[k], "the initial state does not satisfy constraint %d: its two sides "
			          "differ by %.6g", k + 1, c[k]);
		else if (!(fabs(gv) <= 1e-8 * gvterms))
			rc = fail(err, 3, loc[k], "the initial velocity is not tangent to constraint %d: its rate "
			          "of change is %.6g, not 0", k + 1, gv);
	}
	/* Independent gradients, or the saddle-point systems are singular:
	 * Gram–Schmidt on the rows of G (in ct's and Gt's storage, free
	 * now), a row whose remainder is below 1e-10 of its norm depends on
	 * the rows before it. */
	double *Q = Gt;
	int nq = 0;
	for (int k = 0; k < nc && rc == 0; k++) {
		double *row = Q + (size_t)nq * n, norm0 = 0, norm = 0;
		for (int i = 0; i < n; i++) {
			row[i] = G[k + (size_t)i * nc];
			norm0 += row[i] * row[i];
		}
		for (int q = 0; q < nq; q++) {
			const double *e = Q + (size_t)q * n;
			double d = 0;
			for (int i = 0; i < n; i++)
				d += e[i] * row[i];
			for (int i = 0; i < n; i++)
				row[i] -= d * e[i];
		}
		for (int i = 0; i < n; i++)
			norm += row[i] * row[i];
		if (!(norm0 > 0))
			rc = fail(err, 3, loc[k], "constraint %d has a zero gradient at the initial state: its "
			          "multiplier is undetermined (state it so that dc/du is not 0, e.g. x == 0 rather "
			          "than x^2 == 0)", k + 1);
		else if (!(norm > 1e-20 * norm0))
			rc = fail(err, 3, loc[k], "constraint %d is not independent of the constraints before it at "
			          "the initial state (its gradient is a combination of theirs): remove it", k + 1);
		else {
			for (int i = 0; i < n; i++)
				row[i] /= sqrt(norm);
			nq++;
		}
	}
	free(c);
	free(G);
	free(ct);
	free(ctt);
	free(Gt);
	return rc;
}

/* The message for pb->contact_nan (bad, problem_contacts) at a state
 * named by where. */
static void contact_not_finite(const struct rt_problem *pb, int bad, const char *where, char *msg, size_t size)
{
	if (bad > 0)
		snprintf(msg, size, "the gap of contact %d is %s at %s (its expression has no finite value there): "
		         "state it so that it has one on both sides of the obstacle (y >= 0 rather than sqrt(y) >= 0)",
		         bad, isnan(pb->contact_nan_gap) ? "NaN" : "-inf", where);
	else
		snprintf(msg, size, "the gradient of contact %d's gap is not finite at %s, where the gap is not "
		         "positive: the contact's normal is not defined there (as for y - sqrt(abs(x)) at x = 0)", -bad,
		         where);
}

/* The initial position must be admissible, φ_i(u₀) ≥ 0 (to 1e-8 of the
 * size of the terms, as for constraints): Paoli–Schatzman's scheme starts
 * with no impact at t₀ (Paoli and Schatzman 2002, "no impact at the initial time"). */
static int check_initial_contacts(struct rt_problem *pb, const struct rt_state *x, struct rt_error *err)
{
	const struct ir_gaps *g = &pb->ir->contact;
	int n = pb->n, nk = g->n;
	double *phi = mem_calloc((size_t)nk, sizeof(double)), *G = mem_calloc((size_t)nk * (size_t)n, sizeof(double));
	if (!phi || !G) {
		free(phi);
		free(G);
		return fail(err, 3, g->loc[0], "out of memory");
	}
	pb->contact_nan = 0;
	problem_contacts(pb, x->u, phi, G);
	int rc = 0, bad = pb->contact_nan;
	pb->contact_nan = 0;
	if (bad) {
		char msg[sizeof err->msg];
		contact_not_finite(pb, bad, "the initial state", msg, sizeof msg);
		rc = fail(err, 3, g->loc[(bad > 0 ? bad : -bad) - 1], "%s", msg);
	}
	for (int k = 0; k < nk && rc == 0; k++) {
		double terms = fabs(phi[k]);
		for (int i = 0; i < n; i++)
			terms += fabs(G[k + (size_t)i * nk] * x->u[i]);
		/* a normal not defined where the gap is positive (a ring's
		 * centre) is no violation: the gap alone then */
		if (!isfinite(terms))
			terms = fabs(phi[k]);
		if (!(phi[k] >= -1e-8 * terms))
			rc = fail(err, 3, g->loc[k], "the initial state violates contact %d: its gap is %.6g < 0",
			          k + 1, phi[k]);
	}
	free(phi);
	free(G);
	return rc;
}

/* A CSV writer per record clause: f is file.f once the file is open. */
struct output {
	const struct ir_output *o;
	struct rt_outfile file;
	FILE *f;
	double **reg;   /* VM registers per expression column */
	double *val;
	int col0;       /* its first IR_REC_EXPR column in rt_result.col */
	int kept;       /* one of those is kept */
};

/* %.15g, or %.16g or %.17g when needed to read back as x; "0" for -0,
 * "nan" for any NaN (as print writes it, dyn(5): not printf's -nan). */
static void put_num(FILE *f, double x)
{
	char buf[FMT_BUFSZ];
	if (x == 0 || isnan(x)) {
		fputs(x == 0 ? "0" : "nan", f);
		return;
	}
	fwrite(buf, 1, (size_t)fmt_g(buf, x, 15), f);
}

struct state {
	const struct ir_run *plan;
	int n;
	double *u, *v, *a, *z, *zd;
	double energy[RT_NENERGY];
	double t;
	const double *dterm;   /* dissipated per term so far */
	const double *lam;     /* constraint multipliers */
};

static double column_value(const struct state *s, struct output *out, int j, const struct ir_table *tables, int *hint)
{
	const struct ir_record *r = &out->o->record[j];
	switch (r->kind) {
	case IR_REC_T: return s->t;
	case IR_REC_U: return (r->deriv == 0 ? s->u : r->deriv == 1 ? s->v : s->a)[r->dof];
	case IR_REC_Z: return (r->deriv == 0 ? s->z : s->zd)[r->dof];
	case IR_REC_DTERM: return s->dterm[r->dof];
	case IR_REC_LAMBDA: return s->lam[r->dof];
	case IR_REC_KINETIC: case IR_REC_STORED: case IR_REC_DISSIPATED:
	case IR_REC_WORK: case IR_REC_RESIDUAL:
		return s->energy[r->kind - IR_REC_KINETIC];
	case IR_REC_EXPR: {
		struct vm_input in = { s->t, s->u, s->v, s->a, s->z, s->zd, tables, hint };
		double y;
		vm_eval(r->expr, out->reg[j], &in, &y);
		return y;
	}
	}
	return NAN;
}

static void write_row(const struct state *s, struct output *out, const struct ir_table *tables, int *hint)
{
	for (int j = 0; j < out->o->nrecord; j++) {
		double y = column_value(s, out, j, tables, hint);
		out->val[j] = y;
		if (out->f) {
			if (j)
				fputc(',', out->f);
			put_num(out->f, y);
		}
	}
	if (out->f)
		fputc('\n', out->f);
}

void rt_result_free(struct rt_result *r)
{
	if (!r)
		return;
	/* any of the arrays may be missing when memory ran out while the
	 * history was allocated */
	for (int i = 0; i < r->ndof; i++) {
		if (r->u)
			free(r->u[i]);
		if (r->v)
			free(r->v[i]);
		if (r->a)
			free(r->a[i]);
	}
	for (int j = 0; j < r->nint; j++) {
		if (r->z)
			free(r->z[j]);
		if (r->zd)
			free(r->zd[j]);
	}
	free(r->u);
	free(r->v);
	free(r->a);
	free(r->z);
	free(r->zd);
	for (int i = 0; i < RT_NENERGY; i++)
		free(r->energy[i]);
	for (int k = 0; k < r->nterm && r->dterm; k++)
		free(r->dterm[k]);
	free(r->dterm);
	for (int k = 0; k < r->nlam && r->lam; k++)
		free(r->lam[k]);
	free(r->lam);
	for (int i = 0; i < r->ncol; i++)
		free(r->col[i]);
	free(r->col);
	free(r->col_name);
	free(r->t);
	free(r);
}

/* ---- the engine: the linear fast path or a nonlinear stepper ---- */

struct engine {
	const struct ir_run *plan;
	struct rt_problem *pb;
	/* linear: constant operators, the step matrix factored once per step
	 * size, the ledger paired as code_aster does for the Newmark family:
	 * ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2, ΔD = Δu·C(vᵏ⁻¹ + vᵏ)/2 */
	const struct scheme_type *type;
	void *par;               /* the family's parameters (scheme_params) */
	unsigned caps;           /* its capabilities for them */
	const struct scheme_linear *lin;
	int oop;                 /* lin steps out of place (step_to) */
	int fused;               /* the ledger and the energies in one pass
	                            (lin_ledger); T, P: the step's end */
	int plain_phi;           /* Φ = ½uᵀKu alone (no potential program) */
	int have_P;              /* P is the last step's ½uᵀKu, formed by the
	                            stepper (scheme_linear.potential_end) */
	/* the stepper's step_pass: the step, the ledger and the next step's
	 * right-hand side in one pass (pass_step); chain: the state is the
	 * last pass's.  The loads on their pattern (problem_load_pattern),
	 * compact: lv[0] at the step's start, lv[1] at its end, lv[2] at
	 * lnext_t, the next step's end, which the driver gives as t_next,
	 * tau_next (0: none) */
	int pass, chain;
	const int *lpat;
	int nlpat;
	double *lv[3], lnext_t, t_next, tau_next;
	double T, P;
	void *lst;
	struct rt_system sys;
	double lin_tau;
	double *f, *fprev, *tmp, *tmp2;
	/* the state of the step before, as the driver saved it (advance):
	 * the ledger's Δu and vᵏ⁻¹ without copies of its own */
	const struct rt_state *prev;
	double f_t;          /* during a step: its end time, whose load is f */
	int f_ready;         /* f holds the load at f_t */
	/* linear constraints B u = G(t) on the linear path */
	int *bk, *bi;            /* B as triplets (rt_system) */
	double *bv, *zero, *lamprev;
	double *lamh, *crate;    /* λ^{k−½} of halfstep_work; scratch for G̈ */
	/* nonlinear */
	const struct scheme_newton *nl;
	void *nst;
	int halvings;
	int exact_balance;       /* the scheme's ledger balances exactly */
	double **save;           /* per halving level: u, v, a, z, zd saved */
	/* generalized-α: the algorithmic energy its residual is taken
	 * against (alpha_energy_init; dyn(5), ENERGY LEDGER) */
	struct alpha_energy alg;
	/* central differences on several processes, each stepping its own
	 * rows (part_step; runtime/part.h): M's diagonal, C's (NULL without
	 * damping), the predictors; part_stop: a Ctrl-C on some process,
	 * known to all at the same step */
	struct rt_part *part;
	double *mdiag, *cdiag, *ut;
	int part_stop;
	/* ... on a nonlinear potential (part_nl_step; runtime/part_phi.h):
	 * its kernels on the rows, the gradient, the loads at the step's
	 * two ends, the potential program's constant value */
	struct rt_part_phi *pphi;
	/* the problem whose kernels' evaluations this engine divided among
	 * the processes (engine_init), to be made whole again */
	struct rt_problem *split;
	double *pg, *pf0, *pf1, pf_t, phi_const;   /* pf1: the load at pf_t */
};

/* The load for the linear stepper.  The load at the step's end, f(t₁),
 * which the Newmark family and backward Euler ask for, is the ledger's fᵏ
 * too: kept, so that the step evaluates the force program once. */
static void sys_load(void *ctx, double t, double *f)
{
	struct engine *e = ctx;
	problem_load(e->pb, t, f);
	if (t == e->f_t) {
		memcpy(e->f, f, sizeof(double) * (size_t)e->pb->n);
		e->f_ready = 1;
	}
}

/* G(t) of linear constraints c = B u − G(t): −c(0, t) */
static void sys_constraint_rhs(void *ctx, double t, double *g)
{
	struct engine *e = ctx;
	problem_constraints(e->pb, t, e->zero, g, NULL);
	for (int k = 0; k < e->pb->nc; k++)
		g[k] = -g[k];
}

/* G̈(t) of linear constraints c = B u − G(t): −∂²c/∂t² */
static void sys_constraint_gdd(void *ctx, double t, double *g)
{
	struct engine *e = ctx;
	int nc = e->pb->nc;
	problem_constraints(e->pb, t, e->zero, g, NULL);
	problem_constraint_rates(e->pb, e->crate, g, NULL);
	for (int k = 0; k < nc; k++)
		g[k] = -g[k];
}

static int fusable(const struct la_mat *A)
{
	return A->kind == LA_MAT_DENSE || A->kind == LA_MAT_BAND;
}

/* The linear step's ledger and the energies of its end in one pass over
 * the state, the operators read row by row:
 *   ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2 (or Δu·fᵏ, end-point pairing),
 *   ΔD = Δu·C(vᵏ⁻¹ + vᵏ)/2 (or Δu·C vᵏ),  T = ½vᵀMv,  Φ = ½uᵀKu,
 * each row's product the terms a_ij x_j in ascending j from 0, and the
 * sums in ascending i: the bits of la_mat_mul's and la_mat_dot's
 * separate passes (which problem_kinetic and problem_phi make for the
 * other models), without their scratch vectors and three reads of the
 * state. */
static void lin_ledger(struct engine *e, const struct rt_state *x, const double *uprev, const double *vprev,
                       int endpoint, double *dW, double *dD)
{
	struct rt_problem *pb = e->pb;
	int n = pb->n, hasC = pb->hasC;
	struct la_rows M = la_rows_of(&pb->Mm), K = la_rows_of(&pb->Km), C = hasC ? la_rows_of(&pb->Cm) : M;
	const double *u = x->u, *v = x->v, *f = e->f, *fp = e->fprev;
	double w = 0, d = 0, t2 = 0, p2 = 0;
	/* a chain: M diagonal, K and C tridiagonal, the trapezoidal pairing;
	 * its inner rows written out (the generic rows below for the ends) */
	int chain = M.kl == 0 && M.ku == 0 && K.kl == 1 && K.ku == 1 && (!hasC || (C.kl == 1 && C.ku == 1)) &&
	            !endpoint && n > 2;
	for (int i = 0; i < n; i++) {
		if (chain && i == 1) {
			const double *m = M.a, *k = K.a, *c = C.a;
			size_t ms = M.s, ks = K.s, cs = C.s;
			for (; i < n - 1; i++) {
				double du = u[i] - uprev[i];
				w += du * (0.5 * (fp[i] + f[i]));
				double mv = 0, ku = 0;
				mv += m[i + i * ms] * v[i];
				ku += k[i + (i - 1) * ks] * u[i - 1];
				ku += k[i + i * ks] * u[i];
				ku += k[i + (i + 1) * ks] * u[i + 1];
				t2 += v[i] * mv;
				p2 += u[i] * ku;
				if (hasC) {
					double cw = 0;
					cw += c[i + (i - 1) * cs] * (vprev[i - 1] + v[i - 1]);
					cw += c[i + i * cs] * (vprev[i] + v[i]);
					cw += c[i + (i + 1) * cs] * (vprev[i + 1] + v[i + 1]);
					d += du * 0.5 * cw;
				}
			}
		}
		double du = u[i] - uprev[i];
		w += du * (endpoint ? f[i] : 0.5 * (fp[i] + f[i]));
		t2 += v[i] * la_row_dot(&M, n, i, v);
		p2 += u[i] * la_row_dot(&K, n, i, u);
		if (hasC)
			d += du * 0.5 * la_row_dot2(&C, n, i, endpoint ? NULL : vprev, v);
	}
	*dW = w;
	*dD = d;
	e->T = 0.5 * t2;
	e->P = 0.5 * p2;
}

/* lin_step by the stepper's step_pass: the loads at both ends of the step
 * and at the next step's end, evaluated on the load's pattern only, ΔW
 * over that pattern, the rest of the ledger from the pass. */
static int pass_step(struct engine *e, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                     struct rt_error *err)
{
	struct rt_problem *pb = e->pb;
	const double *uprev = e->prev->u;
	double *older = e->lv[0];
	e->lv[0] = e->lv[1];
	if (e->lnext_t == t1) {
		e->lv[1] = e->lv[2];
		e->lv[2] = older;
	} else {
		e->lv[1] = older;
		problem_load_pattern_eval(pb, t1, e->lv[1]);
	}
	e->lnext_t = NAN;
	if (e->tau_next > 0) {
		problem_load_pattern_eval(pb, e->t_next, e->lv[2]);
		e->lnext_t = e->t_next;
	}
	struct rt_step_pass sp = { t1, tau, uprev, e->prev->v, e->prev->a, x->u, x->v, x->a, e->nlpat, e->lpat,
	                           e->lv[1], e->chain, e->tau_next, e->lv[2], 0, 0, 0 };
	e->chain = 0;
	if (e->lin->step_pass(e->lst, &sp, err))
		return -1;
	e->chain = 1;
	const double *f = e->lv[1], *fp = e->lv[0];
	double w = 0;
	for (int q = 0; q < e->nlpat; q++) {
		int i = e->lpat[q];
		double du = x->u[i] - uprev[i];
		w += du * (0.5 * (fp[q] + f[q]));
	}
	*dW = w;
	*dD = sp.dD;
	e->T = sp.T;
	e->P = sp.P;
	alpha_energy_step(&e->alg, tau, e->prev->v, e->prev->a, x->v, x->a);
	return 0;
}

/* The signals the processes of a run agree on when one stops
 * (shared_stop, and the partitioned steps' sums): four slots, 1 for the
 * signal this process received, added over the processes, so that every
 * one names the first of them that any received. */
static const int stop_sigs[4] = { SIGINT, SIGTERM, SIGHUP, SIGXCPU };

static void signal_slots(double *x)
{
	int sig = rt_signal ? rt_signal : SIGINT;
	for (int q = 0; q < 4; q++)
		x[q] = rt_interrupted && sig == stop_sigs[q];
}

/* After the sums: whether any process received one, and which */
static int signal_agree(const double *x)
{
	for (int q = 0; q < 4; q++)
		if (x[q] > 0) {
			rt_signal = stop_sigs[q];
			rt_interrupted = 1;
			return 1;
		}
	return 0;
}

/* Whether the run's solver option lets a partitioned explicit step
 * divide by the lumped mass: auto or PETSc's (dyn(1), MPI); a named
 * single-process solver (dense, banded, sparse) runs replicated, each
 * process solving as dyn alone would. */
static int part_solver_allows(const struct rt_problem *pb)
{
	return pb->backend == LA_AUTO || pb->backend == LA_PETSC_DIRECT || pb->backend == LA_PETSC_ITERATIVE;
}

int rt_run_columns(const struct ir_run *plan, int n, int *c0, int *c1)
{
	int P = la_mpi_size(), r = la_mpi_rank();
	const struct scheme_type *st = scheme_of(plan->scheme.family);
	if (P < 2 || !st || !st->linear || !(st->linear->explicit_rows || st->linear->parts) || plan->halvings ||
	    n <= IR_DENSE_MAX || n < P ||
	    !(plan->solver == IR_SOLVER_AUTO || plan->solver == IR_SOLVER_DIRECT || plan->solver == IR_SOLVER_ITERATIVE))
		return 0;
	*c0 = (int)((long long)n * r / P);
	*c1 = (int)((long long)n * (r + 1) / P);
	return 1;
}

/* Central differences on this process's rows (scheme_linear.explicit_rows;
 * runtime/part.h), in place: the predictors ũ = u + τv + ½τ²a, ṽ = v +
 * ½τa of the owned rows, ũ's ghosts from their owners, then row by row
 * aᵏ = (f − K ũ − c ṽ)/(m + ½τc), uᵏ = ũ, vᵏ = ṽ + ½τaᵏ with m and c the
 * diagonals of M and C — nm_step_to's arithmetic, the same bits when its
 * step matrix M + ½τC is diagonal by pattern (dyn(1), MPI) — and the
 * ledger's sums over the owned rows (ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2, ΔD =
 * Δu·c(vᵏ⁻¹ + vᵏ)/2, T = ½vᵀMv, Φ = ½uᵀKu with K uᵏ = K ũ already
 * formed), added over the processes with a flag for a Ctrl-C on any of
 * them. */
static int part_step(struct engine *e, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                     struct rt_error *err)
{
	struct rt_part *p = e->part;
	const double b = 0, g = 0.5, cu = tau * tau * (0.5 - b), cv = tau * (1 - g);
	double *u = x->u, *v = x->v, *a = x->a, *ut = e->ut;
	const double *uprev = e->prev->u, *vprev = e->prev->v, *m = e->mdiag, *c = e->cdiag;
	const double gt = g * tau;
	double *fk = e->fprev;
	e->fprev = e->f;
	e->f = fk;
	problem_load(e->pb, t1, e->f);
	const double *f = e->f, *fp = e->fprev;
	for (int i = p->r0; i < p->r1; i++)
		ut[i] = u[i] + tau * v[i] + cu * a[i];
	if (rt_part_exchange(p, ut)) {
		snprintf(err->msg, sizeof err->msg, "MPI failed to exchange the rows of the step between processes");
		return -1;
	}
	double sum[8] = { 0 };
	signal_slots(sum + 4);
	for (int i = p->r0; i < p->r1; i++) {
		/* ṽ here, from aᵏ⁻¹ before it is overwritten: ũ alone has
		 * ghosts, ṽ needs no vector (8 bytes per unknown) */
		double vti = v[i] + cv * a[i];
		double ku = rt_part_row_dot(p, i, ut);
		double r = f[i];
		r -= ku;
		if (c)
			r -= c[i] * vti;
		a[i] = r / (c ? m[i] + gt * c[i] : m[i]);
		u[i] = ut[i] + b * tau * tau * a[i];
		v[i] = vti + g * tau * a[i];
		if (c)
			sum[3] += (u[i] - uprev[i]) * 0.5 * (c[i] * (vprev[i] + v[i]));
		sum[0] += (u[i] - uprev[i]) * (0.5 * (fp[i] + f[i]));
		sum[1] += v[i] * m[i] * v[i];
		sum[2] += u[i] * ku;
	}
	if (la_mpi_sum(sum, 8)) {
		snprintf(err->msg, sizeof err->msg, "MPI failed to add the ledger's sums over the processes");
		return -1;
	}
	*dW = sum[0];
	*dD = sum[3];
	e->T = 0.5 * sum[1];
	e->P = 0.5 * sum[2];
	e->part_stop = signal_agree(sum + 4);
	return 0;
}

/* Whether the run will step by rows (part_init), from what the problem
 * and the plan say before its engine exists: rt_begin makes a stiffness
 * held by columns (rt_run_columns; la.h, part) whole when it will not.
 * The tests are part_init's, on M and C by value too. */
static int part_wanted(const struct rt_problem *pb, const struct ir_run *plan)
{
	const struct scheme_type *st = scheme_of(plan->scheme.family);
	int n = pb->n, P = la_mpi_size();
	if (P < 2 || !st || !st->linear || !st->linear->explicit_rows || !pb->linear || pb->ir->nfe == 0 || pb->nc ||
	    pb->m || pb->varmass || pb->ir->potential || pb->ir->contact.n || n < P || !part_solver_allows(pb) ||
	    pb->Cm.part || !pb->Km.sym)
		return 0;
	double *d = mem_alloc(sizeof(double) * ((size_t)n + 1));
	int diag = d ? la_mat_diagonal(&pb->Mm, d) : -1;
	if (diag > 0 && pb->hasC)
		diag = la_mat_diagonal(&pb->Cm, d);
	free(d);
	return diag > 0;
}

/* Whether an implicit linear run keeps its operators by columns (la.h,
 * part; scheme_linear.parts): several processes, a model on a mesh whose
 * stiffness was assembled by columns (Km.part), a linear path that reads
 * the operators through products and its step matrix alone, no
 * constraints, contacts, internal variables or moving mass, M and C
 * symmetric (a part's column is its row), a step matrix
 * that goes to PETSc (the serial backends take whole matrices), no init
 * equilibrium (whose Newton solve reads K whole), and parameters stable
 * at any step (a critical step's ω_max is estimated on K's whole
 * pattern: conditional_step, omega.c). */
static int parts_wanted(const struct rt_problem *pb, const struct ir_run *plan)
{
	const struct scheme_type *st = scheme_of(plan->scheme.family);
	if (!(la_mpi_size() > 1 && st && st->linear && st->linear->parts && pb->linear && pb->ir->nfe > 0 &&
	      pb->nc == 0 && pb->m == 0 && !pb->varmass && !pb->ir->potential && pb->ir->contact.n == 0 &&
	      !pb->ir->init_equilibrium && pb->Km.part &&
	      (pb->backend == LA_PETSC_DIRECT || pb->backend == LA_PETSC_ITERATIVE) && pb->Mm.kind == LA_MAT_CSC &&
	      pb->Mm.sym && (!pb->hasC || (pb->Cm.kind == LA_MAT_CSC && pb->Cm.sym))))
		return 0;
	void *par = scheme_params(st, plan->scheme.p);
	if (!par)
		return 0;
	int stable = !(scheme_caps(st, par) & (IR_SCHEME_CONDITIONAL | IR_SCHEME_CRITICAL_STEP)) &&
	             (!st->stable_params || st->stable_params(par));
	free(par);
	return stable;
}

/* Central differences step on this process's rows when part_wanted
 * said so (e->sys.by_rows): several processes, a model on a mesh (one
 * stated with dofs runs replicated, dyn(1), MPI), the scheme's row-by-row
 * step (M and C diagonal by value: a lumped mass, rayleigh(a0, 0) on it),
 * no constraints, contacts or internal variables, Φ = ½uᵀKu with K
 * symmetric.  Then the partition, the diagonals and the predictor ũ's
 * vector; 0 also when it does not apply, -1 when out of memory. */
/* The stepper's λ_max on the rows (rt_system.lambda_max): Lanczos to
 * the serial stepper's tolerance (lanczos_lambda_max) */
static int part_lambda_max(void *ctx, double *lmax)
{
	struct engine *e = ctx;
	/* ũ's buffer, not yet a predictor, holds the iterate and its ghosts */
	return rt_part_lambda_max(e->part, e->mdiag, e->ut, 1000, 1e-12, lmax);
}

static int part_init(struct engine *e)
{
	struct rt_problem *pb = e->pb;
	int n = pb->n, P = la_mpi_size();
	if (!e->sys.by_rows)
		return 0;
	if (!(e->mdiag = mem_alloc(sizeof(double) * ((size_t)n + 1))))
		return -1;
	int diag = la_mat_diagonal(&pb->Mm, e->mdiag);
	if (diag > 0 && pb->hasC) {
		if (!(e->cdiag = mem_alloc(sizeof(double) * ((size_t)n + 1))))
			diag = -1;
		else
			diag = la_mat_diagonal(&pb->Cm, e->cdiag);
	}
	if (diag <= 0) {
		free(e->mdiag);
		free(e->cdiag);
		e->mdiag = e->cdiag = NULL;
		return diag;
	}
	e->part = mem_calloc(1, sizeof *e->part);
	e->ut = mem_calloc((size_t)n + 1, sizeof(double));
	if (!e->part || !e->ut)
		return -1;
	if (rt_part_init(e->part, &pb->Km, P, la_mpi_rank())) {
		free(e->part);
		e->part = NULL;
		return -1;
	}
	return 0;
}

/* A partitioned step whose acceleration is not finite on some process
 * (the potential's gradient has no value at the predictor): the serial
 * stepper's explicit step gives such a step to Newton, whose first
 * residual names the lowest equation that is not finite, at the
 * predictor's value (stage_failure); the same message here, from the
 * state made whole on every process.  -1 with err set. */
static int part_nl_not_finite(struct engine *e, struct rt_state *x, struct rt_error *err)
{
	struct rt_problem *pb = e->pb;
	if (rt_part_gather(e->part, x->u) || rt_part_gather(e->part, x->a)) {
		snprintf(err->msg, sizeof err->msg, "MPI failed to gather the state of the processes");
		return -1;
	}
	int first = -1, nan = 0;
	for (int i = 0; i < pb->n; i++)
		if (!isfinite(x->a[i])) {
			if (first < 0)
				first = i;
			nan |= isnan(x->a[i]);
		}
	char name[IR_NAME_SIZE];
	ir_unknown_name(pb->ir, first, name, sizeof name);
	snprintf(err->msg, sizeof err->msg, "Newton diverged: the equation of %s is %s at %s = %.3g after 0 iterations",
	         name, nan ? "NaN" : "infinite", name, x->u[first]);
	return -1;
}

/* Central differences on a nonlinear potential, on this process's rows
 * (part_nl_init; runtime/part_phi.h), in place: the stability monitor
 * of the serial stepper (nl_central_monitor, on the Hessian the last
 * step's evaluation left), the predictor uᵏ = u + τv + ½τ²a of the owned
 * rows and its ghosts from their owners, the gradient ∇Φ(uᵏ) from the
 * kernel instances that reach the rows, then aᵏ = (fᵏ − ∇Φ(uᵏ))/m and
 * vᵏ = v + ½τ(a + aᵏ) row by row: the serial explicit step's arithmetic
 * (scheme_central_difference.c, direct_step).  The ledger's sums (ΔW =
 * Δu·(fᵏ⁻¹ + fᵏ)/2, T = ½vᵀMv, Φ(uᵏ) from each instance once) are added
 * over the processes with a flag for a Ctrl-C on any of them. */
static int part_nl_step(struct engine *e, double t0, double t1, double tau, struct rt_state *x, double *dW,
                        double *dD, struct rt_error *err)
{
	struct rt_part *p = e->part;
	struct rt_problem *pb = e->pb;
	int rc = nl_central_monitor((int (*)(void *, int, double *))rt_part_phi_omega2, e->pphi, tau, t0, 2, 1,
	                            e->plan->scheme.name, err);
	if (rc)
		return rc;
	/* fᵏ⁻¹ is the last step's fᵏ: exchanged, not evaluated again */
	double *fk = e->pf0;
	e->pf0 = e->pf1;
	e->pf1 = fk;
	if (e->pf_t != t0)
		problem_load(pb, t0, e->pf0);
	problem_load(pb, t1, e->pf1);
	e->pf_t = t1;
	double *u = x->u, *v = x->v, *a = x->a, *ut = e->ut, *g = e->pg, *f0 = e->pf0, *f1 = e->pf1;
	const double *m = e->mdiag;
	for (int i = p->r0; i < p->r1; i++)
		ut[i] = u[i] + tau * v[i] + tau * tau * 0.5 * a[i];
	if (rt_part_exchange(p, ut)) {
		snprintf(err->msg, sizeof err->msg, "MPI failed to exchange the rows of the step between processes");
		return -1;
	}
	struct vm_input in = { 0, ut, NULL, NULL, x->z, NULL, pb->ir->table, pb->hint };
	double sum[8] = { 0, 0, rt_part_phi_eval(e->pphi, &in, ut, g) };
	signal_slots(sum + 4);
	for (int i = p->r0; i < p->r1; i++) {
		double an = (f1[i] - g[i]) / m[i];
		if (!isfinite(an))
			sum[3]++;
		sum[0] += (ut[i] - u[i]) * 0.5 * (f0[i] + f1[i]);
		v[i] = v[i] + tau * 0.5 * a[i] + 0.5 * tau * an;
		u[i] = ut[i];
		a[i] = an;
		sum[1] += v[i] * m[i] * v[i];
	}
	/* the ghosts of u are the predictor's (uᵏ = ũ), current as the
	 * linear partition's are */
	for (int k = 0; k < p->gh.nrecv; k++)
		u[p->gh.ridx[k]] = ut[p->gh.ridx[k]];
	if (la_mpi_sum(sum, 8)) {
		snprintf(err->msg, sizeof err->msg, "MPI failed to add the ledger's sums over the processes");
		return -1;
	}
	if (sum[3] > 0)
		return part_nl_not_finite(e, x, err);
	*dW = sum[0];
	*dD = 0;
	e->T = 0.5 * sum[1];
	e->P = sum[2] + e->phi_const;
	e->part_stop = signal_agree(sum + 4);
	return 0;
}

/* Whether central differences on a nonlinear potential step on this
 * process's rows: several processes, a model on a mesh, the explicit
 * step of the serial stepper (no dissipation, damping, internal
 * variables, constraints, contacts, friction or mass depending on u; M
 * diagonal by value), Φ in kernels alone (no quadratic part, a program
 * that does not read u) whose Hessians are complete blocks (every
 * instance's unknowns coupled: the gradient's ghosts are the pattern's).
 * Then the partition on the pattern of Φ's Hessian and the kernel
 * instances of the rows, evaluated once at the initial state for the
 * first step's monitor.  0 also when it does not apply, -1 when out of
 * memory. */
static int part_nl_init(struct engine *e, const struct rt_state *x)
{
	struct rt_problem *pb = e->pb;
	const struct ir_model *ir = pb->ir;
	int n = pb->n, P = la_mpi_size();
	if (P < 2 || !e->nl->explicit_rows || e->halvings || !part_solver_allows(pb) || ir->nfe == 0 || pb->nc ||
	    pb->m || ir->contact.n || ir->dissipation ||
	    pb->hasC || pb->varmass || !pb->Mf || !ir->potential || !pb->kphi.f || ir->potential->nnz ||
	    (ir->potential->prog->uses & (IR_USES_U | IR_USES_Z)) || n < P)
		return 0;
	for (int i = 0; i < n && pb->sigma_u; i++)
		if (pb->sigma_u[i] > 0)
			return 0;
	for (size_t k = 0; k < pb->Km.nx; k++)
		if (pb->Km.x[k] != 0)
			return 0;
	for (int q = 0; q < pb->kphi.f->nkernel; q++) {
		const struct ir_kernel *k = &pb->kphi.f->kernel[q];
		if (k->nnz != k->nslot * k->nslot)
			return 0;
		for (int s = 0; s < k->nslot; s++)
			if (k->kind[s] != IR_DOF)
				return 0;
	}
	if (!(e->mdiag = mem_alloc(sizeof(double) * ((size_t)n + 1))))
		return -1;
	int diag = la_mat_diagonal(&pb->Mm, e->mdiag);
	if (diag <= 0) {
		free(e->mdiag);
		e->mdiag = NULL;
		return diag;
	}
	struct jacobian J;
	e->part = mem_calloc(1, sizeof *e->part);
	e->pphi = mem_calloc(1, sizeof *e->pphi);
	e->ut = mem_calloc((size_t)n + 1, sizeof(double));
	e->pg = mem_calloc((size_t)n + 1, sizeof(double));
	e->pf0 = mem_calloc((size_t)n + 1, sizeof(double));
	e->pf1 = mem_calloc((size_t)n + 1, sizeof(double));
	if (!e->part || !e->pphi || !e->ut || !e->pg || !e->pf0 || !e->pf1 || jacobian_init(&J, pb, 0, LA_MAT_CSC))
		return -1;
	int rc = rt_part_init(e->part, &J.A, P, la_mpi_rank());
	jacobian_free(&J);
	if (rc || rt_part_phi_init(e->pphi, e->part, &pb->kphi, n, e->mdiag))
		return -1;
	/* the program's value, a constant; the Hessian at u⁰ for the monitor */
	struct vm_input in = { 0, x->u, NULL, NULL, x->z, NULL, ir->table, pb->hint };
	vm_eval(ir->potential->prog, pb->reg_phi, &in, pb->out_phi);
	e->phi_const = pb->out_phi[0];
	e->pf_t = NAN;
	rt_part_phi_eval(e->pphi, &in, x->u, e->pg);
	return 0;
}

static int lin_step(struct engine *e, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                    struct rt_error *err)
{
	struct rt_problem *pb = e->pb;
	int n = pb->n;
	(void)t0;
	/* by rows: a last step shorter than the others is as stable */
	if (e->part)
		return part_step(e, t1, tau, x, dW, dD, err);
	if (tau != e->lin_tau) {
		if (e->lin->set_step(e->lst, tau, err))
			return -1;
		e->lin_tau = tau;
	}
	if (e->pass)
		return pass_step(e, t1, tau, x, dW, dD, err);
	const double *uprev = e->prev->u, *vprev = e->prev->v;
	if (pb->nc)
		memcpy(e->lamprev, x->lam, sizeof(double) * (size_t)pb->nc);
	/* fᵏ⁻¹ is the last step's fᵏ: exchanged, not copied */
	double *fk = e->fprev;
	e->fprev = e->f;
	e->f = fk;
	e->f_t = t1;
	e->f_ready = 0;
	int rc = e->oop ? e->lin->step_to(e->lst, t1, tau, uprev, vprev, e->prev->a, x->u, x->v, x->a, err)
	                : e->lin->step(e->lst, t1, tau, x->u, x->v, x->a, err);
	e->f_t = NAN;
	if (rc) {
		e->f = e->fprev;
		e->fprev = fk;
		return -1;
	}
	if (!e->f_ready)
		problem_load(pb, t1, e->f);
	e->have_P = !e->fused && e->plain_phi && e->lin->potential_end && e->lin->potential_end(e->lst, &e->P);
	/* the trapezoidal pairing of the Newmark family, or the end-point
	 * pairing of backward Euler */
	int endpoint = (e->caps & IR_SCHEME_ENDPOINT) != 0;
	double w = 0, d = 0;
	if (e->fused) {
		lin_ledger(e, x, uprev, vprev, endpoint, dW, dD);
		alpha_energy_step(&e->alg, tau, vprev, e->prev->a, x->v, x->a);
		return 0;
	}
	if (pb->hasC) {
		for (int i = 0; i < n; i++)
			e->tmp2[i] = endpoint ? 2 * x->v[i] : vprev[i] + x->v[i];
		la_mat_mul(&pb->Cm, e->tmp2, e->tmp);
	}
	for (int i = 0; i < n; i++) {
		double du = x->u[i] - uprev[i];
		w += du * (endpoint ? e->f[i] : 0.5 * (e->fprev[i] + e->f[i]));
		if (pb->hasC)
			d += du * 0.5 * e->tmp[i];
	}
	/* a moving constraint's force does work, paired as on the Newton
	 * path: −Δu·Bᵀλᵏ (backward Euler), −Δu·Bᵀ(λᵏ⁻¹ + λᵏ)/2 (Newmark),
	 * −Δu·Bᵀλ^{k−½} (the midpoint rules, whose force acts at the half
	 * step: halfstep_work) */
	for (int q = 0; q < e->sys.nb && pb->ir->constraint_moving; q++) {
		int k = e->bk[q], i = e->bi[q];
		w -= e->bv[q] * (x->u[i] - uprev[i]) *
		     (e->lin->halfstep_work ? e->lamh[k] : endpoint ? x->lam[k] : 0.5 * (e->lamprev[k] + x->lam[k]));
	}
	*dW = w;
	*dD = d;
	alpha_energy_step(&e->alg, tau, vprev, e->prev->a, x->v, x->a);
	return 0;
}

/* A nonlinear step; when Newton fails and on_failure = halve(N) allows,
 * the step is retried as two half steps, recursively (the steppers start
 * every step from the one-step state (u, v, a, z, ż)). */
static int nl_advance(struct engine *e, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                      double *dterm, struct rt_error *err, int level)
{
	struct rt_problem *pb = e->pb;
	int n = pb->n, m = pb->m, nc = pb->nc;
	double *sv = e->save[level];
	memcpy(sv, x->u, sizeof(double) * (size_t)n);
	memcpy(sv + n, x->v, sizeof(double) * (size_t)n);
	memcpy(sv + 2 * n, x->a, sizeof(double) * (size_t)n);
	memcpy(sv + 3 * n, x->z, sizeof(double) * (size_t)m);
	memcpy(sv + 3 * n + m, x->zd, sizeof(double) * (size_t)m);
	memcpy(sv + 3 * n + 2 * m, x->lam, sizeof(double) * (size_t)nc);
	int nt = problem_nterm(pb);
	double *dsave = sv + 3 * n + 2 * m + nc;
	memcpy(dsave, dterm, sizeof(double) * (size_t)nt);
	double H0 = 0, H0size = 0;
	if (e->exact_balance) {
		double T = problem_kinetic(pb, x->u, x->v, NULL, NULL), P = problem_phi(pb, x->u, x->z, NULL);
		H0 = T + P;
		H0size = fabs(T) + fabs(P);
	}
	pb->contact_nan = 0;
	int rc = e->nl->step(e->nst, t0, t1, tau, x, dW, dD, dterm, err);
	/* a contact's gap (or its normal) with no value at a state the step
	 * reached: the scheme took the contact for open (φ ≤ 0 is false for
	 * NaN), and the body went through the obstacle.  The step's end is
	 * such a state, which moreau_jean reads only at the next step.  A
	 * smaller step is no cure (the body still reaches the obstacle):
	 * no halving, no such advice */
	if (rc == 0 && pb->ir->contact.n)
		problem_contacts(pb, x->u, NULL, NULL);
	if (rc == 0 && pb->contact_nan) {
		contact_not_finite(pb, pb->contact_nan, "a state the step reached", err->msg, sizeof err->msg);
		return NL_UNSTABLE;
	}
	for (int i = 0; i < n && rc == 0; i++)
		if (!isfinite(x->u[i]) || !isfinite(x->v[i])) {
			char nm[IR_NAME_SIZE];
			snprintf(err->msg, sizeof err->msg, "the solution is not finite (dof %s)",
			         ir_dof_name(pb->ir, i, nm, sizeof nm));
			rc = -1;
		}
	if (rc == 0 && e->exact_balance) {
		/* A scheme whose balance is exact (dyn(5), "Energy ledger") has
		 * a step's ledger residual ΔT + ΔΦ + ΔD − ΔW at the level of its
		 * Newton residual times Δu (1e-13 relative), or of the
		 * Gauss–Legendre bracket of the discrete gradient for energies
		 * of degree above 6 (below 1e-7 for |Δx| up to 1 on smooth
		 * energies).  A jump above 1e-6 of the energies in play is not
		 * a solution of the step, whatever Newton said. */
		double T = problem_kinetic(pb, x->u, x->v, NULL, NULL), P = problem_phi(pb, x->u, x->z, NULL);
		double jump = T + P - H0 + *dD - *dW;
		double size = fmax(H0size, fabs(T) + fabs(P)) + fabs(*dD) + fabs(*dW);
		/* an energy without a value at the step's end (the state left
		 * its expression's domain) is no balance's failure: advance
		 * names the energy (and a load without a value, the load) */
		if (isfinite(jump) && !(fabs(jump) <= 1e-2 * size)) {
			snprintf(err->msg, sizeof err->msg, "the energy balance of the step, which %s keeps exact, is off by %.3g "
			         "(%.2g of the energy %.6g)",
			         e->plan->scheme.name, jump, fabs(jump) / size, size);
			rc = -1;
		}
	}
	if (rc == 0)   /* per step taken, halves included */
		alpha_energy_step(&e->alg, tau, sv + n, sv + 2 * n, x->v, x->a);
	if (rc == 0 || level >= e->halvings)
		return rc;
	memcpy(x->u, sv, sizeof(double) * (size_t)n);
	memcpy(x->v, sv + n, sizeof(double) * (size_t)n);
	memcpy(x->a, sv + 2 * n, sizeof(double) * (size_t)n);
	memcpy(x->z, sv + 3 * n, sizeof(double) * (size_t)m);
	memcpy(x->zd, sv + 3 * n + m, sizeof(double) * (size_t)m);
	memcpy(x->lam, sv + 3 * n + 2 * m, sizeof(double) * (size_t)nc);
	memcpy(dterm, dsave, sizeof(double) * (size_t)nt);
	double w1, d1, w2, d2;
	double tm = t0 + tau / 2;
	if (nl_advance(e, t0, tm, tau / 2, x, &w1, &d1, dterm, err, level + 1) ||
	    nl_advance(e, tm, t1, tau / 2, x, &w2, &d2, dterm, err, level + 1))
		return -1;
	*dW = w1 + w2;
	*dD = d1 + d2;
	return 0;
}

/* The largest eigenvalue of H φ = λ M(u) φ at a state, H the Hessian of
 * the linearisation: of Φ (K + ∂²Φ/∂u² at (u, z): λ_max = ω_max²) or,
 * with damping, of Ψ (C + ∂²Ψ/∂v² at (v, ż): λ_max = μ_max); M(u) as
 * paoli_schatzman accepts it.  Dense (LAPACK dsygv) where the dense
 * operators exist, else Lanczos steps on the matrix layer
 * (omega_lanczos: from below, to a Ritz residual of 1e-12 or after 1000
 * steps).  0 with *lmax (0 when no eigenvalue is positive), -1 out
 * of memory, -2 when the eigensolve fails, -3 when the Hessian (or
 * M(u)) is not finite at the state: (x^2)^1.5 at x = 0, whose
 * derivative's derivative is 0·∞ there. */
static int linearised_max(struct rt_problem *pb, const double *u, const double *z, const double *v, const double *zd,
                          int damping, double *lmax)
{
	int n = pb->n, N = pb->N;
	if (!pb->M && !pb->varmass) {
		/* the iteration solves with M's factor, which a linear run
		 * gives back after its initial acceleration (initial_acceleration
		 * with release): no estimate then (a failure's message goes
		 * without it) */
		if (!pb->Mf)
			return -2;
		struct omega *o = omega_alloc(pb);
		if (!o)
			return -1;
		if (damping)
			omega_damping(o, v, zd);
		else
			omega_stiffness(o, u, z);
		double l = 0;
		int rc = omega_lanczos(o, &l);
		omega_free(o);
		*lmax = l > 0 ? l : 0;
		return rc == 0 && isnan(l) ? -3 : rc;
	}
	double *J = mem_calloc((size_t)N * (size_t)N + 1, sizeof(double)), *H = mem_calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *w = mem_calloc((size_t)n + 1, sizeof(double)), *Mu = mem_calloc((size_t)n * (size_t)n + 1, sizeof(double));
	int rc = -1;
	if (J && H && w && Mu) {
		problem_mass(pb, u, Mu);
		if (damping) {
			problem_psi(pb, v, zd, NULL);
			problem_add_hess_psi(pb, NULL, NULL, J, N);
		} else {
			problem_phi(pb, u, z, NULL);
			problem_add_hess_phi(pb, NULL, NULL, J, N);
		}
		int finite = 1;
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				H[i + (size_t)j * n] = J[i + (size_t)j * N];
				finite &= isfinite(H[i + (size_t)j * n]) && isfinite(Mu[i + (size_t)j * n]);
			}
		rc = !finite ? -3 : la_sygv(n, H, Mu, w, NULL) == 0 ? 0 : -2;
		if (rc == 0)
			*lmax = w[n - 1] > 0 ? w[n - 1] : 0;
	}
	free(J); free(H); free(w); free(Mu);
	return rc;
}

/* A conditionally stable scheme's critical step cannot be estimated
 * when the linearisation has no value at the initial state: the run
 * would go unchecked (it did: a step 5 times the critical one grew
 * 4800-fold in two steps, status 0).  3 with err set. */
static int hessian_not_finite(const struct ir_run *plan, const char *what, struct rt_error *err)
{
	return fail(err, 3, plan->loc, "%s is not finite at the initial state (as for (x^2)^1.5 at x = 0; abs(x)^3 "
	            "has one): the critical step of %s cannot be estimated", what,
	            ir_family_info[plan->scheme.family].name);
}

/* ω_max of the linearisation at (u, z) (linearised_max). */
static int linearised_omega_max(struct rt_problem *pb, const double *u, const double *z, double *wmax)
{
	double l = 0;
	int rc = linearised_max(pb, u, z, NULL, NULL, 0, &l);
	*wmax = sqrt(l);
	return rc;
}

/* Central differences on a nonlinear model: the critical step of the
 * linearisation at the initial state, K + ∂²Φ/∂u², refuses larger steps
 * as for linear models.  A scheme that takes the damping force at a
 * velocity already known (IR_SCHEME_EXPLICIT_DAMPING: paoli_schatzman's
 * M⁻¹F(Uᵐ, vₘ)) is stable on a mode only while also ζωτ < 1: on
 * ü + 2ζωu̇ + ω²u = 0 its recurrence is Uᵐ⁺¹ = 2Uᵐ − Uᵐ⁻¹ − τ²(1 − ζωτ)
 * (ω²Uᵐ + 2ζω(Uᵐ − Uᵐ⁻¹)/τ), whose characteristic polynomial
 * λ² − bλ + 1 − 2cs (s = ζωτ, c = 1 − s) has its roots in the unit disc
 * (Schur–Cohn) iff s < 1 and c(ω²τ² + 4s) < 4, which ωτ < 2 and s < 1
 * give.  With μ = 2ζω, the eigenvalues of C φ = μ M φ, the step must
 * stay below 2/μ_max too (a bar with Kelvin–Voigt damping: μ grows as
 * ω², and a step of a tenth of 2/ω_max blew up to 1e83). */
static int critical_step(struct rt_problem *pb, const struct ir_run *plan, unsigned caps, const struct rt_state *x,
                         struct rt_error *err)
{
	double wmax;
	int s = linearised_omega_max(pb, x->u, x->z, &wmax);
	if (s == -1)
		return fail(err, 3, plan->loc, "out of memory");
	if (s == -3)
		return hessian_not_finite(plan, "the stiffness (the potential's second derivative)", err);
	double tc = s == 0 && wmax > 0 ? 2 / wmax : INFINITY;
	if (scheme_step_critical(plan->dt, tc)) {
		int dg = scheme_step_digits(plan->dt, tc);
		return fail(err, 3, plan->step_loc,
		            "step %.*g %s the critical step 2/omega_max = %.*g of %s "
		            "(omega_max = %.6g rad/s at the initial state): take a step below %.*g%s",
		            dg, plan->dt, scheme_step_critical(plan->dt, tc) == 1 ? "exceeds" : "equals", dg, tc,
		            ir_family_info[plan->scheme.family].name, wmax, dg, tc,
		            ir_family_info[plan->scheme.family].caps & IR_SCHEME_CONTACTS ? "" : " or an implicit scheme");
	}
	if (!(caps & IR_SCHEME_EXPLICIT_DAMPING) || (!pb->ir->dissipation && !pb->hasC))
		return 0;
	double mumax = 0;
	s = linearised_max(pb, x->u, NULL, x->v, x->zd, 1, &mumax);
	if (s == -1)
		return fail(err, 3, plan->loc, "out of memory");
	/* a damping whose curvature is infinite where the motion starts (a
	 * fluid viscous damper's |v|^1.35 at rest) has no such limit to
	 * estimate there, and ran well: no refusal (s == -3) */
	double td = s == 0 && mumax > 0 ? 2 / mumax : INFINITY;
	if (plan->dt > td)
		return fail(err, 3, plan->step_loc,
		            "step %.6g exceeds the critical step 2/mu_max = %.6g of %s, which takes the damping "
		            "explicitly (mu_max = %.6g 1/s, the largest eigenvalue of C phi = mu M phi at the initial "
		            "state): take a step below %.6g or moreau_jean", plan->dt, td,
		            ir_family_info[plan->scheme.family].name, mumax, td);
	return 0;
}

/* Whether the model can vibrate or decay at all: a stiffness (K's
 * entries, a potential's Hessian) or a damping.  A ball flying under
 * gravity (its potential linear) and stopped by a contact has neither:
 * no mode for a scheme to amplify. */
static int has_modes(const struct rt_problem *pb)
{
	const struct ir_model *m = pb->ir;
	for (size_t k = 0; pb->Km.x && k < pb->Km.nx; k++)
		if (pb->Km.x[k] != 0)
			return 1;
	if (pb->hasC || m->dissipation || (m->potential && m->potential->nnz > 0))
		return 1;
	for (int q = 0; m->potential && q < m->potential->nkernel; q++)
		if (m->potential->kernel[q].nnz > 0)
			return 1;
	return 0;
}

/* Before a run, the stability its scheme's parameters allow: none at
 * any step (scheme_type.check_run: Newmark's γ < ½), refused; else, for
 * a conditionally stable member of the Newmark family (β < γ/2) on a
 * linear or nonlinear model without constraints, the step must keep
 * ω_max τ below the scheme's critical value (scheme_type.critical,
 * .critical_damped with damping), ω_max of the linearisation at the
 * initial state.  Refused before stepping, as central_difference is
 * (critical_step): above it the first steps return growing garbage
 * until the growth check stops the run.  With constraints the
 * constrained spectrum is lower and unknown here: the growth check
 * stays the guard. */
static int conditional_step(struct rt_problem *pb, const struct scheme_type *type, const struct ir_run *plan,
                            const struct rt_state *x, struct rt_error *err)
{
	if (!type)
		return 0;
	void *par = scheme_params(type, plan->scheme.p);
	if (!par)
		return fail(err, 3, plan->loc, "out of memory");
	char msg[sizeof err->msg];
	if (type->check_run && type->check_run(par, msg, sizeof msg)) {
		free(par);
		return fail(err, 3, plan->scheme.loc, "%s", msg);
	}
	unsigned caps = scheme_caps(type, par);
	int damped = pb->hasC || pb->ir->dissipation;
	/* A family without a closed-form bound (generalized_alpha's and
	 * moreau_jean's free parameters, which the families' own checks
	 * leave open) is judged by its amplification (rt_stability_limit):
	 * growth from the lowest frequencies is instability at any step,
	 * refused whatever the damping, as newmark's gamma < 1/2 is;
	 * growth beyond a bound is a critical step, checked as Newmark's on
	 * undamped models.  generalized_alpha(alpha_m = 0.5, beta = 0.01)
	 * returned -67226 for an amplitude of 1, exit 0. */
	double scanned = 0;
	if (type->stable_params && !type->stable_params(par) && !(caps & IR_SCHEME_CRITICAL_STEP)) {
		double wc, rho;
		if (rt_stability_limit(&plan->scheme, &wc, &rho) == 0 && wc == 0 && has_modes(pb)) {
			free(par);
			return fail(err, 3, plan->scheme.loc,
			            "%s with these parameters amplifies every mode (spectral radius 1 + %.2g at omega step "
			            "= 0.01, growing with omega step): it is unstable at any step; %s", plan->scheme.name, rho - 1,
			            plan->scheme.family == IR_GENERALIZED_ALPHA ?
			            "take alpha_m <= alpha_f <= 1/2, gamma = 1/2 - alpha_m + alpha_f and beta >= 1/4 + "
			            "(alpha_f - alpha_m)/2 (Chung and Hulbert 1993), as chung_hulbert(rho_inf) does" :
			            plan->scheme.family == IR_MOREAU_JEAN ? "take theta >= 1/2" :
			            "take parameters it is stable with");
		}
		if (isfinite(wc) && wc > 0 && !damped)
			scanned = wc;
	}
	if (pb->nc > 0 || !pb->Mf) {
		free(par);
		return 0;
	}
	double (*crit)(const void *) = damped ? type->critical_damped : type->critical;
	double wtc = crit && (caps & IR_SCHEME_CONDITIONAL) && !(caps & IR_SCHEME_CRITICAL_STEP) ? crit(par) : scanned;
	free(par);
	if (!(wtc > 0))
		return 0;
	double wmax;
	int s = linearised_omega_max(pb, x->u, x->z, &wmax);
	if (s == -1)
		return fail(err, 3, plan->loc, "out of memory");
	if (s == -3)
		return hessian_not_finite(plan, "the stiffness (the potential's second derivative)", err);
	double tc = wtc / wmax;
	if (s != 0 || !(wmax > 0) || !scheme_step_critical(plan->dt, tc))
		return 0;
	int dg = scheme_step_digits(plan->dt, tc);
	if (scanned > 0)
		return fail(err, 3, plan->step_loc,
		            "step %.*g %s the critical step %.*g of %s with these parameters "
		            "(omega_max = %.6g rad/s at the initial state; its spectral radius exceeds 1 beyond "
		            "omega step = %.6g without damping): take a step below %.*g, or parameters stable at any "
		            "step", dg, plan->dt, scheme_step_critical(plan->dt, tc) == 1 ? "exceeds" : "equals", dg, tc,
		            plan->scheme.name, wmax, wtc, dg, tc);
	return fail(err, 3, plan->step_loc,
	            "step %.*g %s the critical step %.*g of %s with these parameters "
	            "(omega_max = %.6g rad/s at the initial state; stable while omega_max step < %.6g%s): "
	            "take a step below %.*g, or beta >= gamma/2 for a scheme stable at any step",
	            dg, plan->dt, scheme_step_critical(plan->dt, tc) == 1 ? "exceeds" : "equals", dg, tc,
	            plan->scheme.name, wmax, wtc,
	            damped ? ", with gamma = 1/2 whatever the damping" : " without damping", dg, tc);
}

static void engine_free(struct engine *e)
{
	if (e->split) {
		rt_kernels_split_off(&e->split->kphi);
		rt_kernels_split_off(&e->split->kpsi);
	}
	if (e->lst)
		e->lin->free(e->lst);
	if (e->nst)
		e->nl->free(e->nst);
	free(e->f); free(e->fprev); free(e->tmp); free(e->tmp2);
	free(e->lv[0]); free(e->lv[1]); free(e->lv[2]);
	free(e->bk); free(e->bi); free(e->bv); free(e->zero); free(e->lamprev); free(e->lamh); free(e->crate);
	for (int k = 0; e->save && k <= e->halvings; k++)
		free(e->save[k]);
	free(e->save);
	free(e->par);
	alpha_energy_free(&e->alg);
	if (e->pphi)
		rt_part_phi_free(e->pphi);
	free(e->pphi);
	free(e->pg);
	free(e->pf0);
	free(e->pf1);
	if (e->part)
		rt_part_free(e->part);
	free(e->part);
	free(e->mdiag);
	free(e->cdiag);
	free(e->ut);
}

/* A chain's operators: M diagonal, K and C symmetric tridiagonal (the
 * shape of the Newmark family's chain pass, scheme_newmark.c) */
static int chain_shape(const struct rt_problem *pb)
{
	const struct la_mat *M = &pb->Mm, *K = &pb->Km, *C = &pb->Cm;
	return M->kl == 0 && M->ku == 0 && K->kl == 1 && K->ku == 1 && K->sym &&
	       (!pb->hasC || (C->kl == 1 && C->ku == 1 && C->sym));
}

static int engine_init(struct engine *e, const struct ir_run *plan, struct rt_problem *pb, struct rt_state *x,
                       struct rt_error *err)
{
	int n = pb->n;
	memset(e, 0, sizeof *e);
	e->plan = plan;
	e->pb = pb;
	e->halvings = plan->halvings;
	e->type = scheme_of(plan->scheme.family);
	if (!e->type)
		return fail(err, 3, plan->scheme.loc, "scheme %s is not available", plan->scheme.name);
	if (!(e->par = scheme_params(e->type, plan->scheme.p)))
		return fail(err, 3, plan->loc, "out of memory");
	e->caps = scheme_caps(e->type, e->par);
	if (alpha_energy_init(&e->alg, e->type, e->par, &pb->Mm, n) < 0)
		return fail(err, 3, plan->loc, "out of memory");
	e->lin = pb->linear ? e->type->linear : NULL;
	e->oop = e->lin && e->lin->step_to && pb->nc == 0 && pb->m == 0;
	/* the energies of a linear model are ½vᵀMv and ½uᵀKu alone
	 * (problem_kinetic, problem_phi): lin_ledger forms them */
	e->plain_phi = e->lin && pb->nc == 0 && !pb->varmass && !pb->ir->potential;
	e->fused = e->plain_phi && fusable(&pb->Mm) && fusable(&pb->Km) && (!pb->hasC || fusable(&pb->Cm));
	/* formulation = ggl enters the implicit steppers through their stage
	 * (stage_ggl, capability IR_SCHEME_GGL); the explicit and the impact
	 * schemes have none that holds both c and G v + ∂c/∂t (refused
	 * with constraints or without: the option asks for what the scheme
	 * cannot do) */
	if (plan->ggl && !(e->caps & IR_SCHEME_GGL))
		return fail(err, 3, plan->scheme.loc, "formulation = ggl is not available for %s: use "
		            "backward_euler, midpoint, discrete_gradient, staggered_midpoint, newmark or "
		            "generalized_alpha (trapezoidal, chung_hulbert, hht, wbz)", plan->scheme.name);
	if (plan->regularized && !(e->caps & IR_SCHEME_REGULARIZED))
		return fail(err, 3, plan->scheme.loc, "formulation = regularized is implemented for "
		            "backward_euler (rothe) only; %s enforces constraints as index3", plan->scheme.name);
	/* A linear model whose constraints are linear, B u = G(t) enforced as
	 * index3, takes the linear path of the families that can
	 * (IR_SCHEME_LINEAR_CONSTRAINTS: backward_euler, the Newmark family
	 * with β > 0): the saddle point [S Bᵀ; B 0] of the step matrix S,
	 * factored once per step size, replaces Newton's iterations on a
	 * linear system (the same equations: tests/verify/linear_constraints.dyn,
	 * linear_constraints_midpoint.dyn).  The midpoint rules keep their
	 * convention there, the force at the half step (scheme_midpoint.c);
	 * central differences enforce constraints on this path only. */
	const struct ir_model *im = pb->ir;
	int lincon = pb->nc > 0 && im->constraint_linear && !im->potential && !im->dissipation && !im->kinetic &&
	             im->nint == 0 && !im->init_equilibrium && im->contact.n == 0 && !plan->regularized &&
	             !plan->ggl && (!pb->sigma_u || nl_maxabs(n, pb->sigma_u) == 0);
	if (lincon)
		e->lin = e->caps & IR_SCHEME_LINEAR_CONSTRAINTS ? e->type->linear : NULL;
	/* the Newton stepper's refusals (multipliers that do not converge
	 * under the scheme) hold on both paths, where it enforces constraints
	 * (an explicit one does so on the linear path only) */
	if (e->lin && pb->nc && (e->caps & IR_SCHEME_CONSTRAINTS)) {
		const struct scheme_newton *nl = e->type->newton;
		struct nl_options opt = { plan->tolerance, plan->max_iterations, 0, 0, plan->scheme.name, 0, 0, 1 };
		if (scheme_refuse_model(e->type, e->caps, pb, err)) {
			err->loc = plan->scheme.loc;
			return 3;
		}
		/* check_only: the refusals, not the Newton stepper's storage
		 * (dense up to its size limit, which a large linear model
		 * exceeds); a stepper that ignores it is allocated and freed */
		void *st = nl ? nl->alloc(pb, e->par, &opt, err) : NULL;
		if (!nl || err->msg[0]) {
			if (!err->msg[0])
				snprintf(err->msg, sizeof err->msg, "out of memory for the step");
			if (!err->loc.file)
				err->loc = plan->scheme.loc;
			return 3;
		}
		if (st)
			nl->free(st);
	}
	if (e->lin && pb->nc) {
		int nc = pb->nc;
		e->zero = mem_calloc((size_t)n + 1, sizeof(double));
		e->lamprev = mem_calloc((size_t)nc, sizeof(double));
		if (!e->zero || !e->lamprev)
			return fail(err, 3, plan->loc, "out of memory");
		/* B's entries, constant for linear constraints: copied, as the
		 * problem's evaluation buffer is overwritten at every G(t) */
		problem_constraints(pb, plan->t0, e->zero, e->lamprev, NULL);
		const int *gk, *gi;
		const double *gv;
		int nb = problem_constraint_grad(pb, &gk, &gi, &gv, NULL);
		e->bk = mem_alloc(sizeof(int) * ((size_t)nb + 1));
		e->bi = mem_alloc(sizeof(int) * ((size_t)nb + 1));
		e->bv = mem_alloc(sizeof(double) * ((size_t)nb + 1));
		if (!e->bk || !e->bi || !e->bv)
			return fail(err, 3, plan->loc, "out of memory");
		memcpy(e->bk, gk, sizeof(int) * (size_t)nb);
		memcpy(e->bi, gi, sizeof(int) * (size_t)nb);
		memcpy(e->bv, gv, sizeof(double) * (size_t)nb);
		e->sys.nc = nc;
		e->sys.nb = nb;
		e->sys.bk = e->bk;
		e->sys.bi = e->bi;
		e->sys.bv = e->bv;
		e->sys.gfun = sys_constraint_rhs;
		e->sys.lam = x->lam;
		e->lamh = mem_calloc((size_t)nc, sizeof(double));
		e->crate = mem_calloc((size_t)nc + 1, sizeof(double));
		if (!e->lamh || !e->crate)
			return fail(err, 3, plan->loc, "out of memory");
		e->sys.gddfun = sys_constraint_gdd;
		e->sys.lamh = e->lamh;
	}
	if (e->lin) {
		e->sys.n = n;
		e->sys.M = &pb->Mm;
		e->sys.C = pb->hasC ? &pb->Cm : NULL;
		e->sys.K = &pb->Km;
		e->sys.by_rows = part_wanted(pb, plan);
		e->sys.backend = pb->backend;
		e->sys.backend_mpi = pb->backend_mpi;
		e->sys.model = pb->ir;
		e->sys.load = sys_load;
		e->sys.load_ctx = e;
		e->f_t = NAN;
		e->f = mem_calloc((size_t)n + 1, sizeof(double));
		e->fprev = mem_calloc((size_t)n + 1, sizeof(double));
		if (!e->sys.by_rows) {   /* the ledger's scratch (lin_step) */
			e->tmp = mem_calloc((size_t)n + 1, sizeof(double));
			e->tmp2 = mem_calloc((size_t)n + 1, sizeof(double));
		}
		if (!e->f || !e->fprev || (!e->sys.by_rows && (!e->tmp || !e->tmp2)))
			return fail(err, 3, plan->loc, "out of memory");
		/* a run stepped by the Newmark family's one pass (below) reads
		 * K and C each step and never assembles into them again: a
		 * chain's are packed to one triangle (la_mat_pack), which the
		 * products, the step matrix's sums and the pass's rows read.  A
		 * small chain's operators, dense below LA_SMALL_N, go to bands
		 * first: the chain's pass then takes them (a fifth fewer
		 * instructions a step at 10 dofs) */
		if (e->fused && e->oop && !(e->caps & IR_SCHEME_ENDPOINT) && e->lin->step_pass && e->sys.nc == 0 &&
		    pb->ir->contact.n == 0) {
			if (chain_shape(pb) && (la_mat_band_of_dense(&pb->Mm) < 0 || la_mat_band_of_dense(&pb->Km) < 0 ||
			                        (pb->hasC && la_mat_band_of_dense(&pb->Cm) < 0)))
				return fail(err, 3, plan->loc, "out of memory");
			la_mat_pack(&pb->Km);
			if (pb->hasC)
				la_mat_pack(&pb->Cm);
		}
		/* by rows: the partition first, whose Lanczos on the rows
		 * gives the stepper its critical step (part_lambda_max); the
		 * stepper then only checks the step */
		if (e->sys.by_rows) {
			if (part_init(e) || !e->part)
				return fail(err, 3, plan->loc, "out of memory");
			e->sys.lambda_max = part_lambda_max;
		}
		e->lst = e->lin->alloc(&e->sys, e->par, err);
		if (!e->lst) {
			if (!err->loc.file)
				err->loc = plan->scheme.loc;
			return err->code ? err->code : 3;
		}
		if (e->lin->set_step(e->lst, plan->dt, err)) {
			err->loc = plan->step_loc;
			return 3;
		}
		e->lin_tau = plan->dt;
		problem_load(pb, plan->t0, e->f);
		/* the Newmark family's one pass, when its ledger is the fused
		 * one (trapezoidal pairing, no constraints): the loads held on
		 * their pattern, the other ledger's vectors dropped */
		e->lnext_t = NAN;
		if (e->fused && e->oop && !(e->caps & IR_SCHEME_ENDPOINT) && e->lin->step_pass &&
		    e->lin->pass_begin(e->lst)) {
			e->nlpat = problem_load_pattern(pb, &e->lpat);
			if (e->nlpat < 0)
				return fail(err, 3, plan->loc, "out of memory");
			for (int q = 0; q < 3; q++)
				if (!(e->lv[q] = mem_calloc((size_t)e->nlpat + 1, sizeof(double))))
					return fail(err, 3, plan->loc, "out of memory");
			for (int q = 0; q < e->nlpat; q++)
				e->lv[1][q] = e->f[e->lpat[q]];
			e->pass = 1;
			free(e->f);
			free(e->fprev);
			free(e->tmp);
			free(e->tmp2);
			e->f = e->fprev = e->tmp = e->tmp2 = NULL;
		}
		return 0;
	}
	e->nl = e->type->newton;
	if (!e->nl)
		return fail(err, 3, plan->scheme.loc, "scheme %s is not available for this model", plan->scheme.name);
	/* The implicit stage (runtime/stage.c) assembles Newton's Jacobian on
	 * the matrix layer, of any size (runtime/jacobian.c), constraints
	 * included (G on its pattern, the consistent acceleration's saddle
	 * point in compressed columns: runtime/nlstep.c).  What is still
	 * dense needs the dense operators, which exist up to IR_DENSE_MAX
	 * unknowns: the impact schemes and a mass depending on u
	 * (formulation = ggl has its rows and columns on the matrix layer
	 * too: jacobian_init_ggl).  Central differences step on the
	 * stage too, and beyond the dense operators estimate their critical
	 * step on the matrix layer (omega.c).  moreau_jean's W = M + τθ∇²Ψ +
	 * τ²θ²∇²Φ is the stage's Jacobian on the same layer there
	 * (scheme_moreau_jean.c); paoli_schatzman's projection is dense
	 * unless its gaps are affine (scheme_paoli_schatzman.c).  A
	 * finite-element model holds its operators as entries at any size:
	 * their dense copies are made here for what needs them only. */
	int dense = (!(e->caps & IR_SCHEME_IMPLICIT) || (e->caps & IR_SCHEME_CONTACTS)) &&
	            (!e->nl->needs_dense || e->nl->needs_dense(pb));
	if ((dense || (pb->nc > 0 && plan->ggl) || pb->backend == LA_LAPACK_DENSE) && problem_dense(pb))
		return fail(err, 3, plan->loc, "out of memory");
	/* the impact schemes step M(u) dense; midpoint on the matrix layer
	 * at any size (midpoint_varmass.c), discrete_gradient on (u, p) */
	if (pb->varmass && dense && !pb->M)
		return fail(err, 3, plan->model->kinetic_loc, "%s steps a mass depending on u with dense matrices, "
		            "up to %d unknowns (this model has %d): midpoint takes such a model at any size",
		            plan->scheme.name, (int)IR_DENSE_MAX, pb->N);
	if (pb->ncontact > 0 && !(e->caps & IR_SCHEME_CONTACTS))
		return fail(err, 3, plan->scheme.loc, "model %s has contacts, which %s does not enforce: "
		            "use paoli_schatzman or moreau_jean", plan->model->name, plan->scheme.name);
	if ((e->caps & IR_SCHEME_CRITICAL_STEP) && critical_step(pb, plan, e->caps, x, err))
		return 3;
	if (scheme_refuse_model(e->type, e->caps, pb, err)) {
		err->loc = plan->scheme.loc;
		return 3;
	}
	/* the discrete gradient balances energy exactly for any Φ and M(u);
	 * constraint forces λ·G Δu do their exact work only when G is
	 * constant, and ggl's correction Gᵀμ, which does work, vanishes
	 * then only for fixed constraints (G vᵏ = G vᵏ⁻¹ = 0 and G Δu = 0
	 * give G Gᵀμ = 0) */
	e->exact_balance = (e->caps & IR_SCHEME_EXACT_BALANCE) && (pb->nc == 0 || pb->ir->constraint_linear) &&
	                   !(plan->ggl && pb->nc > 0 && pb->ir->constraint_moving);
	/* on several processes, central differences may step each one's
	 * rows, without the serial stepper (and its Hessian's pattern) */
	if (part_nl_init(e, x))
		return fail(err, 3, plan->loc, "out of memory");
	struct nl_options opt = { plan->tolerance, plan->max_iterations, plan->regularized && pb->nc > 0,
	                          plan->ggl && pb->nc > 0, plan->scheme.name, plan->contact_tolerance,
	                          plan->contact_iterations, 0 };
	e->nst = e->pphi ? NULL : e->nl->alloc(pb, e->par, &opt, err);
	if (!e->nst && !e->pphi) {
		if (!err->msg[0])
			snprintf(err->msg, sizeof err->msg, "out of memory for the step");
		if (!err->loc.file)
			err->loc = plan->scheme.loc;
		return 3;
	}
	/* a replicated run on several processes (every process steps the
	 * whole model, the solves distributed: dyn(1), MPI) divides the
	 * evaluation of its energies' kernels, a finite element's cells,
	 * among them, with the serial bits on all (rt_kernels_split) */
	if (!e->pphi && la_mpi_size() > 1) {
		if (rt_kernels_split(&pb->kphi, la_mpi_rank(), la_mpi_size()) ||
		    rt_kernels_split(&pb->kpsi, la_mpi_rank(), la_mpi_size()))
			return fail(err, 3, plan->loc, "out of memory");
		e->split = pb;
	}
	e->save = mem_calloc((size_t)e->halvings + 1, sizeof(double *));
	if (!e->save)
		return fail(err, 3, plan->loc, "out of memory");
	for (int k = 0; k <= e->halvings; k++)
		if (!(e->save[k] = mem_calloc((size_t)(3 * n + 2 * pb->m + pb->nc + problem_nterm(pb)) + 1, sizeof(double))))
			return fail(err, 3, plan->loc, "out of memory");
	return 0;
}

/* One step from t0 to t1 = t₀ + kτ (computed by the caller, never
 * accumulated); tau is τ except on a shortened last step. */
static int engine_step(struct engine *e, double t0, double t1, double tau, struct rt_state *x, double *dW,
                       double *dD, double *dterm, struct rt_error *err)
{
	if (e->lin) {
		/* matrices only: the damping matrix is the one term */
		int rc = lin_step(e, t0, t1, tau, x, dW, dD, err);
		if (rc == 0 && problem_nterm(e->pb) > 0)
			dterm[problem_nterm(e->pb) - 1] += *dD;
		return rc;
	}
	if (e->pphi)
		return part_nl_step(e, t0, t1, tau, x, dW, dD, err);
	return nl_advance(e, t0, t1, tau, x, dW, dD, dterm, err, 0);
}

/* An equilibrium of a stiffness that is singular to rounding (a free
 * bar under a net load: a rigid-body mode whose pivot is 1e-16 of the
 * others, not 0) comes out huge, 2^51 on a three-cell bar, and Newton
 * accepts it: its residual is judged against the terms K_ij u_j that
 * cancel in it (stage.c), huge too.  Such terms are known to about ε of
 * themselves, so when they exceed the loads by 1/ε·1e-4 ≈ 4.5e11 the
 * rounding of their sum is beyond 1e-4 of the loads and the displacement
 * is not resolved to that; a stiff structure, K ~ 1e10 and u ~ 1e-3
 * under a load of 1e7, has terms the size of its loads.  The loads are
 * the forces at t0 (scale, their largest) and those a potential holds,
 * its gradient at u = 0 (gravity written as m g y: a spring hung under
 * it balances m g, whatever the force at t0, which may be 0 to rounding,
 * sin(2π·1)).  The terms are those of the Hessian at the equilibrium
 * (problem_phi_terms), by dof; *R the largest over the loads and *dof
 * its dof when beyond the bound (-1 otherwise, or when there are no
 * loads).  0, or -1 when out of memory. */
static int equilibrium_cancellation(struct rt_problem *pb, const struct rt_state *x, double scale, double *R,
                                    int *dof)
{
	int n = pb->n, N = pb->N;
	double *w = mem_calloc((size_t)N + 1, sizeof(double)), *y = mem_calloc((size_t)N + 1, sizeof(double));
	if (!w || !y) {
		free(w);
		free(y);
		return -1;
	}
	*dof = -1;
	*R = 0;
	/* ∇Φ(0, z) into y, w = 0 */
	problem_phi(pb, w, x->z, y);
	for (int i = 0; i < n; i++)
		if (isfinite(y[i]))
			scale = fmax(scale, fabs(y[i]));
	memcpy(w, x->u, sizeof(double) * (size_t)n);
	if (N > n)
		memcpy(w + n, x->z, sizeof(double) * (size_t)(N - n));
	memset(y, 0, sizeof(double) * (size_t)N);
	problem_phi(pb, x->u, x->z, NULL);
	problem_phi_terms(pb, w, y);
	int at = 0;
	for (int i = 0; i < n && scale > 0; i++)
		if (y[i] / scale > *R) {
			*R = y[i] / scale;
			at = i;
		}
	if (*R > 1e-4 / DBL_EPSILON)
		*dof = at;
	free(w);
	free(y);
	return 0;
}

/* A free body under loads that balance (a bar pulled at both ends, no
 * fix): the stiffness is singular to rounding, the system consistent,
 * and Newton returns the equilibrium plus an arbitrary part of the
 * rigid motion (u(0) = -2.03 on a free bar of 33 cells whose elongation
 * was right).  Inverse iteration with the step's last factor finds the
 * softest direction z of the Jacobian J; when |J z| is within 64 ε of
 * its terms Σ_j |J_ij| |z_j|, z is a motion J does not see, to rounding
 * (a rigid mode gives a few ε; a stiff link of 1e12 beside a unit spring
 * 1e-12).  Without constraints (their saddle point holds such motions or
 * refuses them itself).  0 with *dof the dof z moves most, or -1 there
 * when J holds every motion; -1 out of memory. */
static int equilibrium_null(struct stage *st, struct rt_problem *pb, const struct rt_state *x, int *dof)
{
	int n = pb->n, N = pb->N;
	*dof = -1;
	if (st->nc || st->NT != N)
		return 0;
	double *z = mem_calloc((size_t)N + 1, sizeof(double)), *y = mem_calloc((size_t)N + 1, sizeof(double));
	if (!z || !y) {
		free(z);
		free(y);
		return -1;
	}
	for (int i = 0; i < n; i++)
		z[i] = 0.5 + sin(1.7 * (i + 1));
	double g = 0;
	for (int it = 0; it < 4; it++) {
		double mx = 0;
		for (int i = 0; i < N; i++)
			mx = fmax(mx, fabs(z[i]));
		if (!(mx > 0) || !isfinite(mx))
			break;
		for (int i = 0; i < N; i++)
			z[i] /= mx;
		newton_factored_solve(st->nw, z);
		g = 0;
		for (int i = 0; i < N; i++)
			g = fmax(g, fabs(z[i]));
	}
	/* J z is the iterate before, of max-norm 1, over g: |J z| = 1/g for
	 * z scaled to max-norm 1 */
	if (g > 0 && isfinite(g)) {
		for (int i = 0; i < N; i++)
			z[i] /= g;
		problem_phi(pb, x->u, x->z, NULL);
		problem_phi_terms(pb, z, y);
		double terms = 0, big = 0;
		int at = 0;
		for (int i = 0; i < n; i++) {
			terms = fmax(terms, fabs(st->wu) * y[i]);
			if (fabs(z[i]) > big) {
				big = fabs(z[i]);
				at = i;
			}
		}
		if (1 / g <= 64 * DBL_EPSILON * terms)
			*dof = at;
	}
	free(z);
	free(y);
	return 0;
}

/* init equilibrium (run.h) */
int rt_equilibrium(struct rt_problem *pb, double t0, double tol, int maxit, struct rt_state *x, struct rt_error *err)
{
	const struct ir_loc at = pb->ir->init_loc;
	struct stage st;
	if (stage_alloc(&st, pb))
		return fail(err, 3, at, "out of memory");
	double *zero = mem_calloc((size_t)pb->N + 1, sizeof(double));
	if (!zero) {
		stage_free(&st);
		return fail(err, 3, at, "out of memory");
	}
	problem_load(pb, t0, st.e);
	for (int k = 0; k < pb->N; k++)
		st.e[k] = -st.e[k];
	double scale = 0;
	for (int k = 0; k < pb->n; k++)
		scale = fmax(scale, fabs(st.e[k]));
	st.u0 = x->u;
	st.cu = 1;
	st.v0 = zero;
	st.cv = 0;
	st.cm = 0;
	st.z0 = x->z;
	st.zd0 = zero;
	st.solve_z = 0;
	st.tol = tol;
	st.maxit = maxit;
	int iters;
	double res;
	/* With a mass depending on u the support's load −M(u) d a(t0)
	 * depends on the equilibrium sought (dyn(5), "support"): solved
	 * for again at the last solution until u settles, at most
	 * EQ_SUPPORT_MAX times (a contraction while that load varies slowly
	 * with u against the stiffness); 0 solves otherwise. */
	enum { EQ_SUPPORT_MAX = 100 };
	double ag = pb->varmass ? problem_support(pb, t0) : 0;
	int rounds = ag != 0 ? EQ_SUPPORT_MAX : 1, settled = ag == 0, rc = 0;
	la_backend_failure();   /* an earlier run's is not this one's */
	double *f0 = ag != 0 ? mem_calloc((size_t)pb->N + 1, sizeof(double)) : NULL;
	if (ag != 0 && !f0)
		rc = -4;
	else if (f0)
		memcpy(f0, st.e, sizeof(double) * (size_t)pb->N);
	for (int q = 0; q < rounds && rc == 0 && !(q > 0 && settled); q++) {
		if (ag != 0) {
			/* e = −(f + f_s(u)), f_s = −M(u) d a */
			memcpy(st.e, f0, sizeof(double) * (size_t)pb->N);
			memset(zero, 0, sizeof(double) * (size_t)pb->N);
			problem_support_load(pb, x->u, ag, zero);
			for (int k = 0; k < pb->n; k++) {
				st.e[k] -= zero[k];
				scale = fmax(scale, fabs(st.e[k]));
			}
			memset(zero, 0, sizeof(double) * (size_t)pb->N);
		}
		rc = stage_solve(&st, scale > 0 ? scale : 1, &iters, &res);
		if (rc != 0 && rc != -4 && q > 0) {
			/* the load moved the equilibrium away: no fixed point */
			rc = 0;
			break;
		}
		if (rc == 0) {
			double du = 0, un = 0;
			for (int k = 0; k < pb->n; k++) {
				du = fmax(du, fabs(st.u[k] - x->u[k]));
				un = fmax(un, fabs(st.u[k]));
			}
			if (!isfinite(du + un))
				break;
			settled = settled || du <= 1e-13 * (1 + un);
			memcpy(x->u, st.u, sizeof(double) * (size_t)pb->n);
			memset(x->v, 0, sizeof(double) * (size_t)pb->n);
		}
	}
	free(f0);
	int null = -1;
	if (rc == 0 && settled && equilibrium_null(&st, pb, x, &null) < 0)
		rc = -4;
	stage_free(&st);
	free(zero);
	if (rc == 0 && settled) {
		int dof = -1;
		double R = 0;
		if (equilibrium_cancellation(pb, x, scale, &R, &dof) < 0)
			return fail(err, 3, at, "out of memory");
		if (dof >= 0) {
			char nm[IR_NAME_SIZE];
			return fail(err, 3, at,
			            "init equilibrium: the stiffness at the start is singular or too ill-conditioned for an "
			            "equilibrium (a mechanism, a rigid-body motion that no fix or support holds, or a "
			            "condition number near 1/eps): the displacement found (%.3g at dof %s) balances the loads "
			            "only by terms %.1e times larger than them, whose rounding is beyond 1e-4 of the loads",
			            x->u[dof], ir_dof_name(pb->ir, dof, nm, sizeof nm), R);
		}
		/* the loads balance (no such cancellation), along a motion the
		 * stiffness does not see (equilibrium_null) */
		if (null >= 0) {
			char nm[IR_NAME_SIZE];
			return fail(err, 3, at,
			            "init equilibrium: the loads balance, but the stiffness at the start is singular: a "
			            "rigid-body motion or a mechanism that no fix or constraint holds (dof %s moves most along "
			            "it) leaves them balanced, so the equilibrium is known only up to that motion; hold the "
			            "body (fix, constraint)", ir_dof_name(pb->ir, null, nm, sizeof nm));
		}
	}
	if (rc == 0 && !settled)
		return fail(err, 3, at,
		            "init equilibrium: with a mass depending on u the support's load -M(u) d a(t0) moves the "
		            "equilibrium it is solved at, and up to %d solves did not settle it (is there an equilibrium "
		            "under that acceleration?)", (int)EQ_SUPPORT_MAX);
	if (rc == -4)
		return fail(err, 3, at, "out of memory");
	if (rc == -2)
		return fail(err, 3, at,
		            "init equilibrium: the stiffness is singular at the start (after %d iteration%s)",
		            iters, iters == 1 ? "" : "s");
	/* a backend's failed solve (PETSc's reason) left NaN: its reason
	 * names the failure better than the NaN */
	const char *why = rc ? la_backend_failure() : NULL;
	if (why)
		return fail(err, 3, at, "init equilibrium: %s", why);
	if (rc)
		return fail(err, 3, at,
		            "init equilibrium: Newton %s after %d iteration%s, residual %.2g "
		            "(is the model stable under the loads at t0?)", isfinite(res) ? "did not converge" : "diverged",
		            iters, iters == 1 ? "" : "s", res);
	return 0;
}

/* The histories a run keeps (ir_keep, dyn(5) "Results"): the series the
 * script reads back, each at every step, and nothing else; memory is
 * O(what is kept), not O(dofs × steps).  At the REPL (keep.all) every
 * series, and every dof within history_budget, beyond it the recorded
 * ones.  The times are kept when anything is.  What they take is refused
 * before anything is allocated when beyond plan->memory_limit: a run
 * that outgrows the memory is killed by the system (or swaps for hours)
 * after it has computed much. */
static int alloc_history(struct rt_result *res, const struct ir_run *plan, int n, int m, int N, struct rt_error *err)
{
	const struct ir_keep *kp = &plan->keep;
	res->ndof = n;
	res->nint = m;
	res->history_bytes = sizeof(double) * (size_t)(N + 1) * (size_t)(3 * n + 2 * m);
	res->kept_all = kp->all && res->history_bytes <= plan->history_budget;
	int ncol = 0;
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			ncol += plan->output[o].record[j].kind == IR_REC_EXPR;
	res->z = mem_calloc((size_t)m + 1, sizeof(double *));
	res->zd = mem_calloc((size_t)m + 1, sizeof(double *));
	res->dterm = mem_calloc((size_t)res->nterm + 1, sizeof(double *));
	res->lam = mem_calloc((size_t)res->nlam + 1, sizeof(double *));
	res->col = mem_calloc((size_t)ncol + 1, sizeof(double *));
	res->col_name = mem_calloc((size_t)ncol + 1, sizeof(char *));
	char *keep = mem_calloc((size_t)(n + m + ncol) + 1, 1);
	if (!res->z || !res->zd || !res->dterm || !res->lam || !res->col ||
	    !res->col_name || !keep) {
		free(keep);
		return fail(err, 3, plan->model->loc, "out of memory for the history");
	}
	/* keep[i]: dof i; keep[n + j]: internal variable j; keep[n + m + c]:
	 * recorded expression c */
	double series = 0;
	for (int i = 0; i < n + m; i++)
		keep[i] = kp->all ? res->kept_all : i < n ? kp->dof[i] : kp->intvar[i - n];
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++) {
			const struct ir_record *r = &plan->output[o].record[j];
			if (r->kind == IR_REC_EXPR)
				res->col_name[res->ncol++] = r->name;
			else if (kp->all && r->kind == IR_REC_U)
				keep[r->dof] = 1;
			else if (kp->all && r->kind == IR_REC_Z)
				keep[n + r->dof] = 1;
		}
	for (int c = 0; c < ncol; c++)
		keep[n + m + c] = kp->all || kp->col[c];
	for (int i = 0; i < n + m + ncol; i++)
		series += keep[i] ? (i < n ? 3 : i < n + m ? 2 : 1) : 0;
	unsigned energy = kp->all ? (1u << RT_NENERGY) - 1 : kp->energy;
	int dterm = kp->all || kp->dterm, lam = kp->all || kp->lam;
	for (int e = 0; e < RT_NENERGY; e++)
		series += energy >> e & 1;
	series += dterm * res->nterm + lam * res->nlam;
	int keep_t = series > 0 || kp->t || kp->all;
	series += keep_t;
	double bytes = sizeof(double) * ((double)N + 1) * series;
	if (plan->memory_limit != 0 && bytes > (double)plan->memory_limit) {
		free(keep);
		return fail(err, 3, plan->loc, "this run would keep %.0f MB of histories (%d steps, %.0f series), "
		            "more than the memory limit of %.0f MB%s: take a larger step or a shorter run, record "
		            "fewer quantities, or set the limit with --memory-limit MB", ceil(bytes / 1e6), N, series,
		            floor((double)plan->memory_limit / 1e6),
		            plan->memory_limit_default ? " (half the physical memory)" : "");
	}
	size_t len = sizeof(double) * (size_t)(N + 1);
	int bad = keep_t && !(res->t = mem_alloc(len));
	/* the dofs' series by dof only when one is kept (else res->u, v
	 * and a stay NULL): 24 bytes per dof less for a large model whose
	 * run is only recorded */
	int anydof = 0;
	for (int i = 0; i < n && !anydof; i++)
		anydof = keep[i];
	if (anydof && !bad) {
		res->u = mem_calloc((size_t)n + 1, sizeof(double *));
		res->v = mem_calloc((size_t)n + 1, sizeof(double *));
		res->a = mem_calloc((size_t)n + 1, sizeof(double *));
		bad = !res->u || !res->v || !res->a;
	}
	for (int i = 0; i < n && !bad && anydof; i++)
		if (keep[i])
			bad = !(res->u[i] = mem_alloc(len)) || !(res->v[i] = mem_alloc(len)) || !(res->a[i] = mem_alloc(len));
	for (int j = 0; j < m && !bad; j++)
		if (keep[n + j])
			bad = !(res->z[j] = mem_alloc(len)) || !(res->zd[j] = mem_alloc(len));
	for (int e = 0; e < RT_NENERGY && !bad; e++)
		if (energy >> e & 1)
			bad = !(res->energy[e] = mem_alloc(len));
	for (int k = 0; k < res->nterm && dterm && !bad; k++)
		bad = !(res->dterm[k] = mem_alloc(len));
	for (int k = 0; k < res->nlam && lam && !bad; k++)
		bad = !(res->lam[k] = mem_alloc(len));
	for (int c = 0; c < ncol && !bad; c++)
		if (keep[n + m + c])
			bad = !(res->col[c] = mem_alloc(len));
	free(keep);
	/* the advice that can help: history_budget only bounds what is kept
	 * when every dof's history is (kept_all) */
	if (bad)
		return fail(err, 3, plan->loc, "out of memory for the histories of this run (%.0f MB for %d steps): "
		            "take a larger step or a shorter run, or record fewer quantities%s", ceil(bytes / 1e6), N,
		            res->kept_all ? ", or lower history_budget (every dof's history is kept within it)" : "");
	return 0;
}

/* The registers and the row of each record clause; the files are opened
 * later (open_files), once every check before the first step has passed,
 * so that a refused run leaves the files it names as they were. */
static int alloc_outputs(struct output *outs, const struct ir_run *plan, const struct rt_result *res,
                         struct rt_error *err)
{
	for (int o = 0, c = 0; o < plan->noutput; o++) {
		const struct ir_output *po = &plan->output[o];
		outs[o].o = po;
		outs[o].col0 = c;
		for (int j = 0; j < po->nrecord; j++)
			if (po->record[j].kind == IR_REC_EXPR && res->col[c++])
				outs[o].kept = 1;
		outs[o].reg = mem_calloc((size_t)po->nrecord + 1, sizeof(double *));
		outs[o].val = mem_calloc((size_t)po->nrecord + 1, sizeof(double));
		if (!outs[o].reg || !outs[o].val)
			return fail(err, 3, po->loc, "out of memory");
		for (int j = 0; j < po->nrecord; j++)
			if (po->record[j].kind == IR_REC_EXPR &&
			    !(outs[o].reg[j] = mem_calloc((size_t)po->record[j].expr->n + 1, sizeof(double))))
				return fail(err, 3, po->loc, "out of memory");
	}
	return 0;
}

static int open_files(struct output *outs, const struct ir_run *plan, struct rt_error *err)
{
	for (int o = 0; o < plan->noutput; o++) {
		const struct ir_output *po = &plan->output[o];
		if (!po->path)
			continue;
		if (rt_outfile_open(&outs[o].file, po->path) != 0) {
			char name[256];
			int e = errno;
			for (int q = 0; q < o; q++)
				if (outs[q].f) {
					rt_outfile_discard(&outs[q].file);
					outs[q].f = NULL;
				}
			return fail(err, 3, po->loc, "cannot write '%s': %s", rt_escape(name, sizeof name, po->path),
			            strerror(e));
		}
		outs[o].f = outs[o].file.f;
		for (int j = 0; j < po->nrecord; j++)
			fprintf(outs[o].f, "%s%s", j ? "," : "", po->record[j].name);
		fputc('\n', outs[o].f);
	}
	return 0;
}

/* A run in progress: everything rt_run needs between steps, so that the
 * REPL can advance a run a few steps at a time (:step, :run). */
struct rt_stepper_run {
	const struct ir_run *plan;
	struct rt_problem pb;
	int pb_ok;
	struct engine eng;
	struct nl_common nc;
	struct rt_result *res;
	struct output *outs;
	struct rt_field_out *fouts;   /* plan->nfield_output field records */
	double *buf, *prev, *dterm, *Dterm;
	int *kept, nkept;        /* the dofs whose u, v, a histories are kept */
	struct rt_state x;
	struct rt_state xprev;   /* in prev: the state of step k − 1 */
	struct state s;
	double T0, P0, D, W;
	double E1;             /* T + |Φ| at the first step where it is not 0 */
	int k, status, done;
	int interrupted;       /* status is 128 + a signal: rt_resume clears it */
	int state_valid;       /* x holds step k (not a failed attempt) */
	int lone_failure;      /* a failure of this process alone (a file) */
	int shared;            /* other processes share its solves or rows
	                          (run_shared): failures are agreed on */
	int failed_field;      /* the field record that field_rows could not
	                          write, or -1 */
};

static int part_plan_rows(struct rt_stepper_run *r);

volatile sig_atomic_t rt_interrupted;
volatile sig_atomic_t rt_signal;
volatile sig_atomic_t rt_running;
volatile sig_atomic_t rt_stepping;

/* Store row k of the histories and write it to the records.  Returns
 * the index of a record whose file could not be written, or -1. */
static int store_row(struct rt_stepper_run *r)
{
	const struct ir_run *plan = r->plan;
	struct rt_result *res = r->res;
	int k = r->k, nz = r->pb.m, N = plan->nstep;
	if (res->t)
		res->t[k] = r->s.t;
	for (int q = 0; q < r->nkept; q++) {
		int i = r->kept[q];
		res->u[i][k] = r->x.u[i];
		res->v[i][k] = r->x.v[i];
		res->a[i][k] = r->x.a[i];
	}
	for (int j = 0; j < nz; j++)
		if (res->z[j]) {
			res->z[j][k] = r->x.z[j];
			res->zd[j][k] = r->x.zd[j];
		}
	for (int e = 0; e < RT_NENERGY; e++)
		if (res->energy[e])
			res->energy[e][k] = r->s.energy[e];
	for (int q = 0; q < res->nterm; q++)
		if (res->dterm[q])
			res->dterm[q][k] = r->Dterm[q];
	for (int q = 0; q < res->nlam; q++)
		if (res->lam[q])
			res->lam[q][k] = r->x.lam[q];
	int bad = -1;
	for (int o = 0; o < plan->noutput; o++) {
		struct output row = r->outs[o];
		if (!(k == 0 || k == N || k % r->outs[o].o->every == 0))
			row.f = NULL;
		/* a row is computed when written or kept (its columns' VM
		 * programs are the cost of a step with records) */
		if (!row.f && !r->outs[o].kept)
			continue;
		write_row(&r->s, &row, plan->model->table, r->pb.hint);
		/* a full disk is found at the step it happens, not at the end */
		if (row.f && bad < 0 && rt_outfile_check(&r->outs[o].file))
			bad = o;
		for (int j = 0, c = r->outs[o].col0; j < r->outs[o].o->nrecord; j++)
			if (r->outs[o].o->record[j].kind == IR_REC_EXPR && res->col[c++])
				res->col[c - 1][k] = r->outs[o].val[j];
	}
	res->nstep = k;
	return bad;
}

/* The field records of step k (fe_output.h): a file that cannot be
 * written stops the run (exit 4) at that step. */
static int field_rows(struct rt_stepper_run *r, struct rt_error *err)
{
	for (int o = 0; o < r->plan->nfield_output && r->fouts; o++) {
		char msg[400];
		if (rt_field_out_step(&r->fouts[o], r->k, r->plan->nstep, r->s.t, r->x.u, msg, sizeof msg)) {
			r->lone_failure = 1;
			r->failed_field = o;
			return r->status = fail(err, 4, r->plan->field_output[o].loc, "t = %.10g (step %d): %s", r->s.t,
			                        r->k, msg);
		}
	}
	return 0;
}

/* Whether other processes share this run's solves (PETSc's backends) or
 * its rows (a row split): they then wait in collective operations for
 * this one, and a failure of one process alone would leave them waiting
 * while it frees its part of the solver (collective too: MUMPS).  Such
 * a run agrees on its failures (shared_failure). */
static int run_shared(const struct rt_stepper_run *r)
{
	const struct rt_problem *pb = &r->pb;
	/* kernels divided among the processes (rt_kernels_split) make each
	 * evaluation collective: a process that stopped alone would leave
	 * the others waiting in it */
	return la_mpi_size() > 1 && (pb->backend == LA_PETSC_DIRECT || pb->backend == LA_PETSC_ITERATIVE ||
	                             pb->backend_mpi || r->eng.part || pb->kphi.split || pb->kpsi.split);
}

/* Whether step k writes a record's row or a field's frame: the steps at
 * which a file can fail, from the plan (the same on every process) */
static int output_due(const struct rt_stepper_run *r, int k)
{
	const struct ir_run *plan = r->plan;
	if (k == 0 || k == plan->nstep)
		return 1;
	for (int o = 0; o < plan->noutput; o++)
		if (plan->output[o].path && k % plan->output[o].every == 0)
			return 1;
	for (int o = 0; o < plan->nfield_output; o++)
		if (k % (plan->field_output[o].every > 0 ? plan->field_output[o].every : 1) == 0)
			return 1;
	return 0;
}

/* A shared run's failure to open or write a file, which one process
 * meets alone (rank 0 writes the records, each process its piece of a
 * field), made every process's at the point where all of them check:
 * each says whether it failed, and those that did not stop too, with
 * status code, so that all of them end the run together (its records
 * whole) instead of waiting for each other.  The process that failed
 * has its own message; rank 0, when another failed, names the piece
 * that process could not write.  Returns whether the run stops. */
static int shared_failure(struct rt_stepper_run *r, int failed, int code, struct rt_error *err)
{
	if (!r->shared)
		return failed;
	double x[3] = { failed, failed ? la_mpi_rank() : 0, failed && r->failed_field >= 0 ? r->failed_field + 1 : 0 };
	if (la_mpi_sum(x, 3)) {
		if (!failed)
			r->status = fail(err, code, r->plan->loc, "t = %.10g (step %d): MPI failed to agree on the files "
			                 "of the processes", r->s.t, r->k);
		return 1;
	}
	if (x[0] == 0)
		return 0;
	/* every process stops here: none is left alone in a collective */
	r->lone_failure = 0;
	if (failed)
		return 1;
	int q = (int)x[1], o = (int)x[2] - 1;
	const char *piece = x[0] == 1 && o >= 0 ? rt_field_out_piece(&r->fouts[o], q) : NULL;
	char name[256], msg[400];
	if (piece)
		r->status = fail(err, code, r->plan->field_output[o].loc, "t = %.10g (step %d): the process of rank %d "
		                 "could not write its piece '%s' of the field record", r->s.t, r->k, q,
		                 rt_escape(name, sizeof name, piece));
	else
		r->status = fail(err, code, r->plan->loc, "t = %.10g (step %d): %.0f other process%s could not write "
		                 "their files", r->s.t, r->k, x[0], x[0] == 1 ? "" : "es");
	/* its series ends with the frame before, whose pieces are whole, as
	 * when the file of a single process fails (not with this step's,
	 * which ParaView could not open), and so do the later series, which
	 * that process did not write (field_rows stops at its failure); of
	 * several processes' failures, some of them pieces (x[2] sums their
	 * fields), every series */
	for (int f = 0; x[2] > 0 && f < r->plan->nfield_output; f++)
		if ((!piece || f >= o) && rt_field_out_drop(&r->fouts[f], r->k, msg, sizeof msg))
			r->status = fail(err, code, r->plan->field_output[f].loc, "t = %.10g (step %d): %s", r->s.t, r->k,
			                 msg);
	return 1;
}

/* A record file that could not be written stops the run (exit 4) at the
 * step where the write failed; its file keeps the rows written whole. */
/* A record that cannot be written stops the run at this step.  stdio
 * saw the failure when it flushed its buffer, so the file (committed
 * now, cut after its last whole row: outfile.c) ends some rows before
 * this step, while the other records end at it: the message says which
 * row the file ends with (its rows are those of steps 0, every, 2 every,
 * ..., after a header line). */
static int write_failed(struct rt_stepper_run *r, int o, struct rt_error *err)
{
	r->lone_failure = 1;
	char name[256], ends[128] = "";
	const struct ir_output *po = r->outs[o].o;
	const struct ir_run *plan = r->plan;
	rt_outfile_commit(&r->outs[o].file);
	r->outs[o].f = NULL;
	long lines = rt_outfile_lines(&r->outs[o].file);
	if (lines == 1)
		snprintf(ends, sizeof ends, "; it holds its header alone");
	else if (lines > 1) {
		long s = (lines - 2) * (long)po->every;
		if (s > r->k)
			s = r->k;
		double ts = s == plan->nstep ? plan->t1 : plan->t0 + (double)s * plan->dt;
		snprintf(ends, sizeof ends, "; it ends with the row of t = %.10g (step %ld)", ts, s);
	}
	return r->status = fail(err, 4, po->loc, "t = %.10g (step %d): cannot write '%s': %s%s", r->s.t, r->k,
	                        rt_escape(name, sizeof name, po->path), strerror(r->outs[o].file.err), ends);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGXCPU: return "SIGXCPU";
	default: return "SIGINT";
	}
}

/* A handled signal stops the run after its current step with status
 * 128 + the signal's number (130 for SIGINT, as shells report it). */
/* Whether a shared run (run_shared) stops at this step for a signal
 * that any of its processes received: all of them decide it here, so that
 * none is left in the next step's solve while the others free theirs
 * (mpirun forwards Ctrl-C as SIGTERM to each process, which receive it
 * at different steps).  The signal is then the same on every process:
 * the first of SIGINT, SIGTERM, SIGHUP, SIGXCPU that one received. */
static int shared_stop(void)
{
	double x[4];
	signal_slots(x);
	if (la_mpi_sum(x, 4))
		return rt_interrupted != 0;
	return signal_agree(x);
}

static int interrupted(struct rt_stepper_run *r, struct rt_error *err)
{
	int sig = rt_signal ? rt_signal : SIGINT;
	rt_interrupted = 0;
	rt_signal = 0;
	r->interrupted = 1;
	if (sig == SIGINT)
		return fail(err, 130, r->plan->loc, "interrupted at t = %.10g (step %d of %d)", r->s.t, r->k,
		            r->plan->nstep);
	return fail(err, 128 + sig, r->plan->loc, "stopped by %s at t = %.10g (step %d of %d)", signal_name(sig),
	            r->s.t, r->k, r->plan->nstep);
}

/* An initial acceleration without a value, with finite loads (a load
 * without one is named by the first step, load_not_finite): the energy
 * derivative that has none at the initial state is named, rather than
 * the first step's Newton failure at a NaN predictor.  4 with err set,
 * or 0. */
static int acceleration_not_finite(struct rt_stepper_run *r, struct rt_error *err)
{
	const struct rt_problem *pb = &r->pb;
	const struct ir_model *m = r->plan->model;
	const struct nl_common *c = &r->nc;
	int n = pb->n;
	/* a PETSc solve that failed is named here with its reason
	 * (la_backend_failure): the first step's solve, given its NaN,
	 * reported only "a right-hand side that is not finite" */
	if (pb->backend == LA_PETSC_DIRECT || pb->backend == LA_PETSC_ITERATIVE || pb->backend_mpi) {
		const char *why = la_backend_failure();
		if (why)
			return fail(err, 4, r->plan->loc, "t = %.10g: the initial acceleration: %s", r->plan->t0, why);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (!isfinite(c->f1[i]))
			return 0;
	/* an internal variable's equation (∂Φ/∂z + ∂Ψ/∂ż = g) with no value
	 * at the initial state: Φ = sqrt(p) at p = 0.  No acceleration shows
	 * it, and the schemes' first Newton solve, whose Jacobian is then
	 * infinite there, "converged" to a step that did not move (dof or
	 * internal variable alike) */
	for (int j = 0; j < pb->m; j++) {
		char nm[IR_NAME_SIZE];
		const char *z = ir_unknown_name(m, n + j, nm, sizeof nm);
		if (!isfinite(c->g[n + j]) && m->potential)
			return fail(err, 4, m->potential->loc, "t = %.10g: the potential's derivative in %s is %s at the "
			            "initial state (%s = %.10g): its equation has no value there", r->plan->t0, z,
			            isnan(c->g[n + j]) ? "NaN" : "infinite", z, r->x.z[j]);
		if (!isfinite(c->gu[n + j]) && m->dissipation) {
			char hint[2 * IR_NAME_SIZE + 128] = "";
			if (r->x.zd[j] == 0)
				snprintf(hint, sizeof hint, "; a term like sqrt(%s'^2) has no derivative at %s' = 0 (a "
				         "rate-independent term is c*abs(%s'))", z, z, z);
			return fail(err, 4, m->dissipation->loc, "t = %.10g: the dissipation's derivative in %s' is %s at "
			            "the initial state (%s' = %.10g): its equation has no value there%s", r->plan->t0, z,
			            isnan(c->gu[n + j]) ? "NaN" : "infinite", z, r->x.zd[j], hint);
		}
	}
	for (int i = 0; i < n; i++) {
		if (isfinite(r->x.a[i]))
			continue;
		char nm[IR_NAME_SIZE];
		const char *dof = ir_dof_name(m, i, nm, sizeof nm);
		const char *what = isnan(r->x.a[i]) ? "NaN" : "infinite";
		if (!pb->varmass && !isfinite(c->g[i]) && m->potential)
			return fail(err, 4, m->potential->loc, "t = %.10g: the initial acceleration of %s is %s: the "
			            "potential's derivative in %s has no value at the initial state (%s = %.10g)",
			            r->plan->t0, dof, what, dof, dof, r->x.u[i]);
		if (!pb->varmass && !isfinite(c->gu[i]) && m->dissipation)
			return fail(err, 4, m->dissipation->loc, "t = %.10g: the initial acceleration of %s is %s: the "
			            "dissipation's derivative in %s' has no value at the initial state (%s' = %.10g)%s",
			            r->plan->t0, dof, what, dof, dof, r->x.v[i],
			            r->x.v[i] == 0 ? "; a term like sqrt(u'^2) has no derivative at u' = 0 "
			                             "(dry friction is c*abs(u')), nor one whose coefficient "
			                             "overflows (beyond 1.8e308)" : "");
		if (pb->varmass)
			return fail(err, 4, m->kinetic_loc, "t = %.10g: the initial acceleration of %s is %s: the kinetic "
			            "energy's derivatives have no value at the initial state (%s = %.10g, %s' = %.10g)",
			            r->plan->t0, dof, what, dof, r->x.u[i], dof, r->x.v[i]);
		/* a constant mass, finite loads and derivatives: the solve's
		 * numbers overflowed (a force of 1e300 against a mass of
		 * 1e-300) */
		return fail(err, 4, r->plan->loc, "t = %.10g: the initial acceleration of %s is %s: the forces against "
		            "the mass overflow the doubles (beyond 1.8e308); scale the model's units", r->plan->t0, dof,
		            what);
	}
	return 0;
}

/* The initial acceleration: the equation of motion solved at t₀.
 * release: the linear path's step matrix does every solve from there
 * on, and the mass's factor and the acceleration's buffers are done
 * with.  0, 3 or 4 with err set. */
static int initial_acceleration(struct rt_stepper_run *r, int release, struct rt_error *err)
{
	if ((release ? nl_common_alloc_accel : nl_common_alloc)(&r->nc, &r->pb))
		return fail(err, 3, r->plan->model->loc, "out of memory");
	nl_acceleration(&r->nc, r->plan->t0, &r->x);
	if (acceleration_not_finite(r, err))
		return err->code;
	nl_resting_acceleration(&r->nc, &r->x);
	if (release) {
		la_solver_free(r->pb.Mf);
		r->pb.Mf = NULL;
		nl_common_trim(&r->nc);
	}
	return 0;
}

struct rt_stepper_run *rt_begin(const struct ir_run *plan, struct rt_result **resp, struct rt_error *err)
{
	const struct ir_model *m = plan->model;
	int N = plan->nstep;
	memset(err, 0, sizeof *err);
	struct rt_stepper_run *r = mem_calloc(1, sizeof *r);
	struct rt_result *res = mem_calloc(1, sizeof *res);
	*resp = res;
	if (!r || !res) {
		free(r);
		fail(err, 3, m->loc, "out of memory");
		return NULL;
	}
	r->plan = plan;
	r->res = res;
	r->outs = mem_calloc((size_t)plan->noutput + 1, sizeof *r->outs);
	if (problem_init_releasing(&r->pb, plan->model, plan->solver, err) != 0) {
		r->status = 3;
		return r;
	}
	/* auto's Newton Jacobian takes the form its structure calls for;
	 * on several processes, a model on a mesh of more than IR_DENSE_MAX
	 * unknowns has it PETSc's (backend_mpi), as its linear solves are
	 * (dyn(1), MPI).  Below, each process solves the whole Newton
	 * system as one would: MUMPS's start and messages cost more than
	 * the factorization there (a 40-cell plastic bar took 201 s on two
	 * processes against 21 s) */
	r->pb.jac_auto = (plan->solver == IR_SOLVER_AUTO || plan->solver_auto) &&
	                 !(r->pb.backend_mpi && r->pb.N > IR_DENSE_MAX);
	r->pb_ok = 1;
	/* K (and C = a0 M + a1 K) held by columns on each process, for a run
	 * that turns out not to step by rows: the serial matrices, gathered
	 * by every process at the same point */
	/* ... or, for an implicit run that steps them by columns, M and C
	 * too, and K without the other columns' partial sums */
	int parts = parts_wanted(&r->pb, plan);
	if (parts && (la_mat_part_restrict(&r->pb.Km, &r->pb.Km) || la_mat_part_restrict(&r->pb.Mm, &r->pb.Km) ||
	              (r->pb.hasC && la_mat_part_restrict(&r->pb.Cm, &r->pb.Km)))) {
		r->status = fail(err, 3, m->loc, "out of memory for the operators of model %s", m->name);
		return r;
	}
	if (!parts && (r->pb.Km.part || r->pb.Cm.part) && (!part_wanted(&r->pb, plan) || m->init_equilibrium)) {
		/* compressed columns: problem_init's storage for a mesh's
		 * model on several processes (its solver is PETSc's) */
		if ((r->pb.Km.part && la_mat_part_complete(&r->pb.Km, LA_MAT_CSC)) ||
		    (r->pb.Cm.part && la_mat_part_complete(&r->pb.Cm, LA_MAT_CSC))) {
			r->status = fail(err, 3, m->loc, "out of memory, or MPI failed, gathering the operators of "
			                 "model %s", m->name);
			return r;
		}
	}
	/* The problem holds its own M, C and K now: the plan's entries of
	 * large operators went back to the lowering's arena as each was
	 * built (ir.h, ir_matrix_release); a damping that problem_init did
	 * not build (zero) goes too, before the step matrix and its factor
	 * are built beside them. */
	ir_matrix_release(&plan->model->mass);
	ir_matrix_release(&plan->model->damping);
	ir_matrix_release(&plan->model->stiffness);
	int n = r->pb.n, nz = r->pb.m;
	int nc = r->pb.nc, nk = m->contact.n;
	/* the state's multipliers: the constraints', then the contacts'
	 * impulses of the step (written by the nonsmooth schemes), then with
	 * friction at contacts their tangential impulses' magnitudes */
	int nkt = m->contact.friction ? nk : 0;
	r->buf = mem_calloc((size_t)(3 * n + 2 * nz + nc + nk + nkt) + 1, sizeof(double));
	r->prev = mem_calloc((size_t)(3 * n + 2 * nz + nc + nk + nkt) + 1, sizeof(double));
	res->nterm = problem_nterm(&r->pb);
	res->nlam = nc + nk + nkt;
	res->nimp = nk;
	res->nimpt = nkt;
	r->dterm = mem_calloc((size_t)res->nterm + 1, sizeof(double));
	r->Dterm = mem_calloc((size_t)res->nterm + 1, sizeof(double));
	if (!r->outs || !r->buf || !r->prev || !r->dterm || !r->Dterm) {
		r->status = fail(err, 3, m->loc, "out of memory");
		return r;
	}
	struct rt_state x = { r->buf, r->buf + n, r->buf + 2 * n, r->buf + 3 * n, r->buf + 3 * n + nz,
	                      r->buf + 3 * n + 2 * nz };
	r->x = x;
	memcpy(x.u, m->u0, sizeof(double) * (size_t)n);
	memcpy(x.v, m->v0, sizeof(double) * (size_t)n);
	/* the run's state is its own from here: the plan's copy goes back
	 * to the lowering's arena (ir.h) */
	ir_model_release_start(plan->model);
	memcpy(x.z, m->z0, sizeof(double) * (size_t)nz);
	if ((r->status = alloc_history(res, plan, n, nz, N, err)) || (r->status = alloc_outputs(r->outs, plan, res, err)))
		return r;
	/* store_row visits the kept dofs only, not all n at every step */
	int nkept = 0;
	for (int i = 0; i < n && res->u; i++)
		nkept += res->u[i] != NULL;
	if (!(r->kept = mem_alloc(((size_t)nkept + 1) * sizeof *r->kept))) {
		r->status = fail(err, 3, m->loc, "out of memory");
		return r;
	}
	for (int i = 0; i < n && res->u; i++)
		if (res->u[i])
			r->kept[r->nkept++] = i;
	if ((nc || m->contact.n) && m->init_equilibrium) {
		r->status = fail(err, 3, nc ? m->constraint_loc[0] : m->contact.loc[0], "init equilibrium is not supported with constraints "
		                 "or contacts: give an initial state that satisfies them");
		return r;
	}
	if (m->init_equilibrium &&
	    (r->status = rt_equilibrium(&r->pb, plan->t0, plan->tolerance, plan->max_iterations, &r->x, err)))
		return r;
	if (nc && (r->status = check_initial_constraints(&r->pb, plan->t0, &r->x, m->constraint_loc, err)))
		return r;
	if (m->contact.n && (r->status = check_initial_contacts(&r->pb, &r->x, err)))
		return r;
	/* On the linear path without constraints the mass's factor goes
	 * before the engine builds its step matrix and factor: the two are
	 * never held together */
	const struct scheme_type *st = scheme_of(plan->scheme.family);
	if ((r->status = conditional_step(&r->pb, st, plan, &r->x, err)))
		return r;
	int early = r->pb.linear && nc == 0 && st && st->linear;
	if (early && (r->status = initial_acceleration(r, 1, err)))
		return r;
	if ((r->status = engine_init(&r->eng, r->plan, &r->pb, &r->x, err)))
		return r;
	if (r->eng.part) {
		/* every process goes on or none: one that stopped alone would
		 * leave the others waiting in the first exchange */
		double bad = part_plan_rows(r) != 0;
		if (la_mpi_sum(&bad, 1) || bad > 0) {
			r->status = fail(err, 3, m->loc, "out of memory");
			return r;
		}
	}
	if (!early && (r->status = initial_acceleration(r, r->eng.lin != NULL, err)))
		return r;
	struct rt_state xp = { r->prev, r->prev + n, r->prev + 2 * n, r->prev + 3 * n, r->prev + 3 * n + nz,
	                       r->prev + 3 * n + 2 * nz };
	r->xprev = xp;
	r->eng.prev = &r->xprev;
	struct state s = { plan, n, x.u, x.v, x.a, x.z, x.zd, { 0 }, plan->t0, r->Dterm, x.lam };
	r->s = s;
	r->T0 = problem_kinetic(&r->pb, x.u, x.v, NULL, NULL);
	r->P0 = problem_phi(&r->pb, x.u, x.z, NULL);
	r->s.energy[0] = r->T0;
	r->s.energy[1] = r->P0;
	r->E1 = fabs(r->T0) + fabs(r->P0);
	r->k = 0;
	r->shared = run_shared(r);
	r->failed_field = -1;
	int failed = (r->status = open_files(r->outs, plan, err)) != 0;
	if (!failed && plan->nfield_output > 0) {
		r->fouts = mem_calloc((size_t)plan->nfield_output, sizeof *r->fouts);
		if (!r->fouts)
			failed = (r->status = fail(err, 3, plan->loc, "out of memory")) != 0;
		for (int o = 0; o < plan->nfield_output && !failed; o++) {
			char msg[400];
			if (rt_field_out_open(&r->fouts[o], &plan->field_output[o], N, msg, sizeof msg) ||
			    (r->eng.part && rt_field_out_partition(&r->fouts[o], r->eng.part, msg, sizeof msg)))
				failed = (r->status = fail(err, 3, plan->field_output[o].loc, "%s", msg)) != 0;
		}
	}
	if (shared_failure(r, failed, 3, err))
		return r;
	int bad = store_row(r);
	r->state_valid = 1;
	failed = bad >= 0 ? (write_failed(r, bad, err), 1) : field_rows(r, err) != 0;
	if (shared_failure(r, failed, 4, err))
		return r;
	r->done = N == 0;
	rt_running = 1;
	return r;
}

/* Why a step gave no number: a load that is not finite at t0 or t1 is
 * named with the statement that states it.  Returns 4 with err set, or 0
 * when the loads are finite. */
static int load_not_finite(struct rt_stepper_run *r, double t0, double t1, int k, struct rt_error *err)
{
	const struct ir_model *m = r->plan->model;
	double *f = r->pb.tmp;   /* N scratch: problem_load does not use it */
	double ts[2] = { t0, t1 };
	for (int q = 0; q < 2; q++) {
		double t = ts[q];
		if (m->support) {
			double ag;
			struct vm_input in = { t, NULL, NULL, NULL, NULL, NULL, m->table, r->pb.hint };
			vm_eval(m->support, r->pb.reg_s, &in, &ag);
			if (!isfinite(ag))
				return fail(err, 4, m->support_loc, "t = %.10g (step %d): the support acceleration is %s "
				            "at t = %.10g: its expression has no value there", t1, k,
				            isnan(ag) ? "NaN" : "infinite", t);
		}
		problem_load(&r->pb, t, f);
		for (int i = 0; i < r->pb.N; i++)
			if (!isfinite(f[i])) {
				char nm[IR_NAME_SIZE];
				return fail(err, 4, m->force ? m->force_loc : m->support_loc, "t = %.10g (step %d): the load "
				            "on %s is %s at t = %.10g: its expression has no value there", t1, k,
				            ir_unknown_name(m, i, nm, sizeof nm), isnan(f[i]) ? "NaN" : "infinite", t);
			}
	}
	return 0;
}

/* ω_max of the linearisation at (u, z): K + ∂²Φ/∂u² against M(u); NAN
 * when unknown (out of memory, a failed eigensolve, more than 1000 dofs:
 * this runs once, when a run has failed). */
static double omega_max_at(struct rt_problem *pb, const double *u, const double *z)
{
	double wmax;
	if (pb->n > 1000 || linearised_omega_max(pb, u, z, &wmax) != 0 || !(wmax > 0))
		return NAN;
	return wmax;
}

/* x, xprev and s's vectors in buf and prev */
static void bind_state(struct rt_stepper_run *r)
{
	int n = r->pb.n, nz = r->pb.m;
	struct rt_state x = { r->buf, r->buf + n, r->buf + 2 * n, r->buf + 3 * n, r->buf + 3 * n + nz,
	                      r->buf + 3 * n + 2 * nz };
	struct rt_state xp = { r->prev, r->prev + n, r->prev + 2 * n, r->prev + 3 * n, r->prev + 3 * n + nz,
	                       r->prev + 3 * n + 2 * nz };
	r->x = x;
	r->xprev = xp;
	r->s.u = x.u;
	r->s.v = x.v;
	r->s.a = x.a;
	r->s.z = x.z;
	r->s.zd = x.zd;
	r->s.lam = x.lam;
}

/* Before a step: the state of step k into prev, restored when the step
 * fails.  A linear stepper that steps out of place (step_to) writes the
 * new state into the other buffer: the buffers are exchanged, not the
 * 3n values copied (what is not u, v, a — z, ż, λ, none on that path —
 * is carried over). */
/* u, v and a of this process's rows (a partitioned run: the others are
 * not current here) from src to dst */
static void copy_own_rows(const struct rt_stepper_run *r, double *dst, const double *src)
{
	const struct rt_part *p = r->eng.part;
	size_t n = (size_t)r->pb.n;
	for (size_t c = 0; c < 3; c++)
		memcpy(dst + c * n + p->r0, src + c * n + p->r0, sizeof(double) * (size_t)(p->r1 - p->r0));
}

static void keep_state(struct rt_stepper_run *r, size_t sz)
{
	if (r->eng.part) {
		copy_own_rows(r, r->prev, r->buf);
		return;
	}
	if (!r->eng.oop) {
		memcpy(r->prev, r->buf, sz);
		return;
	}
	double *b = r->buf;
	r->buf = r->prev;
	r->prev = b;
	bind_state(r);
	size_t n3 = 3 * (size_t)r->pb.n;
	memcpy(r->buf + n3, r->prev + n3, sz - sizeof(double) * n3);
}

static void restore_state(struct rt_stepper_run *r, size_t sz)
{
	r->eng.chain = 0;
	if (r->eng.part) {
		copy_own_rows(r, r->buf, r->prev);
		return;
	}
	if (!r->eng.oop) {
		memcpy(r->buf, r->prev, sz);
		return;
	}
	double *b = r->buf;
	r->buf = r->prev;
	r->prev = b;
	bind_state(r);
}

/* A partitioned run's u, v and a whole on every process again (for its
 * records, the message of its failure, its end): collective, and -1 when
 * MPI fails. */
static int part_sync(struct rt_stepper_run *r)
{
	struct rt_part *p = r->eng.part;
	if (!p)
		return 0;
	return rt_part_gather(p, r->x.u) || rt_part_gather(p, r->x.v) || rt_part_gather(p, r->x.a) ? -1 : 0;
}

/* What step k reads of the state: 2 the whole of it (the last step, a
 * frame of a field record whose pieces are not the processes' own
 * cells), 1 the rows its records and kept histories read (a record's
 * row, written or kept for the script: rt_part_gather_rows when
 * part_plan_rows found them few, the whole state otherwise), 0 nothing.
 * A field record's pieces of own cells fetch their rows themselves
 * (rt_field_out_step).  From the plan alone, the same on every process
 * (rank 0 alone writes the records, but every process keeps the
 * histories the script reads). */
static int part_sync_due(const struct rt_stepper_run *r, int k)
{
	const struct ir_run *plan = r->plan;
	if (k == plan->nstep)
		return 2;
	for (int o = 0; o < plan->nfield_output; o++)
		if (!(r->fouts && r->fouts[o].cells) &&
		    k % (plan->field_output[o].every > 0 ? plan->field_output[o].every : 1) == 0)
			return 2;
	if (r->nkept > 0)
		return 1;
	for (int o = 0; o < plan->noutput; o++)
		if (r->outs[o].kept || k % r->outs[o].o->every == 0)
			return 1;
	return 0;
}

/* The rows the records and the kept histories read: a record of u, u' or
 * u'' its dof, an expression (a point's value, a region's integral)
 * every dof its program loads, a kept history its dof.  When they are
 * at most an eighth of the rows, the steps that write a record gather
 * them alone (rt_part_gather_plan): a record of a point at every step
 * then costs an exchange of a few values, not an all-gather of 3n. */
static int part_plan_rows(struct rt_stepper_run *r)
{
	const struct ir_run *plan = r->plan;
	int n = r->pb.n, cnt = 0, rc = 0;
	unsigned char *need = mem_calloc((size_t)n + 1, 1);
	if (!need)
		return -1;
	for (int q = 0; q < r->nkept; q++)
		need[r->kept[q]] = 1;
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++) {
			const struct ir_record *rec = &plan->output[o].record[j];
			if (rec->kind == IR_REC_U && rec->dof >= 0 && rec->dof < n)
				need[rec->dof] = 1;
			for (int i = 0; rec->kind == IR_REC_EXPR && rec->expr && i < rec->expr->n; i++) {
				const struct ir_insn *in = &rec->expr->insn[i];
				if ((in->op == IR_DOF || in->op == IR_VEL || in->op == IR_ACC) && in->a >= 0 && in->a < n)
					need[in->a] = 1;
			}
		}
	for (int i = 0; i < n; i++)
		cnt += need[i];
	if (cnt <= n / 8) {
		int *idx = mem_alloc(sizeof(int) * ((size_t)cnt + 1));
		if (!idx)
			rc = -1;
		else {
			int k = 0;
			for (int i = 0; i < n; i++)
				if (need[i])
					idx[k++] = i;
			rc = rt_part_gather_plan(r->eng.part, idx, cnt);
			free(idx);
		}
	}
	free(need);
	return rc;
}

static int advance(struct rt_stepper_run *r, int nsteps, struct rt_error *err)
{
	const struct ir_run *plan = r->plan;
	const struct ir_model *m = plan->model;
	int N = plan->nstep, n = r->pb.n;
	if (r->status)
		return r->status;
	for (int step = 0; step < nsteps && !r->done; step++) {
		/* partitioned, a Ctrl-C stops every process at the step where
		 * their sums first carried it (part_step) */
		if (r->eng.part ? r->eng.part_stop : r->shared ? shared_stop() : rt_interrupted)
			return r->status = interrupted(r, err);
		/* step k → k + 1 on the grid tₖ = t₀ + kτ, t_N = T1 */
		int k = r->k + 1;
		double tk = k == N ? plan->t1 : plan->t0 + k * plan->dt;
		double tau = k == N ? plan->last_dt : plan->dt;
		double dW = 0, dD = 0;
		memset(r->dterm, 0, sizeof(double) * (size_t)r->res->nterm);
		/* the state of step k, restored when the step fails: the run then
		 * ends at its last good step (records, results, the REPL) */
		size_t sz = sizeof(double) * (size_t)(3 * n + 2 * r->pb.m + r->pb.nc);
		keep_state(r, sz);
		r->state_valid = 0;
		/* a backend's failure that a step survived (Newton's optional
		 * last correction) is not this step's */
		la_backend_failure();
		/* the next step, whose right-hand side a linear pass forms */
		r->eng.tau_next = k >= N ? 0 : k + 1 == N ? plan->last_dt : plan->dt;
		r->eng.t_next = k + 1 == N ? plan->t1 : plan->t0 + (k + 1) * plan->dt;
		int failed = engine_step(&r->eng, r->s.t, tk, tau, &r->x, &dW, &dD, r->dterm, err);
		/* The state's energies at the step's end, which the ledger
		 * needs anyway, are the finiteness check of the state: ½vᵀMv and
		 * ½uᵀKu are not finite when a v_i or u_i is not (M's and K's
		 * diagonals are stored, in every storage of la.h: 0·∞ is NaN),
		 * and neither is ΔW = Δu·f̄ when a u_i is not.  The state is
		 * searched only then, for the dof to name: no pass over it at
		 * every step. */
		double eT = 0, eP = 0;
		if (!failed) {
			int part = r->eng.part != NULL;
			eT = r->eng.fused || part ? r->eng.T : problem_kinetic(&r->pb, r->x.u, r->x.v, NULL, NULL);
			eP = r->eng.fused || part || r->eng.have_P ? r->eng.P : problem_phi(&r->pb, r->x.u, r->x.z, NULL);
			/* partitioned, the sums are every process's: all search */
			if (!isfinite(eT + eP + dW + dD) && part && part_sync(r))
				failed = 1;
			if (!isfinite(eT + eP + dW + dD))
				for (int i = 0; i < n && !failed; i++)
					if (!isfinite(r->x.u[i]) || !isfinite(r->x.v[i]))
						failed = 2;
			/* the multipliers enter no energy: a solve that gave them
			 * alone (a failed iterative one fills NaN) is found here,
			 * not in the records */
			for (int q = 0; q < r->pb.nc && !failed; q++)
				if (!isfinite(r->x.lam[q]))
					failed = 3;
		}
		if (failed) {
			double bad = 0;
			int dof = -1, disp = 0;
			for (int i = 0; i < n && failed == 2 && dof < 0; i++)
				if (!isfinite(r->x.u[i]) || !isfinite(r->x.v[i])) {
					dof = i;
					disp = !isfinite(r->x.u[i]);
					bad = disp ? r->x.u[i] : r->x.v[i];
				}
			int badlam = 0;
			while (failed == 3 && badlam < r->pb.nc - 1 && isfinite(r->x.lam[badlam]))
				badlam++;
			restore_state(r, sz);
			r->state_valid = 1;
			/* a backend's failed solve (PETSc's reason) left NaN in the
			 * step: its reason names the failure better than the NaN */
			const char *why = la_backend_failure();
			/* a load with no value explains any failure of its step */
			if (load_not_finite(r, r->s.t, tk, k, err))
				return r->status = 4;
			if (why)
				return r->status = fail(err, 4, plan->loc, "t = %.10g (step %d): %s", tk, k, why);
			char nm[IR_NAME_SIZE];
			if (failed == 3)
				return r->status = fail(err, 4, plan->loc,
				                        "t = %.10g (step %d): the multiplier lambda[%d] is not finite: a "
				                        "constraint or its rate has no finite value there, the constraints are "
				                        "not independent, or the step is too large",
				                        tk, k, badlam + 1);
			/* on a linear model a scheme stable at any step cannot grow:
			 * its numbers overflowed (a stiffness of 1e300 against a
			 * unit mass: the predictor's K u alone is beyond the
			 * doubles), and a smaller step is no cure */
			if (failed == 2 && r->eng.lin && !(r->eng.caps & IR_SCHEME_CONDITIONAL))
				return r->status = fail(err, 4, plan->loc,
				                        "t = %.10g (step %d): the solution is not finite (%s of dof %s is %s); "
				                        "%s is stable at any step on this linear model, so its numbers "
				                        "overflowed: coefficients or loads near the largest double against the "
				                        "mass; scale the model's units",
				                        tk, k, disp ? "the displacement" : "the velocity",
				                        ir_dof_name(m, dof, nm, sizeof nm), isnan(bad) ? "NaN" : "infinite",
				                        plan->scheme.name);
			if (failed == 2)
				return r->status = fail(err, 4, plan->loc,
				                        "t = %.10g (step %d): the solution is not finite (%s of dof %s is %s); "
				                        "the scheme is unstable at this step: try a smaller step",
				                        tk, k, disp ? "the displacement" : "the velocity",
				                        ir_dof_name(m, dof, nm, sizeof nm), isnan(bad) ? "NaN" : "infinite");
			char msg[sizeof err->msg];
			snprintf(msg, sizeof msg, "%s", err->msg);
			if (failed == NL_UNSTABLE)
				return r->status = fail(err, 4, plan->loc, "t = %.10g (step %d): %s", tk, k, msg);
			return r->status = fail(err, 4, plan->loc, "t = %.10g (step %d): %s; try a smaller step%s", tk, k, msg,
			                        r->eng.nl && r->eng.halvings == 0 ? " or on_failure = halve(4)" : "");
		}
		double tprev = r->s.t, eprev[RT_NENERGY];
		memcpy(eprev, r->s.energy, sizeof eprev);
		r->W += dW;
		r->D += dD;
		for (int q = 0; q < r->res->nterm; q++)
			r->Dterm[q] += r->dterm[q];
		r->s.t = tk;
		r->s.energy[0] = eT;
		r->s.energy[1] = eP;
		r->s.energy[2] = r->D;
		r->s.energy[3] = r->W;
		/* against the algorithmic energy T + Φ + C of generalized-α,
		 * A = Cᵏ − C⁰ (alpha_energy_init; 0 for the other schemes) */
		r->s.energy[4] = r->s.energy[0] + r->s.energy[1] + r->D - r->W - (r->T0 + r->P0) + r->eng.alg.A;
		/* Growth beyond any physical bound: the ledger's residual is the
		 * energy the scheme created; a stable scheme keeps it within the
		 * energies in play (initial, work, dissipation, or the first
		 * nonzero T + |Φ| of a run started at rest), an unstable one
		 * multiplies it by a factor each step.  At 1e12 times that scale
		 * (amplitudes 1e6 times) the run is stopped before it records
		 * values near overflow.  The energy created by an unstable scheme
		 * is positive (what a scheme loses, as backward Euler, is not
		 * instability) and then most of T + |Φ|; a scale at round-off is
		 * not a bound: a
		 * pendulum released horizontal starts with T + |Φ| = 9.81 |cos(π/2)|
		 * = 6e-16, and its O(τ²) residual (1e-3 against |T| + |Φ| of 20)
		 * stopped it as unstable at step 24.  The dissipation is no scale:
 * physically 0 ≤ D ≤ T₀ + Φ₀ + W, and an unstable damped scheme's
 * ledger dissipates (either sign) in proportion to the energy it
 * creates: newmark(0, 0.6) with damping above its critical step
 * reached u = 4e19 at step 1000 unstopped while |D| was part of the
 * scale.  A physical energy source (negative damping) keeps the
 * residual of a stable scheme a small part of T + |Φ|. */
		double Ek = fabs(eT) + fabs(eP);
		if (r->E1 == 0)
			r->E1 = Ek;
		double escale = fabs(r->T0) + fabs(r->P0) + fabs(r->W) + r->E1;
		double created = r->s.energy[4];
		if (!isfinite(Ek) || (!(created <= 1e12 * escale) && !(created <= 0.25 * Ek))) {
			restore_state(r, sz);
			r->state_valid = 1;
			r->W -= dW;
			r->D -= dD;
			for (int q = 0; q < r->res->nterm; q++)
				r->Dterm[q] -= r->dterm[q];
			r->s.t = tprev;
			memcpy(r->s.energy, eprev, sizeof eprev);
			if (load_not_finite(r, tprev, tk, k, err))
				return r->status = 4;
			if (!isfinite(Ek)) {
				int stored = isfinite(eT);
				struct ir_loc where = stored && m->potential ? m->potential->loc : !stored && m->kinetic_value ?
				                      m->kinetic_loc : plan->loc;
				/* an energy of matrices alone (1/2 vᵀMv, 1/2 uᵀKu)
				 * has no expression: its finite numbers overflowed */
				if (stored ? !m->potential : !m->kinetic_value)
					return r->status = fail(err, 4, where, "t = %.10g (step %d): the %s energy overflows at "
					                        "the end of the step (%s): the loads or the state are near the "
					                        "largest double against the operators; scale the model's units",
					                        tk, k, stored ? "stored" : "kinetic",
					                        isnan(stored ? eP : eT) ? "NaN" : "infinite");
				return r->status = fail(err, 4, where, "t = %.10g (step %d): the %s energy is %s at the end "
				                        "of the step: its expression has no value there", tk, k,
				                        stored ? "stored" : "kinetic", isnan(stored ? eP : eT) ? "NaN" : "infinite");
			}
			/* the critical step of the undamped Newmark family,
			 * ω_max τ < 1/√(γ/2 − β) (2 for central differences), when
			 * the stiffness is constant: a nonlinear one at a state
			 * that has already grown says nothing of the step to take */
			char crit[160] = "";
			const struct engine *e = &r->eng;
			double wtc = e->type->critical ? e->type->critical(e->par) : 0;
			if (!m->potential && !m->kinetic && wtc > 0) {
				double wmax = omega_max_at(&r->pb, r->x.u, r->x.z);
				if (isfinite(wmax))
					snprintf(crit, sizeof crit, " (omega_max = %.6g rad/s: its critical step%s is %.6g)", wmax,
					         r->pb.hasC || m->dissipation ? " without damping" : "", wtc / wmax);
				else
					snprintf(crit, sizeof crit, " (it is stable only below a critical step)");
			} else if (e->caps & IR_SCHEME_CONDITIONAL)
				snprintf(crit, sizeof crit, " (it is stable only below a critical step)");
			return r->status = fail(err, 4, plan->loc, "t = %.10g (step %d): the solution grew beyond any "
			                        "physical bound: the scheme created an energy of %.3g from energies of "
			                        "%.3g in play; %s is unstable at this step%s: take a smaller step", tk, k,
			                        created, escale, plan->scheme.name, crit);
		}
		r->k = k;
		int due = r->eng.part ? part_sync_due(r, k) : 0;
		if (due && (due == 1 && r->eng.part->gidx
		                ? rt_part_gather_rows(r->eng.part, r->x.u, r->x.v, r->x.a)
		                : part_sync(r)))
			return r->status = fail(err, 4, plan->loc, "t = %.10g (step %d): MPI failed to gather the state "
			                        "of the processes", tk, k);
		/* the field records' ghosts, on every process before any of
		 * them writes (a file that fails stops one process's writing,
		 * not its exchanges) */
		for (int o = 0; r->eng.part && o < plan->nfield_output && r->fouts; o++)
			if (rt_field_out_fetch(&r->fouts[o], k, N, r->x.u))
				return r->status = fail(err, 4, plan->field_output[o].loc, "t = %.10g (step %d): MPI failed to "
				                        "exchange the values of the field record", tk, k);
		int bad = store_row(r);
		r->state_valid = 1;
		if (k == N)
			r->done = 1;
		int lost = bad >= 0 ? (write_failed(r, bad, err), 1) : field_rows(r, err) != 0;
		/* a file fails only at a step that writes one (output_due) */
		if (r->shared && output_due(r, k) ? shared_failure(r, lost, 4, err) : lost)
			return r->status;
	}
	return 0;
}

int rt_advance(struct rt_stepper_run *r, int nsteps, struct rt_error *err)
{
	rt_stepping = 1;
	int rc = advance(r, nsteps, err);
	rt_stepping = 0;
	return rc;
}

void rt_resume(struct rt_stepper_run *r)
{
	if (r && r->interrupted) {
		r->status = 0;
		r->interrupted = 0;
	}
}

int rt_position(const struct rt_stepper_run *r, double *t, int *k, int *nstep)
{
	*t = r->s.t;
	*k = r->k;
	*nstep = r->plan->nstep;
	return r->done;
}

void rt_current(const struct rt_stepper_run *r, const double **u, const double **v, const double **a,
                const double **z, const double **zd)
{
	*u = r->x.u;
	*v = r->x.v;
	*a = r->x.a;
	*z = r->x.z;
	*zd = r->x.zd;
}

int rt_end(struct rt_stepper_run *r, struct rt_error *err)
{
	rt_running = 0;
	if (!r)
		return err->code ? err->code : 3;
	/* a signal that came after the last step still stops the script */
	if (!r->status && rt_interrupted && r->done)
		r->status = interrupted(r, err);
	int status = r->status;
	/* partitioned, the state whole for the last step's rows and results:
	 * every process ends here at the same step, unless one failed alone
	 * (a record that rank 0 could not write), which gathers nothing */
	if (r->pb_ok && r->eng.part && !r->lone_failure && part_sync(r) && !status)
		status = fail(err, 4, r->plan->loc, "MPI failed to gather the state of the processes");
	/* a run stopped early still ends its records with its last step */
	if (r->pb_ok && r->state_valid && r->k > 0 && r->k < r->plan->nstep && r->s.u)
		for (int o = 0; o < r->plan->noutput && r->outs; o++)
			if (r->outs[o].f && !r->outs[o].file.err && r->k % r->outs[o].o->every != 0)
				write_row(&r->s, &r->outs[o], r->plan->model->table, r->pb.hint);
	/* and its field series too (step k as if it were the last: the
	 * series' frame rule writes the last step) */
	if (r->pb_ok && r->state_valid && r->k > 0 && r->k < r->plan->nstep)
		for (int o = 0; o < r->plan->nfield_output && r->fouts; o++) {
			char msg[400];
			int every = r->plan->field_output[o].every > 0 ? r->plan->field_output[o].every : 1;
			if (r->k % every == 0)
				continue;   /* step k's frame is written (field_rows) */
			/* the state is whole here (part_sync), or one process
			 * failed alone and waits for no other: nothing to fetch */
			if (rt_field_out_step(&r->fouts[o], r->k, r->k, r->s.t, r->x.u, msg, sizeof msg) && !status)
				status = fail(err, 4, r->plan->field_output[o].loc, "t = %.10g (step %d): %s", r->s.t, r->k,
				              msg);
		}
	/* every file that was opened gets its name, whatever stopped the run:
	 * its rows are whole (outfile.c) */
	for (int o = 0; o < r->plan->noutput && r->outs; o++) {
		if (r->outs[o].f && rt_outfile_commit(&r->outs[o].file) && !status) {
			char name[256];
			status = fail(err, 4, r->outs[o].o->loc, "cannot write '%s': %s",
			              rt_escape(name, sizeof name, r->outs[o].o->path), strerror(r->outs[o].file.err));
		}
		if (r->outs[o].reg)
			for (int j = 0; j < r->outs[o].o->nrecord; j++)
				free(r->outs[o].reg[j]);
		free(r->outs[o].reg);
		free(r->outs[o].val);
	}
	for (int o = 0; o < r->plan->nfield_output && r->fouts; o++)
		rt_field_out_free(&r->fouts[o]);
	free(r->fouts);
	engine_free(&r->eng);
	nl_common_free(&r->nc);
	free(r->buf);
	free(r->prev);
	free(r->kept);
	free(r->dterm);
	free(r->Dterm);
	free(r->outs);
	problem_free(&r->pb);
	free(r);
	return status;
}

int rt_run(const struct ir_run *plan, struct rt_result **resp, struct rt_error *err)
{
	struct rt_stepper_run *r = rt_begin(plan, resp, err);
	if (r && !r->status)
		rt_advance(r, plan->nstep, err);
	return rt_end(r, err);
}

/* ---- reading results ---- */

static int interval(const struct rt_result *r, double T, double *s)
{
	int lo = 0, hi = r->nstep;
	if (hi == 0) {
		*s = 0;
		return 0;
	}
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (r->t[mid] <= T)
			lo = mid;
		else
			hi = mid;
	}
	double h = r->t[lo + 1] - r->t[lo];
	*s = (T - r->t[lo]) / h;
	if (*s < 0)
		*s = 0;
	if (*s > 1)
		*s = 1;
	return lo;
}

/* Exact at step times (within 1e-9 of a step, DESIGN.md "Results"). */
static int at_step(const struct rt_result *r, double T, int *k)
{
	double s;
	int i = interval(r, T, &s);
	if (r->nstep == 0 || s <= 1e-9) {
		*k = i;
		return 1;
	}
	if (s >= 1 - 1e-9) {
		*k = i + 1;
		return 1;
	}
	return 0;
}

double rt_result_dof(const struct rt_result *r, int dof, int deriv, double T)
{
	if (!r->u)
		return NAN;   /* no dof kept (the caller asks series_samples first) */
	const double *y = deriv == 0 ? r->u[dof] : deriv == 1 ? r->v[dof] : r->a[dof];
	const double *dy = deriv == 0 ? r->v[dof] : deriv == 1 ? r->a[dof] : NULL;
	int k;
	if (at_step(r, T, &k))
		return y[k];
	double s;
	int i = interval(r, T, &s);
	if (!dy)
		return (1 - s) * y[i] + s * y[i + 1];
	/* cubic Hermite on [tᵢ, tᵢ₊₁] with the derivative at both ends */
	double h = r->t[i + 1] - r->t[i];
	double s2 = s * s, s3 = s2 * s;
	double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
	return h00 * y[i] + h10 * h * dy[i] + h01 * y[i + 1] + h11 * h * dy[i + 1];
}

double rt_result_series(const struct rt_result *r, const double *y, double T)
{
	int k;
	if (at_step(r, T, &k))
		return y[k];
	double s;
	int i = interval(r, T, &s);
	return (1 - s) * y[i] + s * y[i + 1];
}
