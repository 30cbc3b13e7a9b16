/* The memory planner on every zoo model: compiles each TOSAC_SHARED_DIR/models/<name> (QDQ
 * models under TOSA-1.0+INT, +int16 when they quantize to int16; float ones under
 * TOSA-1.0+FP; dynamic input dims from the first sample's shapes in meta.json), plans it
 * (tosac_plan_program, no scratch sizes) and prints one markdown table row per model: arena
 * bytes, lower bound, ratio, planned items' graphs, and the planning time.
 * Usage: bench_arena [models dir]. Not a test. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile/compile_plan.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"
#include "util/json.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "--input-shape" texts for the inputs meta.json declares with a symbolic dim. */
static int input_shapes(const tosac_json *meta, char shapes[][256], int max)
{
    const tosac_json *ins = tosac_json_get(meta, "inputs");
    const tosac_json *s0 = tosac_json_get(tosac_json_at(tosac_json_get(meta, "samples"), 0),
                                          "inputs");
    int n = 0;
    for (int i = 0; i < tosac_json_count(ins) && n < max; i++) {
        const tosac_json *in = tosac_json_at(ins, i), *decl = tosac_json_get(in, "shape");
        const char *name = tosac_json_string(tosac_json_get(in, "name"));
        bool symbolic = false;
        for (int k = 0; k < tosac_json_count(decl); k++)
            symbolic |= tosac_json_at(decl, k)->type == TOSAC_JSON_STRING;
        const tosac_json *real = tosac_json_get(tosac_json_get(s0, name), "shape");
        if (!symbolic || !name || tosac_json_count(real) <= 0)
            continue;
        size_t len = (size_t)snprintf(shapes[n], 256, "%s=", name);
        for (int k = 0; k < tosac_json_count(real) && len < 256; k++) {
            int64_t d = 0;
            tosac_json_int(tosac_json_at(real, k), &d);
            len += (size_t)snprintf(shapes[n] + len, 256 - len, "%s%lld", k ? "," : "",
                                    (long long)d);
        }
        n++;
    }
    return n;
}

static void bench_model(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/meta.json", dir, name);
    tosac_error err;
    tosac_error_clear(&err);
    tosac_json *meta = NULL;
    if (tosac_json_parse_file(path, &meta, &err)) {
        printf("| %s | - | - | - | - | - | no meta.json: %s |\n", name, err.msg);
        return;
    }
    const char *format = tosac_json_string(tosac_json_get(meta, "format"));
    bool qdq = format && strcmp(format, "qdq") == 0;
    bool i16 = tosac_json_get(tosac_json_get(meta, "quantize_linear_output_dtypes"), "int16");
    const char *spec = !qdq ? "TOSA-1.0+FP" : i16 ? "TOSA-1.0+INT+int16" : "TOSA-1.0+INT";
    char shapes[8][256];
    const char *sp[8];
    int ns = input_shapes(meta, shapes, 8);
    for (int i = 0; i < ns; i++)
        sp[i] = shapes[i];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
    ir_model *m = NULL;
    tosac_program *p = NULL;
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    o.input_shapes = sp;
    o.n_input_shapes = ns;
    tosac_code rc = onnx_import_file(path, &m, &err);
    if (!rc)
        rc = tosac_compile_model(m, &o, &p, NULL, &err);
    tosac_program_plan pl;
    double t0 = now_ms();
    if (!rc)
        rc = tosac_plan_program(p, NULL, &pl, &err);
    double ms = now_ms() - t0;
    if (rc) {
        printf("| %s | %s | - | - | - | - | error: %s |\n", name, spec, err.msg);
    } else {
        printf("| %s | %s | %llu | %llu | %.4f | %d | %.2f ms |\n", name, spec,
               (unsigned long long)pl.arena_bytes, (unsigned long long)pl.lower_bound_bytes,
               pl.lower_bound_bytes ? (double)pl.arena_bytes / (double)pl.lower_bound_bytes : 1.0,
               pl.n_graphs, ms);
        tosac_program_plan_free(&pl);
    }
    fflush(stdout);
    tosac_program_free(p);
    tosac_json_free(meta);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : TOSAC_SHARED_DIR "/models";
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bench_arena: cannot open %s\n", dir);
        return 2;
    }
    char *names[512];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 512) {
        char meta[4096];
        snprintf(meta, sizeof meta, "%s/%s/meta.json", dir, e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(meta, "rb") : NULL;
        if (f) {
            fclose(f);
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    printf("| model | spec | arena bytes | lower bound | ratio | graphs | plan time |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        bench_model(dir, names[i]);
        free(names[i]);
    }
    return 0;
}
