/* The interpreter executor on graphs built with the builder: input binding and its errors,
 * operand-count checks, scheduling (out-of-order, never produced, cycles, double writers),
 * unsupported and CUSTOM operators, CONST/CONST_SHAPE/IDENTITY, COND_IF, WHILE_LOOP (with
 * EXT-VARIABLE state driving the loop), recursion and missing sub-graphs, outer references,
 * and prepare-once/execute-many reuse. Only operators this concern owns are used, so the
 * expected values are the inputs and constants themselves. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_state.h"
#include "tosac/interp.h"

static tosac_error err;

static int tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank, const int64_t *shape,
                  const void *data, size_t size)
{
    int t = tosa_block_add_tensor(b, name, dt, rank, shape, data, size, &err);
    assert_true(t >= 0);
    return t;
}

static void op(tosa_block *b, tosa_op o, const tosa_attr *a, int ni, const int *in, int no,
               const int *out)
{
    tosa_attr zero;
    memset(&zero, 0, sizeof zero);
    assert_true(tosa_block_add_op(b, o, a ? a : &zero, in, ni, out, no, &err) >= 0);
}

static void io(tosa_block *b, int ni, const int *in, int no, const int *out)
{
    assert_int_equal(tosa_block_set_io(b, in, ni, out, no, &err), TOSAC_OK);
}

/* A graph with one region "main" holding n blocks: "main", then names[1..]. */
static tosa_graph *graph(int n, const char *const *names)
{
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_region *r = tosa_graph_add_region(g, "main");
    for (int i = 0; i < n; i++)
        assert_non_null(tosa_region_add_block(r, i == 0 ? "main" : names[i]));
    return g;
}

static tosa_block *blk(tosa_graph *g, int i)
{
    return &g->regions[0].blocks[i]; /* fetched after all blocks exist (the array may move) */
}

static const int64_t S23[2] = {2, 3};

static void input_i8(tosac_tensor *t, const int8_t *v)
{
    assert_int_equal(tosac_tensor_alloc(t, TOSAC_DT_I8, 2, S23, &err), TOSAC_OK);
    memcpy(t->data, v, 6);
}

/* main: x -> IDENTITY -> y */
static tosa_graph *identity_graph(void)
{
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &x, 1, &y);
    io(m, 1, &x, 1, &y);
    return g;
}

static void test_identity_runs(void **state)
{
    (void)state;
    tosa_graph *g = identity_graph();
    const int8_t v[6] = {1, -2, 3, -4, 5, -128};
    tosac_tensor in, out;
    input_i8(&in, v);
    assert_int_equal(tosa_interp_run(g, &in, 1, &out, 1, &err), TOSAC_OK);
    assert_int_equal(out.dtype, TOSAC_DT_I8);
    assert_int_equal(out.rank, 2);
    assert_int_equal(out.shape[1], 3);
    assert_memory_equal(out.data, v, 6);
    tosac_tensor_free(&out);
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

static void test_input_errors(void **state)
{
    (void)state;
    tosa_graph *g = identity_graph();
    tosac_tensor in, out[2];
    const int64_t s32[2] = {3, 2};
    assert_int_equal(tosac_tensor_alloc(&in, TOSAC_DT_I8, 2, s32, &err), TOSAC_OK);
    assert_int_equal(tosa_interp_run(g, &in, 1, out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "input 'x': expected i8[2,3], got i8[3,2]");
    tosac_tensor_free(&in);
    assert_int_equal(tosac_tensor_alloc(&in, TOSAC_DT_I16, 2, S23, &err), TOSAC_OK);
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, &in, 1, out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "input 'x': expected i8[2,3], got i16[2,3]");
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, &in, 0, out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "block 'main' has 1 inputs, 0 given");
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, &in, 1, out, 2, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "the graph has 1 outputs, 2 expected");
    assert_null(out[0].data); /* nothing handed out on failure */
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

static void test_const_and_const_shape(void **state)
{
    (void)state;
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    const int32_t cv[3] = {7, -8, 2147483647};
    const int64_t sv[2] = {4, -1};
    const int64_t s3 = 3, s2 = 2;
    int c = tensor(m, "c", TOSAC_DT_I32, 1, &s3, cv, sizeof cv);
    int s = tensor(m, "s", TOSAC_DT_SHAPE, 1, &s2, sv, sizeof sv);
    int y = tensor(m, "y", TOSAC_DT_I32, 1, &s3, NULL, 0);
    op(m, TOSA_OP_CONST, NULL, 0, NULL, 1, &c);
    op(m, TOSA_OP_CONST_SHAPE, NULL, 0, NULL, 1, &s);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &c, 1, &y);
    int outs[2] = {y, s};
    io(m, 0, NULL, 2, outs);
    tosac_tensor out[2];
    assert_int_equal(tosa_interp_run(g, NULL, 0, out, 2, &err), TOSAC_OK);
    assert_memory_equal(out[0].data, cv, sizeof cv);
    assert_int_equal(out[1].dtype, TOSAC_DT_SHAPE);
    assert_memory_equal(out[1].data, sv, sizeof sv);
    tosac_tensor_free(&out[0]);
    tosac_tensor_free(&out[1]);
    tosa_graph_free(g);
}

static void test_identity_type_mismatch(void **state)
{
    (void)state;
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I16, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &x, 1, &y);
    io(m, 1, &x, 1, &y);
    tosac_tensor in, out;
    const int8_t v[6] = {0};
    input_i8(&in, v);
    assert_int_equal(tosa_interp_run(g, &in, 1, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "IDENTITY (output 'y'): ERROR_IF(input i8[2,3] differs from output i16[2,3])");
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

/* Runs g (no inputs, one output) expecting failure with exactly msg. */
static void expect_fail(tosa_graph *g, tosac_code code, const char *msg)
{
    tosac_tensor out;
    tosac_error_clear(&err);
    int n_out = tosa_graph_main_block(g)->n_outputs;
    assert_int_equal(tosa_interp_run(g, NULL, 0, &out, n_out, &err), code);
    assert_string_equal(err.msg, msg);
    tosa_graph_free(g);
}

static void test_operand_count_checked(void **state)
{
    (void)state;
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    int in[2] = {x, x};
    op(m, TOSA_OP_IDENTITY, NULL, 2, in, 1, &y);
    io(m, 1, &x, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT,
                "block 'main' operator 0 (IDENTITY, output 'y'): has 2 inputs and 1 outputs, the "
                "operator takes 1 inputs and 1 outputs");
}

static void test_custom_and_unimplemented(void **state)
{
    (void)state;
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.custom_operator_name = "my_op";
    a.custom_domain_name = "acme";
    op(m, TOSA_OP_CUSTOM, &a, 0, NULL, 1, &y);
    io(m, 0, NULL, 1, &y);
    expect_fail(g, TOSAC_ERR_UNSUPPORTED,
                "block 'main' operator 0 (CUSTOM, output 'y'): CUSTOM operator 'my_op' (domain "
                "'acme') cannot be interpreted");
    /* a TOSA 1.1 shape operator no interpreter group implements */
    g = graph(1, NULL);
    m = blk(g, 0);
    const int64_t one = 1;
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int d = tensor(m, "d", TOSAC_DT_SHAPE, 1, &one, NULL, 0);
    op(m, TOSA_OP_DIM, NULL, 1, &x, 1, &d);
    io(m, 1, &x, 1, &d);
    tosac_tensor in, out;
    const int8_t v[6] = {0};
    input_i8(&in, v);
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, &in, 1, &out, 1, &err), TOSAC_ERR_UNSUPPORTED);
    assert_string_equal(err.msg, "block 'main' operator 0 (DIM, output 'd'): the interpreter does not implement DIM");
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

static void test_schedule_out_of_order(void **state)
{
    (void)state;
    /* ops listed consumer first: t = IDENTITY(x) must run before y = IDENTITY(t) */
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int t = tensor(m, "t", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &t, 1, &y);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &x, 1, &t);
    io(m, 1, &x, 1, &y);
    interp_state *st;
    assert_int_equal(interp_prepare(g, &st, &err), TOSAC_OK);
    assert_int_equal(st->main->order[0], 1);
    assert_int_equal(st->main->order[1], 0);
    const int8_t v[6] = {9, 8, 7, 6, 5, 4};
    tosac_tensor in;
    input_i8(&in, v);
    assert_int_equal(interp_execute(st, &in, 1, &err), TOSAC_OK);
    assert_memory_equal(interp_main_output(st, 0)->data, v, 6);
    interp_state_free(st);
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

static void test_schedule_errors(void **state)
{
    (void)state;
    /* consumed but never produced */
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    int t = tensor(m, "t", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &t, 1, &y);
    io(m, 0, NULL, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT, "block 'main' operator 0 (IDENTITY, output 'y'): input 't' is never produced");
    /* a cycle */
    g = graph(1, NULL);
    m = blk(g, 0);
    int a = tensor(m, "a", TOSAC_DT_I8, 2, S23, NULL, 0);
    int b = tensor(m, "b", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &a, 1, &b);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &b, 1, &a);
    io(m, 0, NULL, 1, &b);
    expect_fail(g, TOSAC_ERR_INPUT, "block 'main' operator 0 (IDENTITY, output 'b'): input 'a' depends on a cycle");
    /* two writers */
    g = graph(1, NULL);
    m = blk(g, 0);
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &x, 1, &y);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &x, 1, &y);
    io(m, 1, &x, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT, "block 'main' operator 1 (IDENTITY, output 'y'): tensor 'y' is also written by operator 0");
    /* writing a graph input */
    g = graph(1, NULL);
    m = blk(g, 0);
    x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_IDENTITY, NULL, 1, &y, 1, &x);
    io(m, 1, &x, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT, "block 'main' operator 0 (IDENTITY, output 'x'): writes block input 'x'");
    /* an output nobody produces */
    g = graph(1, NULL);
    m = blk(g, 0);
    y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    io(m, 0, NULL, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT, "block 'main': output 'y' is never produced");
    /* a constant whose data is shorter than its shape */
    g = graph(1, NULL);
    m = blk(g, 0);
    const int8_t few[2] = {1, 2};
    int c = tensor(m, "c", TOSAC_DT_I8, 2, S23, few, sizeof few);
    op(m, TOSA_OP_CONST, NULL, 0, NULL, 1, &c);
    io(m, 0, NULL, 1, &c);
    expect_fail(g, TOSAC_ERR_INPUT, "block 'main': tensor 'c' has 2 bytes of data, needs 6");
}

/* main(cond: bool[], x: i8[2,3]) -> COND_IF(then: y = x, else: y = CONST k) */
static tosa_graph *cond_graph(tosac_dtype cond_dt, const char *then_name)
{
    static const char *const names[] = {"main", "then", "else"};
    tosa_graph *g = graph(3, names);
    tosa_block *m = blk(g, 0), *th = blk(g, 1), *el = blk(g, 2);
    int c = tensor(m, "cond", cond_dt, 0, NULL, NULL, 0);
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.then_graph = (char *)then_name;
    a.else_graph = "else";
    int ins[2] = {c, x};
    op(m, TOSA_OP_COND_IF, &a, 2, ins, 1, &y);
    io(m, 2, ins, 1, &y);
    int tx = tensor(th, "tx", TOSAC_DT_I8, 2, S23, NULL, 0);
    int ty = tensor(th, "ty", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(th, TOSA_OP_IDENTITY, NULL, 1, &tx, 1, &ty);
    io(th, 1, &tx, 1, &ty);
    const int8_t k[6] = {10, 20, 30, 40, 50, 60};
    int ex = tensor(el, "ex", TOSAC_DT_I8, 2, S23, NULL, 0);
    int ek = tensor(el, "ek", TOSAC_DT_I8, 2, S23, k, sizeof k);
    op(el, TOSA_OP_CONST, NULL, 0, NULL, 1, &ek);
    io(el, 1, &ex, 1, &ek);
    return g;
}

static void run_cond(tosa_graph *g, bool cond, const int8_t *want)
{
    tosac_tensor in[2], out;
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    ((uint8_t *)in[0].data)[0] = cond;
    const int8_t v[6] = {1, 2, 3, 4, 5, 6};
    input_i8(&in[1], v);
    assert_int_equal(tosa_interp_run(g, in, 2, &out, 1, &err), TOSAC_OK);
    assert_memory_equal(out.data, want, 6);
    tosac_tensor_free(&out);
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
}

static void test_cond_if(void **state)
{
    (void)state;
    tosa_graph *g = cond_graph(TOSAC_DT_BOOL, "then");
    const int8_t x[6] = {1, 2, 3, 4, 5, 6}, k[6] = {10, 20, 30, 40, 50, 60};
    run_cond(g, true, x);
    run_cond(g, false, k);
    tosa_graph_free(g);
}

static void test_cond_if_errors(void **state)
{
    (void)state;
    /* condition of the wrong type */
    tosa_graph *g = cond_graph(TOSAC_DT_I32, "then");
    tosac_tensor in[2], out;
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_I32, 0, NULL, &err), TOSAC_OK);
    const int8_t v[6] = {0};
    input_i8(&in[1], v);
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, in, 2, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "COND_IF (output 'y'): ERROR_IF(condition is not a size-1 bool tensor)");
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    tosa_graph_free(g);
    /* a sub-graph that is not there */
    g = cond_graph(TOSAC_DT_BOOL, "nope");
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, NULL, 0, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "block 'main' operator 0 (COND_IF, output 'y'): then_graph 'nope' is not a block of the graph");
    tosa_graph_free(g);
    /* recursion: then_graph is the main block itself */
    g = cond_graph(TOSAC_DT_BOOL, "main");
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, NULL, 0, &out, 1, &err), TOSAC_ERR_UNSUPPORTED);
    assert_string_equal(err.msg, "block 'main' operator 0 (COND_IF, output 'y'): then_graph 'main' is recursive (it contains itself)");
    tosa_graph_free(g);
}

static void test_cond_if_list_mismatch(void **state)
{
    (void)state;
    tosa_graph *g = cond_graph(TOSAC_DT_BOOL, "then");
    /* the else block declares its input as i16: the input list no longer matches */
    blk(g, 2)->tensors[0].dtype = TOSAC_DT_I16;
    tosac_tensor in[2], out;
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    const int8_t v[6] = {0};
    input_i8(&in[1], v);
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, in, 2, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "COND_IF (output 'y'): ERROR_IF(input_list 0 is i8[2,3], block 'else' declares 'ex' as i16[2,3])");
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    tosa_graph_free(g);
}

/* main(x) declares variable "go" (bool, initial value go0) and loops:
 *   cond: VARIABLE_READ go;  body: VARIABLE_WRITE go := false, y = CONST k.
 * So the body runs once when go0 is true (result k) and never when false (result x). */
static tosa_graph *loop_graph(bool go0)
{
    static const char *const names[] = {"main", "cond", "body"};
    tosa_graph *g = graph(3, names);
    tosa_block *m = blk(g, 0), *cb = blk(g, 1), *bb = blk(g, 2);
    const uint8_t init = go0, f = 0;
    int var = tensor(m, "go", TOSAC_DT_BOOL, 0, NULL, &init, 1);
    m->tensors[var].variable = true;
    int x = tensor(m, "x", TOSAC_DT_I8, 2, S23, NULL, 0);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_VARIABLE, NULL, 0, NULL, 1, &var);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.cond_graph = "cond";
    a.body_graph = "body";
    op(m, TOSA_OP_WHILE_LOOP, &a, 1, &x, 1, &y);
    io(m, 1, &x, 1, &y);
    int cx = tensor(cb, "cx", TOSAC_DT_I8, 2, S23, NULL, 0);
    int cv = tensor(cb, "go", TOSAC_DT_BOOL, 0, NULL, NULL, 0);
    cb->tensors[cv].variable = true;
    int cr = tensor(cb, "c", TOSAC_DT_BOOL, 0, NULL, NULL, 0);
    op(cb, TOSA_OP_VARIABLE_READ, NULL, 1, &cv, 1, &cr);
    io(cb, 1, &cx, 1, &cr);
    const int8_t k[6] = {10, 20, 30, 40, 50, 60};
    int bx = tensor(bb, "bx", TOSAC_DT_I8, 2, S23, NULL, 0);
    int bv = tensor(bb, "go", TOSAC_DT_BOOL, 0, NULL, NULL, 0);
    bb->tensors[bv].variable = true;
    int bf = tensor(bb, "false", TOSAC_DT_BOOL, 0, NULL, &f, 1);
    int bk = tensor(bb, "k", TOSAC_DT_I8, 2, S23, k, sizeof k);
    op(bb, TOSA_OP_CONST, NULL, 0, NULL, 1, &bf);
    op(bb, TOSA_OP_VARIABLE_WRITE, NULL, 1, &bf, 1, &bv);
    op(bb, TOSA_OP_CONST, NULL, 0, NULL, 1, &bk);
    io(bb, 1, &bx, 1, &bk);
    return g;
}

static void test_while_loop_with_variable(void **state)
{
    (void)state;
    const int8_t x[6] = {1, 2, 3, 4, 5, 6}, k[6] = {10, 20, 30, 40, 50, 60};
    for (int go = 0; go <= 1; go++) {
        tosa_graph *g = loop_graph(go);
        interp_state *st;
        tosac_error_clear(&err);
        assert_int_equal(interp_prepare(g, &st, &err), TOSAC_OK);
        tosac_tensor in;
        input_i8(&in, x);
        /* twice on one prepared state: the variable is re-initialised per run */
        for (int run = 0; run < 2; run++) {
            assert_int_equal(interp_execute(st, &in, 1, &err), TOSAC_OK);
            assert_memory_equal(interp_main_output(st, 0)->data, go ? k : x, 6);
        }
        /* each sub-block is prepared once, one level down */
        assert_non_null(interp_find_block_state(st, blk(g, 1), 1));
        assert_non_null(interp_find_block_state(st, blk(g, 2), 1));
        assert_null(interp_find_block_state(st, blk(g, 2), 2));
        assert_int_equal(st->n_vars, 1);
        interp_state_free(st);
        tosac_tensor_free(&in);
        tosa_graph_free(g);
    }
}

static void test_variable_errors(void **state)
{
    (void)state;
    /* read before the VARIABLE operator declared it */
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    const int32_t init = 5;
    int v = tensor(m, "state", TOSAC_DT_I32, 0, NULL, &init, sizeof init);
    m->tensors[v].variable = true;
    int y = tensor(m, "y", TOSAC_DT_I32, 0, NULL, NULL, 0);
    op(m, TOSA_OP_VARIABLE_READ, NULL, 1, &v, 1, &y);
    io(m, 0, NULL, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT, "VARIABLE_READ (output 'y'): ERROR_IF(variable 'state' is not declared)");
    /* declared, written with the wrong type */
    g = graph(1, NULL);
    m = blk(g, 0);
    v = tensor(m, "state", TOSAC_DT_I32, 0, NULL, &init, sizeof init);
    m->tensors[v].variable = true;
    const int8_t small = 3;
    int w = tensor(m, "w", TOSAC_DT_I8, 0, NULL, &small, 1);
    op(m, TOSA_OP_VARIABLE, NULL, 0, NULL, 1, &v);
    op(m, TOSA_OP_CONST, NULL, 0, NULL, 1, &w);
    op(m, TOSA_OP_VARIABLE_WRITE, NULL, 1, &w, 1, &v);
    io(m, 0, NULL, 1, &w);
    expect_fail(g, TOSAC_ERR_INPUT, "VARIABLE_WRITE (output 'state'): ERROR_IF(variable 'state' is i32[], the tensor is i8[])");
    /* no operand names a variable */
    g = graph(1, NULL);
    m = blk(g, 0);
    w = tensor(m, "w", TOSAC_DT_I8, 0, NULL, &small, 1);
    op(m, TOSA_OP_CONST, NULL, 0, NULL, 1, &w);
    op(m, TOSA_OP_VARIABLE_WRITE, NULL, 1, &w, 0, NULL);
    io(m, 0, NULL, 1, &w);
    expect_fail(g, TOSAC_ERR_INPUT, "VARIABLE_WRITE (output 'w'): no operand is a variable tensor");
    /* declared twice */
    g = graph(1, NULL);
    m = blk(g, 0);
    v = tensor(m, "state", TOSAC_DT_I32, 0, NULL, &init, sizeof init);
    m->tensors[v].variable = true;
    y = tensor(m, "y", TOSAC_DT_I32, 0, NULL, NULL, 0);
    op(m, TOSA_OP_VARIABLE, NULL, 0, NULL, 1, &v);
    op(m, TOSA_OP_VARIABLE, NULL, 0, NULL, 1, &v);
    op(m, TOSA_OP_VARIABLE_READ, NULL, 1, &v, 1, &y);
    io(m, 0, NULL, 1, &y);
    expect_fail(g, TOSAC_ERR_INPUT, "VARIABLE (output 'state'): ERROR_IF(variable 'state' is already declared)");
}

static void test_variable_read_write(void **state)
{
    (void)state;
    /* VARIABLE (init 5), read -> y0, write 9 (named by variable_name), read -> y1 */
    tosa_graph *g = graph(1, NULL);
    tosa_block *m = blk(g, 0);
    const int32_t init = 5, nine = 9;
    int v = tensor(m, "v_decl", TOSAC_DT_I32, 0, NULL, &init, sizeof init);
    m->tensors[v].variable = true;
    m->tensors[v].variable_name = strdup("counter");
    int v2 = tensor(m, "v_ref", TOSAC_DT_I32, 0, NULL, NULL, 0);
    m->tensors[v2].variable = true;
    m->tensors[v2].variable_name = strdup("counter");
    int n9 = tensor(m, "nine", TOSAC_DT_I32, 0, NULL, &nine, sizeof nine);
    int y0 = tensor(m, "y0", TOSAC_DT_I32, 0, NULL, NULL, 0);
    int y1 = tensor(m, "y1", TOSAC_DT_I32, 0, NULL, NULL, 0);
    op(m, TOSA_OP_VARIABLE, NULL, 0, NULL, 1, &v);
    op(m, TOSA_OP_VARIABLE_READ, NULL, 1, &v, 1, &y0);
    op(m, TOSA_OP_CONST, NULL, 0, NULL, 1, &n9);
    op(m, TOSA_OP_VARIABLE_WRITE, NULL, 1, &n9, 1, &v2);
    op(m, TOSA_OP_VARIABLE_READ, NULL, 1, &v2, 1, &y1);
    int outs[2] = {y0, y1};
    io(m, 0, NULL, 2, outs);
    tosac_tensor out[2];
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, NULL, 0, out, 2, &err), TOSAC_OK);
    assert_int_equal(((int32_t *)out[0].data)[0], 5);
    assert_int_equal(((int32_t *)out[1].data)[0], 9);
    tosac_tensor_free(&out[0]);
    tosac_tensor_free(&out[1]);
    tosa_graph_free(g);
}

static void test_outer_reference(void **state)
{
    (void)state;
    /* the then block returns the caller's tensor "k" without taking it as an input */
    static const char *const names[] = {"main", "then", "else"};
    tosa_graph *g = graph(3, names);
    tosa_block *m = blk(g, 0), *th = blk(g, 1), *el = blk(g, 2);
    const int8_t k[6] = {-1, -2, -3, -4, -5, -6};
    int c = tensor(m, "cond", TOSAC_DT_BOOL, 0, NULL, NULL, 0);
    int kk = tensor(m, "k", TOSAC_DT_I8, 2, S23, k, sizeof k);
    int y = tensor(m, "y", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(m, TOSA_OP_CONST, NULL, 0, NULL, 1, &kk);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.then_graph = "then";
    a.else_graph = "else";
    op(m, TOSA_OP_COND_IF, &a, 1, &c, 1, &y);
    io(m, 1, &c, 1, &y);
    int tk = tensor(th, "k", TOSAC_DT_I8, 2, S23, NULL, 0);
    th->tensors[tk].outer_ref = true;
    int ty = tensor(th, "ty", TOSAC_DT_I8, 2, S23, NULL, 0);
    op(th, TOSA_OP_IDENTITY, NULL, 1, &tk, 1, &ty);
    io(th, 0, NULL, 1, &ty);
    int ek = tensor(el, "k", TOSAC_DT_I8, 2, S23, NULL, 0);
    el->tensors[ek].outer_ref = true;
    io(el, 0, NULL, 1, &ek);
    tosac_tensor in, out;
    assert_int_equal(tosac_tensor_alloc(&in, TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    for (int cond = 0; cond <= 1; cond++) {
        ((uint8_t *)in.data)[0] = (uint8_t)cond;
        tosac_error_clear(&err);
        assert_int_equal(tosa_interp_run(g, &in, 1, &out, 1, &err), TOSAC_OK);
        assert_memory_equal(out.data, k, 6);
        tosac_tensor_free(&out);
    }
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

/* Blocks b0 (main) .. b{n-1}: each but the last passes its bool input to a COND_IF whose
 * branches are both the next block; the last returns a constant. Nesting depth n-1. */
static tosa_graph *nested_graph(int n)
{
    char **names = calloc((size_t)n, sizeof *names);
    for (int i = 0; i < n; i++) {
        names[i] = malloc(16);
        snprintf(names[i], 16, "b%d", i);
    }
    tosa_graph *g = graph(n, (const char *const *)names);
    const int64_t one = 1;
    const int8_t k = 42;
    for (int i = 0; i < n; i++) {
        tosa_block *b = blk(g, i);
        int c = tensor(b, "c", TOSAC_DT_BOOL, 0, NULL, NULL, 0);
        int y = tensor(b, "y", TOSAC_DT_I8, 1, &one, i == n - 1 ? &k : NULL, i == n - 1 ? 1 : 0);
        if (i < n - 1) {
            tosa_attr a;
            memset(&a, 0, sizeof a);
            a.then_graph = a.else_graph = names[i + 1];
            int ins[2] = {c, c};
            op(b, TOSA_OP_COND_IF, &a, 2, ins, 1, &y);
        } else {
            op(b, TOSA_OP_CONST, NULL, 0, NULL, 1, &y);
        }
        io(b, 1, &c, 1, &y);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return g;
}

static void test_nesting_limit(void **state)
{
    (void)state;
    /* depth 256 (level "none" max_nesting) runs */
    tosa_graph *g = nested_graph(INTERP_MAX_NESTING + 1);
    tosac_tensor in, out;
    assert_int_equal(tosac_tensor_alloc(&in, TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    tosac_error_clear(&err);
    assert_int_equal(tosa_interp_run(g, &in, 1, &out, 1, &err), TOSAC_OK);
    assert_int_equal(((int8_t *)out.data)[0], 42);
    tosac_tensor_free(&out);
    tosa_graph_free(g);
    /* one level more does not */
    g = nested_graph(INTERP_MAX_NESTING + 2);
    assert_int_equal(tosa_interp_run(g, &in, 1, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "block 'b256' operator 0 (COND_IF, output 'y'): control flow nested deeper than 256");
    tosac_tensor_free(&in);
    tosa_graph_free(g);
}

static void test_arity_table(void **state)
{
    (void)state;
    interp_arity a;
    /* every operator of the enumeration has an entry */
    for (int o = 1; o < TOSA_OP_COUNT; o++)
        assert_true(interp_op_arity((tosa_op)o, &a));
    assert_false(interp_op_arity(TOSA_OP_UNKNOWN, &a));
    assert_true(interp_op_arity(TOSA_OP_CONV2D, &a) && a.min_in == 5 && a.max_in == 5 && a.max_out == 1);
    assert_true(interp_op_arity(TOSA_OP_RESCALE, &a) && a.min_in == 5);
    assert_true(interp_op_arity(TOSA_OP_COND_IF, &a) && a.min_in == 1 && a.max_in == 257);
    assert_true(interp_op_arity(TOSA_OP_FFT2D, &a) && a.min_out == 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_runs),
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_const_and_const_shape),
        cmocka_unit_test(test_identity_type_mismatch),
        cmocka_unit_test(test_operand_count_checked),
        cmocka_unit_test(test_custom_and_unimplemented),
        cmocka_unit_test(test_schedule_out_of_order),
        cmocka_unit_test(test_schedule_errors),
        cmocka_unit_test(test_cond_if),
        cmocka_unit_test(test_cond_if_errors),
        cmocka_unit_test(test_cond_if_list_mismatch),
        cmocka_unit_test(test_while_loop_with_variable),
        cmocka_unit_test(test_variable_errors),
        cmocka_unit_test(test_variable_read_write),
        cmocka_unit_test(test_outer_reference),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_arity_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
