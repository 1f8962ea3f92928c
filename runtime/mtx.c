/* mtx.c — Matrix Market files read into compressed-column matrices.
 *
 * The numbers are read by CHOLMOD's reader (cholmod_read_matrix), the
 * reader of the sparse library that the solvers use.  It reports only a
 * status code, so a first pass here checks the file the way the Matrix
 * Market format defines it (Boisvert, Pozo and Remington 1996, "The Matrix
 * Market exchange formats: initial design", NISTIR 5935) and reports a
 * mistake with its line: banner, size line, each entry's indices and
 * value, the count of entries.  Only a file that passes is handed to
 * CHOLMOD, so the two agree on what the file holds.
 *
 * The files come from other programs: the reader is bounded (regular files
 * only, limited sizes and line lengths, checked before allocating) and its
 * messages never quote the file's bytes, which may be binary.
 */
#define _POSIX_C_SOURCE 200809L

#include "config.h"
#include "mtx.h"
#include "outfile.h"
#include "mem.h"
#include "extlib.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>


enum mtx_format { FMT_COORD, FMT_ARRAY };

struct header {
	enum mtx_format format;
	int pattern, integer, symmetric;
	long nrow, ncol, nnz;        /* nnz: entries the file stores */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The reading state: one line at a time, of at most MTX_MAX_LINE
 * characters (CHOLMOD's reader reads lines of about that length, so a
 * longer one would be split there). */
struct scan {
	FILE *f;
	const char *path;
	long line;
	char buf[MTX_MAX_LINE + 2];
	char *err;
	size_t errlen;
};

/* Read the next line into s->buf without its end of line ("\n" or
 * "\r\n").  Returns 1 for a line, 0 at the end of the file, -1 on error
 * (message written). */
static int next_line(struct scan *s)
{
	size_t n = 0;
	int c;

	while ((c = getc(s->f)) != EOF && c != '\n') {
		if (c == '\0') {
			set_err(s->err, s->errlen, "'%s' line %ld: a NUL byte (is it a binary file?)",
			        s->path, s->line + 1);
			return -1;
		}
		if (n == MTX_MAX_LINE) {
			set_err(s->err, s->errlen, "'%s' line %ld: longer than %d characters",
			        s->path, s->line + 1, MTX_MAX_LINE);
			return -1;
		}
		s->buf[n++] = (char)c;
	}
	if (ferror(s->f)) {
		set_err(s->err, s->errlen, "'%s': read error: %s", s->path, strerror(errno));
		return -1;
	}
	if (c == EOF && n == 0)
		return 0;
	if (n > 0 && s->buf[n - 1] == '\r')
		n--;
	s->buf[n] = '\0';
	s->line++;
	return 1;
}

static int is_blank_line(const char *p)
{
	p += strspn(p, " \t");
	return *p == '\0';
}

/* The next line that is neither a comment nor blank. */
static int next_data(struct scan *s)
{
	int r;

	while ((r = next_line(s)) == 1)
		if (s->buf[0] != '%' && !is_blank_line(s->buf))
			return 1;
	return r;
}

/* Split p into at most max blank-separated fields; returns their count
 * (max + 1 when there are more). */
static int fields(char *p, char **f, int max)
{
	int n = 0;

	for (;;) {
		p += strspn(p, " \t");
		if (*p == '\0')
			return n;
		if (n == max)
			return max + 1;
		f[n++] = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
	}
}

/* A whole field as an integer in [lo, hi]. */
static int parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return end != s && *end == '\0' && errno == 0 && *v >= lo && *v <= hi;
}

static int banner(struct scan *s, struct header *h)
{
	char *f[6];
	int r = next_line(s), n;

	if (r < 0)
		return -1;
	if (r == 0) {
		set_err(s->err, s->errlen, "'%s' is empty: a Matrix Market file starts with "
		        "'%%%%MatrixMarket matrix ...'", s->path);
		return -1;
	}
	/* The banner word is case-sensitive and starts the line (NIST's
	 * mmio.c compares it with strncmp, and CHOLMOD reads a file without
	 * it there as a bare triplet list: a banner after a space was
	 * accepted here, then CHOLMOD's read failed with status -4); the
	 * words after it are not. */
	int at_start = s->buf[0] == '%';
	n = fields(s->buf, f, 5);
	if (n < 1 || !at_start || strcmp(f[0], "%%MatrixMarket") != 0) {
		set_err(s->err, s->errlen, "'%s' line 1: not a Matrix Market file (the first line "
		        "must start with '%%%%MatrixMarket')", s->path);
		return -1;
	}
	if (n != 5) {
		set_err(s->err, s->errlen, "'%s' line 1: the banner must read '%%%%MatrixMarket "
		        "matrix FORMAT FIELD SYMMETRY'", s->path);
		return -1;
	}
	if (strcasecmp(f[1], "matrix") != 0) {
		set_err(s->err, s->errlen, "'%s' line 1: the object must be 'matrix'", s->path);
		return -1;
	}
	if (strcasecmp(f[2], "coordinate") == 0)
		h->format = FMT_COORD;
	else if (strcasecmp(f[2], "array") == 0)
		h->format = FMT_ARRAY;
	else {
		set_err(s->err, s->errlen, "'%s' line 1: the format must be 'coordinate' or 'array'",
		        s->path);
		return -1;
	}
	h->pattern = strcasecmp(f[3], "pattern") == 0;
	h->integer = strcasecmp(f[3], "integer") == 0;
	if (strcasecmp(f[3], "complex") == 0) {
		set_err(s->err, s->errlen, "'%s' line 1: field 'complex' is not supported: an "
		        "operator's entries are real ('real' or 'integer')", s->path);
		return -1;
	}
	if (!h->pattern && !h->integer && strcasecmp(f[3], "real") != 0) {
		set_err(s->err, s->errlen, "'%s' line 1: the field must be 'real', 'integer' or "
		        "'pattern'", s->path);
		return -1;
	}
	if (h->pattern && h->format == FMT_ARRAY) {
		set_err(s->err, s->errlen, "'%s' line 1: an 'array' file cannot be 'pattern'", s->path);
		return -1;
	}
	h->symmetric = strcasecmp(f[4], "symmetric") == 0;
	if (strcasecmp(f[4], "hermitian") == 0 || strcasecmp(f[4], "skew-symmetric") == 0) {
		set_err(s->err, s->errlen, "'%s' line 1: symmetry '%s' is not supported "
		        "('general' or 'symmetric')", s->path,
		        tolower((unsigned char)f[4][0]) == 'h' ? "hermitian" : "skew-symmetric");
		return -1;
	}
	if (!h->symmetric && strcasecmp(f[4], "general") != 0) {
		set_err(s->err, s->errlen, "'%s' line 1: the symmetry must be 'general' or "
		        "'symmetric'", s->path);
		return -1;
	}
	return 0;
}

static int size_line(struct scan *s, struct header *h)
{
	char *f[4];
	int r = next_data(s), want = h->format == FMT_COORD ? 3 : 2, n;

	if (r < 0)
		return -1;
	if (r == 0) {
		set_err(s->err, s->errlen, "'%s' ends before its size line", s->path);
		return -1;
	}
	n = fields(s->buf, f, 3);
	if (n != want) {
		set_err(s->err, s->errlen, "'%s' line %ld: the size line must give %s", s->path,
		        s->line, want == 3 ? "rows, columns and entries" : "rows and columns");
		return -1;
	}
	if (!parse_long(f[0], 1, MTX_MAX_DIM, &h->nrow) || !parse_long(f[1], 1, MTX_MAX_DIM, &h->ncol)) {
		set_err(s->err, s->errlen, "'%s' line %ld: rows and columns must be whole numbers "
		        "from 1 to %ld", s->path, s->line, MTX_MAX_DIM);
		return -1;
	}
	if (h->symmetric && h->nrow != h->ncol) {
		set_err(s->err, s->errlen, "'%s' line %ld: a symmetric matrix must be square, "
		        "not %ld x %ld", s->path, s->line, h->nrow, h->ncol);
		return -1;
	}
	if (h->format == FMT_ARRAY) {
		/* Entries the file stores: the lower triangle when symmetric. */
		if (h->symmetric ? h->nrow > 14000 : h->nrow > MTX_MAX_NNZ / h->ncol) {
			set_err(s->err, s->errlen, "'%s' line %ld: an array of more than %ld entries "
			        "is too large", s->path, s->line, MTX_MAX_NNZ);
			return -1;
		}
		h->nnz = h->symmetric ? h->nrow * (h->nrow + 1) / 2 : h->nrow * h->ncol;
		return 0;
	}
	/* Duplicates are allowed (they are summed), so the count is bounded by
	 * the limit rather than by the matrix's size. */
	if (!parse_long(f[2], 0, MTX_MAX_NNZ, &h->nnz)) {
		set_err(s->err, s->errlen, "'%s' line %ld: the number of entries must be a whole "
		        "number from 0 to %ld", s->path, s->line, MTX_MAX_NNZ);
		return -1;
	}
	return 0;
}

/* A whole field as a finite number (C locale). */
static int value(struct scan *s, const char *txt, int integer, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(txt, &end);
	/* decimal only (the Matrix Market format's numbers): not strtod's
	 * hexadecimal (0x10) */
	if (end == txt || *end != '\0' || strpbrk(txt, "xXpP")) {
		set_err(s->err, s->errlen, "'%s' line %ld: %s: the value is not a number",
		        s->path, s->line, what);
		return -1;
	}
	if (!isfinite(v)) {
		set_err(s->err, s->errlen, "'%s' line %ld: %s: the value is not finite",
		        s->path, s->line, what);
		return -1;
	}
	/* CHOLMOD's reader takes a magnitude of 1e308 or more for infinity,
	 * so such an entry, finite as a double, came back infinite, and
	 * duplicates 1e308 and -1e308 as NaN ("summed over its duplicates,
	 * is not finite" of entries whose sum is 0) */
	if (fabs(v) >= 1e308) {
		set_err(s->err, s->errlen, "'%s' line %ld: %s: %s is too large: the reader (CHOLMOD's) takes "
		        "a magnitude of 1e308 or more for infinity", s->path, s->line, what, txt);
		return -1;
	}
	if (integer && v != floor(v)) {
		set_err(s->err, s->errlen, "'%s' line %ld: %s: the value is not an integer "
		        "(the file's field is 'integer')", s->path, s->line, what);
		return -1;
	}
	return 0;
}

/* Check every entry of the file after its size line. */
static int entries(struct scan *s, const struct header *h)
{
	long sizeline = s->line, k;
	char *f[4], what[80];
	int want = h->format == FMT_ARRAY ? 1 : h->pattern ? 2 : 3, r, n;

	for (k = 0; k < h->nnz; k++) {
		r = next_data(s);
		if (r < 0)
			return -1;
		if (r == 0) {
			set_err(s->err, s->errlen, "'%s' is truncated: it ends after %ld of the %ld "
			        "entries declared on line %ld", s->path, k, h->nnz, sizeline);
			return -1;
		}
		n = fields(s->buf, f, 3);
		if (n != want) {
			set_err(s->err, s->errlen, "'%s' line %ld: an entry must be %s", s->path,
			        s->line, want == 1 ? "one value" : want == 2 ? "'row column'" :
			        "'row column value'");
			return -1;
		}
		if (h->format == FMT_ARRAY) {
			snprintf(what, sizeof what, "entry %ld", k + 1);
			if (value(s, f[0], h->integer, what))
				return -1;
			continue;
		}
		long i, j;
		if (!parse_long(f[0], LONG_MIN, LONG_MAX, &i) || !parse_long(f[1], LONG_MIN, LONG_MAX, &j)) {
			set_err(s->err, s->errlen, "'%s' line %ld: the row and column must be whole "
			        "numbers", s->path, s->line);
			return -1;
		}
		if (i < 1 || i > h->nrow || j < 1 || j > h->ncol) {
			set_err(s->err, s->errlen, "'%s' line %ld: entry (%ld, %ld) is out of range: "
			        "the matrix is %ld x %ld", s->path, s->line, i, j, h->nrow, h->ncol);
			return -1;
		}
		if (h->symmetric && i < j) {
			set_err(s->err, s->errlen, "'%s' line %ld: entry (%ld, %ld) is above the "
			        "diagonal: a symmetric file stores the lower triangle", s->path,
			        s->line, i, j);
			return -1;
		}
		snprintf(what, sizeof what, "entry (%ld, %ld)", i, j);
		if (!h->pattern && value(s, f[2], h->integer, what))
			return -1;
	}
	r = next_data(s);
	if (r < 0)
		return -1;
	if (r > 0) {
		set_err(s->err, s->errlen, "'%s' line %ld: more entries than the %ld declared on "
		        "line %ld", s->path, s->line, h->nnz, sizeline);
		return -1;
	}
	return 0;
}

/* Copy CHOLMOD's compressed columns into malloc'ed arrays the caller owns
 * (it then needs nothing from CHOLMOD). */
static int take(const char *path, cholmod_sparse *A, const struct header *h, struct mtx_csc *a,
                char *err, size_t errlen)
{
	const int *p = A->p, *i = A->i, *nz = A->nz;
	const double *x = A->x;
	long k = 0;

	a->nrow = (int)A->nrow;
	a->ncol = (int)A->ncol;
	a->symmetric = h->symmetric;
	a->pattern = h->pattern;
	a->colptr = mem_alloc(sizeof *a->colptr * ((size_t)a->ncol + 1));
	a->nnz = 0;
	for (int j = 0; j < a->ncol; j++)
		a->nnz += A->packed ? p[j + 1] - p[j] : nz[j];
	a->rowind = mem_alloc(sizeof *a->rowind * ((size_t)a->nnz + 1));
	a->val = mem_alloc(sizeof *a->val * ((size_t)a->nnz + 1));
	if (!a->colptr || !a->rowind || !a->val) {
		set_err(err, errlen, "'%s': out of memory for %ld entries", path, a->nnz);
		return -1;
	}
	for (int j = 0; j < a->ncol; j++) {
		long end = A->packed ? p[j + 1] : p[j] + nz[j];
		a->colptr[j] = k;
		for (long q = p[j]; q < end; q++, k++) {
			a->rowind[k] = i[q];
			a->val[k] = x && A->xtype == CHOLMOD_REAL ? x[q] : 1.0;
			/* Summed duplicates can overflow although every entry is
			 * finite. */
			if (!isfinite(a->val[k])) {
				set_err(err, errlen, "'%s': entry (%d, %d), summed over its duplicates, "
				        "is not finite", path, i[q] + 1, j + 1);
				return -1;
			}
		}
	}
	a->colptr[a->ncol] = k;
	return 0;
}

static int read_checked(FILE *f, const char *path, const struct header *h, struct mtx_csc *a,
                        char *err, size_t errlen)
{
	const struct extlib_cholmod *cm = extlib_cholmod();
	cholmod_common c;
	cholmod_sparse *A = NULL;
	void *m;
	int mtype = -1, r = -1;

	if (!cm->cholmod_start(&c)) {
		set_err(err, errlen, "'%s': cannot start CHOLMOD", path);
		return -1;
	}
	c.print = 0;            /* its messages go to our err, not stderr */
	c.error_handler = NULL;
	rewind(f);
	/* prefer = 1: a symmetric matrix comes back with both triangles. */
	m = cm->cholmod_read_matrix(f, 1, &mtype, &c);
	if (m && mtype == CHOLMOD_DENSE) {
		cholmod_dense *X = m;
		A = cm->cholmod_dense_to_sparse(X, 1, &c);
		cm->cholmod_free_dense(&X, &c);
	} else if (m && mtype == CHOLMOD_SPARSE) {
		A = m;
	} else if (m && mtype == CHOLMOD_TRIPLET) {
		cholmod_triplet *T = m;
		A = cm->cholmod_triplet_to_sparse(T, 0, &c);
		cm->cholmod_free_triplet(&T, &c);
	}
	if (A && A->stype != 0) {
		cholmod_sparse *B = cm->cholmod_copy(A, 0, 1, &c);
		cm->cholmod_free_sparse(&A, &c);
		A = B;
	}
	if (!A)
		set_err(err, errlen, "'%s': CHOLMOD could not read the matrix (status %d)", path, c.status);
	else if ((long)A->nrow != h->nrow || (long)A->ncol != h->ncol)
		set_err(err, errlen, "'%s': CHOLMOD read a %ld x %ld matrix, the file declares %ld x %ld",
		        path, (long)A->nrow, (long)A->ncol, h->nrow, h->ncol);
	else
		r = take(path, A, h, a, err, errlen);
	cm->cholmod_free_sparse(&A, &c);
	cm->cholmod_finish(&c);
	return r;
}

int mtx_read(const char *path, struct mtx_csc *a, char *err, size_t errlen)
{
	struct scan *s;
	struct header h = { 0 };
	struct stat st;
	locale_t cl, old = (locale_t)0;
	FILE *f;
	int fd, r;
	char name[256];

	memset(a, 0, sizeof *a);
	/* The name comes from a script: shown with its control characters
	 * escaped, as table() does. */
	rt_escape(name, sizeof name, path);
	path = name;
	/* A directory, a FIFO or a device is not a matrix, and reading one
	 * could block or never end: open without waiting for a FIFO's writer,
	 * and read only a regular file. */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		set_err(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		set_err(err, errlen, "'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	/* The entries are bounded when the size line is read; this bounds the
	 * comments and blank lines too. */
	if (st.st_size > MTX_MAX_BYTES) {
		set_err(err, errlen, "'%s' is larger than %d GiB", path, (int)(MTX_MAX_BYTES >> 30));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (!f) {
		set_err(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	s = mem_alloc(sizeof *s);
	if (!s) {
		set_err(err, errlen, "'%s': out of memory", path);
		fclose(f);
		return -1;
	}
	s->f = f;
	s->path = path;
	s->line = 0;
	s->err = err;
	s->errlen = errlen;
	/* Data files always use '.', whatever the user's locale. */
	cl = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (cl != (locale_t)0)
		old = uselocale(cl);
	r = banner(s, &h) || size_line(s, &h) || entries(s, &h) ? -1 : 0;
	if (r == 0)
		r = read_checked(f, path, &h, a, err, errlen);
	if (cl != (locale_t)0) {
		uselocale(old);
		freelocale(cl);
	}
	free(s);
	fclose(f);
	if (r)
		mtx_free(a);
	return r;
}

void mtx_free(struct mtx_csc *a)
{
	free(a->colptr);
	free(a->rowind);
	free(a->val);
	a->colptr = NULL;
	a->rowind = NULL;
	a->val = NULL;
	a->nnz = 0;
}
