/* fe_output.h — the field records of a run (ir.h, struct
 * ir_field_output): VTU files of a field at chosen steps and the PVD
 * that indexes them by time, for ParaView. */
#ifndef DYN_FE_OUTPUT_H
#define DYN_FE_OUTPUT_H

#include <stddef.h>

#include "ir.h"

struct rt_field_out {
	const struct ir_field_output *o;
	double *val;            /* nnode × ncomp values of a frame */
	int nframe, cap;        /* frames written; at most cap */
	char **file;            /* cap names, relative to the PVD's folder */
	char **path;            /* cap paths to write */
	double *t;              /* cap times */
	/* on several processes (dyn(1), MPI): a frame is a .pvtu (rank 0's)
	 * naming one .vtu piece per process, each written by its own:
	 * piece[r] the path of rank r's piece, pname[r] its name in the
	 * .pvtu */
	int npiece;
	char **piece;
	const char **pname;
};

/* Prepare the writer for a run of nstep steps: every name and buffer is
 * allocated here, none while stepping.  -1 with a message in err. */
int rt_field_out_open(struct rt_field_out *w, const struct ir_field_output *o, int nstep, char *err,
                      size_t errlen);
/* Write the frame of step k at time t from the dofs u (a VTU file, then
 * the PVD rewritten whole), when k is one of the recorded steps; on P
 * processes a .pvtu and P pieces, piece r the cells r·nc/P ≤ c <
 * (r + 1)·nc/P written by rank r.  -1 with a message in err. */
int rt_field_out_step(struct rt_field_out *w, int k, int nstep, double t, const double *u, char *err,
                      size_t errlen);
/* The name of rank's piece in the last frame written, or NULL (one
 * process, no frame yet): what rank 0 names when another process could
 * not write its piece (runtime/run.c, shared_failure). */
const char *rt_field_out_piece(const struct rt_field_out *w, int rank);
void rt_field_out_free(struct rt_field_out *w);

#endif
