/* Shape inference with dims and values at the edge of int64: strides, dilations, kernels,
 * pads, element counts, repeats, ranges, slice steps, scales and axes that would overflow
 * (or be truncated into range) are refused with a message naming the node (the UBSan build
 * would flag the overflow itself); large but representable values still compute. */
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
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
                   "node 'pool' (MaxPool): invalid stride, dilation or kernel");
    expect_refused(pool(8, big, NULL, NULL, NULL, &h, &err), &err,
                   "node 'pool' (MaxPool): invalid stride, dilation or kernel");
    expect_refused(pool(8, k1, NULL, big, NULL, &h, &err), &err,
                   "node 'pool' (MaxPool): invalid stride, dilation or kernel");
    const int64_t huge_pads[4] = {INT64_MAX, 0, INT64_MAX, 0};
    expect_refused(pool(8, k1, NULL, NULL, huge_pads, &h, &err), &err, "node 'pool' (MaxPool): pads out of range");
    /* (2^20 + 1 - 1) * 2^21 = 2^41: each value fine, the dilated kernel is not */
    const int64_t k20[2] = {((int64_t)1 << 20) + 1, 1}, d21[2] = {(int64_t)1 << 21, 1};
    expect_refused(pool(8, k20, NULL, d21, NULL, &h, &err), &err, "node 'pool' (MaxPool): dilated kernel too large");
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

/* One node `op` over x (f32, given shape) and int64 constant operands c0, c1, ... (each 1-D,
 * NULL-terminated list of value arrays with their lengths); returns the inference result and
 * the output shape in out (rank in *rank). */
typedef struct konst {
    const int64_t *v;
    int n;
} konst;

static tosac_code one_node(const char *op, int xrank, const int64_t *xshape, const konst *ks,
                           int nk, const char *attr, int64_t attr_v, int *rank, int64_t *out,
                           tosac_error *err)
{
    tosac_error_clear(err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int ins[6];
    ins[0] = ir_graph_add_input(g, "x", TOSAC_DT_F32, xrank, xshape, err);
    for (int k = 0; k < nk; k++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        int64_t len = ks[k].n;
        ins[k + 1] = ir_graph_add_const(g, name, TOSAC_DT_I64, 1, &len, ks[k].v,
                                        sizeof(int64_t) * (size_t)ks[k].n, err);
    }
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, err);
    int n = ir_graph_add_node(g, op, NULL, "n", ins, nk + 1, &y, 1, err);
    if (attr)
        ir_node_set_int(g, n, attr, attr_v, err);
    ir_graph_mark_output(g, y, err);
    assert_int_equal(err->code, TOSAC_OK);
    tosac_code rc = ir_model_infer_shapes(m, err);
    *rank = g->tensors[y].rank;
    for (int d = 0; d < *rank && d < TOSAC_MAX_RANK; d++)
        out[d] = g->tensors[y].shape[d];
    ir_model_free(m);
    return rc;
}

static void test_element_counts_and_values(void **state)
{
    (void)state;
    tosac_error err;
    int rank;
    int64_t out[TOSAC_MAX_RANK];
    const int64_t L = (int64_t)1 << 40;
    const int64_t big4[4] = {L, L, L, 1};
    /* 2^120 elements: Flatten (axis 1: [2^40, 2^80]) and Reshape cannot count them */
    expect_refused(one_node("Flatten", 4, big4, NULL, 0, NULL, 0, &rank, out, &err), &err,
                   "(Flatten 'n'): the element count overflows int64");
    const int64_t shp[2] = {-1, 2};
    expect_refused(one_node("Reshape", 4, big4, (konst[]){{shp, 2}}, 1, NULL, 0, &rank, out, &err),
                   &err, "the element count overflows int64");
    const int64_t x6[1] = {6}, huge[3] = {INT64_MAX, INT64_MAX, -1};
    expect_refused(one_node("Reshape", 1, x6, (konst[]){{huge, 3}}, 1, NULL, 0, &rank, out, &err),
                   &err, "the target shape's element count overflows int64");
    /* Tile: 2^40 rows repeated 2^40 times */
    const int64_t rep[4] = {L, 1, 1, 1};
    expect_refused(one_node("Tile", 4, big4, (konst[]){{rep, 4}}, 1, NULL, 0, &rank, out, &err),
                   &err, "the tiled dimension overflows int64");
    /* Pad: INT64_MAX on both sides */
    const int64_t pads[2] = {INT64_MAX, INT64_MAX};
    expect_refused(one_node("Pad", 1, x6, (konst[]){{pads, 2}}, 1, NULL, 0, &rank, out, &err), &err,
                   "the padded dimension overflows int64");
}

static void test_range_and_slice_extremes(void **state)
{
    (void)state;
    tosac_error err;
    int rank;
    int64_t out[TOSAC_MAX_RANK];
    const int64_t x6[1] = {6};
    /* Range(start, limit, delta) over x's type is int64: use the constants as its inputs */
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    const int64_t lo = INT64_MIN, hi = INT64_MAX, one = 1, minus3 = -3;
    int a = ir_graph_add_const(g, "a", TOSAC_DT_I64, 0, NULL, &lo, 8, &err);
    int b = ir_graph_add_const(g, "b", TOSAC_DT_I64, 0, NULL, &hi, 8, &err);
    int d = ir_graph_add_const(g, "d", TOSAC_DT_I64, 0, NULL, &one, 8, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    ir_graph_add_node(g, "Range", NULL, "r", (int[]){a, b, d}, 3, &y, 1, &err);
    ir_graph_mark_output(g, y, &err);
    expect_refused(ir_model_infer_shapes(m, &err), &err, "(Range 'r'): the range length overflows int64");
    ir_model_free(m);
    /* Range(9, 0, -3) = 9, 6, 3: length 3 (hand-computed) */
    tosac_error_clear(&err);
    m = ir_model_new();
    g = m->graph;
    const int64_t nine = 9, zero = 0;
    a = ir_graph_add_const(g, "a", TOSAC_DT_I64, 0, NULL, &nine, 8, &err);
    b = ir_graph_add_const(g, "b", TOSAC_DT_I64, 0, NULL, &zero, 8, &err);
    d = ir_graph_add_const(g, "d", TOSAC_DT_I64, 0, NULL, &minus3, 8, &err);
    y = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    ir_graph_add_node(g, "Range", NULL, "r", (int[]){a, b, d}, 3, &y, 1, &err);
    ir_graph_mark_output(g, y, &err);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_OK);
    assert_int_equal(g->tensors[y].shape[0], 3);
    ir_model_free(m);
    /* Slice x[5::INT64_MIN] takes element 5 only; x[0::INT64_MAX] element 0 only */
    const int64_t st5[1] = {5}, en_lo[1] = {INT64_MIN}, ax0[1] = {0}, step_lo[1] = {INT64_MIN};
    assert_int_equal(one_node("Slice", 1, x6, (konst[]){{st5, 1}, {en_lo, 1}, {ax0, 1}, {step_lo, 1}}, 4,
                              NULL, 0, &rank, out, &err), TOSAC_OK);
    assert_int_equal(out[0], 1);
    const int64_t st0[1] = {0}, en_hi[1] = {INT64_MAX}, step_hi[1] = {INT64_MAX};
    assert_int_equal(one_node("Slice", 1, x6, (konst[]){{st0, 1}, {en_hi, 1}, {ax0, 1}, {step_hi, 1}}, 4,
                              NULL, 0, &rank, out, &err), TOSAC_OK);
    assert_int_equal(out[0], 1);
    /* an axis of 2^32 + 1 is not axis 1 */
    const int64_t far[1] = {((int64_t)1 << 32) + 1};
    const int64_t x23[2] = {2, 3};
    assert_int_equal(one_node("Slice", 2, x23, (konst[]){{st0, 1}, {en_hi, 1}, {far, 1}}, 3, NULL, 0,
                              &rank, out, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "invalid axis or step"));
    assert_int_equal(one_node("Flatten", 2, x23, NULL, 0, "axis", ((int64_t)1 << 32) + 1, &rank, out,
                              &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "axis out of range"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflowing_attributes_refused),
        cmocka_unit_test(test_large_representable_values),
        cmocka_unit_test(test_element_counts_and_values),
        cmocka_unit_test(test_range_and_slice_extremes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
