/* unit.h — the checks of the C unit tests (tests/test_*.c): each failed
 * check prints its file, line and expression and counts in `failures`;
 * a test's main returns non-zero when any failed. */
#ifndef DYN_TESTS_UNIT_H
#define DYN_TESTS_UNIT_H

#include <math.h>
#include <stdio.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", \
		        __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

/* |a - b| <= tol, both printed to 17 digits when not */
#define CHECK_NEAR(a, b, tol) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (tol))) { \
		fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (tolerance %g)\n", \
		        __FILE__, __LINE__, #a, a_, b_, (double)(tol)); \
		failures++; \
	} \
} while (0)

#endif
