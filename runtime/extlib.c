/* extlib.c — loads CHOLMOD, UMFPACK and ARPACK at their first use
 * (extlib.h says why).  A library is loaded once, by its soname, with
 * every function of its list looked up then: a library that lacks one
 * fails at once, not at a later call. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined CHOLMOD_SONAME || defined UMFPACK_SONAME || defined ARPACK_SONAME
#include <dlfcn.h>
#endif

#include "extlib.h"

#if defined CHOLMOD_SONAME || defined UMFPACK_SONAME || defined ARPACK_SONAME
/* The library soname, its functions' names and the table to fill, in
 * the order of the table's members (all function pointers). */
static void load(const char *soname, const char *const *names, void **table, int n)
{
	dlerror();
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		fprintf(stderr, "dyn: cannot load %s, which this run needs: %s\n", soname, e ? e : "dlopen failed");
		exit(3);
	}
	for (int k = 0; k < n; k++) {
		dlerror();
		void *f = dlsym(h, names[k]);
		if (!f) {
			fprintf(stderr, "dyn: %s has no function %s: it is not the library dyn was built with\n", soname,
			        names[k]);
			exit(3);
		}
		table[k] = f;
	}
}
#define EXTLIB_NAME(f) #f,
#define EXTLIB_LOAD(lib, LIST, soname)                                                    \
	static struct extlib_##lib t;                                                     \
	static int loaded;                                                                \
	if (!loaded) {                                                                    \
		static const char *const names[] = { LIST(EXTLIB_NAME) };                 \
		void *p[sizeof names / sizeof names[0]];                                  \
		_Static_assert(sizeof t == sizeof p, "every member a function pointer"); \
		load(soname, names, p, (int)(sizeof names / sizeof names[0]));            \
		memcpy(&t, p, sizeof t);                                                  \
		loaded = 1;                                                               \
	}                                                                                 \
	return &t;
#endif

#define EXTLIB_ADDRESS(f) f,

const struct extlib_cholmod *extlib_cholmod(void)
{
#ifdef CHOLMOD_SONAME
	EXTLIB_LOAD(cholmod, EXTLIB_CHOLMOD, CHOLMOD_SONAME)
#else
	static const struct extlib_cholmod t = { EXTLIB_CHOLMOD(EXTLIB_ADDRESS) };
	return &t;
#endif
}

const struct extlib_umfpack *extlib_umfpack(void)
{
#ifdef UMFPACK_SONAME
	EXTLIB_LOAD(umfpack, EXTLIB_UMFPACK, UMFPACK_SONAME)
#else
	static const struct extlib_umfpack t = { EXTLIB_UMFPACK(EXTLIB_ADDRESS) };
	return &t;
#endif
}

const struct extlib_arpack *extlib_arpack(void)
{
#ifdef ARPACK_SONAME
	EXTLIB_LOAD(arpack, EXTLIB_ARPACK, ARPACK_SONAME)
#else
	static const struct extlib_arpack t = { EXTLIB_ARPACK(EXTLIB_ADDRESS) };
	return &t;
#endif
}
