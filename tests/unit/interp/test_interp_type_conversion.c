/* CAST and RESCALE through the single-op harness. Expected values are derived by hand in the
 * comments; the float bit patterns were checked with numpy (float16/float32 views). */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "interp_harness.h"
#include "tosac/tosa.h"

/* ------------------------------------------------------------------ CAST */

static tosac_code cast(tosac_tensor *in, tosac_tensor *out, const tosa_attr *attr, tosac_error *err)
{
    tosac_tensor *ins[1] = {in}, *outs[1] = {out};
    tosac_error_clear(err);
    return th_run_op(TOSA_OP_CAST, attr, ins, 1, outs, 1, err);
}

static void test_cast_float_to_int(void **state)
{
    (void)state;
    const double v[] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.4, 127.5, 300, -300,
                        INFINITY, -INFINITY, NAN};
    /* round half to even, then saturate to int8; NaN gives 0 (our documented choice) */
    const int8_t want[] = {0, 2, 2, 0, -2, -2, 127, 127, 127, -128, 127, -128, 0};
    int64_t shape[1] = {13};
    tosac_tensor in, out;
    tosac_error err;
    th_tensor_float(&in, TOSAC_DT_F32, 1, shape, v);
    th_tensor_zero(&out, TOSAC_DT_I8, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want, sizeof want);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);

    /* fp16 -> int16: 65504 and -65504 saturate, 3.5 -> 4 (even), -3.5 -> -4 */
    const double h[] = {65504, -65504, 3.5, -3.5, 1000.25};
    const int16_t want16[] = {32767, -32768, 4, -4, 1000};
    shape[0] = 5;
    th_tensor_float(&in, TOSAC_DT_F16, 1, shape, h);
    th_tensor_zero(&out, TOSAC_DT_I16, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want16, sizeof want16);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void test_cast_int_to_float(void **state)
{
    (void)state;
    /* int32 -> fp16: 65519 -> 65504 (0x7bff); 65520 is the tie above max -> inf (0x7c00);
     * 2049 ties 2048/2050 -> 2048 (0x6800, even); 2051 -> 2052 (0x6802); -65520 -> -inf */
    const int64_t v[] = {65519, 65520, 2049, 2051, -65520};
    const uint16_t want[] = {0x7bff, 0x7c00, 0x6800, 0x6802, 0xfc00};
    int64_t shape[1] = {5};
    tosac_tensor in, out;
    tosac_error err;
    th_tensor_int(&in, TOSAC_DT_I32, 1, shape, v);
    th_tensor_zero(&out, TOSAC_DT_F16, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want, sizeof want);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);

    /* int32 -> bf16 must round once: 2^24 + 2^16 + 1 is just above the midpoint of
     * 2^24 and 2^24 + 2^17, so it rounds up to 2^24 + 2^17 = 0x4b81. Going through fp32
     * first would give 2^24 + 2^16 (a tie) and then 2^24 (0x4b80): wrong. */
    const int64_t b[] = {16842753, -16842753, 257};
    const uint16_t wantb[] = {0x4b81, 0xcb81, 0x4380}; /* 257 -> 256 = 0x4380 */
    shape[0] = 3;
    th_tensor_int(&in, TOSAC_DT_I32, 1, shape, b);
    th_tensor_zero(&out, TOSAC_DT_BF16, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, wantb, sizeof wantb);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void test_cast_int_bool(void **state)
{
    (void)state;
    int64_t shape[1] = {4};
    tosac_tensor in, out;
    tosac_error err;
    /* int32 -> int8 keeps the low 8 bits: 300 -> 44, -129 -> 127, 0x12345678 -> 0x78 */
    const int64_t v[] = {300, -129, 0x12345678, -1};
    const int8_t want8[] = {44, 127, 0x78, -1};
    th_tensor_int(&in, TOSAC_DT_I32, 1, shape, v);
    th_tensor_zero(&out, TOSAC_DT_I8, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want8, sizeof want8);
    tosac_tensor_free(&out);
    /* int32 -> bool: nonzero is true */
    const uint8_t wantb[] = {1, 1, 1, 1};
    th_tensor_zero(&out, TOSAC_DT_BOOL, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, wantb, sizeof wantb);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
    /* bool -> int16, int16 -> int32 sign-extends */
    const int64_t bv[] = {1, 0, 1, 0};
    const int16_t want16[] = {1, 0, 1, 0};
    th_tensor_int(&in, TOSAC_DT_BOOL, 1, shape, bv);
    th_tensor_zero(&out, TOSAC_DT_I16, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want16, sizeof want16);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
    const int64_t sv[] = {-1, -32768, 32767, 0};
    const int32_t want32[] = {-1, -32768, 32767, 0};
    th_tensor_int(&in, TOSAC_DT_I16, 1, shape, sv);
    th_tensor_zero(&out, TOSAC_DT_I32, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want32, sizeof want32);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void test_cast_float_to_float(void **state)
{
    (void)state;
    int64_t shape[1] = {4};
    tosac_tensor in, out;
    tosac_error err;
    /* fp32 -> fp16: 1 + 2^-11 ties 1.0 / 1 + 2^-10 -> 1.0 (0x3c00); 1 + 3*2^-11 -> 0x3c02;
     * 1e6 overflows -> inf; -0.0 keeps its sign */
    const double v[] = {1.0 + ldexp(1, -11), 1.0 + ldexp(3, -11), 1e6, -0.0};
    const uint16_t want[] = {0x3c00, 0x3c02, 0x7c00, 0x8000};
    th_tensor_float(&in, TOSAC_DT_F32, 1, shape, v);
    th_tensor_zero(&out, TOSAC_DT_F16, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want, sizeof want);
    tosac_tensor_free(&out);
    /* fp32 -> fp8e4m3 (not saturating): 1.0 -> 0x38, 1e6 -> NaN 0x7f, -0.0 -> 0x80;
     * 1 + 2^-11 -> 1.0 */
    const uint8_t want8[] = {0x38, 0x38, 0x7f, 0x80};
    th_tensor_zero(&out, TOSAC_DT_FP8E4M3, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want8, sizeof want8);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
    /* fp8e4m3 -> fp32: 0x7e is 448, 0x01 is 2^-9 (smallest subnormal) */
    const int64_t bits[] = {0x7e, 0x01, 0xb8, 0x00};
    th_tensor_int(&in, TOSAC_DT_FP8E4M3, 1, shape, bits);
    th_tensor_zero(&out, TOSAC_DT_F32, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    const float *f = out.data;
    assert_true(f[0] == 448.0f && f[1] == ldexpf(1, -9) && f[2] == -1.0f && f[3] == 0.0f);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void test_cast_int64_and_1_1_rows(void **state)
{
    (void)state;
    int64_t shape[1] = {3};
    tosac_tensor in, out;
    tosac_error err;
    /* i64 -> i32 truncates: 2^32 + 5 -> 5, -2^33 - 1 -> -1 */
    const int64_t v[] = {((int64_t)1 << 32) + 5, -((int64_t)1 << 33) - 1, -7};
    const int32_t want[] = {5, -1, -7};
    th_tensor_int(&in, TOSAC_DT_I64, 1, shape, v);
    th_tensor_zero(&out, TOSAC_DT_I32, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, want, sizeof want);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
    /* i32 -> i64 sign-extends */
    const int64_t v32[] = {-7, INT32_MAX, INT32_MIN};
    th_tensor_int(&in, TOSAC_DT_I32, 1, shape, v32);
    th_tensor_zero(&out, TOSAC_DT_I64, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, v32, sizeof v32);
    tosac_tensor_free(&out);
    /* 1.1 input_unsigned: int8 bits 0xff read as 255 */
    tosac_tensor_free(&in);
    const int64_t u[] = {-1, -128, 5};
    const int32_t wantu[] = {255, 128, 5};
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.input_unsigned = true;
    th_tensor_int(&in, TOSAC_DT_I8, 1, shape, u);
    th_tensor_zero(&out, TOSAC_DT_I32, 1, shape);
    assert_int_equal(cast(&in, &out, &attr, &err), TOSAC_OK);
    assert_memory_equal(out.data, wantu, sizeof wantu);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
    /* 1.1 fp32 -> bool: -0.0 is false, NaN compares != 0 so true */
    const double fv[] = {-0.0, NAN, 0.25};
    const uint8_t wantb[] = {0, 1, 1};
    th_tensor_float(&in, TOSAC_DT_F32, 1, shape, fv);
    th_tensor_zero(&out, TOSAC_DT_BOOL, 1, shape);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_OK);
    assert_memory_equal(out.data, wantb, sizeof wantb);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void test_cast_errors(void **state)
{
    (void)state;
    int64_t s3[1] = {3}, s2[1] = {2};
    tosac_tensor in, out;
    tosac_error err;
    th_tensor_zero(&in, TOSAC_DT_I8, 1, s3);
    th_tensor_zero(&out, TOSAC_DT_I32, 1, s2);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "CAST"));
    assert_non_null(strstr(err.msg, "out0"));
    tosac_tensor_free(&out);
    th_tensor_zero(&out, TOSAC_DT_SHAPE, 1, s3);
    assert_int_equal(cast(&in, &out, NULL, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "cannot cast i8 to shape"));
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

/* ------------------------------------------------------------------ RESCALE */

typedef struct rescale_case {
    tosac_dtype in_t, out_t;
    int rank;
    int64_t shape[4];
    const int64_t *in;
    int nc;
    const int64_t *mult, *shift;
    int64_t in_zp, out_zp; /* raw stored values (the bits of the in_t / out_t tensor) */
    bool scale32, per_channel, iu, ou;
    uint32_t rounding;
} rescale_case;

/* Runs RESCALE; on success copies the output (as int64) into got. */
static tosac_code run_rescale(const rescale_case *rc, int64_t *got, tosac_error *err)
{
    tosac_tensor in, mul, sh, izp, ozp, out;
    int64_t nc[1] = {rc->nc}, one[1] = {1};
    th_tensor_int(&in, rc->in_t, rc->rank, rc->shape, rc->in);
    th_tensor_int(&mul, rc->scale32 ? TOSAC_DT_I32 : TOSAC_DT_I16, 1, nc, rc->mult);
    th_tensor_int(&sh, TOSAC_DT_I8, 1, nc, rc->shift);
    th_tensor_int(&izp, rc->in_t, 1, one, &rc->in_zp);
    th_tensor_int(&ozp, rc->out_t, 1, one, &rc->out_zp);
    th_tensor_zero(&out, rc->out_t, rc->rank, rc->shape);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.scale32 = rc->scale32;
    a.per_channel = rc->per_channel;
    a.input_unsigned = rc->iu;
    a.output_unsigned = rc->ou;
    a.rounding_mode = rc->rounding ? rc->rounding : TOSA_ROUND_SINGLE;
    tosac_tensor *ins[5] = {&in, &mul, &sh, &izp, &ozp}, *outs[1] = {&out};
    tosac_error_clear(err);
    tosac_code code = th_run_op(TOSA_OP_RESCALE, &a, ins, 5, outs, 1, err);
    if (code == TOSAC_OK)
        for (int64_t i = 0; i < tosac_tensor_numel(&out); i++)
            got[i] = interp_get_int(&out, i);
    tosac_tensor_free(&in);
    tosac_tensor_free(&mul);
    tosac_tensor_free(&sh);
    tosac_tensor_free(&izp);
    tosac_tensor_free(&ozp);
    tosac_tensor_free(&out);
    return code;
}

static const int64_t M1[] = {1 << 30}, S30[] = {30}, S31[] = {31};

static void expect(const rescale_case *rc, const int64_t *want, int n)
{
    int64_t got[16];
    tosac_error err;
    tosac_code code = run_rescale(rc, got, &err);
    if (code != TOSAC_OK)
        fail_msg("RESCALE failed: %s", err.msg);
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %d: got %lld, want %lld", i, (long long)got[i], (long long)want[i]);
}

static void expect_error(const rescale_case *rc, const char *words)
{
    int64_t got[16];
    tosac_error err;
    assert_int_equal(run_rescale(rc, got, &err), TOSAC_ERR_INPUT);
    if (!strstr(err.msg, "RESCALE") || !strstr(err.msg, words))
        fail_msg("message '%s' lacks RESCALE / '%s'", err.msg, words);
}

static void test_rescale_rounding(void **state)
{
    (void)state;
    /* x0.5 (2^30 / 2^31): -128 -> -64, 127 -> 63.5 -> 64, 3 -> 1.5 -> 2, -3 -> -1.5 -> -1,
     * 1 -> 0.5 -> 1, -1 -> -0.5 -> 0 (half rounds toward +inf) */
    const int64_t in[] = {-128, 127, 3, -3, 1, -1}, want[] = {-64, 64, 2, -1, 1, 0};
    rescale_case rc = {TOSAC_DT_I8, TOSAC_DT_I8, 1, {6}, in, 1, M1, S31, 0, 0, true, false,
                       false, false, TOSA_ROUND_SINGLE};
    expect(&rc, want, 6);
    /* the same through apply_scale_16 (multiplier 2^14, shift 15) */
    const int64_t m16[] = {1 << 14}, s15[] = {15};
    rc.scale32 = false;
    rc.mult = m16;
    rc.shift = s15;
    expect(&rc, want, 6);
}

static void test_rescale_double_round(void **state)
{
    (void)state;
    /* i32 -> i32, x 2^30 / 2^32 = x0.25: value 1 gives 0 single, 1 double (see test_interp_arith);
     * value 2 is exactly 0.5: single (2^31 + 2^31) >> 32 = 1; double 1 too;
     * value -2 is -0.5: single 0; double (-2^31 + 2^31 - 2^30) >> 32 = -1 */
    const int64_t in[] = {1, 2, -2, 4}, s32[] = {32};
    const int64_t want_s[] = {0, 1, 0, 1}, want_d[] = {1, 1, -1, 1};
    rescale_case rc = {TOSAC_DT_I32, TOSAC_DT_I32, 1, {4}, in, 1, M1, s32, 0, 0, true, false,
                       false, false, TOSA_ROUND_SINGLE};
    expect(&rc, want_s, 4);
    rc.rounding = TOSA_ROUND_INEXACT;
    expect(&rc, want_s, 4);
    rc.rounding = TOSA_ROUND_DOUBLE;
    expect(&rc, want_d, 4);
}

static void test_rescale_saturation_signed(void **state)
{
    (void)state;
    /* int16 -> int8 x1: clamps to [-128, 127] */
    const int64_t in[] = {200, -200, 127, -128, 128, -129};
    const int64_t want[] = {127, -128, 127, -128, 127, -128};
    rescale_case rc = {TOSAC_DT_I16, TOSAC_DT_I8, 1, {6}, in, 1, M1, S30, 0, 0, true, false,
                       false, false, 0};
    expect(&rc, want, 6);
    /* int32 -> int16 x1 (shift 30 admits |value| < 2^29) */
    const int64_t in32[] = {40000, -40000, 32767, -32768};
    const int64_t want16[] = {32767, -32768, 32767, -32768};
    rescale_case r2 = {TOSAC_DT_I32, TOSAC_DT_I16, 1, {4}, in32, 1, M1, S30, 0, 0, true, false,
                       false, false, 0};
    expect(&r2, want16, 4);
    /* int8 with zero points: input_zp -3, output_zp 10, x1:
     * -128 -> -125 + 10 = -115; 127 -> 130 + 10 = 140 -> 127; 0 -> 3 + 10 = 13 */
    const int64_t in8[] = {-128, 127, 0}, want8[] = {-115, 127, 13};
    rescale_case r3 = {TOSAC_DT_I8, TOSAC_DT_I8, 1, {3}, in8, 1, M1, S30, -3, 10, true, false,
                       false, false, 0};
    expect(&r3, want8, 3);
}

static void test_rescale_unsigned_output(void **state)
{
    (void)state;
    /* int16 -> uint8 (stored as int8 bits), output_zp 128 (stored -128), x1:
     * 0 -> 128 (bits -128); 127 -> 255 (-1); -128 -> 0; -200 -> -72 -> 0; 300 -> 428 -> 255 */
    const int64_t in[] = {0, 127, -128, -200, 300}, want[] = {-128, -1, 0, 0, -1};
    rescale_case rc = {TOSAC_DT_I16, TOSAC_DT_I8, 1, {5}, in, 1, M1, S30, 0, -128, true, false,
                       false, true, 0};
    expect(&rc, want, 5);
    /* int8 -> uint16 (int16 bits), output_zp 32768 (stored -32768), x512 (2^30 / 2^21):
     * 127 -> 65024 + 32768 = 97792 -> 65535 (bits -1); -128 -> -65536 + 32768 -> 0;
     * 1 -> 512 + 32768 = 33280 (bits -32256); 0 -> 32768 (bits -32768) */
    const int64_t in8[] = {127, -128, 1, 0}, s21[] = {21};
    const int64_t want16[] = {-1, 0, -32256, -32768};
    rescale_case r2 = {TOSAC_DT_I8, TOSAC_DT_I16, 1, {4}, in8, 1, M1, s21, 0, -32768, true,
                       false, false, true, 0};
    expect(&r2, want16, 4);
}

static void test_rescale_unsigned_input(void **state)
{
    (void)state;
    /* uint8 (int8 bits) input_zp 128 (stored -128) -> int8, x1:
     * bits -56 = 200 -> 72; -1 = 255 -> 127; 0 -> -128; 127 -> -1 */
    const int64_t in[] = {-56, -1, 0, 127}, want[] = {72, 127, -128, -1};
    rescale_case rc = {TOSAC_DT_I8, TOSAC_DT_I8, 1, {4}, in, 1, M1, S30, -128, 0, true, false,
                       true, false, 0};
    expect(&rc, want, 4);
    /* uint16 (int16 bits) input_zp 32768 -> int16 x1: 65535 -> 32767; 0 -> -32768; 32768 -> 0 */
    const int64_t in16[] = {-1, 0, -32768}, want16[] = {32767, -32768, 0};
    rescale_case r2 = {TOSAC_DT_I16, TOSAC_DT_I16, 1, {3}, in16, 1, M1, S30, -32768, 0, true,
                       false, true, false, 0};
    expect(&r2, want16, 3);
}

static void test_rescale_i48_per_channel(void **state)
{
    (void)state;
    /* int48 -> int16, apply_scale_16, per channel over the last dim (3 channels):
     * ch0 (2^47-1 + 2^19) >> 20 = 2^27 -> 32767; ch1 -2^47 >> 20 = -2^27 -> -32768;
     * ch2 (3*2^16 + 2^15 + 2^15) >> 16 = 4 (3.5 rounds up) */
    const int64_t in[] = {((int64_t)1 << 47) - 1, -((int64_t)1 << 47), 3 * 65536 + 32768};
    const int64_t mult[] = {1, 1, 1}, shift[] = {20, 20, 16}, want[] = {32767, -32768, 4};
    rescale_case rc = {TOSAC_DT_I48, TOSAC_DT_I16, 1, {3}, in, 3, mult, shift, 0, 0, false, true,
                       false, false, 0};
    expect(&rc, want, 3);
    /* per channel on [2,2] int32 -> int8, shifts 30 and 31: [[10, 10], [-7, -7]] ->
     * [[10, 5], [-7, -3.5 -> -3]] */
    const int64_t in2[] = {10, 10, -7, -7}, m2[] = {1 << 30, 1 << 30}, s2[] = {30, 31};
    const int64_t want2[] = {10, 5, -7, -3};
    rescale_case r2 = {TOSAC_DT_I32, TOSAC_DT_I8, 2, {2, 2}, in2, 2, m2, s2, 0, 0, true, true,
                       false, false, 0};
    expect(&r2, want2, 4);
}

static void test_rescale_errors(void **state)
{
    (void)state;
    const int64_t in[] = {1, 2}, s1[] = {1}, s63[] = {63};
    rescale_case rc = {TOSAC_DT_I8, TOSAC_DT_I8, 1, {2}, in, 1, M1, s1, 0, 0, true, false, false,
                       false, 0};
    expect_error(&rc, "shift outside 2..62");
    rc.shift = s63;
    expect_error(&rc, "shift outside 2..62");
    rc.shift = S30;
    /* int16 signed input with a zero point */
    rescale_case r2 = {TOSAC_DT_I16, TOSAC_DT_I8, 1, {2}, in, 1, M1, S30, 5, 0, true, false,
                       false, false, 0};
    expect_error(&r2, "input_zp");
    /* int32 output with a zero point */
    rescale_case r3 = {TOSAC_DT_I8, TOSAC_DT_I32, 1, {2}, in, 1, M1, S30, 0, 1, true, false,
                       false, false, 0};
    expect_error(&r3, "output_zp");
    /* uint16 output zero point must be 0 or 32768 */
    rescale_case r4 = {TOSAC_DT_I8, TOSAC_DT_I16, 1, {2}, in, 1, M1, S30, 0, 100, true, false,
                       false, true, 0};
    expect_error(&r4, "not 0 or 32768");
    /* scale32 with int48 input */
    rescale_case r5 = {TOSAC_DT_I48, TOSAC_DT_I8, 1, {2}, in, 1, M1, S30, 0, 0, true, false,
                       false, false, 0};
    expect_error(&r5, "scale32 && in_t == i48_t");
    /* DOUBLE_ROUND needs scale32 */
    const int64_t m16[] = {1 << 14}, s15[] = {15};
    rescale_case r6 = {TOSAC_DT_I8, TOSAC_DT_I8, 1, {2}, in, 1, m16, s15, 0, 0, false, false,
                       false, false, TOSA_ROUND_DOUBLE};
    expect_error(&r6, "DOUBLE_ROUND");
    /* both unsigned */
    rescale_case r7 = {TOSAC_DT_I8, TOSAC_DT_I8, 1, {2}, in, 1, M1, S30, 0, 0, true, false, true,
                       true, 0};
    expect_error(&r7, "input_unsigned && output_unsigned");
    /* unsigned int32 output */
    rescale_case r8 = {TOSAC_DT_I8, TOSAC_DT_I32, 1, {2}, in, 1, M1, S30, 0, 0, true, false,
                       true, false, 0};
    expect_error(&r8, "input_unsigned");
    /* result + output_zp outside int32: int48 (2^47 - 2^16) * 2 / 2^17 = 2^31 - 1, + 1 */
    const int64_t big[] = {((int64_t)1 << 47) - 65536}, m2[] = {2}, s17[] = {17};
    rescale_case r9 = {TOSAC_DT_I48, TOSAC_DT_I8, 1, {1}, big, 1, m2, s17, 0, 1, false, false,
                       false, false, 0};
    expect_error(&r9, "outside int32");
    /* apply_scale_16 result outside int32: (2^47 - 2^16) * 4 / 2^17 = 2^32 - 2 */
    const int64_t m4[] = {4};
    r9.mult = m4;
    r9.out_zp = 0;
    expect_error(&r9, "result outside the int32 range");
    /* apply_scale_32 value REQUIRE: shift 2 admits only [-2, 2) and the input has 2 */
    const int64_t s2[] = {2};
    rc.shift = s2;
    expect_error(&rc, "value outside the range the shift allows");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cast_float_to_int),
        cmocka_unit_test(test_cast_int_to_float),
        cmocka_unit_test(test_cast_int_bool),
        cmocka_unit_test(test_cast_float_to_float),
        cmocka_unit_test(test_cast_int64_and_1_1_rows),
        cmocka_unit_test(test_cast_errors),
        cmocka_unit_test(test_rescale_rounding),
        cmocka_unit_test(test_rescale_double_round),
        cmocka_unit_test(test_rescale_saturation_signed),
        cmocka_unit_test(test_rescale_unsigned_output),
        cmocka_unit_test(test_rescale_unsigned_input),
        cmocka_unit_test(test_rescale_i48_per_channel),
        cmocka_unit_test(test_rescale_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
