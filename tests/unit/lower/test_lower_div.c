/* Lowering integer Div to INTDIV: int32 one to one (truncation toward zero, like ONNX/C),
 * int8/int16 through CAST to int32 and back, int64 only with EXT-INT64, a constant zero
 * divisor refused, and interpreter runs against hand-computed quotients. */
#include "lower_testutil.h"

#include <string.h>

#include "partition/partition.h"

static const int64_t s6[1] = {6};

static ir_graph *div_graph(tosac_dtype dt, const void *divisor)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int a = lt_input(g, "a", dt, 1, s6);
    int b = divisor ? lt_const(g, "b", dt, 1, s6, divisor) : lt_input(g, "b", dt, 1, s6);
    int y = lt_tensor(g, "y", dt, 1, s6);
    lt_node(g, "Div", (int[]){a, b}, 2, &y, 1);
    return g;
}

/* Runs tg on a / b (b NULL: a constant divisor) and checks the quotients exactly. */
static void run_div(const tosa_graph *tg, tosac_dtype dt, const void *num, const void *den,
                    const void *want)
{
    tosac_tensor in[2] = {lt_host(dt, 1, s6, num), lt_host(dt, 1, s6, den)}, out;
    lt_run(tg, in, den ? 2 : 1, &out);
    lt_expect_bytes(&out, dt, want, 6);
    tosac_tensor_free(&out);
}

/* Quotients truncated toward zero: 7/2 = 3, -7/2 = -3, 7/-2 = -3, -7/-2 = 3, 5/7 = 0, 0/3 = 0. */
static const int32_t num32[6] = {7, -7, 7, -7, 5, 0}, den32[6] = {2, 2, -2, -2, 7, 3};
static const int32_t quo32[6] = {3, -3, -3, 3, 0, 0};

static void test_int32_runtime_divisor(void **state)
{
    (void)state;
    ir_graph *g = div_graph(TOSAC_DT_I32, NULL);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "INTDIV");
    run_div(tg, TOSAC_DT_I32, num32, den32, quo32);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int8: -128 / 2 = -64, 127 / -3 = -42 (truncated), -100 / 7 = -14, 9 / 10 = 0; -128 / -1 =
 * 128 in int32, whose CAST back keeps the low bits: -128, as the CPU kernel wraps. */
static void test_int8_through_int32(void **state)
{
    (void)state;
    const int8_t den[6] = {2, -3, 7, 10, -1, 1};
    ir_graph *g = div_graph(TOSAC_DT_I8, den);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "CAST CAST INTDIV CAST");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_INTDIV, 0)), TOSAC_DT_I32);
    const int8_t num[6] = {-128, 127, -100, 9, -128, -7};
    const int8_t want[6] = {-64, -42, -14, 0, -128, -7};
    run_div(tg, TOSAC_DT_I8, num, NULL, want);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int16: -32768 / 3 = -10922 (truncated), 1000 / -7 = -142. */
static void test_int16_through_int32(void **state)
{
    (void)state;
    ir_graph *g = div_graph(TOSAC_DT_I16, NULL);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "CAST CAST INTDIV CAST");
    const int16_t num[6] = {-32768, 1000, 32767, -5, 0, 300};
    const int16_t den[6] = {3, -7, 32767, 2, -9, 300};
    const int16_t want[6] = {-10922, -142, 1, -2, 0, 1};
    run_div(tg, TOSAC_DT_I16, num, den, want);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_constant_zero_divisor_refused(void **state)
{
    (void)state;
    const int32_t den[6] = {1, 2, 0, 4, 5, 6};
    ir_graph *g = div_graph(TOSAC_DT_I32, den);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0), "Div: division by a constant zero");
    ir_graph_free(g);
}

/* The spec lists INTDIV i32 under PRO-FP as well as PRO-INT (tosa-1.0.2.xml), so int32 Div is
 * delegated under TOSA-1.0+FP; the int8 form needs CAST i8 -> i32, which is INT only. */
static void test_fp_profile(void **state)
{
    (void)state;
    ir_graph *g = div_graph(TOSAC_DT_I32, NULL);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "INTDIV");
    tosa_graph_free(tg);
    ir_graph_free(g);

    g = div_graph(TOSAC_DT_I8, NULL);
    char why[256];
    snprintf(why, sizeof why, "%s", lt_trial("TOSA-1.0+FP", g, 0));
    assert_non_null(strstr(why, "CAST"));
    tosa_spec fp = bt_spec("TOSA-1.0+FP");
    assert_string_equal(partition_categorise(&fp, &g->nodes[0], why, sizeof why),
                        "needs a profile or extension");
    assert_string_equal(why, "Div: integer operands need +INT (TOSA-1.0+INT+FP)");
    ir_graph_free(g);
}

/* int64: INTDIV i64 is EXT-INT64 (TOSA 1.1); TOSA 1.0 has no int64 form. */
static void test_int64(void **state)
{
    (void)state;
    ir_graph *g = div_graph(TOSAC_DT_I64, NULL);
    tosa_graph *tg = lt_lower_ok("TOSA-1.1+INT+int64", g);
    assert_string_equal(lt_ops(tg), "INTDIV");
    const int64_t num[6] = {(int64_t)1 << 40, -((int64_t)1 << 40) - 1, 9, -9, 1, 0};
    const int64_t den[6] = {3, 2, -4, -4, 2, 5};
    /* 2^40 / 3 = 366503875925 (remainder 1); (-2^40 - 1) / 2 = -549755813888 (truncated) */
    const int64_t want[6] = {366503875925LL, -549755813888LL, -2, 2, 0, 0};
    run_div(tg, TOSAC_DT_I64, num, den, want);
    tosa_graph_free(tg);
    char why[256];
    snprintf(why, sizeof why, "%s", lt_trial("TOSA-1.0+INT", g, 0));
    assert_non_null(strstr(why, "INTDIV"));
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int32_runtime_divisor),
        cmocka_unit_test(test_int8_through_int32),
        cmocka_unit_test(test_int16_through_int32),
        cmocka_unit_test(test_constant_zero_divisor_refused),
        cmocka_unit_test(test_fp_profile),
        cmocka_unit_test(test_int64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
