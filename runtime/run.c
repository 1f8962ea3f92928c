/* run.c — the driver: builds the system from the IR, checks the operators,
 * walks the time grid, calls the stepper, keeps the histories and the
 * energy ledger, and writes the records (DESIGN.md, "Time grid",
 * "Records", "Energy ledger").
 *
 * Everything is allocated before the first step; the loop allocates
 * nothing. */
#include <config.h>

#include "run.h"
#include "la.h"
#include "stepper.h"
#include "vm.h"
#include "problem.h"
#include "nlstep.h"
#include "stage.h"

#include <errno.h>
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

/* A CSV writer per record clause. */
struct output {
	const struct ir_output *o;
	FILE *f;
	double **reg;   /* VM registers per expression column */
	double *val;
};

static void put_num(FILE *f, double x)
{
	char buf[32];
	if (x == 0) {
		fputs("0", f);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x || x != x)
			break;
	}
	fputs(buf, f);
}

struct state {
	const struct ir_run *plan;
	int n;
	double *u, *v, *a, *z, *zd;
	double energy[RT_NENERGY];
	double t;
	const double *dterm;   /* dissipated per term so far */
};

static double column_value(const struct state *s, struct output *out, int j, const struct ir_table *tables, int *hint)
{
	const struct ir_record *r = &out->o->record[j];
	switch (r->kind) {
	case IR_REC_T: return s->t;
	case IR_REC_U: return (r->deriv == 0 ? s->u : r->deriv == 1 ? s->v : s->a)[r->dof];
	case IR_REC_Z: return (r->deriv == 0 ? s->z : s->zd)[r->dof];
	case IR_REC_DTERM: return s->dterm[r->dof];
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
	for (int i = 0; i < r->ndof && r->u; i++) {
		free(r->u[i]);
		free(r->v[i]);
		free(r->a[i]);
	}
	for (int j = 0; j < r->nint && r->z; j++) {
		free(r->z[j]);
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
	for (int i = 0; i < r->ncol; i++)
		free(r->col[i]);
	free(r->col);
	free(r->col_name);
	free(r->t);
	free(r);
}

/* ---- the engine: the linear fast path or a nonlinear stepper ---- */

struct engine {
	struct rt_problem *pb;
	/* linear: constant operators, the step matrix factored once per step
	 * size, the ledger paired as code_aster does for the Newmark family:
	 * ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2, ΔD = Δu·C(vᵏ⁻¹ + vᵏ)/2 */
	const struct stepper_type *lin;
	void *lst;
	struct rt_system sys;
	double lin_tau;
	double *f, *fprev, *uprev, *vprev, *tmp, *tmp2;
	/* nonlinear */
	const struct nl_stepper_type *nl;
	void *nst;
	double q[4];
	int halvings;
	double **save;           /* per halving level: u, v, a, z, zd saved */
};

static void sys_load(void *ctx, double t, double *f)
{
	problem_load(ctx, t, f);
}

static int lin_step(struct engine *e, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                    struct rt_error *err)
{
	struct rt_problem *pb = e->pb;
	int n = pb->n;
	if (tau != e->lin_tau) {
		if (e->lin->set_step(e->lst, tau, err))
			return -1;
		e->lin_tau = tau;
	}
	memcpy(e->uprev, x->u, sizeof(double) * (size_t)n);
	memcpy(e->vprev, x->v, sizeof(double) * (size_t)n);
	memcpy(e->fprev, e->f, sizeof(double) * (size_t)n);
	(void)t0;
	if (e->lin->step(e->lst, t1, tau, x->u, x->v, x->a, err))
		return -1;
	problem_load(pb, t1, e->f);
	double w = 0, d = 0;
	if (pb->C) {
		for (int i = 0; i < n; i++)
			e->tmp2[i] = e->vprev[i] + x->v[i];
		la_gemv_band(n, pb->kl, pb->ku, pb->C, e->tmp2, e->tmp);
	}
	for (int i = 0; i < n; i++) {
		double du = x->u[i] - e->uprev[i];
		w += du * 0.5 * (e->fprev[i] + e->f[i]);
		if (pb->C)
			d += du * 0.5 * e->tmp[i];
	}
	*dW = w;
	*dD = d;
	return 0;
}

/* A nonlinear step; when Newton fails and on_failure = halve(N) allows,
 * the step is retried as two half steps, recursively (the steppers start
 * every step from the one-step state (u, v, a, z, ż)). */
static int nl_advance(struct engine *e, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
                      double *dterm, struct rt_error *err, int level)
{
	struct rt_problem *pb = e->pb;
	int n = pb->n, m = pb->m;
	double *sv = e->save[level];
	memcpy(sv, x->u, sizeof(double) * (size_t)n);
	memcpy(sv + n, x->v, sizeof(double) * (size_t)n);
	memcpy(sv + 2 * n, x->a, sizeof(double) * (size_t)n);
	memcpy(sv + 3 * n, x->z, sizeof(double) * (size_t)m);
	memcpy(sv + 3 * n + m, x->zd, sizeof(double) * (size_t)m);
	int nt = problem_nterm(pb);
	double *dsave = sv + 3 * n + 2 * m;
	memcpy(dsave, dterm, sizeof(double) * (size_t)nt);
	int rc = e->nl->step(e->nst, t0, t1, tau, x, dW, dD, dterm, err);
	for (int i = 0; i < n && rc == 0; i++)
		if (!isfinite(x->u[i]) || !isfinite(x->v[i])) {
			snprintf(err->msg, sizeof err->msg, "the solution is not finite (dof %s)", pb->name[i]);
			rc = -1;
		}
	if (rc == 0 || level >= e->halvings)
		return rc;
	memcpy(x->u, sv, sizeof(double) * (size_t)n);
	memcpy(x->v, sv + n, sizeof(double) * (size_t)n);
	memcpy(x->a, sv + 2 * n, sizeof(double) * (size_t)n);
	memcpy(x->z, sv + 3 * n, sizeof(double) * (size_t)m);
	memcpy(x->zd, sv + 3 * n + m, sizeof(double) * (size_t)m);
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

/* Central differences on a nonlinear model: the critical step of the
 * linearisation at the initial state, K + ∂²Φ/∂u², refuses larger steps
 * as for linear models. */
static int critical_step(struct rt_problem *pb, const double *u, const double *z, struct rt_error *err)
{
	int n = pb->n, N = pb->N;
	double *J = calloc((size_t)N * (size_t)N + 1, sizeof(double)), *Ku = calloc((size_t)n * (size_t)n + 1, sizeof(double));
	double *w = calloc((size_t)n + 1, sizeof(double));
	int rc = 0;
	if (!J || !Ku || !w) {
		free(J); free(Ku); free(w);
		return fail(err, 3, pb->plan->loc, "out of memory");
	}
	problem_phi(pb, u, z, NULL);
	problem_add_hess_phi(pb, NULL, NULL, J, N);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			Ku[i + (size_t)j * n] = J[i + (size_t)j * N];
	if (la_sygv(n, Ku, pb->M, w, NULL) == 0) {
		double wmax = sqrt(w[n - 1] > 0 ? w[n - 1] : 0), tc = wmax > 0 ? 2 / wmax : INFINITY;
		if (pb->plan->dt > tc)
			rc = fail(err, 3, pb->plan->step_loc,
			          "step %.6g exceeds the critical step 2/omega_max = %.6g of central_difference "
			          "(omega_max = %.6g rad/s at the initial state): take a step below %.6g or an implicit scheme",
			          pb->plan->dt, tc, wmax, tc);
	}
	free(J); free(Ku); free(w);
	return rc;
}

static void engine_free(struct engine *e)
{
	if (e->lst)
		e->lin->free(e->lst);
	if (e->nst)
		e->nl->free(e->nst);
	free(e->f); free(e->fprev); free(e->uprev); free(e->vprev); free(e->tmp); free(e->tmp2);
	for (int k = 0; e->save && k <= e->halvings; k++)
		free(e->save[k]);
	free(e->save);
}

static int engine_init(struct engine *e, struct rt_problem *pb, struct rt_state *x, struct rt_error *err)
{
	const struct ir_run *plan = pb->plan;
	int n = pb->n;
	memset(e, 0, sizeof *e);
	e->pb = pb;
	e->halvings = plan->halvings;
	enum ir_family fam = plan->scheme.family;
	e->lin = pb->linear ? step_lookup(fam) : NULL;
	if (e->lin) {
		e->sys.n = n;
		e->sys.M = pb->M;
		e->sys.C = pb->C;
		e->sys.K = pb->K;
		e->sys.kl = pb->kl;
		e->sys.ku = pb->ku;
		e->sys.banded = pb->banded;
		e->sys.dof_name = pb->name;
		e->sys.load = sys_load;
		e->sys.load_ctx = pb;
		e->f = calloc((size_t)n + 1, sizeof(double));
		e->fprev = calloc((size_t)n + 1, sizeof(double));
		e->uprev = calloc((size_t)n + 1, sizeof(double));
		e->vprev = calloc((size_t)n + 1, sizeof(double));
		e->tmp = calloc((size_t)n + 1, sizeof(double));
		e->tmp2 = calloc((size_t)n + 1, sizeof(double));
		if (!e->f || !e->fprev || !e->uprev || !e->vprev || !e->tmp || !e->tmp2)
			return fail(err, 3, plan->loc, "out of memory");
		e->lst = e->lin->alloc(&e->sys, plan->scheme.p, err);
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
		return 0;
	}
	e->nl = nl_lookup(fam, plan->scheme.p, e->q);
	if (!e->nl)
		return fail(err, 3, plan->scheme.loc, "scheme %s is not available for this model", plan->scheme.name);
	if (pb->N > 4000)
		return fail(err, 3, plan->model->loc, "nonlinear models are solved with dense Jacobians, "
		            "limited to 4000 unknowns (this one has %d)", pb->N);
	if (fam == IR_CENTRAL_DIFFERENCE && critical_step(pb, x->u, x->z, err))
		return 3;
	struct nl_options opt = { plan->tolerance, plan->max_iterations };
	e->nst = e->nl->alloc(pb, e->q, &opt, err);
	if (!e->nst) {
		if (!err->msg[0])
			snprintf(err->msg, sizeof err->msg, "out of memory for the step");
		err->loc = plan->scheme.loc;
		return 3;
	}
	e->save = calloc((size_t)e->halvings + 1, sizeof(double *));
	if (!e->save)
		return fail(err, 3, plan->loc, "out of memory");
	for (int k = 0; k <= e->halvings; k++)
		if (!(e->save[k] = calloc((size_t)(3 * n + 2 * pb->m + problem_nterm(pb)) + 1, sizeof(double))))
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
	return nl_advance(e, t0, t1, tau, x, dW, dD, dterm, err, 0);
}

/* init equilibrium: ∇ᵤΦ(u, z₀) + ∇ᵥΨ(0) = f(t₀) by Newton, z and v at rest. */
static int equilibrium(struct rt_problem *pb, struct rt_state *x, struct rt_error *err)
{
	const struct ir_run *plan = pb->plan;
	struct stage st;
	if (stage_alloc(&st, pb))
		return fail(err, 3, plan->model->init_loc, "out of memory");
	double *zero = calloc((size_t)pb->N + 1, sizeof(double));
	if (!zero) {
		stage_free(&st);
		return fail(err, 3, plan->model->init_loc, "out of memory");
	}
	problem_load(pb, plan->t0, st.e);
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
	st.tol = plan->tolerance;
	st.maxit = plan->max_iterations;
	int iters;
	double res;
	int rc = stage_solve(&st, scale > 0 ? scale : 1, &iters, &res);
	if (rc == 0) {
		memcpy(x->u, st.u, sizeof(double) * (size_t)pb->n);
		memset(x->v, 0, sizeof(double) * (size_t)pb->n);
	}
	stage_free(&st);
	free(zero);
	if (rc)
		return fail(err, 3, plan->model->init_loc,
		            "init equilibrium: Newton did not converge in %d iterations, residual %.2g "
		            "(is the model stable under the loads at t0?)", iters, res);
	return 0;
}

static int alloc_history(struct rt_result *res, const struct ir_run *plan, int n, int m, int N, struct rt_error *err)
{
	res->ndof = n;
	res->nint = m;
	res->t = malloc(sizeof(double) * (size_t)(N + 1));
	res->u = calloc((size_t)n + 1, sizeof(double *));
	res->v = calloc((size_t)n + 1, sizeof(double *));
	res->a = calloc((size_t)n + 1, sizeof(double *));
	res->z = calloc((size_t)m + 1, sizeof(double *));
	res->zd = calloc((size_t)m + 1, sizeof(double *));
	res->history_bytes = sizeof(double) * (size_t)(N + 1) * (size_t)(3 * n + 2 * m);
	res->kept_all = res->history_bytes <= plan->history_budget;
	char *keep = calloc((size_t)(n + m) + 1, 1);
	if (!res->t || !res->u || !res->v || !res->a || !res->z || !res->zd || !keep) {
		free(keep);
		return fail(err, 3, plan->model->loc, "out of memory for the history");
	}
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++) {
			const struct ir_record *r = &plan->output[o].record[j];
			if (r->kind == IR_REC_U)
				keep[r->dof] = 1;
			else if (r->kind == IR_REC_Z)
				keep[n + r->dof] = 1;
		}
	size_t len = sizeof(double) * (size_t)(N + 1);
	int bad = 0;
	for (int i = 0; i < n && !bad; i++)
		if (res->kept_all || keep[i])
			bad = !(res->u[i] = malloc(len)) || !(res->v[i] = malloc(len)) || !(res->a[i] = malloc(len));
	for (int j = 0; j < m && !bad; j++)
		if (res->kept_all || keep[n + j])
			bad = !(res->z[j] = malloc(len)) || !(res->zd[j] = malloc(len));
	for (int e = 0; e < RT_NENERGY && !bad; e++)
		bad = !(res->energy[e] = malloc(len));
	res->dterm = calloc((size_t)res->nterm + 1, sizeof(double *));
	bad |= !res->dterm;
	for (int k = 0; k < res->nterm && !bad; k++)
		bad = !(res->dterm[k] = malloc(len));
	free(keep);
	if (bad)
		return fail(err, 3, plan->model->loc, "out of memory for the history of %d steps: "
		            "lower history_budget and record what you need", N);
	int ncol = 0;
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			ncol += plan->output[o].record[j].kind == IR_REC_EXPR;
	res->col = calloc((size_t)ncol + 1, sizeof(double *));
	res->col_name = calloc((size_t)ncol + 1, sizeof(char *));
	if (!res->col || !res->col_name)
		return fail(err, 3, plan->model->loc, "out of memory");
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			if (plan->output[o].record[j].kind == IR_REC_EXPR) {
				res->col_name[res->ncol] = plan->output[o].record[j].name;
				if (!(res->col[res->ncol++] = malloc(len)))
					return fail(err, 3, plan->model->loc, "out of memory");
			}
	return 0;
}

static int open_outputs(struct output *outs, const struct ir_run *plan, struct rt_error *err)
{
	for (int o = 0; o < plan->noutput; o++) {
		const struct ir_output *po = &plan->output[o];
		outs[o].o = po;
		outs[o].reg = calloc((size_t)po->nrecord + 1, sizeof(double *));
		outs[o].val = calloc((size_t)po->nrecord + 1, sizeof(double));
		if (!outs[o].reg || !outs[o].val)
			return fail(err, 3, po->loc, "out of memory");
		for (int j = 0; j < po->nrecord; j++)
			if (po->record[j].kind == IR_REC_EXPR &&
			    !(outs[o].reg[j] = calloc((size_t)po->record[j].expr->n + 1, sizeof(double))))
				return fail(err, 3, po->loc, "out of memory");
		if (po->path) {
			outs[o].f = fopen(po->path, "w");
			if (!outs[o].f)
				return fail(err, 3, po->loc, "cannot write '%s': %s", po->path, strerror(errno));
			for (int j = 0; j < po->nrecord; j++)
				fprintf(outs[o].f, "%s%s", j ? "," : "", po->record[j].name);
			fputc('\n', outs[o].f);
		}
	}
	return 0;
}

int rt_run(const struct ir_run *plan, struct rt_result **resp, struct rt_error *err)
{
	const struct ir_model *m = plan->model;
	int N = plan->nstep;
	int status = 0;
	memset(err, 0, sizeof *err);
	struct rt_problem pb;
	struct engine eng;
	memset(&eng, 0, sizeof eng);
	struct rt_result *res = calloc(1, sizeof *res);
	struct output *outs = calloc((size_t)plan->noutput + 1, sizeof *outs);
	*resp = res;
	double *s_dterm = NULL, *s_dterm_step = NULL;
	if ((status = problem_init(&pb, plan, err)) != 0) {
		status = 3;
		goto done_problem;
	}
	int n = pb.n, nz = pb.m;
	double *buf = calloc((size_t)(3 * n + 2 * nz) + 1, sizeof(double));
	struct nl_common nc;
	memset(&nc, 0, sizeof nc);
	if (!res || !outs || !buf) {
		status = fail(err, 3, m->loc, "out of memory");
		goto done;
	}
	struct rt_state x = { buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 3 * n + nz };
	memcpy(x.u, m->u0, sizeof(double) * (size_t)n);
	memcpy(x.v, m->v0, sizeof(double) * (size_t)n);
	memcpy(x.z, m->z0, sizeof(double) * (size_t)nz);

	res->nterm = problem_nterm(&pb);
	double *dterm = calloc((size_t)res->nterm + 1, sizeof(double)), *Dterm = calloc((size_t)res->nterm + 1, sizeof(double));
	if (!dterm || !Dterm) {
		free(dterm);
		free(Dterm);
		status = fail(err, 3, m->loc, "out of memory");
		goto done;
	}
	s_dterm = Dterm;
	s_dterm_step = dterm;
	if ((status = alloc_history(res, plan, n, nz, N, err)) || (status = open_outputs(outs, plan, err)))
		goto done;
	if (m->init_equilibrium && (status = equilibrium(&pb, &x, err)))
		goto done;
	if ((status = engine_init(&eng, &pb, &x, err)))
		goto done;

	/* The initial acceleration solves the equation of motion at t₀. */
	if (nl_common_alloc(&nc, &pb)) {
		status = fail(err, 3, m->loc, "out of memory");
		goto done;
	}
	nl_acceleration(&nc, plan->t0, &x);

	struct state s = { plan, n, x.u, x.v, x.a, x.z, x.zd, { 0 }, plan->t0, Dterm };
	double T0 = problem_kinetic(&pb, x.u, x.v, NULL, NULL), P0 = problem_phi(&pb, x.u, x.z, NULL);
	double D = 0, W = 0;
	s.energy[0] = T0;
	s.energy[1] = P0;

	int k = 0;
	for (;;) {
		res->t[k] = s.t;
		for (int i = 0; i < n; i++)
			if (res->u[i]) {
				res->u[i][k] = x.u[i];
				res->v[i][k] = x.v[i];
				res->a[i][k] = x.a[i];
			}
		for (int j = 0; j < nz; j++)
			if (res->z[j]) {
				res->z[j][k] = x.z[j];
				res->zd[j][k] = x.zd[j];
			}
		for (int e = 0; e < RT_NENERGY; e++)
			res->energy[e][k] = s.energy[e];
		for (int q = 0; q < res->nterm; q++)
			res->dterm[q][k] = Dterm[q];
		int c = 0;
		for (int o = 0; o < plan->noutput; o++) {
			struct output row = outs[o];
			if (!(k == 0 || k == N || k % outs[o].o->every == 0))
				row.f = NULL;
			write_row(&s, &row, m->table, pb.hint);
			for (int j = 0; j < outs[o].o->nrecord; j++)
				if (outs[o].o->record[j].kind == IR_REC_EXPR)
					res->col[c++][k] = outs[o].val[j];
		}
		res->nstep = k;
		if (k == N)
			break;

		/* step k → k + 1 on the grid tₖ = t₀ + kτ, t_N = T1 */
		k++;
		double tk = k == N ? plan->t1 : plan->t0 + k * plan->dt;
		double tau = k == N ? plan->last_dt : plan->dt;
		double dW = 0, dD = 0;
		memset(dterm, 0, sizeof(double) * (size_t)res->nterm);
		if (engine_step(&eng, s.t, tk, tau, &x, &dW, &dD, dterm, err)) {
			char msg[sizeof err->msg];
			snprintf(msg, sizeof msg, "%s", err->msg);
			status = fail(err, 4, plan->loc, "t = %.10g (step %d): %s; try a smaller step%s", tk, k, msg,
			              eng.nl && eng.halvings == 0 ? " or on_failure = halve(4)" : "");
			goto done;
		}
		for (int i = 0; i < n; i++)
			if (!isfinite(x.u[i]) || !isfinite(x.v[i])) {
				double bad = !isfinite(x.u[i]) ? x.u[i] : x.v[i];
				status = fail(err, 4, plan->loc,
				              "t = %.10g (step %d): the solution is not finite (%s of dof %s is %s); "
				              "the scheme is unstable at this step: try a smaller step",
				              tk, k, !isfinite(x.u[i]) ? "the displacement" : "the velocity",
				              m->dof[i].name, isnan(bad) ? "NaN" : "infinite");
				goto done;
			}
		W += dW;
		D += dD;
		for (int q = 0; q < res->nterm; q++)
			Dterm[q] += dterm[q];
		s.t = tk;
		s.energy[0] = problem_kinetic(&pb, x.u, x.v, NULL, NULL);
		s.energy[1] = problem_phi(&pb, x.u, x.z, NULL);
		s.energy[2] = D;
		s.energy[3] = W;
		s.energy[4] = s.energy[0] + s.energy[1] + D - W - (T0 + P0);
	}

done:
	for (int o = 0; o < plan->noutput && outs; o++) {
		if (outs[o].f) {
			int bad = ferror(outs[o].f);
			if (fclose(outs[o].f) != 0 || bad) {
				if (!status)
					status = fail(err, 3, outs[o].o->loc, "error writing '%s': %s", outs[o].o->path, strerror(errno));
			}
		}
		if (outs[o].reg)
			for (int j = 0; j < outs[o].o->nrecord; j++)
				free(outs[o].reg[j]);
		free(outs[o].reg);
		free(outs[o].val);
	}
	engine_free(&eng);
	nl_common_free(&nc);
	free(buf);
	free(s_dterm);
	free(s_dterm_step);
done_problem:
	free(outs);
	problem_free(&pb);
	return status;
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
