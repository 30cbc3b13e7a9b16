/* Times interpreter operators on realistic layer sizes, one operator at a time through the
 * operator registry (the executor's per-op path without graph scheduling).
 * Prints `name: value unit` lines: median milliseconds over the runs, and GOP/s
 * (2 operations per multiply-accumulate) for the MAC-bound operators.
 * Usage: bench_interp [runs]   (default 5). Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/interp_internal.h"
#include "interp/interp_registry.h"

#define S(...) ((const int64_t[]){__VA_ARGS__})

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

/* A tensor of dt filled with a deterministic pattern that stays small enough for every
 * accumulator (values in [-8, 7]). */
static tosac_tensor make(tosac_dtype dt, int rank, const int64_t *shape)
{
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_tensor_alloc(&t, dt, rank, shape, &err)) {
        fprintf(stderr, "bench_interp: %s\n", err.msg);
        exit(1);
    }
    int64_t n = tosac_tensor_numel(&t);
    for (int64_t i = 0; i < n; i++)
        interp_set_int(&t, i, (int64_t)((i * 7 + 3) % 16) - 8);
    return t;
}

/* Runs op `runs` times on the tensors and prints its median time (and GOP/s when macs > 0).
 * The operands are wired up the way the executor binds them. */
static void bench(const char *name, tosa_op op, const tosa_attr *attr, tosac_tensor **in,
                  int n_in, tosac_tensor *out, double macs, int runs)
{
    interp_op_fn fn = interp_find_op(op);
    if (!fn) {
        printf("%s: skipped (%s not implemented)\n", name, tosa_op_name(op));
        return;
    }
    tosa_tensor tensors[8];
    int idx_in[7], idx_out[1] = {n_in};
    memset(tensors, 0, sizeof tensors);
    for (int i = 0; i <= n_in; i++)
        tensors[i].name = (char *)(i < n_in ? "in" : "out");
    for (int i = 0; i < n_in; i++)
        idx_in[i] = i;
    tosa_block block = {.name = (char *)"main", .tensors = tensors, .n_tensors = n_in + 1};
    tosa_operator o = {.op = op, .inputs = idx_in, .n_inputs = n_in, .outputs = idx_out,
                       .n_outputs = 1};
    if (attr)
        o.attr = *attr;
    tosac_error err;
    interp_ctx c = {.block = &block, .op = &o, .in = in, .n_in = n_in, .out = &out,
                    .n_out = 1, .err = &err};
    double t[64];
    if (runs > 64)
        runs = 64;
    for (int r = 0; r < runs; r++) {
        tosac_error_clear(&err);
        double t0 = now_ms();
        if (fn(&c) != TOSAC_OK) {
            printf("%s: failed: %s\n", name, err.msg);
            return;
        }
        t[r] = now_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    double med = t[runs / 2];
    printf("%s: %.3f ms\n", name, med);
    if (macs > 0)
        printf("%s_rate: %.2f GOP/s\n", name, 2.0 * macs / (med * 1e6));
}

static tosa_attr conv_attr(tosac_dtype acc)
{
    tosa_attr a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < 4; i++)
        a.pad[i] = 1;
    a.n_pad = 4;
    a.stride[0] = a.stride[1] = 1, a.n_stride = 2;
    a.dilation[0] = a.dilation[1] = 1, a.n_dilation = 2;
    a.acc_type = acc;
    return a;
}

/* 3x3, pad 1, 1x56x56x64 -> 64 channels. */
static void bench_conv2d(const char *name, tosac_dtype in_dt, tosac_dtype out_dt,
                         tosac_dtype acc, int runs)
{
    tosac_tensor x = make(in_dt, 4, S(1, 56, 56, 64)), w = make(TOSAC_DT_I8, 4, S(64, 3, 3, 64));
    tosac_tensor b = make(out_dt, 1, S(64)), zi = make(in_dt, 1, S(1)),
                 zw = make(TOSAC_DT_I8, 1, S(1)), out = make(out_dt, 4, S(1, 56, 56, 64));
    interp_set_int(&zi, 0, in_dt == TOSAC_DT_I8 ? 3 : 0); /* only int8 may have one */
    tosac_tensor *in[5] = {&x, &w, &b, &zi, &zw};
    tosa_attr a = conv_attr(acc);
    bench(name, TOSA_OP_CONV2D, &a, in, 5, &out, 56.0 * 56 * 64 * 64 * 9, runs);
    tosac_tensor *all[6] = {&x, &w, &b, &zi, &zw, &out};
    for (int i = 0; i < 6; i++)
        tosac_tensor_free(all[i]);
}

/* 3x3, pad 1, 1x112x112x32, multiplier 1. */
static void bench_depthwise(int runs)
{
    tosac_tensor x = make(TOSAC_DT_I8, 4, S(1, 112, 112, 32)),
                 w = make(TOSAC_DT_I8, 4, S(3, 3, 32, 1)), b = make(TOSAC_DT_I32, 1, S(32)),
                 zi = make(TOSAC_DT_I8, 1, S(1)), zw = make(TOSAC_DT_I8, 1, S(1)),
                 out = make(TOSAC_DT_I32, 4, S(1, 112, 112, 32));
    tosac_tensor *in[5] = {&x, &w, &b, &zi, &zw};
    tosa_attr a = conv_attr(TOSAC_DT_I32);
    bench("depthwise_conv2d_i8_1x112x112x32_3x3", TOSA_OP_DEPTHWISE_CONV2D, &a, in, 5, &out,
          112.0 * 112 * 32 * 9, runs);
    tosac_tensor *all[6] = {&x, &w, &b, &zi, &zw, &out};
    for (int i = 0; i < 6; i++)
        tosac_tensor_free(all[i]);
}

static void bench_matmul(int runs)
{
    tosac_tensor A = make(TOSAC_DT_I8, 3, S(1, 256, 256)), B = make(TOSAC_DT_I8, 3, S(1, 256, 256)),
                 za = make(TOSAC_DT_I8, 1, S(1)), zb = make(TOSAC_DT_I8, 1, S(1)),
                 out = make(TOSAC_DT_I32, 3, S(1, 256, 256));
    tosac_tensor *in[4] = {&A, &B, &za, &zb};
    bench("matmul_i8_256x256x256", TOSA_OP_MATMUL, NULL, in, 4, &out, 256.0 * 256 * 256, runs);
    tosac_tensor *all[5] = {&A, &B, &za, &zb, &out};
    for (int i = 0; i < 5; i++)
        tosac_tensor_free(all[i]);
}

/* ADD and MUL (shift 0) of two int32 tensors of 2^20 elements. */
static void bench_elementwise(int runs)
{
    tosac_tensor a = make(TOSAC_DT_I32, 1, S(1 << 20)), b = make(TOSAC_DT_I32, 1, S(1 << 20)),
                 shift = make(TOSAC_DT_I8, 1, S(1)), out = make(TOSAC_DT_I32, 1, S(1 << 20));
    interp_set_int(&shift, 0, 0);
    tosac_tensor *in[3] = {&a, &b, &shift};
    bench("add_i32_1M", TOSA_OP_ADD, NULL, in, 2, &out, 0, runs);
    bench("mul_i32_1M", TOSA_OP_MUL, NULL, in, 3, &out, 0, runs);
    tosac_tensor *all[4] = {&a, &b, &shift, &out};
    for (int i = 0; i < 4; i++)
        tosac_tensor_free(all[i]);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 64) {
        fprintf(stderr, "usage: bench_interp [runs 1..64]\n");
        return 2;
    }
    printf("runs: %d median\n", runs);
    bench_conv2d("conv2d_i8_1x56x56x64_3x3x64", TOSAC_DT_I8, TOSAC_DT_I32, TOSAC_DT_I32, runs);
    bench_conv2d("conv2d_i16x8_1x56x56x64_3x3x64", TOSAC_DT_I16, TOSAC_DT_I48, TOSAC_DT_I48,
                 runs);
    bench_depthwise(runs);
    bench_matmul(runs);
    bench_elementwise(runs);
    return 0;
}
