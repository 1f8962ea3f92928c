/* exec.c — executes statements: definitions, runs, print, check, plot,
 * import; and the session that holds them (DESIGN.md, "The language by
 * example").  Exit statuses follow DESIGN.md, "Errors". */
#include <config.h>

#include "check.h"
#include "fe.h"
#include "interp.h"
#include "parse.h"
#include "plot.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int exec_stmts(struct eval *ev, struct ast_vec *stmts);


/* ---- print ---- */

static int print_value(struct eval *ev, FILE *f, struct value *v, struct loc loc)
{
	char buf[32];
	double k;
	switch (v->kind) {
	case VAL_NUM:
		if (!ir_is_const(ev->prog, v->reg, &k))
			return eval_error(ev, loc, "this value depends on t or the state and cannot be printed here");
		value_format_num(k, buf);
		fputs(buf, f);
		return 0;
	case VAL_MAT:
		fputc('[', f);
		for (int i = 0; i < v->rows; i++) {
			for (int j = 0; j < v->cols; j++) {
				if (!value_const(ev, v, i * v->cols + j, &k))
					return eval_error(ev, loc, "this value depends on t or the state");
				value_format_num(k, buf);
				fprintf(f, "%s%s", j ? ", " : "", buf);
			}
			if (i + 1 < v->rows)
				fputs("; ", f);
		}
		fputc(']', f);
		return 0;
	case VAL_STR:
		fputs(v->str, f);
		return 0;
	case VAL_RUN: {
		const struct ir_run *p = v->run->plan;
		fprintf(f, "<run of %s with %s, %d step%s>", p->model->name, p->scheme.name, v->run->res->nstep,
		        v->run->res->nstep == 1 ? "" : "s");
		return 0;
	}
	case VAL_HIST:
		fprintf(f, "<history %s, %d points>", v->ser.label, v->run->res->nstep + 1);
		return 0;
	case VAL_SYMBOL:
		fputs(v->str, f);
		return 0;
	case VAL_DRY:
		fputs("<not computed>", f);
		return 0;
	case VAL_MODES: {
		/* a table, one mode a row (code_aster's CALC_MODES listing) */
		const struct modes_value *mv = v->modes;
		value_format_num(mv->total, buf);
		fprintf(f, "<modes of %s, %d of %d dofs, total mass %s>\n  %-5s %-24s %-24s %-24s %-24s %-24s %s",
		        mv->model, mv->k, mv->n, buf, "mode", "omega", "f", "period", "gamma", "meff", "share");
		for (int j = 0; j < mv->k; j++) {
			char c[6][32];
			const double x[6] = { mv->omega[j], mv->f[j], mv->period[j], mv->gamma[j], mv->meff[j], mv->share[j] };
			for (int q = 0; q < 6; q++)
				value_format_num(x[q], c[q]);
			if (!(mv->total > 0))   /* no mass along d: no share (eval.c) */
				strcpy(c[5], "-");
			fprintf(f, "\n  %-5d %-24s %-24s %-24s %-24s %-24s %s", j + 1, c[0], c[1], c[2], c[3], c[4], c[5]);
		}
		return 0;
	}
	case VAL_SPECTRUM: {
		/* a table, one period a row */
		const struct spectrum_value *sp = v->spec;
		value_format_num(sp->xi, buf);
		fprintf(f, "<spectrum, xi = %s, %d period%s>\n  %-24s %-24s %-24s %s", buf, sp->n, sp->n == 1 ? "" : "s",
		        "period", "sd", "psv", "psa");
		for (int i = 0; i < sp->n; i++) {
			char c[4][32];
			value_format_num(sp->period[i], c[0]);
			value_format_num(sp->sd[i], c[1]);
			value_format_num(sp->psv[i], c[2]);
			value_format_num(sp->psa[i], c[3]);
			fprintf(f, "\n  %-24s %-24s %-24s %s", c[0], c[1], c[2], c[3]);
		}
		return 0;
	}
	}
	return 0;
}

/* The names of a model's dofs or internal variables whose history is kept
 * (kept = 1) or not (0), a vector's consecutive elements as x[1..n],
 * followed by the derivative suffix (' or ''). */
/* hist NULL: none of the n is kept (rt_result's u when no dof is) */
static void list_dofs(FILE *f, const struct ir_dof_list *l, double *const *hist, int kept, const char *suffix,
                      int *first)
{
#define KEPT(i) (hist && hist[i] != NULL)
	char nm[IR_NAME_SIZE];
	for (int g = 0; g < l->ngroup; g++) {
		const struct ir_dof_group *dg = &l->group[g];
		/* in the order of the names (a field may number its unknowns
		 * in a node order of its own: lang/fe.c), a range while they
		 * follow each other */
#define AT(q) ir_dof_group_nth(dg, q)
		for (int i = 0; i < dg->size;) {
			int j = i + 1;
			while (dg->vector && j < dg->size && KEPT(AT(j)) == KEPT(AT(i)) &&
			       ir_dof_group_element(dg, AT(j)) == ir_dof_group_element(dg, AT(j - 1)) + 1)
				j++;
			if (KEPT(AT(i)) == kept) {
				fprintf(f, "%s", *first ? "" : ", ");
				*first = 0;
				if (j - i == 1)
					fprintf(f, "%s%s", ir_dof_list_name(l, AT(i), nm, sizeof nm), suffix);
				else
					fprintf(f, "%s[%d..%d]%s", dg->name, ir_dof_group_element(dg, AT(i)),
					        ir_dof_group_element(dg, AT(j - 1)), suffix);
			}
			i = j;
		}
#undef AT
	}
#undef KEPT
}

/* print r, alone on its line: the run and the histories it keeps, by
 * the names that select them (r.u, r.x[2]', r.kinetic, r.s). */
static void print_run_histories(FILE *f, const struct run_value *rv)
{
	const struct rt_result *r = rv->res;
	const struct ir_model *m = rv->plan->model;
	char a[32], b[32];
	value_format_num(r->t[0], a);
	value_format_num(r->t[r->nstep], b);
	fprintf(f, "\n  histories of %d point%s, t from %s to %s:", r->nstep + 1, r->nstep ? "s" : "", a, b);
	fprintf(f, "\n  %-12s t", "time");
	int first = 1;
	if (m->ndof) {
		fprintf(f, "\n  %-12s ", "dofs");
		for (int k = 0; k < 3; k++)
			list_dofs(f, &m->dofs, r->u, 1, k == 0 ? "" : k == 1 ? "'" : "''", &first);
		if (first)
			fputs("none kept", f);
	}
	if (m->nint && r->z) {
		first = 1;
		fprintf(f, "\n  %-12s ", "internal");
		for (int k = 0; k < 2; k++)
			list_dofs(f, &m->intvars, r->z, 1, k ? "'" : "", &first);
		if (first)
			fputs("none kept", f);
	}
	fprintf(f, "\n  %-12s ", "energies");
	for (int i = 0; i < RT_NENERGY; i++)
		fprintf(f, "%s%s", i ? ", " : "", rt_energy_name[i]);
	if (r->nterm)
		fprintf(f, "\n  %-12s dissipated[1%s%.0d]", "dissipation", r->nterm > 1 ? ".." : "",
		        r->nterm > 1 ? r->nterm : 0);
	int nl = r->nlam - r->nimp - r->nimpt;
	if (nl)
		fprintf(f, "\n  %-12s lambda[1%s%.0d]", "multipliers", nl > 1 ? ".." : "", nl > 1 ? nl : 0);
	if (r->nimp)
		fprintf(f, "\n  %-12s impulse[1%s%.0d]", "impulses", r->nimp > 1 ? ".." : "", r->nimp > 1 ? r->nimp : 0);
	if (r->nimpt)
		fprintf(f, "\n  %-12s impulse_t[1%s%.0d]", "tangential", r->nimpt > 1 ? ".." : "",
		        r->nimpt > 1 ? r->nimpt : 0);
	if (r->ncol) {
		fprintf(f, "\n  %-12s ", "recorded");
		for (int i = 0; i < r->ncol; i++)
			fprintf(f, "%s%s", i ? ", " : "", r->col_name[i]);
	}
	first = 1;
	int nk = 0;
	for (int i = 0; i < m->ndof; i++)
		nk += !r->u || r->u[i] == NULL;
	for (int i = 0; i < m->nint && r->z; i++)
		nk += r->z[i] == NULL;
	if (nk) {
		fprintf(f, "\n  %-12s ", "not kept");
		list_dofs(f, &m->dofs, r->u, 0, "", &first);
		if (r->z)
			list_dofs(f, &m->intvars, r->z, 0, "", &first);
		fputs(" (beyond history_budget: record them)", f);
	}
}

static int exec_print(struct eval *ev, struct ast_stmt *st)
{
	/* The line is composed first, so that an error in its last value
	 * leaves no partial line behind. */
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	if (!f)
		return eval_error(ev, st->loc, "out of memory");
	int rc = 0;
	for (int i = 0; i < st->exprs.n && rc == 0; i++) {
		struct value v;
		struct ast_expr *e = st->exprs.v[i];
		rc = eval_expr(ev, e, &v);
		if (rc == 0 && i)
			fputc(' ', f);
		if (rc == 0)
			rc = print_value(ev, f, &v, e->loc);
		if (rc == 0 && v.kind == VAL_RUN && st->exprs.n == 1)
			print_run_histories(f, v.run);
	}
	fclose(f);
	if (rc == 0) {
		fwrite(line, 1, len, stdout);
		fputc('\n', stdout);
		fflush(stdout);
	}
	free(line);
	return rc;
}

/* ---- check ---- */

/* Why a check on a NaN failed: any comparison with NaN is false but !=,
 * which is true, so a check involving a NaN fails whatever it compares and
 * says so (dyn(5), "Checks"). */
static const char *nan_note(double x, double y)
{
	return isnan(x) && isnan(y) ? ": both values are NaN"
	       : isnan(x)           ? ": the checked value is NaN"
	       : isnan(y)           ? ": the reference is NaN"
	                            : "";
}

/* The first comparison inside a condition (under not, and, or) with an
 * operand that is NaN: its operands in *x and *y, or NULL.  IEEE makes
 * NaN > 1e-3 false, so 'check not (e > 1e-3)' held for e = NaN; dyn(5)
 * has a check fail whenever a value it compares is NaN.  -1 on an
 * evaluation error (which the condition's own evaluation reports). */
static int nan_comparison(struct eval *ev, struct ast_expr *e, struct ast_expr **found, double *x, double *y)
{
	if (e->kind == AST_UNARY && e->op == AST_OP_NOT)
		return nan_comparison(ev, e->lhs, found, x, y);
	if (e->kind != AST_BINARY)
		return 0;
	if (e->op == AST_OP_AND || e->op == AST_OP_OR) {
		if (nan_comparison(ev, e->lhs, found, x, y))
			return -1;
		return *found ? 0 : nan_comparison(ev, e->rhs, found, x, y);
	}
	if (e->op < AST_OP_LT || e->op > AST_OP_NE)
		return 0;
	if (eval_number(ev, e->lhs, x, "the checked value") || eval_number(ev, e->rhs, y, "the reference"))
		return -1;
	if (isnan(*x) || isnan(*y))
		*found = e;
	return 0;
}

/* check A == B within TOL [relative]; check COND.  A failed check is
 * reported with its values and location; the script goes on. */
static int exec_check(struct eval *ev, struct ast_stmt *st)
{
	struct ast_expr *e = st->value;
	char a[32], b[32], c[32];
	if (st->tol) {
		if (e->kind != AST_BINARY || e->op != AST_OP_EQ)
			return eval_error(ev, e->loc, "'check ... within TOL' needs a comparison A == B");
		double x, y, tol;
		if (eval_number(ev, e->lhs, &x, "the checked value") || eval_number(ev, e->rhs, &y, "the reference") ||
		    eval_number(ev, st->tol, &tol, "the tolerance"))
			return -1;
		if (!(tol >= 0))
			return eval_error(ev, st->tol->loc, "the tolerance must be non-negative");
		double err = fabs(x - y), bound = st->relative ? tol * fabs(y) : tol;
		if (!(err <= bound)) {
			ev->s->failed_checks++;
			value_format_num(x, a);
			value_format_num(y, b);
			char d[32];
			value_format_num(st->relative && y != 0 ? err / fabs(y) : err, d);
			value_format_num(tol, c);
			if (isnan(x) || isnan(y))
				fprintf(stderr, "%s:%d:%d: check failed: %s, expected %s%s\n", st->loc.file,
				        st->loc.line, st->loc.col, a, b, nan_note(x, y));
			else if (st->relative && y == 0)
				/* no relative error against 0: only A == 0 passes */
				fprintf(stderr, "%s:%d:%d: check failed: %s, expected %s: a relative tolerance "
				        "against 0 passes 0 alone (the absolute error is %s; give an absolute "
				        "tolerance)\n", st->loc.file, st->loc.line, st->loc.col, a, b, d);
			else
				fprintf(stderr, "%s:%d:%d: check failed: %s, expected %s: %s error %s exceeds %s\n",
				        st->loc.file, st->loc.line, st->loc.col, a, b,
				        st->relative ? "relative" : "absolute", d, c);
		}
		return 0;
	}
	double ok;
	if (e->kind == AST_BINARY && e->op >= AST_OP_LT && e->op <= AST_OP_NE) {
		double x, y;
		if (eval_number(ev, e->lhs, &x, "the checked value") || eval_number(ev, e->rhs, &y, "the reference"))
			return -1;
		struct value v;
		if (eval_expr(ev, e, &v) || eval_number(ev, e, &ok, "a check"))
			return -1;
		if (ok == 0 || isnan(x) || isnan(y)) {
			ev->s->failed_checks++;
			value_format_num(x, a);
			value_format_num(y, b);
			fprintf(stderr, "%s:%d:%d: check failed: %s %s %s is %s%s\n", st->loc.file, st->loc.line,
			        st->loc.col, a, ast_op_text[e->op], b, ok == 0 ? "false" : "true", nan_note(x, y));
		}
		return 0;
	}
	if (eval_number(ev, e, &ok, "a check"))
		return -1;
	struct ast_expr *cmp = NULL;
	double x = 0, y = 0;
	if (nan_comparison(ev, e, &cmp, &x, &y))
		return -1;
	if (cmp) {
		ev->s->failed_checks++;
		value_format_num(x, a);
		value_format_num(y, b);
		fprintf(stderr, "%s:%d:%d: check failed: %s %s %s (at %d:%d) compares NaN%s\n", st->loc.file,
		        st->loc.line, st->loc.col, a, ast_op_text[cmp->op], b, cmp->loc.line, cmp->loc.col,
		        nan_note(x, y));
		return 0;
	}
	if (ok == 0 || isnan(ok)) {
		ev->s->failed_checks++;
		fprintf(stderr, "%s:%d:%d: check failed: %s\n", st->loc.file, st->loc.line, st->loc.col,
		        isnan(ok) ? "the value is NaN" : "the condition is false (0)");
	}
	return 0;
}

/* ---- plot ---- */

/* The constants of a vector as doubles (NULL after reporting an error). */
static double *vector_values(struct eval *ev, struct value *v, struct loc loc, int *n)
{
	if (v->kind != VAL_MAT || !(v->rows == 1 || v->cols == 1))
		return eval_error(ev, loc, "plot needs histories such as r.u, vectors or a spectrum, not %s",
		                  value_kind_name(v)), NULL;
	*n = v->rows * v->cols;
	double *y = arena_alloc(ev->a, sizeof(double) * (size_t)*n + 1);
	for (int i = 0; i < *n; i++)
		if (!value_const(ev, v, i, &y[i]))
			return eval_error(ev, loc, "this value depends on t or the state"), NULL;
	return y;
}

/* A series of a plot that is not a history: a spectrum (its
 * pseudo-acceleration against the period), or a vector against another
 * (plot s.sd vs s.period). */
static int plot_vectors(struct eval *ev, struct ast_expr *e, struct value *y, struct plot_series *ser,
                        const char **xlabel)
{
	struct ast_expr *ye = e->kind == AST_PAIR ? e->lhs : e;
	if (y->kind == VAL_SPECTRUM) {
		if (e->kind == AST_PAIR)
			return eval_error(ev, e->loc, "a spectrum is plotted against its periods: plot s, or plot s.sd vs "
			                  "s.period");
		ser->x = y->spec->period;
		ser->y = y->spec->psa;
		ser->n = y->spec->n;
		ser->label = "psa";
		*xlabel = "period";
		return 0;
	}
	if (e->kind != AST_PAIR)
		return eval_error(ev, ye->loc, "a vector is plotted against another: plot y vs x");
	struct value x;
	int nx;
	if (!(ser->y = vector_values(ev, y, ye->loc, &ser->n)) || eval_expr(ev, e->rhs, &x) ||
	    !(ser->x = vector_values(ev, &x, e->rhs->loc, &nx)))
		return -1;
	if (nx != ser->n)
		return eval_error(ev, e->loc, "plot y vs x: y has %d values, x has %d", ser->n, nx);
	ser->label = ye->kind == AST_FIELD ? ye->name : "y";
	*xlabel = e->rhs->kind == AST_FIELD ? e->rhs->name : "x";
	return 0;
}

/* A plot's file name and options (title, xlabel, ylabel: strings; logx,
 * logy: true/false) into spec and *path, checked: an SVG file or the
 * REPL's $terminal.  A run's block checks its plots with it before the
 * run steps (check_block_plots), so that a misspelt option is not found
 * after an hour of stepping. */
static int plot_setup(struct eval *ev, struct ast_stmt *st, struct plot_spec *spec, const char **path)
{
	/* the REPL's :plot is a plot with no file; a script's names one */
	if (ev->s->term_plot && st->path)
		return eval_error(ev, st->path->loc, ":plot draws on the terminal: a plot to a file is the statement "
		                  "plot Y to \"FILE.svg\"");
	if (!st->path && !ev->s->term_plot)
		return eval_error(ev, st->loc, "plot needs a file: plot Y to \"FILE.svg\" (at the prompt, :plot Y "
		                  "draws on the terminal)");
	if (!st->path)
		*path = "$terminal";
	else if (eval_string(ev, st->path, path, "the file name"))
		return -1;
	for (int i = 0; i < st->defs.n; i++) {
		struct ast_arg *o = st->defs.v[i];
		double flag;
		if (strcmp(o->name, "title") == 0 || strcmp(o->name, "xlabel") == 0 || strcmp(o->name, "ylabel") == 0) {
			const char *text;
			if (eval_string(ev, o->value, &text, o->name))
				return -1;
			*(o->name[0] == 't' ? &spec->title : o->name[0] == 'x' ? &spec->xlabel : &spec->ylabel) = text;
		} else if (strcmp(o->name, "logx") == 0 || strcmp(o->name, "logy") == 0) {
			if (eval_number(ev, o->value, &flag, o->name))
				return -1;
			*(o->name[3] == 'x' ? &spec->logx : &spec->logy) = flag != 0;
		} else {
			return eval_error(ev, o->loc, "unknown plot option '%s' (options: title, xlabel, ylabel, logx, logy)",
			                  o->name);
		}
	}
	if (strcmp(*path, "$terminal") == 0)
		return 0;
	size_t len = strlen(*path);
	if (len < 4 || strcmp(*path + len - 4, ".svg") != 0) {
		if (len >= 4 && strcmp(*path + len - 4, ".png") == 0)
			return eval_error(ev, st->path->loc, "PNG output is not available: write an .svg file");
		return eval_error(ev, st->path->loc, "plots are written as SVG: the file name must end in .svg");
	}
	return 0;
}

static int exec_plot(struct eval *ev, struct ast_stmt *st)
{
	int n = st->exprs.n;
	struct plot_series *ser = arena_alloc(ev->a, sizeof *ser * (size_t)n);
	const char *xlabel = "t";
	for (int i = 0; i < n; i++) {
		struct ast_expr *e = st->exprs.v[i];
		struct ast_expr *ye = e->kind == AST_PAIR ? e->lhs : e;
		struct value y, x;
		if (eval_expr(ev, ye, &y))
			return -1;
		if (y.kind == VAL_SPECTRUM || y.kind == VAL_MAT) {
			if (plot_vectors(ev, e, &y, &ser[i], &xlabel))
				return -1;
			continue;
		}
		if (hist_values(ev, &y, ye->loc, &ser[i].y, &ser[i].n))
			return -1;
		ser[i].label = y.ser.label;
		if (e->kind == AST_PAIR) {
			int nx;
			if (eval_expr(ev, e->rhs, &x) || hist_values(ev, &x, e->rhs->loc, &ser[i].x, &nx))
				return -1;
			if (nx != ser[i].n)
				return eval_error(ev, e->loc, "%s and %s come from runs of different lengths", y.ser.label, x.ser.label);
			xlabel = x.ser.label;
		} else {
			ser[i].x = y.run->res->t;
		}
	}
	for (int i = 0; i < n; i++)
		if (((struct ast_expr *)st->exprs.v[i])->label)
			ser[i].label = ((struct ast_expr *)st->exprs.v[i])->label;
	const char *path;
	struct plot_spec spec = { 0 };
	spec.xlabel = xlabel;
	spec.ylabel = n == 1 ? ser[0].label : "";
	spec.nseries = n;
	spec.series = ser;
	if (plot_setup(ev, st, &spec, &path))
		return -1;
	/* a logarithmic axis draws positive values only: a plot with none
	 * was an empty frame, written with status 0 */
	long drawable = 0;
	for (int i = 0; i < n && (spec.logx || spec.logy) && !drawable; i++)
		for (int k = 0; k < ser[i].n && ser[i].x && ser[i].y; k++) {
			double px = ser[i].x[k], py = ser[i].y[k];
			drawable += isfinite(px) && isfinite(py) && (!spec.logx || px > 0) && (!spec.logy || py > 0);
		}
	if ((spec.logx || spec.logy) && !drawable)
		return eval_error(ev, st->loc, "nothing to draw: %s", spec.logx && spec.logy ?
		                  "no point of the plot has both coordinates positive, which logx and logy need" :
		                  spec.logy ? "no value of the plot is positive, which logy = true needs" :
		                  "no abscissa of the plot is positive, which logx = true needs");
	if (strcmp(path, "$terminal") == 0) {
		/* the REPL's :plot */
		plot_term_write(stdout, &spec, ev->s->term_width > 0 ? ev->s->term_width : 80, 16, ev->s->term_color);
		return 0;
	}
	const char *full = path_join(ev->a, ev->s->outdir, path);
	char name[256];
	struct rt_outfile of;
	struct out_id id;
	if (outpath_check(ev, st->path->loc, full, &id))
		return -1;
	if (rt_outfile_open(&of, full) != 0)
		return eval_error(ev, st->path->loc, "cannot write '%s': %s", rt_escape(name, sizeof name, full),
		                  strerror(errno));
	/* a plot is whole or not written: after an error the old file stays */
	int rc = plot_svg_write(of.f, &spec), e = errno;
	if (rc != 0) {
		if (!e)
			e = rt_outfile_check(&of);
		rt_outfile_discard(&of);
	} else if ((e = rt_outfile_commit(&of)) != 0) {
		rc = -1;
	}
	if (rc != 0) {
		eval_error(ev, st->path->loc, "cannot write '%s': %s", rt_escape(name, sizeof name, full), strerror(e));
		ev->s->status = 4;   /* a write error, as for records */
		return -1;
	}
	return 0;
}

/* ---- runs ---- */

/* The results of the runs made since mark (the serial of the newest run
 * before a loop's pass), freed: their values were bound in the pass's scope,
 * which is gone.  The REPL's last and pending runs stay (:state,
 * :energy, :step read them). */
static void release_pass_runs(struct session *s, unsigned long mark)
{
	struct run_value **p = &s->runs, *kept = NULL;
	/* by serial, not by the pass's first run: a nested loop's pass may
	 * have freed that one (the held run of the outer loop's last pass),
	 * and the walk then went on into the runs made before the loop */
	while (*p && (*p)->serial > mark) {
		struct run_value *r = *p;
		if (r == s->last_run || r == s->pending_run) {
			kept = r;
			p = &r->next;
			continue;
		}
		rt_result_free(r->res);
		r->res = NULL;
		*p = r->next;
	}
	/* the run an earlier pass kept as the last one, once another is */
	if (s->held && s->held != s->last_run && s->held != s->pending_run) {
		for (p = &s->runs; *p && *p != s->held; p = &(*p)->next)
			;
		if (*p) {
			rt_result_free(s->held->res);
			s->held->res = NULL;
			*p = s->held->next;
		}
		s->held = NULL;
	}
	if (kept)
		s->held = kept;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Advance a run to its end in chunks, drawing a progress bar with elapsed
 * and remaining time on stderr when it is a terminal, for --progress or a
 * run that lasts more than a second. */
static void run_with_progress(struct eval *ev, struct rt_stepper_run *r, struct rt_error *err)
{
	double t, start = now(), last = start;
	int k, n, shown = 0;
	int tty = isatty(2);
	rt_position(r, &t, &k, &n);
	int chunk = n / 1000 > 0 ? n / 1000 : 1;
	while (!rt_position(r, &t, &k, &n)) {
		if (rt_advance(r, chunk, err))
			break;
		double tn = now();
		if (tty && !ev->s->quiet && (ev->s->progress || tn - start > 1) && tn - last > 0.1) {
			rt_position(r, &t, &k, &n);
			double el = tn - start, rem = k > 0 ? el * (n - k) / k : 0;
			int w = 30, fill = n > 0 ? (int)((double)w * k / n) : w;
			fprintf(stderr, "\r[%.*s%*s] %3d%%  t = %-10.4g elapsed %.1fs, remaining %.1fs ", fill,
			        "##############################", w - fill, "", n > 0 ? (int)(100.0 * k / n) : 100, t, el, rem);
			fflush(stderr);
			last = tn;
			shown = 1;
		}
	}
	if (shown)
		fputs("\r\033[K", stderr);
}

/* A plot inside a run's block names the run's quantities directly
 * (plot sigma vs u): each name becomes a field of the run, bound to a
 * name no program can spell. */
static struct ast_expr *rebase(struct eval *ev, struct ast_expr *e)
{
	struct ast_expr *c;
	switch (e->kind) {
	case AST_NAME:
		c = ast_expr_new(ev->a, AST_FIELD, e->loc);
		c->lhs = ast_expr_new(ev->a, AST_NAME, e->loc);
		c->lhs->name = "$run";
		c->name = e->name;
		c->label = e->label;
		return c;
	case AST_PRIME:
	case AST_INDEX:
	case AST_PAIR:
		c = ast_expr_new(ev->a, e->kind, e->loc);
		*c = *e;
		c->lhs = rebase(ev, e->lhs);
		if (e->kind == AST_PAIR)
			c->rhs = rebase(ev, e->rhs);
		return c;
	default:
		return e;
	}
}

/* Whether a run of plan has a quantity called name (eval.c's run_field
 * finds it in the results; this is the same list from the plan). */
static int plan_has_quantity(const struct ir_run *plan, const char *name)
{
	const struct ir_model *m = plan->model;
	if (strcmp(name, "t") == 0)
		return 1;
	for (int i = 0; i < RT_NENERGY; i++)
		if (strcmp(name, rt_energy_name[i]) == 0)
			return 1;
	if (strcmp(name, "lambda") == 0)
		return m->nconstraint > 0;
	if (strcmp(name, "impulse") == 0)
		return m->contact.n > 0;
	if (strcmp(name, "impulse_t") == 0)
		return m->contact.friction != NULL;
	for (int o = 0; o < plan->noutput; o++)
		for (int j = 0; j < plan->output[o].nrecord; j++)
			if (plan->output[o].record[j].kind == IR_REC_EXPR && strcmp(plan->output[o].record[j].name, name) == 0)
				return 1;
	for (int pass = 0; pass < 2; pass++) {
		const struct ir_dof_list *l = pass ? &m->intvars : &m->dofs;
		for (int g = 0; g < l->ngroup; g++)
			if (l->group[g].size > 0 && strcmp(l->group[g].name, name) == 0)
				return 1;
	}
	return 0;
}

/* The quantity a plot's series names in a run's block (u, x[2]', sigma
 * vs u): 0 when the run has it, else reported. */
static int check_plot_name(struct eval *ev, const struct ir_run *plan, const char *run, const struct ast_expr *e)
{
	if (e->kind == AST_PAIR)
		return check_plot_name(ev, plan, run, e->lhs) || check_plot_name(ev, plan, run, e->rhs);
	while (e->kind == AST_PRIME || e->kind == AST_INDEX)
		e = e->lhs;
	if (e->kind != AST_NAME || plan_has_quantity(plan, e->name))
		return 0;
	return eval_error(ev, e->loc, "%s%s has no quantity '%s' to plot (the run's dofs, t, kinetic, stored, "
	                  "dissipated, work, residual and recorded names)", strcmp(run, "run") ? "run " : "this ",
	                  run, e->name);
}

/* The plots in a run's block, checked before the run steps (and by
 * --check): their file names, options and quantities.  They are drawn
 * after it, and an error found then came after the whole run. */
static int check_block_plots(struct eval *ev, struct ast_run *ast, const struct ir_run *plan, const char *run)
{
	for (int k = 0; k < ast->records.n; k++) {
		struct ast_record *rec = ast->records.v[k];
		struct plot_spec spec = { 0 };
		const char *path;
		if (!rec->plot)
			continue;
		if (plot_setup(ev, rec->plot, &spec, &path))
			return -1;
		for (int i = 0; i < rec->plot->exprs.n; i++)
			if (check_plot_name(ev, plan, run, rec->plot->exprs.v[i]))
				return -1;
	}
	return 0;
}

static int run_plots(struct eval *ev, struct ast_run *ast, struct run_value *rv)
{
	for (int k = 0; k < ast->records.n; k++) {
		struct ast_record *rec = ast->records.v[k];
		if (!rec->plot)
			continue;
		struct scope *saved = ev->scope;
		ev->scope = scope_new(ev->a, saved);
		struct binding *b = arena_alloc(ev->a, sizeof *b);
		b->name = "$run";
		b->kind = B_VALUE;
		b->val.kind = VAL_RUN;
		b->val.run = rv;
		ev->scope->head = b;
		struct ast_stmt st = *rec->plot;
		st.exprs.n = 0;
		st.exprs.cap = 0;
		st.exprs.v = NULL;
		for (int i = 0; i < rec->plot->exprs.n; i++)
			ast_vec_push(ev->a, &st.exprs, rebase(ev, rec->plot->exprs.v[i]));
		int rc = exec_plot(ev, &st);
		ev->scope = saved;
		if (rc)
			return -1;
	}
	return 0;
}

int run_exec(struct eval *ev, struct ast_run *ast, const char *name, struct value *out)
{
	struct ir_run *plan;
	struct scope *scope = ev->scope;
	int rc = lower_run(ev, ast, &plan);
	ev->scope = scope;
	if (rc || check_block_plots(ev, ast, plan, name))
		return -1;
	if (ev->s->dump_ir) {
		ir_dump_run(stdout, plan);
		ev->s->dumped = 1;
		return 1;   /* nothing was run: the caller stops here */
	}
	if (ev->s->check_only) {
		/* --check: a dry run, lowered (model, scheme, options and
		 * records checked) but not stepped: it has no results */
		struct run_value *rv = arena_alloc(ev->a, sizeof *rv);
		rv->name = name;
		rv->plan = plan;
		memset(out, 0, sizeof *out);
		out->kind = VAL_RUN;
		out->run = rv;
		return 0;
	}
	struct rt_result *res = NULL;
	struct rt_error err = { 0 };
	struct rt_stepper_run *r = rt_begin(plan, &res, &err);
	struct run_value *rv = arena_alloc(ev->a, sizeof *rv);
	rv->name = name;
	rv->plan = plan;
	rv->res = res;
	rv->serial = ev->s->runs ? ev->s->runs->serial + 1 : 1;
	rv->next = ev->s->runs;
	ev->s->runs = rv;
	int status = 0;
	/* rt_advance(r, 0) is 0 when the run has begun (row 0 stored): only
	 * then is it the REPL's last run (:state, :energy); a run refused
	 * before its first step has no history to show. */
	int begun = r && rt_advance(r, 0, &err) == 0;
	if (begun)
		ev->s->last_run = rv;
	if (begun && ev->s->prepare_only) {
		/* :start — the REPL advances it with :step and :run */
		ev->s->pending = r;
		ev->s->pending_run = rv;
	} else {
		if (begun)
			run_with_progress(ev, r, &err);
		status = rt_end(r, &err);
	}
	if (status) {
		struct loc loc = { err.loc.file, err.loc.line, err.loc.col, 1 };
		if (!loc.file)
			loc = ast->loc;
		diag_error(ev->d, loc, "%s", err.msg);
		ev->s->status = status;
		/* at the REPL an interrupted run keeps what it computed (and
		 * the rest of a :load stops: exec_stmts) */
		if (!(status == 130 && ev->s->interactive))
			return -1;
		ev->s->run_interrupted = 1;
	}
	memset(out, 0, sizeof *out);
	out->kind = VAL_RUN;
	out->run = rv;
	return status ? 0 : run_plots(ev, ast, rv);
}

/* ---- statements ---- */

/* The module of `import NAME`: NAME.dyn in each folder of DYN_PATH
 * (colon-separated), then beside the importing script, then in the
 * installed library.  Parsed once and kept on the statement. */
int import_module(struct session *s, struct ast_stmt *st)
{
	if (st->module)
		return 0;
	const char *script_dir = path_dir(s->arena, st->loc.file);
	const char *env = getenv("DYN_PATH");
	char *dirs = arena_printf(s->arena, "%s:%s:%s", env ? env : "", script_dir ? script_dir : "",
	                          s->stdlib_dir ? s->stdlib_dir : "");
	for (char *d = dirs, *next; d; d = next) {
		next = strchr(d, ':');
		if (next)
			*next++ = '\0';
		if (!*d)
			continue;
		const char *path = arena_printf(s->arena, "%s/%s.dyn", d, st->name);
		/* a module is a regular file, stated before it is opened: a
		 * FIFO's open blocked, /dev/zero read until memory ran out, a
		 * folder read as an empty module */
		struct stat sb;
		if (stat(path, &sb) != 0)
			continue;
		if (!S_ISREG(sb.st_mode)) {
			diag_error(&s->diag, st->name_loc, "module '%s': %s is %s", st->name, path,
			           S_ISDIR(sb.st_mode) ? "a folder" : "not a regular file");
			return -1;
		}
		FILE *f = fopen(path, "rb");
		if (!f) {
			diag_error(&s->diag, st->name_loc, "module '%s': cannot open %s: %s", st->name, path,
			           strerror(errno));
			return -1;
		}
		char *text = NULL;
		size_t len = 0, cap = 0;
		for (;;) {
			if (len + 4096 > cap) {
				size_t ncap = cap ? 2 * cap : 8192;
				text = arena_grow(s->arena, text, len, ncap);
				cap = ncap;
			}
			size_t k = fread(text + len, 1, cap - len, f);
			if (k == 0)
				break;
			len += k;
		}
		fclose(f);
		st->module_path = path;
		session_add_input(s, path);
		st->module = parse_text(s->arena, &s->diag, path, text ? text : "", len);
		return st->module ? 0 : -1;
	}
	diag_error(&s->diag, st->name_loc, "cannot find module '%s' (looked for %s.dyn in DYN_PATH, "
	           "the script's folder and the installed library)", st->name, st->name);
	return -1;
}

static int exec_import(struct eval *ev, struct ast_stmt *st)
{
	if (strcmp(st->name, "schemes") == 0)
		return 0;   /* loaded before every script */
	if (import_module(ev->s, st))
		return -1;
	return exec_stmts(ev, &st->module->stmts);
}

/* What a loop's pass may leave behind in the session's arena: a run
 * kept as the last one, a mesh, a module read, the output folder's real
 * path, the name index of a scope made before the pass (an outer scope
 * of more than a few names, indexed by a lookup in the pass).  A pass
 * that changed none of these left nothing that outlives it (its scope
 * and bindings, its statements' programs and values are gone with it),
 * and the arena is rewound to where the pass began: a loop of 10^6
 * scalar passes took 1.5 GB before. */
struct pass_marks {
	struct arena_mark arena;
	const void *runs, *held, *pending, *pending_run, *meshes, *fe_owned, *input, *outdir_real;
	struct run_value *last_run;   /* given back to the session (a loop's passes) */
	int ninput;
	unsigned long clock, touched;   /* names.h's, at the pass's start */
};

static struct pass_marks pass_marks_take(const struct eval *ev)
{
	const struct session *s = ev->s;
	struct pass_marks pm = { .arena = arena_mark(ev->a), .runs = s->runs, .held = s->held, .pending = s->pending,
	                         .pending_run = s->pending_run, .meshes = s->meshes, .fe_owned = s->fe_owned,
	                         .input = s->input, .outdir_real = s->outdir_real, .last_run = s->last_run,
	                         .ninput = s->ninput, .clock = name_index_clock, .touched = name_index_touched };
	return pm;
}

static void pass_begin(struct eval *ev, struct pass_marks *pm)
{
	*pm = pass_marks_take(ev);
	name_index_touched = ULONG_MAX;
}

static void pass_rewind(struct eval *ev, const struct pass_marks *pm, int ok)
{
	struct pass_marks now = pass_marks_take(ev);
	/* what an enclosing pass must know of the indexes made in this one */
	name_index_touched = now.touched < pm->touched ? now.touched : pm->touched;
	if (now.runs == pm->runs && now.held == pm->held && now.last_run == pm->last_run &&
	    now.pending == pm->pending && now.pending_run == pm->pending_run && now.meshes == pm->meshes &&
	    now.fe_owned == pm->fe_owned && now.input == pm->input && now.outdir_real == pm->outdir_real &&
	    now.ninput == pm->ninput && now.touched > pm->clock && ok)
		arena_rewind(ev->a, &pm->arena);
}

static int exec_stmt(struct eval *ev, struct ast_stmt *st)
{
	ev->prog = ir_prog_new(ev->a);
	switch (st->kind) {
	case AST_STMT_PARAM:
		for (int i = 0; i < st->defs.n; i++) {
			struct ast_arg *d = st->defs.v[i];
			struct value v;
			if (eval_expr(ev, d->value, &v) || value_freeze(ev, &v, d->value->loc, "a parameter"))
				return -1;
			for (int j = 0; j < ev->s->nset; j++)
				if (strcmp(ev->s->set[j].name, d->name) == 0) {
					if (v.kind != VAL_NUM)
						return eval_error(ev, d->loc, "--set %s: parameter %s is %s, not a number",
						                  d->name, d->name, value_kind_name(&v));
					v.k = ev->s->set[j].value;
					ev->s->set[j].used = 1;
				}
			struct binding *b = scope_bind(ev, d->name, B_VALUE, d->loc);
			if (!b)
				return -1;
			b->val = v;
			b->is_param = 1;
		}
		return 0;
	case AST_STMT_LET:
		/* let a = 1, b = 2: in order, each seeing the ones before */
		for (int i = 0; i < (st->name ? 1 : st->defs.n); i++) {
			struct ast_arg *d = st->name ? NULL : st->defs.v[i];
			struct ast_expr *e = d ? d->value : st->value;
			const char *name = d ? d->name : st->name;
			struct value v;
			if (i)
				ev->prog = ir_prog_new(ev->a);
			int rc = e->kind == AST_RUN ? run_exec(ev, e->run, name, &v) : eval_expr(ev, e, &v);
			if (rc && ev->s->dry_hit) {
				/* --check: a value of a run's results, not computed;
				 * what uses it is skipped in turn */
				ev->s->dry_hit = 0;
				memset(&v, 0, sizeof v);
				v.kind = VAL_DRY;
				rc = 0;
			}
			if (rc)
				return rc;
			if (value_freeze(ev, &v, e->loc, "a let value"))
				return -1;
			struct binding *b = scope_bind(ev, name, B_VALUE, d ? d->loc : st->name_loc);
			if (!b)
				return -1;
			b->val = v;
		}
		return 0;
	case AST_STMT_FUNCTION:
	case AST_STMT_MODEL:
	case AST_STMT_SCHEME: {
		for (int i = 0; i < st->params.n; i++)
			for (int j = 0; j < i; j++)
				if (strcmp(((struct ast_arg *)st->params.v[i])->name, ((struct ast_arg *)st->params.v[j])->name) == 0)
					return eval_error(ev, ((struct ast_arg *)st->params.v[i])->loc, "parameter '%s' appears twice",
					                  ((struct ast_arg *)st->params.v[i])->name);
		enum bind_kind k = st->kind == AST_STMT_FUNCTION ? B_FUNCTION : st->kind == AST_STMT_MODEL ? B_MODEL : B_SCHEME;
		struct binding *b = scope_bind(ev, st->name, k, st->name_loc);
		if (!b)
			return -1;
		b->stmt = st;
		b->closure = ev->scope;
		return 0;
	}
	case AST_STMT_FOR: {
		long lo, hi;
		if (eval_int(ev, st->lo, &lo, "a range bound") || eval_int(ev, st->hi, &hi, "a range bound"))
			return -1;
		struct scope *saved = ev->scope;
		int rc = 0;
		for (long i = lo; i <= hi && rc == 0; i++) {
			/* what the body defines is gone after the pass: so are the
			 * histories of its runs (a sweep of runs kept them all
			 * until the script ended: 32 MB a pass) */
			unsigned long mark = ev->s->runs ? ev->s->runs->serial : 0;
			struct pass_marks pm;
			pass_begin(ev, &pm);
			ev->scope = scope_new(ev->a, saved);
			struct binding *b = scope_bind(ev, st->name, B_VALUE, st->name_loc);
			if (!b) {
				rc = -1;
				break;
			}
			b->val.kind = VAL_NUM;
			b->val.frozen = 1;
			b->val.k = (double)i;
			rc = exec_stmts(ev, &st->body);
			/* the last run is the REPL's (:state, :energy): outside
			 * the REPL nothing reads it, and a pass's run goes with
			 * the pass, and so does what its lowering took of the
			 * arena (a loop of runs of a field model kept 43 KB a
			 * pass, and arena_release's walk of the chunks made the
			 * loop quadratic) */
			if (!ev->s->interactive && ev->s->last_run != pm.last_run && !ev->s->pending_run)
				ev->s->last_run = pm.last_run;
			release_pass_runs(ev->s, mark);
			ev->scope = saved;
			pass_rewind(ev, &pm, rc == 0);
		}
		ev->scope = saved;
		ev->prog = ir_prog_new(ev->a);
		return rc;
	}
	case AST_STMT_PRINT:
		if (ev->s->check_only) {
			/* --check: the values are computed, not printed */
			for (int i = 0; i < st->exprs.n; i++) {
				struct value v;
				if (eval_expr(ev, st->exprs.v[i], &v))
					return -1;
			}
			return 0;
		}
		return exec_print(ev, st);
	case AST_STMT_CHECK:
		return ev->s->check_only ? 0 : exec_check(ev, st);
	case AST_STMT_PLOT:
		return ev->s->check_only ? 0 : exec_plot(ev, st);
	case AST_STMT_IMPORT:
		return exec_import(ev, st);
	case AST_STMT_MESH:
		return fe_exec_mesh(ev, st);
	case AST_STMT_EXPR: {
		struct value v;
		int rc = st->value->kind == AST_RUN ? run_exec(ev, st->value->run, "run", &v) : eval_expr(ev, st->value, &v);
		if (rc)
			return rc;
		if (ev->s->interactive) {
			if (print_value(ev, stdout, &v, st->loc))
				return -1;
			if (v.kind == VAL_RUN)
				print_run_histories(stdout, v.run);
			fputc('\n', stdout);
		}
		return 0;
	}
	}
	return 0;
}

/* --check: the names of a let that failed stand for values not computed,
 * so that what uses them is skipped rather than reported again. */
/* name as a dry value in the current scope, unless bound there */
static void bind_dry_name(struct eval *ev, const char *name, struct loc loc)
{
	if (scope_lookup_local(ev->scope, name))
		return;
	struct binding *b = arena_alloc(ev->a, sizeof *b);
	b->name = name;
	b->kind = B_VALUE;
	b->val.kind = VAL_DRY;
	b->loc = loc;
	b->next = ev->scope->head;
	ev->scope->head = b;
}

static void bind_dry(struct eval *ev, struct ast_stmt *st)
{
	/* a mesh that failed: what names it is skipped (find_mesh), not
	 * reported again as an undefined mesh */
	if (st->kind == AST_STMT_MESH && st->name)
		bind_dry_name(ev, st->name, st->name_loc);
	if (st->kind != AST_STMT_LET)
		return;
	for (int i = 0; i < (st->name ? 1 : st->defs.n); i++) {
		struct ast_arg *d = st->name ? NULL : st->defs.v[i];
		bind_dry_name(ev, d ? d->name : st->name, d ? d->loc : st->name_loc);
	}
}

static int exec_stmts(struct eval *ev, struct ast_vec *stmts)
{
	int failed = 0;
	for (int i = 0; i < stmts->n; i++) {
		if (eval_interrupted(ev, ((struct ast_stmt *)stmts->v[i])->loc))
			return -1;
		int rc = exec_stmt(ev, stmts->v[i]);
		if (ev->s->run_interrupted)
			return -1;   /* its statement is done: the rest is not */
		if (rc > 0)   /* --dump-ir printed a run's plan: nothing after it */
			return failed ? failed : rc;
		if (rc && ev->s->dry_hit) {
			/* --check: the statement needs a run's results */
			ev->s->dry_hit = 0;
			continue;
		}
		if (rc && ev->s->check_only && ev->s->status != 130) {
			/* --check goes on to report the errors of every run */
			bind_dry(ev, stmts->v[i]);
			failed = rc;
			continue;
		}
		if (rc)
			return rc;
	}
	return failed;
}

/* ---- sessions ---- */

void session_init(struct session *s)
{
	memset(s, 0, sizeof *s);
	diag_init(&s->diag);
	s->arena = arena_new();
	s->globals = scope_new(s->arena, NULL);
}

void session_free(struct session *s)
{
	for (struct run_value *r = s->runs; r; r = r->next)
		rt_result_free(r->res);
	fe_free_owned(s->fe_owned);
	arena_free(s->arena);
}

struct ast_program *session_parse(struct session *s, const char *file, const char *text, size_t len)
{
	arena_purpose("parsing", file);
	if (file && (file[0] != '<' || strcmp(file, "<stdin>") == 0))
		session_add_input(s, file);
	return parse_text(s->arena, &s->diag, file, text, len);
}

void session_eval_init(struct session *s, struct eval *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->s = s;
	ev->a = s->arena;
	ev->d = &s->diag;
	ev->scope = s->globals;
	ev->prog = ir_prog_new(s->arena);
}

/* --check: lower the script's models that no run, modes() or spectrum()
 * lowered, so that their errors are reported too (a run would never
 * meet them); in the order they are declared.  Non-zero when one failed. */
static int check_unused_models(struct eval *ev)
{
	int n = 0, failed = 0;
	for (struct binding *b = ev->s->globals->head; b; b = b->next)
		n += b->kind == B_MODEL && !b->lowered;
	if (n == 0)
		return 0;
	struct binding **v = arena_alloc(ev->a, sizeof *v * (size_t)n);
	int k = n;
	for (struct binding *b = ev->s->globals->head; b; b = b->next)
		if (b->kind == B_MODEL && !b->lowered)
			v[--k] = b;
	for (int i = 0; i < n; i++) {
		struct ir_model *m;
		ev->scope = ev->s->globals;
		if (lower_model_named(ev, v[i]->name, v[i]->loc, &m) == 0)
			continue;
		if (ev->s->dry_hit)   /* it reads a run's results: skipped */
			ev->s->dry_hit = 0;
		else
			failed = 1;
	}
	ev->scope = ev->s->globals;
	return failed;
}

int session_exec_program(struct session *s, struct ast_program *prog)
{
	const char *file = prog->stmts.n ? ((struct ast_stmt *)prog->stmts.v[0])->loc.file : NULL;
	arena_purpose("checking", file);
	if (check_program(s, prog)) {
		s->status = 3;
		return 3;
	}
	struct eval ev = { 0 };
	ev.s = s;
	ev.a = s->arena;
	ev.d = &s->diag;
	ev.scope = s->globals;
	arena_purpose("running", file);
	ev.script_dir = file ? path_dir(s->arena, file) : NULL;
	s->run_interrupted = 0;
	int rc = exec_stmts(&ev, &prog->stmts);
	s->run_interrupted = 0;
	if (s->check_only && s->status != 130 && check_unused_models(&ev))
		rc = -1;
	if (rc < 0) {
		if (!s->status)
			s->status = 3;
		return s->status;
	}
	return 0;
}

int session_exec_text(struct session *s, const char *file, const char *text, size_t len)
{
	struct ast_program *prog = session_parse(s, file, text, len);
	if (!prog) {
		s->status = 3;
		return 3;
	}
	return session_exec_program(s, prog);
}

#include "stdlib_schemes.inc"

int session_load_stdlib(struct session *s)
{
	return session_exec_text(s, "<stdlib>/schemes.dyn", stdlib_schemes_dyn, sizeof stdlib_schemes_dyn - 1);
}

static int declares(const struct ast_vec *stmts, const char *name)
{
	const char *dot = strchr(name, '.');
	for (int i = 0; i < stmts->n; i++) {
		const struct ast_stmt *st = stmts->v[i];
		if (st->kind == AST_STMT_PARAM && !dot) {
			for (int j = 0; j < st->defs.n; j++)
				if (strcmp(((struct ast_arg *)st->defs.v[j])->name, name) == 0)
					return 1;
		} else if (st->kind == AST_STMT_FOR && declares(&st->body, name)) {
			return 1;
		} else if (st->kind == AST_STMT_MODEL && dot && strlen(st->name) == (size_t)(dot - name) &&
		           strncmp(st->name, name, (size_t)(dot - name)) == 0) {
			for (int j = 0; j < st->model->items.n; j++) {
				const struct ast_item *it = st->model->items.v[j];
				if (it->kind != AST_ITEM_PARAM)
					continue;
				for (int k = 0; k < it->defs.n; k++)
					if (strcmp(((struct ast_arg *)it->defs.v[k])->name, dot + 1) == 0)
						return 1;
			}
		}
	}
	return 0;
}

int program_declares_param(const struct ast_program *prog, const char *name)
{
	return declares(&prog->stmts, name);
}

/* The first model (in a loop's body too) with a parameter of this plain
 * name, or NULL: `--set sy=...` on a model's own parameter is a usage
 * error whose message suggests `--set MODEL.sy`. */
static const char *model_with_param(const struct ast_vec *stmts, const char *name)
{
	for (int i = 0; i < stmts->n; i++) {
		const struct ast_stmt *st = stmts->v[i];
		if (st->kind == AST_STMT_FOR) {
			const char *m = model_with_param(&st->body, name);
			if (m)
				return m;
		} else if (st->kind == AST_STMT_MODEL) {
			for (int j = 0; j < st->model->items.n; j++) {
				const struct ast_item *it = st->model->items.v[j];
				if (it->kind != AST_ITEM_PARAM)
					continue;
				for (int k = 0; k < it->defs.n; k++)
					if (strcmp(((struct ast_arg *)it->defs.v[k])->name, name) == 0)
						return st->name;
			}
		}
	}
	return NULL;
}

const char *program_model_with_param(const struct ast_program *prog, const char *name)
{
	return strchr(name, '.') ? NULL : model_with_param(&prog->stmts, name);
}
