/* fe_output.h — the field records of a run (ir.h, struct
 * ir_field_output): VTU files of a field at chosen steps and the PVD
 * that indexes them by time, for ParaView. */
#ifndef DYN_FE_OUTPUT_H
#define DYN_FE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "part.h"

struct rt_field_out {
	const struct ir_field_output *o;
	double *val;            /* nnode × ncomp values of a frame */
	int nframe, cap;        /* frames written; at most cap */
	int last_k;             /* the step of the last frame */
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
	/* a run whose processes step their own rows (rt_field_out_partition):
	 * this process's piece is the cells it owns, cells[0 .. ncell − 1],
	 * whose unknowns it owns or receives at each frame from their owners
	 * (fetch); NULL: blocks of cells, the state whole on every process */
	int32_t *cells;
	long ncell;
	struct rt_exchange fetch;
};

/* Prepare the writer for a run of nstep steps: every name and buffer is
 * allocated here, none while stepping.  -1 with a message in err. */
int rt_field_out_open(struct rt_field_out *w, const struct ir_field_output *o, int nstep, char *err,
                      size_t errlen);
/* On P processes each stepping its own rows (part.h): each
 * process's piece becomes the cells it owns, a cell being owned by the
 * owner of its lowest unknown (of none: by blocks of cells), and each
 * frame brings it the values of their other unknowns from their owners
 * instead of the whole state.  Every process computes every other's
 * share from the mesh, which it holds whole: no message.  -1 with a
 * message in err (out of memory). */
int rt_field_out_partition(struct rt_field_out *w, const struct rt_part *p, char *err, size_t errlen);
/* After rt_field_out_partition, when step k writes a frame: the
 * unknowns of this process's cells that other processes own, into u
 * from their owners.  Collective, on every process at every step, apart
 * from the writing (whose failure on one process must not leave the
 * others waiting in the exchange).  0, or -1 when MPI fails. */
int rt_field_out_fetch(struct rt_field_out *w, int k, int nstep, double *u);
/* Write the frame of step k at time t from the dofs u (a VTU file, then
 * the PVD rewritten whole), when k is one of the recorded steps; on P
 * processes a .pvtu and P pieces, piece r written by rank r: the cells
 * r·nc/P ≤ c < (r + 1)·nc/P, or after rt_field_out_partition rank r's
 * own cells (rt_field_out_fetch first).  -1 with a message in err. */
int rt_field_out_step(struct rt_field_out *w, int k, int nstep, double t, const double *u, char *err,
                      size_t errlen);
/* Step k's frame out of the series when it is the last one written:
 * another process could not write its piece (runtime/run.c,
 * shared_failure), and the .pvd ends with the frame before, as when the
 * file of a single process fails.  -1 with a message in err. */
int rt_field_out_drop(struct rt_field_out *w, int k, char *err, size_t errlen);
/* The name of rank's piece in the last frame written, or NULL (one
 * process, no frame yet): what rank 0 names when another process could
 * not write its piece (runtime/run.c, shared_failure). */
const char *rt_field_out_piece(const struct rt_field_out *w, int rank);
void rt_field_out_free(struct rt_field_out *w);

#endif
