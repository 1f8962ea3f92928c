/* mem.h — dyn's allocation of arrays: malloc, calloc and realloc, with
 * a large array backed by huge pages when it is first touched.
 *
 * A model of 10⁶ unknowns sets up dozens of arrays of 4 to 24 MB (its
 * state, its operators, their factors, the lowering's O(n) data).  In
 * 4 kB pages each costs thousands of page faults at its first touch:
 * 66 000 of them on a 10⁶-mass chain, half of its setup's CPU time.
 * Where transparent huge pages are on request (Linux's "madvise" mode,
 * Debian's default), an array given the hint takes 2 MB pages instead.
 * Small arrays go to malloc unchanged.  free() gives any of them back. */
#ifndef DYN_MEM_H
#define DYN_MEM_H

#include <stddef.h>

void *mem_alloc(size_t size);
void *mem_calloc(size_t n, size_t size);
void *mem_realloc(void *p, size_t size);
/* The hint alone, for an array allocated elsewhere (p of size bytes):
 * nothing happens below 4 MB or where the kernel has no such pages. */
void mem_advise_huge(void *p, size_t size);

#endif
