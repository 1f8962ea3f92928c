/* plot.h — SVG plots of time histories and phase portraits, with no
 * dependency beyond libc: axes with "nice" ticks, labels, a legend. */
#ifndef DYN_PLOT_H
#define DYN_PLOT_H

#include <stdio.h>

struct plot_series {
	const char *label;   /* legend text, e.g. "r.u" */
	int n;
	const double *x, *y; /* n points; non-finite points break the line */
};

struct plot_spec {
	const char *title;   /* may be NULL */
	const char *xlabel, *ylabel;
	int logx, logy;      /* logarithmic axes (non-positive values skipped) */
	int nseries;
	const struct plot_series *series;
};

/* Write the plot as a standalone SVG document.  Returns 0, or -1 when
 * writing failed (errno set). */
int plot_svg_write(FILE *f, const struct plot_spec *spec);

/* The same drawn in a terminal, width columns wide (frame and labels
 * included) and rows lines high, in Unicode braille with the ranges
 * labelled (the REPL's :plot); with color, curves in ANSI colours. */
int plot_term_write(FILE *f, const struct plot_spec *spec, int width, int rows, int color);

#endif
