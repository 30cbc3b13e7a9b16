/* Calibration progress for tosac quantize and compile --quantize: one line rewritten in place
 * on stderr (pass, samples done, rate, time left), only when stderr is a terminal, so logs and
 * pipes stay quiet. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct progress_state {
    struct timespec start;
} progress_state;

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void show(void *ctx, const char *pass, int done, int total)
{
    progress_state *p = ctx;
    if (done == 0) { /* each pass restarts the clock */
        clock_gettime(CLOCK_MONOTONIC, &p->start);
        fprintf(stderr, "\r%s: 0/%d samples   ", pass, total);
        fflush(stderr);
        return;
    }
    double t = since(&p->start), rate = t > 0 ? done / t : 0;
    fprintf(stderr, "\r%s: %d/%d samples, %.1f/s, %.0f s left   ", pass, done, total, rate,
            rate > 0 ? (total - done) / rate : 0.0);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

quant_progress_fn cli_quant_progress(void **ctx)
{
    static progress_state state;
    if (cli_quiet || !isatty(STDERR_FILENO))
        return NULL;
    memset(&state, 0, sizeof state);
    clock_gettime(CLOCK_MONOTONIC, &state.start);
    *ctx = &state;
    return show;
}
