/* part.c — the rows of an explicit step partitioned across MPI processes
 * (part.h; dyn(1), MPI). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "la_impl.h"
#include "part.h"
#include "mem.h"

void rt_part_free(struct rt_part *p)
{
	free(p->count);
	free(p->displ);
	if (!p->borrowed) {
		free(p->kp);
		free(p->ki);
		free(p->kx);
	}
	rt_exchange_free(&p->gh);
	free(p->gidx);
	free(p->gown);
	free(p->gscount);
	free(p->gsdispl);
	free(p->grcount);
	free(p->grdispl);
	free(p->gsbuf);
	free(p->grbuf);
	memset(p, 0, sizeof *p);
}

/* The process owning row i (the blocks are contiguous and ascending) */
int rt_part_owner(const struct rt_part *p, int i)
{
	int lo = 0, hi = p->P - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (p->displ[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static int ghosts(struct rt_part *p);
static int part_of_columns(struct rt_part *p, const struct la_mat *K);

/* Blocks of about equal numbers of entries of K: the work of a step is
 * its product's, and a mesh's border rows have fewer entries. */
static void split(struct rt_part *p, const int *per_col)
{
	long long total = 0, run = 0;
	for (int j = 0; j < p->n; j++)
		total += per_col[j] + 1;   /* + 1: the row's own vector work */
	int r = 1;
	p->displ[0] = 0;
	for (int j = 0; j < p->n && r < p->P; j++) {
		run += per_col[j] + 1;
		while (r < p->P && run * p->P >= total * r)
			p->displ[r++] = j + 1;
	}
	while (r < p->P)
		p->displ[r++] = p->n;
	for (int q = 0; q < p->P; q++)
		p->count[q] = (q + 1 < p->P ? p->displ[q + 1] : p->n) - p->displ[q];
}

int rt_part_init(struct rt_part *p, const struct la_mat *K, int P, int rank)
{
	memset(p, 0, sizeof *p);
	int n = K->n;
	p->n = n;
	p->P = P;
	p->rank = rank;
	int *row = NULL, *col = NULL, *per = NULL;
	if (K->part)
		return part_of_columns(p, K);
	if (la_entries(K, &row, &col))
		goto oom;
	if (K->kind == LA_MAT_DENSE)
		la_entries_in_band(K, row, col);
	p->count = mem_alloc(sizeof(int) * (size_t)P);
	p->displ = mem_alloc(sizeof(int) * (size_t)P);
	per = mem_calloc((size_t)n + 1, sizeof(int));
	if (!p->count || !p->displ || !per)
		goto oom;
	for (size_t e = 0; e < K->nx; e++)
		if (row[e] >= 0)
			per[col[e]]++;
	split(p, per);
	p->r0 = p->displ[rank];
	p->r1 = p->r0 + p->count[rank];
	int r0 = p->r0, no = p->r1 - p->r0;
	/* the owned columns, compressed: counts, offsets, then the rows,
	 * sorted within each column */
	p->kp = mem_calloc((size_t)no + 1, sizeof(int));
	if (!p->kp)
		goto oom;
	for (int j = 0; j < no; j++)
		p->kp[j + 1] = p->kp[j] + per[r0 + j];
	size_t nnz = (size_t)p->kp[no];
	p->ki = mem_alloc(sizeof(int) * (nnz + 1));
	p->kx = mem_alloc(sizeof(double) * (nnz + 1));
	if (!p->ki || !p->kx)
		goto oom;
	memcpy(per, p->kp, sizeof(int) * (size_t)no);   /* the next slot of each column */
	for (size_t e = 0; e < K->nx; e++)
		if (row[e] >= 0 && col[e] >= r0 && col[e] < p->r1) {
			int k = per[col[e] - r0]++;
			p->ki[k] = row[e];
			p->kx[k] = K->x[e];
		}
	for (int j = 0; j < no; j++)
		for (int k = p->kp[j] + 1; k < p->kp[j + 1]; k++)   /* insertion sort: a column is short */
			for (int q = k; q > p->kp[j] && p->ki[q - 1] > p->ki[q]; q--) {
				int ti = p->ki[q];
				double tx = p->kx[q];
				p->ki[q] = p->ki[q - 1];
				p->kx[q] = p->kx[q - 1];
				p->ki[q - 1] = ti;
				p->kx[q - 1] = tx;
			}
	free(row);
	free(col);
	free(per);
	row = col = per = NULL;
	if (ghosts(p))
		goto oom;
	return 0;
oom:
	free(row);
	free(col);
	free(per);
	rt_part_free(p);
	return -1;
}

/* The ghosts of the owned columns kp, ki: the rows received from each
 * process and sent to each.  0, or -1 when out of memory. */
static int ghosts(struct rt_part *p)
{
	int n = p->n, P = p->P, rank = p->rank, r0 = p->r0, no = p->r1 - p->r0;
	size_t nnz = (size_t)p->kp[no];
	char *mark = NULL;
	p->gh.scount = mem_calloc((size_t)P, sizeof(int));
	p->gh.sdispl = mem_calloc((size_t)P, sizeof(int));
	p->gh.rcount = mem_calloc((size_t)P, sizeof(int));
	p->gh.rdispl = mem_calloc((size_t)P, sizeof(int));
	if (!p->gh.scount || !p->gh.sdispl || !p->gh.rcount || !p->gh.rdispl)
		goto oom;
	/* received: the rows outside the block that its columns reach,
	 * ascending, hence grouped by owner */
	mark = mem_calloc((size_t)n, 1);
	if (!mark)
		goto oom;
	int nr = 0;
	for (size_t k = 0; k < nnz; k++) {
		int i = p->ki[k];
		if ((i < r0 || i >= p->r1) && !mark[i]) {
			mark[i] = 1;
			nr++;
		}
	}
	p->gh.ridx = mem_alloc(sizeof(int) * ((size_t)nr + 1));
	if (!p->gh.ridx)
		goto oom;
	nr = 0;
	for (int i = 0; i < n; i++)
		if (mark[i]) {
			p->gh.ridx[nr++] = i;
			p->gh.rcount[rt_part_owner(p, i)]++;
		}
	p->gh.nrecv = nr;
	/* sent: to each process, the owned rows whose columns reach its
	 * rows — by symmetry, exactly the ghosts it receives from this one,
	 * in the same ascending order */
	int ns = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (int q = 1; q < P; q++)
				p->gh.sdispl[q] = p->gh.sdispl[q - 1] + p->gh.scount[q - 1];
			ns = p->gh.sdispl[P - 1] + p->gh.scount[P - 1];
			p->gh.sidx = mem_alloc(sizeof(int) * ((size_t)ns + 1));
			if (!p->gh.sidx)
				goto oom;
			memset(p->gh.scount, 0, sizeof(int) * (size_t)P);
		}
		for (int j = 0; j < no; j++) {
			int last = -1;
			for (int k = p->kp[j]; k < p->kp[j + 1]; k++) {
				int q = rt_part_owner(p, p->ki[k]);
				if (q == rank || q == last)
					continue;
				last = q;   /* rows ascending: owners too */
				if (pass == 1)
					p->gh.sidx[p->gh.sdispl[q] + p->gh.scount[q]] = r0 + j;
				p->gh.scount[q]++;
			}
		}
	}
	p->gh.nsend = ns;
	for (int q = 1; q < P; q++)
		p->gh.rdispl[q] = p->gh.rdispl[q - 1] + p->gh.rcount[q - 1];
	p->gh.sbuf = mem_alloc(sizeof(double) * ((size_t)ns + 1));
	p->gh.rbuf = mem_alloc(sizeof(double) * ((size_t)nr + 1));
	if (!p->gh.sbuf || !p->gh.rbuf)
		goto oom;
	free(mark);
	return 0;
oom:
	free(mark);
	return -1;
}

/* rt_part_init of a part (la.h): the rows are the columns this process
 * assembled, which the partition reads in place (p->borrowed): their
 * pointers from column c0 on start at 0, the other columns being empty */
static int part_of_columns(struct rt_part *p, const struct la_mat *K)
{
	int P = p->P;
	p->count = mem_alloc(sizeof(int) * (size_t)P);
	p->displ = mem_alloc(sizeof(int) * (size_t)P);
	if (!p->count || !p->displ || K->p[K->c0] != 0)
		goto fail;
	memcpy(p->count, K->pcount, sizeof(int) * (size_t)P);
	memcpy(p->displ, K->pdispl, sizeof(int) * (size_t)P);
	p->r0 = K->c0;
	p->r1 = K->c1;
	p->kp = K->p + K->c0;
	p->ki = K->i;
	p->kx = K->x;
	p->borrowed = 1;
	if (ghosts(p))
		goto fail;
	return 0;
fail:
	rt_part_free(p);
	return -1;
}

int rt_exchange_run(struct rt_exchange *e, double *x)
{
	for (int k = 0; k < e->nsend; k++)
		e->sbuf[k] = x[e->sidx[k]];
	if (la_mpi_exchange(e->sbuf, e->scount, e->sdispl, e->rbuf, e->rcount, e->rdispl))
		return -1;
	for (int k = 0; k < e->nrecv; k++)
		x[e->ridx[k]] = e->rbuf[k];
	return 0;
}

void rt_exchange_free(struct rt_exchange *e)
{
	free(e->scount);
	free(e->sdispl);
	free(e->sidx);
	free(e->rcount);
	free(e->rdispl);
	free(e->ridx);
	free(e->sbuf);
	free(e->rbuf);
	memset(e, 0, sizeof *e);
}

int rt_part_exchange(struct rt_part *p, double *x)
{
	return rt_exchange_run(&p->gh, x);
}

int rt_part_gather(struct rt_part *p, double *x)
{
	return la_mpi_gather(x, p->count, p->displ);
}

int rt_part_gather_plan(struct rt_part *p, const int *idx, int n)
{
	int P = p->P;
	p->gidx = mem_alloc(sizeof(int) * ((size_t)n + 1));
	p->gown = mem_alloc(sizeof(int) * ((size_t)n + 1));
	p->gscount = mem_calloc((size_t)P, sizeof(int));
	p->gsdispl = mem_calloc((size_t)P, sizeof(int));
	p->grcount = mem_calloc((size_t)P, sizeof(int));
	p->grdispl = mem_calloc((size_t)P, sizeof(int));
	p->gsbuf = mem_alloc(sizeof(double) * (3 * (size_t)n + 1));
	p->grbuf = mem_alloc(sizeof(double) * (3 * (size_t)n + 1));
	if (!p->gidx || !p->gown || !p->gscount || !p->gsdispl || !p->grcount || !p->grdispl || !p->gsbuf ||
	    !p->grbuf)
		return -1;
	p->ng = n;
	p->nown = 0;
	memcpy(p->gidx, idx, sizeof(int) * (size_t)n);
	/* ascending rows: each owner's in one run, in rank order, which is
	 * how MPI_Alltoallv lays out what it receives */
	for (int k = 0; k < n; k++) {
		int q = rt_part_owner(p, idx[k]);
		p->grcount[q] += 3;
		if (q == p->rank)
			p->gown[p->nown++] = idx[k];
	}
	for (int q = 1; q < P; q++)
		p->grdispl[q] = p->grdispl[q - 1] + p->grcount[q - 1];
	/* the same owned triples to every process (the offsets all 0) */
	for (int q = 0; q < P; q++)
		p->gscount[q] = 3 * p->nown;
	return 0;
}

int rt_part_gather_rows(struct rt_part *p, double *u, double *v, double *a)
{
	for (int k = 0; k < p->nown; k++) {
		int i = p->gown[k];
		p->gsbuf[3 * k] = u[i];
		p->gsbuf[3 * k + 1] = v[i];
		p->gsbuf[3 * k + 2] = a[i];
	}
	if (la_mpi_exchange(p->gsbuf, p->gscount, p->gsdispl, p->grbuf, p->grcount, p->grdispl))
		return -1;
	for (int k = 0; k < p->ng; k++) {
		int i = p->gidx[k];
		u[i] = p->grbuf[3 * k];
		v[i] = p->grbuf[3 * k + 1];
		a[i] = p->grbuf[3 * k + 2];
	}
	return 0;
}

/* rt_part_lambda_max's operators on the owned rows (la.h's la_eigmax_ops
 * with sum): x of the whole length for the ghosts of each product */
struct part_pencil {
	struct rt_part *p;
	const double *m;
	double *x;
	int failed;
};

static void pp_kmul(void *ctx, const double *q, double *y)
{
	struct part_pencil *c = ctx;
	struct rt_part *p = c->p;
	memcpy(c->x + p->r0, q, sizeof(double) * (size_t)(p->r1 - p->r0));
	if (rt_part_exchange(p, c->x)) {
		c->failed = 1;
		for (int j = p->r0; j < p->r1; j++)
			y[j - p->r0] = NAN;
		return;
	}
	for (int j = p->r0; j < p->r1; j++)
		y[j - p->r0] = rt_part_row_dot(p, j, c->x);
}

static double pp_mdot(void *ctx, const double *q)
{
	struct part_pencil *c = ctx;
	double s = 0;
	for (int j = c->p->r0; j < c->p->r1; j++)
		s += c->m[j] * q[j - c->p->r0] * q[j - c->p->r0];
	if (la_mpi_sum(&s, 1))
		return NAN;
	return s;
}

static int pp_msolve(void *ctx, double *b)
{
	struct part_pencil *c = ctx;
	for (int j = c->p->r0; j < c->p->r1; j++)
		b[j - c->p->r0] /= c->m[j];
	return 0;
}

int rt_part_lambda_max(struct rt_part *p, const double *m, double *work, int maxit, double rtol, double *lmax)
{
	struct part_pencil c = { p, m, work, 0 };
	memset(work, 0, sizeof(double) * (size_t)p->n);
	struct la_eigmax_ops ops = { &c, pp_kmul, pp_mdot, pp_msolve, la_mpi_sum, p->r0, p->n };
	int rc = la_eig_max(p->r1 - p->r0, &ops, maxit, rtol, lmax, NULL);
	return c.failed ? -2 : rc;
}
