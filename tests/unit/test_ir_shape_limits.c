/* Shape inference with attribute values at the edge of int64: strides, dilations, kernels and
 * pads that would overflow the output-size arithmetic are refused with a message (the UBSan
 * build would flag the overflow itself); large but representable values still compute. */
#include "testutil.h"

#include <stdint.h>
#include <string.h>

#include "tosac/onnx.h"

/* MaxPool over x: f32[1,1,len,1] with the given attributes (n = 0 leaves one out); returns
 * the inference result, the output's H in *h. */
static tosac_code pool(int64_t len, const int64_t *kernel, const int64_t *strides,
                       const int64_t *dil, const int64_t *pads, int64_t *h, tosac_error *err)
{
    tosac_error_clear(err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 1, len, 1}, err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, err);
    int n = ir_graph_add_node(g, "MaxPool", NULL, "pool", &x, 1, &y, 1, err);
    ir_node_set_ints(g, n, "kernel_shape", kernel, 2, err);
    if (strides)
        ir_node_set_ints(g, n, "strides", strides, 2, err);
    if (dil)
        ir_node_set_ints(g, n, "dilations", dil, 2, err);
    if (pads)
        ir_node_set_ints(g, n, "pads", pads, 4, err);
    ir_graph_mark_output(g, y, err);
    assert_int_equal(err->code, TOSAC_OK);
    tosac_code rc = ir_model_infer_shapes(m, err);
    *h = g->tensors[y].rank == 4 ? g->tensors[y].shape[2] : -1;
    ir_model_free(m);
    return rc;
}

static void expect_refused(tosac_code rc, const tosac_error *err, const char *msg)
{
    assert_int_equal(rc, TOSAC_ERR_INPUT);
    if (!strstr(err->msg, msg))
        fail_msg("expected '%s' in '%s'", msg, err->msg);
}

static void test_overflowing_attributes_refused(void **state)
{
    (void)state;
    tosac_error err;
    int64_t h;
    const int64_t k1[2] = {1, 1}, big[2] = {INT64_MAX, 1};
    expect_refused(pool(8, k1, big, NULL, NULL, &h, &err), &err,
                   "node 'pool': invalid stride, dilation or kernel");
    expect_refused(pool(8, big, NULL, NULL, NULL, &h, &err), &err,
                   "node 'pool': invalid stride, dilation or kernel");
    expect_refused(pool(8, k1, NULL, big, NULL, &h, &err), &err,
                   "node 'pool': invalid stride, dilation or kernel");
    const int64_t huge_pads[4] = {INT64_MAX, 0, INT64_MAX, 0};
    expect_refused(pool(8, k1, NULL, NULL, huge_pads, &h, &err), &err, "node 'pool': pads out of range");
    /* (2^20 + 1 - 1) * 2^21 = 2^41: each value fine, the dilated kernel is not */
    const int64_t k20[2] = {((int64_t)1 << 20) + 1, 1}, d21[2] = {(int64_t)1 << 21, 1};
    expect_refused(pool(8, k20, NULL, d21, NULL, &h, &err), &err, "node 'pool': dilated kernel too large");
}

static void test_large_representable_values(void **state)
{
    (void)state;
    tosac_error err;
    int64_t h;
    const int64_t lim = (int64_t)1 << 40;
    /* kernel 1, stride 2^40 over 2^40 rows: (2^40 - 1) / 2^40 + 1 = 1 */
    const int64_t k1[2] = {1, 1}, s40[2] = {lim, 1};
    assert_int_equal(pool(lim, k1, s40, NULL, NULL, &h, &err), TOSAC_OK);
    assert_int_equal(h, 1);
    /* pads 2^40 on both sides of 8 rows, kernel 3, stride 2^40: (8 + 2^41 - 3) / 2^40 + 1 = 3 */
    const int64_t k3[2] = {3, 1}, pads[4] = {lim, 0, lim, 0};
    assert_int_equal(pool(8, k3, s40, NULL, pads, &h, &err), TOSAC_OK);
    assert_int_equal(h, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflowing_attributes_refused),
        cmocka_unit_test(test_large_representable_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
