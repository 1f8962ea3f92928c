/* fe_output.c — field records as VTU files indexed by a PVD
 * (fe_output.h). */
#include <config.h>

#include "fe_output.h"
#include "la.h"
#include "mesh.h"
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

int rt_field_out_step(struct rt_field_out *w, int k, int nstep, double t, const double *u, char *err,
                      size_t errlen)
{
	const struct ir_field_output *o = w->o;
	int every = o->every > 0 ? o->every : 1;
	if (!(k == 0 || k == nstep || k % every == 0) || w->nframe == w->cap)
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
		/* every process holds the whole field (the driver is
		 * replicated): each writes the cells of its block, rank 0 the
		 * .pvtu (the others' is silenced, outfile.h) */
		int P = w->npiece, r = la_mpi_rank();
		long nc = o->mesh->ncells;
		for (int q = 0; q < P; q++) {
			memcpy(w->piece[q], o->path, len);
			snprintf(w->piece[q] + len, 48, "_%06d_%d.vtu", k, q);
		}
		if (vtu_write_piece(w->piece[r], o->mesh, o->space, nc * r / P, nc * (r + 1) / P, &f, 1, err, errlen) ||
		    vtu_write_pvtu(p, &f, 1, P, w->pname, err, errlen))
			return -1;
	} else if (o->space ? vtu_write_space(p, o->space, &f, 1, NULL, 0, err, errlen)
	                    : vtu_write(p, o->mesh, &f, 1, NULL, 0, err, errlen))
		return -1;
	w->t[w->nframe++] = t;
	return vtu_write_pvd(o->path, w->nframe, (const char *const *)w->file, w->t, err, errlen);
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
	free(w->file);
	free(w->val);
	free(w->t);
	memset(w, 0, sizeof *w);
}
