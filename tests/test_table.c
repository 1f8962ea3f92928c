/* test_table.c — unit tests of runtime/table.c: reading CSV tables (forms
 * accepted, each error message) and interpolating them.  Temporary files
 * are written into the current directory as test_table_tmp_* and removed
 * at the end.  Exit status 0 when every check passes, 1 otherwise; each
 * failed check is printed with its file and line. */
#define _POSIX_C_SOURCE 200809L

#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "unit.h"

/* Check that the last error message contains key; show it when not. */
#define CHECK_ERR(key) do { \
	if (!strstr(err, (key))) { \
		fprintf(stderr, "%s:%d: error message \"%s\" lacks \"%s\"\n", \
		        __FILE__, __LINE__, err, (key)); \
		failures++; \
	} \
} while (0)

#define CHECK_NEAR(a, b) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= 1e-15)) { \
		fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", \
		        __FILE__, __LINE__, #a, a_, b_); \
		failures++; \
	} \
} while (0)

static char err[256];

static const char *const tmp_names[] = {
	"test_table_tmp_ok.csv", "test_table_tmp_forms.csv",
	"test_table_tmp_bare.csv", "test_table_tmp_bad.csv",
	"test_table_tmp_short.csv", "test_table_tmp_order.csv",
	"test_table_tmp_empty.csv", "test_table_tmp_long.csv",
	"test_table_tmp_missing.csv", "test_table_tmp_wide.csv"
};

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "wb");

	if (!f || fputs(text, f) == EOF || fclose(f) == EOF) {
		fprintf(stderr, "cannot write %s: %s\n", name, strerror(errno));
		exit(1);
	}
}

/* The same for text with NUL bytes (len bytes). */
static void write_bytes(const char *name, const char *text, size_t len)
{
	FILE *f = fopen(name, "wb");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f) == EOF) {
		fprintf(stderr, "cannot write %s: %s\n", name, strerror(errno));
		exit(1);
	}
}

/* Read and expect failure; the outputs must be left empty. */
static int read_fails(const char *name, int col)
{
	static double sentinel;
	int n = -1;
	double *x = &sentinel, *y = &sentinel;  /* must be reset */
	int r;

	err[0] = '\0';
	r = table_read(name, col, &n, &x, &y, err, sizeof err);
	CHECK(n == 0 && x == NULL && y == NULL);
	return r == -1;
}

static void test_header_and_rows(void)
{
	int n = 0;
	double *x = NULL, *y = NULL;

	write_file("test_table_tmp_ok.csv",
	           "time,a,b\n0,1,10\n0.5,2,20\n1,3,30\n");
	CHECK(table_read("test_table_tmp_ok.csv", 2, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(x[0] == 0 && x[1] == 0.5 && x[2] == 1);
		CHECK(y[0] == 1 && y[1] == 2 && y[2] == 3);
	}
	free(x);
	free(y);

	CHECK(table_read("test_table_tmp_ok.csv", 3, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 3);
	if (n == 3)
		CHECK(y[0] == 10 && y[1] == 20 && y[2] == 30);
	free(x);
	free(y);

	/* Column 1 is the time itself. */
	CHECK(table_read("test_table_tmp_ok.csv", 1, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 3);
	if (n == 3)
		CHECK(y[0] == 0 && y[1] == 0.5 && y[2] == 1);
	free(x);
	free(y);
}

static void test_forms(void)
{
	int n = 0;
	double *x = NULL, *y = NULL;

	/* Byte-order mark, comments, blank lines, CRLF, blanks around fields,
	 * exponents, text in an unread column, no final newline. */
	write_file("test_table_tmp_forms.csv",
	           "\xEF\xBB\xBF# recorded 2024\r\n"
	           "\r\n"
	           "   \t\r\n"
	           "t [s], a [m/s2], note\r\n"
	           "# mid-file comment\r\n"
	           "  0 ,\t-1.5e-1 , start\r\n"
	           "\r\n"
	           "  # indented comment\r\n"
	           "0.25, 2E0,\r\n"
	           "1,3.0 , end");
	CHECK(table_read("test_table_tmp_forms.csv", 2, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(x[0] == 0 && x[1] == 0.25 && x[2] == 1);
		CHECK(y[0] == -0.15 && y[1] == 2 && y[2] == 3);
	}
	free(x);
	free(y);

	/* No header, a single row, one column. */
	write_file("test_table_tmp_bare.csv", "2.5\n");
	CHECK(table_read("test_table_tmp_bare.csv", 1, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 1 && x[0] == 2.5 && y[0] == 2.5);
	free(x);
	free(y);
}

static void test_long_lines(void)
{
	/* 2000 rows of 302 columns (lines of ~1.2 kB), then two rows of
	 * 200002 columns in a file of their own (a row has the first row's
	 * number of fields): no fixed line buffer, arrays grow past any
	 * initial size. */
	FILE *f = fopen("test_table_tmp_long.csv", "w");
	int i, j, n = 0;
	double *x = NULL, *y = NULL;

	if (!f) {
		fprintf(stderr, "cannot write test_table_tmp_long.csv\n");
		exit(1);
	}
	for (i = 0; i < 2000; i++) {
		fprintf(f, "%d,%d", i, 2 * i);
		for (j = 0; j < 300; j++)
			fputs(",1.2", f);
		fputc('\n', f);
	}
	fclose(f);
	CHECK(table_read("test_table_tmp_long.csv", 2, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 2000);
	if (n == 2000)
		CHECK(x[1999] == 1999 && y[1999] == 3998);
	free(x);
	free(y);
	CHECK(read_fails("test_table_tmp_long.csv", 303));
	CHECK_ERR("'test_table_tmp_long.csv' line 1: column 303 missing "
	          "(the row has 302 columns)");
	f = fopen("test_table_tmp_wide.csv", "w");
	if (!f) {
		fprintf(stderr, "cannot write test_table_tmp_wide.csv\n");
		exit(1);
	}
	for (i = 0; i < 2; i++) {
		fprintf(f, "%d,-7", 2000 + i);
		for (j = 0; j < 200000; j++)
			fputs(",9", f);
		fputs(",42\n", f);
	}
	fclose(f);
	x = y = NULL;
	CHECK(table_read("test_table_tmp_wide.csv", 200003, &n, &x, &y,
	                 err, sizeof err) == 0);
	CHECK(n == 2 && x[1] == 2001 && y[1] == 42);
	free(x);
	free(y);
}

/* Files that are not tables: a device that never ends, a FIFO with no
 * writer (which would block open and read forever), a folder, a line
 * beyond the limit; and a name with control characters, shown escaped. */
static void test_not_tables(void)
{
	int n;
	double *x, *y;
	FILE *f;

	CHECK(read_fails("/dev/zero", 2));
	CHECK_ERR("'/dev/zero' is not a regular file: table() reads regular "
	          "files only");
	CHECK(read_fails(".", 2));
	CHECK_ERR("'.' is not a regular file");
	remove("test_table_tmp_fifo");
	if (mkfifo("test_table_tmp_fifo", 0600) == 0) {
		CHECK(read_fails("test_table_tmp_fifo", 2));
		CHECK_ERR("'test_table_tmp_fifo' is not a regular file");
		remove("test_table_tmp_fifo");
	}
	f = fopen("test_table_tmp_huge.csv", "w");
	if (!f)
		exit(1);
	fputs("0,1\n", f);
	for (int i = 0; i < TABLE_MAX_LINE; i++)
		fputc('7', f);
	fputs(",1\n", f);
	fclose(f);
	CHECK(table_read("test_table_tmp_huge.csv", 2, &n, &x, &y, err,
	                 sizeof err) != 0);
	CHECK_ERR("'test_table_tmp_huge.csv' line 2 is longer than 1048576 "
	          "bytes, the limit of table()");
	remove("test_table_tmp_huge.csv");
	CHECK(read_fails("no\033[31m\nsuch.csv", 2));
	CHECK_ERR("cannot open 'no\\x1b[31m\\nsuch.csv'");
}

static void test_errors(void)
{
	char small[12];
	int n;
	double *x, *y;

	CHECK(read_fails("test_table_tmp_missing.csv", 2));
	CHECK_ERR("cannot open 'test_table_tmp_missing.csv'");
	CHECK_ERR(strerror(ENOENT));

	write_file("test_table_tmp_ok.csv",
	           "time,a,b\n0,1,10\n0.5,2,20\n1,3,30\n");
	CHECK(read_fails("test_table_tmp_ok.csv", 0));
	CHECK_ERR("column 0 is out of range: columns count from 1");

	/* Line 7: comments and blank lines count as lines. */
	write_file("test_table_tmp_bad.csv",
	           "# comment\ntime,v\n0,1\n\n0.1,2\n# x\n0.2,abc\n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("'test_table_tmp_bad.csv' line 7, column 2: not a number");
	CHECK(!strstr(err, "abc"));   /* the file's text is never shown */

	/* Trailing garbage after a number is not a number. */
	write_file("test_table_tmp_bad.csv", "0,1\n0.1,2.5x\n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 2: not a number");

	/* Hexadecimal is not a number of a table (strtod took 0x10 as 16). */
	write_file("test_table_tmp_bad.csv", "0,1\n0.1,0x10\n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 2: not a number");

	/* A second non-numeric line is not a header. */
	write_file("test_table_tmp_bad.csv", "time,v\nunits,m\n0,1\n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 1: not a number");
	CHECK(!strstr(err, "units"));

	write_file("test_table_tmp_bad.csv", "0,1\n1, \n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 2: empty field, expected a number");

	/* A NUL byte ended the row's string: "1\09" was read as 1 */
	write_bytes("test_table_tmp_bad.csv", "t,f\n0,1\0009\n1,2\n", 14);
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 4: a NUL byte (is it a binary file?)");

	write_file("test_table_tmp_bad.csv", "0,1\n1,1e999\n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 2: not a finite number");

	write_file("test_table_tmp_bad.csv", "0,1\nnan,2\n");
	CHECK(read_fails("test_table_tmp_bad.csv", 2));
	CHECK_ERR("line 2, column 1: not a finite number");

	write_file("test_table_tmp_short.csv",
	           "t,a,b\n0,1,2\n0.1,1,2\n\n0.2,3\n");
	CHECK(read_fails("test_table_tmp_short.csv", 3));
	CHECK_ERR("'test_table_tmp_short.csv' line 5: column 3 missing "
	          "(the row has 2 columns)");
	write_file("test_table_tmp_short.csv", "0\n");
	CHECK(read_fails("test_table_tmp_short.csv", 2));
	CHECK_ERR("line 1: column 2 missing (the row has 1 column)");
	/* a data row with more fields than the first data row: read as if
	 * it had as many ("0.01,1,5", a decimal comma's 1.5, gave 1) */
	write_file("test_table_tmp_short.csv", "time,acc\n0,0\n0.01,1,5\n0.02,1\n");
	CHECK(read_fails("test_table_tmp_short.csv", 2));
	CHECK_ERR("'test_table_tmp_short.csv' line 3: the row has 3 fields, the first data row (line 2) 2 (a "
	          "decimal comma, or a stray field?)");
	write_file("test_table_tmp_short.csv", "0,1\n1,2,,3\n");
	CHECK(read_fails("test_table_tmp_short.csv", 2));
	CHECK_ERR("line 2: the row has 4 fields, the first data row (line 1) 2");
	/* ... but a header may have another count (a quoted name with a
	 * comma, a trailing comma), trailing empty fields are none, and a
	 * row may have fewer when it has the column read */
	{
		static const char *const ok[] = {
			"\"time, s\",acc\n0,1\n1,3\n", "t,a,\n0,1\n1,3\n", "t,a\n0,1,\n1,3,,\n", "t,a,b\n0,1\n1,3\n",
			"0,1,x\n1,3\n",
		};
		for (size_t c = 0; c < sizeof ok / sizeof ok[0]; c++) {
			int n = 0;
			double *x = NULL, *y = NULL;
			write_file("test_table_tmp_short.csv", ok[c]);
			CHECK(table_read("test_table_tmp_short.csv", 2, &n, &x, &y, err, sizeof err) == 0);
			CHECK(n == 2 && x[1] == 1 && y[1] == 3);
			free(x);
			free(y);
		}
	}

	write_file("test_table_tmp_order.csv",
	           "t,v\n0,0\n0.1,1\n0.2,2\n0.3,3\n\n# c\n\n0.2,4\n");
	CHECK(read_fails("test_table_tmp_order.csv", 2));
	CHECK_ERR("'test_table_tmp_order.csv' line 9: times must increase "
	          "(0.2 after 0.3)");
	/* Equal times are an error too, and close times print distinctly. */
	write_file("test_table_tmp_order.csv", "0,0\n0.1,1\n0.1,2\n");
	CHECK(read_fails("test_table_tmp_order.csv", 2));
	CHECK_ERR("line 3: times must increase (0.1 after 0.1)");
	write_file("test_table_tmp_order.csv", "1.0000001,0\n1,1\n");
	CHECK(read_fails("test_table_tmp_order.csv", 2));
	CHECK_ERR("(1 after 1.0000001)");

	write_file("test_table_tmp_empty.csv", "time,v\n# nothing\n\n");
	CHECK(read_fails("test_table_tmp_empty.csv", 2));
	CHECK_ERR("'test_table_tmp_empty.csv' has no data rows");
	write_file("test_table_tmp_empty.csv", "");
	CHECK(read_fails("test_table_tmp_empty.csv", 2));
	CHECK_ERR("'test_table_tmp_empty.csv' has no data rows");

	/* A short buffer gets a truncated, terminated message. */
	memset(small, 'x', sizeof small);
	CHECK(table_read("test_table_tmp_missing.csv", 2, &n, &x, &y,
	                 small, sizeof small) == -1);
	CHECK(memchr(small, '\0', sizeof small) != NULL);
	CHECK(strncmp(small, "cannot open", sizeof small - 1) == 0);
	/* No buffer at all is allowed. */
	CHECK(table_read("test_table_tmp_missing.csv", 2, &n, &x, &y,
	                 NULL, 0) == -1);
}

static void test_eval(void)
{
	static const double x[] = { 0, 1, 2, 4 };
	static const double y[] = { 0, 10, 4, 5 };
	static const double one_x[] = { 3 }, one_y[] = { -2 };
	int hint = 0, hint2, i;

	/* At the samples: exact. */
	for (i = 0; i < 4; i++) {
		hint = 0;
		CHECK(table_eval(4, x, y, x[i], &hint) == y[i]);
	}
	/* Between samples. */
	hint = 0;
	CHECK_NEAR(table_eval(4, x, y, 0.5, &hint), 5);
	CHECK_NEAR(table_eval(4, x, y, 0.25, &hint), 2.5);
	CHECK_NEAR(table_eval(4, x, y, 1.5, &hint), 7);
	CHECK_NEAR(table_eval(4, x, y, 1.75, &hint), 5.5);
	CHECK_NEAR(table_eval(4, x, y, 3, &hint), 4.5);
	/* Beyond the ends: constant. */
	CHECK(table_eval(4, x, y, -1, &hint) == 0);
	CHECK(table_eval(4, x, y, -1e300, &hint) == 0);
	CHECK(table_eval(4, x, y, 4.5, &hint) == 5);
	CHECK(table_eval(4, x, y, INFINITY, &hint) == 5);
	CHECK(isnan(table_eval(4, x, y, NAN, &hint)));
	/* No hint at all. */
	CHECK_NEAR(table_eval(4, x, y, 3.5, NULL), 4.75);
	/* A hint out of range (stale, from another table) is harmless. */
	hint = 1000;
	CHECK_NEAR(table_eval(4, x, y, 0.5, &hint), 5);
	hint = -7;
	CHECK_NEAR(table_eval(4, x, y, 3, &hint), 4.5);
	/* A single sample: constant everywhere. */
	hint = 0;
	CHECK(table_eval(1, one_x, one_y, -5, &hint) == -2);
	CHECK(table_eval(1, one_x, one_y, 3, &hint) == -2);
	CHECK(table_eval(1, one_x, one_y, 50, &hint) == -2);

	/* Sweeps forwards, backwards and jumping agree with fresh lookups. */
	hint = 0;
	for (i = -10; i <= 50; i++) {
		double t = i * 0.1;

		hint2 = 0;
		CHECK(table_eval(4, x, y, t, &hint) ==
		      table_eval(4, x, y, t, &hint2));
	}
	for (i = 50; i >= -10; i--) {
		double t = i * 0.1;

		hint2 = 0;
		CHECK(table_eval(4, x, y, t, &hint) ==
		      table_eval(4, x, y, t, &hint2));
	}
	for (i = 0; i < 40; i++) {
		double t = (i * 7 % 40) * 0.1;

		CHECK(table_eval(4, x, y, t, &hint) ==
		      table_eval(4, x, y, t, NULL));
	}
}

/* A long table: binary search and the hinted walk give the same values. */
static void test_eval_long(void)
{
	enum { N = 1000 };
	static double x[N], y[N];
	int i, hint = 0, bad = 0;

	for (i = 0; i < N; i++) {
		x[i] = i * 0.5;
		y[i] = (i % 2) ? 1 : -1;
	}
	for (i = 0; i <= 2 * N; i++) {
		double t = i * 0.25;    /* samples and midpoints */
		double want = t >= x[N - 1] ? y[N - 1] :
		              (i % 2 ? 0 : y[i / 2]);

		if (table_eval(N, x, y, t, &hint) != want)
			bad++;
		if (table_eval(N, x, y, t, NULL) != want)
			bad++;
	}
	CHECK(bad == 0);
}

int main(void)
{
	size_t i;

	test_header_and_rows();
	test_forms();
	test_long_lines();
	test_not_tables();
	test_errors();
	test_eval();
	test_eval_long();
	for (i = 0; i < sizeof tmp_names / sizeof tmp_names[0]; i++)
		remove(tmp_names[i]);
	if (failures) {
		fprintf(stderr, "test_table: %d check(s) failed\n", failures);
		return 1;
	}
	return 0;
}
