/* The CPU operators under a second executor: a test executor whose cpu_env_ops take every
 * byte from one fixed buffer (as the runtime's arena) and count their calls. Each case runs
 * real operators (Conv, Softmax, Gather, Mean, f16 Conv, If, Loop with scan outputs) through
 * it and through the host executor (cpu_exec.c) and compares the outputs bit for bit; every
 * output and temporary pointer must lie inside the buffer, so an op that allocated by itself
 * (malloc, tosac_tensor_alloc) fails here. That the op objects reference no libc allocator at
 * all is checked by nm in tests/cpu_symbols. */
#include "testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu/cpu_internal.h"
#include "cpu_testgraph.h"

/* ---- the test executor ---- */

typedef struct tx {
    _Alignas(16) unsigned char pool[1 << 20];
    size_t used, limit; /* limit: pretend the pool is this small */
    int n_out, n_temp, n_release, n_scratch, n_sub;
} tx;

static tx X;

static void *tx_alloc(size_t bytes)
{
    size_t at = (X.used + 15) & ~(size_t)15;
    if (at + bytes > X.limit)
        return NULL;
    X.used = at + bytes;
    return X.pool + at;
}

static int in_pool(const void *p)
{
    return (const unsigned char *)p >= X.pool && (const unsigned char *)p < X.pool + sizeof X.pool;
}

/* A graph run: values per tensor id; bodies reach outer values through parent. */
typedef struct tx_frame {
    const ir_graph *g;
    tosac_tensor *vals;
    unsigned char *have;
    struct tx_frame *parent;
} tx_frame;

typedef struct tx_node {
    tx_frame *f;
} tx_node;

static const tosac_tensor *tx_get(tx_frame *f, int id, tosac_tensor *view)
{
    if (f->have[id])
        return &f->vals[id];
    const ir_tensor *t = &f->g->tensors[id];
    if (t->outer_id >= 0 && f->parent)
        return tx_get(f->parent, t->outer_id, view);
    if (!t->data)
        return NULL;
    memset(view, 0, sizeof *view);
    view->dtype = t->dtype;
    view->rank = t->rank;
    memcpy(view->shape, t->shape, sizeof t->shape);
    view->data = t->data;
    view->nbytes = t->nbytes;
    return view;
}

static tosac_code tx_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                         size_t nbytes, int zero)
{
    X.n_out++;
    void *p = tx_alloc(nbytes ? nbytes : 1);
    if (!p)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "test pool full");
    if (zero)
        memset(p, 0, nbytes);
    tosac_tensor *t = &c->out[i];
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    memcpy(t->shape, shape, sizeof(int64_t) * (size_t)rank);
    t->data = p;
    t->nbytes = nbytes;
    return TOSAC_OK;
}

static void *tx_temp(cpu_ctx *c, size_t bytes)
{
    (void)c;
    X.n_temp++;
    return tx_alloc(bytes);
}

static void tx_release(cpu_ctx *c, void *p)
{
    (void)c;
    assert_true(in_pool(p)); /* only what the env gave out comes back */
    X.n_release++;
}

static void *tx_scratch(cpu_ctx *c, size_t bytes)
{
    (void)c;
    X.n_scratch++;
    return tx_alloc(bytes);
}

static tosac_code tx_graph(const ir_graph *g, tx_frame *parent, const tosac_tensor *in,
                           int n_in, tosac_tensor *out, int n_out, tosac_error *err);

static tosac_code tx_run_sub(cpu_ctx *c, int k, const tosac_tensor *in, int n_in,
                             tosac_tensor *out, int n_out)
{
    X.n_sub++;
    return tx_graph(ir_node_subgraph(c->node, k), ((tx_node *)c->exec)->f, in, n_in, out,
                    n_out, c->err);
}

/* take NULL: cpu_out_take copies, as a runtime with planned outputs does */
static const cpu_env_ops tx_ops = {tx_out, tx_temp, tx_release, tx_scratch, NULL, tx_run_sub,
                                   NULL};

/* Runs g's nodes in their stored order (the tests build them topologically). */
static tosac_code tx_graph(const ir_graph *g, tx_frame *parent, const tosac_tensor *in,
                           int n_in, tosac_tensor *out, int n_out, tosac_error *err)
{
    tx_frame f = {g, tx_alloc(sizeof(tosac_tensor) * (size_t)g->n_tensors),
                  tx_alloc((size_t)g->n_tensors), parent};
    assert_non_null(f.vals);
    assert_non_null(f.have);
    memset(f.have, 0, (size_t)g->n_tensors);
    assert_int_equal(n_in, g->n_inputs);
    for (int i = 0; i < n_in; i++) {
        f.vals[g->inputs[i]] = in[i];
        f.have[g->inputs[i]] = 1;
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const ir_node *n = &g->nodes[ni];
        const cpu_op_entry *e = cpu_find_op(n->op_type);
        assert_non_null(e);
        tx_node tn = {&f};
        tosac_tensor views[CPU_MAX_IO], outs[CPU_MAX_IO];
        memset(outs, 0, sizeof outs);
        cpu_ctx c;
        memset(&c, 0, sizeof c);
        c.g = g;
        c.node = n;
        c.opset = 17;
        c.n_in = n->n_inputs;
        for (int i = 0; i < n->n_inputs; i++)
            c.in[i] = n->inputs[i] >= 0 ? tx_get(&f, n->inputs[i], &views[i]) : NULL;
        c.out = outs;
        c.n_out = n->n_outputs;
        c.ops = &tx_ops;
        c.exec = &tn;
        c.err = err;
        tosac_code rc = cpu_invoke(&c, e);
        if (rc)
            return rc;
        for (int i = 0; i < n->n_outputs; i++) {
            assert_true(in_pool(outs[i].data));
            assert_int_equal(outs[i].owns_data, 0);
            if (n->outputs[i] >= 0) {
                f.vals[n->outputs[i]] = outs[i];
                f.have[n->outputs[i]] = 1;
            }
        }
    }
    for (int i = 0; i < n_out; i++) {
        tosac_tensor view;
        const tosac_tensor *v = tx_get(&f, g->outputs[i], &view);
        assert_non_null(v);
        out[i] = *v;
    }
    return TOSAC_OK;
}

static void tx_reset(size_t limit)
{
    /* garbage, not zeros: an op that needs zeroed memory must ask for it */
    memset(X.pool, 0xa5, sizeof X.pool);
    X.used = 0;
    X.limit = limit;
    X.n_out = X.n_temp = X.n_release = X.n_scratch = X.n_sub = 0;
}

/* ---- building and comparing ---- */

/* Deterministic values in [-2, 2) (an LCG, nothing computed by the code under test). */
static void fill_f32(float *v, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (float)((seed >> 8) % 4096) / 1024.0f - 2.0f;
    }
}

/* Runs m (inputs in) on both executors: outputs must agree bit for bit and every output of
 * the test run lie in the pool. Returns the test executor's outputs (pool memory). */
static void run_both(ir_model *m, const tosac_tensor *in, int n_in, tosac_tensor *tx_outs,
                     int n_out)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_tensor host[4];
    assert_true(n_out <= 4);
    assert_int_equal(cpu_run_model(m, in, n_in, host, n_out, &err), TOSAC_OK);
    tx_reset(sizeof X.pool);
    tosac_code rc = tx_graph(m->graph, NULL, in, n_in, tx_outs, n_out, &err);
    if (rc)
        fail_msg("test executor: %s", err.msg);
    for (int i = 0; i < n_out; i++) {
        assert_true(in_pool(tx_outs[i].data));
        assert_int_equal(tx_outs[i].dtype, host[i].dtype);
        assert_int_equal(tx_outs[i].rank, host[i].rank);
        assert_memory_equal(tx_outs[i].shape, host[i].shape, sizeof(int64_t) * (size_t)host[i].rank);
        assert_int_equal(tx_outs[i].nbytes, host[i].nbytes);
        assert_memory_equal(tx_outs[i].data, host[i].data, host[i].nbytes);
        tosac_tensor_free(&host[i]);
    }
}

static tosac_tensor input(tosac_dtype dt, int rank, const int64_t *shape, const void *v)
{
    tosac_tensor t;
    tosac_error err;
    assert_int_equal(tosac_tensor_alloc(&t, dt, rank, shape, &err), TOSAC_OK);
    memcpy(t.data, v, t.nbytes);
    return t;
}

/* ---- cases ---- */

/* Conv 3x3, pad 1, stride 2 with bias: outputs and scratch come from the env. */
static void test_conv(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[4] = {1, 2, 7, 7}, ws[4] = {3, 2, 3, 3}, bs[1] = {3}, ys[4] = {1, 3, 4, 4};
    float w[54], b[3] = {0.5f, -1, 0.25f}, x[98];
    fill_f32(w, 54, 1);
    fill_f32(x, 98, 2);
    int tx_ = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, xs, &err);
    int tw = ir_graph_add_const(g, "w", TOSAC_DT_F32, 4, ws, w, sizeof w, &err);
    int tb = ir_graph_add_const(g, "b", TOSAC_DT_F32, 1, bs, b, sizeof b, &err);
    int ty = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 4, ys, &err);
    int ins[3] = {tx_, tw, tb};
    int k = pt_node(g, "Conv", ins, 3, &ty, 1);
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {2, 2};
    assert_int_equal(ir_node_set_ints(g, k, "pads", pads, 4, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_ints(g, k, "strides", strides, 2, &err), TOSAC_OK);
    ir_graph_mark_output(g, ty, &err);
    tosac_tensor in = input(TOSAC_DT_F32, 4, xs, x), out;
    run_both(m, &in, 1, &out, 1);
    assert_int_equal(out.shape[2], 4);
    assert_int_equal(X.n_out, 1);
    /* y[0,0,0,0] by hand: taps x[c, 0..1, 0..1] (pad row/col 0) with w[0, c, 1..2, 1..2] */
    float e = b[0];
    for (int cc = 0; cc < 2; cc++)
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 2; q++)
                e += x[cc * 49 + r * 7 + q] * w[cc * 9 + (r + 1) * 3 + (q + 1)];
    assert_float_equal(((float *)out.data)[0], e, 1e-5f); /* summation order may differ */
    tosac_tensor_free(&in);
    ir_model_free(m);
}

/* Conv on f16 goes through cpu_invoke's widening: f32 results are temporaries, the f16
 * output is asked for once at its own size. */
static void test_conv_f16_widening(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[4] = {1, 1, 4, 4}, ws[4] = {2, 1, 2, 2}, ys[4] = {1, 2, 3, 3};
    uint16_t x[16], w[8];
    for (int i = 0; i < 16; i++)
        x[i] = (uint16_t)(0x3c00 + 0x100 * (i % 5)); /* 1, 1.25 .. 2 (exact in f16) */
    for (int i = 0; i < 8; i++)
        w[i] = (uint16_t)(i % 2 ? 0xbc00 : 0x3800); /* -1 and 0.5 */
    int tx_ = ir_graph_add_input(g, "x", TOSAC_DT_F16, 4, xs, &err);
    int tw = ir_graph_add_const(g, "w", TOSAC_DT_F16, 4, ws, w, sizeof w, &err);
    int ty = ir_graph_add_tensor(g, "y", TOSAC_DT_F16, 4, ys, &err);
    int ins[2] = {tx_, tw};
    pt_node(g, "Conv", ins, 2, &ty, 1);
    ir_graph_mark_output(g, ty, &err);
    tosac_tensor in = input(TOSAC_DT_F16, 4, xs, x), out;
    run_both(m, &in, 1, &out, 1);
    assert_int_equal(out.dtype, TOSAC_DT_F16);
    assert_int_equal(out.nbytes, 18 * 2);
    assert_int_equal(X.n_out, 1); /* only the narrowed f16 output reached the env's out */
    assert_true(X.n_temp >= 3);   /* two widened inputs and the f32 result */
    /* y[0,0,0,0] = 0.5*x[0][0] - x[0][1] + 0.5*x[1][0] - x[1][1] = 0.5 - 1.25 + 1 - 1 */
    assert_int_equal(((uint16_t *)out.data)[0], 0xba00); /* -0.75 */
    tosac_tensor_free(&in);
    ir_model_free(m);
}

static void test_softmax(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[2] = {3, 5};
    float x[15];
    fill_f32(x, 15, 3);
    int tx_ = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, s, &err);
    int ty = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, s, &err);
    pt_node(g, "Softmax", &tx_, 1, &ty, 1);
    ir_graph_mark_output(g, ty, &err);
    tosac_tensor in = input(TOSAC_DT_F32, 2, s, x), out;
    run_both(m, &in, 1, &out, 1);
    float sum = 0;
    for (int i = 0; i < 5; i++)
        sum += ((float *)out.data)[i];
    assert_float_equal(sum, 1.0f, 1e-6f); /* a softmax row sums to 1 (rounding only) */
    tosac_tensor_free(&in);
    ir_model_free(m);
}

/* Gather normalises its indices into a cpu_temp buffer, released before it returns; with a
 * pool too small for that buffer it reports out-of-memory naming the node. */
static void test_gather_temp_and_exhaustion(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t ds[2] = {4, 3}, is[1] = {5}, ys[2] = {5, 3};
    float d[12];
    for (int i = 0; i < 12; i++)
        d[i] = (float)i;
    int64_t idx[5] = {3, -1, 0, 2, 1};
    int td = ir_graph_add_input(g, "d", TOSAC_DT_F32, 2, ds, &err);
    int ti = ir_graph_add_const(g, "i", TOSAC_DT_I64, 1, is, idx, sizeof idx, &err);
    int ty = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, ys, &err);
    int ins[2] = {td, ti};
    assert_true(ir_graph_add_node(g, "Gather", NULL, "gather_node", ins, 2, &ty, 1, &err) >= 0);
    ir_graph_mark_output(g, ty, &err);
    tosac_tensor in = input(TOSAC_DT_F32, 2, ds, d), out;
    run_both(m, &in, 1, &out, 1);
    assert_true(X.n_temp >= 1);
    assert_int_equal(X.n_release, X.n_temp);
    /* rows 3, 3 (-1), 0, 2, 1 */
    const float *y = out.data;
    assert_true(y[0] == 9 && y[3] == 9 && y[6] == 0 && y[9] == 6 && y[12] == 3 && y[14] == 5);
    /* the frame (values + flags) fits, the 40-byte index buffer (asked for first) does not */
    size_t frame = ((sizeof(tosac_tensor) * (size_t)g->n_tensors + 15) & ~(size_t)15) +
                   (((size_t)g->n_tensors + 15) & ~(size_t)15);
    tx_reset(frame + 32);
    tosac_error_clear(&err);
    tosac_tensor junk;
    assert_int_equal(tx_graph(g, NULL, &in, 1, &junk, 1, &err), TOSAC_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "node 'gather_node' (Gather): out of memory"));
    tosac_tensor_free(&in);
    ir_model_free(m);
}

/* Mean of three inputs folds left to right through temporaries; the result is copied out. */
static void test_mean_temporaries(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {4};
    float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, cc[4] = {-2, 1, 0.5f, 7};
    int ta = ir_graph_add_input(g, "a", TOSAC_DT_F32, 1, s, &err);
    int tb = ir_graph_add_const(g, "b", TOSAC_DT_F32, 1, s, b, sizeof b, &err);
    int tc = ir_graph_add_const(g, "c", TOSAC_DT_F32, 1, s, cc, sizeof cc, &err);
    int ty = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    int ins[3] = {ta, tb, tc};
    pt_node(g, "Mean", ins, 3, &ty, 1);
    ir_graph_mark_output(g, ty, &err);
    tosac_tensor in = input(TOSAC_DT_F32, 1, s, a), out;
    run_both(m, &in, 1, &out, 1);
    assert_true(X.n_temp >= 3);
    const float *y = out.data; /* (1+10-2)/3 = 3, (2+20+1)/3, (3+30+0.5)/3, (4+40+7)/3 = 17 */
    assert_true(y[0] == 3.0f && y[3] == 17.0f);
    tosac_tensor_free(&in);
    ir_model_free(m);
}

/* If: then = Neg(x), else = Abs(x), reading the outer x through a capture; the branch's
 * result reaches the node's output through cpu_out_take (copied: the env has no take). */
static void test_if(void **state)
{
    (void)state;
    ir_model *m = ct_if_model(3);
    int64_t s[1] = {3};
    float xv[3] = {-1.5f, 2, -0.0f};
    uint8_t cv[2] = {0, 1};
    tosac_tensor in[2] = {input(TOSAC_DT_F32, 1, s, xv), input(TOSAC_DT_BOOL, 0, NULL, &cv[0])};
    for (int v = 0; v < 2; v++) {
        *(uint8_t *)in[1].data = cv[v];
        tosac_tensor out;
        run_both(m, in, 2, &out, 1);
        assert_int_equal(X.n_sub, 1);
        const float *o = out.data;
        if (v)
            assert_true(o[0] == 1.5f && o[1] == -2);
        else
            assert_true(o[0] == 1.5f && o[1] == 2);
    }
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    ir_model_free(m);
}

/* Loop M=40: v' = v + iter, scan outputs v' (scalar) and [v', iter] (a pair): 40 iterations
 * grow the scan buffers past their first capacity (16 values). v after i+1 iterations is
 * i(i+1)/2. */
static void test_loop_scan_outputs(void **state)
{
    (void)state;
    enum { M = 40 };
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t trips = M, zero = 0, s1[1] = {M}, s2[2] = {M, 2}, two[1] = {2}, one[1] = {1};
    uint8_t yes = 1;
    int tm = ir_graph_add_const(g, "M", TOSAC_DT_I64, 0, NULL, &trips, 8, &err);
    int tc = ir_graph_add_const(g, "cond", TOSAC_DT_BOOL, 0, NULL, &yes, 1, &err);
    int tv = ir_graph_add_const(g, "v0", TOSAC_DT_I64, 0, NULL, &zero, 8, &err);
    int vf = ir_graph_add_tensor(g, "v_final", TOSAC_DT_I64, 0, NULL, &err);
    int sc = ir_graph_add_tensor(g, "scan", TOSAC_DT_I64, 1, s1, &err);
    int sp = ir_graph_add_tensor(g, "pairs", TOSAC_DT_I64, 2, s2, &err);
    int ins[3] = {tm, tc, tv}, outs[3] = {vf, sc, sp};
    int k = pt_node(g, "Loop", ins, 3, outs, 3);
    ir_graph *body = ir_graph_new("body", g);
    int bi = ir_graph_add_input(body, "i", TOSAC_DT_I64, 0, NULL, &err);
    int bc = ir_graph_add_input(body, "c_in", TOSAC_DT_BOOL, 0, NULL, &err);
    int bv = ir_graph_add_input(body, "v", TOSAC_DT_I64, 0, NULL, &err);
    int ax = ir_graph_add_const(body, "ax", TOSAC_DT_I64, 1, one, &zero, 8, &err);
    int co = ir_graph_add_tensor(body, "c_out", TOSAC_DT_BOOL, 0, NULL, &err);
    int vo = ir_graph_add_tensor(body, "v_out", TOSAC_DT_I64, 0, NULL, &err);
    int so = ir_graph_add_tensor(body, "s_out", TOSAC_DT_I64, 0, NULL, &err);
    int v1 = ir_graph_add_tensor(body, "v1", TOSAC_DT_I64, 1, one, &err);
    int i1 = ir_graph_add_tensor(body, "i1", TOSAC_DT_I64, 1, one, &err);
    int po = ir_graph_add_tensor(body, "p_out", TOSAC_DT_I64, 1, two, &err);
    int add_in[2] = {bv, bi}, uv[2] = {vo, ax}, ui[2] = {bi, ax}, cat[2] = {v1, i1};
    pt_node(body, "Identity", &bc, 1, &co, 1);
    pt_node(body, "Add", add_in, 2, &vo, 1);
    pt_node(body, "Identity", &vo, 1, &so, 1);
    pt_node(body, "Unsqueeze", uv, 2, &v1, 1);
    pt_node(body, "Unsqueeze", ui, 2, &i1, 1);
    int kc = pt_node(body, "Concat", cat, 2, &po, 1);
    assert_int_equal(ir_node_set_int(body, kc, "axis", 0, &err), TOSAC_OK);
    ir_graph_mark_output(body, co, &err);
    ir_graph_mark_output(body, vo, &err);
    ir_graph_mark_output(body, so, &err);
    ir_graph_mark_output(body, po, &err);
    assert_int_equal(ir_node_set_graph(g, k, "body", body, &err), TOSAC_OK);
    ir_graph_mark_output(g, vf, &err);
    ir_graph_mark_output(g, sc, &err);
    ir_graph_mark_output(g, sp, &err);
    tosac_tensor out[3];
    run_both(m, NULL, 0, out, 3);
    assert_int_equal(X.n_sub, M);
    assert_int_equal(*(int64_t *)out[0].data, (M - 1) * M / 2);
    assert_int_equal(out[1].shape[0], M);
    assert_int_equal(out[2].shape[0], M);
    assert_int_equal(out[2].shape[1], 2);
    const int64_t *sv = out[1].data, *pv = out[2].data;
    for (int64_t i = 0; i < M; i++) {
        assert_int_equal(sv[i], i * (i + 1) / 2);
        assert_int_equal(pv[2 * i], i * (i + 1) / 2);
        assert_int_equal(pv[2 * i + 1], i);
    }
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_conv_f16_widening),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_gather_temp_and_exhaustion),
        cmocka_unit_test(test_mean_temporaries),
        cmocka_unit_test(test_if),
        cmocka_unit_test(test_loop_scan_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
