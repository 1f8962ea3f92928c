/* test_fmt.c — unit tests of ir/fmt.c: its output must be, byte for
 * byte, what the trial method it replaced wrote (snprintf at increasing
 * precision until strtod reads the text back), for each of its three
 * callers' forms:
 *   fmt_g(x, 15)  recorded CSV files and --dump-ir (run.c, ir.c),
 *   fmt_g(x, 1)   times in table messages (table.c),
 *   fmt_num(x)    print and messages (value.c),
 * and must read back as x.  Values: special values, every power of two and
 * of ten with their neighbours, subnormals, the ends of the range, the
 * values at the layout thresholds (10^-5, 10^-4, 10^15, 10^16, 10^17),
 * short decimals, and random bit patterns from a fixed seed.  The count of
 * random patterns is FMT_RANDOM (default 200000, about a second: the trial
 * method costs 2–3 µs a number); set FMT_RANDOM=10000000 for a long run.
 * Exit status 0 when every check passes, 1 otherwise. */
#include "fmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long failures, checked;

/* ---- the methods fmt.c replaced, verbatim in effect ---- */

/* run.c put_num and ir.c print_num (zero aside, which run.c writes "0"). */
static void old_g15(char *buf, double x)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, x);
		if (strtod(buf, NULL) == x || x != x)
			break;
	}
}

/* table.c format_num */
static void old_g1(char *buf, double v)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, 32, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* value.c value_format_num */
static void old_num(char *buf, double x)
{
	if (isnan(x)) {
		strcpy(buf, "nan");
		return;
	}
	if (isinf(x)) {
		strcpy(buf, x > 0 ? "inf" : "-inf");
		return;
	}
	if (x == 0) {
		strcpy(buf, "0");
		return;
	}
	int prec = 1;
	for (; prec < 17; prec++) {
		snprintf(buf, 32, "%.*e", prec - 1, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	int exp10 = (int)floor(log10(fabs(x)));
	if (exp10 >= -5 && exp10 < 16 && exp10 + 1 > prec)
		prec = exp10 + 1;
	snprintf(buf, 32, "%.*g", prec, x);
}

/* ---- checks ---- */

static void report(const char *form, double x, const char *got, const char *want)
{
	uint64_t b;
	memcpy(&b, &x, sizeof b);
	if (failures < 30)
		fprintf(stderr, "%s of %a (bits %016llx): got \"%s\", want \"%s\"\n",
		        form, x, (unsigned long long)b, got, want);
	failures++;
}

static void same(const char *form, double x, const char *got, int len, const char *want)
{
	if (strcmp(got, want) != 0 || len != (int)strlen(want))
		report(form, x, got, want);
	else if (isfinite(x) && strtod(got, NULL) != x)
		report(form, x, got, "(text that reads back)");
}

/* Every form of x; all_forms = 0 checks only the CSV form (the costly
 * references are the searches from one digit up). */
static void check_x(double x, int all_forms)
{
	char got[FMT_BUFSZ], want[32];
	int n;

	n = fmt_g(got, x, 15);
	old_g15(want, x);
	same("fmt_g(x, 15)", x, got, n, want);
	if (all_forms) {
		n = fmt_g(got, x, 1);
		old_g1(want, x);
		same("fmt_g(x, 1)", x, got, n, want);
		n = fmt_num(got, x);
		old_num(want, x);
		same("fmt_num", x, got, n, want);
	}
	checked++;
}

/* x, -x and their neighbours up to k units in the last place away. */
static void check_around(double x, int k)
{
	double up = x, down = x;
	check_x(x, 1);
	check_x(-x, 1);
	for (int i = 0; i < k; i++) {
		up = nextafter(up, INFINITY);
		down = nextafter(down, 0);
		check_x(up, 1);
		check_x(-up, 1);
		check_x(down, 1);
		check_x(-down, 1);
	}
}

static double from_bits(uint64_t b)
{
	double x;
	memcpy(&x, &b, sizeof x);
	return x;
}

/* xorshift64* (Vigna 2016): a fixed, portable stream of bit patterns. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Du;
}

int main(void)
{
	char buf[64];
	long nrandom = 200000;
	const char *env = getenv("FMT_RANDOM");
	if (env && *env)
		nrandom = strtol(env, NULL, 10);

	/* Special values: the signs of zero and NaN are kept by %g. */
	const double special[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN,
	                           DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON,
	                           1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3,
	                           3.141592653589793, 2.718281828459045 };
	for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
		check_x(special[i], 1);
		check_x(-special[i], 1);
	}
	check_x(from_bits(0x7ff8000000000001u), 1);   /* NaNs with a payload */
	check_x(from_bits(0xfff4000000000000u), 1);
	check_around(DBL_MAX, 3);
	check_around(DBL_MIN, 3);
	check_around(DBL_TRUE_MIN, 3);
	check_around(from_bits(0x000fffffffffffffu), 3);   /* largest subnormal */

	/* Every power of two (the lopsided intervals) and its neighbours. */
	for (int e = -1074; e <= 1023; e++)
		check_around(ldexp(1, e), 2);

	/* Every power of ten as strtod reads it, and its neighbours: the
	 * exponent changes there, and floor(log10|x|) may be off by one. */
	for (int e = -323; e <= 308; e++) {
		snprintf(buf, sizeof buf, "1e%d", e);
		check_around(strtod(buf, NULL), 3);
	}

	/* The layout thresholds of %g, at 15, 16 and 17 digits: the largest
	 * numbers of each length below 10^-5, 10^-4, 10^15, 10^16, 10^17, and
	 * the smallest at and above them. */
	const int thresholds[] = { -5, -4, -3, 14, 15, 16, 17 };
	for (size_t i = 0; i < sizeof thresholds / sizeof *thresholds; i++) {
		int e = thresholds[i];
		for (int d = 1; d <= 17; d++) {
			snprintf(buf, sizeof buf, "%.*se%d", d, "99999999999999999", e - d);
			check_around(strtod(buf, NULL), 1);
			snprintf(buf, sizeof buf, "1.%.*s1e%d", d > 2 ? d - 2 : 0,
			         "0000000000000000", e);
			check_around(strtod(buf, NULL), 1);
			snprintf(buf, sizeof buf, "%.*se%d", d, "12345678901234567", e - d + 1);
			check_around(strtod(buf, NULL), 1);
		}
	}

	/* Integers, and halves around 2^53 where doubles stop holding them. */
	for (int i = 1; i <= 100000; i++)
		check_x(i, i < 2000);
	for (int i = -2000; i <= 2000; i++) {
		check_x(ldexp(1, 53) + 2.0 * i, 1);
		check_x(ldexp(1, 52) + 0.5 * i, 1);
	}

	/* Short decimals, as time columns and parameters are: k·10^e. */
	for (long i = 0; i < nrandom / 10; i++) {
		uint64_t r = rng();
		snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)(r % 100000000),
		         (int)(r >> 40 & 0x3ff) % 640 - 320);
		check_x(strtod(buf, NULL), i % 4 == 0);
	}

	/* Multiples of a step, as the time column is. */
	for (int i = 0; i <= 20000; i++)
		check_x(i * 1e-5, i % 10 == 0);

	/* Random bit patterns: every exponent, every mantissa. */
	for (long i = 0; i < nrandom; i++)
		check_x(from_bits(rng()), i % 16 == 0);
	/* Random subnormals. */
	for (long i = 0; i < nrandom / 100; i++)
		check_x(from_bits(rng() & 0x800fffffffffffffu), 1);

	printf("%ld numbers checked, %ld differences\n", checked, failures);
	return failures ? 1 : 0;
}
