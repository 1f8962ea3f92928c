/* table.h — tabulated functions of time read from CSV files (recorded
 * ground motions, sampled loads). */
#ifndef DYN_TABLE_H
#define DYN_TABLE_H

#include <stddef.h>

/* Read column col (1-based, counting the time column as 1) of a CSV file
 * whose first column is time.  An optional header row, lines starting with
 * '#', and blank lines are skipped; fields are separated by commas (and
 * optional blanks).  Numbers are read in the C locale.  Times must increase
 * strictly.  On success returns 0 and malloc'ed *x, *y of *n ≥ 1 points;
 * on failure returns -1 and writes a message (with the file line when the
 * problem is in the file) to err. */
int table_read(const char *path, int col, int *n, double **x, double **y,
               char *err, size_t errlen);

/* Linear interpolation in (x, y), constant beyond the ends; *hint speeds up
 * monotone sweeps (start it at 0). */
double table_eval(int n, const double *x, const double *y, double t, int *hint);

#endif
