/* value.c — printing numbers: the shortest form that reads back to the same
 * double (DESIGN.md, "Output of numbers"), independent of the locale: the
 * digits and their layout come from ir/fmt.c, which uses no printf. */
#include <config.h>

#include "value.h"
#include "fmt.h"

_Static_assert(FMT_BUFSZ <= 32, "value_format_num writes into 32 bytes");

void value_format_num(double x, char buf[32])
{
	fmt_num(buf, x);
}
