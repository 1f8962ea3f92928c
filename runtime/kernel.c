/* kernel.c — the gather–kernel–scatter loop (kernel.h): one program per
 * sum, run once per instance over its few local unknowns. */
#include <config.h>

#include "kernel.h"
#include "la.h"
#include "mem.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The global index of slot s at instance i (ir.h, struct ir_kernel); -1
 * for an unknown eliminated from the problem (a fixed dof of a field):
 * it reads 0 and receives nothing. */
static long gather_index(const struct ir_kernel *k, int s, long i)
{
	return k->map ? k->map[(i - k->lo) * k->nslot + s] : k->base[s] + k->stride[s] * i;
}

static int is_second(enum ir_op op)
{
	return op == IR_INT || op == IR_INTVEL;
}

/* Scratch for kernels kv[0..nk); with keep, room for every instance's
 * Hessian (energies: rt_kernels_add_hess after the evaluation). */
static int ws_init(struct rt_kernels *ks, const struct ir_kernel *kv, int nk, int keep)
{
	ks->kv = kv;
	ks->nk = nk;
	ks->ws = mem_calloc((size_t)nk, sizeof *ks->ws);
	if (!ks->ws)
		return -1;
	for (int q = 0; q < nk; q++) {
		const struct ir_kernel *k = &kv[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		size_t ninst = (size_t)(k->hi - k->lo + 1);
		w->reg = mem_calloc((size_t)k->prog->n + 1, sizeof(double));
		w->out = mem_calloc((size_t)k->prog->nout + 1, sizeof(double));
		w->loc = mem_calloc((size_t)k->nslot + 1, sizeof(double));
		w->hess = mem_calloc(keep ? ninst * (size_t)k->nnz + 1 : 1, sizeof(double));
		w->mreg = keep ? mem_calloc((size_t)k->prog->n + 1, sizeof(double)) : NULL;
		w->mout = keep ? mem_calloc((size_t)k->prog->nout + 1, sizeof(double)) : NULL;
		w->grad = keep ? mem_calloc((size_t)k->prog->n + 1, sizeof(int)) : NULL;
		w->val = keep ? mem_calloc((size_t)k->prog->n + 1, sizeof(int)) : NULL;
		if (!w->reg || !w->out || !w->loc || !w->hess || (keep && (!w->mreg || !w->mout || !w->grad || !w->val)))
			return -1;
		/* output 0 the value, 1 .. nslot the gradient (ir.h, struct
		 * ir_kernel) */
		if (keep) {
			w->nval = vm_needed(k->prog, 0, 1, w->val);
			w->ngrad = vm_needed(k->prog, 1, k->nslot, w->grad);
		}
	}
	return 0;
}

int rt_kernels_init(struct rt_kernels *ks, const struct ir_func *f, int n)
{
	memset(ks, 0, sizeof *ks);
	if (!f || f->nkernel == 0)
		return 0;
	ks->f = f;
	ks->n = n;
	return ws_init(ks, f->kernel, f->nkernel, 1);
}

int rt_kernels_init_gaps(struct rt_kernels *ks, const struct ir_kernel *kv, int nk)
{
	memset(ks, 0, sizeof *ks);
	return nk > 0 ? ws_init(ks, kv, nk, 0) : 0;
}

void rt_kernels_free(struct rt_kernels *ks)
{
	rt_kernels_split_off(ks);
	for (int q = 0; ks->ws && q < ks->nk; q++) {
		free(ks->ws[q].reg);
		free(ks->ws[q].out);
		free(ks->ws[q].loc);
		free(ks->ws[q].hess);
		free(ks->ws[q].mreg);
		free(ks->ws[q].mout);
		free(ks->ws[q].grad);
		free(ks->ws[q].val);
	}
	free(ks->ws);
	memset(ks, 0, sizeof *ks);
}

/* What run_as computes: the outputs into w->out, or into w->mout the
 * magnitudes of the gradient's (nslot) or of the value's (one) */
enum run_what { RUN_VALUES, RUN_GRAD_MAGNITUDES, RUN_VALUE_MAGNITUDE };

/* Gather instance i's unknowns into w->loc and run the program. */
static void run_as(const struct ir_kernel *k, struct rt_kernel_ws *w, const struct vm_input *in0, const double *x,
                   const double *y, long i, enum run_what what)
{
	for (int s = 0; s < k->nslot; s++) {
		long gi = gather_index(k, s, i);
		w->loc[s] = gi < 0 ? 0 : (is_second(k->kind[s]) ? y : x)[gi];
	}
	struct vm_input in = *in0;
	in.u = in.v = in.z = in.zd = w->loc;
	const double *row = k->data ? k->data + (size_t)(i - k->lo) * (size_t)k->ndata : NULL;
	if (what == RUN_GRAD_MAGNITUDES)
		vm_eval_magnitude(k->prog, w->grad, w->ngrad, w->reg, w->mreg, &in, (double)i, row, 1, k->nslot, w->mout);
	else if (what == RUN_VALUE_MAGNITUDE)
		vm_eval_magnitude(k->prog, w->val, w->nval, w->reg, w->mreg, &in, (double)i, row, 0, 1, w->mout);
	else
		vm_eval_instance(k->prog, w->reg, &in, (double)i, row, w->out);
}

static void run(const struct ir_kernel *k, struct rt_kernel_ws *w, const struct vm_input *in0, const double *x,
                const double *y, long i)
{
	run_as(k, w, in0, x, y, i, RUN_VALUES);
}

/* g[slot s's unknown] += gs[s] for instance i's slots (an eliminated
 * unknown receives nothing): the scatter of a gradient, or of its
 * terms' magnitudes */
static void scatter_slots(const struct rt_kernels *ks, const struct ir_kernel *k, long i, const double *gs, double *g)
{
	for (int s = 0; s < k->nslot; s++) {
		long gi = gather_index(k, s, i);
		if (gi >= 0)
			g[gi + (is_second(k->kind[s]) ? ks->n : 0)] += gs[s];
	}
}

/* Process r's instances of k: [lo + r n / P, lo + (r + 1) n / P) */
static long split_at(const struct ir_kernel *k, int r, int P)
{
	long ninst = k->hi - k->lo + 1;
	return k->lo + (long)((double)ninst * r / P);
}

double rt_kernels_value_magnitude(struct rt_kernels *ks, const struct vm_input *in0, const double *x,
                                  const double *y)
{
	double mag = 0;
	for (int q = 0; ks->f && q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		long i0 = ks->split ? split_at(k, ks->rank, ks->nproc) : k->lo;
		long i1 = ks->split ? split_at(k, ks->rank + 1, ks->nproc) : k->hi + 1;
		for (long i = i0; i < i1; i++) {
			run_as(k, w, in0, x, y, i, RUN_VALUE_MAGNITUDE);
			mag += w->mout[0];
		}
	}
	/* a bound: the processes' shares added in rank order, the same on all */
	if (ks->split && la_mpi_sum(&mag, 1))
		return 0;
	return mag;
}

void rt_kernels_rounding(struct rt_kernels *ks, const struct vm_input *in, const double *x, const double *y,
                         double *g)
{
	for (int q = 0; ks->f && q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		if (ks->split) {
			/* this process's instances into vg (nslot + 1 a row, the
			 * first unused), gathered, then added in the serial order */
			size_t nv = (size_t)k->nslot + 1;
			for (long i = split_at(k, ks->rank, ks->nproc); i < split_at(k, ks->rank + 1, ks->nproc); i++) {
				run_as(k, w, in, x, y, i, RUN_GRAD_MAGNITUDES);
				w->vg[(size_t)(i - k->lo) * nv] = 0;
				memcpy(w->vg + (size_t)(i - k->lo) * nv + 1, w->mout, sizeof(double) * (size_t)k->nslot);
			}
			/* a failed gather leaves the bound to the Hessian's terms */
			if (la_mpi_gather(w->vg, w->vc, w->vd))
				continue;
			for (long i = k->lo; i <= k->hi; i++)
				scatter_slots(ks, k, i, w->vg + (size_t)(i - k->lo) * nv + 1, g);
			continue;
		}
		for (long i = k->lo; i <= k->hi; i++) {
			run_as(k, w, in, x, y, i, RUN_GRAD_MAGNITUDES);
			scatter_slots(ks, k, i, w->mout, g);
		}
	}
}

int rt_kernels_split(struct rt_kernels *ks, int rank, int nproc)
{
	rt_kernels_split_off(ks);
	if (!ks->f || nproc < 2)
		return 0;
	for (int q = 0; q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		size_t ninst = (size_t)(k->hi - k->lo + 1), nv = (size_t)k->nslot + 1;
		if (ninst * nv > INT_MAX || ninst * (size_t)k->nnz > INT_MAX) {
			rt_kernels_split_off(ks);   /* whole: MPI counts are int */
			return 0;
		}
		w->vg = mem_calloc(ninst * nv + 1, sizeof(double));
		w->vc = mem_calloc((size_t)nproc, sizeof(int));
		w->vd = mem_calloc((size_t)nproc, sizeof(int));
		w->hc = mem_calloc((size_t)nproc, sizeof(int));
		w->hd = mem_calloc((size_t)nproc, sizeof(int));
		if (!w->vg || !w->vc || !w->vd || !w->hc || !w->hd)
			goto fail;
		for (int r = 0; r < nproc; r++) {
			long a = split_at(k, r, nproc) - k->lo, b = split_at(k, r + 1, nproc) - k->lo;
			w->vc[r] = (int)((size_t)(b - a) * nv);
			w->vd[r] = (int)((size_t)a * nv);
			w->hc[r] = (int)((b - a) * k->nnz);
			w->hd[r] = (int)(a * k->nnz);
		}
	}
	ks->split = 1;
	ks->rank = rank;
	ks->nproc = nproc;
	return 0;
fail:
	rt_kernels_split_off(ks);
	return -1;
}

void rt_kernels_split_off(struct rt_kernels *ks)
{
	for (int q = 0; ks->ws && ks->f && q < ks->f->nkernel; q++) {
		struct rt_kernel_ws *w = &ks->ws[q];
		free(w->vg);
		free(w->vc);
		free(w->vd);
		free(w->hc);
		free(w->hd);
		w->vg = NULL;
		w->vc = w->vd = w->hc = w->hd = NULL;
	}
	ks->split = 0;
}

/* Kernel k's instances divided (rt_kernels_split): this process's
 * outputs into w->vg and w->hess, then every process's gathered.  -1
 * when MPI fails. */
static int run_split(const struct rt_kernels *ks, const struct ir_kernel *k, struct rt_kernel_ws *w,
                     const struct vm_input *in, const double *x, const double *y)
{
	size_t nv = (size_t)k->nslot + 1;
	for (long i = split_at(k, ks->rank, ks->nproc); i < split_at(k, ks->rank + 1, ks->nproc); i++) {
		size_t at = (size_t)(i - k->lo);
		run(k, w, in, x, y, i);
		memcpy(w->vg + at * nv, w->out, sizeof(double) * nv);
		memcpy(w->hess + at * (size_t)k->nnz, w->out + nv, sizeof(double) * (size_t)k->nnz);
	}
	if (la_mpi_gather(w->vg, w->vc, w->vd))
		return -1;
	return k->nnz > 0 ? la_mpi_gather(w->hess, w->hc, w->hd) : 0;
}

double rt_kernels_eval(struct rt_kernels *ks, const struct vm_input *in, const double *x, const double *y,
                       double *g)
{
	double val = 0;
	if (!ks->f)
		return 0;
	for (int q = 0; q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		if (ks->split) {
			/* the serial loop's sums, in its order, from the gathered
			 * outputs */
			if (run_split(ks, k, w, in, x, y))
				return NAN;
			const double *o = w->vg;
			for (long i = k->lo; i <= k->hi; i++, o += k->nslot + 1) {
				val += o[0];
				if (g)
					scatter_slots(ks, k, i, o + 1, g);
			}
			continue;
		}
		double *h = w->hess;
		for (long i = k->lo; i <= k->hi; i++) {
			run(k, w, in, x, y, i);
			val += w->out[0];
			if (g)
				scatter_slots(ks, k, i, w->out + 1, g);
			memcpy(h, w->out + 1 + k->nslot, sizeof(double) * (size_t)k->nnz);
			h += k->nnz;
		}
	}
	return val;
}

const double *rt_kernels_run_one(struct rt_kernels *ks, int q, const struct vm_input *in, const double *x,
                                 const double *y, long i)
{
	run(&ks->f->kernel[q], &ks->ws[q], in, x, y, i);
	return ks->ws[q].out;
}

long rt_kernels_slot_unknown(const struct rt_kernels *ks, int q, int s, long i)
{
	const struct ir_kernel *k = &ks->f->kernel[q];
	long gi = gather_index(k, s, i);
	return gi < 0 ? -1 : gi + (is_second(k->kind[s]) ? ks->n : 0);
}

/* The row I and column J (f's numbering) of Hessian entry e of kernel k
 * at instance i; 0 when one of them is not an unknown. */
static int entry_at(const struct rt_kernels *ks, const struct ir_kernel *k, int e, long i, long *I, long *J)
{
	int r = k->row[e], c = k->col[e];
	long gr = gather_index(k, r, i), gc = gather_index(k, c, i);
	if (gr < 0 || gc < 0)
		return 0;
	*I = gr + (is_second(k->kind[r]) ? ks->n : 0);
	*J = gc + (is_second(k->kind[c]) ? ks->n : 0);
	return 1;
}

/* Calls fn(ctx, I, J, h) for every Hessian entry of the last evaluation
 * that falls on two unknowns (entry_at). */
static void each_entry(const struct rt_kernels *ks, void (*fn)(void *ctx, long I, long J, double h), void *ctx)
{
	for (int q = 0; ks->f && q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		const double *h = ks->ws[q].hess;
		for (long i = k->lo; i <= k->hi; i++, h += k->nnz)
			for (int e = 0; e < k->nnz; e++) {
				long I, J;
				if (entry_at(ks, k, e, i, &I, &J))
					fn(ctx, I, J, h[e]);
			}
	}
}

struct add_hess_ctx {
	const double *cr, *cc;
	double *J;
	int ld;
};

static void add_hess_entry(void *ctx, long I, long J, double h)
{
	struct add_hess_ctx *a = ctx;
	a->J[I + (size_t)J * (size_t)a->ld] += (a->cr ? a->cr[I] : 1) * (a->cc ? a->cc[J] : 1) * h;
}

void rt_kernels_add_hess(const struct rt_kernels *ks, const double *cr, const double *cc, double *J, int ld)
{
	struct add_hess_ctx a = { cr, cc, J, ld };
	each_entry(ks, add_hess_entry, &a);
}

struct terms_ctx {
	const double *w;
	double *y;
};

static void terms_entry(void *ctx, long I, long J, double h)
{
	struct terms_ctx *t = ctx;
	t->y[I] += fabs(h) * fabs(t->w[J]);
}

void rt_kernels_terms(const struct rt_kernels *ks, const double *w, double *y)
{
	struct terms_ctx t = { w, y };
	each_entry(ks, terms_entry, &t);
}

size_t rt_kernels_nentries(const struct rt_kernels *ks)
{
	size_t n = 0;
	for (int q = 0; ks->f && q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		n += (size_t)(k->hi - k->lo + 1) * (size_t)k->nnz;
	}
	return n;
}

void rt_kernels_entries(const struct rt_kernels *ks, int *I, int *J, double *v)
{
	size_t p = 0;
	for (int q = 0; ks->f && q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		const double *h = ks->ws[q].hess;
		for (long i = k->lo; i <= k->hi; i++, h += k->nnz)
			for (int e = 0; e < k->nnz; e++, p++) {
				int r = k->row[e], c = k->col[e];
				long gr = gather_index(k, r, i), gc = gather_index(k, c, i);
				if (gr < 0 || gc < 0) {
					/* an eliminated unknown: row and column -1 (as a
					 * band's padding) keep the count of entries fixed;
					 * a caller skips them.  A (0, 0) here once received
					 * the eliminated entries' values in the Jacobian
					 * (jacobian.c), and Newton on a fixed bar stalled. */
					I[p] = J[p] = -1;
					if (v)
						v[p] = 0;
					continue;
				}
				I[p] = (int)(gr + (is_second(k->kind[r]) ? ks->n : 0));
				J[p] = (int)(gc + (is_second(k->kind[c]) ? ks->n : 0));
				if (v)
					v[p] = h[e];
			}
	}
}

void rt_kernels_dterms(struct rt_kernels *ks, const struct vm_input *in, const double *x, const double *y,
                       double wu, double wz, const double *du, const double *dz, double *dterm)
{
	if (!ks->f)
		return;
	for (int q = 0; q < ks->f->nkernel; q++) {
		const struct ir_kernel *k = &ks->f->kernel[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		double d = 0;
		for (long i = k->lo; i <= k->hi; i++) {
			run(k, w, in, x, y, i);
			for (int s = 0; s < k->nslot; s++) {
				long gi = gather_index(k, s, i);
				if (gi < 0)
					continue;
				d += is_second(k->kind[s]) ? wz * dz[gi] * w->out[1 + s] : wu * du[gi] * w->out[1 + s];
			}
		}
		dterm[k->term] += d;
	}
}

void rt_kernels_gaps(struct rt_kernels *ks, const struct vm_input *in, const double *u, int nc, int ng, double *out)
{
	for (int q = 0; q < ks->nk; q++) {
		const struct ir_kernel *k = &ks->kv[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		double *g = out + nc, *h = out + nc + ng + k->hfirst;
		for (long i = k->lo; i <= k->hi; i++, h += k->nnz) {
			long t = i - k->lo;
			run(k, w, in, u, u, i);
			out[k->term + k->rstride * t] += w->out[0];
			const int *gp = k->gpos + t * k->nslot;
			for (int s = 0; s < k->nslot; s++)
				g[gp[s]] += w->out[1 + s];
			memcpy(h, w->out + 1 + k->nslot, sizeof(double) * (size_t)k->nnz);
		}
	}
}

void rt_kernels_loads(struct rt_kernels *ks, const struct vm_input *in, double *f)
{
	for (int q = 0; q < ks->nk; q++) {
		const struct ir_kernel *k = &ks->kv[q];
		struct rt_kernel_ws *w = &ks->ws[q];
		double *fo = f + k->term;
		for (long i = k->lo; i <= k->hi; i++, fo += k->rstride) {
			const double *row = k->data ? k->data + (size_t)(i - k->lo) * (size_t)k->ndata : NULL;
			vm_eval_instance(k->prog, w->reg, in, (double)i, row, w->out);
			*fo += w->out[0];
		}
	}
}
