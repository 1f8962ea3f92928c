/* table.c — tabulated functions of time (recorded ground motions, sampled
 * loads) read from CSV files, and their linear interpolation.
 *
 * The files come from other programs (spreadsheets, data loggers), so the
 * reader is lenient about form — header row, comments, blank lines, CRLF
 * line endings, a UTF-8 byte-order mark, blanks around fields — and strict
 * about content: every time and every value read must be a finite number
 * and the times must increase, and a mistake is reported with the file,
 * the line and the column so that the user can fix it.
 *
 * The name of a file comes from a script, which may be someone else's: the
 * reader takes regular files only (not /dev/zero, which never ends, nor a
 * FIFO, which may never answer), at most TABLE_MAX_BYTES of them in lines
 * of at most TABLE_MAX_LINE bytes, and never quotes the file's content in
 * a message (table("/etc/shadow", 2) must not print a line of it).
 */
#define _POSIX_C_SOURCE 200809L

#include "table.h"
#include "fmt.h"

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Strip blanks around s in place (s is NUL-terminated). */
static char *trim(char *s)
{
	char *e;

	while (is_blank((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_blank((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

enum num_status { NUM_OK, NUM_EMPTY, NUM_BAD, NUM_INFINITE };

/* Parse a whole trimmed field as a number: strtod alone would accept "1.5x"
 * as 1.5 and silently drop the rest. */
static enum num_status parse_number(const char *s, double *v)
{
	char *end;

	if (*s == '\0')
		return NUM_EMPTY;
	errno = 0;
	*v = strtod(s, &end);
	/* decimal only, as the language and --set write numbers: strtod's
	 * hexadecimal (0x10, 0x1p-3) is no sample a table holds */
	if (end == s || *end != '\0' || strpbrk(s, "xXpP"))
		return NUM_BAD;
	/* Overflow (1e999) and "inf"/"nan" have no use as samples and would
	 * poison every interpolated value; underflow to 0 is harmless. */
	if (!isfinite(*v))
		return NUM_INFINITE;
	return NUM_OK;
}

/* Shortest %g form that reads back as v, so that two close but distinct
 * times in a message do not print alike. */
static void format_num(char buf[FMT_BUFSZ], double v)
{
	fmt_g(buf, v, 1);
}

/* Report a field of column c that is not a usable number — by its place
 * only: the file may be anything, its text is not shown. */
static void bad_field(char *err, size_t errlen, const char *path, long line,
                      int c, enum num_status st)
{
	set_err(err, errlen, "'%s' line %ld, column %d: %s", path, line, c,
	        st == NUM_EMPTY ? "empty field, expected a number" :
	        st == NUM_INFINITE ? "not a finite number" : "not a number");
}

/* Read one line into buf (at most TABLE_MAX_LINE bytes and a NUL), without
 * its "\n".  Returns its length, -1 at the end of the file or on a read
 * error, -2 when the line is longer than the limit. */
static long read_line(FILE *f, char *buf, size_t *total)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		++*total;
		if (c == '\n')
			break;
		if (n == TABLE_MAX_LINE)
			return -2;
		buf[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	buf[n] = '\0';
	return (long)n;
}

static int read_file(FILE *f, const char *path, int col, int *n, double **x,
                     double **y, char *err, size_t errlen)
{
	char *line = malloc(TABLE_MAX_LINE + 1), *p, *f1, *fc;
	size_t size = 0, room = 0, total = 0;
	long len;
	long lineno = 0;
	int seen_content = 0, nfields, nfilled, k, ncols = 0;
	long ncols_line = 0;
	double t, v, *xs = NULL, *ys = NULL;
	enum num_status st;
	char a[32], b[32];

	if (!line)
		goto nomem;
	while (errno = 0, (len = read_line(f, line, &total)) != -1) {
		lineno++;
		if (len == -2) {
			set_err(err, errlen, "'%s' line %ld is longer than %d bytes, "
			        "the limit of table()", path, lineno, TABLE_MAX_LINE);
			goto fail;
		}
		if (total > TABLE_MAX_BYTES) {
			set_err(err, errlen, "'%s' is larger than %d MiB, the limit "
			        "of table()", path, TABLE_MAX_BYTES >> 20);
			goto fail;
		}
		/* a NUL would end the line's string early: the rest of the
		 * row unread, silently */
		if (memchr(line, '\0', (size_t)len)) {
			set_err(err, errlen, "'%s' line %ld, column %ld: a NUL byte (is it a binary file?)", path, lineno,
			        (long)((char *)memchr(line, '\0', (size_t)len) - line) + 1);
			goto fail;
		}
		/* Windows files end lines with "\r\n". */
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		p = line;
		if (lineno == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
			p += 3;     /* byte-order mark from spreadsheet exports */
		while (is_blank((unsigned char)*p))
			p++;
		if (*p == '\0' || *p == '#')
			continue;

		/* Split at commas, keeping the first field and field col;
		 * nfilled counts the fields up to the last that is not
		 * empty (a spreadsheet's trailing commas are no fields). */
		f1 = fc = NULL;
		nfilled = 0;
		for (nfields = 1, k = 1;; k++) {
			char *comma = strchr(p, ',');

			if (comma)
				*comma = '\0';
			char *f = trim(p);
			if (k == 1)
				f1 = f;
			if (k == col)
				fc = f;
			if (*f)
				nfilled = k;
			nfields = k;
			if (!comma)
				break;
			p = comma + 1;
		}

		st = parse_number(f1, &t);
		if (st != NUM_OK) {
			/* Only the first line with content may be a header. */
			if (!seen_content && st != NUM_INFINITE) {
				seen_content = 1;
				continue;
			}
			bad_field(err, errlen, path, lineno, 1, st);
			goto fail;
		}
		seen_content = 1;
		if (nfields < col) {
			set_err(err, errlen, "'%s' line %ld: column %d missing "
			        "(the row has %d column%s)", path, lineno, col,
			        nfields, nfields == 1 ? "" : "s");
			goto fail;
		}
		/* No data row has more fields than the first data row,
		 * trailing empty ones not counted (the header may: a quoted
		 * "time, s", a trailing comma; a row may have fewer: an
		 * unread note left empty): a row with one more was read as
		 * if it were not there ("0.02,1,5" among "0.01,1": a
		 * decimal comma, 1.5, read as 1). */
		if (!ncols) {
			ncols = nfields;
			ncols_line = lineno;
		}
		if (nfilled > ncols) {
			set_err(err, errlen, "'%s' line %ld: the row has %d field%s, the first data row (line %ld) %d (a "
			        "decimal comma, or a stray field?)", path, lineno, nfilled, nfilled == 1 ? "" : "s",
			        ncols_line, ncols);
			goto fail;
		}
		if (col == 1) {
			v = t;
		} else {
			st = parse_number(fc, &v);
			if (st != NUM_OK) {
				bad_field(err, errlen, path, lineno, col, st);
				goto fail;
			}
		}
		if (size > 0 && !(t > xs[size - 1])) {
			format_num(a, t);
			format_num(b, xs[size - 1]);
			set_err(err, errlen, "'%s' line %ld: times must increase "
			        "(%s after %s)", path, lineno, a, b);
			goto fail;
		}
		if (size == (size_t)INT_MAX) {
			set_err(err, errlen, "'%s' has too many rows", path);
			goto fail;
		}
		if (size == room) {
			/* Grow by half again: amortised O(1) appends. */
			size_t nroom = room + 1024 + room / 2;
			double *nx, *ny;

			if (nroom > (size_t)INT_MAX)
				nroom = INT_MAX;
			nx = realloc(xs, nroom * sizeof *xs);
			if (!nx)
				goto nomem;
			xs = nx;
			ny = realloc(ys, nroom * sizeof *ys);
			if (!ny)
				goto nomem;
			ys = ny;
			room = nroom;
		}
		xs[size] = t;
		ys[size] = v;
		size++;
	}
	if (errno == ENOMEM)
		goto nomem;
	if (ferror(f)) {
		set_err(err, errlen, "cannot read '%s': %s", path,
		        strerror(errno ? errno : EIO));
		goto fail;
	}
	if (size == 0) {
		set_err(err, errlen, "'%s' has no data rows", path);
		goto fail;
	}
	/* Give back the growth slack. */
	{
		double *nx = realloc(xs, size * sizeof *xs);
		double *ny;

		if (nx)
			xs = nx;
		ny = realloc(ys, size * sizeof *ys);
		if (ny)
			ys = ny;
	}
	free(line);
	*n = (int)size;
	*x = xs;
	*y = ys;
	return 0;

nomem:
	set_err(err, errlen, "out of memory reading '%s'", path);
fail:
	free(line);
	free(xs);
	free(ys);
	return -1;
}

int table_read(const char *path, int col, int *n, double **x, double **y,
               char *err, size_t errlen)
{
	locale_t c, old = (locale_t)0;
	FILE *f;
	int r, fd;
	struct stat st;
	char name[256];

	*n = 0;
	*x = *y = NULL;
	if (col < 1) {
		set_err(err, errlen, "column %d is out of range: columns count "
		        "from 1", col);
		return -1;
	}
	rt_escape(name, sizeof name, path);
	/* O_NONBLOCK: opening a FIFO with no writer would wait forever */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		set_err(err, errlen, "cannot open '%s': %s", name,
		        strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		set_err(err, errlen, "'%s' is not a regular file: table() reads "
		        "regular files only", name);
		close(fd);
		return -1;
	}
	if (st.st_size > TABLE_MAX_BYTES) {
		set_err(err, errlen, "'%s' is larger than %d MiB, the limit of "
		        "table()", name, TABLE_MAX_BYTES >> 20);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (!f) {
		set_err(err, errlen, "cannot open '%s': %s", name,
		        strerror(errno));
		close(fd);
		return -1;
	}
	/* Data files always use '.', whatever the user's locale: read them in
	 * the C locale, switched for this thread only. */
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c != (locale_t)0)
		old = uselocale(c);
	r = read_file(f, name, col, n, x, y, err, errlen);
	if (c != (locale_t)0) {
		uselocale(old);
		freelocale(c);
	}
	fclose(f);
	return r;
}

double table_eval(int n, const double *x, const double *y, double t, int *hint)
{
	int i, lo, hi;

	if (n < 1)
		return NAN;
	if (isnan(t))
		return t;
	if (t <= x[0])
		return y[0];
	if (t >= x[n - 1])
		return y[n - 1];
	/* Now n ≥ 2 and x[0] < t < x[n-1]: find i with x[i] ≤ t < x[i+1].
	 * A time stepper asks for t slightly after its previous t, so the
	 * hinted interval or the next one usually holds it. */
	i = hint ? *hint : 0;
	if (i < 0 || i > n - 2)
		i = 0;
	if (x[i] <= t && t < x[i + 1]) {
		/* hit */
	} else if (i + 2 <= n - 1 && x[i + 1] <= t && t < x[i + 2]) {
		i++;
	} else {
		/* Binary search on the side of the hint where t lies. */
		if (t < x[i]) {
			lo = 0;
			hi = i;
		} else {
			lo = i;
			hi = n - 1;
		}
		/* Invariant: x[lo] ≤ t < x[hi]. */
		while (hi - lo > 1) {
			int mid = lo + (hi - lo) / 2;

			if (x[mid] <= t)
				lo = mid;
			else
				hi = mid;
		}
		i = lo;
	}
	if (hint)
		*hint = i;
	/* This form gives y[i] exactly at t = x[i]. */
	double dx = x[i + 1] - x[i], d = y[i + 1] - y[i];
	/* abscissae or values whose differences overflow (a table from
	 * -1e308 to 1e308: 1e308/inf gave f = 0, y[i] + inf·f gave inf for
	 * 0): the same interpolation in halves, which do not */
	double f = isfinite(dx) ? (t - x[i]) / dx : (t / 2 - x[i] / 2) / (x[i + 1] / 2 - x[i] / 2);
	if (!isfinite(d))
		return y[i] * (1 - f) + y[i + 1] * f;
	return y[i] + d * f;
}
