/* test_spectrum.c — unit tests of runtime/spectrum.c against closed-form
 * responses of the damped oscillator x'' + 2ξωx' + ω²x = −a(t) from rest:
 *   a constant a0 (a step):  x = −(a0/ω²)(1 − e^{−ξωt}(cos ω_d t +
 *     ξ/√(1−ξ²) sin ω_d t)), whose peak, at t = π/ω_d, is
 *     (a0/ω²)(1 + e^{−ξπ/√(1−ξ²)});
 *   a ramp a = r t, undamped: x = −(r/ω²)(t − sin(ωt)/ω), |x| increasing,
 *     so the peak is at the end.
 * The integration is exact for piecewise-linear a, so the tolerances are
 * round-off (1e-12 relative). */
#include <config.h>

#include "spectrum.h"

#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK_REL(a, b, tol) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (tol) * fabs(b_))) { \
		fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", \
		        __FILE__, __LINE__, #a, a_, b_); \
		failures++; \
	} \
} while (0)

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

static const double pi = 3.14159265358979323846;

/* A step of acceleration given by two samples only: the peak lies between
 * them and must be found on the exact solution. */
static void test_step(void)
{
	double t[2] = { 0, 3 }, a[2] = { 2, 2 };
	double T[3] = { 0.5, 1, 2.5 }, sd[3], psv[3], psa[3];
	double xis[3] = { 0, 0.05, 0.3 };
	for (int k = 0; k < 3; k++) {
		double xi = xis[k];
		CHECK(rt_spectrum(t, a, 2, T, 3, xi, sd, psv, psa) == 0);
		for (int j = 0; j < 3; j++) {
			double w = 2 * pi / T[j];
			double peak = 2 / (w * w) * (1 + exp(-xi * pi / sqrt(1 - xi * xi)));
			CHECK_REL(sd[j], peak, 1e-12);
			CHECK_REL(psv[j], w * peak, 1e-12);
			CHECK_REL(psa[j], w * w * peak, 1e-12);
		}
	}
}

/* A ramp sampled at uneven times: exact whatever the sampling. */
static void test_ramp(void)
{
	double t[5] = { 0, 0.1, 0.35, 0.4, 1.3 }, a[5];
	for (int i = 0; i < 5; i++)
		a[i] = 3 * t[i];
	double T[2] = { 0.2, 7 }, sd[2], psv[2], psa[2];
	CHECK(rt_spectrum(t, a, 5, T, 2, 0, sd, psv, psa) == 0);
	for (int j = 0; j < 2; j++) {
		double w = 2 * pi / T[j], te = 1.3;
		CHECK_REL(sd[j], 3 / (w * w) * (te - sin(w * te) / w), 1e-12);
	}
}

/* g(t) = x(t)/a0 for the step a0 from rest, by its Taylor series: g'' +
 * 2ξωg' + ω²g = 1, g(0) = g'(0) = 0, so c_2 = 1/2 and (k+2)(k+1)c_{k+2} =
 * −2ξω(k+1)c_{k+1} − ω²c_k.  For ωt ≤ 0.1 each term is at most 1e-3 of
 * the one before: no cancellation, the reference to rounding, where the
 * closed form's 1 − e^{−ξωt}(...) over ω² has none. */
static double step_series(double w, double xi, double t)
{
	double c1 = 0, c2 = 0.5, g = 0.5 * t * t, tk = t * t;
	for (int k = 0; k < 40; k++) {
		/* c1, c2: c_{k+1}, c_{k+2}; c3: c_{k+3} */
		double c3 = -(2 * xi * w * (k + 2) * c2 + w * w * c1) / ((k + 3) * (k + 2));
		c1 = c2;
		c2 = c3;
		tk *= t;
		g += c3 * tk;
	}
	return g;
}

/* Long periods, where ωh is small: the oscillator barely responds, and
 * the peak is at the record's end, a0 g(t_end) -> a0 t²/2 as T grows (a
 * constant a0 on [0, 3]: 9 at a0 = 2).  The closed form gave 2e-5 wrong
 * at T = 1e4 s (dt = 0.01), 68 for 3.84 at 1e6, 0 at 1e150. */
static void test_long_period(void)
{
	double t[301], a[301];
	for (int i = 0; i <= 300; i++) {
		t[i] = 0.01 * i;
		a[i] = 2;
	}
	double T[6] = { 200, 1e4, 1e6, 1e8, 1e150, 1e300 }, sd[6], psv[6], psa[6];
	double xis[2] = { 0, 0.05 };
	for (int k = 0; k < 2; k++) {
		CHECK(rt_spectrum(t, a, 301, T, 6, xis[k], sd, psv, psa) == 0);
		for (int j = 0; j < 6; j++) {
			double w = 2 * pi / T[j];
			CHECK_REL(sd[j], 2 * step_series(w, xis[k], t[300]), 1e-12);
		}
		/* either side of ωh = 1e-2 (ω = 1), where the step changes from
		 * the series to the closed form: both exact, against the
		 * closed form at the end (ωt = 3 < π: the peak is there) */
		double T2[2] = { 2 * pi * (1 - 1e-9), 2 * pi * (1 + 1e-9) };
		CHECK(rt_spectrum(t, a, 301, T2, 2, xis[k], sd, psv, psa) == 0);
		for (int j = 0; j < 2; j++) {
			double w = 2 * pi / T2[j], xi = xis[k], wd = w * sqrt(1 - xi * xi), te = 3;
			double x = 2 / (w * w) * (1 - exp(-xi * w * te) * (cos(wd * te) + xi / sqrt(1 - xi * xi) * sin(wd * te)));
			CHECK_REL(sd[j], x, 1e-12);
		}
	}
}

static void test_refused(void)
{
	double t[3] = { 0, 1, 1 }, a[3] = { 0, 1, 2 }, T[1] = { 1 }, x[1];
	CHECK(rt_spectrum(t, a, 3, T, 1, 0.05, x, x, x) == -1);   /* times not increasing */
	CHECK(rt_spectrum(t, a, 1, T, 1, 0.05, x, x, x) == -1);   /* one sample */
	CHECK(rt_spectrum(t, a, 2, T, 1, 1, x, x, x) == -1);      /* critical damping */
	CHECK(rt_spectrum(t, a, 2, T, 1, -0.1, x, x, x) == -1);
	double T0[1] = { 0 };
	CHECK(rt_spectrum(t, a, 2, T0, 1, 0.05, x, x, x) == -1);
}

int main(void)
{
	test_step();
	test_ramp();
	test_long_period();
	test_refused();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures != 0;
}
