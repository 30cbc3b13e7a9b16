/* Times the accelerated int8 families against the reference interpreter on the layers of the
 * zoo's CNNs: mobilenet_v2's 17 depthwise 3x3 layers (DEPTHWISE_CONV2D + RESCALE, pad 1 for
 * stride 1, [1,0,1,0] for stride 2), resnet18's max pool and mobilenet_v2's global average
 * pool, and a16w8 (int16 x int8/int16 -> int48 + RESCALE) MATMUL and TRANSPOSE_CONV2D layers.
 * Each layer is a one-operator graph prepared once; prints `name: ms` lines, the median
 * over the runs of the summed layers, for the reference and every available variant.
 * Usage: bench_accel [runs]   (default 7; BENCH_MIN=1 in the environment prints the fastest
 * run instead of the median: steadier on a loaded machine). Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/interp_state.h"
#include "kernels/isa.h"
#include "runtime/accel/rt_accel.h"
#include "tosac/tosa.h"

typedef struct layer {
    tosa_graph *g;
    tosac_tensor in;
} layer;

static int add_const(tosa_block *b, tosac_dtype dt, int64_t n, const void *data, size_t bytes)
{
    char name[24];
    snprintf(name, sizeof name, "c%d", b->n_tensors);
    int t = tosa_block_add_tensor(b, name, dt, 1, &n, data, bytes, NULL);
    tosa_block_add_op(b, TOSA_OP_CONST, NULL, NULL, 0, &t, 1, NULL);
    return t;
}

static int add_act(tosa_block *b, tosac_dtype dt, const int64_t *shape)
{
    char name[24];
    snprintf(name, sizeof name, "t%d", b->n_tensors);
    return tosa_block_add_tensor(b, name, dt, 4, shape, NULL, 0, NULL);
}

/* DEPTHWISE_CONV2D 3x3 (+ RESCALE), or a pool (kind 1 max 3x3/2, kind 2 average 7x7). */
static layer make(int kind, int H, int C, int stride)
{
    layer L;
    L.g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(L.g, "main"), "main");
    int OH = kind == 2 ? 1 : stride == 1 ? H : H / 2;
    int64_t ish[4] = {1, H, H, C}, osh[4] = {1, OH, OH, C};
    int8_t zp = 3, z0 = 0;
    int32_t zero32 = 0;
    int x = add_act(b, TOSAC_DT_I8, ish), y;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    if (kind == 0) {
        int8_t *w = malloc((size_t)9 * (size_t)C), *sh = malloc((size_t)C);
        int32_t *bias = malloc(sizeof(int32_t) * (size_t)C), *mul = malloc(sizeof(int32_t) * (size_t)C);
        for (int i = 0; i < 9 * C; i++)
            w[i] = (int8_t)(i * 37 % 255 - 127);
        for (int i = 0; i < C; i++)
            bias[i] = i * 101 % 2001 - 1000, mul[i] = 1500000000 + i, sh[i] = 38;
        int64_t wsh[4] = {3, 3, C, 1};
        int tw = tosa_block_add_tensor(b, "w", TOSAC_DT_I8, 4, wsh, w, (size_t)9 * (size_t)C, NULL);
        tosa_block_add_op(b, TOSA_OP_CONST, NULL, NULL, 0, &tw, 1, NULL);
        int in5[5] = {x, tw, add_const(b, TOSAC_DT_I32, C, bias, sizeof(int32_t) * (size_t)C),
                      add_const(b, TOSAC_DT_I8, 1, &zp, 1), add_const(b, TOSAC_DT_I8, 1, &z0, 1)};
        int acc = add_act(b, TOSAC_DT_I32, osh);
        a.n_stride = a.n_dilation = 2, a.n_pad = 4, a.acc_type = TOSAC_DT_I32;
        a.stride[0] = a.stride[1] = stride, a.dilation[0] = a.dilation[1] = 1;
        a.pad[0] = a.pad[2] = 1, a.pad[1] = a.pad[3] = stride == 1;
        tosa_block_add_op(b, TOSA_OP_DEPTHWISE_CONV2D, &a, in5, 5, &acc, 1, NULL);
        int rin[5] = {acc, add_const(b, TOSAC_DT_I32, C, mul, sizeof(int32_t) * (size_t)C),
                      add_const(b, TOSAC_DT_I8, C, sh, (size_t)C),
                      add_const(b, TOSAC_DT_I32, 1, &zero32, 4), add_const(b, TOSAC_DT_I8, 1, &zp, 1)};
        y = add_act(b, TOSAC_DT_I8, osh);
        memset(&a, 0, sizeof a);
        a.scale32 = a.per_channel = true, a.rounding_mode = TOSA_ROUND_SINGLE;
        tosa_block_add_op(b, TOSA_OP_RESCALE, &a, rin, 5, &y, 1, NULL);
        free(w), free(sh), free(bias), free(mul);
    } else {
        y = add_act(b, TOSAC_DT_I8, osh);
        int k = kind == 1 ? 3 : 7;
        a.n_kernel = a.n_stride = 2, a.n_pad = 4, a.kernel[0] = a.kernel[1] = k;
        a.stride[0] = a.stride[1] = kind == 1 ? 2 : 1;
        a.pad[0] = a.pad[2] = kind == 1, a.acc_type = TOSAC_DT_I32;
        int in3[3] = {x, add_const(b, TOSAC_DT_I8, 1, &zp, 1), add_const(b, TOSAC_DT_I8, 1, &z0, 1)};
        tosa_block_add_op(b, kind == 1 ? TOSA_OP_MAX_POOL2D : TOSA_OP_AVG_POOL2D, &a, in3,
                          kind == 1 ? 1 : 3, &y, 1, NULL);
    }
    tosa_block_set_io(b, &x, 1, &y, 1, NULL);
    memset(&L.in, 0, sizeof L.in);
    L.in.dtype = TOSAC_DT_I8, L.in.rank = 4;
    memcpy(L.in.shape, ish, sizeof ish);
    L.in.nbytes = (size_t)H * (size_t)H * (size_t)C;
    L.in.data = malloc(L.in.nbytes);
    for (size_t i = 0; i < L.in.nbytes; i++)
        ((int8_t *)L.in.data)[i] = (int8_t)(i * 7919 % 256);
    return L;
}

/* An a16w8 layer: MATMUL [1,H,C] x constant [1,C,W] i16 (kind 3: B values up to 255, the
 * widened int8 weights, one pass; kind 4: full-range B, split into bytes), or TRANSPOSE_CONV2D
 * [1,H,H,C] -> [1,2H,2H,W] with a 2x2 kernel, stride 2 (kind 5); then RESCALE i48 -> i16. */
static layer make16(int kind, int H, int C, int W)
{
    layer L;
    L.g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(L.g, "main"), "main");
    int tr = kind == 5;
    int64_t ish[4] = {1, H, tr ? H : C, C}, osh[4] = {1, tr ? 2 * H : H, tr ? 2 * H : W, W};
    int rank = tr ? 4 : 3;
    if (!tr)
        ish[2] = C, osh[2] = W;
    int16_t z16 = 0;
    int8_t z8 = 0, sh = 30;
    int64_t z48 = 0;
    int x = tosa_block_add_tensor(b, "x", TOSAC_DT_I16, rank, ish, NULL, 0, NULL);
    int acc = tosa_block_add_tensor(b, "acc", TOSAC_DT_I48, rank, osh, NULL, 0, NULL);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    if (!tr) {
        int64_t bsh[3] = {1, C, W};
        int16_t *w = malloc(sizeof(int16_t) * (size_t)C * (size_t)W);
        for (int i = 0; i < C * W; i++)
            w[i] = (int16_t)(kind == 3 ? i * 37 % 511 - 255 : i * 7919 % 65536 - 32768);
        int tw = tosa_block_add_tensor(b, "w", TOSAC_DT_I16, 3, bsh, w,
                                       sizeof(int16_t) * (size_t)C * (size_t)W, NULL);
        tosa_block_add_op(b, TOSA_OP_CONST, NULL, NULL, 0, &tw, 1, NULL);
        int in4[4] = {x, tw, add_const(b, TOSAC_DT_I16, 1, &z16, 2),
                      add_const(b, TOSAC_DT_I16, 1, &z16, 2)};
        tosa_block_add_op(b, TOSA_OP_MATMUL, &a, in4, 4, &acc, 1, NULL);
        free(w);
        sh = kind == 3 ? 30 : 40;
    } else {
        int64_t wsh[4] = {W, 2, 2, C};
        int8_t *w = malloc((size_t)4 * (size_t)C * (size_t)W);
        int64_t *bias = calloc((size_t)W, sizeof *bias);
        for (int i = 0; i < 4 * C * W; i++)
            w[i] = (int8_t)(i * 37 % 255 - 127);
        int tw = tosa_block_add_tensor(b, "w", TOSAC_DT_I8, 4, wsh, w, (size_t)4 * C * W, NULL);
        tosa_block_add_op(b, TOSA_OP_CONST, NULL, NULL, 0, &tw, 1, NULL);
        int in5[5] = {x, tw, add_const(b, TOSAC_DT_I48, W, bias, sizeof(int64_t) * (size_t)W),
                      add_const(b, TOSAC_DT_I16, 1, &z16, 2), add_const(b, TOSAC_DT_I8, 1, &z8, 1)};
        a.n_stride = 2, a.n_out_pad = 4, a.acc_type = TOSAC_DT_I48;
        a.stride[0] = a.stride[1] = 2;
        tosa_block_add_op(b, TOSA_OP_TRANSPOSE_CONV2D, &a, in5, 5, &acc, 1, NULL);
        free(w), free(bias);
        sh = 26;
    }
    int16_t mul = 20000;
    int rin[5] = {acc, add_const(b, TOSAC_DT_I16, 1, &mul, 2), add_const(b, TOSAC_DT_I8, 1, &sh, 1),
                  add_const(b, TOSAC_DT_I48, 1, &z48, 8), add_const(b, TOSAC_DT_I16, 1, &z16, 2)};
    int y = tosa_block_add_tensor(b, "y", TOSAC_DT_I16, rank, osh, NULL, 0, NULL);
    memset(&a, 0, sizeof a);
    a.rounding_mode = TOSA_ROUND_SINGLE;
    tosa_block_add_op(b, TOSA_OP_RESCALE, &a, rin, 5, &y, 1, NULL);
    tosa_block_set_io(b, &x, 1, &y, 1, NULL);
    memset(&L.in, 0, sizeof L.in);
    L.in.dtype = TOSAC_DT_I16, L.in.rank = rank;
    memcpy(L.in.shape, ish, sizeof ish);
    L.in.nbytes = sizeof(int16_t) * (size_t)ish[0] * (size_t)ish[1] * (size_t)ish[2] *
                  (size_t)(tr ? ish[3] : 1);
    L.in.data = malloc(L.in.nbytes);
    for (size_t i = 0; i < L.in.nbytes / 2; i++)
        ((int16_t *)L.in.data)[i] = (int16_t)(i * 7919 % 65536 - 32768);
    return L;
}

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

/* Median over runs of the summed execution time of the layers; accel: families installed. */
static double time_layers(layer *ls, int n, int accel, int runs)
{
    interp_state *st[32];
    void *mem[32];
    rt_accel_shared sh[32]; /* the installed kernels keep pointing at theirs */
    tosac_error err = {0};
    for (int i = 0; i < n; i++) {
        interp_prepare(ls[i].g, &st[i], &err);
        size_t bytes = (size_t)16 << 20;
        mem[i] = malloc(bytes);
        tosac_arena arena;
        tosac_arena_init(&arena, mem[i], bytes);
        memset(&sh[i], 0, sizeof sh[i]);
        sh[i].n_threads = 1;
        if (accel && (rt_accel_prepare(st[i], &arena, &sh[i], false, &err) ||
                      rt_accel_finish(&sh[i], &arena, &err)))
            fprintf(stderr, "bench_accel: %s\n", err.msg);
    }
    double t[64];
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        for (int i = 0; i < n; i++)
            interp_execute(st[i], &ls[i].in, 1, &err);
        t[r] = now_ms() - t0;
    }
    for (int i = 0; i < n; i++)
        interp_state_free(st[i]), free(mem[i]);
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    return getenv("BENCH_MIN") ? t[0] : t[runs / 2];
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    runs = runs < 1 ? 1 : runs > 64 ? 64 : runs;
    static const int dw[17][3] = {{112, 32, 1}, {112, 96, 2}, {56, 144, 1}, {56, 144, 2},
                                  {28, 192, 1}, {28, 192, 1}, {28, 192, 2}, {14, 384, 1},
                                  {14, 384, 1}, {14, 384, 1}, {14, 384, 1}, {14, 576, 1},
                                  {14, 576, 1}, {14, 576, 2}, {7, 960, 1},  {7, 960, 1},
                                  {7, 960, 1}};
    layer dws[17], mp = make(1, 112, 64, 2), ap = make(2, 7, 1280, 1);
    for (int i = 0; i < 17; i++)
        dws[i] = make(0, dw[i][0], dw[i][1], dw[i][2]);
    layer mmn = make16(3, 128, 64, 128), mmw = make16(4, 128, 64, 128),
          tc = make16(5, 14, 64, 32);
    struct {
        const char *name;
        layer *ls;
        int n;
    } sets[6] = {{"mobilenet_v2_depthwise_17", dws, 17}, {"resnet18_maxpool", &mp, 1},
                 {"mobilenet_v2_avgpool", &ap, 1}, {"a16w8_matmul_128x64x128_narrow_b", &mmn, 1},
                 {"a16w8_matmul_128x64x128_wide_b", &mmw, 1},
                 {"a16w8_transpose_conv_14x14x64_to_28x28x32", &tc, 1}};
    for (int s = 0; s < 6; s++) {
        printf("%s reference: %.3f ms\n", sets[s].name, time_layers(sets[s].ls, sets[s].n, 0, runs));
        for (int v = 0; v < KERN_ISA_COUNT; v++)
            if (kern_isa_available((kern_isa)v) && kern_isa_force((kern_isa)v) == 0)
                printf("%s %s: %.3f ms\n", sets[s].name, kern_isa_name((kern_isa)v),
                       time_layers(sets[s].ls, sets[s].n, 1, runs));
    }
    return 0;
}
