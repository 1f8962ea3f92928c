/* ptyrun.c — drives a program through a pseudo-terminal for the REPL's
 * tests: a script of `send TEXT`, `expect TEXT` and `exit N` lines.
 * TEXT takes C escapes (\n, \r, \t, \x03 for Ctrl-C, \x04 for Ctrl-D).  expect
 * waits up to 10 s for TEXT in the output since the previous expect; exit
 * waits for the program to end with status N.  `timeout S` sets that wait
 * to S seconds (a loaded machine); `repeat MS TEXT` sends TEXT every MS
 * milliseconds while the next expect waits (a Ctrl-C that must reach a
 * run, whenever the run begins).  The transcript goes to standard output;
 * any failure is reported on stderr with exit status 1.
 *
 *   ptyrun SCRIPT PROGRAM [ARG]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char out[1 << 20];
static size_t nout, mark;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* read what is available for up to ms milliseconds */
static int pump(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	if (poll(&p, 1, ms) <= 0)
		return 0;
	ssize_t k = read(fd, out + nout, sizeof out - 1 - nout);
	if (k <= 0)
		return -1;
	fwrite(out + nout, 1, (size_t)k, stdout);
	nout += (size_t)k;
	out[nout] = '\0';
	return 1;
}

/* For send, \n is the Enter key (a carriage return); for expect it is
 * the newline the terminal prints. */
static size_t unescape(const char *s, char *d, int sending)
{
	size_t n = 0;
	for (; *s; s++) {
		if (*s != '\\') {
			d[n++] = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': d[n++] = sending ? '\r' : '\n'; break;
		case 'r': d[n++] = '\r'; break;
		case 't': d[n++] = '\t'; break;
		case '\\': d[n++] = '\\'; break;
		case 'x': {
			unsigned v;
			sscanf(s + 1, "%2x", &v);
			d[n++] = (char)v;
			s += 2;
			break;
		}
		default: d[n++] = *s;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ptyrun SCRIPT PROGRAM [ARG]...\n");
		return 2;
	}
	FILE *sf = fopen(argv[1], "r");
	if (!sf) {
		perror(argv[1]);
		return 2;
	}
	struct winsize ws = { 40, 100, 0, 0 };
	int fd;
	pid_t pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		perror("forkpty");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	char line[4096], buf[4096], rep[4096];
	size_t nrep = 0;
	double limit = 10, every = 0;
	int lineno = 0, status = -1, exited = 0;
	while (fgets(line, sizeof line, sf)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "send ", 5) == 0) {
			size_t n = unescape(line + 5, buf, 1);
			for (size_t i = 0; i < n; i++) {
				if (write(fd, buf + i, 1) != 1)
					break;
				pump(fd, 2);
			}
		} else if (strncmp(line, "expect ", 7) == 0) {
			size_t n = unescape(line + 7, buf, 0);
			buf[n] = '\0';
			double t0 = now(), sent = t0;
			char *hit = NULL;
			while (!(hit = strstr(out + mark, buf)) && now() - t0 < limit) {
				if (nrep && now() - sent >= every) {
					if (write(fd, rep, nrep) != (ssize_t)nrep)
						break;
					sent = now();
				}
				if (pump(fd, 100) < 0)
					break;
			}
			nrep = 0;
			if (!hit) {
				fprintf(stderr, "ptyrun: %s:%d: '%s' did not appear\n", argv[1], lineno, line + 7);
				kill(pid, SIGKILL);
				return 1;
			}
			mark = (size_t)(hit - out) + n;
		} else if (strncmp(line, "timeout ", 8) == 0) {
			limit = atof(line + 8);
		} else if (strncmp(line, "repeat ", 7) == 0) {
			char *text = strchr(line + 7, ' ');
			every = atof(line + 7) / 1000;
			nrep = text ? unescape(text + 1, rep, 1) : 0;
		} else if (strncmp(line, "sleep ", 6) == 0) {
			double t0 = now(), ms = atof(line + 6);
			while ((now() - t0) * 1000 < ms)
				pump(fd, 10);
		} else if (strncmp(line, "exit ", 5) == 0) {
			double t0 = now();
			while (!exited && now() - t0 < limit) {
				pump(fd, 100);
				if (waitpid(pid, &status, WNOHANG) == pid)
					exited = 1;
			}
			while (pump(fd, 50) > 0)
				;
			if (!exited || !WIFEXITED(status) || WEXITSTATUS(status) != atoi(line + 5)) {
				fprintf(stderr, "ptyrun: %s:%d: the program %s\n", argv[1], lineno,
				        !exited ? "did not exit" : "exited with another status");
				if (!exited)
					kill(pid, SIGKILL);
				return 1;
			}
		} else if (line[0] && line[0] != '#') {
			fprintf(stderr, "ptyrun: %s:%d: unknown line\n", argv[1], lineno);
			return 2;
		}
	}
	if (!exited) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	return 0;
}
