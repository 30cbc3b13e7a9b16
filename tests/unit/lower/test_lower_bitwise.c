/* Lowering BitwiseNot/And/Or/Xor and BitShift (lower_bitwise.c): the operators and dtypes
 * emitted for int8/int16/int32 (int64 only with EXT-INT64), interpreter runs on edge values
 * (INT_MIN, INT_MAX, -1 = all ones, 0) against literal results, whole compiles whose program
 * equals the CPU executor bit for bit with every node delegated, and the cases that stay on
 * the CPU: unsigned types, runtime or out-of-range shift amounts, the FP-only profile. */
#include "lower_core_testutil.h"
#include "lower_testutil.h"

#include <stdint.h>
#include <string.h>

static const int64_t s4[1] = {4};

/* op(a[, b]) -> y, all of dtype dt and shape [4]; b is a constant when data is given. */
static ir_graph *graph(const char *op, tosac_dtype dt, int n_in, const void *b_const)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int ins[2] = {lt_input(g, "a", dt, 1, s4), -1};
    if (n_in > 1)
        ins[1] = b_const ? lt_const(g, "b", dt, 1, s4, b_const) : lt_input(g, "b", dt, 1, s4);
    int y = lt_tensor(g, "y", dt, 1, s4);
    lt_node(g, op, ins, n_in, &y, 1);
    return g;
}

static void shift_dir(ir_graph *g, const char *dir)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_string(g, 0, "direction", dir, &err), TOSAC_OK);
}

/* Lowers g under spec, checks the single operator and its output dtype, runs it. */
static void run_one(const char *spec, ir_graph *g, const char *ops, tosac_dtype dt,
                    const void *a, const void *b, const void *want)
{
    tosa_graph *tg = lt_lower_ok(spec, g);
    assert_string_equal(lt_ops(tg), ops);
    assert_int_equal(lt_out_dtype(tg, &tosa_graph_main_block(tg)->ops[
                                          tosa_graph_main_block(tg)->n_ops - 1]), dt);
    tosac_tensor in[2] = {lt_host(dt, 1, s4, a), lt_host(dt, 1, s4, b)}, out;
    lt_run(tg, in, b ? 2 : 1, &out);
    lt_expect_bytes(&out, dt, want, 4);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
}

static void test_and_or_xor_not_int8(void **state)
{
    (void)state;
    const int8_t a[4] = {-128, -1, 127, 0x55}, b[4] = {-1, -128, -1, 0x0f};
    const int8_t and_[4] = {-128, -128, 127, 0x05}, or_[4] = {-1, -1, -1, 0x5f};
    const int8_t xor_[4] = {127, 127, -128, 0x5a}, not_[4] = {127, 0, -128, -86};
    const struct {
        const char *op, *tosa;
        int n;
        const int8_t *want;
    } cases[] = {{"BitwiseAnd", "BITWISE_AND", 2, and_},
                 {"BitwiseOr", "BITWISE_OR", 2, or_},
                 {"BitwiseXor", "BITWISE_XOR", 2, xor_},
                 {"BitwiseNot", "BITWISE_NOT", 1, not_}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_graph *g = graph(cases[i].op, TOSAC_DT_I8, cases[i].n, NULL);
        run_one("TOSA-1.0+INT", g, cases[i].tosa, TOSAC_DT_I8, a, cases[i].n > 1 ? b : NULL,
                cases[i].want);
        ir_graph_free(g);
    }
}

static void test_int16_int32(void **state)
{
    (void)state;
    const int16_t a16[4] = {INT16_MIN, -1, INT16_MAX, 0x1234}, b16[4] = {-1, INT16_MIN, 1, -256};
    const int16_t xor16[4] = {INT16_MAX, INT16_MAX, INT16_MAX - 1, (int16_t)0xed34};
    ir_graph *g = graph("BitwiseXor", TOSAC_DT_I16, 2, NULL);
    run_one("TOSA-1.0+INT", g, "BITWISE_XOR", TOSAC_DT_I16, a16, b16, xor16);
    ir_graph_free(g);

    const int32_t a32[4] = {INT32_MIN, -1, INT32_MAX, 0x12345678};
    const int32_t b32[4] = {INT32_MIN, 0, -2, (int32_t)0xffff0000};
    const int32_t and32[4] = {INT32_MIN, 0, INT32_MAX - 1, 0x12340000};
    const int32_t not32[4] = {INT32_MAX, 0, INT32_MIN, (int32_t)0xedcba987};
    g = graph("BitwiseAnd", TOSAC_DT_I32, 2, b32); /* a constant operand */
    run_one("TOSA-1.0+INT", g, "BITWISE_AND", TOSAC_DT_I32, a32, NULL, and32);
    ir_graph_free(g);
    g = graph("BitwiseNot", TOSAC_DT_I32, 1, NULL);
    run_one("TOSA-1.0+INT", g, "BITWISE_NOT", TOSAC_DT_I32, a32, NULL, not32);
    ir_graph_free(g);
}

/* Shifts happen on the bits: -128 >> 7 (logical) = 1, -1 >> 1 = 127, 1 << 7 = -128,
 * -1 << 7 = -128; an amount of 0 keeps the value. */
static void test_bitshift_constant_amounts(void **state)
{
    (void)state;
    const int8_t a[4] = {-128, -1, 1, 0x35}, sr[4] = {7, 1, 0, 4}, sl[4] = {7, 7, 7, 1};
    const int8_t right[4] = {1, 127, 1, 3}, left[4] = {0, -128, -128, 0x6a};
    ir_graph *g = graph("BitShift", TOSAC_DT_I8, 2, sr);
    shift_dir(g, "RIGHT");
    run_one("TOSA-1.0+INT", g, "LOGICAL_RIGHT_SHIFT", TOSAC_DT_I8, a, NULL, right);
    ir_graph_free(g);
    g = graph("BitShift", TOSAC_DT_I8, 2, sl);
    shift_dir(g, "LEFT");
    run_one("TOSA-1.0+INT", g, "LOGICAL_LEFT_SHIFT", TOSAC_DT_I8, a, NULL, left);
    ir_graph_free(g);

    const int32_t a32[4] = {INT32_MIN, -1, 1, 0x12345678}, s32[4] = {31, 31, 31, 8};
    const int32_t r32[4] = {1, 1, 0, 0x123456};
    g = graph("BitShift", TOSAC_DT_I32, 2, s32);
    shift_dir(g, "RIGHT");
    run_one("TOSA-1.0+INT", g, "LOGICAL_RIGHT_SHIFT", TOSAC_DT_I32, a32, NULL, r32);
    ir_graph_free(g);
}

/* What stays on the CPU, and why (the rule's own words). */
static void test_refusals(void **state)
{
    (void)state;
    const int8_t s8[4] = {1, 2, 8, 0}; /* 8 is the bit width: ONNX gives 0, TOSA undefined */
    ir_graph *g = graph("BitShift", TOSAC_DT_I8, 2, s8);
    shift_dir(g, "LEFT");
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "BitShift: constant shift amount 8 is outside 0..7, where TOSA's "
                        "result is undefined");
    ir_graph_free(g);

    g = graph("BitShift", TOSAC_DT_I16, 2, NULL);
    shift_dir(g, "RIGHT");
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "BitShift: a runtime shift amount may be 16 or more, which ONNX defines "
                        "(0) and TOSA does not");
    ir_graph_free(g);

    const uint8_t u[4] = {1, 2, 3, 4};
    g = graph("BitShift", TOSAC_DT_U8, 2, u);
    shift_dir(g, "RIGHT");
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "BitShift: TOSA has no unsigned integer types (u8 'a')");
    ir_graph_free(g);

    g = graph("BitShift", TOSAC_DT_I8, 2, s8);
    shift_dir(g, "UP");
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "BitShift: direction 'UP' is neither LEFT nor RIGHT");
    ir_graph_free(g);

    /* BITWISE_* are PRO-INT only; the logical shifts are in PRO-FP too */
    g = graph("BitwiseOr", TOSAC_DT_I32, 2, NULL);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "BITWISE_OR: in_out_t=i32 needs PRO-INT");
    ir_graph_free(g);
    const int32_t s32[4] = {1, 2, 3, 31};
    g = graph("BitShift", TOSAC_DT_I32, 2, s32);
    shift_dir(g, "LEFT");
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "");
    ir_graph_free(g);
}

/* int64: the i64 rows are EXT-INT64 (TOSA 1.1); values beyond int32. */
static void test_int64(void **state)
{
    (void)state;
    const int64_t a[4] = {INT64_MIN, -1, INT64_C(1) << 40, INT64_C(0x123456789)};
    const int64_t b[4] = {-1, INT64_MIN, (INT64_C(1) << 40) | 1, INT64_C(0xff00000000)};
    const int64_t or_[4] = {-1, -1, (INT64_C(1) << 40) | 1, INT64_C(0xff23456789)};
    ir_graph *g = graph("BitwiseOr", TOSAC_DT_I64, 2, NULL);
    run_one("TOSA-1.1+INT+int64", g, "BITWISE_OR", TOSAC_DT_I64, a, b, or_);
    assert_string_equal(lt_trial("TOSA-1.1+INT", g, 0),
                        "BITWISE_OR: in_out_t=i64 needs EXT-INT64");
    ir_graph_free(g);
    const int64_t s[4] = {63, 1, 40, 32}, r[4] = {1, INT64_MAX, 1, 1};
    g = graph("BitShift", TOSAC_DT_I64, 2, s);
    shift_dir(g, "RIGHT");
    run_one("TOSA-1.1+INT+int64", g, "LOGICAL_RIGHT_SHIFT", TOSAC_DT_I64, a, NULL, r);
    ir_graph_free(g);
}

/* ---- whole compiles: program == CPU executor, every node delegated ---- */
typedef struct chain_arg {
    tosac_dtype dt;
    const void *x, *y, *amount;
} chain_arg;

/* z = BitShift(Not(x & y) ^ (x | y), amount) with a broadcast [1] operand y */
static void chain(lc_b *b, const void *argp)
{
    const chain_arg *arg = argp;
    ir_graph *g = lc_graph(b);
    const int64_t s6[1] = {6}, s1[1] = {1};
    int x = lc_input_typed(b, "x", arg->dt, 1, s6, arg->x);
    int y = lc_input_typed(b, "y", arg->dt, 1, s1, arg->y);
    int xy[2] = {x, y};
    int a = lc_out(b, lc_node(b, "BitwiseAnd", "and", xy, 2, 1), 0);
    int o = lc_out(b, lc_node(b, "BitwiseOr", "or", xy, 2, 1), 0);
    int na = lc_out(b, lc_node(b, "BitwiseNot", "not", &a, 1, 1), 0);
    int xo[2] = {na, o};
    int v = lc_out(b, lc_node(b, "BitwiseXor", "xor", xo, 2, 1), 0);
    tosac_error err;
    tosac_error_clear(&err);
    int k = ir_graph_add_const(g, "amount", arg->dt, 1, s1, arg->amount,
                               tosac_dtype_size(arg->dt), &err);
    assert_true(k >= 0);
    int sh[2] = {v, k};
    int node = lc_node(b, "BitShift", "shift", sh, 2, 1);
    assert_int_equal(ir_node_set_string(g, node, "direction", "RIGHT", &err), TOSAC_OK);
    lc_output_plain(b, lc_out(b, node, 0));
}

static void check_chain(const chain_arg *arg, const char *spec)
{
    lc_result r;
    lc_check(chain, arg, LC_FLOAT, spec, 1, &r);
    assert_int_equal(r.n_delegates, 1);
    assert_int_equal(r.delegated, 5);
    assert_int_equal(r.cpu, 0);
    tosa_op ops[5] = {TOSA_OP_BITWISE_AND, TOSA_OP_BITWISE_OR, TOSA_OP_BITWISE_NOT,
                      TOSA_OP_BITWISE_XOR, TOSA_OP_LOGICAL_RIGHT_SHIFT};
    for (int i = 0; i < 5; i++)
        assert_int_equal(lc_count(&r, ops[i], arg->dt), 1);
}

static void test_compiled_chain_matches_cpu(void **state)
{
    (void)state;
    static const int8_t x8[6] = {-128, -1, 127, 0, 0x5a, -77}, y8[1] = {-86}, k8[1] = {3};
    static const int16_t x16[6] = {INT16_MIN, -1, INT16_MAX, 0, 0x1234, -999}, y16[1] = {0x7f0f},
                         k16[1] = {15};
    static const int32_t x32[6] = {INT32_MIN, -1, INT32_MAX, 0, 0x12345678, -123456},
                         y32[1] = {(int32_t)0xf0f0f0f0}, k32[1] = {31};
    chain_arg a8 = {TOSAC_DT_I8, x8, y8, k8}, a16 = {TOSAC_DT_I16, x16, y16, k16},
              a32 = {TOSAC_DT_I32, x32, y32, k32};
    check_chain(&a8, "TOSA-1.0+INT");
    check_chain(&a16, "TOSA-1.0+INT");
    check_chain(&a32, "TOSA-1.0+INT");
    static const int64_t x64[6] = {INT64_MIN, -1, INT64_MAX, 0, INT64_C(0x123456789abc), -5},
                         y64[1] = {INT64_C(0x0ff0000000ff)}, k64[1] = {33};
    chain_arg a64 = {TOSAC_DT_I64, x64, y64, k64};
    check_chain(&a64, "TOSA-1.1+INT+int64");
}

/* Without EXT-INT64 the int64 chain stays on the CPU, still matching. */
static void test_int64_chain_without_ext(void **state)
{
    (void)state;
    static const int64_t x64[6] = {INT64_MIN, -1, INT64_MAX, 0, INT64_C(1) << 40, -5},
                         y64[1] = {INT64_C(0x0ff0000000ff)}, k64[1] = {33};
    chain_arg a64 = {TOSAC_DT_I64, x64, y64, k64};
    lc_result r;
    lc_check(chain, &a64, LC_FLOAT, "TOSA-1.1+INT", 1, &r);
    assert_int_equal(r.n_delegates, 0);
    assert_int_equal(r.cpu, 5);
    assert_non_null(strstr(r.categories, "BitwiseAnd: int64 not kept"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_and_or_xor_not_int8),
        cmocka_unit_test(test_int16_int32),
        cmocka_unit_test(test_bitshift_constant_amounts),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_compiled_chain_matches_cpu),
        cmocka_unit_test(test_int64_chain_without_ext),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
