/* fe_output.c — field records as VTU files indexed by a PVD
 * (fe_output.h). */
#include <config.h>

#include "fe_output.h"
#include "fe_space.h"
#include "la.h"
#include "mesh.h"
#include "part.h"
#include "vtu.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_field_out_open(struct rt_field_out *w, const struct ir_field_output *o, int nstep, char *err,
                      size_t errlen)
{
	memset(w, 0, sizeof *w);
	w->o = o;
	int every = o->every > 0 ? o->every : 1;
	w->cap = nstep / every + 2;
	w->val = mem_calloc((size_t)o->nnode * (size_t)o->ncomp + 1, sizeof(double));
	w->file = mem_calloc((size_t)w->cap, sizeof *w->file);
	w->path = mem_calloc((size_t)w->cap, sizeof *w->path);
	w->t = mem_calloc((size_t)w->cap, sizeof *w->t);
	if (!w->val || !w->file || !w->path || !w->t) {
		snprintf(err, errlen, "out of memory for the field record '%s'", o->path);
		return -1;
	}
	/* u.pvd → u_000012.vtu, named by step, beside the PVD */
	size_t len = strlen(o->path);
	if (len > 4 && strcmp(o->path + len - 4, ".pvd") == 0)
		len -= 4;
	const char *slash = strrchr(o->path, '/');
	size_t dir = slash ? (size_t)(slash - o->path) + 1 : 0;
	for (int f = 0; f < w->cap; f++) {
		w->path[f] = mem_alloc(len + 32);
		if (!w->path[f]) {
			snprintf(err, errlen, "out of memory for the field record '%s'", o->path);
			return -1;
		}
		w->file[f] = w->path[f] + dir;
	}
	int P = la_mpi_size();
	if (P > 1) {
		w->npiece = P;
		w->piece = mem_calloc((size_t)P, sizeof *w->piece);
		w->pname = mem_calloc((size_t)P, sizeof *w->pname);
		if (!w->piece || !w->pname) {
			snprintf(err, errlen, "out of memory for the field record '%s'", o->path);
			return -1;
		}
		for (int r = 0; r < P; r++) {
			if (!(w->piece[r] = mem_alloc(len + 48))) {
				snprintf(err, errlen, "out of memory for the field record '%s'", o->path);
				return -1;
			}
			w->pname[r] = w->piece[r] + dir;
		}
	}
	return 0;
}

/* The cells of the grid that vtu writes: a P2 space's, or the mesh's */
static void grid_cells(const struct ir_field_output *o, const int32_t **conn, int *nv)
{
	if (o->space && o->space->family == FE_P2) {
		*conn = o->space->cell_nodes;
		*nv = o->space->nloc;
	} else {
		*conn = o->mesh->cells;
		*nv = o->mesh->nv;
	}
}

/* Cell c's owner: the owner of its lowest unknown, so that a piece's
 * cells sit on its process's rows; a cell of fixed values alone goes by
 * blocks of cells */
static int cell_owner(const struct ir_field_output *o, const int32_t *conn, int nv, long c, long nc,
                      const struct rt_part *p)
{
	long lo = -1;
	for (int v = 0; v < nv; v++) {
		long g = conn[c * nv + v];
		for (int q = 0; g < o->nnode && q < o->ncomp; q++) {
			long d = o->dof[g * o->ncomp + q];
			if (d >= 0 && d < p->n && (lo < 0 || d < lo))
				lo = d;
		}
	}
	return lo >= 0 ? rt_part_owner(p, (int)lo) : (int)(c * p->P / nc);
}

/* The unknowns of cell c into d (nv·ncomp at most; fixed values −1,
 * repeats kept): their number */
static int cell_dofs(const struct ir_field_output *o, const int32_t *conn, int nv, long c, long *d)
{
	int m = 0;
	for (int v = 0; v < nv; v++) {
		long g = conn[c * nv + v];
		for (int q = 0; g < o->nnode && q < o->ncomp; q++)
			d[m++] = o->dof[g * o->ncomp + q];
	}
	return m;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int rt_field_out_partition(struct rt_field_out *w, const struct rt_part *p, char *err, size_t errlen)
{
	const struct ir_field_output *o = w->o;
	const int32_t *conn;
	int nv, P = p->P, rank = p->rank, n = p->n, r0 = p->r0, no = p->r1 - p->r0, rc = -1;
	long nc = o->mesh->ncells;
	grid_cells(o, &conn, &nv);
	int32_t *own = mem_alloc(sizeof(int32_t) * ((size_t)nc + 1));
	int32_t *order = mem_alloc(sizeof(int32_t) * ((size_t)nc + 1));
	long *start = mem_calloc((size_t)P + 1, sizeof(long));
	int *stamp = mem_alloc(sizeof(int) * ((size_t)no + 1));
	unsigned char *mark = mem_calloc((size_t)n + 1, 1);
	long *d = mem_alloc(sizeof(long) * ((size_t)nv * (size_t)o->ncomp + 1));
	w->fetch.scount = mem_calloc((size_t)P, sizeof(int));
	w->fetch.sdispl = mem_calloc((size_t)P, sizeof(int));
	w->fetch.rcount = mem_calloc((size_t)P, sizeof(int));
	w->fetch.rdispl = mem_calloc((size_t)P, sizeof(int));
	if (!own || !order || !start || !stamp || !mark || !d || !w->fetch.scount || !w->fetch.sdispl ||
	    !w->fetch.rcount || !w->fetch.rdispl)
		goto out;
	/* the cells by owner, ascending within each (a counting sort) */
	for (long c = 0; c < nc; c++) {
		own[c] = cell_owner(o, conn, nv, c, nc, p);
		start[own[c] + 1]++;
	}
	for (int q = 0; q < P; q++)
		start[q + 1] += start[q];
	w->ncell = start[rank + 1] - start[rank];
	if (!(w->cells = mem_alloc(sizeof(int32_t) * ((size_t)w->ncell + 1))))
		goto out;
	{
		long *next = mem_alloc(sizeof(long) * ((size_t)P + 1));
		if (!next)
			goto out;
		memcpy(next, start, sizeof(long) * (size_t)P);
		for (long c = 0; c < nc; c++)
			order[next[own[c]]++] = (int32_t)c;
		free(next);
	}
	memcpy(w->cells, order + start[rank], sizeof(int32_t) * (size_t)w->ncell);
	/* received: the other processes' rows that this process's cells
	 * read, ascending, hence grouped by owner as MPI lays them out */
	for (long j = start[rank]; j < start[rank + 1]; j++)
		for (int l = 0, m = cell_dofs(o, conn, nv, order[j], d); l < m; l++)
			if (d[l] >= 0 && d[l] < n && (d[l] < r0 || d[l] >= r0 + no))
				mark[d[l]] = 1;
	for (int i = 0; i < n; i++)
		if (mark[i]) {
			w->fetch.rcount[rt_part_owner(p, i)]++;
			w->fetch.nrecv++;
		}
	w->fetch.ridx = mem_alloc(sizeof(int) * ((size_t)w->fetch.nrecv + 1));
	if (!w->fetch.ridx)
		goto out;
	for (int i = 0, k = 0; i < n; i++)
		if (mark[i])
			w->fetch.ridx[k++] = i;
	/* sent: to each process q, this process's rows that q's cells read,
	 * the same set, ascending (stamp[i − r0] marks a row taken for q in
	 * pass `pass`) */
	for (int i = 0; i < no; i++)
		stamp[i] = -1;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (int q = 1; q < P; q++)
				w->fetch.sdispl[q] = w->fetch.sdispl[q - 1] + w->fetch.scount[q - 1];
			w->fetch.nsend = w->fetch.sdispl[P - 1] + w->fetch.scount[P - 1];
			if (!(w->fetch.sidx = mem_alloc(sizeof(int) * ((size_t)w->fetch.nsend + 1))))
				goto out;
			memset(w->fetch.scount, 0, sizeof(int) * (size_t)P);
		}
		for (int q = 0; q < P; q++) {
			if (q == rank)
				continue;
			int tag = pass * P + q;
			for (long j = start[q]; j < start[q + 1]; j++)
				for (int l = 0, m = cell_dofs(o, conn, nv, order[j], d); l < m; l++) {
					long i = d[l];
					if (i < r0 || i >= r0 + no || stamp[i - r0] == tag)
						continue;
					stamp[i - r0] = tag;
					if (pass == 1)
						w->fetch.sidx[w->fetch.sdispl[q] + w->fetch.scount[q]] = (int)i;
					w->fetch.scount[q]++;
				}
			if (pass == 1)
				qsort(w->fetch.sidx + w->fetch.sdispl[q], (size_t)w->fetch.scount[q], sizeof(int), cmp_int);
		}
	}
	for (int q = 1; q < P; q++)
		w->fetch.rdispl[q] = w->fetch.rdispl[q - 1] + w->fetch.rcount[q - 1];
	w->fetch.sbuf = mem_alloc(sizeof(double) * ((size_t)w->fetch.nsend + 1));
	w->fetch.rbuf = mem_alloc(sizeof(double) * ((size_t)w->fetch.nrecv + 1));
	if (w->fetch.sbuf && w->fetch.rbuf)
		rc = 0;
out:
	if (rc)
		snprintf(err, errlen, "out of memory for the pieces of the field record '%s'", o->path);
	free(own);
	free(order);
	free(start);
	free(stamp);
	free(mark);
	free(d);
	return rc;
}

/* Whether step k writes a frame (the same on every process) */
static int frame_due(const struct rt_field_out *w, int k, int nstep)
{
	int every = w->o->every > 0 ? w->o->every : 1;
	return (k == 0 || k == nstep || k % every == 0) && w->nframe < w->cap;
}

int rt_field_out_fetch(struct rt_field_out *w, int k, int nstep, double *u)
{
	if (!w->cells || !frame_due(w, k, nstep))
		return 0;
	return rt_exchange_run(&w->fetch, u);
}

int rt_field_out_step(struct rt_field_out *w, int k, int nstep, double t, const double *u, char *err,
                      size_t errlen)
{
	const struct ir_field_output *o = w->o;
	if (!frame_due(w, k, nstep))
		return 0;
	size_t len = strlen(o->path);
	if (len > 4 && strcmp(o->path + len - 4, ".pvd") == 0)
		len -= 4;
	char *p = w->path[w->nframe];
	memcpy(p, o->path, len);
	snprintf(p + len, 32, w->npiece ? "_%06d.pvtu" : "_%06d.vtu", k);
	size_t nv = (size_t)o->nnode * (size_t)o->ncomp;
	for (size_t i = 0; i < nv; i++)
		w->val[i] = o->dof[i] < 0 ? 0 : u[o->dof[i]];
	struct vtu_field f = { o->name, o->ncomp, w->val, 0 };
	if (w->npiece) {
		/* each process writes its cells (its own, or a block of them
		 * when every process holds the whole field), rank 0 the .pvtu
		 * (the others' is silenced, outfile.h) */
		int P = w->npiece, r = la_mpi_rank();
		long nc = o->mesh->ncells;
		for (int q = 0; q < P; q++) {
			memcpy(w->piece[q], o->path, len);
			snprintf(w->piece[q] + len, 48, "_%06d_%d.vtu", k, q);
		}
		if ((w->cells ? vtu_write_piece(w->piece[r], o->mesh, o->space, 0, w->ncell, w->cells, &f, 1, err, errlen)
		              : vtu_write_piece(w->piece[r], o->mesh, o->space, nc * r / P, nc * (r + 1) / P, NULL, &f, 1,
		                                err, errlen)) ||
		    vtu_write_pvtu(p, &f, 1, P, w->pname, err, errlen))
			return -1;
	} else if (o->space ? vtu_write_space(p, o->space, &f, 1, NULL, 0, err, errlen)
	                    : vtu_write(p, o->mesh, &f, 1, NULL, 0, err, errlen))
		return -1;
	w->t[w->nframe++] = t;
	w->last_k = k;
	return vtu_write_pvd(o->path, w->nframe, (const char *const *)w->file, w->t, err, errlen);
}

int rt_field_out_drop(struct rt_field_out *w, int k, char *err, size_t errlen)
{
	if (w->nframe == 0 || w->last_k != k)
		return 0;
	w->nframe--;
	/* the .pvtu names a piece that is not there: gone with its entry
	 * (rank 0's file; the other processes write none), and so is each
	 * process's own piece of the frame, which no .pvtu would list */
	if (la_mpi_rank() == 0)
		remove(w->path[w->nframe]);
	if (w->npiece)
		remove(w->piece[la_mpi_rank()]);
	w->last_k = -1;
	return vtu_write_pvd(w->o->path, w->nframe, (const char *const *)w->file, w->t, err, errlen);
}

const char *rt_field_out_piece(const struct rt_field_out *w, int rank)
{
	return w->piece && rank >= 0 && rank < w->npiece && w->nframe > 0 ? w->piece[rank] : NULL;
}

void rt_field_out_free(struct rt_field_out *w)
{
	for (int f = 0; w->path && f < w->cap; f++)
		free(w->path[f]);
	free(w->path);
	for (int r = 0; w->piece && r < w->npiece; r++)
		free(w->piece[r]);
	free(w->piece);
	free(w->pname);
	free(w->cells);
	rt_exchange_free(&w->fetch);
	free(w->file);
	free(w->val);
	free(w->t);
	memset(w, 0, sizeof *w);
}
