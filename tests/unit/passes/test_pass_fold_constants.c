/* pass_fold_constants on small IR graphs. */
#include "passes_testutil.h"

static const int64_t s4[4] = {1, 2, 3, 3};
static const int64_t one[1] = {1};

/* torch's bias zero point: Constant([1]) -> ConstantOfShape(i32 0) -> Cast(INT32) -> DQ */
static void test_bias_zero_point_folds_and_is_recorded(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int32_t bias[2] = {7, -9};
    int64_t two = 2;
    int b = pt_const(g, "bias", TOSAC_DT_I32, 1, &two, bias);
    float sc = 0.125f;
    int scale = pt_const(g, "scale", TOSAC_DT_F32, 1, one, &sc);
    int shp = pt_tensor(g, "shp", TOSAC_DT_I64, 1, one);
    int k = pt_node(g, "Constant", NULL, 0, &shp, 1);
    int64_t shp_val = 1;
    tosac_tensor v = pt_host(TOSAC_DT_I64, 1, one, &shp_val);
    assert_int_equal(ir_node_set_tensor(g, k, "value", &v, &err), TOSAC_OK);
    int zs = pt_tensor(g, "zs", TOSAC_DT_I32, 1, one);
    k = pt_node(g, "ConstantOfShape", &shp, 1, &zs, 1);
    int32_t zero = 0;
    v = pt_host(TOSAC_DT_I32, 1, one, &zero);
    assert_int_equal(ir_node_set_tensor(g, k, "value", &v, &err), TOSAC_OK);
    int zc = pt_tensor(g, "zc", TOSAC_DT_I32, 1, one);
    k = pt_node(g, "Cast", &zs, 1, &zc, 1);
    assert_int_equal(ir_node_set_int(g, k, "to", 6, &err), TOSAC_OK);
    int bf = pt_tensor(g, "bf", TOSAC_DT_F32, 1, &two);
    int dq_in[3] = {b, scale, zc};
    pt_node(g, "DequantizeLinear", dq_in, 3, &bf, 1);
    pt_output(g, bf);
    assert_null(g->tensors[b].quant); /* the importer could not record it */

    pt_run(g, pass_fold_constants, "TOSA-1.0+INT");
    assert_int_equal(g->n_nodes, 1);
    assert_true(ir_node_is(&g->nodes[0], "DequantizeLinear"));
    int z = g->nodes[0].inputs[2];
    assert_non_null(g->tensors[z].data);
    assert_int_equal(g->tensors[z].dtype, TOSAC_DT_I32);
    assert_int_equal(((int32_t *)g->tensors[z].data)[0], 0);
    assert_non_null(g->tensors[b].quant);
    assert_float_equal(g->tensors[b].quant->scale[0], 0.125f, 0);
    assert_int_equal(g->tensors[b].quant->zero_point[0], 0);
    ir_graph_free(g);
}

/* Q -> Cast(UINT8 -> UINT8) -> DQ: the Cast goes, DQ reads the Q output */
static void test_identity_cast_dropped(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 4, s4);
    float sc = 0.5f;
    uint8_t zp = 3;
    int s = pt_const(g, "s", TOSAC_DT_F32, 0, NULL, &sc);
    int z = pt_const(g, "z", TOSAC_DT_U8, 0, NULL, &zp);
    int q = pt_tensor(g, "q", TOSAC_DT_U8, 4, s4), c = pt_tensor(g, "c", TOSAC_DT_U8, 4, s4);
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 4, s4);
    pt_quant(g, q, 0.5f, 3, TOSAC_DT_U8);
    int qin[3] = {x, s, z}, dqin[3] = {c, s, z};
    pt_node(g, "QuantizeLinear", qin, 3, &q, 1);
    int k = pt_node(g, "Cast", &q, 1, &c, 1);
    assert_int_equal(ir_node_set_int(g, k, "to", 2, &err), TOSAC_OK);
    int dq = pt_node(g, "DequantizeLinear", dqin, 3, &y, 1);
    pt_output(g, y);

    pt_run(g, pass_fold_constants, "TOSA-1.0+INT");
    assert_int_equal(pt_count(g, "Cast"), 0);
    dq = pt_find(g, "DequantizeLinear");
    assert_int_equal(g->nodes[dq].inputs[0], q);
    ir_graph_free(g);
}

/* Shape and Size of a static tensor; Add of two constants; nothing that writes a graph
 * output and no big ConstantOfShape */
static void test_shape_size_and_arithmetic(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 4, s4);
    int64_t four = 4;
    int sh = pt_tensor(g, "sh", TOSAC_DT_I64, 1, &four);
    int sz = pt_tensor(g, "sz", TOSAC_DT_I64, 0, NULL);
    pt_node(g, "Shape", &x, 1, &sh, 1);
    pt_node(g, "Size", &x, 1, &sz, 1);
    /* sum = sh + sz = [19, 20, 21, 21], read by a Reshape-free Mul with x's shape tensor */
    int sum = pt_tensor(g, "sum", TOSAC_DT_I64, 1, &four);
    int add_in[2] = {sh, sz};
    pt_node(g, "Add", add_in, 2, &sum, 1);
    int out = pt_tensor(g, "out", TOSAC_DT_I64, 1, &four);
    int mul_in[2] = {sum, sh};
    pt_node(g, "Mul", mul_in, 2, &out, 1); /* writes a graph output: stays */
    pt_output(g, out);
    int64_t big[2] = {1024, 1024};
    int bs = pt_const(g, "bs", TOSAC_DT_I64, 1, (int64_t[]){2}, big);
    int bz = pt_tensor(g, "bz", TOSAC_DT_F32, 2, big);
    pt_node(g, "ConstantOfShape", &bs, 1, &bz, 1);
    int bo = pt_tensor(g, "bo", TOSAC_DT_F32, 2, big);
    int relu_in = bz;
    pt_node(g, "Relu", &relu_in, 1, &bo, 1);
    pt_output(g, bo);

    pt_run(g, pass_fold_constants, "TOSA-1.0+INT");
    assert_int_equal(pt_count(g, "Shape"), 0);
    assert_int_equal(pt_count(g, "Size"), 0);
    assert_int_equal(pt_count(g, "Add"), 0);
    assert_int_equal(pt_count(g, "Mul"), 1);
    assert_int_equal(pt_count(g, "ConstantOfShape"), 1); /* 4 MB from 16 bytes: kept */
    const int64_t *sv = g->tensors[sh].data, *sumv = g->tensors[sum].data;
    assert_non_null(sv);
    assert_non_null(sumv);
    assert_int_equal(sv[0], 1);
    assert_int_equal(sv[3], 3);
    assert_int_equal(*(int64_t *)g->tensors[sz].data, 18);
    assert_int_equal(sumv[0], 19); /* 1 + 18 */
    assert_int_equal(sumv[1], 20);
    assert_int_equal(sumv[3], 21);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bias_zero_point_folds_and_is_recorded),
        cmocka_unit_test(test_identity_cast_dropped),
        cmocka_unit_test(test_shape_size_and_arithmetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
