/* table.h — tabulated functions of time read from CSV files (recorded
 * ground motions, sampled loads). */
#ifndef DYN_TABLE_H
#define DYN_TABLE_H

#include <stddef.h>

/* Read column col (1-based, counting the time column as 1) of a CSV file
 * whose first column is time.  An optional header row, lines starting with
 * '#', and blank lines are skipped; fields are separated by commas (and
 * optional blanks).  Numbers are read in the C locale.  Times must increase
 * strictly.  Only regular files are read, within the limits below.  On success returns 0 and malloc'ed *x, *y of *n ≥ 1 points;
 * on failure returns -1 and writes a message (with the file line when the
 * problem is in the file) to err. */
/* A table is at most 256 MiB (a 1 kHz record of a day in two columns is
 * under 4 MB; the rows take as much memory again as the text), in lines
 * of at most 1 MiB (thousands of columns): beyond, the name is taken for
 * a mistake, and reading is refused rather than filling memory. */
enum { TABLE_MAX_BYTES = 256 << 20, TABLE_MAX_LINE = 1 << 20 };

int table_read(const char *path, int col, int *n, double **x, double **y,
               char *err, size_t errlen);

/* Linear interpolation in (x, y), constant beyond the ends; *hint speeds up
 * monotone sweeps (start it at 0). */
double table_eval(int n, const double *x, const double *y, double t, int *hint);

#endif
