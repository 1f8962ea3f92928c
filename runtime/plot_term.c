/* plot_term.c — plots in a terminal with Unicode braille characters (each
 * character a 2×4 grid of dots), with the ranges of both axes labelled:
 * the REPL's :plot.  Several curves are told apart by colour (ANSI
 * escapes, when asked for): a character takes the colour of the curve
 * with the most dots in it. */
#include <config.h>

#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ANSI foreground colours of the curves, cycled: blue, red, green,
 * yellow, magenta, cyan (the SVG palette's order, as near as 8 colours
 * go). */
static const int ansi[6] = { 34, 31, 32, 33, 35, 36 };

int plot_term_write(FILE *f, const struct plot_spec *spec, int width, int rows, int color)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	for (int s = 0; s < spec->nseries; s++)
		for (int i = 0; i < spec->series[s].n; i++) {
			double x = spec->series[s].x[i], y = spec->series[s].y[i];
			if (!isfinite(x) || !isfinite(y))
				continue;
			x0 = fmin(x0, x);
			x1 = fmax(x1, x);
			y0 = fmin(y0, y);
			y1 = fmax(y1, y);
		}
	if (!(x0 <= x1)) {
		fputs("(nothing to plot)\n", f);
		return 0;
	}
	if (x1 == x0)
		x1 = x0 + 1;
	if (y1 == y0) {
		y0 -= 0.5;
		y1 += 0.5;
	}
	char lab[32];
	snprintf(lab, sizeof lab, "%.4g", y1);
	int lw = (int)strlen(lab);
	snprintf(lab, sizeof lab, "%.4g", y0);
	if ((int)strlen(lab) > lw)
		lw = (int)strlen(lab);
	/* the frame takes lw + 2 columns, the dots the rest of the width */
	int cols = width - lw - 2;
	if (cols < 16)
		cols = 16;
	int W = cols * 2, H = rows * 4;
	/* dots[] holds 1 + the curve that drew the dot (0: none) */
	unsigned char *dots = calloc((size_t)W * (size_t)H, 1);
	if (!dots)
		return -1;
	for (int s = 0; s < spec->nseries; s++) {
		const struct plot_series *ps = &spec->series[s];
		int px = -1, py = -1;
		for (int i = 0; i < ps->n; i++) {
			double x = ps->x[i], y = ps->y[i];
			if (!isfinite(x) || !isfinite(y)) {
				px = -1;
				continue;
			}
			int cx = (int)lround((x - x0) / (x1 - x0) * (W - 1));
			int cy = (int)lround((y1 - y) / (y1 - y0) * (H - 1));
			/* join consecutive points so that steep curves stay lines */
			int steps = px < 0 ? 0 : abs(cx - px) > abs(cy - py) ? abs(cx - px) : abs(cy - py);
			for (int k = 0; k <= steps; k++) {
				int qx = steps ? px + (cx - px) * k / steps : cx, qy = steps ? py + (cy - py) * k / steps : cy;
				if (qx >= 0 && qx < W && qy >= 0 && qy < H)
					dots[qy * W + qx] = (unsigned char)(1 + s % 250);
			}
			px = cx;
			py = cy;
		}
	}
	/* braille dot bits: column 0 rows 0-3 = 1, 2, 4, 64; column 1 = 8, 16, 32, 128 */
	static const int bit[2][4] = { { 1, 2, 4, 64 }, { 8, 16, 32, 128 } };
	if (spec->ylabel && *spec->ylabel)
		fprintf(f, "%*s %s\n", lw, "", spec->ylabel);
	for (int r = 0; r < rows; r++) {
		if (r == 0)
			fprintf(f, "%*.4g ┤", lw, y1);
		else if (r == rows - 1)
			fprintf(f, "%*.4g ┤", lw, y0);
		else
			fprintf(f, "%*s │", lw, "");
		for (int c = 0; c < cols; c++) {
			int code = 0, count[6] = { 0 }, best = -1;
			for (int dx = 0; dx < 2; dx++)
				for (int dy = 0; dy < 4; dy++) {
					int d = dots[(r * 4 + dy) * W + c * 2 + dx];
					if (d) {
						code |= bit[dx][dy];
						count[(d - 1) % 6]++;
					}
				}
			for (int k = 0; k < 6; k++)
				if (count[k] && (best < 0 || count[k] > count[best]))
					best = k;
			if (color && spec->nseries > 1 && best >= 0)
				fprintf(f, "\033[%dm", ansi[best]);
			/* U+2800 + code in UTF-8 */
			int cp = 0x2800 + code;
			fputc(0xE0 | (cp >> 12), f);
			fputc(0x80 | ((cp >> 6) & 0x3F), f);
			fputc(0x80 | (cp & 0x3F), f);
			if (color && spec->nseries > 1 && best >= 0)
				fputs("\033[0m", f);
		}
		fputc('\n', f);
	}
	fprintf(f, "%*s └", lw, "");
	for (int c = 0; c < cols; c++)
		fputs("─", f);
	char xl[32], xr[32];
	snprintf(xl, sizeof xl, "%.4g", x0);
	snprintf(xr, sizeof xr, "%.4g", x1);
	fprintf(f, "\n%*s  %s%*s%s\n", lw, "", xl, cols - (int)strlen(xl) - (int)strlen(xr) > 0
	        ? cols - (int)strlen(xl) - (int)strlen(xr) : 1, "", xr);
	if (spec->xlabel && *spec->xlabel)
		fprintf(f, "%*s  %*s%s\n", lw, "", cols / 2, "", spec->xlabel);
	for (int s = 0; s < spec->nseries && spec->nseries > 1; s++) {
		const char *name = spec->series[s].label ? spec->series[s].label : "";
		if (color)
			fprintf(f, "%*s  \033[%dm⣿⣿ series %d: %s\033[0m\n", lw, "", ansi[s % 6], s + 1, name);
		else
			fprintf(f, "%*s  series %d: %s\n", lw, "", s + 1, name);
	}
	free(dots);
	return ferror(f) ? -1 : 0;
}
