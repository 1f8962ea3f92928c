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
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}
