/* omega.c — ω_max of K(u) φ = ω² M φ by power iteration on the matrix
 * layer (omega.h).
 *
 * The power iteration on M⁻¹K with the Rayleigh quotient θ = xᵀKx/xᵀMx
 * (Golub and Van Loan, "Matrix Computations", §8.2.1): θ never exceeds
 * ω_max² (Courant–Fischer) and approaches it from below.  When K(u) is
 * indefinite and its most negative eigenvalue λ_min dominates, the
 * iteration tends to λ_min; a second iteration then runs on M⁻¹K + σI
 * with σ = −θ (θ ≥ λ_min the first quotient), whose top eigenvalue is
 * ω_max² + σ.  Each iteration is a product with K(u) (the Hessian of Φ
 * on its pattern: runtime/jacobian.c) and a solve with M (factored once
 * by problem_init), O(entries): the same estimate as the dense one of
 * scheme_central_difference.c, which uses n×n arrays. */
#include <config.h>

#include "omega.h"
#include "jacobian.h"
#include "nlstep.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct omega {
	struct rt_problem *pb;
	struct jacobian J;          /* its values: K(u) (and the z blocks) */
	double *x1, *x2, *y, *Mx;   /* N: z entries stay 0 */
	int warm1, warm2;           /* the iterates have converged once */
};

struct omega *omega_alloc(struct rt_problem *pb)
{
	struct omega *o = mem_calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->pb = pb;
	if (jacobian_init(&o->J, pb, 0, LA_MAT_CSC) ||
	    nl_vectors((size_t)pb->N, &o->x1, &o->x2, &o->y, &o->Mx, (double **)NULL)) {
		omega_free(o);
		return NULL;
	}
	return o;
}

void omega_free(struct omega *o)
{
	if (!o)
		return;
	jacobian_free(&o->J);
	free(o->x1); free(o->x2); free(o->y); free(o->Mx);
	free(o);
}

void omega_stiffness(struct omega *o, const double *u, const double *z)
{
	memset(o->J.A.x, 0, sizeof(double) * o->J.A.nx);
	problem_phi(o->pb, u, z, NULL);
	jacobian_add_phi(&o->J, o->pb, NULL, NULL, o->J.A.x);
}

void omega_damping(struct omega *o, const double *v, const double *zd)
{
	memset(o->J.A.x, 0, sizeof(double) * o->J.A.nx);
	problem_psi(o->pb, v, zd, NULL);
	jacobian_add_psi(&o->J, o->pb, NULL, NULL, o->J.A.x);
}

/* y := K x on the dofs (x's z entries are 0; y's are cleared). */
static void kmul(struct omega *o, const double *x, double *y)
{
	la_mat_mul(&o->J.A, x, y);
	for (int j = o->pb->n; j < o->pb->N; j++)
		y[j] = 0;
}

/* la_eig_power's products, on the dofs */
static int pw_kmul(void *ctx, double *x, double *y)
{
	kmul(ctx, x, y);
	return 0;
}

static int pw_mmul(void *ctx, const double *x, double *y)
{
	struct omega *o = ctx;
	la_mat_mul(&o->pb->Mm, x, y);
	return 0;
}

static int pw_msolve(void *ctx, double *b)
{
	struct omega *o = ctx;
	la_solver_solve(o->pb->Mf, b);
	return 0;
}

/* la_eig_power from x with shift σ */
static double power(struct omega *o, double *x, double sigma, int *warm, int it)
{
	struct la_power_ops op = { o, 0, o->pb->n, pw_kmul, pw_mmul, pw_msolve, NULL };
	double theta = 0;
	la_eig_power(&op, x, o->y, o->Mx, sigma, warm, it, &theta);
	return theta;
}

/* la_eig_max's products on the dofs: K(u) is of order N, its z rows
 * and columns left out (x1 and y stage the vectors, z entries 0) */
static void lz_kmul(void *ctx, const double *x, double *y)
{
	struct omega *o = ctx;
	size_t n = (size_t)o->pb->n;
	memcpy(o->x1, x, sizeof(double) * n);
	kmul(o, o->x1, o->y);
	memcpy(y, o->y, sizeof(double) * n);
}

static double lz_mdot(void *ctx, const double *x)
{
	struct omega *o = ctx;
	return la_mat_dot(&o->pb->Mm, x, x);
}

static int lz_msolve(void *ctx, double *b)
{
	struct omega *o = ctx;
	la_solver_solve(o->pb->Mf, b);
	return 0;
}

int omega_lanczos(struct omega *o, double *l)
{
	struct la_eigmax_ops ops = { o, lz_kmul, lz_mdot, lz_msolve, NULL, 0, 0 };
	for (int j = o->pb->n; j < o->pb->N; j++)
		o->x1[j] = 0;
	int rc = la_eig_max(o->pb->n, &ops, 1000, 1e-12, l, NULL);
	/* x1 held the last Lanczos vector: the power iterations start
	 * again (la_eig_power starts a vector of zeros) */
	memset(o->x1, 0, sizeof(double) * (size_t)o->pb->N);
	o->warm1 = 0;
	return rc == 0 || rc == -1 || rc == -3 ? rc : -2;
}

double omega_max2(struct omega *o, int it)
{
	double t1 = power(o, o->x1, 0, &o->warm1, it);
	if (!(t1 < 0))
		return t1;   /* NaN too: a Hessian not finite (nl_central_monitor) */
	double t2 = power(o, o->x2, -t1, &o->warm2, it);
	return fmax(t1, t2);
}
