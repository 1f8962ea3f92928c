/* builtin.c — the built-in functions of expressions: elementary functions
 * (one IR instruction each), matrix constructors, and table(), the
 * tabulated function of time (DESIGN.md, "More statements"). */
#include <config.h>

#include "interp.h"
#include "spectrum.h"
#include "table.h"
#include "vm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Functions that map to one IR instruction, applied elementwise to
 * vectors. */
static const struct {
	const char *name;
	enum ir_op op;
	int nargs;
} scalar_fn[] = {
	{ "sin", IR_SIN, 1 }, { "cos", IR_COS, 1 }, { "tan", IR_TAN, 1 },
	{ "asin", IR_ASIN, 1 }, { "acos", IR_ACOS, 1 }, { "atan", IR_ATAN, 1 },
	{ "sinh", IR_SINH, 1 }, { "cosh", IR_COSH, 1 }, { "tanh", IR_TANH, 1 },
	{ "exp", IR_EXP, 1 }, { "log", IR_LOG, 1 }, { "log10", IR_LOG10, 1 },
	{ "sqrt", IR_SQRT, 1 }, { "abs", IR_ABS, 1 }, { "sign", IR_SIGN, 1 },
	{ "floor", IR_FLOOR, 1 }, { "ceil", IR_CEIL, 1 },
	{ "atan2", IR_ATAN2, 2 }, { "hypot", IR_HYPOT, 2 }, { "mod", IR_FMOD, 2 },
	{ "min", IR_MIN, 2 }, { "max", IR_MAX, 2 },
};

const char *const builtin_names[] = {
	"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
	"exp", "log", "log10", "sqrt", "abs", "sign", "floor", "ceil", "atan2",
	"hypot", "mod", "min", "max", "diag", "eye", "zeros", "ones",
	"transpose", "table", "mtx", "maxabs", "matrix", "vector", "spectral_radius",
	"argmax", "argmin", "rms", "mean", "crossings", "period", "length", "spectrum", "modes", NULL
};

int builtin_exists(const char *name)
{
	for (int i = 0; builtin_names[i]; i++)
		if (strcmp(builtin_names[i], name) == 0)
			return 1;
	return 0;
}

static int arity_error(struct eval *ev, struct ast_expr *call, const char *name, const char *expect)
{
	return eval_error(ev, call->loc, "%s takes %s, %d given", name, expect, call->args.n);
}

static int positional(struct eval *ev, struct ast_expr *call, const char *name)
{
	for (int i = 0; i < call->args.n; i++) {
		struct ast_arg *g = call->args.v[i];
		if (g->name)
			return eval_error(ev, g->loc, "%s has no named parameter '%s'", name, g->name);
	}
	return 0;
}

static struct ast_expr *arg(struct ast_expr *call, int i)
{
	return ((struct ast_arg *)call->args.v[i])->value;
}

/* The most numbers a vector or matrix value holds (each is a register of
 * the session's program): matrix(r, c, f) and friends check r c against
 * it, a single size too. */
#define MAX_ENTRIES 40000000L

static int size_arg(struct eval *ev, struct ast_expr *e, int *n)
{
	/* the range before eval_int's 10^9 bound, so that eye(2e9) is
	 * refused as eye(-1) is */
	double x;
	if (eval_number(ev, e, &x, "a size"))
		return -1;
	if (x != floor(x))
		return eval_error(ev, e->loc, "a size must be a whole number");
	if (x < 1 || x > MAX_ENTRIES)
		return eval_error(ev, e->loc, "a size must be between 1 and %ld, not %.15g", MAX_ENTRIES, x);
	*n = (int)x;
	return 0;
}

/* Bytes of the session's memory that one entry of vector(n, f) or
 * matrix(r, c, f) takes: its register and constant, and the scope and
 * arguments of the call of f (measured: 370 bytes per entry of
 * vector(10^5, f) with f(i) = 0.5*i). */
enum { CALL_ENTRY_BYTES = 400 };

/* The memory the values built by calls may take: --memory-limit, else
 * half the physical memory (as a run's histories, lang/lower.c). */
static double value_memory_limit(const struct eval *ev)
{
	if (ev->s->memory_limit)
		return (double)ev->s->memory_limit;
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
	return pages > 0 && size > 0 ? (double)pages * (double)size / 2 : 1e18;
}

/* table("file.csv", col): a function of t read from a CSV file whose first
 * column is time; the path is relative to the script's folder. */
static int table_call(struct eval *ev, struct ast_expr *call, struct value *out)
{
	if (call->args.n != 2)
		return arity_error(ev, call, "table", "2 arguments (\"file.csv\", column)");
	if (!ev->mc || !(ev->mc->allow_t || ev->mc->allow_state))
		return eval_error(ev, call->loc, ev->mc ? "%s must be constant: table(...) is a function of t"
		                                        : "table(...) is a function of t: use it inside a model%s",
		                  ev->mc ? ev->mc->what : "");
	const char *path;
	long col;
	if (eval_string(ev, arg(call, 0), &path, "the file name") || eval_int(ev, arg(call, 1), &col, "the column"))
		return -1;
	struct ir_model *m = ev->mc->m;
	const char *full = path_join(ev->a, ev->mc->script_dir, path);
	int idx;
	if (col < 2)
		return eval_error(ev, arg(call, 1)->loc,
		                  "column %ld is not a data column: column 1 is time, data columns count from 2", col);
	struct ir_table tb = { full, 0, NULL, NULL };
	char err[512];
	if (table_read(full, (int)col, &tb.n, &tb.x, &tb.y, err, sizeof err))
		return eval_error(ev, call->loc, "%s", err);
	session_add_data_input(ev->s, full);
	/* The table's arrays are malloc'ed by table_read; keep copies in the
	 * arena so they live and die with the IR. */
	double *x = arena_alloc(ev->a, sizeof(double) * (size_t)tb.n);
	double *y = arena_alloc(ev->a, sizeof(double) * (size_t)tb.n);
	memcpy(x, tb.x, sizeof(double) * (size_t)tb.n);
	memcpy(y, tb.y, sizeof(double) * (size_t)tb.n);
	free(tb.x);
	free(tb.y);
	tb.x = x;
	tb.y = y;
	if (m->ntable == ev->mc->ntable_cap) {
		int cap = ev->mc->ntable_cap ? 2 * ev->mc->ntable_cap : 4;
		m->table = arena_grow(ev->a, m->table, sizeof *m->table * (size_t)m->ntable,
		                      sizeof *m->table * (size_t)cap);
		ev->mc->ntable_cap = cap;
	}
	idx = m->ntable++;
	m->table[idx] = tb;
	int treg = ir_emit_input(ev->prog, IR_TIME, 0, ir_loc_of(call->loc));
	out->kind = VAL_NUM;
	out->reg = ir_emit(ev->prog, IR_TABLE, treg, 0, idx, ir_loc_of(call->loc));
	return 0;
}

/* max(h), min(h), maxabs(h) over the samples of a history.  A NaN sample
 * makes the result NaN: fmin and fmax would skip it, and a check such as
 * maxabs(r.e) < 10 would pass on a history that is NaN on half its steps. */
static int reduce(struct eval *ev, struct ast_expr *call, const char *name, struct value *h, struct value *out)
{
	const double *y;
	int n;
	if (hist_values(ev, h, call->loc, &y, &n))
		return -1;
	double r = name[1] == 'i' ? INFINITY : name[3] == 'a' ? 0 : -INFINITY;
	for (int i = 0; i < n; i++) {
		double x = name[3] == 'a' ? fabs(y[i]) : y[i];
		if (isnan(x)) {
			r = x;
			break;
		}
		r = name[1] == 'i' ? fmin(r, x) : fmax(r, x);
	}
	*out = value_num(ev, r, call->loc);
	return 0;
}

/* max(v), min(v), maxabs(v) of a vector: a slice of a history
 * (max(r.y(0.5..1.2)), the height of one bounce) or crossings' times.
 * Folded with the two-argument max and min, so that a NaN element makes
 * the result NaN as it does for a history, and a vector of expressions
 * of the state (inside a model) stays an expression. */
static int reduce_vector(struct eval *ev, struct ast_expr *call, const char *name, struct value *v,
                         struct value *out)
{
	int n = v->rows * v->cols, lo = name[1] == 'i', ab = name[3] == 'a';
	if (n == 0)
		return eval_error(ev, arg(call, 0)->loc, "%s of an empty vector", name);
	struct ir_loc loc = ir_loc_of(call->loc);
	int r = 0;
	for (int i = 0; i < n; i++) {
		int x = ab ? ir_emit(ev->prog, IR_ABS, v->m[i], 0, 0, loc) : v->m[i];
		r = i == 0 ? x : ir_emit(ev->prog, lo ? IR_MIN : IR_MAX, r, x, 0, loc);
	}
	*out = (struct value){ .kind = VAL_NUM, .reg = r };
	return 0;
}

/* The integral of y over the run by the trapezoidal rule on its own time
 * grid, divided by its duration: the time-weighted mean of the piecewise
 * linear interpolant of the samples (of y² for rms).  On a uniform grid
 * over whole periods of a smooth periodic signal the trapezoidal rule is
 * exact to round-off for trigonometric polynomials of degree below the
 * number of steps per period (Davis and Rabinowitz, "Methods of Numerical
 * Integration", §2.9), so rms(sin) is 1/√2 to round-off there. */
static double time_mean_scaled(const double *t, const double *y, int n, int square, double c)
{
	double s = 0;
	for (int i = 0; i + 1 < n; i++) {
		double ya = y[i] * c, yb = y[i + 1] * c;
		double a = square ? ya * ya : ya, b = square ? yb * yb : yb;
		s += 0.5 * (t[i + 1] - t[i]) * (a + b);
	}
	return s / (t[n - 1] - t[0]);
}

/* The mean (of y² for rms: then its square root).  Samples near the
 * largest double overflow the sum, or their squares do (rms of 1e160
 * was inf): the samples are then scaled by a power of 2, which rounds
 * nothing, to a largest of about 1, and the result scaled back. */
static double time_mean(const double *t, const double *y, int n, int square)
{
	double m = time_mean_scaled(t, y, n, square, 1);
	if (isfinite(m))
		return square ? sqrt(m) : m;
	double big = 0;
	for (int i = 0; i < n; i++)
		big = fmax(big, fabs(y[i]));
	if (!isfinite(big) || big == 0)
		return square ? sqrt(m) : m;
	int e;
	frexp(big, &e);
	m = time_mean_scaled(t, y, n, square, ldexp(1, -e));
	return square ? ldexp(sqrt(m), e) : ldexp(m, e);
}

/* The times where the piecewise linear interpolant of the samples crosses
 * level: between samples i and i+1 when one is below the level and the
 * other is not (a sample exactly at the level counts as above it), at the
 * linearly interpolated time; not at the first or last sample when it is
 * at the level (nothing before or after it to cross from or to).  up: +1 only upward, -1 only downward, 0
 * both.  Returns their number; t_out (NULL: count only) has room for n. */
static int level_crossings(const double *t, const double *y, int n, double level, int up, double *t_out)
{
	int k = 0;
	for (int i = 0; i + 1 < n; i++) {
		int a = y[i] >= level, b = y[i + 1] >= level;
		if (a == b || (up > 0 && a) || (up < 0 && b))
			continue;
		/* at an end sample exactly at the level the history has no
		 * other side there: it starts (or ends) on the level */
		if ((i == 0 && y[0] == level) || (i + 2 == n && y[n - 1] == level))
			continue;
		/* samples whose difference overflows (-1.5e308 to 1.5e308: the
		 * crossing came out at the first sample's time): in halves */
		double dy = y[i + 1] - y[i];
		double f = isfinite(dy) ? (level - y[i]) / dy : (level / 2 - y[i] / 2) / (y[i + 1] / 2 - y[i] / 2);
		if (t_out)
			t_out[k] = t[i] + f * (t[i + 1] - t[i]);
		k++;
	}
	return k;
}

/* argmax, argmin, rms, mean, crossings, period: functions of a run's
 * history (dyn(5), "BUILT-IN FUNCTIONS"). */
static int history_fn(struct eval *ev, struct ast_expr *call, const char *name, struct value *out)
{
	int is_cross = strcmp(name, "crossings") == 0;
	if (positional(ev, call, name))
		return -1;
	if (call->args.n != 1 + is_cross)
		return arity_error(ev, call, name, is_cross ? "2 arguments (a history such as r.u, a level)"
		                                             : "1 argument (a history such as r.u)");
	struct value h;
	/* over part of the run: a slice h(a..b), the samples at the step
	 * times in [a, b] with their times */
	int first = 0, count = -1, win = hist_window(ev, arg(call, 0), &h, &first, &count);
	if (win < 0 || (!win && eval_expr(ev, arg(call, 0), &h)))
		return -1;
	if (h.kind != VAL_HIST)
		return eval_error(ev, arg(call, 0)->loc, "%s needs a history such as r.u, not %s", name,
		                  value_kind_name(&h));
	const double *y;
	int n;
	if (hist_values(ev, &h, arg(call, 0)->loc, &y, &n))
		return -1;
	const double *t = h.run->res->t;
	if (win) {
		if (count < 1)
			return eval_error(ev, arg(call, 0)->loc, "%s: the slice holds no step of the run", name);
		y += first;
		t += first;
		n = count;
	}
	for (int i = 0; i < n; i++)
		if (isnan(y[i])) {
			/* as max and maxabs: a NaN anywhere makes the result NaN,
			 * never a number computed from the other samples; times of
			 * crossings have no such value */
			if (is_cross || name[0] == 'p') {
				char tb[32];
				value_format_num(t[i], tb);
				return eval_error(ev, call->loc, "%s(%s): the history is NaN at t = %s", name, h.ser.label, tb);
			}
			*out = value_num(ev, NAN, call->loc);
			return 0;
		}
	/* an infinite sample has no crossing time between it and its
	 * neighbours (the interpolation gave NaN) */
	for (int i = 0; i < n && (is_cross || name[0] == 'p'); i++)
		if (isinf(y[i])) {
			char tb[32];
			value_format_num(t[i], tb);
			return eval_error(ev, call->loc, "%s(%s): the history is infinite at t = %s", name, h.ser.label, tb);
		}
	if (name[0] == 'a') {
		int best = 0, hi = name[4] == 'a';
		for (int i = 1; i < n; i++)
			if (hi ? y[i] > y[best] : y[i] < y[best])
				best = i;
		*out = value_num(ev, t[best], call->loc);
		return 0;
	}
	/* the slice's bounds, as messages about it name them: step times to
	 * ten digits (0.3, not the sum of steps 0.30000000000000004) */
	char where[80] = "";
	if (win)
		snprintf(where, sizeof where, " over [%.10g, %.10g]", t[0], t[n - 1]);
	if (n < 2 || !(t[n - 1] > t[0])) {
		if (win) {
			char ta[32];
			snprintf(ta, sizeof ta, "%.10g", t[0]);
			return eval_error(ev, arg(call, 0)->loc, "%s needs a slice of more than one step: this one holds "
			                  "only the sample at t = %s", name, ta);
		}
		return eval_error(ev, call->loc, "%s needs a run of more than one step", name);
	}
	if (strcmp(name, "rms") == 0 || strcmp(name, "mean") == 0) {
		*out = value_num(ev, time_mean(t, y, n, name[0] == 'r'), call->loc);
		return 0;
	}
	if (is_cross) {
		double level;
		if (eval_number(ev, arg(call, 1), &level, "the level"))
			return -1;
		if (!isfinite(level))
			return eval_error(ev, arg(call, 1)->loc, "the level must be a finite number");
		int k = level_crossings(t, y, n, level, 0, NULL);
		double *tc = arena_alloc(ev->a, sizeof(double) * (size_t)k + 1);
		level_crossings(t, y, n, level, 0, tc);
		*out = value_mat(ev, 1, k);
		for (int i = 0; i < k; i++)
			out->m[i] = ir_emit_const(ev->prog, tc[i], ir_loc_of(call->loc));
		return 0;
	}
	/* period: the mean spacing of the upward crossings of the history's
	 * mean, (t_last - t_first)/(count - 1) */
	double m = time_mean(t, y, n, 0);
	int k = level_crossings(t, y, n, m, 1, NULL);
	if (k < 2)
		return eval_error(ev, call->loc, "period(%s): %s%s crosses its mean (%.6g) upwards %s: a period needs "
		                  "two such crossings", h.ser.label, h.ser.label, where, m, k == 0 ? "nowhere" : "only once");
	double *tc = arena_alloc(ev->a, sizeof(double) * (size_t)k);
	level_crossings(t, y, n, m, 1, tc);
	*out = value_num(ev, (tc[k - 1] - tc[0]) / (k - 1), call->loc);
	return 0;
}

/* The times at which spectrum() samples the acceleration: start + k dt up
 * to end when dt is given, else the points of its tables in [start, end]
 * (merged), where a function linear in its tables is linear between them
 * (m may be NULL with dt).  Returns their number, or -1 after reporting
 * an error. */
static int spectrum_times(struct eval *ev, struct ast_expr *call, const struct ir_model *m, double start, double end,
                          double dt, double **out)
{
	enum { MAXSAMPLES = 10000000 };
	if (dt > 0) {
		double k = floor((end - start) / dt - 1e-9);
		if (k + 2 > MAXSAMPLES)
			return eval_error(ev, call->loc, "spectrum: more than %d samples of the acceleration; take a larger dt",
			                  MAXSAMPLES);
		int n = (int)k + 2;
		double *t = arena_alloc(ev->a, sizeof(double) * (size_t)n);
		for (int i = 0; i + 1 < n; i++)
			t[i] = start + i * dt;
		t[n - 1] = end;
		*out = t;
		return n;
	}
	size_t total = 2;
	for (int j = 0; j < m->ntable; j++)
		total += (size_t)m->table[j].n;
	if (total > MAXSAMPLES)
		return eval_error(ev, call->loc, "spectrum: more than %d samples of the acceleration", MAXSAMPLES);
	double *t = arena_alloc(ev->a, sizeof(double) * total);
	int *at = arena_alloc(ev->a, sizeof(int) * (size_t)(m->ntable + 1));
	int n = 0;
	t[n++] = start;
	/* merge the sorted tables, keeping the times strictly inside */
	for (;;) {
		int best = -1;
		for (int j = 0; j < m->ntable; j++) {
			while (at[j] < m->table[j].n && m->table[j].x[at[j]] <= t[n - 1])
				at[j]++;
			if (at[j] < m->table[j].n && (best < 0 || m->table[j].x[at[j]] < m->table[best].x[at[best]]))
				best = j;
		}
		if (best < 0 || m->table[best].x[at[best]] >= end)
			break;
		t[n++] = m->table[best].x[at[best]];
	}
	t[n++] = end;
	*out = t;
	return n;
}

/* The spectrum's result from its samples (t[0 .. n − 1], a): -1 after
 * reporting an error */
static int spectrum_result(struct eval *ev, struct ast_expr *call, const double *t, const double *a, int n,
                           double *T, int np, double xi, struct value *out)
{
	struct spectrum_value *sp = arena_alloc(ev->a, sizeof *sp);
	sp->n = np;
	sp->xi = xi;
	sp->period = T;
	sp->sd = arena_alloc(ev->a, sizeof(double) * (size_t)np);
	sp->psv = arena_alloc(ev->a, sizeof(double) * (size_t)np);
	sp->psa = arena_alloc(ev->a, sizeof(double) * (size_t)np);
	if (rt_spectrum(t, a, n, T, np, xi, sp->sd, sp->psv, sp->psa))
		return eval_error(ev, call->loc, "spectrum: the samples of the acceleration are not usable");
	out->kind = VAL_SPECTRUM;
	out->spec = sp;
	return 0;
}

/* The piecewise-linear interpolant of the samples (t, y) at T, t[0] <= T
 * <= t[n − 1]; *i: the last interval's index, a hint for ascending T */
static double interp_at(const double *t, const double *y, int n, double T, int *i)
{
	int k = *i;
	while (k + 2 < n && t[k + 1] <= T)
		k++;
	*i = k;
	if (n == 1 || T <= t[k])
		return y[k];
	if (T >= t[k + 1])
		return y[k + 1];
	double f = (T - t[k]) / (t[k + 1] - t[k]);
	return y[k] + f * (y[k + 1] - y[k]);
}

/* Whether e is h(a..b), a slice of a history by its steps, which a
 * model's program cannot take */
static int is_slice(const struct ast_expr *e)
{
	if (e->kind != AST_CALL || e->args.n != 1 || ((struct ast_arg *)e->args.v[0])->name)
		return 0;
	const struct ast_expr *range = ((struct ast_arg *)e->args.v[0])->value;
	return range->kind == AST_RANGE && !range->rhs;
}

/* spectrum(r.u'', ...): the spectrum of a history of a run (a floor's
 * acceleration: an in-structure response spectrum), linear between the
 * run's steps as a table is between its points.  Its samples are the
 * steps in [T0, T1] and the ends, T0 and T1 the run's first and last
 * times by default, a slice h(a..b) as start = a, end = b; with dt, its
 * interpolant at T0 + k dt and T1. */
static int spectrum_of_history(struct eval *ev, struct ast_expr *call, struct ast_expr *acc, struct value *h,
                               double *T, int np, double xi, struct ast_expr *const *opt, double start, double end,
                               double dt, struct value *out)
{
	int first = 0, count = -1, win = hist_window(ev, acc, h, &first, &count);
	if (win < 0)
		return -1;
	if (h->kind != VAL_HIST)
		return eval_error(ev, acc->loc, "the acceleration must be a number (a function of t), not %s",
		                  value_kind_name(h));
	const double *y;
	int n;
	if (hist_values(ev, h, acc->loc, &y, &n))
		return -1;
	const double *t = h->run->res->t;
	double t0 = t[0], t1 = t[n - 1];
	if (win) {
		/* the slice's bounds (hist_window checked them) */
		struct ast_expr *range = ((struct ast_arg *)acc->args.v[0])->value;
		if (eval_number(ev, range->lo, &t0, "the start of the slice") ||
		    eval_number(ev, range->hi, &t1, "the end of the slice"))
			return -1;
	}
	if (!opt[0])
		start = t0;
	if (!opt[1])
		end = t1;
	if (start < t0 || end > t1) {
		char ab[32], bb[32];
		value_format_num(t0, ab);
		value_format_num(t1, bb);
		if (win)
			return eval_error(ev, opt[start < t0 ? 0 : 1]->loc,
			                  "spectrum: the slice of %s is from t = %s to %s: start and end must lie there",
			                  h->ser.label, ab, bb);
		return eval_error(ev, opt[start < t0 ? 0 : 1]->loc,
		                  "spectrum: the history %s has values from t = %s to %s: start and end must lie there",
		                  h->ser.label, ab, bb);
	}
	if (!(end > start))
		return eval_error(ev, call->loc, "spectrum: the end %g is not after the start %g", end, start);
	/* the samples read: those in [start, end], and the steps on either
	 * side of an end between steps, which its interpolant reads */
	for (int i = 0; i < n; i++)
		if (!isfinite(y[i]) && ((t[i] >= start && t[i] <= end) || (i + 1 < n && t[i] < start && t[i + 1] > start) ||
		                        (i > 0 && t[i] > end && t[i - 1] < end))) {
			char tb[32];
			value_format_num(t[i], tb);
			return eval_error(ev, acc->loc, "the acceleration is not a finite number at t = %s", tb);
		}
	/* the sample times: T0 + k dt and T1, or the steps strictly inside
	 * (T0, T1) between T0 and T1 */
	int m = 0;
	double *ts;
	if (dt > 0) {
		/* the grid of an expression of t (no table read with dt) */
		if ((m = spectrum_times(ev, call, NULL, start, end, dt, &ts)) < 0)
			return -1;
	} else {
		ts = arena_alloc(ev->a, sizeof(double) * ((size_t)n + 2));
		ts[m++] = start;
		for (int i = 0; i < n; i++)
			if (t[i] > start && t[i] < end)
				ts[m++] = t[i];
		ts[m++] = end;
	}
	double *a = malloc(sizeof(double) * (size_t)m);
	if (!a)
		return eval_error(ev, call->loc, "spectrum: out of memory for %d samples", m);
	int hint = 0;
	for (int i = 0; i < m; i++)
		a[i] = interp_at(t, y, n, ts[i], &hint);
	int rc = spectrum_result(ev, call, ts, a, m, T, np, xi, out);
	free(a);
	return rc;
}

/* spectrum(ACCEL, periods, xi [, start = T0, end = T1, dt = TAU]): the
 * elastic response spectrum of a ground acceleration, a function of t
 * (table(...) of a record, or any expression), computed exactly for the
 * acceleration linear between its samples (runtime/spectrum.c). */
static int spectrum_call(struct eval *ev, struct ast_expr *call, struct value *out)
{
	struct ast_expr *pos[3];
	struct ast_expr *opt[3] = { NULL, NULL, NULL };   /* start, end, dt */
	static const char *const optname[] = { "start", "end", "dt" };
	int npos = 0;
	for (int i = 0; i < call->args.n; i++) {
		struct ast_arg *g = call->args.v[i];
		if (!g->name) {
			if (npos == 3 || i > npos)
				return eval_error(ev, g->loc, "spectrum takes 3 arguments (acceleration, periods, xi), then "
				                  "start =, end =, dt =");
			pos[npos++] = g->value;
			continue;
		}
		int k = 0;
		while (k < 3 && strcmp(optname[k], g->name) != 0)
			k++;
		if (k == 3)
			return eval_error(ev, g->loc, "spectrum has no named parameter '%s' (start, end, dt)", g->name);
		if (opt[k])
			return eval_error(ev, g->loc, "spectrum: '%s' is given twice", g->name);
		opt[k] = g->value;
	}
	if (npos != 3)
		return arity_error(ev, call, "spectrum", "3 arguments (acceleration, periods, xi)");
	/* periods and xi first: they are constants of the caller */
	struct value pv;
	double xi, start = 0, end = 0, dt = 0;
	if (eval_expr(ev, pos[1], &pv) || eval_number(ev, pos[2], &xi, "the damping ratio xi"))
		return -1;
	if (pv.kind != VAL_NUM && !(pv.kind == VAL_MAT && (pv.rows == 1 || pv.cols == 1)))
		return eval_error(ev, pos[1]->loc, "the periods must be a number or a vector, not %s", value_kind_name(&pv));
	int np = pv.kind == VAL_NUM ? 1 : pv.rows * pv.cols;
	double *T = arena_alloc(ev->a, sizeof(double) * (size_t)np + 1);
	for (int i = 0; i < np; i++) {
		if (!value_const(ev, &pv, i, &T[i]))
			return eval_error(ev, pos[1]->loc, "the periods must be constant");
		if (!(T[i] > 0) || !isfinite(T[i]))
			return eval_error(ev, pos[1]->loc, "period %d is %g: periods must be positive", i + 1, T[i]);
		/* ω² = (2π/T)² overflows below 2π/√DBL_MAX = 4.7e-154: the
		 * response came out NaN */
		if (!isfinite(4 * M_PI * M_PI / (T[i] * T[i])))
			return eval_error(ev, pos[1]->loc, "period %d is %g: below 4.7e-154 (2 pi/T)^2 overflows; a period far "
			                  "below the sampling step, 1e-150 say, gives the ground's own peak acceleration as psa",
			                  i + 1, T[i]);
	}
	if (!(xi >= 0 && xi < 1))
		return eval_error(ev, pos[2]->loc, "the damping ratio xi must lie in [0, 1), not %g", xi);
	if ((opt[0] && eval_number(ev, opt[0], &start, "start")) || (opt[1] && eval_number(ev, opt[1], &end, "end")) ||
	    (opt[2] && eval_number(ev, opt[2], &dt, "dt")))
		return -1;
	if (opt[2] && !(dt > 0 && isfinite(dt)))
		return eval_error(ev, opt[2]->loc, "dt must be positive, not %g", dt);

	/* a slice of a history, h(a..b), taken as it is: evaluated as an
	 * expression first, it became a vector of every sample (refused
	 * beyond 10^6) before being thrown away */
	if (is_slice(pos[0])) {
		struct value hv = { 0 };
		return spectrum_of_history(ev, call, pos[0], &hv, T, np, xi, opt, start, end, dt, out);
	}
	/* The acceleration, lowered as a model's load is: a program of t,
	 * its tables kept by a model of its own. */
	struct ir_model *m = arena_alloc(ev->a, sizeof *m);
	struct model_ctx mc = { 0 };
	mc.m = m;
	mc.allow_t = 1;
	mc.what = "the acceleration";
	mc.script_dir = ev->script_dir;
	struct model_ctx *saved_mc = ev->mc;
	struct ir_prog *saved_prog = ev->prog;
	ev->mc = &mc;
	ev->prog = ir_prog_new(ev->a);
	struct value av;
	int rc = eval_expr(ev, pos[0], &av);
	struct ir_prog *prog = ev->prog;
	ev->mc = saved_mc;
	ev->prog = saved_prog;
	if (rc)
		return -1;
	if (av.kind == VAL_HIST)
		return spectrum_of_history(ev, call, pos[0], &av, T, np, xi, opt, start, end, dt, out);
	if (av.kind != VAL_NUM)
		return eval_error(ev, pos[0]->loc, "the acceleration must be a number (a function of t), not %s",
		                  value_kind_name(&av));
	ir_prog_add_output(prog, av.reg);
	ir_prog_compact(prog);

	/* The time range: a table's by default; an expression without one
	 * needs end and dt. */
	if (m->ntable == 0 && (!opt[1] || !opt[2]))
		return eval_error(ev, pos[0]->loc, "spectrum of an expression of t: give its duration and sampling step, "
		                  "as spectrum(..., end = 10, dt = 0.005)");
	if (!opt[0] && m->ntable) {
		start = m->table[0].x[0];
		for (int j = 1; j < m->ntable; j++)
			start = fmin(start, m->table[j].x[0]);
	}
	if (!opt[1]) {
		end = m->table[0].x[m->table[0].n - 1];
		for (int j = 1; j < m->ntable; j++)
			end = fmax(end, m->table[j].x[m->table[j].n - 1]);
	}
	if (!(end > start))
		return eval_error(ev, call->loc, "spectrum: the end %g is not after the start %g", end, start);
	double *t = NULL;
	int n = spectrum_times(ev, call, m, start, end, dt, &t);
	if (n < 0)
		return -1;
	double *a = malloc(sizeof(double) * (size_t)n), *reg = malloc(sizeof(double) * (size_t)(prog->n + 1));
	int *hint = calloc((size_t)m->ntable + 1, sizeof(int));
	if (!a || !reg || !hint) {
		free(a);
		free(reg);
		free(hint);
		return eval_error(ev, call->loc, "spectrum: out of memory for %d samples", n);
	}
	struct vm_input in = { 0 };
	in.table = m->table;
	in.table_hint = hint;
	rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		in.t = t[i];
		vm_eval(prog, reg, &in, &a[i]);
		if (!isfinite(a[i])) {
			char tb[32];
			value_format_num(t[i], tb);
			rc = eval_error(ev, pos[0]->loc, "the acceleration is not a finite number at t = %s", tb);
		}
	}
	if (rc == 0)
		rc = spectrum_result(ev, call, t, a, n, T, np, xi, out);
	free(a);
	free(reg);
	free(hint);
	return rc ? -1 : 0;
}

/* The model that MODEL or MODEL(p = v, ...) names, its parameters set as
 * run MODEL(p = v) sets them (modes(), :eig); who prefixes the messages. */
int lower_model_expr(struct eval *ev, struct ast_expr *me, const char *who, struct ir_model **out)
{
	struct ast_run over = { 0 };
	if (me->kind == AST_CALL && me->lhs->kind == AST_NAME) {
		over.overrides = me->args;
		me = me->lhs;
	}
	if (me->kind != AST_NAME)
		return eval_error(ev, me->loc, "%s: the first argument must be the name of a model", who);
	struct eval sub = *ev;
	if (over.overrides.n) {
		for (int i = 0; i < over.overrides.n; i++)
			if (!((struct ast_arg *)over.overrides.v[i])->name)
				return eval_error(ev, ((struct ast_arg *)over.overrides.v[i])->loc,
				                  "%s: %s(...) takes its parameters by name, p = v", who, me->name);
		struct binding *b = scope_lookup(ev->scope, me->name);
		if (b && b->kind == B_MODEL && run_overrides_check(ev->d, ev->a, b->stmt->model, &over, eval_script_value, ev))
			return -1;
		struct value *ov = arena_alloc(ev->a, sizeof *ov * (size_t)(over.overrides.n + 1));
		for (int i = 0; i < over.overrides.n; i++) {
			struct ast_arg *o = over.overrides.v[i];
			sub.prog = ir_prog_new(ev->a);
			if (eval_expr(&sub, o->value, &ov[i]) || value_freeze(&sub, &ov[i], o->value->loc, "a parameter"))
				return -1;
		}
		sub.overrides = &over.overrides;
		sub.override_val = ov;
	}
	return lower_model_named(&sub, me->name, me->loc, out);
}

/* modes(MODEL, k): the lowest k modes of a model linearised at its
 * initial state (runtime/modes.c: dsygvd up to RT_MODES_DENSE_MAX
 * unknowns, ARPACK beyond), with their participation along the support
 * direction d (without a support a unit rigid translation along x:
 * every dof along 1, a vector field's first component, a Hermite
 * field's values; fe_translation). */
static int modes_call(struct eval *ev, struct ast_expr *call, struct value *out)
{
	if (positional(ev, call, "modes"))
		return -1;
	if (call->args.n != 2)
		return arity_error(ev, call, "modes", "2 arguments (model, k)");
	struct ast_expr *me = arg(call, 0);
	long k;
	if (eval_int(ev, arg(call, 1), &k, "the number of modes"))
		return -1;
	struct ir_model *m = NULL;
	if (lower_model_expr(ev, me, "modes", &m))
		return -1;
	me = me->kind == AST_CALL ? me->lhs : me;
	int n = m->ndof, nmax = n - m->nconstraint;
	if (nmax < 1)   /* "k must be between 1 and 0" would say nothing */
		return eval_error(ev, me->loc, "modes: model %s has no modes: its %d constraint%s leave%s none of its %d "
		                  "dof%s free", m->name, m->nconstraint, m->nconstraint == 1 ? "" : "s",
		                  m->nconstraint == 1 ? "s" : "", n, n == 1 ? "" : "s");
	if (k < 1 || k > nmax)
		return eval_error(ev, arg(call, 1)->loc, "modes: k must be between 1 and %d (the modes of model %s), "
		                  "not %ld", nmax, m->name, k);
	struct modes_value *mv = arena_alloc(ev->a, sizeof *mv);
	memset(mv, 0, sizeof *mv);
	mv->n = n;
	mv->k = (int)k;
	mv->model = m->name;
	double *w2 = malloc(sizeof(double) * (size_t)n), *phi = malloc(sizeof(double) * (size_t)n * (size_t)k);
	double *d = malloc(sizeof(double) * (size_t)n);
	struct rt_error err;
	int nm = 0, rc = -1;
	if (!w2 || !phi || !d) {
		eval_error(ev, call->loc, "modes: out of memory");
	} else if (rt_modes(m, (int)k, w2, phi, &nm, &err) || nm < k) {
		eval_error(ev, call->loc, "modes: %s", err.msg[0] ? err.msg : "fewer modes than asked");
	} else {
		for (int i = 0; i < n; i++)
			d[i] = m->support ? m->support_dir[i] : m->translation ? m->translation[i] : 1;
		/* (a shape's sign is arbitrary: rt_modes makes its largest
		 * entry positive) */
		double *c[7];
		for (int f = 0; f < 6; f++)
			c[f] = arena_alloc(ev->a, sizeof(double) * (size_t)k);
		c[6] = arena_alloc(ev->a, sizeof(double) * (size_t)n * (size_t)k);
		mv->omega = c[0], mv->f = c[1], mv->period = c[2], mv->gamma = c[3], mv->meff = c[4], mv->share = c[5];
		mv->phi = c[6];
		memcpy(mv->phi, phi, sizeof(double) * (size_t)n * (size_t)k);
		if (rt_modal_mass(m, (int)k, phi, d, mv->gamma, mv->meff, &mv->total, &err)) {
			eval_error(ev, call->loc, "modes: %s", err.msg);
		} else if (!isfinite(mv->total)) {
			/* d = [1e200, 0]: the masses overflow (a share of NaN) */
			eval_error(ev, call->loc, "modes: the total mass along the support's direction, d^T M d, is not "
			           "finite (%g): scale the direction", mv->total);
		} else {
			double cum = 0;
			int neg = 0, first = -1;
			for (int j = 0; j < k; j++)
				if (w2[j] < 0 && neg++ == 0)
					first = j;
			/* the lowest, once: each further one is the same finding */
			rc = neg ? eval_error(ev, call->loc, "modes: mode %d of model %s has omega^2 = %g < 0%s: the "
			                      "initial state is not a stable equilibrium", first + 1, m->name, w2[first],
			                      neg > 1 ? arena_printf(ev->a, " (%d of the %ld modes asked are negative)", neg,
			                                             k) : "") : 0;
			for (int j = 0; j < k; j++) {
				mv->omega[j] = sqrt(w2[j] > 0 ? w2[j] : 0);
				mv->f[j] = mv->omega[j] / (2 * M_PI);
				mv->period[j] = mv->omega[j] > 0 ? 2 * M_PI / mv->omega[j] : INFINITY;
				cum += mv->meff[j];
				mv->share[j] = mv->total > 0 ? cum / mv->total : 0;
			}
		}
	}
	free(w2);
	free(phi);
	free(d);
	if (rc)
		return -1;
	out->kind = VAL_MODES;
	out->modes = mv;
	return 0;
}

/* A scalar function's constant result that is not finite, reported
 * with its argument (x, and y of a two-argument function, n = 2): 1
 * when reported. */
static int scalar_not_finite(struct eval *ev, struct ast_expr *call, const char *name, enum ir_op op, int reg,
                             int xreg, int yreg, int n)
{
	double k;
	if (!ir_is_const(ev->prog, reg, &k) || isfinite(k))
		return 0;
	double a = 0, b = 1;
	ir_is_const(ev->prog, xreg, &a);
	if (n == 2)
		ir_is_const(ev->prog, yreg, &b);
	char buf[32], buf2[32];
	value_format_num(a, buf);
	value_format_num(b, buf2);
	/* mod(x, 0) divides by zero; mod(nan | inf, y) and
	 * mod(x, nan) have no value, said as for the others */
	if (n == 2 && op == IR_FMOD && b == 0 && isfinite(a))
		eval_error(ev, call->loc, "mod(%s, 0): division by zero", buf);
	else if (n == 2 && op == IR_FMOD)
		eval_error(ev, call->loc, "mod(%s, %s) is not a finite number", buf, buf2);
	else
		eval_error(ev, call->loc, "%s(%s%s) is not a finite number", name, buf, n == 2 ? ", ..." : "");
	return 1;
}

int builtin_call(struct eval *ev, struct ast_expr *call, const char *name, struct value *out, int *status)
{
	memset(out, 0, sizeof *out);
	if (strcmp(name, "argmax") == 0 || strcmp(name, "argmin") == 0 || strcmp(name, "rms") == 0 ||
	    strcmp(name, "mean") == 0 || strcmp(name, "crossings") == 0 || strcmp(name, "period") == 0) {
		*status = history_fn(ev, call, name, out);
		return 0;
	}
	if (strcmp(name, "length") == 0) {
		/* length(v): the number of elements of a vector (of crossings) */
		*status = -1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n != 1) {
			arity_error(ev, call, name, "1 argument (a vector)");
			return 0;
		}
		struct value v;
		if (eval_expr(ev, arg(call, 0), &v))
			return 0;
		if (v.kind == VAL_NUM)
			*out = value_num(ev, 1, call->loc);
		else if (v.kind == VAL_MAT && (v.rows == 1 || v.cols == 1))
			*out = value_num(ev, v.rows * v.cols, call->loc);
		else if (v.kind == VAL_HIST && v.cols != -1)
			*out = value_num(ev, v.run->res->nstep + 1, call->loc);
		else if (v.kind == VAL_HIST) {
			/* r.lambda, r.u of a vector dof: a history per entry */
			eval_error(ev, arg(call, 0)->loc, "length needs a vector or one history: %s is a history per "
			           "entry, index it (length(%s[1]), its number of samples)", v.ser.label, v.ser.label);
			return 0;
		} else {
			eval_error(ev, arg(call, 0)->loc, "length needs a vector, not %s", value_kind_name(&v));
			return 0;
		}
		*status = 0;
		return 0;
	}
	int is_reduction = strcmp(name, "maxabs") == 0 ||
	                   ((strcmp(name, "max") == 0 || strcmp(name, "min") == 0) && call->args.n == 1);
	if (is_reduction) {
		*status = -1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n != 1) {
			arity_error(ev, call, name, "1 argument (a history such as r.u)");
			return 0;
		}
		struct value h;
		if (eval_expr(ev, arg(call, 0), &h))
			return 0;
		if (h.kind == VAL_MAT && (h.rows == 1 || h.cols == 1)) {
			*status = reduce_vector(ev, call, name, &h, out);
			return 0;
		}
		if (h.kind != VAL_HIST) {
			eval_error(ev, arg(call, 0)->loc, "%s(x) needs a history such as r.u or a vector, not %s%s", name,
			           value_kind_name(&h), strcmp(name, "maxabs") ? " (or two numbers: max(a, b))" : "");
			return 0;
		}
		*status = reduce(ev, call, name, &h, out);
		return 0;
	}
	for (size_t f = 0; f < sizeof scalar_fn / sizeof scalar_fn[0]; f++) {
		if (strcmp(scalar_fn[f].name, name) != 0)
			continue;
		int n = scalar_fn[f].nargs;
		*status = -1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n != n) {
			arity_error(ev, call, name, n == 1 ? "1 argument" : "2 arguments");
			return 0;
		}
		struct value x[2];
		for (int i = 0; i < n; i++) {
			if (eval_expr(ev, arg(call, i), &x[i]))
				return 0;
			if (x[i].kind != VAL_NUM && !(n == 1 && x[i].kind == VAL_MAT)) {
				eval_error(ev, arg(call, i)->loc, "%s needs a number, not %s", name, value_kind_name(&x[i]));
				return 0;
			}
		}
		struct ir_loc loc = ir_loc_of(call->loc);
		if (n == 1 && x[0].kind == VAL_MAT) {
			/* element by element, each element's value checked as a
			 * number's is: sqrt([1, -1]) printed [1, nan] */
			*out = value_mat(ev, x[0].rows, x[0].cols);
			for (int i = 0; i < x[0].rows * x[0].cols; i++) {
				out->m[i] = ir_emit(ev->prog, scalar_fn[f].op, x[0].m[i], 0, 0, loc);
				if (scalar_not_finite(ev, call, name, scalar_fn[f].op, out->m[i], x[0].m[i], 0, 1))
					return 0;
			}
			*status = 0;
			return 0;
		}
		out->kind = VAL_NUM;
		out->reg = ir_emit(ev->prog, scalar_fn[f].op, x[0].reg, n > 1 ? x[1].reg : 0, 0, loc);
		if (scalar_not_finite(ev, call, name, scalar_fn[f].op, out->reg, x[0].reg, n > 1 ? x[1].reg : 0, n))
			return 0;
		*status = 0;
		return 0;
	}

	if (strcmp(name, "spectral_radius") == 0) {
		/* spectral_radius(SCHEME, omega_tau): of the one-step amplification
		 * matrix on the undamped oscillator */
		*status = -1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n != 2) {
			arity_error(ev, call, name, "2 arguments (a scheme, omega*tau)");
			return 0;
		}
		struct ir_scheme sch;
		double wt, rho;
		if (lower_scheme(ev, arg(call, 0), &sch) || eval_number(ev, arg(call, 1), &wt, "omega*tau"))
			return 0;
		if (!(wt >= 0) || !isfinite(wt)) {
			eval_error(ev, arg(call, 1)->loc, "omega*tau must be a finite non-negative number");
			return 0;
		}
		/* the step's operators hold (omega tau)²: beyond 1e100 they
		 * overflow (1e155 and up failed in the eigensolver) */
		if (wt > 1e100) {
			eval_error(ev, arg(call, 1)->loc, "omega*tau = %g is beyond 1e100, where the amplification matrix "
			           "(entries of order (omega tau)^2) overflows; rho is at its limit rho_inf long before",
			           wt);
			return 0;
		}
		struct rt_error err;
		if (rt_spectral_radius(&sch, wt, &rho, &err)) {
			eval_error(ev, call->loc, "%s", err.msg);
			return 0;
		}
		*out = value_num(ev, rho, call->loc);
		*status = 0;
		return 0;
	}
	if (strcmp(name, "spectrum") == 0) {
		*status = spectrum_call(ev, call, out);
		return 0;
	}
	if (strcmp(name, "modes") == 0) {
		*status = modes_call(ev, call, out);
		return 0;
	}
	if (strcmp(name, "table") == 0) {
		*status = table_call(ev, call, out);
		return 0;
	}
	if (strcmp(name, "mtx") == 0) {
		/* lang/lower.c reads it where an operator is declared. */
		*status = eval_error(ev, call->loc, "mtx(...) reads an operator from a file: use it as "
		                     "'mass mtx(\"M.mtx\")', 'damping mtx(...)' or 'stiffness mtx(...)'");
		return 0;
	}
	if (strcmp(name, "eye") == 0 || strcmp(name, "zeros") == 0 || strcmp(name, "ones") == 0) {
		*status = -1;
		int eye = name[0] == 'e';
		if (positional(ev, call, name))
			return 0;
		if (call->args.n < 1 || call->args.n > (eye ? 1 : 2)) {
			arity_error(ev, call, name, eye ? "1 argument (the size)" : "1 or 2 arguments (the sizes)");
			return 0;
		}
		int r, c;
		if (size_arg(ev, arg(call, 0), &r))
			return 0;
		c = r;
		if (call->args.n == 2 && size_arg(ev, arg(call, 1), &c))
			return 0;
		if (!eye && call->args.n == 1)
			c = 1;
		if ((double)r * c > MAX_ENTRIES) {
			eval_error(ev, call->loc, "a %dx%d matrix is too large", r, c);
			return 0;
		}
		*out = value_mat(ev, r, c);
		int zero = ir_emit_const(ev->prog, 0, ir_loc_of(call->loc));
		int one = ir_emit_const(ev->prog, 1, ir_loc_of(call->loc));
		for (int i = 0; i < r; i++)
			for (int j = 0; j < c; j++)
				out->m[i * c + j] = name[0] == 'o' || (eye && i == j) ? one : zero;
		*status = 0;
		return 0;
	}
	if (strcmp(name, "diag") == 0) {
		/* diag(v) of a vector, or diag(a, b, c) of numbers. */
		*status = -1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n < 1) {
			arity_error(ev, call, name, "a vector or numbers");
			return 0;
		}
		int n = call->args.n;
		int *d;
		struct value x;
		if (n == 1) {
			if (eval_expr(ev, arg(call, 0), &x))
				return 0;
			if (x.kind == VAL_NUM) {
				d = &x.reg;
			} else if (x.kind == VAL_MAT && (x.rows == 1 || x.cols == 1)) {
				n = x.rows * x.cols;
				d = x.m;
			} else {
				eval_error(ev, arg(call, 0)->loc, "diag needs a vector or numbers, not %s", value_kind_name(&x));
				return 0;
			}
		} else {
			d = arena_alloc(ev->a, sizeof(int) * (size_t)n);
			for (int i = 0; i < n; i++) {
				if (eval_expr(ev, arg(call, i), &x))
					return 0;
				if (x.kind != VAL_NUM) {
					eval_error(ev, arg(call, i)->loc, "diag(a, b, ...) needs numbers, not %s", value_kind_name(&x));
					return 0;
				}
				d[i] = x.reg;
			}
		}
		*out = value_mat(ev, n, n);
		int zero = ir_emit_const(ev->prog, 0, ir_loc_of(call->loc));
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				out->m[i * n + j] = i == j ? d[i] : zero;
		*status = 0;
		return 0;
	}
	if (strcmp(name, "matrix") == 0 || strcmp(name, "vector") == 0) {
		/* matrix(r, c, f) = [f(i, j)], vector(n, f) = [f(i)]: f names a
		 * function; indices count from 1. */
		*status = -1;
		int mat = name[0] == 'm', nsize = mat ? 2 : 1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n != nsize + 1) {
			arity_error(ev, call, name, mat ? "3 arguments (rows, columns, a function f(i, j))"
			                                : "2 arguments (size, a function f(i))");
			return 0;
		}
		int r, c = 1;
		if (size_arg(ev, arg(call, 0), &r) || (mat && size_arg(ev, arg(call, 1), &c)))
			return 0;
		struct ast_expr *fe = arg(call, nsize);
		struct binding *fb = fe->kind == AST_NAME ? scope_lookup(ev->scope, fe->name) : NULL;
		if (!fb || fb->kind != B_FUNCTION || fb->stmt->params.n != nsize) {
			eval_error(ev, fe->loc, "%s needs the name of a function of %d argument%s", name, nsize,
			           nsize == 1 ? "" : "s");
			return 0;
		}
		if ((double)r * c > MAX_ENTRIES) {
			eval_error(ev, call->loc, "a %dx%d matrix is too large", r, c);
			return 0;
		}
		double need = (double)r * c * CALL_ENTRY_BYTES, limit = value_memory_limit(ev);
		if (need > limit) {
			eval_error(ev, call->loc, "%s(...) of %.0f entries would take about %.0f MB, more than the memory "
			           "limit of %.0f MB (--memory-limit MB sets it)", name, (double)r * c, need / 1e6,
			           limit / 1e6);
			return 0;
		}
		/* Call f through a synthetic call node whose arguments are the
		 * indices, so that user functions behave exactly as when called. */
		struct ast_expr *ix[2];
		struct ast_expr fcall = *call;
		fcall.kind = AST_CALL;
		fcall.lhs = fe;
		fcall.args.n = 0;
		fcall.args.cap = 0;
		fcall.args.v = NULL;
		for (int k = 0; k < nsize; k++) {
			ix[k] = ast_expr_new(ev->a, AST_NUM, call->loc);
			ast_vec_push(ev->a, &fcall.args, ast_arg_new(ev->a, NULL, call->loc, ix[k]));
		}
		*out = value_mat(ev, r, c);
		for (int i = 0; i < r; i++)
			for (int j = 0; j < c; j++) {
				struct value x;
				ix[0]->num = i + 1;
				if (mat)
					ix[1]->num = j + 1;
				if (eval_expr(ev, &fcall, &x))
					return 0;
				if (x.kind != VAL_NUM) {
					eval_error(ev, fe->loc, "%s must return a number, not %s", fe->name, value_kind_name(&x));
					return 0;
				}
				out->m[i * c + j] = x.reg;
			}
		*status = 0;
		return 0;
	}
	if (strcmp(name, "transpose") == 0) {
		*status = -1;
		if (positional(ev, call, name))
			return 0;
		if (call->args.n != 1) {
			arity_error(ev, call, name, "1 argument");
			return 0;
		}
		struct value x;
		if (eval_expr(ev, arg(call, 0), &x))
			return 0;
		if (x.kind == VAL_NUM) {
			*out = x;
		} else if (x.kind == VAL_MAT) {
			*out = value_mat(ev, x.cols, x.rows);
			for (int i = 0; i < x.rows; i++)
				for (int j = 0; j < x.cols; j++)
					out->m[j * x.rows + i] = x.m[i * x.cols + j];
		} else {
			eval_error(ev, arg(call, 0)->loc, "transpose needs a matrix, not %s", value_kind_name(&x));
			return 0;
		}
		*status = 0;
		return 0;
	}
	return 1;
}
