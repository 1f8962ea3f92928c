/* test_mtx.c — unit tests of runtime/mtx.c: the forms of Matrix Market
 * file accepted and the compressed columns they give (symmetric files
 * expanded, duplicates summed, pattern values 1, blank and comment lines,
 * CRLF).  The error messages are checked by tests/shell/mtx_errors.sh
 * through dyn.  Temporary files are written into the current directory as
 * test_mtx_tmp.mtx and removed at the end.  Exit status 0 when every check
 * passes, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L

#include "mtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static const char *tmp = "test_mtx_tmp.mtx";

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

/* Read text as a file into *a; returns mtx_read's status. */
static int read_text(const char *text, struct mtx_csc *a, char *err, size_t errlen)
{
	FILE *f = fopen(tmp, "w");

	if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", tmp);
		exit(1);
	}
	return mtx_read(tmp, a, err, errlen);
}

/* The dense n×n (column-major) form of a, or NULL when a is not n×n. */
static double *dense(const struct mtx_csc *a, int n)
{
	double *d;

	if (a->nrow != n || a->ncol != n)
		return NULL;
	d = calloc((size_t)n * n, sizeof *d);
	if (!d)
		exit(1);
	for (int j = 0; j < n; j++)
		for (long k = a->colptr[j]; k < a->colptr[j + 1]; k++)
			d[a->rowind[k] + (size_t)j * n] += a->val[k];
	return d;
}

/* The file's matrix must be exactly want (3×3, row-major as written).
 * Values are small integers and halves: exact in binary, so equality. */
static void expect(const char *what, const char *text, const double want[9], int pattern)
{
	struct mtx_csc a;
	char err[512] = "";
	double *d;

	if (read_text(text, &a, err, sizeof err)) {
		fprintf(stderr, "%s: refused: %s\n", what, err);
		failures++;
		return;
	}
	CHECK(a.pattern == pattern);
	d = dense(&a, 3);
	CHECK(d != NULL);
	for (int i = 0; d && i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (d[i + 3 * j] != want[3 * i + j]) {
				fprintf(stderr, "%s: entry (%d, %d) = %g, expected %g\n", what, i + 1, j + 1,
				        d[i + 3 * j], want[3 * i + j]);
				failures++;
			}
	/* Each stored entry once: CSC has no duplicate (i, j). */
	for (int j = 0; d && j < 3; j++)
		for (long k = a.colptr[j]; k < a.colptr[j + 1]; k++)
			for (long q = k + 1; q < a.colptr[j + 1]; q++)
				CHECK(a.rowind[k] != a.rowind[q]);
	free(d);
	mtx_free(&a);
}

int main(void)
{
	static const double chain[9] = { 2, -1, 0, -1, 2, -1, 0, -1, 1 };
	static const double unsym[9] = { 1, 2, 0, 0, 3, 0, 4, 0, 5 };
	static const double pat[9] = { 1, 0, 0, 1, 1, 0, 0, 0, 1 };
	struct mtx_csc a;
	char err[512];

	expect("symmetric coordinate",
	       "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n"
	       "1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n3 3 1\n", chain, 0);
	expect("duplicates summed",
	       "%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n"
	       "1 1 2\n2 1 -0.5\n2 2 0.5\n2 1 -0.5\n3 2 -1\n3 3 1\n2 2 1.5\n", chain, 0);
	expect("general coordinate, both triangles",
	       "%%MatrixMarket matrix coordinate real general\n3 3 7\n"
	       "1 1 2\n2 1 -1\n1 2 -1\n2 2 2\n3 2 -1\n2 3 -1\n3 3 1\n", chain, 0);
	expect("unsymmetric",
	       "%%MatrixMarket matrix coordinate integer general\n3 3 5\n"
	       "1 1 1\n1 2 2\n2 2 3\n3 1 4\n3 3 5\n", unsym, 0);
	expect("pattern",
	       "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n"
	       "1 1\n2 1\n2 2\n3 3\n", pat, 1);
	expect("array general (column by column)",
	       "%%MatrixMarket matrix array real general\n3 3\n1\n0\n4\n2\n3\n0\n0\n0\n5\n", unsym, 0);
	expect("array symmetric (lower triangle)",
	       "%%MatrixMarket matrix array real symmetric\n3 3\n2\n-1\n0\n2\n-1\n1\n", chain, 0);
	expect("comments, blank lines, CRLF, case",
	       "%%MatrixMarket MATRIX Coordinate Real Symmetric\r\n% a comment\r\n\r\n"
	       "  3 3 5 \r\n1 1 2\r\n% between entries\r\n2 1 -1\r\n\r\n2 2 2\r\n"
	       "3 2 -1\r\n3 3 1", chain, 0);

	/* An explicit zero and an empty matrix are fine. */
	CHECK(read_text("%%MatrixMarket matrix coordinate real general\n2 2 0\n", &a, err, sizeof err) == 0);
	CHECK(a.nnz == 0 && a.nrow == 2 && a.ncol == 2 && a.colptr[2] == 0);
	mtx_free(&a);
	/* The banner word is case-sensitive, as in NIST's mmio.c: CHOLMOD
	 * would read this file as a bare triplet list. */
	CHECK(read_text("%%matrixmarket matrix coordinate real symmetric\n2 2 1\n1 1 1\n", &a, err, sizeof err) == -1);
	CHECK(strstr(err, "not a Matrix Market file") != NULL);
	/* ... and starts the line: after a space CHOLMOD's reader failed
	 * (status -4) on what the banner check had accepted */
	CHECK(read_text(" %%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 1 1\n", &a, err, sizeof err) == -1);
	CHECK(strstr(err, "not a Matrix Market file") != NULL);
	/* Refused forms leave nothing to free. */
	CHECK(read_text("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", &a, err, sizeof err) == -1);
	CHECK(strstr(err, "above the diagonal") != NULL);
	CHECK(a.colptr == NULL && a.val == NULL);
	remove(tmp);
	return failures ? 1 : 0;
}
