/* Model zoo suite: runs one model of /work/shared/models on every sample with the CPU
 * executor and compares each output with onnxruntime's (expected/<sample>/<name>.npy).
 *
 * Tolerances (models/README.md "Suggested tolerances"):
 *   float models: max |got - expected| <= 1e-4 * max |expected|
 *   integer outputs: exact
 *   QDQ models: one quantization step of the output (the scale of the DequantizeLinear that
 *     produces it) + the spread onnxruntime itself shows between its fused integer kernels
 *     and plain DQ -> float op -> Q evaluation (meta.json reference.
 *     max_abs_diff_vs_graph_optimization_disabled, pasted below) + 1e-6 for f32 rounding.
 * Usage: zoo_test MODEL_NAME (one ctest per model, see CMakeLists.txt). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "kernels/kern.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "util/fileio.h"

typedef struct zoo_model {
    const char *name;
    int qdq;
    double spread; /* meta.json reference.max_abs_diff_vs_graph_optimization_disabled (max) */
} zoo_model;

static const zoo_model models[] = {
    {"mobilenet_v2_f32_op13", 0, 0},
    {"ppocr_mobile_v2_cls", 0, 0},
    {"silero_vad_op18_ifless", 0, 0},
    {"synth_int64_ops_op13", 0, 0},
    {"mobilenet_v2_qdq_u8s8_op13", 1, 0.0390944667160511},
    {"resnet18_qdq_u8s8_op13", 1, 0.0506058931350708},
    {"synth_qdq_s16_op21_add", 1, 0}, {"synth_qdq_s16_op21_concat", 1, 0},
    {"synth_qdq_s16_op21_conv", 1, 0}, {"synth_qdq_s16_op21_conv_dw", 1, 0},
    {"synth_qdq_s16_op21_gemm", 1, 0}, {"synth_qdq_s16_op21_matmul", 1, 0},
    {"synth_qdq_s16_op21_mul", 1, 0}, {"synth_qdq_s16_op21_sigmoid", 1, 0},
    {"synth_qdq_s16_op21_softmax", 1, 0}, {"synth_qdq_s16_op21_split_matmul", 1, 0},
    {"synth_qdq_s16_op21_tanh", 1, 0},
    {"synth_qdq_s8_op13_add", 1, 0}, {"synth_qdq_s8_op13_concat", 1, 0},
    {"synth_qdq_s8_op13_conv", 1, 0}, {"synth_qdq_s8_op13_conv_dw", 1, 0},
    {"synth_qdq_s8_op13_gemm", 1, 0}, {"synth_qdq_s8_op13_matmul", 1, 0},
    {"synth_qdq_s8_op13_mul", 1, 0}, {"synth_qdq_s8_op13_sigmoid", 1, 0},
    {"synth_qdq_s8_op13_softmax", 1, 0}, {"synth_qdq_s8_op13_split_matmul", 1, 0},
    {"synth_qdq_s8_op13_tanh", 1, 0},
};

/* The quantization step of a graph output produced by DequantizeLinear (largest scale), or 0. */
static double output_step(const ir_graph *g, int tensor)
{
    int p = ir_graph_producer(g, tensor);
    if (p < 0 || !ir_node_is(&g->nodes[p], "DequantizeLinear") || g->nodes[p].n_inputs < 2)
        return 0;
    tosac_tensor s;
    if (!ir_graph_const_value(g, g->nodes[p].inputs[1], &s))
        return 0;
    double step = 0;
    for (int64_t i = 0; i < tosac_tensor_numel(&s); i++)
        step = fmax(step, fabs(kern_get_f64(s.dtype, s.data, i)));
    return step;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Compares one output; prints and returns 1 on a mismatch. */
static int compare(const char *what, const tosac_tensor *got, const tosac_tensor *exp,
                   const zoo_model *zm, double step)
{
    if (got->dtype != exp->dtype || got->rank != exp->rank ||
        memcmp(got->shape, exp->shape, sizeof(int64_t) * (size_t)got->rank) != 0) {
        char a[128], b[128];
        printf("FAIL %s: got %s%s, expected %s%s\n", what, tosac_dtype_name(got->dtype),
               tosac_shape_str(got->rank, got->shape, a, sizeof a), tosac_dtype_name(exp->dtype),
               tosac_shape_str(exp->rank, exp->shape, b, sizeof b));
        return 1;
    }
    int64_t n = tosac_tensor_numel(exp);
    if (!tosac_dtype_is_float(exp->dtype)) {
        for (int64_t i = 0; i < n; i++)
            if (kern_get_i64(exp->dtype, exp->data, i) != kern_get_i64(got->dtype, got->data, i)) {
                printf("FAIL %s: element %lld is %lld, expected %lld\n", what, (long long)i,
                       (long long)kern_get_i64(got->dtype, got->data, i),
                       (long long)kern_get_i64(exp->dtype, exp->data, i));
                return 1;
            }
        printf("ok   %s: exact\n", what);
        return 0;
    }
    double maxe = 0, maxd = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = kern_get_f64(exp->dtype, exp->data, i), g = kern_get_f64(got->dtype, got->data, i);
        maxe = fmax(maxe, fabs(e));
        double d = fabs(e - g);
        if (isnan(d))
            d = INFINITY;
        maxd = fmax(maxd, d);
    }
    double tol = zm->qdq ? step + zm->spread + 1e-6 : 1e-4 * maxe;
    int bad = !(maxd <= tol);
    printf("%s %s: max abs diff %.3g (tolerance %.3g, max |expected| %.3g)\n", bad ? "FAIL" : "ok  ",
           what, maxd, tol, maxe);
    return bad;
}

static int run_sample(const zoo_model *zm, const ir_model *m, cpu_plan *plan, const char *dir,
                      const char *sample)
{
    const ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int fails = 0;
    tosac_tensor *ins = calloc((size_t)g->n_inputs + 1, sizeof *ins);
    tosac_tensor *outs = calloc((size_t)g->n_outputs + 1, sizeof *outs);
    tosac_code rc = ins && outs ? TOSAC_OK : TOSAC_ERR_INTERNAL;
    char path[8192], name[256];
    for (int i = 0; i < g->n_inputs && !rc; i++) {
        tosac_sanitize_name(g->tensors[g->inputs[i]].name, name, sizeof name);
        snprintf(path, sizeof path, "%s/inputs/%s/%s.npy", dir, sample, name);
        rc = tosac_npy_read(path, &ins[i], &err);
    }
    if (!rc)
        rc = cpu_plan_run(plan, ins, g->n_inputs, outs, g->n_outputs, &err);
    if (rc) {
        printf("FAIL %s sample %s: %s\n", zm->name, sample, err.msg);
        fails++;
    }
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        tosac_sanitize_name(g->tensors[g->outputs[i]].name, name, sizeof name);
        snprintf(path, sizeof path, "%s/expected/%s/%s.npy", dir, sample, name);
        tosac_tensor exp;
        if (tosac_npy_read(path, &exp, &err)) {
            printf("FAIL %s: %s\n", path, err.msg);
            fails++;
            continue;
        }
        char what[512];
        snprintf(what, sizeof what, "%s/%s/%s", zm->name, sample, name);
        fails += compare(what, &outs[i], &exp, zm, output_step(g, g->outputs[i]));
        tosac_tensor_free(&exp);
    }
    for (int i = 0; ins && i < g->n_inputs; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; outs && i < g->n_outputs; i++)
        tosac_tensor_free(&outs[i]);
    free(ins);
    free(outs);
    return fails;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: zoo_test MODEL_NAME\n");
        return 2;
    }
    const zoo_model *zm = NULL;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, argv[1]) == 0)
            zm = &models[i];
    if (!zm) {
        printf("FAIL unknown zoo model %s\n", argv[1]);
        return 1;
    }
    char dir[2048], path[4096];
    snprintf(dir, sizeof dir, "%s/models/%s", TOSAC_SHARED_DIR, zm->name);
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m;
    cpu_plan *plan;
    if (onnx_import_file(path, &m, &err)) {
        printf("FAIL import %s: %s\n", path, err.msg);
        return 1;
    }
    if (cpu_plan_create(m->graph, ir_model_opset(m, ""), &plan, &err)) {
        printf("FAIL plan %s: %s\n", zm->name, err.msg);
        ir_model_free(m);
        return 1;
    }
    snprintf(path, sizeof path, "%s/inputs", dir);
    DIR *d = opendir(path);
    char *samples[64];
    int ns = 0;
    for (struct dirent *e; d && (e = readdir(d)) && ns < 64;)
        if (e->d_name[0] != '.')
            samples[ns++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(samples, (size_t)ns, sizeof samples[0], cmp_str);
    int fails = ns == 0;
    if (ns == 0)
        printf("FAIL %s: no samples in %s\n", zm->name, path);
    for (int i = 0; i < ns; i++) {
        fails += run_sample(zm, m, plan, dir, samples[i]);
        free(samples[i]);
    }
    cpu_plan_free(plan);
    ir_model_free(m);
    printf("%s: %d samples, %d failures\n", zm->name, ns, fails);
    return fails ? 1 : 0;
}
