/* names.h — a hash index over a scope's list of names, so that a scope of
 * 10⁶ definitions is searched in constant time, not by walking the list.
 *
 * The scopes of eval.c and check.c are singly linked lists, newest first,
 * that code extends by pushing at the head.  The index follows the list
 * lazily: a lookup walks the entries pushed since the last indexing, then
 * probes the table for the rest; once enough new entries have gathered it
 * indexes them.  The newest entry of a name wins, as in the list. */
#ifndef DYN_NAMES_H
#define DYN_NAMES_H

#include <stddef.h>

struct arena;

struct name_slot {
	size_t hash;
	void *entry;            /* NULL: empty */
};

struct name_index {
	struct arena *arena;    /* NULL: never indexed (small scopes on the stack) */
	struct name_slot *slot; /* open addressing; cap a power of 2 */
	size_t cap, count;
	void *indexed_head;     /* the list's head when it was last indexed */
	size_t name_off, next_off;   /* offsetof(T, name), offsetof(T, next) */
	unsigned long born;     /* name_index_clock when made */
};

/* Each index is stamped when made (name_index_clock counts them), and
 * name_index_touched is the oldest stamp of the indexes whose table was
 * allocated since it was last set (ULONG_MAX: none): a caller about to
 * give back the arena memory made since some point learns whether an
 * older list's index now lives in it (lang/exec.c, a loop's pass). */
extern unsigned long name_index_clock, name_index_touched;

/* Set up the index of a list of T (fields `const char *name` and
 * `T *next`) whose entries live in arena a. */
#define NAME_INDEX_INIT(ix, a, T) \
	name_index_init((ix), (a), offsetof(T, name), offsetof(T, next))
void name_index_init(struct name_index *ix, struct arena *a, size_t name_off, size_t next_off);

/* The newest entry named `name` in the list starting at head, or NULL. */
void *name_index_find(struct name_index *ix, void *head, const char *name);

/* The candidate closest to a misspelt name (a few edits away, for a
 * "did you mean" note), or NULL when none is close. */
const char *name_closest(const char *name, const char *const *cand, int n);
/* The same one candidate at a time: *best (NULL at first, *bd its
 * distance) becomes cand when cand is closer to name. */
void name_consider(const char *name, const char *cand, const char **best, int *bd);

#endif
