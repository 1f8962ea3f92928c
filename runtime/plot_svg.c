/* plot_svg.c — writes plots (time histories, phase portraits) as standalone
 * SVG 1.1 documents using nothing but stdio and libm, so that `dyn` can
 * produce figures on any machine without a plotting package.
 *
 * The page is 800×500 user units: a framed plot area with light grid lines
 * at "nice" ticks (1, 2, 5 × 10^k, or decades on logarithmic axes), tick
 * labels, axis labels, an optional title and a legend.  Each series is drawn
 * as polylines; a non-finite point (or a non-positive one on a logarithmic
 * axis) ends the current polyline, so gaps in the data show as gaps.
 *
 * Simulations easily record millions of samples, far more than the plot
 * has pixels.  A series with more than DECIMATE_FACTOR points per pixel
 * column is thinned: each run of consecutive points that falls in one pixel
 * column is replaced by its minimum and maximum (in their original order),
 * which keeps the envelope of fast oscillations visible while bounding the
 * file size by the plot width rather than by the number of samples.
 *
 * All numbers are written in the C locale whatever the process locale is,
 * since SVG requires '.' as the decimal point.
 */
#define _POSIX_C_SOURCE 200809L

#include "plot.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Page and plot-area geometry, in SVG user units (pixels at 100 %). */
#define PAGE_W 800
#define PAGE_H 500
#define AREA_X0 80.0    /* left edge of the plot area: room for y ticks */
#define AREA_X1 780.0
#define AREA_Y0 40.0    /* top edge: room for the title */
#define AREA_Y1 440.0   /* bottom edge: room for x ticks and the x label */

#define MAX_TICKS 8
#define DECIMATE_FACTOR 4   /* thin series with more points than this × width */

static const char *const palette[8] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#17becf"
};

/* Dash patterns, cycled with the colours (series s: palette[s % 8],
 * dashes[s % 4]): curves that lie on top of each other, or that are
 * printed in grey, stay distinguishable.  NULL is a solid line. */
static const char *const dashes[4] = { NULL, "8,4", "2,3", "10,3,2,3" };

/* Output context: remembers the first failure so that drawing code need not
 * check every call, and plot_svg_write reports it once at the end. */
struct out {
	FILE *f;
	int failed;
	int saved_errno;
};

static void out(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(o->f, fmt, ap) < 0 && !o->failed) {
		o->failed = 1;
		o->saved_errno = errno;
	}
	va_end(ap);
}

/* Write s as XML character data / attribute value.  Control characters
 * other than tab and newline are not allowed in XML 1.0 and would make the
 * whole document unreadable, so they become spaces. */
static void out_text(struct out *o, const char *s)
{
	const unsigned char *p;

	if (!s)
		return;
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': out(o, "&amp;"); break;
		case '<': out(o, "&lt;"); break;
		case '>': out(o, "&gt;"); break;
		case '"': out(o, "&quot;"); break;
		case '\'': out(o, "&apos;"); break;
		default:
			if (*p < 0x20 && *p != '\t' && *p != '\n')
				out(o, " ");
			else if (putc(*p, o->f) == EOF && !o->failed) {
				o->failed = 1;
				o->saved_errno = errno;
			}
		}
	}
}

/* One axis: the data range in axis space (log10 of the values for a
 * logarithmic axis) and its mapping to pixels. */
struct axis {
	int log;
	double lo, hi;      /* axis-space range, lo < hi */
	double p0, p1;      /* pixel positions of lo and hi */
	int nticks;
	double ticks[MAX_TICKS + 8];    /* in value space, not axis space */
	int prec;           /* significant digits of linear tick labels */
};

/* Value to axis space; NaN when the value cannot be shown. */
static double to_axis(const struct axis *a, double v)
{
	if (a->log)
		return v > 0 ? log10(v) : NAN;
	return v;
}

static double to_pixel(const struct axis *a, double u)
{
	/* Halving both ends first keeps hi - lo finite even for data spanning
	 * most of the double range. */
	double frac = (0.5 * u - 0.5 * a->lo) / (0.5 * a->hi - 0.5 * a->lo);

	return a->p0 + frac * (a->p1 - a->p0);
}

/* Widen a degenerate or suspiciously narrow range so that it maps to a
 * sensible scale and its ticks remain distinguishable in print. */
static void pad_range(struct axis *a)
{
	double mag, lo, hi;

	if (!(a->lo <= a->hi)) {    /* no data at all */
		a->lo = 0;
		a->hi = 1;
		return;
	}
	if (a->log) {
		/* Half a decade each side of a constant: shows 0.5×..2× ticks. */
		if (a->hi - a->lo < 1e-6) {
			a->lo -= 0.5;
			a->hi += 0.5;
		}
		return;
	}
	mag = fmax(fabs(a->lo), fabs(a->hi));
	if (a->lo == a->hi) {
		if (mag == 0) {
			a->lo = -1;
			a->hi = 1;
		} else {
			lo = a->lo - 0.1 * mag;
			hi = a->hi + 0.1 * mag;
			if (isfinite(lo) && isfinite(hi)) {
				a->lo = lo;
				a->hi = hi;
			} else {    /* ±DBL_MAX: shrink inwards instead */
				a->lo = a->lo > 0 ? 0.9 * a->lo : a->lo;
				a->hi = a->hi < 0 ? 0.9 * a->hi : a->hi;
				if (a->lo == a->hi)
					a->lo = -a->hi;
			}
		}
		return;
	}
	/* A range much narrower than its magnitude would need more digits
	 * than the tick labels carry; centre it in a wider one. */
	if (a->hi - a->lo < 1e-9 * mag) {
		double mid = 0.5 * a->lo + 0.5 * a->hi;

		a->lo = mid - 0.5e-9 * mag;
		a->hi = mid + 0.5e-9 * mag;
	}
}

/* Ticks i·step with i integer inside [lo, hi]; the small tolerance keeps
 * end ticks that division rounds just outside the range. */
static int count_ticks(double lo, double hi, double step, double *i0)
{
	double a = ceil(lo / step - 1e-9), b = floor(hi / step + 1e-9);

	*i0 = a;
	if (!(b >= a))
		return 0;
	return b - a + 1 > 1e6 ? 1000000 : (int)(b - a + 1);
}

/* Linear ticks on [lo, hi] in value space: the finest 1-2-5 step that
 * gives at most MAX_TICKS ticks. */
static void linear_ticks(struct axis *a, double lo, double hi)
{
	static const double mant[3] = { 1, 2, 5 };
	double span = 0.5 * hi - 0.5 * lo, step = 0, i0 = 0;
	double vmax;
	int k, m, n = 0, estep;

	a->nticks = 0;
	a->prec = 6;
	if (!(span > 0) || !isfinite(span))
		return;
	/* span is half the range, so span/4 is an eighth of it. */
	k = (int)floor(log10(span / 4)) - 1;
	for (; k < 400 && n == 0; k++) {
		for (m = 0; m < 3; m++) {
			step = mant[m] * pow(10, k);
			if (!(step > 0))
				continue;
			if (!isfinite(step))
				return;
			n = count_ticks(lo, hi, step, &i0);
			if (n > 0 && n <= MAX_TICKS)
				break;
			n = 0;
		}
	}
	/* Ticks as i·step rather than by repeated addition, so that 0 is
	 * exactly 0 and errors do not accumulate along the axis. */
	for (m = 0; m < n; m++)
		a->ticks[a->nticks++] = (i0 + m) * step;
	/* Enough significant digits to tell neighbouring ticks apart, and
	 * whole numbers below a million written out rather than as 1e+02. */
	vmax = fmax(fabs(lo), fabs(hi));
	estep = (int)floor(log10(step));
	k = (int)floor(log10(vmax));
	a->prec = k - estep + 1;
	if (k < 6 && a->prec < k + 1)
		a->prec = k + 1;
	if (a->prec < 1)
		a->prec = 1;
	if (a->prec > 17)
		a->prec = 17;
}

/* Decade ticks for a logarithmic axis (every few decades when there are
 * many, with 2× and 5× ticks added when there are few). */
static void log_ticks(struct axis *a)
{
	static const int steps[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500 };
	double lo = a->lo, hi = a->hi;
	int klo = (int)ceil(lo - 1e-9), khi = (int)floor(hi + 1e-9);
	int k, s, i, n;

	a->nticks = 0;
	a->prec = 1;
	for (i = 0, s = 1; i < (int)(sizeof steps / sizeof steps[0]); i++) {
		s = steps[i];
		n = 0;
		for (k = klo; k <= khi; k++)
			if (k % s == 0)
				n++;
		if (n <= MAX_TICKS)
			break;
	}
	for (k = klo; k <= khi; k++)
		if (k % s == 0)
			a->ticks[a->nticks++] = pow(10, k);
	if (a->nticks >= 3)
		return;
	/* Fewer than three decades: add 2× and 5× ticks. */
	a->nticks = 0;
	for (k = (int)floor(lo) ; k <= (int)ceil(hi); k++) {
		static const double mult[3] = { 1, 2, 5 };

		for (i = 0; i < 3; i++) {
			double u = k + log10(mult[i]);

			if (u >= lo - 1e-9 && u <= hi + 1e-9 &&
			    a->nticks < MAX_TICKS + 8)
				a->ticks[a->nticks++] = mult[i] * pow(10, k);
		}
	}
	/* Still too few (less than a factor 2.5 shown): plain linear ticks in
	 * value space, drawn at their logarithmic positions. */
	if (a->nticks < 2) {
		linear_ticks(a, pow(10, lo), pow(10, hi));
		a->prec = a->prec < 2 ? 2 : a->prec;
	}
}

/* Compact tick label: %g with trimmed exponent ("2e5", "1e-6") so that
 * labels stay short; the caller has switched to the C locale. */
static void format_tick(char *buf, size_t len, double v, int prec)
{
	char tmp[64], *e, *d;

	if (v == 0)
		v = 0;  /* no "-0" */
	snprintf(tmp, sizeof tmp, "%.*g", prec, v);
	e = strchr(tmp, 'e');
	if (e) {
		/* e+05 → e5, e-05 → e-5 */
		d = e + 1;
		if (*d == '+')
			memmove(d, d + 1, strlen(d));
		else if (*d == '-')
			d++;
		while (d[0] == '0' && d[1])
			memmove(d, d + 1, strlen(d));
	}
	snprintf(buf, len, "%s", tmp);
}

/* Log-axis labels: decades as 1, 10, … 1e+05 → "1e5", small ones as
 * 0.001; other values (2×, 5× ticks) compactly. */
static void format_log_tick(char *buf, size_t len, double v, int prec)
{
	double k = log10(v);

	if (fabs(k - round(k)) < 1e-9) {
		int e = (int)round(k);

		if (e >= 0 && e <= 5)
			snprintf(buf, len, "%.0f", pow(10, e));
		else if (e < 0 && e >= -4)
			snprintf(buf, len, "%.*f", -e, pow(10, e));
		else
			snprintf(buf, len, "1e%d", e);
		return;
	}
	format_tick(buf, len, v, prec < 2 ? 2 : prec);
}

static void axis_label_text(const struct axis *a, double v, char *buf,
                            size_t len)
{
	if (a->log)
		format_log_tick(buf, len, v, a->prec);
	else
		format_tick(buf, len, v, a->prec);
}

/* Builds polylines point by point.  A polyline needs two points to be
 * visible, so the first point is held back; a lone point between breaks is
 * drawn as a dot instead. */
struct line {
	struct out *o;
	const char *color, *dash;
	int npts, onrow;
	double fx, fy;      /* first point, until the second arrives */
	char last[48];      /* last written "x,y", to drop repeated pixels */
};

static void line_point(struct line *l, double px, double py)
{
	char xy[48];

	snprintf(xy, sizeof xy, "%.2f,%.2f", px, py);
	if (l->npts > 0 && strcmp(xy, l->last) == 0)
		return;     /* same pixel: adds bytes, not ink */
	if (l->npts == 0) {
		l->fx = px;
		l->fy = py;
	} else {
		if (l->npts == 1) {
			out(l->o, "<polyline stroke=\"%s\"", l->color);
			if (l->dash)
				out(l->o, " stroke-dasharray=\"%s\"", l->dash);
			out(l->o, " points=\"%s", l->last);
			l->onrow = 1;
		}
		/* Short lines keep the file friendly to diff and editors. */
		out(l->o, l->onrow % 8 == 0 ? "\n%s" : " %s", xy);
		l->onrow++;
	}
	memcpy(l->last, xy, sizeof xy);
	l->npts++;
}

static void line_break(struct line *l)
{
	if (l->npts == 1)
		out(l->o, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2\" fill=\"%s\" "
		    "stroke=\"none\"/>\n", l->fx, l->fy, l->color);
	else if (l->npts > 1)
		out(l->o, "\"/>\n");
	l->npts = 0;
}

static void draw_series(struct out *o, const struct axis *ax,
                        const struct axis *ay, const struct plot_series *s,
                        const char *color, const char *dash)
{
	struct line l;
	double width = fabs(ax->p1 - ax->p0);
	int decimate, i, run_col = 0, have_run = 0;
	int imin = 0, imax = 0;
	double ymin = 0, ymax = 0, pxmin = 0, pxmax = 0, pymin = 0, pymax = 0;

	memset(&l, 0, sizeof l);
	l.o = o;
	l.color = color;
	l.dash = dash;
	if (s->n <= 0 || !s->x || !s->y)
		return;
	decimate = s->n > DECIMATE_FACTOR * width;
	for (i = 0; i < s->n; i++) {
		double u = to_axis(ax, s->x[i]), v = to_axis(ay, s->y[i]);
		double px, py;
		int col;

		if (!isfinite(u) || !isfinite(v)) {
			if (have_run) {
				if (imin < imax) {
					line_point(&l, pxmin, pymin);
					line_point(&l, pxmax, pymax);
				} else {
					line_point(&l, pxmax, pymax);
					line_point(&l, pxmin, pymin);
				}
				have_run = 0;
			}
			line_break(&l);
			continue;
		}
		px = to_pixel(ax, u);
		py = to_pixel(ay, v);
		if (!decimate) {
			line_point(&l, px, py);
			continue;
		}
		col = (int)floor(px);
		if (have_run && col == run_col) {
			if (v < ymin) {
				ymin = v; imin = i; pxmin = px; pymin = py;
			}
			if (v > ymax) {
				ymax = v; imax = i; pxmax = px; pymax = py;
			}
			continue;
		}
		if (have_run) {
			/* Close the previous column: its extremes in time order. */
			if (imin < imax) {
				line_point(&l, pxmin, pymin);
				line_point(&l, pxmax, pymax);
			} else {
				line_point(&l, pxmax, pymax);
				line_point(&l, pxmin, pymin);
			}
		}
		have_run = 1;
		run_col = col;
		ymin = ymax = v;
		imin = imax = i;
		pxmin = pxmax = px;
		pymin = pymax = py;
	}
	if (have_run) {
		if (imin < imax) {
			line_point(&l, pxmin, pymin);
			line_point(&l, pxmax, pymax);
		} else {
			line_point(&l, pxmax, pymax);
			line_point(&l, pxmin, pymin);
		}
	}
	line_break(&l);
}

/* Range of the finite (and, on log axes, positive) points of all series. */
static void data_range(const struct plot_spec *spec, struct axis *ax,
                       struct axis *ay)
{
	int s, i;

	ax->lo = ay->lo = INFINITY;
	ax->hi = ay->hi = -INFINITY;
	for (s = 0; s < spec->nseries; s++) {
		const struct plot_series *ser = &spec->series[s];

		if (!ser->x || !ser->y)
			continue;
		for (i = 0; i < ser->n; i++) {
			double u = to_axis(ax, ser->x[i]);
			double v = to_axis(ay, ser->y[i]);

			if (!isfinite(u) || !isfinite(v))
				continue;
			ax->lo = fmin(ax->lo, u);
			ax->hi = fmax(ax->hi, u);
			ay->lo = fmin(ay->lo, v);
			ay->hi = fmax(ay->hi, v);
		}
	}
}

static void make_ticks(struct axis *a)
{
	if (a->log)
		log_ticks(a);
	else
		linear_ticks(a, a->lo, a->hi);
}

static void draw_axes(struct out *o, const struct axis *ax,
                      const struct axis *ay)
{
	char buf[64];
	int i;

	/* Grid first so that the frame and the curves are drawn over it. */
	out(o, "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
	for (i = 0; i < ax->nticks; i++) {
		double px = to_pixel(ax, to_axis(ax, ax->ticks[i]));

		out(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
		    px, AREA_Y0, px, AREA_Y1);
	}
	for (i = 0; i < ay->nticks; i++) {
		double py = to_pixel(ay, to_axis(ay, ay->ticks[i]));

		out(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
		    AREA_X0, py, AREA_X1, py);
	}
	out(o, "</g>\n");

	out(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"none\" stroke=\"black\" stroke-width=\"1\"/>\n",
	    AREA_X0, AREA_Y0, AREA_X1 - AREA_X0, AREA_Y1 - AREA_Y0);

	/* Tick marks outside the frame, then their labels. */
	out(o, "<g stroke=\"black\" stroke-width=\"1\">\n");
	for (i = 0; i < ax->nticks; i++) {
		double px = to_pixel(ax, to_axis(ax, ax->ticks[i]));

		out(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
		    px, AREA_Y1, px, AREA_Y1 + 5);
	}
	for (i = 0; i < ay->nticks; i++) {
		double py = to_pixel(ay, to_axis(ay, ay->ticks[i]));

		out(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
		    AREA_X0 - 5, py, AREA_X0, py);
	}
	out(o, "</g>\n");

	out(o, "<g font-family=\"sans-serif\" font-size=\"12\" fill=\"black\" "
	    "text-anchor=\"middle\">\n");
	for (i = 0; i < ax->nticks; i++) {
		double px = to_pixel(ax, to_axis(ax, ax->ticks[i]));

		axis_label_text(ax, ax->ticks[i], buf, sizeof buf);
		out(o, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n",
		    px, AREA_Y1 + 19, buf);
	}
	out(o, "</g>\n");
	out(o, "<g font-family=\"sans-serif\" font-size=\"12\" fill=\"black\" "
	    "text-anchor=\"end\">\n");
	for (i = 0; i < ay->nticks; i++) {
		double py = to_pixel(ay, to_axis(ay, ay->ticks[i]));

		axis_label_text(ay, ay->ticks[i], buf, sizeof buf);
		/* dy centres the digits on the tick (no dominant-baseline in
		 * SVG 1.1 renderers we can count on). */
		out(o, "<text x=\"%.2f\" y=\"%.2f\" dy=\"0.35em\">%s</text>\n",
		    AREA_X0 - 8, py, buf);
	}
	out(o, "</g>\n");
}

static void draw_labels(struct out *o, const struct plot_spec *spec)
{
	double cx = 0.5 * (AREA_X0 + AREA_X1), cy = 0.5 * (AREA_Y0 + AREA_Y1);

	if (spec->title && spec->title[0]) {
		out(o, "<text x=\"%.1f\" y=\"26\" font-family=\"sans-serif\" "
		    "font-size=\"16\" font-weight=\"bold\" "
		    "text-anchor=\"middle\">", cx);
		out_text(o, spec->title);
		out(o, "</text>\n");
	}
	if (spec->xlabel && spec->xlabel[0]) {
		out(o, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" "
		    "font-size=\"13\" text-anchor=\"middle\">", cx,
		    AREA_Y1 + 44);
		out_text(o, spec->xlabel);
		out(o, "</text>\n");
	}
	if (spec->ylabel && spec->ylabel[0]) {
		out(o, "<text x=\"18\" y=\"%.1f\" font-family=\"sans-serif\" "
		    "font-size=\"13\" text-anchor=\"middle\" "
		    "transform=\"rotate(-90 18 %.1f)\">", cy, cy);
		out_text(o, spec->ylabel);
		out(o, "</text>\n");
	}
}

/* The legend: a box of one line per series, w × h user units (its width
 * estimated from the label lengths, since SVG 1.1 cannot size a box to
 * its text). */
static void legend_size(const struct plot_spec *spec, double *w, double *h)
{
	size_t len, maxlen = 0;

	for (int s = 0; s < spec->nseries; s++) {
		const char *lab = spec->series[s].label;

		len = lab && lab[0] ? strlen(lab) : 9;    /* "series NN" */
		if (len > maxlen)
			maxlen = len;
	}
	if (maxlen > 60)
		maxlen = 60;
	*w = 40 + 7.0 * (double)maxlen;
	*h = 10 + 18.0 * spec->nseries;
}

/* Does the segment (x0, y0)–(x1, y1) meet the box [bx0, bx1] × [by0, by1]?
 * (Liang–Barsky clipping: the segment's parameter interval inside each
 * slab must not be empty.) */
static int segment_hits(double x0, double y0, double x1, double y1,
                        double bx0, double by0, double bx1, double by1)
{
	double p[4] = { -(x1 - x0), x1 - x0, -(y1 - y0), y1 - y0 };
	double q[4] = { x0 - bx0, bx1 - x0, y0 - by0, by1 - y0 };
	double a = 0, b = 1;

	for (int k = 0; k < 4; k++) {
		if (p[k] == 0) {
			if (q[k] < 0)
				return 0;
		} else {
			double r = q[k] / p[k];

			if (p[k] < 0 && r > a)
				a = r;
			else if (p[k] > 0 && r < b)
				b = r;
		}
	}
	return a <= b;
}

/* How much of the data a legend at (x, y) would hide: the number of
 * drawn segments (and lone points) that meet its box, grown by a few
 * units so that a curve does not touch the frame either. */
static long legend_hides(const struct plot_spec *spec, const struct axis *ax,
                         const struct axis *ay, double x, double y, double w, double h)
{
	double bx0 = x - 4, by0 = y - 4, bx1 = x + w + 4, by1 = y + h + 4;
	long hits = 0;

	for (int s = 0; s < spec->nseries; s++) {
		const struct plot_series *ser = &spec->series[s];
		double px = 0, py = 0;
		int have = 0;

		if (!ser->x || !ser->y)
			continue;
		for (int i = 0; i < ser->n; i++) {
			double u = to_axis(ax, ser->x[i]), v = to_axis(ay, ser->y[i]);

			if (!isfinite(u) || !isfinite(v)) {
				have = 0;
				continue;
			}
			double qx = to_pixel(ax, u), qy = to_pixel(ay, v);

			if (segment_hits(have ? px : qx, have ? py : qy, qx, qy, bx0, by0, bx1, by1))
				hits++;
			px = qx;
			py = qy;
			have = 1;
		}
	}
	return hits;
}

/* Where the legend goes so that it never hides data: the corner of the
 * plot area whose box meets the fewest curves (top right, top left,
 * bottom right, bottom left, in this order of preference at equal
 * count); when every corner would hide some, below the plot, outside
 * the frame (*below set: the page grows by the legend's height). */
static void legend_place(const struct plot_spec *spec, const struct axis *ax,
                         const struct axis *ay, double w, double h,
                         double *x, double *y, int *below)
{
	const double cx[4] = { AREA_X1 - 10 - w, AREA_X0 + 10, AREA_X1 - 10 - w, AREA_X0 + 10 };
	const double cy[4] = { AREA_Y0 + 10, AREA_Y0 + 10, AREA_Y1 - 10 - h, AREA_Y1 - 10 - h };
	long best = -1;

	*below = 0;
	for (int k = 0; k < 4; k++) {
		long n = legend_hides(spec, ax, ay, cx[k], cy[k], w, h);

		if (best < 0 || n < best) {
			best = n;
			*x = cx[k];
			*y = cy[k];
		}
		if (n == 0)
			return;
	}
	*below = 1;
	*x = AREA_X0;
	*y = AREA_Y1 + 56;
}

static void draw_legend(struct out *o, const struct plot_spec *spec, double x, double y,
                        double w, double h)
{
	out(o, "<g class=\"legend\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n");
	out(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	    "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#808080\"/>\n",
	    x, y, w, h);
	for (int s = 0; s < spec->nseries; s++) {
		const char *lab = spec->series[s].label;
		double ly = y + 14 + 18.0 * s;

		out(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"%s\" stroke-width=\"2\"",
		    x + 8, ly, x + 30, ly, palette[s % 8]);
		if (dashes[s % 4])
			out(o, " stroke-dasharray=\"%s\"", dashes[s % 4]);
		out(o, "/>\n");
		out(o, "<text x=\"%.1f\" y=\"%.1f\" dy=\"0.35em\">", x + 36, ly);
		if (lab && lab[0])
			out_text(o, lab);
		else
			out(o, "series %d", s + 1);
		out(o, "</text>\n");
	}
	out(o, "</g>\n");
}

static int write_plot(FILE *f, const struct plot_spec *spec)
{
	struct out o = { f, 0, 0 };
	struct axis ax, ay;
	int s, legend, below = 0, page_h = PAGE_H;
	double lx = 0, ly = 0, lw = 0, lh = 0;

	memset(&ax, 0, sizeof ax);
	memset(&ay, 0, sizeof ay);
	ax.log = spec->logx;
	ay.log = spec->logy;
	data_range(spec, &ax, &ay);
	pad_range(&ax);
	pad_range(&ay);
	/* A little headroom above and below the curves so that extremes do
	 * not merge with the frame; time (x) axes stay tight.  On a log axis
	 * the margin is in decades, which suits it just as well. */
	{
		double m = 0.03 * (0.5 * ay.hi - 0.5 * ay.lo) * 2;

		if (isfinite(ay.lo - m) && isfinite(ay.hi + m)) {
			ay.lo -= m;
			ay.hi += m;
		}
	}
	ax.p0 = AREA_X0;
	ax.p1 = AREA_X1;
	ay.p0 = AREA_Y1;    /* SVG y grows downwards */
	ay.p1 = AREA_Y0;
	make_ticks(&ax);
	make_ticks(&ay);
	legend = spec->nseries > 1 || (spec->nseries == 1 &&
	         spec->series[0].label && spec->series[0].label[0]);
	if (legend) {
		legend_size(spec, &lw, &lh);
		legend_place(spec, &ax, &ay, lw, lh, &lx, &ly, &below);
		if (below && ly + lh + 10 > page_h)
			page_h = (int)ceil(ly + lh + 10);
	}

	out(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	out(&o, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
	    PAGE_W, page_h, PAGE_W, page_h);
	if (spec->title && spec->title[0]) {
		out(&o, "<title>");
		out_text(&o, spec->title);
		out(&o, "</title>\n");
	}
	out(&o, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
	    PAGE_W, page_h);
	draw_axes(&o, &ax, &ay);
	draw_labels(&o, spec);

	out(&o, "<g fill=\"none\" stroke-width=\"1.5\" "
	    "stroke-linejoin=\"round\" stroke-linecap=\"round\">\n");
	for (s = 0; s < spec->nseries; s++)
		draw_series(&o, &ax, &ay, &spec->series[s], palette[s % 8], dashes[s % 4]);
	out(&o, "</g>\n");

	if (legend)
		draw_legend(&o, spec, lx, ly, lw, lh);
	out(&o, "</svg>\n");

	/* Buffered data may fail only when flushed (disk full). */
	if (fflush(f) == EOF && !o.failed) {
		o.failed = 1;
		o.saved_errno = errno;
	}
	if (ferror(f) && !o.failed) {
		o.failed = 1;
		o.saved_errno = EIO;
	}
	if (o.failed) {
		errno = o.saved_errno ? o.saved_errno : EIO;
		return -1;
	}
	return 0;
}

int plot_svg_write(FILE *f, const struct plot_spec *spec)
{
	locale_t c, old = (locale_t)0;
	int r, e;

	/* SVG numbers need '.', whatever LC_NUMERIC the program runs in; a
	 * thread-local switch leaves the rest of the program undisturbed. */
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c != (locale_t)0)
		old = uselocale(c);
	r = write_plot(f, spec);
	e = errno;
	if (c != (locale_t)0) {
		uselocale(old);
		freelocale(c);
	}
	errno = e;
	return r;
}
