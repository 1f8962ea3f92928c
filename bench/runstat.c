/* runstat.c — what bench/run.sh measures of one process:
 *
 *   runstat SECONDS FILE COMMAND [ARG]...
 *
 * runs COMMAND with a limit of SECONDS of CPU time (RLIMIT_CPU; 0: none),
 * and of 10 SECONDS of wall time (SIGKILL) against a command that waits,
 * and writes to FILE one line
 *
 *   WALL CPU PEAK STATUS
 *
 * the wall-clock seconds, the CPU seconds (user + system, from wait4's
 * rusage), the peak resident set in kB (ru_maxrss) and the exit status:
 * the command's own, 124 when it was stopped, 128 + N when signal N ended
 * it (the conventions of timeout(1) and the shell).  runstat exits with
 * the same status.  The limit is of CPU time because on a machine shared
 * with other work the wall time of the same run varies fourfold.  GNU time gives the same figures to 10 ms; the CPU time
 * to the microsecond is what makes a 3 ms run of the C reference
 * comparable (a loaded machine stretches wall time, much less CPU time). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t expired;

static void on_alarm(int sig)
{
	(void)sig;
	expired = 1;
}

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: runstat SECONDS FILE COMMAND [ARG]...\n");
		return 2;
	}
	unsigned limit = (unsigned)strtoul(argv[1], NULL, 10);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 125;
	}
	if (pid == 0) {
		/* SIGXCPU at the soft limit ends the command; SIGKILL a second
		 * later if it catches that */
		struct rlimit rl = { (rlim_t)limit, (rlim_t)limit + 1 };
		if (limit && setrlimit(RLIMIT_CPU, &rl) != 0)
			perror("runstat: setrlimit");
		execvp(argv[3], argv + 3);
		fprintf(stderr, "runstat: %s: %s\n", argv[3], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (limit)
		alarm(10 * limit);
	int st = 0, killed = 0;
	struct rusage ru;
	for (;;) {
		if (expired && !killed) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		/* SIGALRM without SA_RESTART interrupts the wait (EINTR) */
		pid_t w = wait4(pid, &st, 0, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("runstat: wait4");
			return 125;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* the kernel's CPU accounting lags its tick: a SIGKILL within a
	 * tenth of the limit is the hard limit's */
	int cpulimit = limit && WIFSIGNALED(st) &&
	               (WTERMSIG(st) == SIGXCPU ||
	                (WTERMSIG(st) == SIGKILL && seconds(ru.ru_utime) + seconds(ru.ru_stime) >= 0.9 * limit));
	int status = killed || cpulimit ? 124 : WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	double cpu = seconds(ru.ru_utime) + seconds(ru.ru_stime);
	FILE *f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%.6f %.6f %ld %d\n", wall, cpu, ru.ru_maxrss, status) < 0 || fclose(f) != 0) {
		perror(argv[2]);
		return 125;
	}
	return status;
}
