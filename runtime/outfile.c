/* outfile.c — files replaced whole: written under a temporary name in
 * their folder and renamed when complete (see outfile.h), so that no stop
 * of dyn, however abrupt, leaves a torn file under the name the user
 * asked for; and the escaping of names shown in messages. */
#define _POSIX_C_SOURCE 200809L

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const int rt_handled_signals[4] = { SIGINT, SIGTERM, SIGHUP, SIGXCPU };

/* The temporaries not yet renamed or removed.  The list is changed with
 * the handled signals blocked, so that a handler never sees it half
 * linked. */
static struct rt_outfile *live;

static void block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof rt_handled_signals / sizeof rt_handled_signals[0]; i++)
		sigaddset(&set, rt_handled_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void unblock(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void unlink_live(struct rt_outfile *o)
{
	for (struct rt_outfile **p = &live; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	o->next = NULL;
}

void rt_outfile_cleanup(void)
{
	for (struct rt_outfile *o = live; o; o = o->next)
		if (o->tmp)
			unlink(o->tmp);
}

/* Rows go out in blocks of 64 KiB, whatever the file's st_blksize: fewer
 * system calls, and a write error is found at a step that depends on the
 * bytes written only, the same on every machine. */
static void buffer(struct rt_outfile *o)
{
	/* glibc ignores the size unless it is given the buffer */
	o->buf = malloc((size_t)1 << 16);
	if (o->buf)
		setvbuf(o->f, o->buf, _IOFBF, (size_t)1 << 16);
}

static int silent;

void rt_outfile_silence(int on)
{
	silent = on;
}

static int outfile_open(struct rt_outfile *o, const char *path, int own);

int rt_outfile_open(struct rt_outfile *o, const char *path)
{
	return outfile_open(o, path, 0);
}

int rt_outfile_open_own(struct rt_outfile *o, const char *path)
{
	return outfile_open(o, path, 1);
}

/* /dev/stdout, /dev/fd/N, /proc/self/fd/N and links to them name a
 * process's open files, not files to replace: a new file renamed over
 * /dev/stdout would replace the system's link (and leave the output
 * where it was not asked for).  The descriptor such a name (or the link
 * it is) stands for, or -1; *special when it is any other name under
 * /dev or /proc. */
static int process_fd(const char *path, int *special)
{
	char target[64];
	const char *p = path;
	ssize_t len = readlink(path, target, sizeof target - 1);
	if (len > 0) {
		target[len] = 0;
		if (strncmp(target, "/dev/", 5) == 0 || strncmp(target, "/proc/", 6) == 0)
			p = target;
	}
	*special = strncmp(p, "/dev/", 5) == 0 || strncmp(p, "/proc/", 6) == 0;
	if (strcmp(p, "/dev/stdout") == 0)
		return 1;
	if (strcmp(p, "/dev/stderr") == 0)
		return 2;
	const char *num = strncmp(p, "/dev/fd/", 8) == 0 ? p + 8 : strncmp(p, "/proc/self/fd/", 14) == 0 ? p + 14 : NULL;
	if (!num || !*num || strspn(num, "0123456789") != strlen(num) || strlen(num) > 6)
		return -1;
	return atoi(num);
}

static int outfile_open(struct rt_outfile *o, const char *path, int own)
{
	struct stat st;
	memset(o, 0, sizeof *o);
	o->path = path;
	if (silent && !own) {
		o->f = fopen("/dev/null", "w");
		return o->f ? 0 : -1;
	}
	int special, pfd = process_fd(path, &special);
	if (pfd >= 0 || special) {
		/* the open file itself, sharing its offset (what was printed
		 * stays before the record), or the device written in place */
		if (pfd == 1)
			fflush(stdout);
		int fd = pfd >= 0 ? dup(pfd) : -1;
		o->f = pfd >= 0 ? (fd >= 0 ? fdopen(fd, "w") : NULL) : fopen(path, "w");
		if (!o->f && fd >= 0)
			close(fd);
		if (o->f)
			buffer(o);
		return o->f ? 0 : -1;
	}
	/* a symbolic link is replaced by the new file, not followed (dyn(1),
	 * "OUTPUT FILES"): only a name that is itself a folder or a device
	 * is not */
	int replaces = 0;   /* a regular file, whose permissions the new one keeps */
	if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode)) {
		replaces = S_ISREG(st.st_mode);
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			/* a terminal, /dev/null, a FIFO: nothing to replace */
			o->f = fopen(path, "w");
			if (o->f)
				buffer(o);
			return o->f ? 0 : -1;
		}
	}
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = slash ? slash + 1 : path;
	if (!*base) {
		errno = EISDIR;
		return -1;
	}
	o->tmp = malloc(dlen + strlen(base) + 9);
	if (!o->tmp)
		return -1;
	memcpy(o->tmp, path, dlen);
	sprintf(o->tmp + dlen, ".%s.XXXXXX", base);
	sigset_t old;
	block(&old);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;
		unblock(&old);
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
		return -1;
	}
	o->next = live;
	live = o;
	unblock(&old);
	/* mkstemp makes the file private (0600); a record is an ordinary
	 * file, with the permissions that fopen would have given it, or
	 * those of the file it replaces (a record made read-only by its
	 * user, or shared with a group, stays so, as fopen over it would
	 * have kept them) */
	mode_t mask = umask(022);
	umask(mask);
	fchmod(fd, replaces ? st.st_mode & 0777 : 0666 & ~mask);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		rt_outfile_discard(o);
		errno = e;
		return -1;
	}
	buffer(o);
	return 0;
}

int rt_outfile_check(struct rt_outfile *o)
{
	if (!o->err && o->f && ferror(o->f)) {
		/* A second flush of the same buffer says why again, in case
		 * errno was changed since the failed write; when stdio does
		 * not try again, errno is still the write's. */
		int before = errno;
		errno = 0;
		fflush(o->f);
		o->err = errno ? errno : before ? before : EIO;
	}
	return o->err;
}

/* Cut the file after its last newline: what a failed write left on disk
 * is a prefix of what was written (stdio writes in order), so the rows
 * before the cut are whole. */
static void cut_after_last_line(const char *name)
{
	int fd = open(name, O_RDWR);
	struct stat st;
	if (fd < 0)
		return;
	off_t end = fstat(fd, &st) == 0 ? st.st_size : 0, keep = 0;
	char buf[4096];
	while (end > 0 && keep == 0) {
		off_t from = end > (off_t)sizeof buf ? end - (off_t)sizeof buf : 0;
		ssize_t k = pread(fd, buf, (size_t)(end - from), from);
		if (k <= 0)
			break;
		for (ssize_t i = k - 1; i >= 0; i--)
			if (buf[i] == '\n') {
				keep = from + i + 1;
				break;
			}
		end = from;
	}
	if (ftruncate(fd, keep) != 0) {
		/* the file is then left as it is: its last row may be cut */
	}
	close(fd);
}

int rt_outfile_commit(struct rt_outfile *o)
{
	if (!o->f)
		return o->err;
	rt_outfile_check(o);
	if (!o->err && fflush(o->f) != 0)
		o->err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	o->f = NULL;
	free(o->buf);
	o->buf = NULL;
	if (!o->tmp)
		return o->err;
	if (o->err)
		cut_after_last_line(o->tmp);
	sigset_t old;
	block(&old);
	int rc = rename(o->tmp, o->path), e = errno;
	if (rc != 0)
		unlink(o->tmp);
	o->renamed = rc == 0;
	unlink_live(o);
	unblock(&old);
	free(o->tmp);
	o->tmp = NULL;
	if (rc != 0 && !o->err)
		o->err = e;
	return o->err;
}

long rt_outfile_lines(const struct rt_outfile *o)
{
	/* in place (a device, a FIFO): what reached it cannot be read back */
	if (o->f || !o->renamed)
		return -1;
	int fd = open(o->path, O_RDONLY);
	struct stat st;
	if (fd < 0)
		return -1;
	long lines = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		char buf[65536];
		ssize_t k;
		lines = 0;
		while ((k = read(fd, buf, sizeof buf)) > 0)
			for (ssize_t i = 0; i < k; i++)
				lines += buf[i] == '\n';
		if (k < 0)
			lines = -1;
	}
	close(fd);
	return lines;
}

void rt_outfile_discard(struct rt_outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	free(o->buf);
	o->buf = NULL;
	if (!o->tmp)
		return;
	sigset_t old;
	block(&old);
	unlink(o->tmp);
	unlink_live(o);
	unblock(&old);
	free(o->tmp);
	o->tmp = NULL;
}

/* The length of the UTF-8 sequence at s (1 to 4), or 0 when it is not
 * one or encodes a C1 control (U+0080 to U+009F), which terminals obey
 * like ESC. */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
	if (n == 0 || s[0] >= 0xF5)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if (n == 2 && s[0] == 0xC2 && s[1] < 0xA0)
		return 0;
	if (n == 3 && s[0] == 0xE0 && s[1] < 0xA0)
		return 0;   /* overlong */
	if (n == 3 && s[0] == 0xED && s[1] >= 0xA0)
		return 0;   /* surrogates */
	if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
		return 0;
	return n;
}

const char *rt_escape(char *buf, size_t cap, const char *s)
{
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)s;
	if (cap < 8) {
		if (cap)
			buf[0] = '\0';
		return buf;
	}
	while (*p) {
		char piece[8];
		size_t len;
		int u = *p >= 0x80 ? utf8_len(p) : 0;
		if (u) {
			memcpy(piece, p, (size_t)u);
			len = (size_t)u;
		} else if (*p >= 0x20 && *p != 0x7f && *p < 0x80) {
			piece[0] = (char)*p;
			len = 1;
		} else {
			static const char hex[] = "0123456789abcdef";
			piece[0] = '\\';
			len = 2;
			if (*p == '\n')
				piece[1] = 'n';
			else if (*p == '\t')
				piece[1] = 't';
			else if (*p == '\r')
				piece[1] = 'r';
			else {
				piece[1] = 'x';
				piece[2] = hex[*p >> 4];
				piece[3] = hex[*p & 15];
				len = 4;
			}
		}
		if (n + len + 4 > cap) {
			memcpy(buf + n, "...", 4);
			return buf;
		}
		memcpy(buf + n, piece, len);
		n += len;
		p += u ? u : 1;
	}
	buf[n] = '\0';
	return buf;
}
