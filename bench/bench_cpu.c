/* Times the portable CPU executor and its hot kernels, once per kernel variant (portable,
 * and avx2 when the CPU has it; see src/kernels/isa.h):
 *   - zoo models (TOSAC_SHARED_DIR/models/<name>, sample 00), planned once, then run;
 *   - single kernels on layer sizes taken from mobilenet_v2.
 * Prints `name[variant]: value unit` lines: median milliseconds over the runs, and GFLOP/s
 * (2 operations per multiply-accumulate) for the product kernels.
 * Usage: bench_cpu [runs]   (default 9, 1..64). Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu_exec.h"
#include "kernels/binary.h"
#include "kernels/conv.h"
#include "kernels/isa.h"
#include "kernels/quant.h"
#include "kernels/sgemm.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"

#define MAX_RUNS 64

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_cpu: out of memory\n");
        exit(1);
    }
    return p;
}

static float *rand_floats(int64_t n)
{
    float *v = xmalloc((size_t)n * sizeof(float));
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (int64_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
    }
    return v;
}

/* ---- zoo models ---- */

/* Graph input name as the zoo names its .npy file: [A-Za-z0-9_.-] kept, others '_'. */
static void file_name(const char *name, char *out, size_t len)
{
    size_t i = 0;
    for (; name[i] && i + 1 < len; i++) {
        char ch = name[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == '-';
        out[i] = ok ? ch : '_';
    }
    out[i] = '\0';
}

static void bench_model(const char *model, int runs, const char *variant)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s/model.onnx", TOSAC_SHARED_DIR, model);
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    if (onnx_import_file(path, &m, &err)) {
        printf("%s[%s]: skipped (%s)\n", model, variant, err.msg);
        return;
    }
    const ir_graph *g = m->graph;
    tosac_tensor in[16], out[16];
    int n_in = g->n_inputs, n_out = g->n_outputs, ok = n_in <= 16 && n_out <= 16;
    for (int i = 0; ok && i < n_in; i++) {
        char fn[256];
        file_name(g->tensors[g->inputs[i]].name, fn, sizeof fn);
        snprintf(path, sizeof path, "%s/models/%s/inputs/00/%s.npy", TOSAC_SHARED_DIR, model, fn);
        if (tosac_npy_read(path, &in[i], &err)) {
            printf("%s[%s]: skipped (%s)\n", model, variant, err.msg);
            for (int k = 0; k < i; k++)
                tosac_tensor_free(&in[k]);
            ir_model_free(m);
            return;
        }
    }
    cpu_plan *p = NULL;
    int64_t opset = ir_model_opset(m, "");
    if (!ok || cpu_plan_create(g, opset ? opset : 13, &p, &err)) {
        printf("%s[%s]: skipped (%s)\n", model, variant, ok ? err.msg : "too many inputs");
    } else {
        double t[MAX_RUNS];
        int failed = 0;
        for (int r = -1; r < runs && !failed; r++) { /* r = -1: warm-up */
            double t0 = now_ms();
            failed = cpu_plan_run(p, in, n_in, out, n_out, &err) != TOSAC_OK;
            if (r >= 0)
                t[r] = now_ms() - t0;
            for (int k = 0; !failed && k < n_out; k++)
                tosac_tensor_free(&out[k]);
        }
        if (failed)
            printf("%s[%s]: failed (%s)\n", model, variant, err.msg);
        else
            printf("%s[%s]: %.3f ms\n", model, variant, median(t, runs));
    }
    cpu_plan_free(p);
    for (int i = 0; i < n_in; i++)
        tosac_tensor_free(&in[i]);
    ir_model_free(m);
}

/* ---- single kernels ---- */

typedef void (*kernel_fn)(void *ctx);

static void bench_kernel(const char *name, const char *variant, kernel_fn fn, void *ctx,
                         double flops, int runs)
{
    double t[MAX_RUNS];
    fn(ctx); /* warm-up */
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        fn(ctx);
        t[r] = now_ms() - t0;
    }
    double ms = median(t, runs);
    if (flops > 0)
        printf("%s[%s]: %.3f ms (%.1f GFLOP/s)\n", name, variant, ms, flops / ms / 1e6);
    else
        printf("%s[%s]: %.3f ms\n", name, variant, ms);
}

typedef struct conv_case {
    kern_conv_params p;
    float *x, *w, *b, *y, *scratch;
} conv_case;

static void run_conv(void *ctx)
{
    conv_case *c = ctx;
    kern_conv_f32(&c->p, c->x, c->w, c->b, c->y, c->scratch);
}

/* 2-D convolution [1, cin, hw, hw] -> [1, cout, ...], square kernel k, pad k/2. */
static void bench_conv(const char *name, const char *variant, int64_t cin, int64_t cout,
                       int64_t group, int64_t hw, int64_t k, int64_t s, int runs)
{
    conv_case c = {.p = {.nsp = 2, .n = 1, .c = cin, .m = cout, .group = group}};
    for (int i = 0; i < 2; i++) {
        c.p.in[i] = hw;
        c.p.k[i] = k;
        c.p.stride[i] = s;
        c.p.dil[i] = 1;
        c.p.pad[i] = k / 2;
        c.p.out[i] = (hw + 2 * (k / 2) - k) / s + 1;
    }
    int64_t out_sz = c.p.out[0] * c.p.out[1];
    c.x = rand_floats(cin * hw * hw);
    c.w = rand_floats(cout * (cin / group) * k * k);
    c.b = rand_floats(cout);
    c.y = xmalloc((size_t)(cout * out_sz) * sizeof(float));
    c.scratch = xmalloc(kern_conv_f32_scratch(&c.p) * sizeof(float));
    bench_kernel(name, variant, run_conv, &c, 2.0 * cout * (cin / group) * k * k * out_sz, runs);
    free(c.x);
    free(c.w);
    free(c.b);
    free(c.y);
    free(c.scratch);
}

typedef struct gemm_case {
    kern_sgemm g;
    float *scratch;
} gemm_case;

static void run_gemm(void *ctx)
{
    gemm_case *c = ctx;
    kern_sgemm_run(&c->g, c->scratch);
}

static void bench_sgemm(const char *variant, int64_t n, int runs)
{
    gemm_case c = {.g = {.m = n, .n = n, .k = n, .a_rs = n, .a_cs = 1, .b_rs = n, .b_cs = 1,
                         .ldc = n}};
    float *a = rand_floats(n * n), *b = rand_floats(n * n), *y = xmalloc((size_t)(n * n) * 4);
    c.g.a = a;
    c.g.b = b;
    c.g.c = y;
    c.scratch = xmalloc(kern_sgemm_scratch(n, n, n) * sizeof(float));
    char name[64];
    snprintf(name, sizeof name, "sgemm_%lldx%lldx%lld", (long long)n, (long long)n, (long long)n);
    bench_kernel(name, variant, run_gemm, &c, 2.0 * n * n * n, runs);
    free(a);
    free(b);
    free(y);
    free(c.scratch);
}

typedef struct ew_case {
    kern_bcast bc;
    float *a, *b, *y;
    uint8_t *q;
    int quant;
} ew_case;

static void run_ew(void *ctx)
{
    ew_case *c = ctx;
    const float s = 0.05f;
    const uint8_t z = 128;
    if (c->quant == 1)
        kern_quantize_f32(1, 1, c->bc.numel, c->a, &s, TOSAC_DT_U8, &z, c->q);
    else if (c->quant == 2)
        kern_dequantize_f32(1, 1, c->bc.numel, TOSAC_DT_U8, c->q, &s, &z, c->y);
    else
        kern_binary(KERN_MUL, TOSAC_DT_F32, &c->bc, c->a, c->b, c->y);
}

/* Elementwise work on [1, 96, 112, 112]: Mul same-shape, Mul by a per-channel [1, 96, 1, 1],
 * QuantizeLinear and DequantizeLinear (uint8, per tensor). */
static void bench_elementwise(const char *variant, int runs)
{
    static const int64_t full[4] = {1, 96, 112, 112}, chan[4] = {1, 96, 1, 1};
    const char *names[4] = {"mul_same_1x96x112x112", "mul_channel_1x96x112x112",
                            "quantize_u8_1x96x112x112", "dequantize_u8_1x96x112x112"};
    for (int kind = 0; kind < 4; kind++) {
        ew_case c = {.quant = kind >= 2 ? kind - 1 : 0};
        int ranks[2] = {4, 4};
        const int64_t *shapes[2] = {full, kind == 1 ? chan : full};
        kern_bcast_init(&c.bc, 2, ranks, shapes);
        c.a = rand_floats(c.bc.numel);
        c.b = rand_floats(c.bc.numel);
        c.y = xmalloc((size_t)c.bc.numel * sizeof(float));
        c.q = xmalloc((size_t)c.bc.numel);
        memset(c.q, 7, (size_t)c.bc.numel);
        bench_kernel(names[kind], variant, run_ew, &c, 0, runs);
        free(c.a);
        free(c.b);
        free(c.y);
        free(c.q);
    }
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_cpu [runs 1..%d]\n", MAX_RUNS);
        return 2;
    }
    static const char *const models[] = {"mobilenet_v2_f32_op13", "ppocr_mobile_v2_cls",
                                         "silero_vad_op18_ifless", "mobilenet_v2_qdq_u8s8_op13",
                                         "resnet18_qdq_u8s8_op13"};
    const kern_isa isas[2] = {KERN_ISA_PORTABLE, KERN_ISA_AVX2};
    for (int v = 0; v < 2; v++) {
        if (kern_isa_force(isas[v]))
            continue;
        const char *variant = kern_isa_name(isas[v]);
        for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
            bench_model(models[i], runs, variant);
        bench_sgemm(variant, 256, runs);
        bench_conv("conv_pointwise_96x56x56_to_24", variant, 96, 24, 1, 56, 1, 1, runs);
        bench_conv("conv_pointwise_32x112x112_to_16", variant, 32, 16, 1, 112, 1, 1, runs);
        bench_conv("conv_3x3s2_3x224x224_to_32", variant, 3, 32, 1, 224, 3, 2, runs);
        bench_conv("conv_3x3_64x56x56_to_64", variant, 64, 64, 1, 56, 3, 1, runs);
        bench_conv("conv_dw3x3_144x56x56", variant, 144, 144, 144, 56, 3, 1, runs);
        bench_conv("conv_dw3x3s2_96x112x112", variant, 96, 96, 96, 112, 3, 2, runs);
        bench_elementwise(variant, runs);
    }
    return 0;
}
