/* CumSum as MATMUL with a triangular constant (lower_cumsum.c): every exclusive/reverse
 * combination on the last and a middle axis, float (f32 accumulator), a8w8 (i32) and a16w8
 * (i48), all-zero / all-one inputs, against the CPU executor (lower_core_testutil.h); the
 * integer form is refused with its reason. */
#include "lower_core_testutil.h"

#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

typedef struct ccase {
    int64_t axis, exclusive, reverse;
    const float *x;
} ccase;

static float cx[24];

static void cumsum_model(lc_b *b, const void *arg)
{
    const ccase *k = arg;
    const int64_t s[3] = {2, 3, 4};
    int ins[2] = {lc_input(b, "x", 3, s, k->x ? k->x : cx), lc_ints(b, "axis", 1, &k->axis)};
    int n = lc_node(b, "CumSum", "cumsum", ins, 2, 1);
    ir_node_set_int(lc_graph(b), n, "exclusive", k->exclusive, NULL);
    ir_node_set_int(lc_graph(b), n, "reverse", k->reverse, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void all_modes(const ccase *k, unsigned seed)
{
    static const struct {
        lc_mode mode;
        const char *spec;
        tosac_dtype in, acc;
    } modes[3] = {{LC_FLOAT, FP, TOSAC_DT_F32, TOSAC_DT_F32},
                  {LC_A8W8, INT8, TOSAC_DT_I8, TOSAC_DT_I32},
                  {LC_A16W8, INT16, TOSAC_DT_I16, TOSAC_DT_I48}};
    for (int m = 0; m < 3; m++) {
        lc_fill(cx, 24, seed + (unsigned)m, 2.0f);
        lc_result r;
        lc_check(cumsum_model, k, modes[m].mode, modes[m].spec, modes[m].mode == LC_FLOAT ? 0 : 1,
                 &r);
        assert_int_equal(r.delegated, 1);
        const lc_op_info *mm = lc_find(&r, TOSA_OP_MATMUL);
        assert_non_null(mm);
        assert_int_equal(mm->in_dtype, modes[m].in);
        assert_int_equal(mm->out_dtype, modes[m].acc);
    }
}

static void test_attrs(void **s)
{
    (void)s;
    for (int ex = 0; ex < 2; ex++)
        for (int rev = 0; rev < 2; rev++) {
            ccase last = {-1, ex, rev, NULL}, mid = {1, ex, rev, NULL};
            all_modes(&last, 20u + (unsigned)(ex * 2 + rev));
            all_modes(&mid, 40u + (unsigned)(ex * 2 + rev));
        }
}

static void test_degenerate(void **s)
{
    (void)s;
    static float zeros[24], ones[24];
    for (int i = 0; i < 24; i++)
        ones[i] = 1.0f;
    for (int k = 0; k < 2; k++) {
        ccase c = {2, 0, 0, k ? ones : zeros};
        lc_result r;
        lc_check(cumsum_model, &c, LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        lc_check(cumsum_model, &c, LC_A16W8, INT16, 1, &r);
        assert_int_equal(r.delegated, 1);
    }
}

static void int_model(lc_b *b, const void *arg)
{
    (void)arg;
    static const int32_t v[4] = {1, 2, 3, 4};
    const int64_t s[1] = {4}, ax = 0;
    int ins[2] = {lc_input_typed(b, "x", TOSAC_DT_I32, 1, s, v), lc_ints(b, "axis", 1, &ax)};
    int n = lc_node(b, "CumSum", "cumsum", ins, 2, 1);
    lc_output_plain(b, lc_out(b, n, 0));
}

static void test_integer_refused(void **s)
{
    (void)s;
    lc_result r;
    lc_check(int_model, NULL, LC_FLOAT, INT8, 0, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "CumSum: i32 input (TOSA's MATMUL has no such operands)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attrs),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_integer_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
