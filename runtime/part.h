/* part.h — the rows of an explicit step partitioned across MPI processes
 * (dyn(1), MPI).
 *
 * The unknowns are split into P contiguous blocks of about equal work
 * (entries of K); process r owns the rows of block r: it steps them, and
 * forms their rows of K x from its own columns of K (K is symmetric: row
 * j is column j).  Those columns reach rows that other processes own, the
 * ghosts, whose values come from their owners at each exchange
 * (rt_part_exchange); the vectors stay whole on every process, current
 * on the owned rows and the ghosts, until rt_part_gather makes them
 * whole again (for the records).  Both are collective: every process
 * calls them at the same step. */
#ifndef DYN_PART_H
#define DYN_PART_H

#include "la.h"

/* One exchange of rows between the processes: to each process q the
 * rows sidx[sdispl[q] ..] of scount[q] (nsend in all), from it the rows
 * ridx[rdispl[q] ..] of rcount[q] (nrecv), through sbuf and rbuf: the
 * ghosts of a partition (rt_part), a field record's (fe_output.h) */
struct rt_exchange {
	int *scount, *sdispl, *sidx, nsend;
	int *rcount, *rdispl, *ridx, nrecv;
	double *sbuf, *rbuf;
};

/* x[ridx] from their owners' x[sidx].  Collective.  0, or -1 when MPI
 * fails. */
int rt_exchange_run(struct rt_exchange *e, double *x);
void rt_exchange_free(struct rt_exchange *e);

struct rt_part {
	int n, P, rank;
	int r0, r1;                   /* the owned rows r0 .. r1 − 1 */
	int *count, *displ;           /* P: each process's rows */
	/* the owned columns of K, compressed, rows ascending; borrowed:
	 * those of K itself, a part (la.h), which outlives the partition */
	int *kp, *ki;
	double *kx;
	int borrowed;
	/* the ghosts: owned rows sent to each process, rows received from
	 * each */
	struct rt_exchange gh;
	/* a few rows on every process (rt_part_gather_rows): the rows, the
	 * owned ones among them, and per process the counts and offsets of
	 * the u, v, a triples sent (the same ones to each) and received */
	int *gidx, ng, *gown, nown;
	int *gscount, *gsdispl, *grcount, *grdispl;
	double *gsbuf, *grbuf;
};

/* The partition of K's unknowns on P processes, this one being rank; K
 * symmetric (K->sym), of any kind, or a part (la.h) whose columns are
 * this process's rows.  0, or -1 when out of memory. */
int rt_part_init(struct rt_part *p, const struct la_mat *K, int P, int rank);
void rt_part_free(struct rt_part *p);

/* The process that owns row i */
int rt_part_owner(const struct rt_part *p, int i);

/* x's ghosts from their owners.  0, or -1 when MPI fails. */
int rt_part_exchange(struct rt_part *p, double *x);
/* x whole from every process's rows.  0, or -1. */
int rt_part_gather(struct rt_part *p, double *x);

/* The rows idx[0 .. n − 1] (ascending, distinct) that rt_part_gather_rows
 * brings to every process: the few that a run's records read at a step
 * (a point's nodes), instead of the whole state.  0, or -1 when out of
 * memory. */
int rt_part_gather_plan(struct rt_part *p, const int *idx, int n);
/* u, v and a of those rows from their owners, on every process: one
 * exchange of 3 values a row.  Collective.  0, or -1 when MPI fails. */
int rt_part_gather_rows(struct rt_part *p, double *u, double *v, double *a);

/* The largest eigenvalue of K φ = λ M φ, M diagonal (m, n values), by
 * Lanczos on the processes' rows (la_eig_max with sum; one exchange of
 * the ghosts per product and a few sums of one value): the serial
 * estimate up to the rounding of its sums, the same on every process,
 * at a share of its memory and time; work (n values, overwritten) holds
 * the iterate with its ghosts.  Collective.  0; -1 out of memory, -2 a
 * failed exchange or a non-finite product. */
int rt_part_lambda_max(struct rt_part *p, const double *m, double *work, int maxit, double rtol, double *lmax);

/* (K x)_j for an owned row j, the terms in ascending column order (the
 * order of la_mat_mul's, whose bits it gives for a symmetric K) */
static inline double rt_part_row_dot(const struct rt_part *p, int j, const double *x)
{
	double s = 0;
	for (int k = p->kp[j - p->r0], e = p->kp[j - p->r0 + 1]; k < e; k++)
		s += p->kx[k] * x[p->ki[k]];
	return s;
}

#endif
