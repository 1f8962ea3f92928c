/* value.c — printing numbers: the shortest form that reads back to the same
 * double (DESIGN.md, "Output of numbers"), independent of the locale
 * because the program runs with LC_NUMERIC = "C". */
#include <config.h>

#include "value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void value_format_num(double x, char buf[32])
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
	/* the fewest significant digits that read back to x ... */
	int prec = 1;
	for (; prec < 17; prec++) {
		snprintf(buf, 32, "%.*e", prec - 1, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	/* ... printed without an exponent in the usual range: 10, not 1e+01 */
	int exp10 = (int)floor(log10(fabs(x)));
	if (exp10 >= -5 && exp10 < 16 && exp10 + 1 > prec)
		prec = exp10 + 1;
	snprintf(buf, 32, "%.*g", prec, x);
}
