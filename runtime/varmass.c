/* varmass.c — M(u) on the matrix layer (varmass.h). */
#include <config.h>

#include "varmass.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

void varmass_free(struct varmass *vm)
{
	la_mat_free(&vm->A);
	free(vm->sM);
	free(vm->sk);
	la_solver_free(vm->f);
	memset(vm, 0, sizeof *vm);
}

int varmass_init(struct varmass *vm, struct rt_problem *pb)
{
	const struct ir_kinetic *k = pb->ir->kinetic;
	int n = pb->n;
	memset(vm, 0, sizeof *vm);
	size_t nM = pb->Mm.x ? pb->Mm.nx : 0, nk = (size_t)k->nnz, ne = (size_t)n + nM + nk;
	int *r = mem_alloc((ne + 1) * sizeof *r), *c = mem_alloc((ne + 1) * sizeof *c);
	int *r2 = mem_calloc(ne + 1, sizeof *r2), *c2 = mem_calloc(ne + 1, sizeof *c2);
	double *zero = mem_calloc(ne + 1, sizeof *zero);
	vm->sM = mem_alloc((nM + 1) * sizeof *vm->sM);
	vm->sk = mem_alloc((nk + 1) * sizeof *vm->sk);
	int rc = -1;
	if (!r || !c || !r2 || !c2 || !zero || !vm->sM || !vm->sk)
		goto out;
	/* the whole diagonal, then the two sources; a band's padding
	 * (row -1) is left out of the pattern */
	size_t q = 0, kept = 0;
	for (int i = 0; i < n; i++, q++)
		r[q] = c[q] = i;
	if (nM)
		la_mat_pattern(&pb->Mm, r + q, c + q);
	q += nM;
	for (size_t e = 0; e < nk; e++, q++) {
		r[q] = k->row[e];
		c[q] = k->col[e];
	}
	for (size_t e = 0; e < q; e++)
		if (r[e] >= 0) {
			r2[kept] = r[e];
			c2[kept++] = c[e];
		}
	if (la_mat_triplets(&vm->A, LA_MAT_AUTO, n, kept, r2, c2, zero))
		goto out;
	for (size_t e = 0; e < nM; e++)
		vm->sM[e] = r[n + e] < 0 ? -1 : la_mat_slot(&vm->A, r[n + e], c[n + e]);
	for (size_t e = 0; e < nk; e++)
		vm->sk[e] = la_mat_slot(&vm->A, k->row[e], k->col[e]);
	/* M(u) = ∂²T/∂v² is symmetric by construction; a Cholesky backend
	 * reads one triangle */
	vm->A.sym = 1;
	vm->f = la_solver_alloc(&vm->A, LA_AUTO, LA_SPD);
	if (!vm->f)
		goto out;
	rc = 0;
out:
	free(r);
	free(c);
	free(r2);
	free(c2);
	free(zero);
	return rc;
}

void varmass_eval(struct varmass *vm, struct rt_problem *pb, const double *u)
{
	const double *mk = problem_mass_u(pb, u);
	size_t nM = pb->Mm.x ? pb->Mm.nx : 0;
	memset(vm->A.x, 0, sizeof(double) * vm->A.nx);
	for (size_t e = 0; e < nM; e++)
		if (vm->sM[e] >= 0)
			vm->A.x[vm->sM[e]] += pb->Mm.x[e];
	for (int e = 0; e < pb->ir->kinetic->nnz; e++)
		vm->A.x[vm->sk[e]] += mk[e];
}

int varmass_factor(struct varmass *vm, struct rt_problem *pb, const double *u)
{
	varmass_eval(vm, pb, u);
	int info = la_solver_factor(vm->f, &vm->A);
	vm->factored = info == 0;
	return info;
}

void varmass_solve(struct varmass *vm, double *b)
{
	la_solver_solve(vm->f, b);
}
