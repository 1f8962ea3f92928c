/* mtx.h — operators (mass, damping, stiffness matrices) read from Matrix
 * Market files, as finite-element codes (code_aster, Abaqus, ANSYS) export
 * them.  The result is a compressed-column matrix, the form a sparse
 * linear-algebra layer takes directly; a caller that needs a dense matrix
 * converts it itself. */
#ifndef DYN_MTX_H
#define DYN_MTX_H

#include <stddef.h>

/* Limits on what is read: a file beyond them is refused before anything
 * large is allocated. */
#define MTX_MAX_DIM   10000000L    /* rows or columns */
#define MTX_MAX_NNZ   100000000L   /* stored entries */
#define MTX_MAX_LINE  1024         /* characters on one line */
#define MTX_MAX_BYTES (4LL << 30)  /* the whole file: 10^8 entries of ~40 bytes */

/* A real matrix in compressed-column form: the entries of column j are
 * rowind[k], val[k] for colptr[j] <= k < colptr[j+1] (0-based).  A
 * symmetric file is expanded: both triangles are stored.  Duplicate
 * entries of a coordinate file are summed.  For a pattern file every value
 * is 1 and pattern is set. */
struct mtx_csc {
	int nrow, ncol;
	long nnz;
	int symmetric;   /* the file declared symmetric storage */
	int pattern;     /* the file has no values (field "pattern") */
	long *colptr;    /* ncol + 1 */
	int *rowind;     /* nnz */
	double *val;     /* nnz */
};

/* Read a Matrix Market file: "coordinate" (real, integer or pattern) or
 * "array" (real or integer), "general" or "symmetric".  Only regular files
 * are read.  On success returns 0 and fills *a (free it with mtx_free); on
 * failure returns -1 and writes to err a message naming the file and, for
 * a problem inside it, the line.  The message never quotes the file's
 * bytes. */
int mtx_read(const char *path, struct mtx_csc *a, char *err, size_t errlen);

void mtx_free(struct mtx_csc *a);

#endif
