/* Compile time of the zoo's QDQ networks: import, and tosac_compile_model (shapes, passes,
 * partition, lowering, CPU graph) under TOSA-1.0+INT, median over N runs, and the process's
 * peak RSS. Prints `name: value unit` lines. Needs TOSAC_SHARED_DIR (the zoo). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tosac/compile.h"
#include "tosac/onnx.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int bench(const char *name, const char *model, int runs)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s/model.onnx", TOSAC_SHARED_DIR, model);
    double imp[64], comp[64];
    int delegates = 0;
    for (int r = 0; r < runs; r++) {
        tosac_error err;
        tosac_error_clear(&err);
        ir_model *m = NULL;
        double t0 = now_ms();
        if (onnx_import_file(path, &m, &err)) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            return 1;
        }
        double t1 = now_ms();
        tosac_compile_options o;
        memset(&o, 0, sizeof o);
        o.spec = "TOSA-1.0+INT";
        tosac_program *p = NULL;
        if (tosac_compile_model(m, &o, &p, NULL, &err)) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            return 1;
        }
        double t2 = now_ms();
        delegates = tosac_program_n_delegates(p);
        tosac_program_free(p);
        imp[r] = t1 - t0;
        comp[r] = t2 - t1;
    }
    qsort(imp, (size_t)runs, sizeof imp[0], cmp_double);
    qsort(comp, (size_t)runs, sizeof comp[0], cmp_double);
    printf("%s_import: %.2f ms\n", name, imp[runs / 2]);
    printf("%s_compile: %.2f ms\n", name, comp[runs / 2]);
    printf("%s_delegates: %d count\n", name, delegates);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 64) {
        fprintf(stderr, "usage: bench_compile [RUNS 1..64]\n");
        return 2;
    }
    if (bench("resnet18_qdq_u8s8", "resnet18_qdq_u8s8_op13", runs) ||
        bench("mobilenet_v2_qdq_u8s8", "mobilenet_v2_qdq_u8s8_op13", runs))
        return 1;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak_rss: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
