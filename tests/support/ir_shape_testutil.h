/* Helpers shared by the shape inference tests (test_ir_shape*.c): a fresh model, a tensor of
 * unknown type and shape for a node to fill, and an exact dtype + dims check. */
#ifndef TOSAC_IR_SHAPE_TESTUTIL_H
#define TOSAC_IR_SHAPE_TESTUTIL_H

#include "testutil.h"

#include "tosac/ir.h"

static tosac_error err;

static ir_model *new_model(void)
{
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_non_null(m);
    return m;
}

static int t(ir_model *m, const char *name)
{
    int id = ir_graph_add_tensor(m->graph, name, TOSAC_DT_UNKNOWN, -1, NULL, &err);
    assert_true(id >= 0);
    return id;
}

static void expect_shape(ir_model *m, int id, tosac_dtype dt, int rank, const int64_t *shape)
{
    const ir_tensor *x = &m->graph->tensors[id];
    assert_int_equal(x->dtype, dt);
    assert_int_equal(x->rank, rank);
    for (int d = 0; d < rank; d++)
        assert_int_equal(x->shape[d], shape[d]);
}

#endif
