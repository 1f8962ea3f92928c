/* outfile.h — files that dyn writes (records, plots), replaced whole.
 *
 * A file is written under a hidden temporary name in its own folder,
 * .NAME.XXXXXX, and renamed to NAME when it is closed: a run killed
 * (SIGKILL, the OOM killer) leaves the old NAME untouched and at most the
 * temporary, never a NAME that looks complete and is not.  A name that
 * exists and is not a regular file (a terminal, /dev/null, a FIFO) is
 * written in place.  A name that is a symbolic link is replaced by the
 * new file, as rename(2) does: the link is not followed. */
#ifndef DYN_OUTFILE_H
#define DYN_OUTFILE_H

#include <stdio.h>

struct rt_outfile {
	const char *path;        /* the final name (not owned) */
	char *tmp;               /* the temporary, or NULL when written in place */
	FILE *f;
	char *buf;               /* f's buffer */
	int err;                 /* errno of the first failed write, or 0 */
	int renamed;             /* committed: the temporary has the final name */
	struct rt_outfile *next; /* live temporaries, for rt_outfile_cleanup */
};

/* Create the temporary (or open a non-regular file in place) for writing.
 * Returns 0, or -1 with errno set. */
int rt_outfile_open(struct rt_outfile *o, const char *path);

/* After rt_outfile_silence(1) every file is opened on /dev/null, its
 * name kept for the messages: the MPI processes other than rank 0 run
 * the same script and write nothing (dyn(1), MPI). */
void rt_outfile_silence(int on);
/* rt_outfile_open whatever rt_outfile_silence said: a file that this
 * process writes itself (its piece of a parallel VTU). */
int rt_outfile_open_own(struct rt_outfile *o, const char *path);

/* Whether the writes so far succeeded: 0, or the errno of the first
 * failure (which is kept in o->err).  Cheap: a flag test per call. */
int rt_outfile_check(struct rt_outfile *o);

/* Close and give the file its name.  After a write error the file is
 * first cut after its last complete line, so that it holds whole rows
 * only.  Returns 0, or the errno of the first write or close error. */
int rt_outfile_commit(struct rt_outfile *o);

/* Close and remove the temporary: NAME keeps what it held before. */
void rt_outfile_discard(struct rt_outfile *o);

/* Remove every live temporary.  Async-signal-safe: for a handler that
 * then ends the process. */
void rt_outfile_cleanup(void);

/* The signals dyn handles (SIGINT, SIGTERM, SIGHUP, SIGXCPU), for masks
 * and handlers. */
extern const int rt_handled_signals[4];

/* s with its control characters escaped (\n, \t, \x1b, ...), as it may be
 * shown on a terminal: a file name or a string in a message must not move
 * the cursor or change the terminal's state.  Bytes that are not UTF-8 are
 * escaped too; the result is cut to fit cap (with "..."). */
const char *rt_escape(char *buf, size_t cap, const char *s);

/* The number of lines of a file committed under its name (after a
 * failed write, the whole rows that rt_outfile_commit kept); -1 when it
 * was written in place or cannot be read. */
long rt_outfile_lines(const struct rt_outfile *o);

#endif
