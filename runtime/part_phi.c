/* part_phi.c — a potential's kernels on this process's rows (part_phi.h;
 * dyn(1), MPI). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "la.h"
#include "mem.h"
#include "part_phi.h"

void rt_part_phi_free(struct rt_part_phi *q)
{
	int nk = q->ks && q->ks->f ? q->ks->f->nkernel : 0;
	for (int k = 0; k < nk; k++) {
		if (q->inst)
			free(q->inst[k]);
		if (q->val)
			free(q->val[k]);
		if (q->slot)
			free(q->slot[k]);
	}
	free(q->inst);
	free(q->ninst);
	free(q->val);
	free(q->slot);
	free(q->x1);
	free(q->x2);
	free(q->y);
	free(q->t);
	memset(q, 0, sizeof *q);
}

/* Instance i of kernel k: whether it reads a row of p (*own: whether
 * its lowest unknown is one; an instance of fixed dofs alone is rank
 * 0's, whose value is a constant) */
static int reaches(const struct rt_part_phi *q, int k, long i, int *own)
{
	const struct ir_kernel *kr = &q->ks->f->kernel[k];
	long lowest = -1;
	int hit = 0;
	for (int s = 0; s < kr->nslot; s++) {
		long gi = rt_kernels_slot_unknown(q->ks, k, s, i);
		if (gi < 0)
			continue;
		hit |= gi >= q->p->r0 && gi < q->p->r1;
		if (lowest < 0 || gi < lowest)
			lowest = gi;
	}
	if (lowest < 0) {
		*own = q->p->rank == 0;
		return *own;
	}
	*own = lowest >= q->p->r0 && lowest < q->p->r1;
	return hit;
}

/* The place of row I in p's owned column J (rows ascending); -1 when the
 * pattern has no such entry */
static int place(const struct rt_part *p, long I, long J)
{
	int lo = p->kp[J - p->r0], hi = p->kp[J - p->r0 + 1] - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (p->ki[mid] == I)
			return mid;
		if (p->ki[mid] < I)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int rt_part_phi_init(struct rt_part_phi *q, struct rt_part *p, struct rt_kernels *ks, int n, const double *mdiag)
{
	memset(q, 0, sizeof *q);
	q->p = p;
	q->ks = ks;
	q->n = n;
	q->m = mdiag;
	int nk = ks->f->nkernel;
	q->inst = mem_calloc((size_t)nk, sizeof *q->inst);
	q->ninst = mem_calloc((size_t)nk, sizeof *q->ninst);
	q->val = mem_calloc((size_t)nk, sizeof *q->val);
	q->slot = mem_calloc((size_t)nk, sizeof *q->slot);
	q->x1 = mem_calloc((size_t)n + 1, sizeof(double));
	q->x2 = mem_calloc((size_t)n + 1, sizeof(double));
	q->y = mem_calloc((size_t)n + 1, sizeof(double));
	q->t = mem_calloc((size_t)n + 1, sizeof(double));
	if (!q->inst || !q->ninst || !q->val || !q->slot || !q->x1 || !q->x2 || !q->y || !q->t)
		return -1;
	for (int k = 0; k < nk; k++) {
		const struct ir_kernel *kr = &ks->f->kernel[k];
		long cnt = 0;
		int own;
		for (long i = kr->lo; i <= kr->hi; i++)
			cnt += reaches(q, k, i, &own);
		q->inst[k] = mem_alloc(sizeof(long) * ((size_t)cnt + 1));
		q->val[k] = mem_alloc((size_t)cnt + 1);
		q->slot[k] = mem_alloc(sizeof(int) * ((size_t)cnt * (size_t)kr->nnz + 1));
		if (!q->inst[k] || !q->val[k] || !q->slot[k])
			return -1;
		q->ninst[k] = cnt;
		long c = 0;
		for (long i = kr->lo; i <= kr->hi; i++) {
			if (!reaches(q, k, i, &own))
				continue;
			q->inst[k][c] = i;
			q->val[k][c] = (unsigned char)own;
			int *sl = q->slot[k] + (size_t)c * (size_t)kr->nnz;
			for (int e = 0; e < kr->nnz; e++) {
				long I = rt_kernels_slot_unknown(ks, k, kr->row[e], i);
				long J = rt_kernels_slot_unknown(ks, k, kr->col[e], i);
				sl[e] = I >= 0 && J >= p->r0 && J < p->r1 ? place(p, I, J) : -1;
			}
			c++;
		}
	}
	return 0;
}

double rt_part_phi_eval(struct rt_part_phi *q, const struct vm_input *in, const double *u, double *g)
{
	struct rt_part *p = q->p;
	int r0 = p->r0, r1 = p->r1;
	for (int i = r0; i < r1; i++)
		g[i] = 0;
	memset(p->kx, 0, sizeof(double) * (size_t)p->kp[r1 - r0]);
	double val = 0;
	for (int k = 0; k < q->ks->f->nkernel; k++) {
		const struct ir_kernel *kr = &q->ks->f->kernel[k];
		for (long c = 0; c < q->ninst[k]; c++) {
			long i = q->inst[k][c];
			const double *out = rt_kernels_run_one(q->ks, k, in, u, NULL, i);
			if (q->val[k][c])
				val += out[0];
			for (int s = 0; s < kr->nslot; s++) {
				long gi = rt_kernels_slot_unknown(q->ks, k, s, i);
				if (gi >= r0 && gi < r1)
					g[gi] += out[1 + s];
			}
			const int *sl = q->slot[k] + (size_t)c * (size_t)kr->nnz;
			const double *h = out + 1 + kr->nslot;
			for (int e = 0; e < kr->nnz; e++)
				if (sl[e] >= 0)
					p->kx[sl[e]] += h[e];
		}
	}
	return val;
}

/* ---- the monitor: la_eig_power on the owned rows ---- */

/* y := K x on the owned rows, x's ghosts first */
static int pw_kmul(void *ctx, double *x, double *y)
{
	struct rt_part_phi *q = ctx;
	struct rt_part *p = q->p;
	if (rt_part_exchange(p, x))
		return -1;
	for (int i = p->r0; i < p->r1; i++)
		y[i] = rt_part_row_dot(p, i, x);
	return 0;
}

static int pw_mmul(void *ctx, const double *x, double *y)
{
	struct rt_part_phi *q = ctx;
	for (int i = q->p->r0; i < q->p->r1; i++)
		y[i] = q->m[i] * x[i];
	return 0;
}

static int pw_msolve(void *ctx, double *b)
{
	struct rt_part_phi *q = ctx;
	for (int i = q->p->r0; i < q->p->r1; i++)
		b[i] /= q->m[i];
	return 0;
}

static int pw_sum(void *ctx, double *s)
{
	(void)ctx;
	return la_mpi_sum(s, 1);
}

int rt_part_phi_omega2(struct rt_part_phi *q, int it, double *w2)
{
	struct la_power_ops op = { q, q->p->r0, q->p->r1, pw_kmul, pw_mmul, pw_msolve, pw_sum };
	double t1, t2;
	/* omega.c's pair: a second iteration, shifted by the first
	 * quotient, when K(u) is indefinite and its most negative
	 * eigenvalue took the first */
	if (la_eig_power(&op, q->x1, q->y, q->t, 0, &q->warm1, it, &t1))
		return -1;
	if (!(t1 < 0)) {
		*w2 = t1;   /* NaN too: a Hessian not finite (nl_central_monitor) */
		return 0;
	}
	if (la_eig_power(&op, q->x2, q->y, q->t, -t1, &q->warm2, it, &t2))
		return -1;
	*w2 = fmax(t1, t2);
	return 0;
}
