/* test_kernel.c — unit tests of runtime/kernel.c, the gather–kernel–
 * scatter loop: a kernel Φ_i = ½ (1 + i) d² + ¼ d⁴ of d = x[i+1] − x[i]
 * (i = 1..n−1, a nonlinear chain with index-dependent springs), derived
 * by ir/ir_diff.c, evaluated over its instances and compared with the
 * closed forms of Φ, ∇Φ and the tridiagonal ∇²Φ; then the same kernel
 * placed by a table (the connectivity map that finite elements use)
 * instead of the affine map gives the same numbers bit for bit, and the
 * triplets for a sparse Jacobian sum to the dense Hessian.  Last, the
 * magnitudes of a gradient's terms (vm_eval_magnitude, the rounding
 * bound of Newton's test): a stress μ(F − 1/F) near F = 1 is a
 * difference of terms of size μ, which the magnitude must show however
 * small the stress.  Exit status 0
 * when every check passes, 1 otherwise. */
#include "arena.h"
#include "ir.h"
#include "ir_diff.h"
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

enum { N = 7 };

/* |a − b| within 1e-13 relative to scale: the closed forms and the
 * kernel differ by the order of a few roundings. */
static int near(double a, double b, double scale)
{
	return fabs(a - b) <= 1e-13 * scale;
}

static struct ir_kernel chain_kernel(struct arena *ar)
{
	struct ir_loc l = { "test", 1, 1 };
	struct ir_prog *p = ir_prog_new(ar);
	int i = ir_emit_input(p, IR_INDEX, 0, l);
	int a = ir_emit_input(p, IR_DOF, 0, l), b = ir_emit_input(p, IR_DOF, 1, l);
	int d = ir_emit(p, IR_SUB, a, b, 0, l);
	int c = ir_emit(p, IR_ADD, i, ir_emit_const(p, 1, l), 0, l);
	int d2 = ir_emit(p, IR_MUL, d, d, 0, l);
	int v = ir_emit(p, IR_ADD, ir_emit(p, IR_MUL, ir_emit(p, IR_MUL, c, ir_emit_const(p, 0.5, l), 0, l), d2, 0, l),
	                ir_emit(p, IR_MUL, ir_emit_const(p, 0.25, l), ir_emit(p, IR_MUL, d2, d2, 0, l), 0, l), 0, l);
	struct ir_diff_inputs in = { 2, 1, { { IR_DOF, 0 } } };
	struct ir_diff_ws *w = ir_diff_ws_new();
	int g[2], h[4], nnz = 0;
	static int row[4], col[4];
	ir_gradient(p, w, v, &in, g);
	for (int s = 0; s < 2; s++) {
		int hn;
		const int *hi, *hr;
		ir_gradient_sparse(p, w, g[s], &in, &hn, &hi, &hr);
		for (int e = 0; e < hn; e++) {
			row[nnz] = s;
			col[nnz] = hi[e];
			h[nnz++] = hr[e];
		}
	}
	ir_diff_ws_free(w);
	ir_prog_add_output(p, v);
	ir_prog_add_output(p, g[0]);
	ir_prog_add_output(p, g[1]);
	for (int e = 0; e < nnz; e++)
		ir_prog_add_output(p, h[e]);
	ir_prog_compact(p);
	static enum ir_op kind[2] = { IR_DOF, IR_DOF };
	static long base[2] = { 0, -1 }, stride[2] = { 1, 1 };   /* x[i+1], x[i], 0-based */
	struct ir_kernel k = { .prog = p, .lo = 1, .hi = N - 1, .nslot = 2, .kind = kind, .base = base,
	                       .stride = stride, .nnz = nnz, .row = row, .col = col, .loc = l };
	return k;
}

static void check_against_closed_forms(struct ir_func *f, const double *u)
{
	struct rt_kernels ks;
	CHECK(rt_kernels_init(&ks, f, N) == 0);
	double g[N] = { 0 }, J[N * N] = { 0 };
	struct vm_input in = { 0 };
	double phi = rt_kernels_eval(&ks, &in, u, NULL, g);
	rt_kernels_add_hess(&ks, NULL, NULL, J, N);
	double phi0 = 0, g0[N] = { 0 }, J0[N * N] = { 0 };
	for (int i = 1; i <= N - 1; i++) {
		double d = u[i] - u[i - 1], c = 1 + i;
		phi0 += 0.5 * c * d * d + 0.25 * d * d * d * d;
		double f1 = c * d + d * d * d, f2 = c + 3 * d * d;
		g0[i] += f1;
		g0[i - 1] -= f1;
		J0[i + i * N] += f2;
		J0[(i - 1) + (i - 1) * N] += f2;
		J0[i + (i - 1) * N] -= f2;
		J0[(i - 1) + i * N] -= f2;
	}
	CHECK(near(phi, phi0, phi0));
	for (int k = 0; k < N; k++)
		CHECK(near(g[k], g0[k], 10));
	for (int k = 0; k < N * N; k++)
		CHECK(near(J[k], J0[k], 10));
	/* triplets: their sum is the dense Hessian */
	size_t ne = rt_kernels_nentries(&ks);
	CHECK(ne == (size_t)(N - 1) * 4);
	int *I = malloc(sizeof(int) * ne), *Jc = malloc(sizeof(int) * ne);
	double *v = malloc(sizeof(double) * ne), S[N * N] = { 0 };
	rt_kernels_entries(&ks, I, Jc, v);
	for (size_t e = 0; e < ne; e++)
		S[I[e] + Jc[e] * N] += v[e];
	for (int k = 0; k < N * N; k++)
		CHECK(S[k] == J[k]);
	free(I);
	free(Jc);
	free(v);
	rt_kernels_free(&ks);
}

/* Φ = μ(½F² − ln F), F = 1 + x[i+1] − x[i] (a one-dimensional
 * neo-Hookean spring, stress μ(F − 1/F)), derived by ir_diff */
static struct ir_kernel spring_kernel(struct arena *ar, double mu)
{
	struct ir_loc l = { "test", 1, 1 };
	struct ir_prog *p = ir_prog_new(ar);
	int a = ir_emit_input(p, IR_DOF, 0, l), b = ir_emit_input(p, IR_DOF, 1, l);
	int F = ir_emit(p, IR_ADD, ir_emit_const(p, 1, l), ir_emit(p, IR_SUB, a, b, 0, l), 0, l);
	int half = ir_emit(p, IR_MUL, ir_emit_const(p, 0.5, l), ir_emit(p, IR_MUL, F, F, 0, l), 0, l);
	int v = ir_emit(p, IR_MUL, ir_emit_const(p, mu, l), ir_emit(p, IR_SUB, half, ir_emit(p, IR_LOG, F, 0, 0, l), 0, l),
	                0, l);
	struct ir_diff_inputs in = { 2, 1, { { IR_DOF, 0 } } };
	struct ir_diff_ws *w = ir_diff_ws_new();
	int g[2];
	ir_gradient(p, w, v, &in, g);
	ir_diff_ws_free(w);
	ir_prog_add_output(p, v);
	ir_prog_add_output(p, g[0]);
	ir_prog_add_output(p, g[1]);
	ir_prog_compact(p);
	static enum ir_op kind[2] = { IR_DOF, IR_DOF };
	static long base[2] = { 0, -1 }, stride[2] = { 1, 1 };
	struct ir_kernel k = { .prog = p, .lo = 1, .hi = N - 1, .nslot = 2, .kind = kind, .base = base,
	                       .stride = stride, .nnz = 0, .loc = l };
	return k;
}

static void check_magnitudes(struct arena *ar)
{
	struct ir_loc l = { "test", 1, 1 };
	/* s = μF − μ/F at F = 1 + d: |s| = 2μ|d| to first order; its terms
	 * are μF, of magnitude 2μ(1 + d) (|μ| m_F + |F| m_μ, m_F = 1 + d),
	 * and μ/F, of magnitude 2μ/F (the μ divided and F's μ|1/F|(1 + d),
	 * each with its rounding): 4μ to first order, 1e9 times |s| */
	struct ir_prog *p = ir_prog_new(ar);
	double mu = 384.6, d = 1e-9;
	int x = ir_emit_input(p, IR_DOF, 0, l);
	int F = ir_emit(p, IR_ADD, ir_emit_const(p, 1, l), x, 0, l);
	int s = ir_emit(p, IR_SUB, ir_emit(p, IR_MUL, ir_emit_const(p, mu, l), F, 0, l),
	                ir_emit(p, IR_DIV, ir_emit_const(p, mu, l), F, 0, l), 0, l);
	int other = ir_emit(p, IR_SIN, x, 0, 0, l);
	ir_prog_add_output(p, other);
	ir_prog_add_output(p, s);
	int *idx = malloc(sizeof(int) * (size_t)p->n);
	double *r = calloc((size_t)p->n, sizeof(double)), *m = calloc((size_t)p->n, sizeof(double)), ms = -1;
	int ni = vm_needed(p, 1, 1, idx);
	/* sin(x) is not read by s: left out */
	CHECK(ni == p->n - 1);
	for (int q = 0; q < ni; q++)
		CHECK(idx[q] != other && (q == 0 || idx[q] > idx[q - 1]));
	double u[1] = { d };
	struct vm_input in = { 0, u, NULL, NULL, NULL, NULL, NULL, NULL };
	vm_eval_magnitude(p, idx, ni, r, m, &in, 0, NULL, 1, 1, &ms);
	CHECK(fabs(r[s] - 2 * mu * d) <= 1e-6 * 2 * mu * d);
	CHECK(fabs(ms - (2 * mu * (1 + d) + 2 * mu / (1 + d))) <= 1e-12 * 4 * mu);
	/* a quotient by 0: its magnitude is not a bound, and is given as 0 */
	u[0] = -1;
	vm_eval_magnitude(p, idx, ni, r, m, &in, 0, NULL, 1, 1, &ms);
	CHECK(ms == 0);
	free(idx);
	free(r);
	free(m);

	/* through the kernels, on the derived gradient of the spring: at
	 * d = 1e-9 the stress 2μd is 1e-9 of the terms (F and 1/F, each of
	 * size μ), which bound its rounding */
	struct ir_kernel k = spring_kernel(ar, mu);
	struct ir_func f = { .nkernel = 1, .kernel = &k };
	struct rt_kernels ks;
	CHECK(rt_kernels_init(&ks, &f, N) == 0);
	double uu[N], g[N] = { 0 }, y[N] = { 0 };
	for (int i = 0; i < N; i++)
		uu[i] = 1e-9 * i;
	struct vm_input in0 = { 0 };
	rt_kernels_eval(&ks, &in0, uu, NULL, g);
	rt_kernels_rounding(&ks, &in0, uu, NULL, y);
	for (int i = 0; i < N; i++) {
		/* each row is read by one or two instances, each of terms
		 * between μ (F and 1/F, once) and a few μ */
		int inst = (i > 0) + (i < N - 1);
		CHECK(y[i] >= inst * mu && y[i] <= inst * 8 * mu);
		CHECK(fabs(g[i]) <= 4 * mu * 1e-9);
	}
	rt_kernels_free(&ks);
}

int main(void)
{
	struct arena *ar = arena_new();
	struct ir_kernel k = chain_kernel(ar);
	CHECK(k.nnz == 4);
	struct ir_func f = { .nkernel = 1, .kernel = &k };
	double u[N];
	for (int i = 0; i < N; i++)
		u[i] = 0.3 * sin(1.7 * i + 0.2);
	check_against_closed_forms(&f, u);

	/* the same placement from a table: instance k (i = 1 + k) reads
	 * x[i+1], x[i] at 0-based i, i − 1 */
	static int map[2 * (N - 1)];
	for (int q = 0; q < N - 1; q++) {
		map[2 * q] = q + 1;
		map[2 * q + 1] = q;
	}
	struct ir_kernel km = k;
	static long zero[2];
	km.base = km.stride = zero;
	km.map = map;
	struct ir_func fm = { .nkernel = 1, .kernel = &km };
	check_against_closed_forms(&fm, u);
	struct rt_kernels a, b;
	CHECK(rt_kernels_init(&a, &f, N) == 0 && rt_kernels_init(&b, &fm, N) == 0);
	double ga[N] = { 0 }, gb[N] = { 0 };
	struct vm_input in = { 0 };
	CHECK(rt_kernels_eval(&a, &in, u, NULL, ga) == rt_kernels_eval(&b, &in, u, NULL, gb));
	CHECK(memcmp(ga, gb, sizeof ga) == 0);
	rt_kernels_free(&a);
	rt_kernels_free(&b);
	check_magnitudes(ar);
	arena_free(ar);
	if (failures)
		fprintf(stderr, "test_kernel: %d check%s failed\n", failures, failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}
