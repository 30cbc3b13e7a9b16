/* Small float graphs and deterministic samples shared by the quantizer tests (header-only:
 * the unit-test build compiles one test_*.c per program). */
#ifndef TOSAC_TEST_QUANT_TESTGRAPH_H
#define TOSAC_TEST_QUANT_TESTGRAPH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/ir.h"
#include "tosac/quant.h"

/* A deterministic value in [-1, 1) for index i of stream k (no RNG state to share). */
static inline float qtg_val(int k, int64_t i)
{
    uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(k * 40503u + 17u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (float)(h & 0xffff) / 32768.0f - 1.0f;
}

static inline int qtg_const(ir_graph *g, const char *name, int rank, const int64_t *shape, int k,
                            float gain, float offset)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    float *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = offset + gain * qtg_val(k, i);
    return ir_graph_add_const_owned(g, name, TOSAC_DT_F32, rank, shape, v,
                                    (size_t)n * sizeof *v, NULL);
}

/* x [1,2,4,4] -> Conv(W [3,2,3,3], B [3], pads 1) -> (BatchNormalization) -> Relu
 * -> Add(skip [1,3,4,4]) -> out */
static inline ir_model *qtg_conv_relu_add(int64_t opset, int bn)
{
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", opset, NULL);
    ir_graph *g = m->graph;
    const int64_t xs[4] = {1, 2, 4, 4}, ys[4] = {1, 3, 4, 4}, ws[4] = {3, 2, 3, 3}, bs[1] = {3};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, xs, NULL);
    int skip = ir_graph_add_input(g, "skip", TOSAC_DT_F32, 4, ys, NULL);
    int w = qtg_const(g, "W", 4, ws, 101, 0.5f, 0.0f);
    int b = qtg_const(g, "B", 1, bs, 102, 0.2f, 0.0f);
    int c = ir_graph_add_tensor(g, "conv_out", TOSAC_DT_F32, 4, ys, NULL);
    int r = ir_graph_add_tensor(g, "relu_out", TOSAC_DT_F32, 4, ys, NULL);
    int o = ir_graph_add_tensor(g, "out", TOSAC_DT_F32, 4, ys, NULL);
    int cin[3] = {x, w, b};
    int cn = ir_graph_add_node(g, "Conv", NULL, "conv", cin, 3, &c, 1, NULL);
    const int64_t pads[4] = {1, 1, 1, 1};
    ir_node_set_ints(g, cn, "pads", pads, 4, NULL);
    int relu_in = c;
    if (bn) {
        int bnout = ir_graph_add_tensor(g, "bn_out", TOSAC_DT_F32, 4, ys, NULL);
        int bin[5] = {c, qtg_const(g, "gamma", 1, bs, 103, 0.5f, 1.0f),
                      qtg_const(g, "beta", 1, bs, 104, 0.3f, 0.0f),
                      qtg_const(g, "mean", 1, bs, 105, 0.2f, 0.0f),
                      qtg_const(g, "var", 1, bs, 106, 0.4f, 1.0f)};
        int bnn = ir_graph_add_node(g, "BatchNormalization", NULL, "bn", bin, 5, &bnout, 1, NULL);
        ir_node_set_float(g, bnn, "epsilon", 1e-5f, NULL);
        relu_in = bnout;
    }
    ir_graph_add_node(g, "Relu", NULL, "relu", &relu_in, 1, &r, 1, NULL);
    int ain[2] = {r, skip};
    ir_graph_add_node(g, "Add", NULL, "add", ain, 2, &o, 1, NULL);
    ir_graph_mark_output(g, o, NULL);
    return m;
}

static inline void qtg_samples(const ir_model *m, int n, quant_calib *c)
{
    const ir_graph *g = m->graph;
    c->n_samples = n;
    c->n_inputs = g->n_inputs;
    c->tensors = calloc((size_t)(n * g->n_inputs), sizeof *c->tensors);
    for (int s = 0; s < n; s++)
        for (int i = 0; i < g->n_inputs; i++) {
            const ir_tensor *t = &g->tensors[g->inputs[i]];
            tosac_tensor *v = &c->tensors[s * g->n_inputs + i];
            tosac_tensor_alloc(v, TOSAC_DT_F32, t->rank, t->shape, NULL);
            float *d = v->data;
            for (int64_t e = 0; e < tosac_tensor_numel(v); e++)
                d[e] = 2.0f * qtg_val(1000 * s + i, e);
        }
}

static inline tosac_tensor qtg_run(const ir_model *m, const quant_calib *c, int s)
{
    tosac_tensor outs[8];
    memset(outs, 0, sizeof outs);
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = cpu_run_model(m, &c->tensors[s * c->n_inputs], c->n_inputs, outs,
                                  m->graph->n_outputs, &err);
    if (rc)
        fail_msg("run failed: %s", err.msg);
    for (int i = 1; i < m->graph->n_outputs; i++)
        tosac_tensor_free(&outs[i]);
    return outs[0];
}

static inline int qtg_count(const ir_graph *g, const char *op)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && ir_node_is(&g->nodes[i], op);
    return n;
}

static inline const ir_node *qtg_producer(const ir_graph *g, const char *tensor)
{
    int t = ir_graph_find_tensor(g, tensor);
    int p = t >= 0 ? ir_graph_producer(g, t) : -1;
    return p >= 0 ? &g->nodes[p] : NULL;
}

/* The tensor a node reads at slot k. */
static inline const ir_tensor *qtg_in(const ir_graph *g, const ir_node *n, int k)
{
    return &g->tensors[n->inputs[k]];
}

/* Scale and zero point of the QuantizeLinear reading tensor (or its renamed graph-output
 * form "<name>_float"). */
static inline int qtg_find_q(const ir_graph *g, const char *tensor, float *scale, int64_t *zp)
{
    char alt[300];
    *scale = 0;
    *zp = 0;
    snprintf(alt, sizeof alt, "%s_float", tensor);
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!ir_node_is(n, "QuantizeLinear"))
            continue;
        const char *name = g->tensors[n->inputs[0]].name;
        if (strcmp(name, tensor) != 0 && strcmp(name, alt) != 0)
            continue;
        tosac_tensor s, z;
        assert_true(ir_graph_const_value(g, n->inputs[1], &s));
        assert_true(ir_graph_const_value(g, n->inputs[2], &z));
        *scale = ((const float *)s.data)[0];
        *zp = z.dtype == TOSAC_DT_I16 ? ((const int16_t *)z.data)[0] : ((const int8_t *)z.data)[0];
        return 1;
    }
    return 0;
}

/* The scale of the DequantizeLinear writing graph output 0 of a quantized model; -1 when
 * another node writes it. */
static inline float qtg_output_scale(const ir_graph *g)
{
    int p = ir_graph_producer(g, g->outputs[0]);
    tosac_tensor s;
    if (p < 0 || !ir_node_is(&g->nodes[p], "DequantizeLinear") || g->nodes[p].n_inputs < 2 ||
        !ir_graph_const_value(g, g->nodes[p].inputs[1], &s))
        return -1.0f;
    return ((const float *)s.data)[0];
}

#endif
