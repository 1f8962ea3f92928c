/* arena.h — bump allocation for the AST and the IR, freed in one call. */
#ifndef DYN_ARENA_H
#define DYN_ARENA_H

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Zeroed memory, aligned for any type; aborts only if the system is out of
 * memory (there is no recovery from that in an interpreter). */
void *arena_alloc(struct arena *a, size_t size);
/* A copy of the old contents in a larger block (the old block stays until
 * the arena is freed). */
void *arena_grow(struct arena *a, void *old, size_t oldsize, size_t newsize);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Bytes handed out so far (for --dump-ir statistics and benchmarks). */
size_t arena_used(const struct arena *a);

#endif
