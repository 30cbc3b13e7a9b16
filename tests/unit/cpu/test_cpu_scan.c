/* Scan on the CPU executor: Scan-9+ with a reversed scan input along axis 1 and a scan
 * output stacked along axis 1, and Scan-8 (batch axis, directions, sequence_lens). The body
 * adds each slice to a running sum and emits the sum; the sums are worked out by hand. */
#include "testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"

/* body(s [n], x [n]) -> (s + x, s + x) */
static ir_graph *sum_body(ir_graph *parent, int64_t n)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *b = ir_graph_new("body", parent);
    int s = ir_graph_add_input(b, "s", TOSAC_DT_F32, 1, &n, &err);
    int x = ir_graph_add_input(b, "x", TOSAC_DT_F32, 1, &n, &err);
    int so = ir_graph_add_tensor(b, "s_out", TOSAC_DT_F32, 1, &n, &err);
    int yo = ir_graph_add_tensor(b, "y_out", TOSAC_DT_F32, 1, &n, &err);
    int in[2] = {s, x};
    assert_true(ir_graph_add_node(b, "Add", NULL, "add", in, 2, &so, 1, &err) >= 0);
    assert_true(ir_graph_add_node(b, "Identity", NULL, "id", &so, 1, &yo, 1, &err) >= 0);
    ir_graph_mark_output(b, so, &err);
    ir_graph_mark_output(b, yo, &err);
    return b;
}

static tosac_tensor f32(int rank, const int64_t *shape, const float *v)
{
    tosac_tensor t;
    tosac_error err;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, rank, shape, &err), TOSAC_OK);
    memcpy(t.data, v, t.nbytes);
    return t;
}

static void expect_f32(const tosac_tensor *t, int n, const float *want)
{
    assert_int_equal(tosac_tensor_numel(t), n);
    for (int i = 0; i < n; i++)
        if (((const float *)t->data)[i] != want[i])
            fail_msg("element %d is %g, expected %g", i, ((const float *)t->data)[i], want[i]);
}

static void test_scan9_axes_and_directions(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s2[1] = {2}, s23[2] = {2, 3};
    int init = ir_graph_add_input(g, "init", TOSAC_DT_F32, 1, s2, &err);
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, s23, &err);
    int fin = ir_graph_add_tensor(g, "final", TOSAC_DT_F32, 1, s2, &err);
    int ys = ir_graph_add_tensor(g, "ys", TOSAC_DT_F32, 2, s23, &err);
    int in[2] = {init, x}, out[2] = {fin, ys};
    int k = ir_graph_add_node(g, "Scan", NULL, "scan", in, 2, out, 2, &err);
    ir_node_set_int(g, k, "num_scan_inputs", 1, &err);
    int64_t one = 1;
    ir_node_set_ints(g, k, "scan_input_axes", &one, 1, &err);
    ir_node_set_ints(g, k, "scan_input_directions", &one, 1, &err);
    ir_node_set_ints(g, k, "scan_output_axes", &one, 1, &err);
    assert_int_equal(ir_node_set_graph(g, k, "body", sum_body(g, 2), &err), TOSAC_OK);
    ir_graph_mark_output(g, fin, &err);
    ir_graph_mark_output(g, ys, &err);
    /* columns of [[1,2,3],[4,5,6]] last to first: [3,6], [2,5], [1,4]; running sums
     * [3,6], [5,11], [6,15], stacked as columns */
    tosac_tensor ins[2] = {f32(1, s2, (float[]){0, 0}), f32(2, s23, (float[]){1, 2, 3, 4, 5, 6})};
    tosac_tensor res[2];
    assert_int_equal(cpu_run_model(m, ins, 2, res, 2, &err), TOSAC_OK);
    expect_f32(&res[0], 2, (float[]){6, 15});
    assert_int_equal(res[1].rank, 2);
    assert_true(res[1].shape[0] == 2 && res[1].shape[1] == 3);
    expect_f32(&res[1], 6, (float[]){3, 5, 6, 6, 11, 15});
    for (int i = 0; i < 2; i++) {
        tosac_tensor_free(&res[i]);
        tosac_tensor_free(&ins[i]);
    }
    ir_model_free(m);
}

static void test_scan8_batches(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model_set_opset(m, "", 8, &err);
    int64_t s21[2] = {2, 1}, s221[3] = {2, 2, 1}, s2[1] = {2};
    int lens = ir_graph_add_input(g, "lens", TOSAC_DT_I32, 1, s2, &err);
    int init = ir_graph_add_input(g, "init", TOSAC_DT_F32, 2, s21, &err);
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 3, s221, &err);
    int fin = ir_graph_add_tensor(g, "final", TOSAC_DT_F32, 2, s21, &err);
    int ys = ir_graph_add_tensor(g, "ys", TOSAC_DT_F32, 3, s221, &err);
    int in[3] = {lens, init, x}, out[2] = {fin, ys};
    int k = ir_graph_add_node(g, "Scan", NULL, "scan", in, 3, out, 2, &err);
    ir_node_set_int(g, k, "num_scan_inputs", 1, &err);
    int64_t rev = 1;
    ir_node_set_ints(g, k, "directions", &rev, 1, &err);
    assert_int_equal(ir_node_set_graph(g, k, "body", sum_body(g, 1), &err), TOSAC_OK);
    ir_graph_mark_output(g, fin, &err);
    ir_graph_mark_output(g, ys, &err);
    /* batch 0 scans [1,2] reversed: sums 2, 3; batch 1 scans [10,20] reversed: 20, 30 */
    tosac_tensor ins[3];
    assert_int_equal(tosac_tensor_alloc(&ins[0], TOSAC_DT_I32, 1, s2, &err), TOSAC_OK);
    ((int32_t *)ins[0].data)[0] = ((int32_t *)ins[0].data)[1] = 2;
    ins[1] = f32(2, s21, (float[]){0, 0});
    ins[2] = f32(3, s221, (float[]){1, 2, 10, 20});
    tosac_tensor res[2];
    assert_int_equal(cpu_run_model(m, ins, 3, res, 2, &err), TOSAC_OK);
    expect_f32(&res[0], 2, (float[]){3, 30});
    assert_int_equal(res[1].rank, 3);
    expect_f32(&res[1], 4, (float[]){2, 3, 20, 30});
    tosac_tensor_free(&res[0]);
    tosac_tensor_free(&res[1]);
    /* a shorter sequence length is refused, not run with the full length */
    ((int32_t *)ins[0].data)[1] = 1;
    tosac_error_clear(&err);
    assert_int_equal(cpu_run_model(m, ins, 3, res, 2, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "sequence_lens shorter than the sequence (2)"));
    for (int i = 0; i < 3; i++)
        tosac_tensor_free(&ins[i]);
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan9_axes_and_directions),
        cmocka_unit_test(test_scan8_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
