/* The in-memory graph builder: adding, finding, copying, releasing, equality. */
#include "testutil.h"

#include <string.h>

#include "tosac/tosa.h"

static void test_build_and_find(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    assert_int_equal(g->ver_major, 1);
    assert_int_equal(g->ver_minor, 0);
    assert_int_equal(g->ver_patch, 0);
    assert_false(g->ver_draft);
    tosa_region *r = tosa_graph_add_region(g, "main");
    tosa_block *b = tosa_region_add_block(r, "main");
    const int64_t shp[2] = {1, 4};
    const int8_t w[4] = {1, -2, 3, -4};
    assert_int_equal(tosa_block_add_tensor(b, "x", TOSAC_DT_I8, 2, shp, NULL, 0, &err), 0);
    assert_int_equal(tosa_block_add_tensor(b, "w", TOSAC_DT_I8, 2, shp, w, 4, &err), 1);
    assert_int_equal(tosa_block_add_tensor(b, "y", TOSAC_DT_I8, 2, shp, NULL, 0, &err), 2);
    assert_int_equal(err.code, TOSAC_OK);
    /* duplicate name */
    assert_int_equal(tosa_block_add_tensor(b, "w", TOSAC_DT_I8, 2, shp, NULL, 0, &err), -1);
    assert_int_equal(err.code, TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "duplicate tensor name 'w'"));
    tosac_error_clear(&err);
    /* rank over the limit */
    int64_t big[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(tosa_block_add_tensor(b, "z", TOSAC_DT_I8, 9, big, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "rank 9"));
    tosac_error_clear(&err);

    assert_int_equal(tosa_block_find_tensor(b, "w"), 1);
    assert_int_equal(tosa_block_find_tensor(b, "nope"), -1);
    assert_memory_equal(b->tensors[1].data, w, 4);
    assert_int_equal(b->tensors[1].data_size, 4);

    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.then_graph = (char *)"then";
    int in[2] = {0, 1}, out[1] = {2};
    assert_int_equal(tosa_block_add_op(b, TOSA_OP_ADD, &a, in, 2, out, 1, &err), 0);
    assert_ptr_not_equal(b->ops[0].attr.then_graph, a.then_graph); /* deep copy */
    assert_string_equal(b->ops[0].attr.then_graph, "then");
    int bad_in[1] = {7};
    assert_int_equal(tosa_block_add_op(b, TOSA_OP_ADD, NULL, bad_in, 1, out, 1, &err), -1);
    assert_int_equal(err.code, TOSAC_ERR_INTERNAL);
    tosac_error_clear(&err);
    int gin[1] = {0}, gout[1] = {2};
    assert_int_equal(tosa_block_set_io(b, gin, 1, gout, 1, &err), TOSAC_OK);
    assert_int_equal(b->n_inputs, 1);
    assert_int_equal(b->outputs[0], 2);

    assert_ptr_equal(tosa_graph_main_block(g), b);
    tosa_region *r2 = tosa_graph_add_region(g, "sub");
    tosa_block *sb = tosa_region_add_block(r2, "body");
    b = &g->regions[0].blocks[0];
    assert_ptr_equal(tosa_graph_find_block(g, "sub"), sb);  /* region name first */
    assert_ptr_equal(tosa_graph_find_block(g, "body"), sb);
    assert_ptr_equal(tosa_graph_find_block(g, "main"), b);
    assert_null(tosa_graph_find_block(g, "other"));
    tosa_graph_free(g);
}

static tosa_graph *small_graph(int32_t axis, int8_t wv)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t shp[1] = {2};
    const int8_t w[2] = {wv, 5};
    tosa_block_add_tensor(b, "x", TOSAC_DT_I8, 1, shp, NULL, 0, &err);
    tosa_block_add_tensor(b, "w", TOSAC_DT_I8, 1, shp, w, 2, &err);
    tosa_block_add_tensor(b, "y", TOSAC_DT_I8, 1, shp, NULL, 0, &err);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.axis = axis;
    int in[2] = {0, 1}, out[1] = {2};
    tosa_block_add_op(b, TOSA_OP_CONCAT, &a, in, 2, out, 1, &err);
    assert_int_equal(err.code, TOSAC_OK);
    return g;
}

static void test_equal(void **state)
{
    (void)state;
    tosa_graph *a = small_graph(0, 1), *b = small_graph(0, 1);
    tosa_graph *c = small_graph(1, 1), *d = small_graph(0, 2);
    assert_true(tosa_graph_equal(a, b));
    assert_false(tosa_graph_equal(a, c)); /* attribute differs */
    assert_false(tosa_graph_equal(a, d)); /* data differs */
    /* a field CONCAT's table does not have is ignored */
    b->regions[0].blocks[0].ops[0].attr.nan_mode = 2;
    assert_true(tosa_graph_equal(a, b));
    b->regions[0].blocks[0].tensors[0].shape[0] = 3;
    assert_false(tosa_graph_equal(a, b));
    tosa_graph_free(a);
    tosa_graph_free(b);
    tosa_graph_free(c);
    tosa_graph_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_find),
        cmocka_unit_test(test_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
