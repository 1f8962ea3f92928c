/* fuzz.c — libFuzzer entry point over the interpreter.  Each input is a
 * script, executed in a fresh session as `dyn` would (stdlib loaded,
 * quiet, diagnostics and printed output discarded):
 *
 *   fuzz_lower   parse, check, evaluate and lower every run, printing its
 *                IR instead of stepping it (dyn --dump-ir)
 *   fuzz_run     the same, and step the runs (built with FUZZ_RUN)
 *
 * Work is bounded the way Ctrl-C bounds it at the REPL: a timer sets
 * rt_interrupted after FUZZ_MS milliseconds, which stops a run at its next
 * step and an evaluation at its next statement, call or term of a sum
 * (lang/eval.c); libFuzzer's -timeout catches whatever does not stop.
 * Records and plots go into a folder of their own (the sessions' -o).
 * Scripts run on a thread with a 256 MB stack, as in lang/main.c, so the
 * language's nesting limits are those of dyn. */
#include <config.h>

#include "eval.h"
#include "run.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef FUZZ_RUN
#define FUZZ_RUN 0
#endif
enum { FUZZ_MS = 200, FUZZ_MAX_INPUT = 1 << 16 };

static FILE *devnull;
static char outdir[4096];

static void on_alarm(int sig)
{
	(void)sig;
	rt_interrupted = 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull || !freopen("/dev/null", "w", stdout)) {
		perror("fuzz: /dev/null");
		exit(1);
	}
	/* a folder of its own for each process (fork mode starts many),
	 * under FUZZ_WORKDIR (tests/fuzz/fuzz.sh removes it) or /tmp; it is
	 * the sessions' -o, so the current directory (where libFuzzer's
	 * corpus paths may be relative) stays as it is */
	const char *work = getenv("FUZZ_WORKDIR");
	snprintf(outdir, sizeof outdir, "%s/dyn-fuzz-XXXXXX", work && *work ? work : "/tmp");
	if (!mkdtemp(outdir)) {
		perror("fuzz: temporary folder");
		exit(1);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	unsetenv("DYN_PATH");
	unsetenv("DYN_HISTORY_BUDGET");
	unsetenv("DYN_STDLIB");
	return 0;
}

struct input {
	const char *text;
	size_t len;
};

static void *execute(void *arg)
{
	const struct input *in = arg;
	struct session s;
	session_init(&s);
	s.quiet = 1;
	s.diag.warnings_off = 1;
	s.diag.out = devnull;
	s.dump_ir = !FUZZ_RUN;
	s.outdir = outdir;
	if (session_load_stdlib(&s) == 0)
		session_exec_text(&s, "fuzz.dyn", in->text, in->len);
	session_free(&s);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct input in = { text, size };
	struct itimerval on = { { 0, 0 }, { 0, FUZZ_MS * 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	rt_interrupted = 0;
	setitimer(ITIMER_REAL, &on, NULL);
	pthread_attr_t attr;
	pthread_t th;
	if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, (size_t)256 << 20) == 0 &&
	    pthread_create(&th, &attr, execute, &in) == 0)
		pthread_join(th, NULL);
	else
		execute(&in);
	pthread_attr_destroy(&attr);
	setitimer(ITIMER_REAL, &off, NULL);
	rt_interrupted = 0;
	rt_running = 0;
	free(text);
	return 0;
}
