/* mem.c — malloc, calloc and realloc with the huge-page hint (mem.h).
 * The hint must come before the array is touched: a large block from
 * malloc is a fresh mapping of its own (glibc maps every block above
 * M_MMAP_THRESHOLD, which dyn's main sets to 128 kB), untouched but for
 * its header, and calloc does not clear a fresh mapping, which is zero.
 * Only the 2 MB-aligned interior of a block can take huge pages. */
#define _DEFAULT_SOURCE   /* madvise's MADV_HUGEPAGE under -std=c11 */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

void mem_advise_huge(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (!p || size < 2 * huge)
		return;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + size) & ~(huge - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)size;
#endif
}

void *mem_alloc(size_t size)
{
	void *p = malloc(size);
	mem_advise_huge(p, size);
	return p;
}

void *mem_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (p && size && n <= SIZE_MAX / size)
		mem_advise_huge(p, n * size);
	return p;
}

void *mem_realloc(void *p, size_t size)
{
	void *q = realloc(p, size);
	mem_advise_huge(q, size);
	return q;
}
