/* Layout lowering: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice in
 * int8, int16 and float models (lower_core_testutil.h). */
#include "lower_core_testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "tosac/compile.h"

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

static float xa[120], xb[120];

static const int64_t s245[3] = {2, 4, 5}, s2415[4] = {2, 4, 1, 5};

static void reshape_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t shape[2] = {5, 8};
    int ins[2] = {lc_input(b, "x", 3, s245, xa), lc_ints(b, "shape", 2, shape)};
    lc_output(b, lc_out(b, lc_node(b, "Reshape", "reshape", ins, 2, 1), 0));
}

static void flatten_model(lc_b *b, const void *arg)
{
    (void)arg;
    int x = lc_input(b, "x", 4, s2415, xa);
    int n = lc_node(b, "Flatten", "flatten", &x, 1, 1);
    ir_node_set_int(lc_graph(b), n, "axis", 2, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void squeeze_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t axes[1] = {2};
    int ins[2] = {lc_input(b, "x", 4, s2415, xa), lc_ints(b, "axes", 1, axes)};
    int sq = lc_q(b, lc_out(b, lc_node(b, "Squeeze", "squeeze", ins, 2, 1), 0));
    const int64_t axes2[2] = {0, 3};
    int ins2[2] = {sq, lc_ints(b, "axes2", 2, axes2)};
    lc_output(b, lc_out(b, lc_node(b, "Unsqueeze", "unsqueeze", ins2, 2, 1), 0));
}

static void transpose_model(lc_b *b, const void *arg)
{
    int x = lc_input(b, "x", 4, s2415, xa);
    int n = lc_node(b, "Transpose", "transpose", &x, 1, 1);
    const int64_t perm[4] = {0, 2, 3, 1};
    if (arg) /* else the default: reversed dimensions */
        ir_node_set_ints(lc_graph(b), n, "perm", perm, 4, NULL);
    lc_output(b, lc_out(b, n, 0));
}

/* In every mode: every node delegated, `count` operators op of the mode's type. */
static void check_all(lc_build_fn fn, const void *arg, int nodes, tosa_op op, int count)
{
    for (int i = 0; i < 3; i++) {
        lc_result r;
        lc_check(fn, arg, lc_modes[i].mode, lc_modes[i].spec, 1, &r);
        if (r.delegated != nodes)
            print_error("%s\n", r.reasons);
        assert_int_equal(r.delegated, nodes);
        assert_int_equal(r.n_delegates, 1);
        assert_int_equal(lc_count(&r, op, lc_modes[i].dt), count);
    }
}

static void test_reshapes(void **state)
{
    (void)state;
    lc_fill(xa, 40, 1, 2.0f);
    check_all(reshape_model, NULL, 1, TOSA_OP_RESHAPE, 1);
    check_all(flatten_model, NULL, 1, TOSA_OP_RESHAPE, 1);
    /* Squeeze then Unsqueeze: one delegate, the two RESHAPEs composed into one */
    check_all(squeeze_model, NULL, 2, TOSA_OP_RESHAPE, 1);
    /* a pure move keeps the quantization: no RESCALE */
    lc_result r;
    lc_check(reshape_model, NULL, LC_A8W8, INT8, 1, &r);
    assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_UNKNOWN), 0);
}

static void test_transpose(void **state)
{
    (void)state;
    lc_fill(xa, 40, 2, 2.0f);
    check_all(transpose_model, "perm", 1, TOSA_OP_TRANSPOSE, 1);
    check_all(transpose_model, NULL, 1, TOSA_OP_TRANSPOSE, 1);
}

/* Concat of a [2,4,5] (range 2) and b [2,3,5] (range 6) along axis 1. */
static void concat_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t sb[3] = {2, 3, 5};
    int ins[2] = {lc_input(b, "a", 3, s245, xa), lc_input(b, "b", 3, sb, xb)};
    int n = lc_node(b, "Concat", "concat", ins, 2, 1);
    ir_node_set_int(lc_graph(b), n, "axis", -2, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_concat(void **state)
{
    (void)state;
    lc_fill(xa, 40, 3, 2.0f);
    lc_fill(xb, 30, 4, 6.0f);
    check_all(concat_model, NULL, 1, TOSA_OP_CONCAT, 1);
    /* a's parameters differ from the output's (whose range is b's): a is rescaled first */
    lc_result r;
    lc_check(concat_model, NULL, LC_A8W8, INT8, 1, &r);
    assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I8), 1);
    assert_int_equal(r.ops[r.n_ops - 1].op, TOSA_OP_CONCAT);
}

/* Split x [2,5,3] along axis 1 into 2 + 3 (split input) or, without it, equal halves of
 * [2,4,5] along axis 1. */
static void split_model(lc_b *b, const void *arg)
{
    if (arg) {
        const int64_t xs[3] = {2, 5, 3}, split[2] = {2, 3};
        int ins[2] = {lc_input(b, "x", 3, xs, xa), lc_ints(b, "split", 2, split)};
        int n = lc_node(b, "Split", "split", ins, 2, 2);
        ir_node_set_int(lc_graph(b), n, "axis", 1, NULL);
        lc_output(b, lc_out(b, n, 0));
        lc_output(b, lc_out(b, n, 1));
    } else {
        int x = lc_input(b, "x", 3, s245, xa);
        int n = lc_node(b, "Split", "split", &x, 1, 2);
        ir_node_set_int(lc_graph(b), n, "axis", 1, NULL);
        lc_output(b, lc_out(b, n, 0));
        lc_output(b, lc_out(b, n, 1));
    }
}

static void test_split(void **state)
{
    (void)state;
    lc_fill(xa, 40, 5, 2.0f);
    check_all(split_model, "sizes", 1, TOSA_OP_SLICE, 2);
    check_all(split_model, NULL, 1, TOSA_OP_SLICE, 2);
}

typedef struct slice_case {
    int64_t starts[2], ends[2], axes[2], steps[2];
} slice_case;

static void slice_model(lc_b *b, const void *arg)
{
    const slice_case *sc = arg;
    int ins[5] = {lc_input(b, "x", 3, s245, xa), lc_ints(b, "starts", 2, sc->starts),
                  lc_ints(b, "ends", 2, sc->ends), lc_ints(b, "axes", 2, sc->axes),
                  lc_ints(b, "steps", 2, sc->steps)};
    lc_output(b, lc_out(b, lc_node(b, "Slice", "slice", ins, 5, 1), 0));
}

static void test_slice(void **state)
{
    (void)state;
    lc_fill(xa, 40, 6, 2.0f);
    /* x[:, 1:3, -4:100] */
    slice_case fwd = {{1, -4}, {3, 100}, {1, 2}, {1, 1}};
    check_all(slice_model, &fwd, 1, TOSA_OP_SLICE, 1);
    /* x[:, 2:0:-1, -2::-1] (negative axis) */
    slice_case rev = {{2, -2}, {0, -100}, {1, -1}, {-1, -1}};
    check_all(slice_model, &rev, 1, TOSA_OP_REVERSE, 2);
    /* step 2: not lowered, the reason names it */
    slice_case two = {{0, 0}, {4, 5}, {1, 2}, {2, 1}};
    lc_result r;
    lc_check(slice_model, &two, LC_FLOAT, FP, 0, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Slice: steps other than 1 and -1"));
}

/* A runtime shape operand is refused (it would be a delegate input nothing reads); shape
 * inference folds shapes to constants, so this is checked on a hand-made graph. */
static void test_runtime_shape(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t two = 2, ys[2] = {5, 8};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 3, s245, &err);
    int s = ir_graph_add_input(g, "s", TOSAC_DT_I64, 1, &two, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, ys, &err);
    int ins[2] = {x, s};
    assert_true(ir_graph_add_node(g, "Reshape", NULL, "r", ins, 2, &y, 1, &err) >= 0);
    ir_graph_mark_output(g, y, &err);
    tosa_spec fp = bt_spec(FP);
    char why[256];
    assert_false(lower_trial_node(&fp, g, 0, why, sizeof why));
    assert_string_equal(why, "Reshape: a shape or axes operand is computed at run time");
    ir_graph_free(g);
}

/* int64 data (values beyond int32): Concat then Transpose then Slice. Under
 * TOSA-1.1+INT+int64 the i64 tensors stay i64 in the delegate and the result is exact; under
 * TOSA-1.0+INT (no int64) no delegate holds i64 values, and the result is still exact. */
static ir_model *int64_model(void)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    const int64_t s23[2] = {2, 3}, s43[2] = {4, 3}, s34[2] = {3, 4}, s24[2] = {2, 4};
    const int64_t st[1] = {1}, en[1] = {3}, ax[1] = {0};
    int a = ir_graph_add_input(g, "a", TOSAC_DT_I64, 2, s23, &err);
    int b = ir_graph_add_input(g, "b", TOSAC_DT_I64, 2, s23, &err);
    int c = ir_graph_add_tensor(g, "c", TOSAC_DT_I64, 2, s43, &err);
    int t = ir_graph_add_tensor(g, "t", TOSAC_DT_I64, 2, s34, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_I64, 2, s24, &err);
    int k0 = ir_graph_add_const(g, "st", TOSAC_DT_I64, 1, (const int64_t[]){1}, st, 8, &err);
    int k1 = ir_graph_add_const(g, "en", TOSAC_DT_I64, 1, (const int64_t[]){1}, en, 8, &err);
    int k2 = ir_graph_add_const(g, "ax", TOSAC_DT_I64, 1, (const int64_t[]){1}, ax, 8, &err);
    int ins[2] = {a, b}, sl[4] = {t, k0, k1, k2};
    int n0 = ir_graph_add_node(g, "Concat", NULL, "concat", ins, 2, &c, 1, &err);
    ir_node_set_int(g, n0, "axis", 0, &err);
    ir_graph_add_node(g, "Transpose", NULL, "transpose", &c, 1, &t, 1, &err);
    assert_true(ir_graph_add_node(g, "Slice", NULL, "slice", sl, 4, &y, 1, &err) >= 0);
    ir_graph_mark_output(g, y, &err);
    return m;
}

static void test_int64(void **state)
{
    (void)state;
    const int64_t big = INT64_C(1) << 40;
    int64_t av[6], bv[6];
    for (int i = 0; i < 6; i++) {
        av[i] = (i % 2 ? -big : big) + i;
        bv[i] = big * (i + 2) - 7;
    }
    tosac_tensor ins[2];
    memset(ins, 0, sizeof ins);
    for (int i = 0; i < 2; i++) {
        ins[i].dtype = TOSAC_DT_I64;
        ins[i].rank = 2;
        ins[i].shape[0] = 2;
        ins[i].shape[1] = 3;
        ins[i].data = i ? bv : av;
        ins[i].nbytes = sizeof av;
    }
    /* c = [a; b] (4x3), t = c^T (3x4), y = t[1:3] (2x4): y[r][k] = c[k][r + 1] */
    int64_t want[8];
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 4; k++)
            want[r * 4 + k] = k < 2 ? av[k * 3 + r + 1] : bv[(k - 2) * 3 + r + 1];
    const char *specs[2] = {"TOSA-1.1+INT+int64", "TOSA-1.0+INT"};
    for (int sp = 0; sp < 2; sp++) {
        tosac_compile_options o;
        memset(&o, 0, sizeof o);
        o.spec = specs[sp];
        tosac_program *p = NULL;
        char *report = NULL;
        tosac_error err;
        tosac_error_clear(&err);
        assert_int_equal(tosac_compile_model(int64_model(), &o, &p, &report, &err), TOSAC_OK);
        int delegated = 0;
        for (const char *q = report; (q = strstr(q, "\"placement\": \"delegate\"")); q++)
            delegated++;
        free(report);
        if (sp == 0) {
            assert_int_equal(delegated, 3);
            const tosa_block *blk = tosa_graph_main_block(tosac_program_delegate(p, 0));
            for (int i = 0; i < blk->n_ops; i++)
                if (blk->ops[i].op == TOSA_OP_CONCAT || blk->ops[i].op == TOSA_OP_SLICE)
                    assert_int_equal(blk->tensors[blk->ops[i].outputs[0]].dtype, TOSAC_DT_I64);
        } else { /* i64 is not TOSA 1.0 INT data: whatever is delegated holds none */
            for (int k = 0; k < tosac_program_n_delegates(p); k++) {
                const tosa_block *blk = tosa_graph_main_block(tosac_program_delegate(p, k));
                for (int i = 0; i < blk->n_tensors; i++)
                    assert_int_not_equal(blk->tensors[i].dtype, TOSAC_DT_I64);
            }
        }
        tosac_tensor out;
        lc_run_program_checked(p, ins, 2, &out, 1, NULL);
        assert_int_equal(out.dtype, TOSAC_DT_I64);
        assert_memory_equal(out.data, want, sizeof want);
        tosac_tensor_free(&out);
        tosac_program_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reshapes),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_runtime_shape),
        cmocka_unit_test(test_int64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
