/* cli.h - the batch commands: `mlsysd sweep` and `mlsysd solve` compute one
 * request without a server (what a Kubernetes Job runs). The request is the
 * body POST /sweep or POST /solve takes; it goes through the same app_handle
 * as an HTTP request, so validation, formats and problems are the server's.
 * Only main.c calls these. */
#ifndef MLSYSD_CLI_H
#define MLSYSD_CLI_H

#include <stdbool.h>

/* Whether argv[1] names a batch command ("sweep", "solve"). */
bool cli_is_command(const char *arg);

/* Run the command argv[0] with its options argv[1..argc-1]. Returns the exit
 * code: 0 done, 2 bad input or usage (the problem's detail on stderr), 1 any
 * other failure (out of memory, unreadable catalog, a write that failed). */
int cli_main(int argc, char **argv);

#endif
