/* la_plugin.c — loads the PETSc backend of the matrix layer, the module
 * dyn-petsc.so (runtime/la_petsc.c), when a run first asks for solver =
 * direct | iterative (or dyn --version describes it).  Linking PETSc into
 * dyn itself would load its hundred shared libraries (MPI, MUMPS, hypre,
 * HDF5, ...) at every start of dyn: 70 ms of CPU before the first
 * statement, paid by every run and every test that never solves through
 * PETSc.
 *
 * The module is looked for, in order: $DYN_PETSC_MODULE; next to the dyn
 * executable (the build tree, where the tests run); the installed
 * $(pkglibdir).  Built without PETSc there is no module, and these
 * functions say so. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_PETSC
#include <dlfcn.h>
#endif

#include "la_impl.h"

static char *args[256];
static int nargs;
static int mpi_rank, mpi_size = 1;

void la_mpi_set(int rank, int size)
{
	mpi_rank = rank;
	mpi_size = size;
}

int la_mpi_rank(void)
{
	return mpi_rank;
}

int la_mpi_size(void)
{
	return mpi_size;
}
#ifdef HAVE_PETSC
static char failure[512];
static const struct la_petsc_module *mod;
static int tried;

static const struct la_petsc_module *load_at(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(failure, sizeof failure, "%s", e ? e : path);
		return NULL;
	}
	const struct la_petsc_module *m = dlsym(h, "la_petsc_module");
	if (!m) {
		snprintf(failure, sizeof failure, "%s has no la_petsc_module", path);
		dlclose(h);
	}
	return m;
}

static const struct la_petsc_module *load(void)
{
	if (tried)
		return mod;
	tried = 1;
	const char *env = getenv("DYN_PETSC_MODULE");
	if (env && *env)
		mod = load_at(env);
	if (!mod && !(env && *env)) {
		char exe[4096];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 32);
		if (len > 0) {
			exe[len] = 0;
			char *slash = strrchr(exe, '/');
			if (slash) {
				strcpy(slash + 1, "dyn-petsc.so");
				if (access(exe, R_OK) == 0)
					mod = load_at(exe);
			}
		}
		if (!mod)
			mod = load_at(DYN_PKGLIBDIR "/dyn-petsc.so");
	}
	if (mod) {
		failure[0] = 0;
		mod->args(nargs, args);
	}
	return mod;
}
#endif

void la_backend_args(int argc, char **argv)
{
	nargs = 0;
	for (int k = 0; k < argc && nargs < (int)(sizeof args / sizeof args[0]); k++)
		args[nargs++] = argv[k];
}

const struct la_ops *la_petsc_ops(enum la_backend b)
{
#ifdef HAVE_PETSC
	if (!load())
		return NULL;
	return b == LA_PETSC_ITERATIVE ? mod->iterative : mod->direct;
#else
	(void)b;
	return NULL;
#endif
}

void la_backend_finalize(void)
{
#ifdef HAVE_PETSC
	if (mod)
		mod->finalize();
#endif
}

void la_backend_join(int status)
{
#ifdef HAVE_PETSC
	if (mod)
		mod->join(status);
#else
	(void)status;
#endif
}

const char *la_backend_failure(void)
{
#ifdef HAVE_PETSC
	if (mod)
		return mod->failure();
#endif
	return NULL;
}

const char *la_backend_petsc(void)
{
#ifdef HAVE_PETSC
	if (load())
		return mod->describe();
#endif
	return NULL;
}

int la_mpi_sum(double *x, int k)
{
#ifdef HAVE_PETSC
	if (load())
		return mod->sum(x, k);
#endif
	(void)x;
	(void)k;
	return -1;
}

int la_mpi_exchange(const double *sbuf, const int *scount, const int *sdispl, double *rbuf, const int *rcount,
                    const int *rdispl)
{
#ifdef HAVE_PETSC
	if (load())
		return mod->exchange(sbuf, scount, sdispl, rbuf, rcount, rdispl);
#endif
	(void)sbuf, (void)scount, (void)sdispl, (void)rbuf, (void)rcount, (void)rdispl;
	return -1;
}

int la_mpi_gather(double *x, const int *count, const int *displ)
{
#ifdef HAVE_PETSC
	if (load())
		return mod->gather(x, count, displ);
#endif
	(void)x, (void)count, (void)displ;
	return -1;
}

int la_mpi_graph_partition(int n, const int *p, const int *ix, int *part)
{
#ifdef HAVE_PETSC
	if (load())
		return mod->graph_partition(n, p, ix, part);
#endif
	(void)n, (void)p, (void)ix, (void)part;
	return -1;
}

const char *la_backend_load_error(void)
{
#ifdef HAVE_PETSC
	if (!load())
		return failure[0] ? failure : "the PETSc module dyn-petsc.so was not found";
	return NULL;
#else
	return "this dyn is built without PETSc";
#endif
}
