/* Observers and quantization parameter math, on ranges and weights worked out by hand
 * (the arithmetic is in the comments; float32 values were checked with numpy float32). */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "quant/quant_internal.h"

static quant_range range(float lo, float hi)
{
    quant_range r = {lo, hi, true};
    return r;
}

static void test_observer_min_max(void **state)
{
    (void)state;
    quant_range r;
    quant_range_init(&r);
    assert_false(r.seen);
    const float a[4] = {0.5f, -2.0f, NAN, 1.0f};
    quant_range_observe(&r, a, 4);
    assert_true(r.seen && r.lo == -2.0f && r.hi == 1.0f);
    /* infinities (attention masks) are ignored, later samples widen the range */
    const float b[3] = {-INFINITY, 3.0f, INFINITY};
    quant_range_observe(&r, b, 3);
    assert_true(r.lo == -2.0f && r.hi == 3.0f);
    quant_range other = range(-5.0f, 0.0f), empty;
    quant_range_init(&empty);
    quant_range_merge(&r, &empty);
    assert_true(r.lo == -2.0f && r.hi == 3.0f);
    quant_range_merge(&r, &other);
    assert_true(r.lo == -5.0f && r.hi == 3.0f);
}

static void test_a8w8_activation_params(void **state)
{
    (void)state;
    quant_qparams q;
    quant_range r = range(-1.0f, 3.0f);
    /* scale = 4/255; zp = -128 - round(-1 / (4/255)) = -128 - round(-63.75) = -128 + 64 */
    quant_act_params(QUANT_A8W8, &r, &q);
    assert_true(q.dtype == TOSAC_DT_I8);
    assert_true(q.scale == (float)(4.0 / 255.0));
    assert_int_equal(q.zero_point, -64);
    /* [0.5, 6] is extended down to 0: scale 6/255, zp = -128 */
    r = range(0.5f, 6.0f);
    quant_act_params(QUANT_A8W8, &r, &q);
    assert_true(q.scale == (float)(6.0 / 255.0));
    assert_int_equal(q.zero_point, -128);
    /* [-2, -0.5] is extended up to 0: scale 2/255, zp = -128 - (-255) = 127 */
    r = range(-2.0f, -0.5f);
    quant_act_params(QUANT_A8W8, &r, &q);
    assert_true(q.scale == (float)(2.0 / 255.0));
    assert_int_equal(q.zero_point, 127);
    /* [-1, 1]: float32(2/255) = 0.007843138 is just above 2/255, so -1/scale = -127.49999
     * rounds to -127 and zp = -1 (not the 0 of exact arithmetic) */
    r = range(-1.0f, 1.0f);
    quant_act_params(QUANT_A8W8, &r, &q);
    assert_int_equal(q.zero_point, -1);
    assert_false(quant_act_params(QUANT_A8W8, &r, &q)); /* a range from the data */
    /* an all-zero range, a never-seen tensor and a range too narrow for a normal float scale
     * (1e-36 / 255 < FLT_MIN) get the parameters of [-1, 1] (the case above), and say so */
    const quant_range flat[3] = {range(0.0f, 0.0f), {0.0f, 0.0f, false}, range(0.0f, 1e-36f)};
    for (int i = 0; i < 3; i++) {
        assert_true(quant_act_params(QUANT_A8W8, &flat[i], &q));
        assert_true(q.scale == (float)(2.0 / 255.0));
        assert_int_equal(q.zero_point, -1);
    }
    /* a constant non-zero range is a range: [0, 5] */
    r = range(5.0f, 5.0f);
    assert_false(quant_act_params(QUANT_A8W8, &r, &q));
    assert_true(q.scale == (float)(5.0 / 255.0) && q.zero_point == -128);
}

static void test_a16w8_activation_params(void **state)
{
    (void)state;
    quant_qparams q;
    quant_range r = range(-1.0f, 3.0f);
    quant_act_params(QUANT_A16W8, &r, &q); /* symmetric: max|x| / 32767 */
    assert_true(q.dtype == TOSAC_DT_I16);
    assert_true(q.scale == (float)(3.0 / 32767.0));
    assert_int_equal(q.zero_point, 0);
    r = range(-4.0f, 2.0f);
    quant_act_params(QUANT_A16W8, &r, &q);
    assert_true(q.scale == (float)(4.0 / 32767.0));
    assert_int_equal(q.zero_point, 0);
    r = range(0.0f, 0.0f);
    assert_true(quant_act_params(QUANT_A16W8, &r, &q)); /* [-1, 1]: 1 / 32767 */
    assert_true(q.scale == (float)(1.0 / 32767.0));
    assert_int_equal(q.zero_point, 0);
}

static void test_quantize_value_rounding(void **state)
{
    (void)state;
    /* round half to even, then add zp, then saturate */
    assert_int_equal(quant_value(2.5f, 1.0f, 0, -128, 127), 2);
    assert_int_equal(quant_value(3.5f, 1.0f, 0, -128, 127), 4);
    assert_int_equal(quant_value(-2.5f, 1.0f, 0, -128, 127), -2);
    assert_int_equal(quant_value(0.0f, 0.5f, -64, -128, 127), -64);
    assert_int_equal(quant_value(1000.0f, 1.0f, 0, -128, 127), 127);
    assert_int_equal(quant_value(-1000.0f, 1.0f, 10, -128, 127), -128);
    assert_int_equal(quant_value(-1000.0f, 0.01f, 0, -32768, 32767), -32768);
    assert_int_equal(quant_value(NAN, 1.0f, 5, -128, 127), 5);
}

static void test_weights_per_channel_axis0(void **state)
{
    (void)state;
    /* [2, 3], axis 0: row 0 max|w| = 1.27 -> scale 0.01, q = 50, -127, 30;
     * row 1 is all zero -> scale 1, q = 0 */
    const float w[6] = {0.5f, -1.27f, 0.3f, 0.0f, 0.0f, 0.0f};
    float s[2];
    int8_t q[6];
    quant_weight_scales(w, 1, 2, 3, s);
    assert_true(s[0] == (float)(1.27 / 127.0));
    assert_true(s[1] == 1.0f);
    quant_weight_values(w, 1, 2, 3, s, q);
    const int8_t want[6] = {50, -127, 30, 0, 0, 0};
    assert_memory_equal(q, want, sizeof want);
}

static void test_weights_per_channel_last_axis(void **state)
{
    (void)state;
    /* Gemm B [K=2, N=2] without transB: channels are columns.
     * col 0 {1, -2}: scale 2/127, 1/scale = 63.5 -> 64 (tie to even), -2 -> -127
     * col 1 {-4, 2}: scale 4/127, -4 -> -127, 2/scale = 63.5 -> 64 */
    const float w[4] = {1.0f, -4.0f, -2.0f, 2.0f};
    float s[2];
    int8_t q[4];
    quant_weight_scales(w, 2, 2, 1, s);
    assert_true(s[0] == (float)(2.0 / 127.0) && s[1] == (float)(4.0 / 127.0));
    quant_weight_values(w, 2, 2, 1, s, q);
    const int8_t want[4] = {64, -127, -127, 64};
    assert_memory_equal(q, want, sizeof want);
    /* values beyond the channel's range clamp to +-127, never -128 */
    const float big[2] = {-5.0f, 5.0f};
    const float one = 0.01f;
    int8_t qb[2];
    quant_weight_values(big, 1, 1, 2, &one, qb);
    assert_int_equal(qb[0], -127);
    assert_int_equal(qb[1], 127);
}

static void test_bias_int32(void **state)
{
    (void)state;
    /* scale = s_in * s_w[c] = 0.1 * {0.01, 0.02} = {0.001, 0.002};
     * 1 / 0.001 = 999.99994 -> 1000, -0.5 / 0.002 = -249.99998 -> -250 */
    const float b[2] = {1.0f, -0.5f}, sw[2] = {0.01f, 0.02f};
    float sc[2];
    int32_t q[2];
    assert_int_equal(quant_bias_values(b, 2, 0.1f, sw, 2, sc, q), -1); /* all fit */
    assert_true(sc[0] == 0.1f * 0.01f && sc[1] == 0.1f * 0.02f);
    assert_int_equal(q[0], 1000);
    assert_int_equal(q[1], -250);
    /* one weight scale for every channel; a value beyond int32 is reported (its channel),
     * never saturated: 3 / (1e-5 * 1e-5) = 3e10 */
    const float big[2] = {1e-5f, 3.0f}, tiny = 1e-5f; /* 1e-5 / 1e-10 = 1e5 fits */
    assert_int_equal(quant_bias_values(big, 2, 1e-5f, &tiny, 1, sc, q), 1);
    assert_true(sc[0] == 1e-5f * 1e-5f);
    /* the edges: -2^31 fits, 2^31 does not (both exact in float) */
    const float edge[2] = {-2147483648.0f, 2147483648.0f};
    assert_int_equal(quant_bias_values(edge, 2, 1.0f, &(float){1.0f}, 1, sc, q), 1);
    assert_int_equal(q[0], INT32_MIN);
}

static void test_parse_scheme(void **state)
{
    (void)state;
    quant_scheme s;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(quant_parse_scheme("a16w8", &s, &err), TOSAC_OK);
    assert_int_equal(s, QUANT_A16W8);
    assert_int_equal(quant_parse_scheme("a8w8", &s, &err), TOSAC_OK);
    assert_int_equal(s, QUANT_A8W8);
    assert_int_equal(quant_parse_scheme("a4w4", &s, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "'a4w4'"));
    assert_string_equal(quant_scheme_name(QUANT_A16W8), "a16w8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_observer_min_max),
        cmocka_unit_test(test_a8w8_activation_params),
        cmocka_unit_test(test_a16w8_activation_params),
        cmocka_unit_test(test_quantize_value_rounding),
        cmocka_unit_test(test_weights_per_channel_axis0),
        cmocka_unit_test(test_weights_per_channel_last_axis),
        cmocka_unit_test(test_bias_int32),
        cmocka_unit_test(test_parse_scheme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
