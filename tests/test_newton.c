/* test_newton.c — unit tests of runtime/newton.c on the matrix layer
 * (newton_alloc_mat), with every backend the run's solver option can
 * name, against the known solution and the dense path (newton_alloc).
 *
 * r(x) = A x + ε x³ − b on a chain of n unknowns, A tridiagonal with −1
 * beside the diagonal, b = A x* + ε x*³ for x*_i = 1 + sin(i)/2, ε =
 * 0.01: Newton converges from 0 in a few iterations.  The Jacobian A +
 * 3ε diag(x²) is symmetric; with diagonal 4 it is positive definite
 * (Cholesky), with diagonal ±3 alternating it is indefinite: Cholesky is
 * tried (spd = 1), reports a pivot, and LU takes over for good.  The
 * tolerance 1e-12 is Newton's 1e-14 relative residual times ‖J⁻¹‖, at
 * most 1/(3 − 2) = 1 by Gershgorin's discs here, with margin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la.h"
#include "newton.h"

static int nchecks, nfailed;

static void check_near(double got, double want, double tol, int line, const char *what)
{
	nchecks++;
	if (!(fabs(got - want) <= tol)) {
		nfailed++;
		fprintf(stderr, "test_newton.c:%d: %s = %.17g, want %.17g (tolerance %g)\n", line, what, got, want, tol);
	}
}

static void check_int(int got, int want, int line, const char *what)
{
	nchecks++;
	if (got != want) {
		nfailed++;
		fprintf(stderr, "test_newton.c:%d: %s = %d, want %d\n", line, what, got, want);
	}
}

enum { N = 100 };

struct sys {
	double b[N];
	int indefinite;
	double wall;          /* > 0: r_0 is NaN where x_0 > wall (a domain's edge) */
	struct la_mat *A;     /* NULL: dense J */
	ptrdiff_t slot[N][3]; /* (i, i-1), (i, i), (i, i+1) */
	int spd_calls;
};

static double xstar(int i)
{
	return 1 + sin(i) / 2;
}

static double diag(const struct sys *s, int i)
{
	return s->indefinite ? (i % 2 ? -3 : 3) : 4;
}

static double ax(const struct sys *s, const double *x, int i)
{
	return diag(s, i) * x[i] - (i > 0 ? x[i - 1] : 0) - (i < N - 1 ? x[i + 1] : 0);
}

static int fn(void *ctx, const double *x, double *r, double *J)
{
	struct sys *s = ctx;
	for (int i = 0; i < N; i++)
		r[i] = ax(s, x, i) + 0.01 * x[i] * x[i] * x[i] - s->b[i];
	if (s->wall > 0 && x[0] > s->wall)
		r[0] = NAN;
	if (!J)
		return 0;
	for (int i = 0; i < N; i++) {
		double d = diag(s, i) + 0.03 * x[i] * x[i];
		if (s->A) {
			J[s->slot[i][1]] += d;
			if (i > 0)
				J[s->slot[i][0]] += -1;
			if (i < N - 1)
				J[s->slot[i][2]] += -1;
		} else {
			J[i + (size_t)i * N] += d;
			if (i > 0)
				J[i + (size_t)(i - 1) * N] += -1;
			if (i < N - 1)
				J[i + (size_t)(i + 1) * N] += -1;
		}
	}
	return 0;
}

static void solve(struct sys *s, struct newton *nw, double *x, int line, const char *what)
{
	for (int i = 0; i < N; i++)
		x[i] = 0;
	struct newton_report rep;
	int rc = newton_solve(nw, fn, s, x, 1e-14, 1, 50, &rep);
	check_int(rc, 0, line, what);
	for (int i = 0; i < N; i++)
		check_near(x[i], xstar(i), 1e-12, line, what);
}

int main(void)
{
	struct sys s = { 0 };
	double xs[N], x[N], xd[N];
	int row[3 * N], col[3 * N], k = 0;
	double val[3 * N];
	for (int i = 0; i < N; i++)
		for (int d = -1; d <= 1; d++)
			if (i + d >= 0 && i + d < N) {
				row[k] = i;
				col[k] = i + d;
				val[k++] = 0;
			}
	static const struct {
		enum la_mat_kind kind;
		enum la_backend backend;
		const char *what;
	} cases[] = {
		{ LA_MAT_AUTO, LA_AUTO, "auto (banded)" },
		{ LA_MAT_BAND, LA_LAPACK_BAND, "banded" },
		{ LA_MAT_CSC, LA_CHOLMOD, "CHOLMOD or UMFPACK" },
		{ LA_MAT_DENSE, LA_LAPACK_DENSE, "LAPACK dense on the layer" },
	};
	for (s.indefinite = 0; s.indefinite <= 1; s.indefinite++) {
		for (int i = 0; i < N; i++)
			xs[i] = xstar(i);
		for (int i = 0; i < N; i++)
			s.b[i] = ax(&s, xs, i) + 0.01 * xs[i] * xs[i] * xs[i];
		s.A = NULL;
		struct newton *nw = newton_alloc(N);
		solve(&s, nw, xd, __LINE__, "dense");
		newton_free(nw);
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			for (int spd = 0; spd <= 1; spd++) {
				struct la_mat A;
				check_int(la_mat_triplets(&A, cases[c].kind, N, (size_t)k, row, col, val), 0, __LINE__,
				          "triplets");
				s.A = &A;
				for (int i = 0; i < N; i++)
					for (int d = -1; d <= 1; d++)
						s.slot[i][d + 1] = la_mat_slot(&A, i, i + d);
				nw = newton_alloc_mat(&A, cases[c].backend, spd);
				check_int(nw != NULL, 1, __LINE__, cases[c].what);
				if (nw) {
					/* twice: after a failed Cholesky the LU is kept */
					for (int rep = 0; rep < 2; rep++) {
						solve(&s, nw, x, __LINE__, cases[c].what);
						for (int i = 0; i < N; i++)
							check_near(x[i], xd[i], 1e-12, __LINE__, "against the dense path");
					}
				}
				newton_free(nw);
				la_mat_free(&A);
			}
		}
	}
	/* A residual NaN in one equation is the residual's norm, whatever
	 * follows it: r_0 is NaN beyond a wall at x_0 = 0.5 (a log of a
	 * negative determinant), and the root x* (x*_0 = 1) lies beyond it.
	 * Started at x*, where r_1 ... r_99 vanish, Newton must stop as
	 * diverged (-3) naming equation 0: when the norm let the finite
	 * entries after r_0 hide it, x* "converged" at once (rc 0).  Started
	 * at 0, Newton creeps to the wall (a NaN trial is no decrease) until
	 * the line search's last resort, a step of 2^-12, crosses it. */
	s.indefinite = 0;
	for (int i = 0; i < N; i++)
		s.b[i] = ax(&s, xs, i) + 0.01 * xs[i] * xs[i] * xs[i];
	s.A = NULL;
	s.wall = 0.5;
	{
		struct newton *nw = newton_alloc(N);
		struct newton_report rep;
		for (int i = 0; i < N; i++)
			x[i] = xs[i];
		check_int(newton_solve(nw, fn, &s, x, 1e-14, 1, 50, &rep), -3, __LINE__, "Newton from a NaN residual");
		check_int(rep.worst, 0, __LINE__, "the equation that is NaN");
		check_int(rep.iterations, 0, __LINE__, "iterations from a NaN residual");
		for (int i = 0; i < N; i++)
			x[i] = 0;
		check_int(newton_solve(nw, fn, &s, x, 1e-14, 1, 50, &rep), -3, __LINE__, "Newton up to a NaN wall");
		check_int(rep.worst, 0, __LINE__, "the equation that is NaN");
		newton_free(nw);
	}
	printf("test_newton: %d checks, %d passed, %d failed\n", nchecks, nchecks - nfailed, nfailed);
	return nfailed ? 1 : 0;
}
