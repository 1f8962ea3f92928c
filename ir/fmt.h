/* fmt.h — doubles as text: the shortest decimal digits that read back to
 * the same double, laid out as printf's %g would, at a few tens of
 * nanoseconds per number (records write millions of them). */
#ifndef DYN_FMT_H
#define DYN_FMT_H

/* Room for any output of this module with its NUL
 * ("-1.2345678901234567e-308" is the longest: 24 characters). */
#define FMT_BUFSZ 32

/* What snprintf(buf, FMT_BUFSZ, "%.*g", p, x) writes for the smallest
 * precision p ≥ minprec whose output strtod reads back as x (17 when none
 * does, as for a NaN), in the C locale; returns its length.  minprec is
 * 1..15: 1 gives the shortest form ("0.1", "1e+100"); 15 never shows fewer
 * than 15 significant digits where %.15g would not (the form of recorded
 * CSV files and --dump-ir).  Zero is "0" or "-0", infinities "inf" and
 * "-inf", NaNs "nan" or "-nan" after the sign bit. */
int fmt_g(char buf[FMT_BUFSZ], double x, int minprec);

/* The shortest digits that read back as x, without an exponent when
 * floor(log10|x|) is in -5..15 (100000000, not 1e+08), as `print` and
 * messages show numbers: "nan", "inf", "-inf", "0" for both zeros.
 * Returns the length. */
int fmt_num(char buf[FMT_BUFSZ], double x);

#endif
