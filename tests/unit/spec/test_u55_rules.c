/* The u55 subset, one test per row of docs/ETHOS_U_LIMITS.md (shared; Arm Vela 5.1.0 for
 * Ethos-U55): TOSA operators built directly and checked with tosa_validate_op under
 * TOSA-1.0+INT+u55, one just inside the limit (accepted) and one just outside (refused, with
 * the exact reason); where the table says "yes" without a limit, the outside case is the
 * nearest thing Vela refuses (the TOSA level 8K it checks every graph against, a type row).
 * Also the reordering that keeps a widening RESCALE next to its ADD (lower_u55_order). */
#include "backend_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/validate.h"

static tosa_graph *G;
static tosa_block *B;
static tosac_error E;
static int n_names;
static tosa_spec U55, U55_16, U55_4, U55_64;

static void fresh(void)
{
    tosa_graph_free(G);
    tosac_error_clear(&E);
    G = tosa_graph_new(1, 0);
    B = tosa_region_add_block(tosa_graph_add_region(G, "main"), "main");
    assert_non_null(B);
}

static const char *name(void)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "t%d", n_names++);
    return buf;
}

/* A runtime tensor (no data). */
static int act(tosac_dtype dt, int rank, const int64_t *shape)
{
    int k = tosa_block_add_tensor(B, name(), dt, rank, shape, NULL, 0, &E);
    assert_true(k >= 0);
    return k;
}

static int act4(tosac_dtype dt, int64_t n, int64_t h, int64_t w, int64_t c)
{
    const int64_t s[4] = {n, h, w, c};
    return act(dt, 4, s);
}

/* A constant of shape [n] holding v (zeros past nv) with its CONST / CONST_SHAPE. */
static int cst(tosac_dtype dt, int64_t n, const int64_t *v, int nv)
{
    static uint8_t buf[1 << 16];
    tosac_dtype store = dt == TOSAC_DT_SHAPE ? TOSAC_DT_I64 : dt;
    size_t sz = tosac_dtype_size(store);
    memset(buf, 0, (size_t)n * sz);
    for (int i = 0; i < nv; i++) {
        int64_t x = v[i];
        switch (store) {
        case TOSAC_DT_BOOL: case TOSAC_DT_I8: case TOSAC_DT_I4: buf[i] = (uint8_t)x; break;
        case TOSAC_DT_I16: memcpy(buf + 2 * i, &(int16_t){(int16_t)x}, 2); break;
        case TOSAC_DT_I32: memcpy(buf + 4 * i, &(int32_t){(int32_t)x}, 4); break;
        default: memcpy(buf + 8 * i, &x, 8); break;
        }
    }
    int k = tosa_block_add_tensor(B, name(), dt, 1, &n, buf, (size_t)n * sz, &E);
    assert_true(k >= 0);
    assert_true(tosa_block_add_op(B, dt == TOSAC_DT_SHAPE ? TOSA_OP_CONST_SHAPE : TOSA_OP_CONST,
                                  NULL, NULL, 0, &k, 1, &E) >= 0);
    return k;
}

static int scalar(tosac_dtype dt, int64_t v) { return cst(dt, 1, &v, 1); }

/* A zero-filled constant of any shape (weights). */
static int weights(tosac_dtype dt, int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    size_t size = (size_t)n * tosac_dtype_size(dt);
    void *zeros = calloc(1, size);
    assert_non_null(zeros);
    int k = tosa_block_add_tensor(B, name(), dt, rank, shape, zeros, size, &E);
    free(zeros);
    assert_true(k >= 0);
    assert_true(tosa_block_add_op(B, TOSA_OP_CONST, NULL, NULL, 0, &k, 1, &E) >= 0);
    return k;
}

static tosa_attr attr(void)
{
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.nan_mode = TOSA_NAN_PROPAGATE;
    a.rounding_mode = TOSA_ROUND_SINGLE;
    a.mode = TOSA_RESIZE_NEAREST;
    a.round = true;
    return a;
}

static int op(tosa_op o, const tosa_attr *a, const int *in, int nin, int out)
{
    tosa_attr none = attr();
    int k = tosa_block_add_op(B, o, a ? a : &none, in, nin, &out, 1, &E);
    assert_true(k >= 0);
    return k;
}

static void ok(const tosa_spec *sp, int k)
{
    char why[512];
    if (!tosa_validate_op(sp, B, k, why, sizeof why))
        fail_msg("refused: %s", why);
}

static void no(const tosa_spec *sp, int k, const char *want)
{
    char why[512];
    assert_false(tosa_validate_op(sp, B, k, why, sizeof why));
    assert_string_equal(why, want);
}

static tosac_dtype wider(tosac_dtype dt)
{
    return dt == TOSAC_DT_I16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
}

/* RESCALE x -> out (dtype dt) by m * 2^-sh per channel (n channels), zero points izp/ozp. */
static int rescale_to(int x, int out, int64_t m, int64_t sh, int n, int64_t izp, int64_t ozp)
{
    tosac_dtype in = B->tensors[x].dtype, od = B->tensors[out].dtype;
    tosa_attr a = attr();
    a.scale32 = in != TOSAC_DT_I48;
    a.per_channel = n > 1;
    int64_t ms[64], ss[64];
    for (int i = 0; i < n; i++) {
        ms[i] = m;
        ss[i] = sh;
    }
    int ins[5] = {x, cst(a.scale32 ? TOSAC_DT_I32 : TOSAC_DT_I16, n, ms, n),
                  cst(TOSAC_DT_I8, n, ss, n), scalar(in, izp), scalar(od, ozp)};
    return op(TOSA_OP_RESCALE, &a, ins, 5, out);
}

/* A convolution-class op on x writing acc; weights w (weight_zp typed like w). */
static int conv(tosa_op o, int x, int w, int bias, int acc, const tosa_attr *a)
{
    int ins[5] = {x, w, bias, scalar(B->tensors[x].dtype, 0), scalar(B->tensors[w].dtype, 0)};
    return op(o, a, ins, 5, acc);
}

static tosa_attr conv_attr(int stride, int dilation, tosac_dtype acc)
{
    tosa_attr a = attr();
    a.n_pad = 4;
    a.n_stride = 2;
    a.stride[0] = a.stride[1] = stride;
    a.n_dilation = 2;
    a.dilation[0] = a.dilation[1] = dilation;
    a.acc_type = acc;
    return a;
}

static int bias(tosac_dtype dt, int64_t n) { return cst(dt, n, NULL, 0); }

static void setup_specs(void)
{
    U55 = bt_spec("TOSA-1.0+INT+u55");
    U55_16 = bt_spec("TOSA-1.0+INT+int16+u55");
    U55_4 = bt_spec("TOSA-1.0+INT+int4+u55");
    U55_64 = bt_spec("TOSA-1.1+INT+int64+u55");
}

/* ---- Operators ---- */

static void test_conv2d(void **s)
{
    (void)s;
    fresh();
    const int64_t ws[4] = {8, 3, 3, 4};
    tosa_attr a = conv_attr(1, 1, TOSAC_DT_I32);
    int x = act4(TOSAC_DT_I8, 1, 8, 8, 4);
    int c1 = conv(TOSA_OP_CONV2D, x, weights(TOSAC_DT_I8, 4, ws), bias(TOSAC_DT_I32, 8),
                  act4(TOSAC_DT_I32, 1, 6, 6, 8), &a);
    ok(&U55, c1);
    int c2 = conv(TOSA_OP_CONV2D, x, act(TOSAC_DT_I8, 4, ws), bias(TOSAC_DT_I32, 8),
                  act4(TOSAC_DT_I32, 1, 6, 6, 8), &a);
    no(&U55, c2, "U55 restriction: CONV2D weights are not constant (Ethos-U55 takes constant "
                 "weights only)");
    /* int16: the int48 accumulator must feed a RESCALE to i8/i16/i32 */
    tosa_attr a16 = conv_attr(1, 1, TOSAC_DT_I48);
    int x16 = act4(TOSAC_DT_I16, 1, 8, 8, 4), acc = act4(TOSAC_DT_I48, 1, 6, 6, 8);
    int c3 = conv(TOSA_OP_CONV2D, x16, weights(TOSAC_DT_I8, 4, ws), bias(TOSAC_DT_I48, 8), acc,
                  &a16);
    no(&U55_16, c3, "U55 restriction: int16 CONV2D whose int48 accumulator is not followed by a "
                    "RESCALE to i8/i16/i32");
    rescale_to(acc, act4(TOSAC_DT_I16, 1, 6, 6, 8), 16384, 20, 8, 0, 0);
    ok(&U55_16, c3);
}

static void test_depthwise_conv2d(void **s)
{
    (void)s;
    fresh();
    const int64_t ws[4] = {3, 3, 4, 2}; /* depth multiplier 2: Vela decomposes it */
    tosa_attr a = conv_attr(1, 1, TOSAC_DT_I32);
    int x = act4(TOSAC_DT_I8, 1, 8, 8, 4);
    ok(&U55, conv(TOSA_OP_DEPTHWISE_CONV2D, x, weights(TOSAC_DT_I8, 4, ws), bias(TOSAC_DT_I32, 8),
                  act4(TOSAC_DT_I32, 1, 6, 6, 8), &a));
    no(&U55, conv(TOSA_OP_DEPTHWISE_CONV2D, x, act(TOSAC_DT_I8, 4, ws), bias(TOSAC_DT_I32, 8),
                  act4(TOSAC_DT_I32, 1, 6, 6, 8), &a),
       "U55 restriction: DEPTHWISE_CONV2D weights are not constant (Ethos-U55 takes constant "
       "weights only)");
}

static int tconv(int64_t h, int64_t w, int64_t kh, int64_t kw, int sy, int sx, bool const_bias)
{
    const int64_t ws[4] = {4, kh, kw, 2};
    tosa_attr a = attr();
    a.n_out_pad = 4;
    a.n_stride = 2;
    a.stride[0] = sy;
    a.stride[1] = sx;
    a.acc_type = TOSAC_DT_I32;
    int x = act4(TOSAC_DT_I8, 1, h, w, 2);
    int b = const_bias ? bias(TOSAC_DT_I32, 4) : act(TOSAC_DT_I32, 1, (int64_t[]){4});
    int64_t oh = (h - 1) * sy + kh, ow = (w - 1) * sx + kw;
    return conv(TOSA_OP_TRANSPOSE_CONV2D, x, weights(TOSAC_DT_I8, 4, ws), b,
                act4(TOSAC_DT_I32, 1, oh, ow, 4), &a);
}

static void test_transpose_conv2d(void **s)
{
    (void)s;
    fresh();
    ok(&U55, tconv(4, 4, 3, 3, 2, 2, true));
    ok(&U55, tconv(4, 4, 3, 3, 1, 1, true));
    no(&U55, tconv(4, 4, 3, 3, 3, 3, true), "U55 restriction: TRANSPOSE_CONV2D stride 3x3 "
       "(Ethos-U55: 1x1, 2x2, 2x1 on width-1 input and kernel, 1x2 on height-1 input and "
       "kernel)");
    ok(&U55, tconv(4, 1, 3, 1, 2, 1, true)); /* a 1-D transposed conv along the height */
    no(&U55, tconv(4, 2, 3, 1, 2, 1, true), "U55 restriction: TRANSPOSE_CONV2D stride 2x1 "
       "(Ethos-U55: 1x1, 2x2, 2x1 on width-1 input and kernel, 1x2 on height-1 input and "
       "kernel)");
    ok(&U55, tconv(1, 4, 1, 3, 1, 2, true));
    no(&U55, tconv(4, 4, 3, 3, 2, 2, false), "U55 restriction: TRANSPOSE_CONV2D bias is not "
                                             "constant");
}

static void test_conv3d(void **s)
{
    (void)s;
    fresh();
    const int64_t xs[5] = {1, 4, 6, 6, 2}, ws[5] = {4, 3, 3, 3, 2}, ys[5] = {1, 2, 4, 4, 4};
    tosa_attr a = attr();
    a.n_pad = 6;
    a.n_stride = 3;
    a.stride[0] = a.stride[1] = a.stride[2] = 1;
    a.n_dilation = 3;
    a.dilation[0] = a.dilation[1] = a.dilation[2] = 1;
    a.acc_type = TOSAC_DT_I32;
    int x = act(TOSAC_DT_I8, 5, xs);
    ok(&U55, conv(TOSA_OP_CONV3D, x, weights(TOSAC_DT_I8, 5, ws), bias(TOSAC_DT_I32, 4),
                  act(TOSAC_DT_I32, 5, ys), &a));
    no(&U55, conv(TOSA_OP_CONV3D, x, weights(TOSAC_DT_I8, 5, ws),
                  act(TOSAC_DT_I32, 1, (int64_t[]){4}), act(TOSAC_DT_I32, 5, ys), &a),
       "U55 restriction: CONV3D bias is not constant");
}

static int pool(tosa_op o, tosac_dtype dt, int64_t h, int64_t w, int kh, int kw, int stride,
                int pad)
{
    tosa_attr a = attr();
    a.n_kernel = 2;
    a.kernel[0] = kh;
    a.kernel[1] = kw;
    a.n_stride = 2;
    a.stride[0] = a.stride[1] = stride;
    a.n_pad = 4;
    for (int i = 0; i < 4; i++)
        a.pad[i] = pad;
    a.acc_type = TOSAC_DT_I32;
    int64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
    int x = act4(dt, 1, h, w, 8), y = act4(dt, 1, oh, ow, 8);
    if (o == TOSA_OP_MAX_POOL2D)
        return op(o, &a, &x, 1, y);
    int ins[3] = {x, scalar(dt, 0), scalar(dt, 0)};
    return op(o, &a, ins, 3, y);
}

static void test_avg_pool2d(void **s)
{
    (void)s;
    fresh();
    /* ppocr's global average pools: unpadded, any kernel */
    ok(&U55, pool(TOSA_OP_AVG_POOL2D, TOSAC_DT_I8, 12, 96, 12, 96, 1, 0));
    ok(&U55_16, pool(TOSA_OP_AVG_POOL2D, TOSAC_DT_I16, 12, 96, 12, 96, 1, 0));
    ok(&U55, pool(TOSA_OP_AVG_POOL2D, TOSAC_DT_I8, 16, 16, 8, 8, 1, 1));
    no(&U55, pool(TOSA_OP_AVG_POOL2D, TOSAC_DT_I8, 16, 16, 9, 8, 1, 1),
       "U55 restriction: padded AVG_POOL2D kernel 9x8 larger than 8x8");
}

static void test_max_pool2d(void **s)
{
    (void)s;
    fresh();
    ok(&U55, pool(TOSA_OP_MAX_POOL2D, TOSAC_DT_I8, 200, 200, 100, 100, 4, 1));
    ok(&U55, pool(TOSA_OP_MAX_POOL2D, TOSAC_DT_I8, 8192, 2, 8192, 1, 1, 0));
    no(&U55, pool(TOSA_OP_MAX_POOL2D, TOSAC_DT_I8, 8193, 2, 8193, 1, 1, 0),
       "U55 restriction: MAX_POOL2D dilation x kernel 8193 exceeds MAX_KERNEL 8192 of level 8K "
       "(Vela checks the 8K level)");
}

static int matmul(tosac_dtype dt)
{
    const int64_t as[3] = {2, 4, 32}, bs[3] = {2, 32, 8}, ys[3] = {2, 4, 8};
    int ins[4] = {act(dt, 3, as), act(dt, 3, bs), scalar(dt, 0), scalar(dt, 0)};
    return op(TOSA_OP_MATMUL, NULL, ins, 4, act(wider(dt), 3, ys));
}

static void test_matmul(void **s)
{
    (void)s;
    fresh();
    ok(&U55, matmul(TOSAC_DT_I8)); /* batch 2: Vela decomposes it */
    no(&U55_16, matmul(TOSAC_DT_I16), "U55 restriction: MATMUL of int16 activations is "
                                               "not supported on Ethos-U55 (int8 x int8 only)");
}

static int binary(tosa_op o, tosac_dtype in, tosac_dtype out, const int64_t *sa,
                  const int64_t *sb, const int64_t *sy)
{
    int ins[3] = {act(in, 4, sa), act(in, 4, sb), o == TOSA_OP_MUL ? scalar(TOSAC_DT_I8, 0) : -1};
    return op(o, NULL, ins, o == TOSA_OP_MUL ? 3 : 2, act(out, 4, sy));
}

static const int64_t S[4] = {1, 4, 4, 8};

static void test_add_sub(void **s)
{
    (void)s;
    fresh();
    ok(&U55, binary(TOSA_OP_ADD, TOSAC_DT_I32, TOSAC_DT_I32, S, S, S));
    ok(&U55, binary(TOSA_OP_SUB, TOSAC_DT_I32, TOSAC_DT_I32, S, S, S));
    fresh();
    no(&U55_64, binary(TOSA_OP_ADD, TOSAC_DT_I64, TOSAC_DT_I64, S, S, S),
       "U55 restriction: ADD on int64 tensors is not supported on Ethos-U55");
}

/* MUL of two int32 runtime values; returns its output. */
static int mul32(void)
{
    int y = act(TOSAC_DT_I32, 4, S);
    int ins[3] = {act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S), scalar(TOSAC_DT_I8, 0)};
    op(TOSA_OP_MUL, NULL, ins, 3, y);
    return y;
}

static void test_mul(void **s)
{
    (void)s;
    fresh();
    ok(&U55, binary(TOSA_OP_MUL, TOSAC_DT_I8, TOSAC_DT_I32, S, S, S));
    ok(&U55_16, binary(TOSA_OP_MUL, TOSAC_DT_I16, TOSAC_DT_I32, S, S, S));
    /* a product of 32-bit values rescaled by a non power of two cannot fuse (shift only) */
    int y = mul32();
    no(&U55, rescale_to(y, act(TOSAC_DT_I8, 4, S), 3, 2, 1, 0, 0),
       "U55 restriction: RESCALE i32 -> i8 stands alone: a RESCALE wider than 16 bits must fuse "
       "into its producer (convolution, MATMUL, ADD, ...) or its consumer (ADD/SUB input "
       "scaling, unit scale elsewhere)");
    ok(&U55, rescale_to(mul32(), act(TOSAC_DT_I8, 4, S), 1, 2, 1, 0, 0));
}

static void test_maximum_minimum_abs(void **s)
{
    (void)s;
    fresh();
    int y = act(TOSAC_DT_I32, 4, S);
    int ins[2] = {act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S)};
    ok(&U55, op(TOSA_OP_MAXIMUM, NULL, ins, 2, y));
    /* the output scale must be unit */
    int r = rescale_to(y, act(TOSAC_DT_I8, 4, S), 1 << 30, 30, 1, 0, 0);
    ok(&U55, r);
    fresh();
    y = act(TOSAC_DT_I32, 4, S);
    int ins2[2] = {act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S)};
    ok(&U55, op(TOSA_OP_MINIMUM, NULL, ins2, 2, y));
    no(&U55, rescale_to(y, act(TOSAC_DT_I8, 4, S), 1, 1, 1, 0, 0),
       "U55 restriction: RESCALE i32 -> i8 stands alone: a RESCALE wider than 16 bits must fuse "
       "into its producer (convolution, MATMUL, ADD, ...) or its consumer (ADD/SUB input "
       "scaling, unit scale elsewhere)");
    int x = act(TOSAC_DT_I32, 4, S);
    ok(&U55, op(TOSA_OP_ABS, NULL, &x, 1, act(TOSAC_DT_I32, 4, S)));
}

static void test_clamp(void **s)
{
    (void)s;
    fresh();
    tosa_attr a = attr();
    a.n_min_val = a.n_max_val = 1;
    a.min_val[0] = (uint8_t)-100;
    a.max_val[0] = 100;
    int x = act(TOSAC_DT_I8, 4, S);
    ok(&U55, op(TOSA_OP_CLAMP, &a, &x, 1, act(TOSAC_DT_I8, 4, S)));
    /* TOSA 1.0's SIGMOID/TANH are float only: integer ones are TABLEs (test_table) */
    int f = act(TOSAC_DT_F32, 4, S);
    no(&U55, op(TOSA_OP_SIGMOID, NULL, &f, 1, act(TOSAC_DT_F32, 4, S)),
       "SIGMOID: in_out_t=f32 needs PRO-FP");
}

static void test_table(void **s)
{
    (void)s;
    fresh();
    int x = act(TOSAC_DT_I8, 4, S);
    int ins[2] = {x, cst(TOSAC_DT_I8, 256, NULL, 0)};
    ok(&U55, op(TOSA_OP_TABLE, NULL, ins, 2, act(TOSAC_DT_I8, 4, S)));
    /* int16: 513 entries, i32 result; the LUT step's output scale is fixed at 2^-7 */
    int x16 = act(TOSAC_DT_I16, 4, S), y = act(TOSAC_DT_I32, 4, S);
    int ins16[2] = {x16, cst(TOSAC_DT_I16, 513, NULL, 0)};
    ok(&U55_16, op(TOSA_OP_TABLE, NULL, ins16, 2, y));
    ok(&U55_16, rescale_to(y, act(TOSAC_DT_I16, 4, S), 1 << 30, 37, 1, 0, 0));
    fresh();
    x16 = act(TOSAC_DT_I16, 4, S);
    y = act(TOSAC_DT_I32, 4, S);
    int again[2] = {x16, cst(TOSAC_DT_I16, 513, NULL, 0)};
    op(TOSA_OP_TABLE, NULL, again, 2, y);
    no(&U55_16, rescale_to(y, act(TOSAC_DT_I16, 4, S), 1 << 30, 36, 1, 0, 0),
       "U55 restriction: RESCALE i32 -> i16 stands alone: a RESCALE wider than 16 bits must "
       "fuse into its producer (convolution, MATMUL, ADD, ...) or its consumer (ADD/SUB input "
       "scaling, unit scale elsewhere)");
}

static void test_rescale(void **s)
{
    (void)s;
    fresh();
    /* 16 bits on both sides: alone */
    ok(&U55, rescale_to(act(TOSAC_DT_I8, 4, S), act(TOSAC_DT_I8, 4, S), 1234567, 33, 1, 3, -2));
    ok(&U55_16, rescale_to(act(TOSAC_DT_I8, 4, S), act(TOSAC_DT_I16, 4, S), 1234567, 25, 1, 3, 0));
    /* 32 bits, no producer to fuse into */
    no(&U55, rescale_to(act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I8, 4, S), 1 << 30, 33, 1, 0, 0),
       "U55 restriction: RESCALE i32 -> i8 stands alone: a RESCALE wider than 16 bits must fuse "
       "into its producer (convolution, MATMUL, ADD, ...) or its consumer (ADD/SUB input "
       "scaling, unit scale elsewhere)");
    /* fused after a convolution, per channel */
    const int64_t ws[4] = {8, 1, 1, 8};
    tosa_attr a = conv_attr(1, 1, TOSAC_DT_I32);
    int acc = act(TOSAC_DT_I32, 4, S);
    conv(TOSA_OP_CONV2D, act(TOSAC_DT_I8, 4, S), weights(TOSAC_DT_I8, 4, ws),
         bias(TOSAC_DT_I32, 8), acc, &a);
    int r = rescale_to(acc, act(TOSAC_DT_I8, 4, S), 1 << 30, 35, 8, 0, 0);
    ok(&U55, r);
    B->ops[r].attr.output_unsigned = true; /* Vela fuses no unsigned RESCALE */
    no(&U55, r, "U55 restriction: RESCALE i32 -> i8 stands alone: a RESCALE wider than 16 bits "
                "must fuse into its producer (convolution, MATMUL, ADD, ...) or its consumer "
                "(ADD/SUB input scaling, unit scale elsewhere)");
}

static void test_negate(void **s)
{
    (void)s;
    fresh();
    int ins8[3] = {act(TOSAC_DT_I8, 4, S), scalar(TOSAC_DT_I8, 5), scalar(TOSAC_DT_I8, -3)};
    ok(&U55, op(TOSA_OP_NEGATE, NULL, ins8, 3, act(TOSAC_DT_I8, 4, S)));
    int ins32[3] = {act(TOSAC_DT_I32, 4, S), scalar(TOSAC_DT_I32, 0), scalar(TOSAC_DT_I32, 0)};
    ok(&U55, op(TOSA_OP_NEGATE, NULL, ins32, 3, act(TOSAC_DT_I32, 4, S)));
    int zp32[3] = {act(TOSAC_DT_I32, 4, S), scalar(TOSAC_DT_I32, 1), scalar(TOSAC_DT_I32, 0)};
    no(&U55, op(TOSA_OP_NEGATE, NULL, zp32, 3, act(TOSAC_DT_I32, 4, S)),
       "U55 restriction: NEGATE of int32 with a zero point (must be 0)");
}

static void test_arithmetic_right_shift(void **s)
{
    (void)s;
    fresh();
    tosa_attr a = attr();
    int ins[2] = {act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S)};
    ok(&U55, op(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, &a, ins, 2, act(TOSAC_DT_I32, 4, S)));
    a.round = false;
    no(&U55, op(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, &a, ins, 2, act(TOSAC_DT_I32, 4, S)),
       "U55 restriction: ARITHMETIC_RIGHT_SHIFT with round false (round true only)");
    a.round = true;
    int i8[2] = {act(TOSAC_DT_I8, 4, S), act(TOSAC_DT_I8, 4, S)};
    no(&U55, op(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, &a, i8, 2, act(TOSAC_DT_I8, 4, S)),
       "U55 restriction: ARITHMETIC_RIGHT_SHIFT of int8/int16 is not supported on Ethos-U55 "
       "(int32 only)");
}

static void test_logical_left_shift_clz(void **s)
{
    (void)s;
    fresh();
    int ins[2] = {act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S)};
    ok(&U55, op(TOSA_OP_LOGICAL_LEFT_SHIFT, NULL, ins, 2, act(TOSAC_DT_I32, 4, S)));
    ok(&U55, op(TOSA_OP_CLZ, NULL, ins, 1, act(TOSAC_DT_I32, 4, S)));
    int i16[2] = {act(TOSAC_DT_I16, 4, S), act(TOSAC_DT_I16, 4, S)};
    no(&U55, op(TOSA_OP_LOGICAL_LEFT_SHIFT, NULL, i16, 2, act(TOSAC_DT_I16, 4, S)),
       "U55 restriction: LOGICAL_LEFT_SHIFT of int8/int16 is not supported on Ethos-U55 (int32 "
       "only)");
}

/* Whole operators Vela has no Ethos-U55 unit for (inside: none; the nearest taken is shown). */
static void test_unsupported_operators(void **s)
{
    (void)s;
    fresh();
    int a = act(TOSAC_DT_I32, 4, S), b = act(TOSAC_DT_I32, 4, S), ab[2] = {a, b};
    int p = act(TOSAC_DT_BOOL, 4, S), q = act(TOSAC_DT_BOOL, 4, S), pq[2] = {p, q};
    const struct {
        tosa_op o;
        const int *in;
        int n;
        tosac_dtype out;
    } cases[] = {
        {TOSA_OP_LOGICAL_RIGHT_SHIFT, ab, 2, TOSAC_DT_I32},
        {TOSA_OP_BITWISE_AND, ab, 2, TOSAC_DT_I32},
        {TOSA_OP_BITWISE_OR, ab, 2, TOSAC_DT_I32}, {TOSA_OP_BITWISE_XOR, ab, 2, TOSAC_DT_I32},
        {TOSA_OP_BITWISE_NOT, ab, 1, TOSAC_DT_I32}, {TOSA_OP_LOGICAL_AND, pq, 2, TOSAC_DT_BOOL},
        {TOSA_OP_LOGICAL_OR, pq, 2, TOSAC_DT_BOOL}, {TOSA_OP_LOGICAL_XOR, pq, 2, TOSAC_DT_BOOL},
        {TOSA_OP_LOGICAL_NOT, pq, 1, TOSAC_DT_BOOL}, {TOSA_OP_EQUAL, ab, 2, TOSAC_DT_BOOL},
        {TOSA_OP_GREATER, ab, 2, TOSAC_DT_BOOL}, {TOSA_OP_GREATER_EQUAL, ab, 2, TOSAC_DT_BOOL},
        {TOSA_OP_INTDIV, ab, 2, TOSAC_DT_I32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "U55 restriction: %s is not supported on Ethos-U55",
                 tosa_op_name(cases[i].o));
        no(&U55, op(cases[i].o, NULL, cases[i].in, cases[i].n, act(cases[i].out, 4, S)), want);
    }
    int sel[3] = {p, a, b};
    no(&U55, op(TOSA_OP_SELECT, NULL, sel, 3, act(TOSAC_DT_I32, 4, S)),
       "U55 restriction: SELECT is not supported on Ethos-U55");
    tosa_attr ax = attr();
    ax.axis = 3;
    const int64_t r[4] = {1, 4, 4, 1};
    no(&U55, op(TOSA_OP_REDUCE_ALL, &ax, &p, 1, act(TOSAC_DT_BOOL, 4, r)),
       "U55 restriction: REDUCE_ALL is not supported on Ethos-U55");
    no(&U55, op(TOSA_OP_REDUCE_ANY, &ax, &p, 1, act(TOSAC_DT_BOOL, 4, r)),
       "U55 restriction: REDUCE_ANY is not supported on Ethos-U55");
    const int64_t vs[3] = {1, 10, 8}, is[2] = {1, 3}, gs[3] = {1, 3, 8};
    int g[2] = {act(TOSAC_DT_I8, 3, vs), act(TOSAC_DT_I32, 2, is)};
    no(&U55, op(TOSA_OP_GATHER, NULL, g, 2, act(TOSAC_DT_I8, 3, gs)),
       "U55 restriction: GATHER is not supported on Ethos-U55");
    int sc[3] = {act(TOSAC_DT_I8, 3, vs), act(TOSAC_DT_I32, 2, is), act(TOSAC_DT_I8, 3, gs)};
    no(&U55, op(TOSA_OP_SCATTER, NULL, sc, 3, act(TOSAC_DT_I8, 3, vs)),
       "U55 restriction: SCATTER is not supported on Ethos-U55");
    /* the integer operator next to them that Ethos-U55 does take */
    ok(&U55, op(TOSA_OP_SUB, NULL, ab, 2, act(TOSAC_DT_I32, 4, S)));
}

static int reduce(tosa_op o, tosac_dtype dt, int axis, const int64_t *xs)
{
    tosa_attr a = attr();
    a.axis = axis;
    int64_t ys[4];
    memcpy(ys, xs, sizeof ys);
    ys[axis] = 1;
    return op(o, &a, (int[]){act(dt, 4, xs)}, 1, act(dt, 4, ys));
}

static void test_reduce_sum(void **s)
{
    (void)s;
    fresh();
    const int64_t in[4] = {1, 1, 65536, 2}, out[4] = {1, 1, 65537, 2};
    ok(&U55, reduce(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 2, in));
    no(&U55, reduce(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 2, out),
       "U55 restriction: REDUCE_SUM over 65537 elements (at most 65536)");
}

static void test_reduce_max_min(void **s)
{
    (void)s;
    fresh();
    ok(&U55, reduce(TOSA_OP_REDUCE_MAX, TOSAC_DT_I8, 1, S));
    ok(&U55_16, reduce(TOSA_OP_REDUCE_MAX, TOSAC_DT_I16, 3, S));
    no(&U55, reduce(TOSA_OP_REDUCE_MAX, TOSAC_DT_I32, 3, S),
       "U55 restriction: REDUCE_MAX of int32 is not supported on Ethos-U55 (it reduces with "
       "pooling: i8/i16 only)");
    ok(&U55, reduce(TOSA_OP_REDUCE_MIN, TOSAC_DT_I8, 2, S));
    no(&U55, reduce(TOSA_OP_REDUCE_MIN, TOSAC_DT_I32, 2, S),
       "U55 restriction: REDUCE_MIN of int32 is not supported on Ethos-U55 (it reduces with "
       "pooling: i8/i16 only)");
}

static int argmax(tosac_dtype dt, int rank, const int64_t *xs, int axis)
{
    tosa_attr a = attr();
    a.axis = axis;
    int64_t ys[6];
    int k = 0;
    for (int i = 0; i < rank; i++)
        if (i != axis)
            ys[k++] = xs[i];
    return op(TOSA_OP_ARGMAX, &a, (int[]){act(dt, rank, xs)}, 1, act(TOSAC_DT_I32, rank - 1, ys));
}

static void test_argmax(void **s)
{
    (void)s;
    fresh();
    const int64_t c127[4] = {1, 2, 3, 127}, c128[4] = {1, 2, 3, 128}, n2[4] = {2, 2, 3, 10};
    ok(&U55, argmax(TOSAC_DT_I8, 4, c127, 3));
    no(&U55, argmax(TOSAC_DT_I8, 4, c128, 3),
       "U55 restriction: ARGMAX over 128 channels (at most 127)");
    no(&U55, argmax(TOSAC_DT_I8, 4, c127, 2),
       "U55 restriction: ARGMAX over axis 2 of a rank-4 tensor (last axis only)");
    no(&U55, argmax(TOSAC_DT_I8, 4, n2, 3),
       "U55 restriction: ARGMAX with leading dimensions of 2 elements (must be 1)");
    no(&U55_16, argmax(TOSAC_DT_I16, 4, c127, 3),
       "U55 restriction: ARGMAX of int16 is not supported on Ethos-U55 (int8 only)");
}

static void test_cast(void **s)
{
    (void)s;
    fresh();
    ok(&U55, op(TOSA_OP_CAST, NULL, (int[]){act(TOSAC_DT_I8, 4, S)}, 1, act(TOSAC_DT_I32, 4, S)));
    ok(&U55, op(TOSA_OP_CAST, NULL, (int[]){act(TOSAC_DT_I16, 4, S)}, 1, act(TOSAC_DT_I8, 4, S)));
    no(&U55, op(TOSA_OP_CAST, NULL, (int[]){act(TOSAC_DT_I32, 4, S)}, 1, act(TOSAC_DT_I16, 4, S)),
       "U55 restriction: CAST down from int32 is not supported on Ethos-U55");
    no(&U55, op(TOSA_OP_CAST, NULL, (int[]){act(TOSAC_DT_BOOL, 4, S)}, 1, act(TOSAC_DT_I8, 4, S)),
       "U55 restriction: CAST on bool tensors is not supported on Ethos-U55");
}

static int transpose(tosac_dtype dt, int rank, const int64_t *xs, const int *perm)
{
    tosa_attr a = attr();
    a.n_perms = rank;
    int64_t ys[8];
    for (int i = 0; i < rank; i++) {
        a.perms[i] = perm[i];
        ys[i] = xs[perm[i]];
    }
    return op(TOSA_OP_TRANSPOSE, &a, (int[]){act(dt, rank, xs)}, 1, act(dt, rank, ys));
}

static void test_transpose(void **s)
{
    (void)s;
    fresh();
    const int nchw_nhwc[4] = {0, 2, 3, 1}, nwhc[4] = {0, 2, 1, 3};
    const int64_t img[4] = {1, 3, 224, 224}, wide[4] = {1, 3, 4, 65537};
    ok(&U55, transpose(TOSAC_DT_I8, 4, img, nchw_nhwc));
    const int64_t r6[6] = {1, 2, 3, 4, 5, 6};
    const int p6[6] = {5, 4, 3, 2, 1, 0};
    ok(&U55, transpose(TOSAC_DT_I16, 6, r6, p6)); /* int8/int16: any rank */
    no(&U55, transpose(TOSAC_DT_I8, 4, wide, nchw_nhwc), "U55 restriction: TRANSPOSE of a "
       "dimension of 65537 (at most 65536: Vela does not split TRANSPOSE)");
    const int64_t c16k[4] = {1, 4, 5, 16384}, c16k1[4] = {1, 4, 5, 16385};
    ok(&U55, transpose(TOSAC_DT_I32, 4, c16k, nwhc));
    no(&U55, transpose(TOSAC_DT_I32, 4, c16k1, nwhc), "U55 restriction: int32 TRANSPOSE "
       "[0,2,1,3] of shape [1,4,5,16385] beyond its axis limits");
    no(&U55, transpose(TOSAC_DT_I32, 4, img, nchw_nhwc), "U55 restriction: int32 TRANSPOSE with "
       "permutation [0,2,3,1] (int32: NWHC, NHCW, NCWH only)");
    const int64_t r5[5] = {1, 2, 3, 4, 5};
    const int p5[5] = {0, 1, 2, 4, 3};
    no(&U55, transpose(TOSAC_DT_I32, 5, r5, p5), "U55 restriction: int32 TRANSPOSE of rank 5 (at "
       "most 4)");
}

static void test_data_movement(void **s)
{
    (void)s;
    fresh();
    const int64_t flat[2] = {16, 8};
    int sh = cst(TOSAC_DT_SHAPE, 2, flat, 2);
    ok(&U55, op(TOSA_OP_RESHAPE, NULL, (int[]){act(TOSAC_DT_I32, 4, S), sh}, 2,
                act(TOSAC_DT_I32, 2, flat)));
    no(&U55, op(TOSA_OP_RESHAPE, NULL, (int[]){act(TOSAC_DT_BOOL, 4, S), sh}, 2,
                act(TOSAC_DT_BOOL, 2, flat)),
       "U55 restriction: RESHAPE on bool tensors is not supported on Ethos-U55");
    tosa_attr a = attr();
    a.axis = 3;
    const int64_t cat[4] = {1, 4, 4, 16};
    ok(&U55_16, op(TOSA_OP_CONCAT, &a, (int[]){act(TOSAC_DT_I16, 4, S), act(TOSAC_DT_I16, 4, S)}, 2,
                act(TOSAC_DT_I16, 4, cat)));
    ok(&U55, op(TOSA_OP_IDENTITY, NULL, (int[]){act(TOSAC_DT_I8, 4, S)}, 1,
                act(TOSAC_DT_I8, 4, S)));
    no(&U55, op(TOSA_OP_IDENTITY, NULL, (int[]){act(TOSAC_DT_BOOL, 4, S)}, 1,
                act(TOSAC_DT_BOOL, 4, S)),
       "U55 restriction: IDENTITY on bool tensors is not supported on Ethos-U55");
}

static void test_pad(void **s)
{
    (void)s;
    fresh();
    const int64_t p[8] = {0, 0, 1, 1, 1, 1, 0, 0}, ys[4] = {1, 6, 6, 8};
    int pads = cst(TOSAC_DT_SHAPE, 8, p, 8);
    ok(&U55, op(TOSA_OP_PAD, NULL, (int[]){act(TOSAC_DT_I8, 4, S), pads, scalar(TOSAC_DT_I8, 0)}, 3,
                act(TOSAC_DT_I8, 4, ys)));
    int bools[3] = {act(TOSAC_DT_BOOL, 4, S), pads, scalar(TOSAC_DT_BOOL, 0)};
    no(&U55, op(TOSA_OP_PAD, NULL, bools, 3, act(TOSAC_DT_BOOL, 4, ys)),
       "U55 restriction: PAD on bool tensors is not supported on Ethos-U55");
}

static void test_reverse(void **s)
{
    (void)s;
    fresh();
    tosa_attr a = attr();
    a.axis = 2;
    ok(&U55, op(TOSA_OP_REVERSE, &a, (int[]){act(TOSAC_DT_I8, 4, S)}, 1, act(TOSAC_DT_I8, 4, S)));
    a.axis = 1;
    ok(&U55_16, op(TOSA_OP_REVERSE, &a, (int[]){act(TOSAC_DT_I16, 4, S)}, 1,
                   act(TOSAC_DT_I16, 4, S)));
    a.axis = 3;
    no(&U55, op(TOSA_OP_REVERSE, &a, (int[]){act(TOSAC_DT_I8, 4, S)}, 1, act(TOSAC_DT_I8, 4, S)),
       "U55 restriction: REVERSE of axis 3 of a rank-4 tensor (height or width only)");
    a.axis = 2;
    no(&U55, op(TOSA_OP_REVERSE, &a, (int[]){act(TOSAC_DT_I32, 4, S)}, 1, act(TOSAC_DT_I32, 4, S)),
       "U55 restriction: REVERSE of int32 is not supported on Ethos-U55 (i8/i16 only)");
}

static int resize(tosac_dtype out, int64_t h, int64_t w, int64_t n, int64_t d, uint32_t mode)
{
    tosa_attr a = attr();
    a.mode = mode;
    const int64_t sc[4] = {n, d, n, d}, zero[2] = {0, 0};
    int ins[4] = {act4(TOSAC_DT_I8, 1, h, w, 8), cst(TOSAC_DT_SHAPE, 4, sc, 4),
                  cst(TOSAC_DT_SHAPE, 2, zero, 2), cst(TOSAC_DT_SHAPE, 2, zero, 2)};
    return op(TOSA_OP_RESIZE, &a, ins, 4, act4(out, 1, h * n / d, w * n / d, 8));
}

static void test_resize(void **s)
{
    (void)s;
    fresh();
    ok(&U55, resize(TOSAC_DT_I8, 4, 4, 2, 1, TOSA_RESIZE_NEAREST));
    ok(&U55, resize(TOSAC_DT_I8, 4, 4, 8, 1, TOSA_RESIZE_NEAREST));
    no(&U55, resize(TOSAC_DT_I8, 4, 4, 3, 1, TOSA_RESIZE_NEAREST),
       "U55 restriction: RESIZE scale 3/1 x 3/1 (upscale 2x, 4x or 8x only)");
    no(&U55, resize(TOSAC_DT_I8, 1, 1, 2, 1, TOSA_RESIZE_NEAREST),
       "U55 restriction: RESIZE of a 1x1 input");
    /* bilinear: i32 weighted sums, then a RESCALE by 1/(2*2) */
    int r = resize(TOSAC_DT_I32, 4, 4, 2, 1, TOSA_RESIZE_BILINEAR);
    int rs = rescale_to(B->ops[r].outputs[0], act4(TOSAC_DT_I8, 1, 8, 8, 8), 1, 2, 1, 0, 0);
    ok(&U55, r);
    ok(&U55, rs);
    fresh();
    r = resize(TOSAC_DT_I32, 4, 4, 2, 1, TOSA_RESIZE_BILINEAR);
    rescale_to(B->ops[r].outputs[0], act4(TOSAC_DT_I8, 1, 8, 8, 8), 1, 3, 1, 0, 0);
    no(&U55, r, "U55 restriction: BILINEAR RESIZE not followed by a RESCALE by 1/4 (shift log2 "
                "of the upscale)");
}

/* ---- Constraints that apply to every operator ---- */

static void test_data_types(void **s)
{
    (void)s;
    fresh();
    ok(&U55, binary(TOSA_OP_ADD, TOSAC_DT_I32, TOSAC_DT_I32, S, S, S));
    no(&U55, binary(TOSA_OP_ADD, TOSAC_DT_F32, TOSAC_DT_F32, S, S, S),
       "ADD: in_out_t=f32 needs PRO-FP");
}

static void test_rank_leading_dims(void **s)
{
    (void)s;
    fresh();
    const int64_t b6[6] = {2, 3, 2, 4, 4, 8}, b7[7] = {1, 2, 3, 2, 4, 4, 8};
    int a6[2] = {act(TOSAC_DT_I32, 6, b6), act(TOSAC_DT_I32, 6, b6)};
    ok(&U55, op(TOSA_OP_ADD, NULL, a6, 2, act(TOSAC_DT_I32, 6, b6))); /* batch 2x3x2: split */
    int a7[2] = {act(TOSAC_DT_I32, 7, b7), act(TOSAC_DT_I32, 7, b7)};
    no(&U55, op(TOSA_OP_ADD, NULL, a7, 2, act(TOSAC_DT_I32, 7, b7)),
       "U55 restriction: ADD rank 7 exceeds MAX_RANK 6 of level 8K (Vela checks the 8K level)");
}

static void test_axis_size(void **s)
{
    (void)s;
    fresh();
    const int64_t big[4] = {1, 3, 70000, 8}; /* W > 65536: decomposed, except for TRANSPOSE */
    ok(&U55, binary(TOSA_OP_ADD, TOSAC_DT_I32, TOSAC_DT_I32, big, big, big));
    const int p[4] = {0, 2, 1, 3};
    no(&U55, transpose(TOSAC_DT_I8, 4, big, p), "U55 restriction: TRANSPOSE of a dimension of "
       "70000 (at most 65536: Vela does not split TRANSPOSE)");
}

static int conv_sd(int stride, int dilation, int64_t k)
{
    const int64_t ws[4] = {4, k, 1, 2};
    tosa_attr a = conv_attr(stride, dilation, TOSAC_DT_I32);
    return conv(TOSA_OP_CONV2D, act4(TOSAC_DT_I8, 1, 20000, 4, 2), weights(TOSAC_DT_I8, 4, ws),
                bias(TOSAC_DT_I32, 4), act4(TOSAC_DT_I32, 1, 2, 4, 4), &a);
}

static void test_kernel_stride(void **s)
{
    (void)s;
    fresh();
    ok(&U55, conv_sd(4, 1, 3));
    ok(&U55, conv_sd(8192, 1, 3));
    no(&U55, conv_sd(8193, 1, 3), "U55 restriction: CONV2D stride 8193 exceeds MAX_STRIDE 8192 "
                                  "of level 8K (Vela checks the 8K level)");
}

static void test_dilation(void **s)
{
    (void)s;
    fresh();
    ok(&U55, conv_sd(1, 3, 3));
    ok(&U55, conv_sd(1, 2048, 4)); /* dilation x kernel = 8192 */
    no(&U55, conv_sd(1, 2731, 3), "U55 restriction: CONV2D dilation x kernel 8193 exceeds "
                                  "MAX_KERNEL 8192 of level 8K (Vela checks the 8K level)");
}

static void test_kernel_size(void **s)
{
    (void)s;
    fresh();
    ok(&U55, conv_sd(1, 1, 65)); /* larger than the hardware's 64: block-decomposed */
    ok(&U55, conv_sd(1, 1, 8192));
    no(&U55, conv_sd(1, 1, 8193), "U55 restriction: CONV2D dilation x kernel 8193 exceeds "
                                  "MAX_KERNEL 8192 of level 8K (Vela checks the 8K level)");
}

static void test_zero_points(void **s)
{
    (void)s;
    fresh();
    const int64_t ws[4] = {8, 1, 1, 8};
    tosa_attr a = conv_attr(1, 1, TOSAC_DT_I32);
    int acc = act(TOSAC_DT_I32, 4, S);
    conv(TOSA_OP_CONV2D, act(TOSAC_DT_I8, 4, S), weights(TOSAC_DT_I8, 4, ws),
         bias(TOSAC_DT_I32, 8), acc, &a);
    ok(&U55, rescale_to(acc, act(TOSAC_DT_I8, 4, S), 1 << 30, 35, 1, 0, -7));
    fresh();
    acc = act(TOSAC_DT_I32, 4, S);
    conv(TOSA_OP_CONV2D, act(TOSAC_DT_I8, 4, S), weights(TOSAC_DT_I8, 4, ws),
         bias(TOSAC_DT_I32, 8), acc, &a);
    no(&U55, rescale_to(acc, act(TOSAC_DT_I8, 4, S), 1 << 30, 35, 1, 1, 0),
       "U55 restriction: RESCALE of a 32-bit input with zero point 1 (must be 0)");
    no(&U55, rescale_to(act(TOSAC_DT_I8, 4, S), act(TOSAC_DT_I32, 4, S), 1 << 30, 30, 1, 0, 1),
       "U55 restriction: RESCALE to a 32-bit output with zero point 1 (must be 0)");
}

static void test_per_channel(void **s)
{
    (void)s;
    fresh();
    int y = act(TOSAC_DT_I32, 4, S), y2 = act(TOSAC_DT_I32, 4, S);
    op(TOSA_OP_ADD, NULL, (int[]){act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S)}, 2, y);
    no(&U55, rescale_to(y, act(TOSAC_DT_I8, 4, S), 1 << 30, 35, 8, 0, 0),
       "U55 restriction: per-channel RESCALE of ADD: per-channel scales only on a "
       "convolution's output");
    /* the same scale for every channel fuses (inside, per channel: test_rescale's CONV2D) */
    op(TOSA_OP_ADD, NULL, (int[]){act(TOSAC_DT_I32, 4, S), act(TOSAC_DT_I32, 4, S)}, 2, y2);
    ok(&U55, rescale_to(y2, act(TOSAC_DT_I8, 4, S), 1 << 30, 35, 1, 0, 0));
}

/* RESCALE i8 -> i32 (scale m * 2^-sh) of both ADD inputs; returns the first RESCALE. */
static int add_of_rescaled(tosa_op o, int64_t ma, int64_t sa, int64_t mb, int64_t sb)
{
    int ya = act(TOSAC_DT_I32, 4, S), yb = act(TOSAC_DT_I32, 4, S);
    int ra = rescale_to(act(TOSAC_DT_I8, 4, S), ya, ma, sa, 1, 5, 0);
    rescale_to(act(TOSAC_DT_I8, 4, S), yb, mb, sb, 1, -3, 0);
    int in[3] = {ya, yb, scalar(TOSAC_DT_I8, 0)};
    op(o, NULL, in, o == TOSA_OP_MUL ? 3 : 2, act(TOSAC_DT_I32, 4, S));
    return ra;
}

static void test_add_sub_input_scaling(void **s)
{
    (void)s;
    fresh();
    /* tosac's quantized Add: the larger input at 2^19 exactly, the other anything */
    ok(&U55, add_of_rescaled(TOSA_OP_ADD, 1234567891, 42, 1 << 30, 11));
    ok(&U55, add_of_rescaled(TOSA_OP_SUB, 3000, 0, 1234567891, 40)); /* 16-bit, shift 0 */
    no(&U55, add_of_rescaled(TOSA_OP_ADD, 1234567891, 42, 1234567893, 40),
       "U55 restriction: RESCALE i8 -> i32 stands alone: a RESCALE wider than 16 bits must fuse "
       "into its producer (convolution, MATMUL, ADD, ...) or its consumer (ADD/SUB input "
       "scaling, unit scale elsewhere)");
}

static void test_other_elementwise_input_scaling(void **s)
{
    (void)s;
    fresh();
    ok(&U55, add_of_rescaled(TOSA_OP_MUL, 1 << 30, 30, 1, 0)); /* unit: zero points only */
    no(&U55, add_of_rescaled(TOSA_OP_MUL, 1 << 30, 31, 1, 0),
       "U55 restriction: RESCALE i8 -> i32 stands alone: a RESCALE wider than 16 bits must fuse "
       "into its producer (convolution, MATMUL, ADD, ...) or its consumer (ADD/SUB input "
       "scaling, unit scale elsewhere)");
}

static void test_broadcasting(void **s)
{
    (void)s;
    fresh();
    const int64_t one[4] = {1, 1, 1, 8};
    ok(&U55, binary(TOSA_OP_ADD, TOSAC_DT_I32, TOSAC_DT_I32, S, one, S));
    ok(&U55, binary(TOSA_OP_MUL, TOSAC_DT_I8, TOSAC_DT_I32, one, S, S));
    /* outside: a broadcast Vela cannot place is only one of an unsupported operator */
    no(&U55, binary(TOSA_OP_EQUAL, TOSAC_DT_I32, TOSAC_DT_BOOL, S, one, S),
       "U55 restriction: EQUAL is not supported on Ethos-U55");
}

static void test_int16(void **s)
{
    (void)s;
    fresh();
    ok(&U55_16, pool(TOSA_OP_MAX_POOL2D, TOSAC_DT_I16, 8, 8, 2, 2, 2, 0));
    no(&U55_16, matmul(TOSAC_DT_I16), "U55 restriction: MATMUL of int16 activations is "
                                               "not supported on Ethos-U55 (int8 x int8 only)");
    const int64_t c[4] = {1, 2, 3, 10};
    no(&U55_16, argmax(TOSAC_DT_I16, 4, c, 3),
       "U55 restriction: ARGMAX of int16 is not supported on Ethos-U55 (int8 only)");
}

static void test_int4(void **s)
{
    (void)s;
    fresh();
    const int64_t ws[4] = {8, 3, 3, 4};
    tosa_attr a = conv_attr(1, 1, TOSAC_DT_I32);
    int k = conv(TOSA_OP_CONV2D, act4(TOSAC_DT_I8, 1, 8, 8, 4), weights(TOSAC_DT_I4, 4, ws),
                 bias(TOSAC_DT_I32, 8), act4(TOSAC_DT_I32, 1, 6, 6, 8), &a);
    ok(&U55_4, k);
    no(&U55, k, "CONV2D: in_t=i8 weight_t=i4 out_t=i32 acc_t=i32 needs EXT-INT4");
}

/* ---- keeping a widening RESCALE next to the ADD that absorbs it ---- */
static void test_transpose_above_widening_rescale(void **s)
{
    (void)s;
    fresh();
    /* what the cleanup leaves when a transpose from another node sank through the RESCALE:
     * x(i8) -> RESCALE -> y(i32) -> TRANSPOSE -> z(i32) -> ADD */
    const int64_t nchw[4] = {1, 8, 4, 4};
    int x = act(TOSAC_DT_I8, 4, S), y = act(TOSAC_DT_I32, 4, S), z = act(TOSAC_DT_I32, 4, nchw);
    int other = act(TOSAC_DT_I32, 4, nchw), sum = act(TOSAC_DT_I32, 4, nchw);
    rescale_to(x, y, 1 << 30, 11, 1, 5, 0);
    tosa_attr ta = attr();
    ta.n_perms = 4;
    const int perm[4] = {0, 3, 1, 2};
    memcpy(ta.perms, perm, sizeof perm);
    op(TOSA_OP_TRANSPOSE, &ta, &y, 1, z);
    int add = op(TOSA_OP_ADD, NULL, (int[]){z, other}, 2, sum);
    assert_int_equal(tosa_block_set_io(B, (int[]){x, other}, 2, &sum, 1, &E), TOSAC_OK);
    char why[512];
    assert_false(tosa_validate_block(&U55, B, why, sizeof why));
    assert_string_equal(why, "U55 restriction: RESCALE i8 -> i32 stands alone: a RESCALE wider "
                             "than 16 bits must fuse into its producer (convolution, MATMUL, "
                             "ADD, ...) or its consumer (ADD/SUB input scaling, unit scale "
                             "elsewhere)");
    lower_u55_order(B);
    /* now TRANSPOSE (i8) -> RESCALE -> ADD, in that order */
    int t = -1, r = -1;
    for (int i = 0; i < B->n_ops; i++) {
        t = B->ops[i].op == TOSA_OP_TRANSPOSE ? i : t;
        r = B->ops[i].op == TOSA_OP_RESCALE ? i : r;
    }
    assert_true(t < r && r < add);
    assert_int_equal(B->ops[t].inputs[0], x);
    assert_int_equal(B->tensors[B->ops[t].outputs[0]].dtype, TOSAC_DT_I8);
    assert_memory_equal(B->tensors[B->ops[t].outputs[0]].shape, nchw, sizeof nchw);
    assert_int_equal(B->ops[r].outputs[0], z);
    assert_true(tosa_validate_block(&U55, B, why, sizeof why));
}

static int teardown(void **s)
{
    (void)s;
    tosa_graph_free(G);
    G = NULL;
    return 0;
}

int main(void)
{
    setup_specs();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv2d), cmocka_unit_test(test_depthwise_conv2d),
        cmocka_unit_test(test_transpose_conv2d), cmocka_unit_test(test_conv3d),
        cmocka_unit_test(test_avg_pool2d), cmocka_unit_test(test_max_pool2d),
        cmocka_unit_test(test_matmul), cmocka_unit_test(test_add_sub), cmocka_unit_test(test_mul),
        cmocka_unit_test(test_maximum_minimum_abs), cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_table), cmocka_unit_test(test_rescale), cmocka_unit_test(test_negate),
        cmocka_unit_test(test_arithmetic_right_shift),
        cmocka_unit_test(test_logical_left_shift_clz),
        cmocka_unit_test(test_unsupported_operators), cmocka_unit_test(test_reduce_sum),
        cmocka_unit_test(test_reduce_max_min), cmocka_unit_test(test_argmax),
        cmocka_unit_test(test_cast), cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_data_movement), cmocka_unit_test(test_pad),
        cmocka_unit_test(test_reverse), cmocka_unit_test(test_resize),
        cmocka_unit_test(test_data_types), cmocka_unit_test(test_rank_leading_dims),
        cmocka_unit_test(test_axis_size), cmocka_unit_test(test_kernel_stride),
        cmocka_unit_test(test_dilation), cmocka_unit_test(test_kernel_size),
        cmocka_unit_test(test_zero_points), cmocka_unit_test(test_per_channel),
        cmocka_unit_test(test_add_sub_input_scaling),
        cmocka_unit_test(test_other_elementwise_input_scaling),
        cmocka_unit_test(test_broadcasting), cmocka_unit_test(test_int16),
        cmocka_unit_test(test_int4),
        cmocka_unit_test(test_transpose_above_widening_rescale),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
