/* fmt.c — doubles as text without printf: the shortest decimal digits
 * that read back to the same double, then printf's %g layout.
 *
 * The digits come from Ryū (Ulf Adams, "Ryū: fast float-to-string
 * conversion", PLDI 2018), written here from the paper.  A finite x > 0 is
 * m2·2^e2; every real in the interval halfway to its two neighbouring
 * doubles reads back as x (the ends too when m2 is even, since strtod
 * rounds ties to even).  Ryū scales x and both ends by 10^-e10 with one
 * 64 × 128-bit multiplication each, using a table of 5^i or of 2^k/5^q
 * kept to 125 bits — the paper shows that the integer parts it gets are
 * exact — and then removes decimal digits while the interval still holds
 * a shorter number: what remains, rounded to nearest (ties to even), is
 * the shortest number that reads back as x, and the closest to x among
 * numbers of its length.  The steps below are numbered as in the paper's
 * outline of the algorithm (1 decode, 2 interval, 3 change of base,
 * 4 shortest digits, 5 layout).
 *
 * Callers want the bytes that the trial method they replace wrote:
 * "%.*g" at the smallest precision p ≥ minprec whose output reads back,
 * that is x correctly rounded to p significant digits.  For a normal x the
 * two agree as follows.  Let D be Ryū's digits, d their count.
 *   - If d ≤ 15, D is x rounded to p digits for every p in d..15: |x − D|
 *     is at most half a unit in the last place of x, below 1.2e-16·|x|,
 *     while half a step of 15 significant digits is above 5e-16·|x|.
 *   - If d is 16 or 17, x rounded to d digits is the closest number of d
 *     digits, and lies in the interval whenever any number of d digits
 *     does, unless the interval is lopsided: when x is a power of two its
 *     lower neighbour is twice as close as the upper one, and x rounded
 *     down to 16 digits may miss the interval while a 16-digit number
 *     above x is in it (then %.16g does not read back and the old method
 *     wrote 17 digits).  Those few powers of two go to the trial method.
 *   - No shorter rounding of x reads back, since D is shortest.
 * Subnormals, where a 15-digit rounding may keep more digits than needed
 * ("4.94065645841247e-324", not "5e-324"), also take the trial method:
 * they are rare in records, and the bytes stay those of the old method.
 * tests/test_fmt.c compares both routes byte for byte with the old code.
 */
#include <config.h>

#include "fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 128-bit arithmetic ---- */

#if defined(__SIZEOF_INT128__)
/* (m · (mul[1]·2^64 + mul[0])) >> j, for 64 < j < 128 + 64 and a result
 * below 2^64. */
static uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int j)
{
	unsigned __int128 lo = (unsigned __int128)m * mul[0];
	unsigned __int128 hi = (unsigned __int128)m * mul[1];
	return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
}
#else
/* The same with 32-bit halves, for compilers without a 128-bit type. */
static uint64_t umul128(uint64_t a, uint64_t b, uint64_t *hi)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return (mid << 32) | (uint32_t)p00;
}

static uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int j)
{
	uint64_t lo_hi, hi_hi;
	uint64_t hi_lo = umul128(m, mul[1], &hi_hi);
	umul128(m, mul[0], &lo_hi);
	uint64_t sum = lo_hi + hi_lo;
	hi_hi += sum < lo_hi;
	/* (hi_hi·2^64 + sum) >> (j − 64), where 64 < j − 64 + 64 < 128 */
	int s = j - 64;
	if (s >= 64)
		return hi_hi >> (s - 64);
	return (sum >> s) | (hi_hi << (64 - s));
}
#endif

/* ---- the tables of powers of 5 ---- */

/* Bits kept of 5^i and of 2^k/5^q: Ryū's choice for doubles, which the
 * paper proves enough for every exponent. */
#define POW5_BITS 125
/* 5^i for i ≤ 325 (the smallest subnormal needs 325); 2^k/5^q for
 * q ≤ 290 (DBL_MAX needs 290). */
#define POW5_N 326
#define POW5_INV_N 291

/* ⌈log2 5^e⌉ (the bit length of 5^e) for 1 ≤ e ≤ 3528, and 1 for e = 0. */
static int pow5bits(int e)
{
	return (int)(((uint32_t)e * 1217359u) >> 19) + 1;
}

/* ⌊e·log10 2⌋ for 0 ≤ e ≤ 1650. */
static int log10_pow2(int e)
{
	return (int)(((uint32_t)e * 78913u) >> 18);
}

/* ⌊e·log10 5⌋ for 0 ≤ e ≤ 2620. */
static int log10_pow5(int e)
{
	return (int)(((uint32_t)e * 732923u) >> 20);
}

static uint64_t pow5_tab[POW5_N][2];       /* ⌊5^i / 2^(bits(5^i) − 125)⌋ */
static uint64_t pow5_inv_tab[POW5_INV_N][2]; /* ⌊2^(bits(5^q) − 1 + 125) / 5^q⌋ + 1 */
static int tables_ready;

/* ⌊a / 2^shift⌋ modulo 2^128 for a number of n 32-bit limbs (least
 * significant first); shift may be negative (a left shift).  Output word
 * w holds bits 32w + shift .. 32w + shift + 31 of a: the top of limb l and
 * the bottom of limb l + 1, l = ⌊(32w + shift)/32⌋. */
static void bits_of(const uint32_t *a, int n, int shift, uint64_t out[2])
{
	int q = shift >= 0 ? shift / 32 : -((-shift + 31) / 32), r = shift - 32 * q;
	uint32_t w[4];
	for (int k = 0; k < 4; k++) {
		int l = k + q;
		uint64_t lo = l >= 0 && l < n ? a[l] : 0, hi = l + 1 >= 0 && l + 1 < n ? a[l + 1] : 0;
		w[k] = (uint32_t)((hi << 32 | lo) >> r);
	}
	out[0] = (uint64_t)w[1] << 32 | w[0];
	out[1] = (uint64_t)w[3] << 32 | w[2];
}

/* Both tables, exactly, with small integer arithmetic: 5^i by repeated
 * multiplication, ⌊2^W / 5^q⌋ by repeated division (⌊⌊a/b⌋/c⌋ = ⌊a/bc⌋),
 * then the wanted bits of each, once per process (dyn is
 * single-threaded). */
static void tables_init(void)
{
	enum { W = 1024, NA = W / 32 + 1 };  /* W above every k of pow5_inv_tab */
	uint32_t p[NA] = { 1 }, a[NA] = { 0 };
	int np = 1;

	for (int i = 0; i < POW5_N; i++) {
		if (i > 0) {
			uint64_t carry = 0;
			for (int l = 0; l < np; l++) {
				uint64_t v = (uint64_t)p[l] * 5 + carry;
				p[l] = (uint32_t)v;
				carry = v >> 32;
			}
			if (carry)
				p[np++] = (uint32_t)carry;
		}
		bits_of(p, np, pow5bits(i) - POW5_BITS, pow5_tab[i]);
	}
	a[NA - 1] = 1;   /* 2^W */
	for (int q = 0; q < POW5_INV_N; q++) {
		if (q > 0) {
			uint64_t rem = 0;
			for (int l = NA - 1; l >= 0; l--) {
				uint64_t v = rem << 32 | a[l];
				a[l] = (uint32_t)(v / 5);
				rem = v % 5;
			}
		}
		uint64_t *t = pow5_inv_tab[q];
		bits_of(a, NA, W - (pow5bits(q) - 1 + POW5_BITS), t);
		if (++t[0] == 0)   /* + 1: an upper bound, as the paper needs */
			t[1]++;
	}
	tables_ready = 1;
}

/* ---- Ryū ---- */

static int pow5_factor(uint64_t v)
{
	int n = 0;
	while (v > 0 && v % 5 == 0) {
		v /= 5;
		n++;
	}
	return n;
}

/* v·2^e / 10^q is an integer (e ≥ q ≥ 0). */
static int multiple_pow5(uint64_t v, int q)
{
	return q <= 25 && pow5_factor(v) >= q;   /* 5^25 > 2^57 > v */
}

/* v·5^i / 2^q is an integer. */
static int multiple_pow2(uint64_t v, int q)
{
	return q < 64 && (v & (((uint64_t)1 << q) - 1)) == 0;
}

/* The shortest decimal that reads back as m2·2^e2 (m2 > 0), and the
 * closest of its length: returns its digits and sets *exp10 so that the
 * number is digits·10^*exp10.  lower_closer: the next double below is
 * half as far as the next above (x is a power of two above DBL_MIN). */
static uint64_t shortest(uint64_t m2, int e2, int lower_closer, int *exp10)
{
	/* Step 2: the interval (mm, mp)·2^e2 around mv·2^e2, in quarter units
	 * so that its ends are integers. */
	int ends_in = (m2 & 1) == 0;
	uint64_t mv = 4 * m2, mp = mv + 2, mm = mv - 2 + (uint64_t)lower_closer;
	e2 -= 2;

	/* Step 3: vr, vp, vm = ⌊(mv, mp, mm)·2^e2 / 10^e10⌋ and whether each
	 * is exact (r_int, p_int, m_int), with e10 chosen so that they keep
	 * one digit more than the shortest form needs. */
	uint64_t vr, vp, vm;
	int e10, r_int, p_int, m_int;
	if (e2 >= 0) {
		int q = log10_pow2(e2) - (e2 > 3);
		int j = -e2 + q + POW5_BITS + pow5bits(q) - 1;
		vr = mul_shift(mv, pow5_inv_tab[q], j);
		vp = mul_shift(mp, pow5_inv_tab[q], j);
		vm = mul_shift(mm, pow5_inv_tab[q], j);
		e10 = q;
		r_int = multiple_pow5(mv, q);
		p_int = multiple_pow5(mp, q);
		m_int = multiple_pow5(mm, q);
	} else {
		int q = log10_pow5(-e2) - (-e2 > 1);
		int i = -e2 - q;
		int j = q - (pow5bits(i) - POW5_BITS);
		vr = mul_shift(mv, pow5_tab[i], j);
		vp = mul_shift(mp, pow5_tab[i], j);
		vm = mul_shift(mm, pow5_tab[i], j);
		e10 = q + e2;
		r_int = multiple_pow2(mv, q);
		p_int = multiple_pow2(mp, q);
		m_int = multiple_pow2(mm, q);
	}

	/* Step 4: the largest and smallest admissible numbers are hi and
	 * either vm (when the lower end is admissible: m_in) or vm + 1.
	 * Remove digits while a multiple of 10 lies between them; last is the
	 * last digit removed from vr, r_int whether those below it were 0. */
	uint64_t hi = vp - (!ends_in && p_int);
	int m_in = ends_in && m_int;
	int last = 0, removed = 0;
	if (!m_in && !r_int) {
		/* The usual case: x is not a whole number at this scale and the
		 * lower end is not admissible, so no tie can occur (r_int) and
		 * vm is never the answer (m_in); only whether the digits
		 * removed reach half a unit matters; two digits at a time while
		 * two can go (if a multiple of 100 lies in the range, a multiple
		 * of 10 does at both steps). */
		int up = 0;
		while (hi / 100 > vm / 100) {
			up = vr % 100 >= 50;
			vr /= 100;
			hi /= 100;
			vm /= 100;
			removed += 2;
		}
		while (hi / 10 > vm / 10) {
			up = vr % 10 >= 5;
			vr /= 10;
			hi /= 10;
			vm /= 10;
			removed++;
		}
		*exp10 = e10 + removed;
		return vr + (vr == vm || up);
	}
	while (hi / 10 > vm / 10) {
		m_in &= vm % 10 == 0;
		r_int &= last == 0;
		last = (int)(vr % 10);
		vr /= 10;
		hi /= 10;
		vm /= 10;
		removed++;
	}
	/* vm itself admissible: it may be shorter still (then vm > 0). */
	if (m_in) {
		while (vm % 10 == 0) {
			r_int &= last == 0;
			last = (int)(vr % 10);
			vr /= 10;
			vm /= 10;
			removed++;
		}
	}
	if (r_int && last == 5 && vr % 2 == 0)
		last = 4;   /* x exactly halfway: round to even, like printf */
	*exp10 = e10 + removed;
	return vr + ((vr == vm && !m_in) || last >= 5);
}

/* ---- layout ---- */

/* "00" to "99": two digits per division by 100. */
static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* The nd digits of v < 10^8, written so that the last is at end[-1]. */
static void put_digits32(char *end, uint32_t v, int nd)
{
	for (; nd >= 2; nd -= 2) {
		uint32_t q = v / 100;
		const char *d = digit_pairs + 2 * (v - 100 * q);
		*--end = d[1];
		*--end = d[0];
		v = q;
	}
	if (nd)
		*--end = (char)('0' + v);
}

/* The nd digits of v, written so that the last is at end[-1]: eight at a
 * time in 32-bit arithmetic, which is cheaper than 64-bit. */
static void put_digits(char *end, uint64_t v, int nd)
{
	for (; nd > 8; nd -= 8, end -= 8) {
		uint64_t q = v / 100000000;
		put_digits32(end, (uint32_t)(v - 100000000 * q), 8);
		v = q;
	}
	put_digits32(end, (uint32_t)v, nd);
}

/* %.{prec}g of sign·digits·10^(exp − nd + 1): digits has nd ≤ prec digits,
 * the last nonzero, and exp is the exponent of the first one. */
static int layout_g(char *buf, int neg, uint64_t digits, int nd, int exp, int prec)
{
	char *b = buf;

	if (neg)
		*b++ = '-';
	if (exp < -4 || exp >= prec) {
		/* d.ddde±XX: the digits one place right, then the first moved
		 * in front of the point */
		put_digits(b + 1 + nd, digits, nd);
		b[0] = b[1];
		if (nd > 1) {
			b[1] = '.';
			b += nd + 1;
		} else {
			b++;
		}
		*b++ = 'e';
		*b++ = exp < 0 ? '-' : '+';
		int e = exp < 0 ? -exp : exp;
		if (e >= 100)
			*b++ = (char)('0' + e / 100);
		*b++ = digit_pairs[2 * (e % 100)];
		*b++ = digit_pairs[2 * (e % 100) + 1];
	} else if (exp >= 0) {
		int ni = exp + 1;   /* digits before the point */
		if (nd <= ni) {
			put_digits(b + nd, digits, nd);
			for (b += nd; nd < ni; nd++)
				*b++ = '0';
		} else {
			put_digits(b + 1 + nd, digits, nd);
			for (int i = 0; i < ni; i++)
				b[i] = b[i + 1];
			b[ni] = '.';
			b += nd + 1;
		}
	} else {
		*b++ = '0';
		*b++ = '.';
		for (int i = 0; i < -exp - 1; i++)
			*b++ = '0';
		put_digits(b + nd, digits, nd);
		b += nd;
	}
	*b = '\0';
	return (int)(b - buf);
}

/* The number of decimal digits of v < 10^17. */
static int ndigits(uint64_t v)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000,
		1000000, 10000000, 100000000, 1000000000, 10000000000u,
		100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u };
	int n = 1;
	while (n < 17 && v >= pow10[n])
		n++;
	return n;
}

/* The trial method: %.{p}g for p = minprec, minprec + 1, ... until strtod
 * reads it back. */
static int trial_g(char *buf, double x, int minprec)
{
	int n = 0;
	for (int p = minprec; p <= 17; p++) {
		n = snprintf(buf, FMT_BUFSZ, "%.*g", p, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return n;
}

/* Ryū's digits of a normal, finite, nonzero x, or 0 when x takes the trial
 * method (a subnormal, or a power of two whose shortest form has more than
 * 15 digits: see the top of the file). */
static uint64_t digits_of(double x, int *nd, int *exp)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
	int bexp = (int)(bits >> 52 & 0x7ff);

	if (bexp == 0)
		return 0;
	if (!tables_ready)
		tables_init();
	int e10;
	uint64_t dig = shortest(frac | (uint64_t)1 << 52, bexp - 1075,
	                        frac == 0 && bexp > 1, &e10);
	while (dig % 10 == 0) {   /* never, by step 4; kept for safety */
		dig /= 10;
		e10++;
	}
	*nd = ndigits(dig);
	if (frac == 0 && *nd > 15)
		return 0;
	*exp = e10 + *nd - 1;
	return dig;
}

int fmt_g(char buf[FMT_BUFSZ], double x, int minprec)
{
	int neg = signbit(x) != 0;
	if (isnan(x))
		return (int)strlen(strcpy(buf, neg ? "-nan" : "nan"));
	if (isinf(x))
		return (int)strlen(strcpy(buf, neg ? "-inf" : "inf"));
	if (x == 0)
		return (int)strlen(strcpy(buf, neg ? "-0" : "0"));
	int nd, exp;
	uint64_t dig = digits_of(x, &nd, &exp);
	if (!dig)
		return trial_g(buf, x, minprec);
	return layout_g(buf, neg, dig, nd, exp, nd > minprec ? nd : minprec);
}

int fmt_num(char buf[FMT_BUFSZ], double x)
{
	if (isnan(x))
		return (int)strlen(strcpy(buf, "nan"));
	if (isinf(x))
		return (int)strlen(strcpy(buf, x > 0 ? "inf" : "-inf"));
	if (x == 0)
		return (int)strlen(strcpy(buf, "0"));
	int nd, exp, prec;
	uint64_t dig = digits_of(x, &nd, &exp);
	if (dig) {
		prec = nd;
	} else {
		/* the fewest significant digits that read back to x */
		for (prec = 1; prec < 17; prec++) {
			snprintf(buf, FMT_BUFSZ, "%.*e", prec - 1, x);
			if (strtod(buf, NULL) == x)
				break;
		}
	}
	/* printed without an exponent in the usual range: 10, not 1e+01.
	 * floor(log10|x|), not the exponent of the digits, decides as it
	 * always did; the digits added are then zeros of the integer part. */
	int exp10 = (int)floor(log10(fabs(x)));
	if (exp10 >= -5 && exp10 < 16 && exp10 + 1 > prec)
		prec = exp10 + 1;
	if (!dig)
		return snprintf(buf, FMT_BUFSZ, "%.*g", prec, x);
	return layout_g(buf, signbit(x) != 0, dig, nd, exp, prec);
}
