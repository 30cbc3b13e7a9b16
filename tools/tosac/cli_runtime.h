/* A program on the runtime for the CLI (run, bench): the file read into one buffer, one
 * malloc'd arena of tosac_rt_arena_size bytes, inputs copied into the arena. */
#ifndef TOSAC_CLI_RUNTIME_H
#define TOSAC_CLI_RUNTIME_H

#include <stddef.h>

#include "tosac/runtime.h"

struct tosac_threadpool;

typedef struct cli_rt {
    void *program;
    size_t len;
    void *arena;
    size_t arena_bytes;
    tosac_rt *rt;
    struct tosac_threadpool *pool;  /* --threads N > 1 */
} cli_rt;

/* --threads N and --reference of run and bench. */
typedef struct cli_rt_opts {
    int threads;        /* the accelerated kernels' threads (0 or 1: the calling thread) */
    int reference;      /* 1: every delegate operator on the reference interpreter */
} cli_rt_opts;

/* The value of --threads: a whole number from 1 to TOSAC_THREADPOOL_MAX. */
tosac_code cli_rt_parse_threads(const char *v, int *threads, tosac_error *err);
/* Reads, verifies and initialises the program at path with o (NULL: defaults), with a thread
 * pool and an arena for o->threads (tosac_rt_arena_size_ex). */
tosac_code cli_rt_open(const char *path, const cli_rt_opts *o, cli_rt *r, tosac_error *err);
void cli_rt_close(cli_rt *r);
/* Copies t into input i of the runtime (dtype and shape must match its signature). */
tosac_code cli_rt_set_input(tosac_rt *rt, int i, const tosac_tensor *t, tosac_error *err);
/* Input / output names (at most CLI_MAX_VALUES) into names; returns the count. */
int cli_rt_names(const tosac_rt *rt, int outputs, const char **names);

#endif
