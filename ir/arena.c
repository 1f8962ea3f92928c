/* arena.c — bump allocator: large chunks, each allocation 16-byte aligned.
 * AST and IR nodes live until the script (or REPL input) that made them is
 * done, so small ones are never freed individually.  An allocation larger
 * than a chunk (the O(n) arrays of a large model: its dofs, the entries of
 * its operators) gets a chunk of its own, which arena_release can give
 * back early: the owner of such an array says when it is done with it. */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "mem.h"

struct chunk {
	struct chunk *next;
	unsigned long serial;   /* the order of creation (arena_rewind) */
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct arena {
	struct chunk *head;
	size_t total;
	unsigned long serial;   /* the next chunk's */
};

enum { CHUNK_MIN = 64 * 1024 };

static const char *purpose = "starting", *purpose_file;
static void (*oom_handler)(const char *what, const char *file);

void arena_purpose(const char *what, const char *file)
{
	purpose = what;
	purpose_file = file;
}

void arena_on_oom(void (*handler)(const char *what, const char *file))
{
	oom_handler = handler;
}

_Noreturn void arena_out_of_memory(void)
{
	if (oom_handler)
		oom_handler(purpose, purpose_file);
	/* no handler, or one that returned: nothing can go on without the
	 * memory (stderr is unbuffered: the message needs none) */
	fprintf(stderr, "dyn: out of memory while %s%s%s\n", purpose, purpose_file ? " " : "",
	        purpose_file ? purpose_file : "");
	exit(3);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		arena_out_of_memory();
	return p;
}

struct arena *arena_new(void)
{
	struct arena *a = xmalloc(sizeof *a);
	a->head = NULL;
	a->total = 0;
	a->serial = 0;
	return a;
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	struct chunk *c = a->head;
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
	free(a);
}

/* A block of its own for an allocation above CHUNK_MIN, behind the
 * head: the head's room stays for the small allocations that follow.
 * Zeroed by calloc when asked, which clears nothing of a fresh mapping. */
static void *own_chunk(struct arena *a, size_t size, int zero)
{
	struct chunk *c = zero ? mem_calloc(1, sizeof *c + size) : mem_alloc(sizeof *c + size);
	if (!c)
		arena_out_of_memory();
	c->serial = a->serial++;
	c->size = size;
	c->used = size;
	struct chunk **at = a->head ? &a->head->next : &a->head;
	c->next = *at;
	*at = c;
	a->total += size;
	return c->data;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size > CHUNK_MIN)
		return own_chunk(a, size, 1);
	void *p = arena_alloc_uninit(a, size);
	memset(p, 0, size);
	return p;
}

void *arena_alloc_uninit(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct chunk *c = a->head;
	if (size > CHUNK_MIN)
		return own_chunk(a, size, 0);
	if (!c || c->size - c->used < size) {
		c = xmalloc(sizeof *c + CHUNK_MIN);
		c->serial = a->serial++;
		c->size = CHUNK_MIN;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	a->total += size;
	return p;
}

/* The old contents copied into a new block; the rest zeroed when asked
 * (the copied part is never zeroed first: it is as long as the copy). */
static void *grow(struct arena *a, void *old, size_t oldsize, size_t newsize, int zero)
{
	unsigned char *p = arena_alloc_uninit(a, newsize);
	size_t keep = old ? (oldsize < newsize ? oldsize : newsize) : 0;
	if (keep)
		memcpy(p, old, keep);
	if (zero)
		memset(p + keep, 0, ((newsize + 15) & ~(size_t)15) - keep);
	return p;
}

void *arena_grow(struct arena *a, void *old, size_t oldsize, size_t newsize)
{
	return grow(a, old, oldsize, newsize, 1);
}

int arena_release(struct arena *a, void *p)
{
	if (!a || !p)
		return 0;
	/* blocks of their own sit near the head (arena_alloc): the search is
	 * short for the arrays just made */
	for (struct chunk **at = &a->head; *at; at = &(*at)->next) {
		struct chunk *c = *at;
		if ((void *)c->data == p) {
			if (c->size <= CHUNK_MIN)
				return 0;   /* a shared chunk: other blocks may follow */
			*at = c->next;
			free(c);
			return 1;
		}
	}
	return 0;
}

void *arena_detach(struct arena *a, void *p)
{
	if (!a || !p)
		return NULL;
	for (struct chunk **at = &a->head; *at; at = &(*at)->next) {
		struct chunk *c = *at;
		if ((void *)c->data != p)
			continue;
		if (c->size <= CHUNK_MIN)
			return NULL;   /* a shared chunk */
		*at = c->next;
		/* the contents slid to the block's start, which free() takes;
		 * realloc gives back the header's bytes (or moves nothing) */
		size_t size = c->size;
		memmove(c, c->data, size);
		void *q = realloc(c, size);
		return q ? q : c;
	}
	return NULL;
}

void *arena_regrow(struct arena *a, void *old, size_t oldsize, size_t newsize)
{
	void *p = grow(a, old, oldsize, newsize, 1);
	arena_release(a, old);
	return p;
}

void *arena_regrow_uninit(struct arena *a, void *old, size_t oldsize, size_t newsize)
{
	void *p = grow(a, old, oldsize, newsize, 0);
	arena_release(a, old);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

size_t arena_used(const struct arena *a)
{
	return a->total;
}

struct arena_mark arena_mark(const struct arena *a)
{
	struct arena_mark m = { a->serial, a->head, a->head ? a->head->used : 0, a->total };
	return m;
}

/* The chunks made after the mark go; the head of the mark takes its fill
 * back (when it is still there: arena_release may have freed it). */
void arena_rewind(struct arena *a, const struct arena_mark *m)
{
	for (struct chunk **at = &a->head; *at;) {
		struct chunk *c = *at;
		if (c->serial >= m->serial) {
			*at = c->next;
			free(c);
			continue;
		}
		if (c == m->head)
			c->used = m->used;
		at = &c->next;
	}
	a->total = m->total;
}
