/* Helpers for cmocka tests: paths to shared data, temp dirs, running the tosac CLI. */
#ifndef TOSAC_TESTUTIL_H
#define TOSAC_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tosac/program.h"
#include "tosac/tensor.h"

/* TOSAC_SHARED_DIR "/" rel, in a static buffer (valid until the next call). */
const char *tu_shared(const char *rel);
/* TOSAC_SOURCE_DIR "/" rel. */
const char *tu_source(const char *rel);
/* A fresh empty directory under /tmp; the path is malloc'd. */
char *tu_mkdtemp(void);
/* Removes a directory tree (rm -rf); _free also frees the malloc'd path (tu_mkdtemp's). */
void tu_rmtree(const char *path);
void tu_rmtree_free(char *path);
/* dir "/" rel in one of 8 rotating static buffers (valid until 8 more calls). */
const char *tu_join(const char *dir, const char *rel);

/* Runs the tosac CLI with the given arguments (NULL-terminated); captures stdout and stderr
 * into malloc'd strings (may pass NULL to discard). Returns the exit status. */
int tu_cli(char **out, char **errout, ...);
int tu_cli_argv(char **out, char **errout, const char *const *args);
/* Asserts the CLI exits 2 with one line on stderr containing needle. */
void tu_cli_expect_exit2(const char *needle, const char *const *args);

/* A seeded pseudo-random generator (xorshift64*) for fuzz loops: the same seed gives the
 * same sequence on every machine, so a failure replays. tu_below(0) is 0. */
void tu_seed(uint64_t seed);
uint32_t tu_rand(void);
uint32_t tu_below(uint32_t n);
/* A malloc'd copy of len bytes (at least 1 allocated): fuzzed parsers get an exactly-sized
 * buffer, so ASan sees any read past its end. */
void *tu_memdup(const void *p, size_t len);

/* The whole file at path, NUL-terminated (malloc'd); the test fails if it cannot be read. */
char *tu_slurp(const char *path);

/* Number of lines in s. */
int tu_count_lines(const char *s);

/* max |a - b| over the float32 elements of two tensors (the test fails if the counts differ). */
float tu_max_abs_diff(const tosac_tensor *a, const tosac_tensor *b);
/* The quantization step of a quantized program's graph output k: the scale of
 * "<name>_quantized", the value the quantizer's Q/DQ pair at the output carries (the test
 * fails if the program has none, e.g. when that DQ runs inside a delegate). */
float tu_output_step(const tosac_program *p, int k);

#endif
