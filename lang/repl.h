/* repl.h — the interactive dyn (GNU readline). */
#ifndef DYN_REPL_H
#define DYN_REPL_H

struct session;

/* Read statements and commands until Ctrl-D or :quit, after executing
 * file when it is not NULL (dyn -i FILE).  Returns the exit status. */
int repl_main(struct session *s, const char *file);

#endif
