/* arena.h — bump allocation for the AST and the IR, freed in one call. */
#ifndef DYN_ARENA_H
#define DYN_ARENA_H

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Zeroed memory, aligned for any type.  When the system refuses memory
 * the out-of-memory handler is called, which does not return. */
void *arena_alloc(struct arena *a, size_t size);
/* The same, not zeroed: for a large array its owner fills at once (the
 * zeroing pass is as long as the filling). */
void *arena_alloc_uninit(struct arena *a, size_t size);

/* What memory is being taken for now, as "parsing" and "x.dyn": the
 * out-of-memory message names it.  Both strings must outlive their use
 * (literals, or the file name the driver holds). */
void arena_purpose(const char *what, const char *file);
/* The handler of an exhausted memory (the driver's, which reports and
 * exits), given the purpose; without one the program prints a message and
 * exits with status 3.  arena_out_of_memory calls it (the scanner's fatal
 * errors do). */
void arena_on_oom(void (*handler)(const char *what, const char *file));
_Noreturn void arena_out_of_memory(void);
/* A copy of the old contents in a larger block (the old block stays until
 * the arena is freed). */
void *arena_grow(struct arena *a, void *old, size_t oldsize, size_t newsize);
/* Give back block p early when it was allocated on its own (larger than
 * the arena's chunks, 64 KB: the O(n) arrays of a large model); a smaller
 * block stays until arena_free.  Either way p must not be used afterwards:
 * the caller owns the array and says so.  Returns 1 when released. */
int arena_release(struct arena *a, void *p);
/* Take block p out of the arena when it was allocated on its own (as
 * arena_release): returned as a block of the C library's (its contents
 * moved to the start, p no longer valid), which the caller frees with
 * free().  NULL when p is not a block of its own (the arena keeps it):
 * the caller then copies.  For an array the lowering made that the
 * runtime keeps as it is (a stiffness's entries): no second copy beside
 * the first while the runtime builds its own. */
void *arena_detach(struct arena *a, void *p);
/* arena_grow, then arena_release of the old block: for an array that only
 * its owner points into (no pointer to an element is kept across the
 * call). */
void *arena_regrow(struct arena *a, void *old, size_t oldsize, size_t newsize);
/* The same, the part beyond the old contents not zeroed: for an array
 * whose owner writes an element before reading it (a count says how many
 * are in use). */
void *arena_regrow_uninit(struct arena *a, void *old, size_t oldsize, size_t newsize);
char *arena_strdup(struct arena *a, const char *s);
/* A point to come back to: arena_rewind gives back everything allocated
 * after arena_mark, blocks of their own included, and the arena goes on
 * from there.  For work whose allocations nothing made before the mark
 * points to (a loop's pass that left nothing behind: lang/exec.c). */
struct arena_mark {
	unsigned long serial;
	const void *head;
	size_t used, total;
};
struct arena_mark arena_mark(const struct arena *a);
void arena_rewind(struct arena *a, const struct arena_mark *m);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Bytes handed out so far (for --dump-ir statistics and benchmarks). */
size_t arena_used(const struct arena *a);

#endif
