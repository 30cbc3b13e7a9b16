/* ScatterND with constant indices as SCATTER (lower_scatter.c): row and element tuples,
 * negative indices, float, a8w8 and a16w8 (updates quantized apart from the data, so they are
 * rescaled), all-zero / all-one inputs, against the CPU executor (lower_core_testutil.h);
 * refusals: repeated index, runtime indices, reduction. */
#include "lower_core_testutil.h"

#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

typedef struct scase {
    int irank;
    int64_t ishape[3];
    const int64_t *idx;
    int urank;
    int64_t ushape[3];
    const char *reduction;
    bool runtime_idx;
    const float *x;
} scase;

static float sx[24], su[24];

/* data [2,3,4] */
static void scatter_model(lc_b *b, const void *arg)
{
    const scase *c = arg;
    const int64_t s[3] = {2, 3, 4};
    tosac_error err = {0};
    ir_graph *g = lc_graph(b);
    int64_t ni = 1;
    for (int i = 0; i < c->irank; i++)
        ni *= c->ishape[i];
    int ins[3];
    ins[0] = lc_input(b, "x", 3, s, c->x ? c->x : sx);
    ins[1] = c->runtime_idx
                 ? lc_input_typed(b, "i", TOSAC_DT_I64, c->irank, c->ishape, c->idx)
                 : ir_graph_add_const(g, "i", TOSAC_DT_I64, c->irank, c->ishape, c->idx,
                                      (size_t)ni * 8, &err);
    ins[2] = lc_input(b, "u", c->urank, c->ushape, su);
    int n = lc_node(b, "ScatterND", "scatter", ins, 3, 1);
    if (c->reduction)
        ir_node_set_string(g, n, "reduction", c->reduction, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static const int64_t rows2[2] = {1, -2};                 /* data[1], data[0] */
static const int64_t elems[6] = {0, 2, 1, -1, 1, 0};     /* data[0,2], [1,2], [1,0] */
static const scase forms[] = {
    {2, {2, 1}, rows2, 3, {2, 3, 4}, NULL, false, NULL},
    {2, {3, 2}, elems, 2, {3, 4}, NULL, false, NULL},
};

static void test_forms(void **s)
{
    (void)s;
    for (int i = 0; i < 2; i++) {
        lc_fill(sx, 24, 3u + (unsigned)i, 2.0f);
        lc_fill(su, 24, 9u + (unsigned)i, 4.0f); /* a wider range: another scale */
        lc_result r;
        lc_check(scatter_model, &forms[i], LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_SCATTER, TOSAC_DT_F32), 1);
        lc_check(scatter_model, &forms[i], LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_SCATTER, TOSAC_DT_I8), 1);
        lc_check(scatter_model, &forms[i], LC_A16W8, INT16, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(lc_count(&r, TOSA_OP_SCATTER, TOSAC_DT_I16), 1);
    }
}

static void test_degenerate(void **s)
{
    (void)s;
    static float zeros[24], ones[24];
    for (int i = 0; i < 24; i++)
        ones[i] = 1.0f;
    for (int k = 0; k < 2; k++) {
        scase c = forms[1];
        c.x = k ? ones : zeros;
        memcpy(su, k ? ones : zeros, sizeof su);
        lc_result r;
        lc_check(scatter_model, &c, LC_A8W8, INT8, 1, &r);
        assert_int_equal(r.delegated, 1);
        lc_check(scatter_model, &c, LC_A16W8, INT16, 1, &r);
        assert_int_equal(r.delegated, 1);
    }
}

static void test_refusals(void **s)
{
    (void)s;
    static const int64_t dup[2] = {1, 1};
    lc_fill(sx, 24, 30, 2.0f);
    lc_fill(su, 24, 31, 2.0f);
    const struct {
        scase c;
        const char *why;
    } cases[] = {
        {{2, {2, 1}, dup, 3, {2, 3, 4}, NULL, false, NULL},
         "ScatterND: indices hold a repeated index"},
        {{2, {2, 1}, rows2, 3, {2, 3, 4}, NULL, true, NULL},
         "ScatterND: indices are not an int32/int64 constant"},
        {{2, {2, 1}, rows2, 3, {2, 3, 4}, "add", false, NULL},
         "ScatterND: reduction=\"add\" (SCATTER only writes)"},
    };
    for (int i = 0; i < 3; i++) {
        lc_result r;
        lc_check(scatter_model, &cases[i].c, LC_FLOAT, "TOSA-1.0+FP", 0, &r);
        assert_int_equal(r.delegated, 0);
        assert_non_null(strstr(r.reasons, cases[i].why));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
