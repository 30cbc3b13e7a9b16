/* CPU executor on hostile runtime values (reproducers from the fuzzers): huge Slice steps,
 * Tile repeats and Reshape shapes that used to overflow int64 arithmetic. A huge step takes
 * one element; the others are clean errors naming the node. */
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/ir.h"

static ir_model *model_with(const char *op, int n_extra_inputs, const int64_t *const *consts,
                            const int *const_len, int rank, const int64_t *xs, int out_rank)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int ins[5];
    ins[0] = ir_graph_add_input(g, "x", TOSAC_DT_F32, rank, xs, &err);
    for (int i = 0; i < n_extra_inputs; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        int64_t len = const_len[i];
        if (consts[i])
            ins[i + 1] = ir_graph_add_const(g, name, TOSAC_DT_I64, 1, &len, consts[i],
                                            (size_t)len * 8, &err);
        else
            ins[i + 1] = ir_graph_add_input(g, name, TOSAC_DT_I64, 1, &len, &err);
        assert_true(ins[i + 1] >= 0);
    }
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, out_rank, NULL, &err);
    assert_true(y >= 0);
    assert_true(ir_graph_add_node(g, op, NULL, op, ins, 1 + n_extra_inputs, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    return m;
}

static void test_slice_huge_steps(void **state)
{
    (void)state;
    const int64_t xs[2] = {3, 50};
    float xv[150];
    for (int i = 0; i < 150; i++)
        xv[i] = (float)i;
    /* step 216173890215346691 on axis 0 (stride 50): one row, row 0; and INT64_MIN from row 2 */
    const int64_t steps_list[2] = {216173890215346691LL, INT64_MIN};
    const int64_t starts_list[2] = {0, 2}, ends_list[2] = {3, -4};
    for (int k = 0; k < 2; k++) {
        const int64_t zero = 0;
        const int64_t *cs[4] = {&starts_list[k], &ends_list[k], &zero, &steps_list[k]};
        const int cl[4] = {1, 1, 1, 1};
        ir_model *m = model_with("Slice", 4, cs, cl, 2, xs, -1);
        tosac_tensor in;
        memset(&in, 0, sizeof in);
        in.dtype = TOSAC_DT_F32;
        in.rank = 2;
        in.shape[0] = 3;
        in.shape[1] = 50;
        in.data = xv;
        in.nbytes = sizeof xv;
        tosac_tensor out;
        tosac_error err;
        tosac_error_clear(&err);
        tosac_code rc = cpu_run_model(m, &in, 1, &out, 1, &err);
        if (rc)
            fail_msg("slice %d: %s", k, err.msg);
        assert_int_equal(out.shape[0], 1);
        assert_int_equal(out.shape[1], 50);
        assert_true(((float *)out.data)[0] == (k == 0 ? 0.0f : 100.0f));
        assert_true(((float *)out.data)[49] == (k == 0 ? 49.0f : 149.0f));
        tosac_tensor_free(&out);
        ir_model_free(m);
    }
}

static tosac_code run_with_runtime_ints(const char *op, const int64_t *vals, int n, int64_t xlen,
                                        tosac_error *err)
{
    const int64_t *cs[1] = {NULL};
    const int cl[1] = {n};
    ir_model *m = model_with(op, 1, cs, cl, 1, &xlen, -1);
    float xv[4] = {1, 2, 3, 4};
    tosac_tensor in[2];
    memset(in, 0, sizeof in);
    in[0].dtype = TOSAC_DT_F32;
    in[0].rank = 1;
    in[0].shape[0] = xlen;
    in[0].data = xv;
    in[0].nbytes = (size_t)xlen * 4;
    in[1].dtype = TOSAC_DT_I64;
    in[1].rank = 1;
    in[1].shape[0] = n;
    in[1].data = (void *)vals;
    in[1].nbytes = (size_t)n * 8;
    tosac_tensor out;
    tosac_code rc = cpu_run_model(m, in, 2, &out, 1, err);
    if (!rc)
        tosac_tensor_free(&out);
    ir_model_free(m);
    return rc;
}

static void test_tile_and_reshape_overflow(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    const int64_t reps[1] = {INT64_MAX / 2 + 1};
    assert_int_equal(run_with_runtime_ints("Tile", reps, 1, 4, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "too large"));
    tosac_error_clear(&err);
    const int64_t shape[2] = {72905326093008897LL, 72903127120085763LL};
    assert_int_equal(run_with_runtime_ints("Reshape", shape, 2, 4, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "64 bits"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice_huge_steps),
        cmocka_unit_test(test_tile_and_reshape_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
