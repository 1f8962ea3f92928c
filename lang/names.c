/* names.c — the hash index of a scope's names (names.h). */
#include <config.h>

#include "names.h"
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

/* Entries pushed since the last indexing that a lookup walks before it
 * indexes them: small scopes (a function's arguments) are never hashed. */
enum { WALK_MAX = 16 };

unsigned long name_index_clock, name_index_touched = ULONG_MAX;

void name_index_init(struct name_index *ix, struct arena *a, size_t name_off, size_t next_off)
{
	memset(ix, 0, sizeof *ix);
	ix->arena = a;
	ix->name_off = name_off;
	ix->next_off = next_off;
	ix->born = ++name_index_clock;
}

static const char *name_of(const struct name_index *ix, void *e)
{
	return *(const char **)((char *)e + ix->name_off);
}

static void *next_of(const struct name_index *ix, void *e)
{
	return *(void **)((char *)e + ix->next_off);
}

/* FNV-1a, then murmur3's finalizer: the table takes the low bits, which
 * FNV's multiplications leave poorly mixed for names that differ in their
 * last digits (x1, x2, ...). */
static size_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return (size_t)h;
}

/* The slot of name: where it is, or the empty slot where it goes.  The
 * slots keep the hashes, so that a probe compares strings (scattered in
 * the arena) only when the hashes agree. */
static struct name_slot *probe(const struct name_index *ix, const char *name)
{
	size_t h = hash(name), i = h & (ix->cap - 1);
	while (ix->slot[i].entry && (ix->slot[i].hash != h || strcmp(name_of(ix, ix->slot[i].entry), name) != 0))
		i = (i + 1) & (ix->cap - 1);
	ix->slot[i].hash = h;   /* for an empty slot, ready for its entry */
	return &ix->slot[i];
}

/* Index the whole list afresh, in a table of at least twice its length:
 * walking newest first, the first entry of each name is kept. */
static void rebuild(struct name_index *ix, void *head, size_t n)
{
	size_t cap = 64;
	while (cap < 2 * n + 2)
		cap *= 2;
	ix->slot = arena_alloc(ix->arena, sizeof *ix->slot * cap);
	if (ix->born < name_index_touched)
		name_index_touched = ix->born;
	ix->cap = cap;
	ix->count = 0;
	for (void *e = head; e; e = next_of(ix, e)) {
		struct name_slot *s = probe(ix, name_of(ix, e));
		if (!s->entry) {
			s->entry = e;
			ix->count++;
		}
	}
	ix->indexed_head = head;
}

/* Index the entries pushed since the last indexing (all of them when the
 * list was cut back below the indexed head, or never indexed). */
static void index_new(struct name_index *ix, void *head)
{
	size_t k = 0;
	void *r = head;
	for (; r && r != ix->indexed_head; r = next_of(ix, r))
		k++;
	if (!r || 2 * (ix->count + k) + 2 > ix->cap) {
		size_t n = k;
		for (; r; r = next_of(ix, r))
			n++;
		rebuild(ix, head, n);
		return;
	}
	/* the new entries, oldest first, each replacing an older entry of its
	 * name: the newest wins */
	void **batch = malloc(sizeof(void *) * k);
	if (!batch)
		return;   /* not indexed: lookups walk, still right */
	k = 0;
	for (r = head; r != ix->indexed_head; r = next_of(ix, r))
		batch[k++] = r;
	while (k > 0) {
		r = batch[--k];
		struct name_slot *s = probe(ix, name_of(ix, r));
		if (!s->entry)
			ix->count++;
		s->entry = r;
	}
	free(batch);
	ix->indexed_head = head;
}

void *name_index_find(struct name_index *ix, void *head, const char *name)
{
	size_t walked = 0;
	void *e = head;
	for (; e && e != ix->indexed_head; e = next_of(ix, e)) {
		if (strcmp(name_of(ix, e), name) == 0)
			return e;
		if (++walked > WALK_MAX && ix->arena) {
			index_new(ix, head);
			if (ix->indexed_head == head)
				return probe(ix, name)->entry;
			break;   /* out of memory: walk on */
		}
	}
	for (; e && e != ix->indexed_head; e = next_of(ix, e))
		if (strcmp(name_of(ix, e), name) == 0)
			return e;
	return e ? probe(ix, name)->entry : NULL;
}

/* The restricted Damerau–Levenshtein distance (insertions, deletions,
 * substitutions and transpositions of adjacent characters, each 1) between
 * two names of at most 63 characters; 64 when either is longer. */
static int distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 63 || m > 63)
		return 64;
	int d[64][64];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int c = a[i - 1] != b[j - 1];
			int x = d[i - 1][j] + 1, y = d[i][j - 1] + 1, z = d[i - 1][j - 1] + c;
			int best = x < y ? x : y;
			best = best < z ? best : z;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

void name_consider(const char *name, const char *cand, const char **best, int *bd)
{
	/* a typo, not another word: at most one edit in four characters,
	 * none in a name of one character (every other one is an edit away) */
	size_t len = strlen(name), clen = strlen(cand);
	int limit = len < 2 ? 0 : (int)len / 4 + 1;
	/* the distance is at least the difference of the lengths: most
	 * candidates of a large scope are refused without the table */
	if ((clen > len ? clen - len : len - clen) > (size_t)limit || strcmp(name, cand) == 0)
		return;
	int dd = distance(name, cand);
	if (dd <= limit && (!*best || dd < *bd)) {
		*best = cand;
		*bd = dd;
	}
}

const char *name_closest(const char *name, const char *const *cand, int n)
{
	const char *best = NULL;
	int bd = 0;
	for (int i = 0; i < n; i++)
		name_consider(name, cand[i], &best, &bd);
	return best;
}
