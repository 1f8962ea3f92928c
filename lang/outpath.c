/* outpath.c — where a script may write (dyn(1), "OUTPUT FILES").
 *
 * Scripts are shared like documents, so what one writes is confined: its
 * records and plots go into the output folder (-o DIR, or the current
 * folder) or below it, judged on the real path of the file's folder
 * (symbolic links of existing folders resolved), unless dyn runs with
 * --allow-write-anywhere; and never over the script or a module it
 * imports, whatever the options.  Two outputs of one run are the same
 * file when their identities are equal — (device, inode) of an existing
 * file, or of the folder plus the final name for a file still to be
 * created — however their names are spelled. */
#include <config.h>

#include "interp.h"
#include "outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A file the script was read from, named as its messages call it: a
 * script piped from a file (dyn < FILE) is that file, a terminal or a
 * pipe is nothing to protect. */
static void add_input(struct session *s, const char *path, const char *name, int data)
{
	struct stat st;
	if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	for (int i = 0; i < s->ninput; i++)
		if (s->input[i].dev == st.st_dev && s->input[i].ino == st.st_ino)
			return;   /* read again (a loop's pass, a second model) */
	if (s->ninput == s->input_cap) {
		int cap = s->input_cap ? 2 * s->input_cap : 8;
		s->input = arena_grow(s->arena, s->input, sizeof *s->input * (size_t)s->ninput,
		                      sizeof *s->input * (size_t)cap);
		s->input_cap = cap;
	}
	struct out_id *id = &s->input[s->ninput++];
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->name = arena_strdup(s->arena, name);
	id->data = data;
}

void session_add_input(struct session *s, const char *path)
{
	if (path && strcmp(path, "<stdin>") == 0)
		add_input(s, "/dev/stdin", "<stdin>", 0);
	else
		add_input(s, path, path, 0);
}

void session_add_data_input(struct session *s, const char *path)
{
	add_input(s, path, path, 1);
}

/* The real path of a folder (arena), or NULL with errno set. */
static const char *real_folder(struct arena *a, const char *dir)
{
	char *r = realpath(dir, NULL);
	if (!r)
		return NULL;
	const char *copy = arena_strdup(a, r);
	free(r);
	return copy;
}

static int inside(const char *root, const char *dir)
{
	size_t n = strlen(root);
	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(root, dir, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

int outpath_check(struct eval *ev, struct loc loc, const char *path, struct out_id *id)
{
	struct session *s = ev->s;
	char q[256], q2[256];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dir = slash ? (slash == path ? "/" : arena_strndup(ev->a, path, (size_t)(slash - path))) : ".";
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return eval_error(ev, loc, "cannot write '%s': it names a folder, not a file",
		                  rt_escape(q, sizeof q, path));
	const char *rdir = real_folder(ev->a, dir);
	if (!rdir)
		return eval_error(ev, loc, "cannot write '%s': %s", rt_escape(q, sizeof q, path), strerror(errno));
	struct stat st;
	int exists = stat(path, &st) == 0;
	/* a folder is never replaced; a link to one is (dyn(1), "OUTPUT
	 * FILES": a link is replaced by the new file, not followed) */
	struct stat lst;
	if (exists && S_ISDIR(st.st_mode) && lstat(path, &lst) == 0 && !S_ISLNK(lst.st_mode))
		return eval_error(ev, loc, "cannot write '%s': it names a folder, not a file", rt_escape(q, sizeof q, path));
	if (!s->allow_anywhere) {
		const char *outdir = s->outdir && *s->outdir ? s->outdir : ".";
		if (!s->outdir_real && !(s->outdir_real = real_folder(s->arena, outdir)))
			return eval_error(ev, loc, "cannot write '%s': the output folder '%s': %s",
			                  rt_escape(q, sizeof q, path), rt_escape(q2, sizeof q2, outdir), strerror(errno));
		/* a device or a FIFO is written in place, through any link */
		const char *where = rdir;
		if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			const char *rp = real_folder(ev->a, path);
			where = rp ? rp : rdir;
		}
		if (!inside(s->outdir_real, where))
			return eval_error(ev, loc, "'%s' is outside the output folder '%s': a script writes there or "
			                  "below unless dyn runs with --allow-write-anywhere", rt_escape(q, sizeof q, path),
			                  rt_escape(q2, sizeof q2, outdir));
	}
	if (exists) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		id->name = NULL;
		for (int i = 0; i < s->ninput; i++)
			if (s->input[i].dev == st.st_dev && s->input[i].ino == st.st_ino && s->input[i].data) {
				int same = strcmp(path, s->input[i].name) == 0;
				return eval_error(ev, loc, "cannot write '%s': a model of the script reads it%s%s%s: a "
				                  "script's outputs never overwrite its input files", rt_escape(q, sizeof q, path),
				                  same ? "" : " (as '", same ? "" : rt_escape(q2, sizeof q2, s->input[i].name),
				                  same ? "" : "')");
			} else if (s->input[i].dev == st.st_dev && s->input[i].ino == st.st_ino)
				return eval_error(ev, loc, "'%s' is the script '%s': a script's outputs never overwrite it "
				                  "or the modules it imports", rt_escape(q, sizeof q, path),
				                  rt_escape(q2, sizeof q2, s->input[i].name));
		return 0;
	}
	if (stat(rdir, &st) != 0)
		return eval_error(ev, loc, "cannot write '%s': %s", rt_escape(q, sizeof q, path), strerror(errno));
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->name = arena_strdup(ev->a, base);
	return 0;
}

int outpath_same(const struct out_id *a, const struct out_id *b)
{
	if (a->dev != b->dev || a->ino != b->ino || !a->name != !b->name)
		return 0;
	return !a->name || strcmp(a->name, b->name) == 0;
}
