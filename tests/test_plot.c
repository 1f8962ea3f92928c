/* test_plot.c — unit tests of runtime/plot_svg.c.  Each plot is written to
 * a temporary file (tmpfile), read back and checked as text: document
 * structure, polylines and their breaks, XML escaping, tick labels on
 * linear and logarithmic axes, degenerate data, the size bound for huge
 * series, and the reporting of write errors.  Exit status 0 when every
 * check passes, 1 otherwise; each failed check is printed with its file
 * and line. */
#define _POSIX_C_SOURCE 200809L

#include "plot.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define CHECK_HAS(svg, s) do { \
	if (!strstr((svg), (s))) { \
		fprintf(stderr, "%s:%d: output lacks \"%s\"\n", \
		        __FILE__, __LINE__, (s)); \
		failures++; \
	} \
} while (0)

#define CHECK_LACKS(svg, s) do { \
	if (strstr((svg), (s))) { \
		fprintf(stderr, "%s:%d: output contains \"%s\"\n", \
		        __FILE__, __LINE__, (s)); \
		failures++; \
	} \
} while (0)

/* Plot to a temporary file and return its text (malloc'ed), or NULL when
 * plot_svg_write failed. */
static char *render(const struct plot_spec *spec, long *size)
{
	FILE *f = tmpfile();
	char *buf;
	long len;

	if (!f) {
		perror("tmpfile");
		exit(1);
	}
	if (plot_svg_write(f, spec) != 0) {
		fclose(f);
		return NULL;
	}
	len = ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		perror("reading back the plot");
		exit(1);
	}
	buf[len] = '\0';
	fclose(f);
	if (size)
		*size = len;
	return buf;
}

static int count(const char *s, const char *sub)
{
	int n = 0;

	while ((s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

/* A well-formed document in outline: header, one root, no numbers gone
 * wrong, no unescaped ampersand. */
static void check_document(const char *svg)
{
	const char *p;

	CHECK(strncmp(svg, "<?xml", 5) == 0 || strncmp(svg, "<svg", 4) == 0);
	CHECK_HAS(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	CHECK_HAS(svg, "viewBox=\"0 0 800 ");     /* taller with a legend below */
	CHECK(count(svg, "</svg>") == 1);
	CHECK(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
	CHECK_LACKS(svg, "nan");
	CHECK_LACKS(svg, "inf");
	CHECK_LACKS(svg, "NaN");
	CHECK_LACKS(svg, "Inf");
	for (p = strchr(svg, '&'); p; p = strchr(p + 1, '&'))
		CHECK(strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 ||
		      strncmp(p, "&gt;", 4) == 0 || strncmp(p, "&quot;", 6) == 0 ||
		      strncmp(p, "&apos;", 6) == 0);
	/* As many opening tags as closing ones for the containers used. */
	CHECK(count(svg, "<g ") == count(svg, "</g>"));
	CHECK(count(svg, "<text") == count(svg, "</text>"));
}

/* Is there a text element whose content is exactly label? */
static int has_label(const char *svg, const char *label)
{
	char want[64];

	snprintf(want, sizeof want, ">%s</text>", label);
	return strstr(svg, want) != NULL;
}

/* Vertical extent of all polyline points (min and max SVG y). */
static void polyline_extent(const char *svg, double *xmin, double *xmax,
                            double *ymin, double *ymax)
{
	const char *p = svg;

	*xmin = *ymin = INFINITY;
	*xmax = *ymax = -INFINITY;
	while ((p = strstr(p, "<polyline")) != NULL) {
		char *end;

		p = strstr(p, "points=\"") + 8;
		for (;;) {
			double x = strtod(p, &end), y;

			if (end == p || *end != ',')
				break;
			p = end + 1;
			y = strtod(p, &end);
			p = end;
			*xmin = fmin(*xmin, x);
			*xmax = fmax(*xmax, x);
			*ymin = fmin(*ymin, y);
			*ymax = fmax(*ymax, y);
		}
	}
}

static void test_series_and_legend(void)
{
	double x[5] = { 0, 1, 2, 3, 4 };
	double y1[5] = { 0, 1, 4, 9, 16 }, y2[5] = { 1, 2, 3, 4, 5 };
	double y3[5] = { 3, 2, NAN, 1, 0 }, y4[5] = { 1, 1, 1, 1, 1 };
	struct plot_series s[3] = {
		{ "r.u", 5, x, y1 }, { "<a&b>", 5, x, y2 }, { NULL, 5, x, y4 }
	};
	struct plot_spec spec = { "Title \"x\" & 'y'", "t [s]", "u < 1 [m]",
	                          0, 0, 3, s };
	char *svg;

	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(count(svg, "<polyline") == 3);
	CHECK_HAS(svg, "&lt;a&amp;b&gt;");
	CHECK_LACKS(svg, "<a&b>");
	CHECK_HAS(svg, "Title &quot;x&quot; &amp; &apos;y&apos;");
	CHECK_HAS(svg, ">t [s]</text>");
	CHECK_HAS(svg, ">u &lt; 1 [m]</text>");
	CHECK_HAS(svg, "rotate(-90");
	CHECK_HAS(svg, "class=\"legend\"");
	CHECK_HAS(svg, ">r.u</text>");
	CHECK_HAS(svg, ">series 3</text>");
	/* Three distinct colours. */
	CHECK_HAS(svg, "stroke=\"#1f77b4\" points=");
	CHECK_HAS(svg, "stroke=\"#d62728\" stroke-dasharray=\"8,4\" points=");
	CHECK_HAS(svg, "stroke=\"#2ca02c\" stroke-dasharray=\"2,3\" points=");
	free(svg);

	/* A NaN breaks the line in two; one series without a label: no
	 * legend. */
	s[0].label = NULL;
	s[0].y = y3;
	spec.nseries = 1;
	spec.title = NULL;
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(count(svg, "<polyline") == 2);
	CHECK_LACKS(svg, "class=\"legend\"");
	CHECK_LACKS(svg, "<title>");
	free(svg);

	/* A lone point between breaks is drawn as a dot. */
	y3[1] = INFINITY;
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(count(svg, "<polyline") == 1);
	CHECK(count(svg, "<circle") == 1);
	free(svg);

	/* One labelled series: legend. */
	s[0].label = "only";
	svg = render(&spec, NULL);
	CHECK(svg && strstr(svg, "class=\"legend\"") && has_label(svg, "only"));
	free(svg);
}

static void test_palette_cycles(void)
{
	double x[2] = { 0, 1 }, y[2] = { 0, 1 };
	struct plot_series s[10];
	struct plot_spec spec = { NULL, "x", "y", 0, 0, 10, s };
	char *svg;
	int i;

	for (i = 0; i < 10; i++) {
		s[i].label = "s";
		s[i].n = 2;
		s[i].x = x;
		s[i].y = y;
	}
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(count(svg, "<polyline") == 10);
	CHECK(count(svg, "stroke=\"#1f77b4\" points=") == 2);
	/* series 1 and 9: red, dashed 8,4; series 7: cyan, dash-dot */
	CHECK(count(svg, "stroke=\"#d62728\" stroke-dasharray=\"8,4\" points=") == 2);
	CHECK(count(svg, "stroke=\"#17becf\" stroke-dasharray=\"10,3,2,3\" points=") == 1);
	free(svg);
}

/* The legend never hides data: it goes to the corner of the plot area
 * that no curve crosses, and below the frame when every corner is
 * crossed (the page then grows by its height). */
static void test_legend_placement(void)
{
	double x[5] = { 0, 1, 2, 3, 4 }, y[5] = { 0, 1, 4, 9, 16 };
	double xz[400], yz[400];
	struct plot_series s[2] = { { "a", 5, x, y }, { "b", 5, x, y } };
	struct plot_spec spec = { NULL, "t", "", 0, 0, 2, s };
	char *svg;

	/* y = x²: the curve runs through the top-right and bottom-left
	 * corners; the top-left one (x = 80 + 10) is empty. */
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK_HAS(svg, "viewBox=\"0 0 800 500\"");
	CHECK_HAS(svg, "<rect x=\"90.0\" y=\"50.0\"");
	free(svg);

	/* A zigzag between the extremes fills every corner: the legend
	 * goes below the x label (y = 440 + 56) and the page grows. */
	for (int i = 0; i < 400; i++) {
		xz[i] = i;
		yz[i] = i % 2 ? 1 : -1;
	}
	s[0].n = s[1].n = 400;
	s[0].x = s[1].x = xz;
	s[0].y = s[1].y = yz;
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK_HAS(svg, "<rect x=\"80.0\" y=\"496.0\"");
	CHECK_HAS(svg, "viewBox=\"0 0 800 552\"");   /* 496 + 46 + 10 */
	free(svg);
}

static void test_linear_ticks(void)
{
	double x[11], y[11];
	struct plot_series s = { NULL, 11, x, y };
	struct plot_spec spec = { NULL, "x", "y", 0, 0, 1, &s };
	char *svg;
	int i;

	for (i = 0; i <= 10; i++) {
		x[i] = i;
		y[i] = i * 0.1;
	}
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	/* x on [0, 10]: 0, 2, … 10. */
	CHECK(has_label(svg, "0"));
	CHECK(has_label(svg, "2"));
	CHECK(has_label(svg, "4"));
	CHECK(has_label(svg, "6"));
	CHECK(has_label(svg, "8"));
	CHECK(has_label(svg, "10"));
	/* y on [0, 1]: 0.2, 0.4 … written compactly (no 0.6000000000000001). */
	CHECK(has_label(svg, "0.2"));
	CHECK(has_label(svg, "0.6"));
	CHECK(has_label(svg, "1"));
	CHECK_LACKS(svg, "00000");
	free(svg);

	/* Large and small magnitudes: compact exponents. */
	for (i = 0; i <= 10; i++) {
		x[i] = i * 1e5;
		y[i] = -i * 1e-6;
	}
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(has_label(svg, "1e6") || has_label(svg, "1000000"));
	CHECK(has_label(svg, "-1e-5") || has_label(svg, "-0.00001"));
	CHECK_LACKS(svg, "e+");
	CHECK_LACKS(svg, ">-0<");
	free(svg);

	/* Integer ticks up to 100 are not written as 1e2. */
	for (i = 0; i <= 10; i++) {
		x[i] = i * 10;
		y[i] = 1 + i * 1e-7;    /* narrow range far from 0 */
	}
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(has_label(svg, "100"));
	CHECK(has_label(svg, "1.000001") || has_label(svg, "1.0000005"));
	free(svg);
}

static void test_log_ticks(void)
{
	double x[3] = { 1, 10, 100 }, y[3] = { 1, 10, 100 };
	double yneg[3] = { -1, 0, 5 };
	struct plot_series s = { "log", 3, x, y };
	struct plot_spec spec = { NULL, "f [Hz]", "A", 1, 1, 1, &s };
	char *svg;

	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(has_label(svg, "1"));
	CHECK(has_label(svg, "10"));
	CHECK(has_label(svg, "100"));
	CHECK(count(svg, "<polyline") == 1);
	free(svg);

	/* Under a decade: 2× and 5× ticks as well. */
	x[0] = 1.5;
	x[2] = 30;
	svg = render(&spec, NULL);
	CHECK(svg && has_label(svg, "2") && has_label(svg, "5") &&
	      has_label(svg, "20"));
	free(svg);

	/* Non-positive values are skipped on a log axis; the one positive
	 * point left is a dot. */
	s.y = yneg;
	spec.logx = 0;
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(count(svg, "<polyline") == 0);
	CHECK(count(svg, "<circle") == 1);
	free(svg);

	/* Many decades: at most a handful of labels. */
	x[0] = 1e-30;
	x[1] = 1;
	x[2] = 1e30;
	s.y = y;
	spec.logx = 1;
	svg = render(&spec, NULL);
	CHECK(svg != NULL);
	if (!svg)
		return;
	check_document(svg);
	CHECK(has_label(svg, "1"));
	CHECK(has_label(svg, "1e10") || has_label(svg, "1e20"));
	free(svg);
}

static void test_degenerate(void)
{
	double x[3] = { 0, 1, 2 }, y[3] = { 5, 5, 5 };
	double zx[1] = { 0 }, zy[1] = { 0 };
	double nan2[2] = { NAN, NAN };
	double big[2] = { -1.7e308, 1.7e308 };
	struct plot_series s = { "c", 3, x, y };
	struct plot_spec spec = { "t", "x", "y", 0, 0, 1, &s };
	char *svg;

	/* All y equal. */
	svg = render(&spec, NULL);
	CHECK(svg && count(svg, "<polyline") == 1);
	if (svg)
		check_document(svg);
	free(svg);

	/* A single point at the origin. */
	s.n = 1;
	s.x = zx;
	s.y = zy;
	svg = render(&spec, NULL);
	CHECK(svg && count(svg, "<circle") == 1);
	if (svg)
		check_document(svg);
	free(svg);

	/* The same on log axes (value 1 → log 0). */
	zx[0] = zy[0] = 1;
	spec.logx = spec.logy = 1;
	svg = render(&spec, NULL);
	CHECK(svg && count(svg, "<circle") == 1 && has_label(svg, "1"));
	if (svg)
		check_document(svg);
	free(svg);
	spec.logx = spec.logy = 0;

	/* Only NaN. */
	s.n = 2;
	s.x = nan2;
	s.y = nan2;
	svg = render(&spec, NULL);
	CHECK(svg && count(svg, "<polyline") == 0);
	if (svg)
		check_document(svg);
	free(svg);

	/* Nearly the whole double range. */
	s.x = big;
	s.y = big;
	svg = render(&spec, NULL);
	CHECK(svg && count(svg, "<polyline") == 1);
	if (svg)
		check_document(svg);
	free(svg);

	/* n = 0, and no series at all: axes only. */
	s.n = 0;
	svg = render(&spec, NULL);
	CHECK(svg && strstr(svg, "<rect") && count(svg, "<polyline") == 0);
	if (svg)
		check_document(svg);
	free(svg);
	spec.nseries = 0;
	spec.series = NULL;
	svg = render(&spec, NULL);
	CHECK(svg && strstr(svg, "<rect") && count(svg, "<polyline") == 0);
	CHECK(svg && has_label(svg, "0") && has_label(svg, "1"));
	if (svg)
		check_document(svg);
	free(svg);
}

static void test_huge_series(void)
{
	enum { N = 1000000 };
	double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
	double ex[2] = { 0, 1 }, ey[2] = { -1, 1 };
	double x0, x1, y0, y1, rx0, rx1, ry0, ry1;
	struct plot_series s = { "fast", N, x, y };
	struct plot_series ref = { "ref", 2, ex, ey };
	struct plot_spec spec = { NULL, "t", "u", 0, 0, 1, &s };
	char *svg;
	long size = 0;
	int i;

	if (!x || !y) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	/* 5000 periods: many per pixel column; exact ±1 at the peaks. */
	for (i = 0; i < N; i++) {
		x[i] = (double)i / (N - 1);
		y[i] = i % 200 == 50 ? 1 : i % 200 == 150 ? -1 :
		       sin(6.283185307179586 * i / 200.0);
	}
	svg = render(&spec, &size);
	CHECK(svg != NULL);
	if (svg) {
		check_document(svg);
		CHECK(size < 200000);
		/* The envelope survives: the curve spans the same pixels as
		 * the two-point reference with the same range. */
		polyline_extent(svg, &x0, &x1, &y0, &y1);
		free(svg);
		spec.series = &ref;
		svg = render(&spec, NULL);
		CHECK(svg != NULL);
		if (svg) {
			polyline_extent(svg, &rx0, &rx1, &ry0, &ry1);
			CHECK(fabs(y0 - ry0) < 0.02 && fabs(y1 - ry1) < 0.02);
			CHECK(fabs(x0 - rx0) < 1 && fabs(x1 - rx1) < 1);
		}
	}
	free(svg);

	/* A NaN gap in a huge series still breaks it. */
	for (i = N / 2; i < N / 2 + 10000; i++)
		y[i] = NAN;
	spec.series = &s;
	svg = render(&spec, &size);
	CHECK(svg && count(svg, "<polyline") == 2 && size < 200000);
	free(svg);
	free(x);
	free(y);
}

static void test_write_error(void)
{
	double x[2] = { 0, 1 }, y[2] = { 0, 1 };
	struct plot_series s = { "a", 2, x, y };
	struct plot_spec spec = { "t", "x", "y", 0, 0, 1, &s };
	FILE *f;

	/* A stream opened for reading refuses writes. */
	f = fopen("/dev/null", "r");
	if (f) {
		errno = 0;
		CHECK(plot_svg_write(f, &spec) == -1);
		CHECK(errno != 0);
		fclose(f);
	}
	/* A full device fails when the buffer is flushed. */
	f = fopen("/dev/full", "w");
	if (f) {
		errno = 0;
		CHECK(plot_svg_write(f, &spec) == -1);
		CHECK(errno == ENOSPC);
		fclose(f);
	}
}

/* Numbers keep '.' even when the process locale uses ','. */
static void test_locale(void)
{
	static const char *const names[] = {
		"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"
	};
	double x[2] = { 0, 0.5 }, y[2] = { 0, 0.5 };
	struct plot_series s = { NULL, 2, x, y };
	struct plot_spec spec = { NULL, "x", "y", 0, 0, 1, &s };
	char *svg;
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (setlocale(LC_NUMERIC, names[i]))
			break;
	if (i == sizeof names / sizeof names[0])
		return;     /* no such locale installed: nothing to test */
	svg = render(&spec, NULL);
	setlocale(LC_NUMERIC, "C");
	CHECK(svg && has_label(svg, "0.1") && !has_label(svg, "0,1"));
	free(svg);
}

int main(void)
{
	test_series_and_legend();
	test_legend_placement();
	test_palette_cycles();
	test_linear_ticks();
	test_log_ticks();
	test_degenerate();
	test_huge_series();
	test_write_error();
	test_locale();
	if (failures) {
		fprintf(stderr, "test_plot: %d check(s) failed\n", failures);
		return 1;
	}
	return 0;
}
