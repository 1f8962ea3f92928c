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

/* Loads: f(t) = force program − M d a(t) (the support term of DESIGN.md,
 * "The problem class"). */
struct loads {
	const struct ir_model *m;
	double *reg_f, *reg_s;      /* VM registers */
	double *md;                 /* M d */
	int *hint;
};

static void load_eval(void *ctx, double t, double *f)
{
	struct loads *L = ctx;
	const struct ir_model *m = L->m;
	struct vm_input in = { t, NULL, NULL, NULL, NULL, NULL, m->table, L->hint };
	if (m->force)
		vm_eval(m->force, L->reg_f, &in, f);
	else
		memset(f, 0, sizeof(double) * (size_t)m->ndof);
	if (m->support) {
		double ag;
		vm_eval(m->support, L->reg_s, &in, &ag);
		for (int i = 0; i < m->ndof; i++)
			f[i] -= L->md[i] * ag;
	}
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
	double *u, *v, *a;
	double energy[RT_NENERGY];
	double t;
};

static double column_value(const struct state *s, struct output *out, int j, const struct ir_table *tables, int *hint)
{
	const struct ir_record *r = &out->o->record[j];
	switch (r->kind) {
	case IR_REC_T: return s->t;
	case IR_REC_U: return (r->deriv == 0 ? s->u : r->deriv == 1 ? s->v : s->a)[r->dof];
	case IR_REC_KINETIC: case IR_REC_STORED: case IR_REC_DISSIPATED:
	case IR_REC_WORK: case IR_REC_RESIDUAL:
		return s->energy[r->kind - IR_REC_KINETIC];
	case IR_REC_EXPR: {
		struct vm_input in = { s->t, s->u, s->v, s->a, NULL, NULL, tables, hint };
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
	for (int i = 0; i < r->ndof; i++) {
		free(r->u[i]);
		free(r->v[i]);
		free(r->a[i]);
	}
	free(r->u);
	free(r->v);
	free(r->a);
	for (int i = 0; i < RT_NENERGY; i++)
		free(r->energy[i]);
	for (int i = 0; i < r->ncol; i++)
		free(r->col[i]);
	free(r->col);
	free(r->col_name);
	free(r->t);
	free(r);
}

/* The operators as the stepper needs them; modal damping is assembled here
 * (C = M Φ diag(2ξωᵢ) Φᵀ M with M-normalised modes: DESIGN.md, "More
 * statements"). */
static int build_system(const struct ir_run *plan, struct rt_system *sys, double **Cbuf, struct rt_error *err)
{
	const struct ir_model *m = plan->model;
	int n = m->ndof;
	size_t nn = (size_t)n * (size_t)n;
	sys->n = n;
	sys->M = m->mass.a;
	sys->K = m->stiffness.a;
	sys->C = m->damping_kind == IR_DAMP_MATRIX ? m->damping.a : NULL;
	sys->kl = plan->solver == IR_SOLVER_BANDED ? m->kl : n - 1;
	sys->ku = plan->solver == IR_SOLVER_BANDED ? m->ku : n - 1;
	sys->banded = plan->solver == IR_SOLVER_BANDED;

	double asym = la_asymmetry(n, m->mass.a);
	if (asym > 1e-12) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++) {
				double x = m->mass.a[i + (size_t)j * n], y = m->mass.a[j + (size_t)i * n];
				if (x != y)
					return fail(err, 3, m->mass.loc,
					            "the mass matrix is not symmetric: entry (%d, %d) is %.15g but (%d, %d) is %.15g",
					            i + 1, j + 1, x, j + 1, i + 1, y);
			}
	}
	struct la_factor *f = la_factor_alloc(n, LA_DENSE_SPD, 0, 0);
	if (!f)
		return fail(err, 3, m->loc, "out of memory");
	int info = la_factor(f, m->mass.a);
	la_factor_free(f);
	if (info > 0)
		return fail(err, 3, m->mass.loc, "the mass matrix is not positive definite: pivot %d (dof %s)",
		            info, m->dof[info - 1].name);
	if (m->damping_kind == IR_DAMP_MODAL) {
		double *w = malloc(sizeof(double) * (size_t)n), *phi = malloc(sizeof(double) * nn);
		double *mp = malloc(sizeof(double) * nn), *C = calloc(nn, sizeof(double));
		if (!w || !phi || !mp || !C) {
			free(w); free(phi); free(mp); free(C);
			return fail(err, 3, m->loc, "out of memory");
		}
		if (la_sygv(n, m->stiffness.a, m->mass.a, w, phi) != 0) {
			free(w); free(phi); free(mp); free(C);
			return fail(err, 3, m->damping.loc, "modal damping: the eigenproblem K φ = ω² M φ failed");
		}
		/* mp = M Φ, then C = Σᵢ 2ξωᵢ (Mφᵢ)(Mφᵢ)ᵀ */
		for (int k = 0; k < n; k++)
			la_gemv(n, m->mass.a, phi + (size_t)k * n, mp + (size_t)k * n);
		for (int k = 0; k < n; k++) {
			double c = 2 * m->modal_xi * sqrt(w[k] > 0 ? w[k] : 0);
			const double *x = mp + (size_t)k * n;
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++)
					C[i + (size_t)j * n] += c * x[i] * x[j];
		}
		/* symmetrise against round-off */
		for (int j = 0; j < n; j++)
			for (int i = j + 1; i < n; i++) {
				double s = 0.5 * (C[i + (size_t)j * n] + C[j + (size_t)i * n]);
				C[i + (size_t)j * n] = C[j + (size_t)i * n] = s;
			}
		free(w); free(phi); free(mp);
		*Cbuf = C;
		sys->C = C;
	}
	return 0;
}

static double quad_band(const struct rt_system *sys, const double *A, const double *x, double *tmp)
{
	la_gemv_band(sys->n, sys->kl, sys->ku, A, x, tmp);
	double s = 0;
	for (int i = 0; i < sys->n; i++)
		s += x[i] * tmp[i];
	return s;
}

int rt_run(const struct ir_run *plan, struct rt_result **resp, struct rt_error *err)
{
	const struct ir_model *m = plan->model;
	int n = m->ndof, N = plan->nstep;
	int status = 0;
	memset(err, 0, sizeof *err);
	*resp = NULL;

	struct rt_system sys = { 0 };
	double *Cbuf = NULL;
	const char **names = malloc(sizeof(char *) * (size_t)n);
	for (int i = 0; i < n && names; i++)
		names[i] = m->dof[i].name;
	sys.dof_name = names;

	struct loads L = { m, NULL, NULL, NULL, NULL };
	struct output *outs = calloc((size_t)plan->noutput + 1, sizeof *outs);
	double *u = calloc((size_t)n, sizeof(double)), *v = calloc((size_t)n, sizeof(double));
	double *a = calloc((size_t)n, sizeof(double)), *f = calloc((size_t)n, sizeof(double));
	double *uprev = calloc((size_t)n, sizeof(double)), *vprev = calloc((size_t)n, sizeof(double));
	double *fprev = calloc((size_t)n, sizeof(double)), *tmp = calloc((size_t)n, sizeof(double));
	double *tmp2 = calloc((size_t)n, sizeof(double));
	L.reg_f = calloc((size_t)(m->force ? m->force->n : 0) + 1, sizeof(double));
	L.reg_s = calloc((size_t)(m->support ? m->support->n : 0) + 1, sizeof(double));
	L.md = calloc((size_t)n, sizeof(double));
	L.hint = calloc((size_t)m->ntable + 1, sizeof(int));
	struct rt_result *res = calloc(1, sizeof *res);
	void *st = NULL;
	const struct stepper_type *type = step_lookup(plan->scheme.family);
	if (!type) {
		status = fail(err, 3, plan->scheme.loc, "scheme %s: its family is not available for this model",
		              plan->scheme.name);
		goto done;
	}
	if (!names || !outs || !u || !v || !a || !f || !uprev || !vprev || !fprev || !tmp || !tmp2 ||
	    !L.reg_f || !L.reg_s || !L.md || !L.hint || !res) {
		status = fail(err, 3, m->loc, "out of memory");
		goto done;
	}
	if ((status = build_system(plan, &sys, &Cbuf, err)))
		goto done;
	if (m->support)
		la_gemv(n, m->mass.a, m->support_dir, L.md);
	sys.load = load_eval;
	sys.load_ctx = &L;

	/* Results: every dof's history when it fits the budget, else only what
	 * the records name. */
	res->ndof = n;
	res->nstep = 0;
	res->t = malloc(sizeof(double) * (size_t)(N + 1));
	res->u = calloc((size_t)n, sizeof(double *));
	res->v = calloc((size_t)n, sizeof(double *));
	res->a = calloc((size_t)n, sizeof(double *));
	res->history_bytes = (size_t)3 * sizeof(double) * (size_t)(N + 1) * (size_t)n;
	res->kept_all = res->history_bytes <= plan->history_budget;
	char *keep = calloc((size_t)n, 1);
	if (!res->t || !res->u || !res->v || !res->a || !keep) {
		free(keep);
		status = fail(err, 3, m->loc, "out of memory for the history");
		goto done;
	}
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			if (plan->output[o].record[j].kind == IR_REC_U)
				keep[plan->output[o].record[j].dof] = 1;
	for (int i = 0; i < n; i++) {
		if (!res->kept_all && !keep[i])
			continue;
		res->u[i] = malloc(sizeof(double) * (size_t)(N + 1));
		res->v[i] = malloc(sizeof(double) * (size_t)(N + 1));
		res->a[i] = malloc(sizeof(double) * (size_t)(N + 1));
		if (!res->u[i] || !res->v[i] || !res->a[i]) {
			free(keep);
			status = fail(err, 3, m->loc, "out of memory for the history of %d steps: "
			              "lower history_budget and record what you need", N);
			goto done;
		}
	}
	free(keep);
	for (int e = 0; e < RT_NENERGY; e++)
		if (!(res->energy[e] = malloc(sizeof(double) * (size_t)(N + 1)))) {
			status = fail(err, 3, m->loc, "out of memory");
			goto done;
		}
	int ncol = 0;
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			ncol += plan->output[o].record[j].kind == IR_REC_EXPR;
	res->col = calloc((size_t)ncol + 1, sizeof(double *));
	res->col_name = calloc((size_t)ncol + 1, sizeof(char *));
	if (!res->col || !res->col_name) {
		status = fail(err, 3, m->loc, "out of memory");
		goto done;
	}
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			if (plan->output[o].record[j].kind == IR_REC_EXPR) {
				res->col_name[res->ncol] = plan->output[o].record[j].name;
				if (!(res->col[res->ncol++] = malloc(sizeof(double) * (size_t)(N + 1)))) {
					status = fail(err, 3, m->loc, "out of memory");
					goto done;
				}
			}

	/* Outputs: files are opened before stepping, so an unwritable path is
	 * found before any work is done. */
	for (int o = 0; o < plan->noutput; o++) {
		const struct ir_output *po = &plan->output[o];
		outs[o].o = po;
		outs[o].reg = calloc((size_t)po->nrecord + 1, sizeof(double *));
		outs[o].val = calloc((size_t)po->nrecord + 1, sizeof(double));
		if (!outs[o].reg || !outs[o].val) {
			status = fail(err, 3, po->loc, "out of memory");
			goto done;
		}
		for (int j = 0; j < po->nrecord; j++)
			if (po->record[j].kind == IR_REC_EXPR &&
			    !(outs[o].reg[j] = calloc((size_t)po->record[j].expr->n + 1, sizeof(double)))) {
				status = fail(err, 3, po->loc, "out of memory");
				goto done;
			}
		if (po->path) {
			outs[o].f = fopen(po->path, "w");
			if (!outs[o].f) {
				status = fail(err, 3, po->loc, "cannot write '%s': %s", po->path, strerror(errno));
				goto done;
			}
			for (int j = 0; j < po->nrecord; j++)
				fprintf(outs[o].f, "%s%s", j ? "," : "", po->record[j].name);
			fputc('\n', outs[o].f);
		}
	}

	/* The stepper, and the step matrix for the regular step. */
	st = type->alloc(&sys, plan->scheme.p, err);
	if (!st) {
		status = err->code ? err->code : 3;
		if (!err->loc.file)
			err->loc = plan->scheme.loc;
		goto done;
	}
	if (type->set_step(st, plan->dt, err)) {
		status = err->code ? err->code : 3;
		err->loc = err->code == 3 ? plan->step_loc : plan->loc;
		goto done;
	}

	/* Initial state; the acceleration solves the equation of motion at t₀:
	 * M a₀ = f(t₀) − C v₀ − K u₀. */
	memcpy(u, m->u0, sizeof(double) * (size_t)n);
	memcpy(v, m->v0, sizeof(double) * (size_t)n);
	load_eval(&L, plan->t0, f);
	{
		struct la_factor *mf = la_factor_alloc(n, sys.banded ? LA_BAND_SPD : LA_DENSE_SPD, sys.kl, sys.ku);
		if (!mf) {
			status = fail(err, 3, m->loc, "out of memory");
			goto done;
		}
		la_factor(mf, m->mass.a);
		la_gemv_band(n, sys.kl, sys.ku, sys.K, u, tmp);
		for (int i = 0; i < n; i++)
			a[i] = f[i] - tmp[i];
		if (sys.C) {
			la_gemv_band(n, sys.kl, sys.ku, sys.C, v, tmp);
			for (int i = 0; i < n; i++)
				a[i] -= tmp[i];
		}
		la_solve(mf, a);
		la_factor_free(mf);
	}

	/* Energy ledger (DESIGN.md, "Energy ledger"), code_aster's pairing for
	 * the Newmark family: ΔW = Δu·(fᵏ⁻¹ + fᵏ)/2, ΔD = Δu·C(vᵏ⁻¹ + vᵏ)/2. */
	struct state s = { plan, n, u, v, a, { 0 }, plan->t0 };
	double T0 = 0.5 * quad_band(&sys, sys.M, v, tmp), P0 = 0.5 * quad_band(&sys, sys.K, u, tmp);
	double D = 0, W = 0;
	s.energy[0] = T0;
	s.energy[1] = P0;

	int k = 0;
	for (;;) {
		/* store row k */
		res->t[k] = s.t;
		for (int i = 0; i < n; i++)
			if (res->u[i]) {
				res->u[i][k] = u[i];
				res->v[i][k] = v[i];
				res->a[i][k] = a[i];
			}
		for (int e = 0; e < RT_NENERGY; e++)
			res->energy[e][k] = s.energy[e];
		int c = 0;
		for (int o = 0; o < plan->noutput; o++) {
			int write = k == 0 || k == N || k % outs[o].o->every == 0;
			struct output tmpout = outs[o];
			if (!write)
				tmpout.f = NULL;
			write_row(&s, &tmpout, m->table, L.hint);
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
		double tau = tk - s.t;
		if (k == N && fabs(tau - plan->dt) > 1e-9 * plan->dt) {
			if (type->set_step(st, tau, err)) {
				status = 4;
				err->code = 4;
				err->loc = plan->loc;
				goto done;
			}
		} else {
			tau = plan->dt;
		}
		memcpy(uprev, u, sizeof(double) * (size_t)n);
		memcpy(vprev, v, sizeof(double) * (size_t)n);
		memcpy(fprev, f, sizeof(double) * (size_t)n);
		if (type->step(st, tk, tau, u, v, a, err)) {
			status = fail(err, 4, plan->loc, "t = %.10g (step %d): %s", tk, k, err->msg);
			goto done;
		}
		for (int i = 0; i < n; i++)
			if (!isfinite(u[i]) || !isfinite(v[i])) {
				double bad = !isfinite(u[i]) ? u[i] : v[i];
				status = fail(err, 4, plan->loc,
				              "t = %.10g (step %d): the solution is not finite (%s of dof %s is %s); "
				              "the scheme is unstable at this step: try a smaller step",
				              tk, k, !isfinite(u[i]) ? "the displacement" : "the velocity",
				              m->dof[i].name, isnan(bad) ? "NaN" : "infinite");
				goto done;
			}
		load_eval(&L, tk, f);
		double dW = 0, dD = 0;
		if (sys.C) {
			for (int i = 0; i < n; i++)
				tmp2[i] = vprev[i] + v[i];
			la_gemv_band(n, sys.kl, sys.ku, sys.C, tmp2, tmp);
		}
		for (int i = 0; i < n; i++) {
			double du = u[i] - uprev[i];
			dW += du * 0.5 * (fprev[i] + f[i]);
			if (sys.C)
				dD += du * 0.5 * tmp[i];
		}
		W += dW;
		D += dD;
		s.t = tk;
		s.energy[0] = 0.5 * quad_band(&sys, sys.M, v, tmp);
		s.energy[1] = 0.5 * quad_band(&sys, sys.K, u, tmp);
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
	if (st)
		type->free(st);
	free(outs);
	free(u); free(v); free(a); free(f); free(uprev); free(vprev); free(fprev); free(tmp); free(tmp2);
	free(L.reg_f); free(L.reg_s); free(L.md); free(L.hint);
	free(Cbuf);
	free(names);
	*resp = res;
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
