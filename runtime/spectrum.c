/* spectrum.c — elastic response spectra by the exact integration of a
 * damped linear oscillator under a piecewise-linear ground acceleration
 * (Nigam and Jennings 1969, "Calculation of response spectra from
 * strong-motion earthquake records", Bull. Seism. Soc. Am. 59(2)).
 *
 * Over a step of length h with the load p(s) = −a(s) linear, p(s) = p0 +
 * q s, the solution of x'' + 2ξωx' + ω²x = p is the particular solution
 * x_p(s) = (p0 + q s)/ω² − 2ξq/ω³ plus the free vibration
 * e^{−ξωs}(A cos ω_d s + B sin ω_d s), ω_d = ω√(1 − ξ²), whose A and B
 * match x and x' at the step's start.  Written out, this is Nigam and
 * Jennings' recurrence [x, x']_{i+1} = A(h)[x, x']_i + B(h)[a_i, a_{i+1}];
 * computing it through A and B keeps each coefficient's formula short and
 * exact for any ξ in [0, 1).  The trigonometric terms depend on h only:
 * they are recomputed when the step changes. */
#include <config.h>

#include "spectrum.h"

#include <math.h>

struct step_coef {
	double h, e, c, s;   /* e^{−ξωh}, cos ω_d h, sin ω_d h */
	int series;          /* ωh below SERIES_WH: the step is E's */
	double E[2][4];      /* the rows of x and x' of exp(F h) (expm_rows) */
};

/* Below this ωh the closed form loses digits: its particular solution
 * p/ω² cancels against the free vibration, some ε/(ωh)² relative (2e-12
 * here; at a period of 1e4 s sampled every 0.01 s, 2e-5, and at 1e6 s
 * the spectrum was 68 for 3.84). */
#define SERIES_WH 1e-2

/* The first two rows of exp(F h) for the oscillator and its load as one
 * linear system, z = (x, x', p, q) with p(s) = p0 + q s: x' = x',
 * x'' = −ω²x − 2ξωx' + p, p' = q, q' = 0 (the augmented form of the
 * exact step; Moler and Van Loan 2003, "Nineteen dubious ways to compute
 * the exponential of a matrix, twenty-five years later", SIAM Review
 * 45(1), method 3).  Taylor's series of exp(F h/2^j) with ‖F h‖/2^j ≤
 * 1/2, to its last term's 1e-18 of the sum, then j squarings: every term
 * is of one sign or small, nothing cancels, for any ω ≥ 0 (ω² may
 * underflow to 0: x'' = p). */
static void expm_rows(double h, double w, double xi, double E[2][4])
{
	double F[4][4] = { { 0, 1, 0, 0 }, { -w * w, -2 * xi * w, 1, 0 }, { 0, 0, 0, 1 }, { 0, 0, 0, 0 } };
	double norm = fmax(1, w * w + 2 * xi * w + 1) * h;
	int j = 0;
	while (norm > 0.5 && j < 1100) {
		norm *= 0.5;
		j++;
	}
	double sc = ldexp(h, -j), X[4][4], T[4][4], U[4][4];
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 4; c++) {
			F[r][c] *= sc;
			X[r][c] = T[r][c] = r == c;
		}
	for (int k = 1; k <= 40; k++) {
		double big = 0, sum = 0;
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++) {
				double t = 0;
				for (int i = 0; i < 4; i++)
					t += T[r][i] * F[i][c];
				U[r][c] = t / k;
			}
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++) {
				T[r][c] = U[r][c];
				X[r][c] += U[r][c];
				big = fmax(big, fabs(U[r][c]));
				sum = fmax(sum, fabs(X[r][c]));
			}
		if (big <= 1e-18 * sum)
			break;
	}
	for (; j > 0; j--) {
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++) {
				double t = 0;
				for (int i = 0; i < 4; i++)
					t += X[r][i] * X[i][c];
				U[r][c] = t;
			}
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 4; c++)
				X[r][c] = U[r][c];
	}
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 4; c++)
			E[r][c] = X[r][c];
}

static void coef(struct step_coef *k, double h, double w, double xi, double wd)
{
	k->h = h;
	k->series = w * h < SERIES_WH;
	if (k->series) {
		expm_rows(h, w, xi, k->E);
		return;
	}
	k->e = exp(-xi * w * h);
	k->c = cos(wd * h);
	k->s = sin(wd * h);
}

/* One exact step of length k->h from (x, v) under p(s) = p0 + q s. */
static void advance(const struct step_coef *k, double w, double xi, double wd, double p0, double q, double *x,
                    double *v)
{
	if (k->series) {
		double x0 = *x, v0 = *v;
		*x = k->E[0][0] * x0 + k->E[0][1] * v0 + k->E[0][2] * p0 + k->E[0][3] * q;
		*v = k->E[1][0] * x0 + k->E[1][1] * v0 + k->E[1][2] * p0 + k->E[1][3] * q;
		return;
	}
	double w2 = w * w;
	double xp0 = p0 / w2 - 2 * xi * q / (w2 * w), vp = q / w2;
	double A = *x - xp0, B = (*v - vp + xi * w * A) / wd;
	double h = k->h;
	double xh = k->e * (A * k->c + B * k->s);
	double vh = k->e * ((B * wd - xi * w * A) * k->c - (A * wd + xi * w * B) * k->s);
	*x = xh + xp0 + vp * h;
	*v = vh + vp;
}

/* |x| at the zero of the velocity inside a step where it changes sign
 * (v0 at its start, v1 at its end): the extremum of x between the
 * samples, found by regula falsi with the Illinois modification on the
 * exact solution; the bracket shrinks to round-off in a few iterations
 * since v is smooth. */
static double extremum(double h, double w, double xi, double wd, double p0, double q, double x0, double v0,
                       double v1)
{
	double lo = 0, hi = h, flo = v0, fhi = v1, best = 0;
	int side = 0;
	for (int it = 0; it < 60 && hi - lo > 1e-15 * h; it++) {
		double sm = (lo * fhi - hi * flo) / (fhi - flo);
		if (!(sm > lo && sm < hi))
			sm = 0.5 * (lo + hi);
		struct step_coef k;
		coef(&k, sm, w, xi, wd);
		double x = x0, v = v0;
		advance(&k, w, xi, wd, p0, q, &x, &v);
		best = fabs(x);
		if (v == 0)
			break;
		if ((v < 0) == (flo < 0)) {
			lo = sm;
			flo = v;
			if (side == -1)
				fhi *= 0.5;
			side = -1;
		} else {
			hi = sm;
			fhi = v;
			if (side == 1)
				flo *= 0.5;
			side = 1;
		}
	}
	return best;
}

int rt_spectrum(const double *t, const double *a, int n, const double *T, int nT, double xi,
                double *sd, double *psv, double *psa)
{
	if (n < 2 || !(xi >= 0 && xi < 1))
		return -1;
	for (int i = 0; i + 1 < n; i++)
		if (!(t[i + 1] > t[i]) || !isfinite(a[i]) || !isfinite(a[i + 1]))
			return -1;
	for (int j = 0; j < nT; j++)
		if (!(T[j] > 0) || !isfinite(T[j]))
			return -1;
	for (int j = 0; j < nT; j++) {
		double w = 2 * 3.14159265358979323846 / T[j], wd = w * sqrt(1 - xi * xi);
		double x = 0, v = 0, peak = 0;
		struct step_coef k = { -1, 0, 0, 0, 0, { { 0 } } };
		for (int i = 0; i + 1 < n; i++) {
			double dt = t[i + 1] - t[i];
			/* substeps of at most T/10, so that the velocity changes
			 * sign at most once in each: every extremum of x between
			 * the samples is then found (extremum) */
			int m = (int)ceil(dt / (T[j] / 10));
			if (m < 1)
				m = 1;
			double h = dt / m;
			if (h != k.h)
				coef(&k, h, w, xi, wd);
			double q = -(a[i + 1] - a[i]) / dt;
			for (int s = 0; s < m; s++) {
				double p0 = -a[i] + q * (s * h), x0 = x, v0 = v;
				advance(&k, w, xi, wd, p0, q, &x, &v);
				if (fabs(x) > peak)
					peak = fabs(x);
				if (v0 * v < 0) {
					double xm = extremum(h, w, xi, wd, p0, q, x0, v0, v);
					if (xm > peak)
						peak = xm;
				}
			}
		}
		sd[j] = peak;
		psv[j] = w * peak;
		psa[j] = w * w * peak;
	}
	return 0;
}
