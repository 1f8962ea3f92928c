/* spectrum.h — elastic response spectra of a ground acceleration given at
 * sample times and linear between them (Nigam and Jennings 1969). */
#ifndef DYN_SPECTRUM_H
#define DYN_SPECTRUM_H

/* The peak response of the linear oscillator
 *     x'' + 2 xi w x' + w² x = −a(t),   x(t0) = x'(t0) = 0,
 * w = 2π/T, for each period T[j] > 0, to the acceleration a that is linear
 * between the samples (t[i], a[i]), i < n (t increasing strictly, n >= 2),
 * over [t[0], t[n−1]]: sd[j] = max |x| (spectral displacement), psv[j] =
 * w sd[j], psa[j] = w² sd[j] (pseudo-velocity and pseudo-acceleration).
 * Each step is integrated exactly (piecewise-exact, as Nigam and Jennings
 * 1969, "Calculation of response spectra from strong-motion earthquake
 * records", BSSA 59(2)); the peak includes the extrema between samples
 * (where x' = 0), located on the exact solution.  0 <= xi < 1.  Returns 0, or -1
 * when an argument is out of range (nothing is written then). */
int rt_spectrum(const double *t, const double *a, int n, const double *T, int nT, double xi,
                double *sd, double *psv, double *psa);

#endif
