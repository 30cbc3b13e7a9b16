/* A program on the runtime for the CLI (run, bench): the file read into one buffer, one
 * malloc'd arena of tosac_rt_arena_size bytes, inputs copied into the arena. */
#ifndef TOSAC_CLI_RUNTIME_H
#define TOSAC_CLI_RUNTIME_H

#include <stddef.h>

#include "tosac/runtime.h"

typedef struct cli_rt {
    void *program;
    size_t len;
    void *arena;
    size_t arena_bytes;
    tosac_rt *rt;
} cli_rt;

/* Reads, verifies and initialises the program at path (zero r first). */
tosac_code cli_rt_open(const char *path, cli_rt *r, tosac_error *err);
void cli_rt_close(cli_rt *r);
/* Copies t into input i of the runtime (dtype and shape must match its signature). */
tosac_code cli_rt_set_input(tosac_rt *rt, int i, const tosac_tensor *t, tosac_error *err);
/* Input / output names (at most CLI_MAX_VALUES) into names; returns the count. */
int cli_rt_names(const tosac_rt *rt, int outputs, const char **names);

#endif
