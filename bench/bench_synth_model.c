/* A synthetic QDQ network of about N ONNX nodes, for the compile-time series
 * (bench/compile_series.sh): residual blocks like ResNet's, each
 *   DQ(x) -> Conv 3x3 (DQ'd int8 weights, DQ'd int32 bias) -> Relu -> Q -> DQ -> Add(.., DQ(x)) -> Q
 * (9 nodes) on a [1,C,8,8] uint8 activation, between a leading Q and a trailing DQ. Every
 * block has its own weights (deterministic pseudo-random int8) and scales, so nothing is
 * shared that a compiler could reuse. Written with tosac's own IR and ONNX writer.
 *   bench_synth_model N OUT.onnx [C]       (N >= 2 nodes; C channels, default 8) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/ir.h"
#include "tosac/onnx.h"

static tosac_error err;

static void die(const char *what)
{
    fprintf(stderr, "bench_synth_model: %s: %s\n", what, err.msg);
    exit(1);
}

static int tensor(ir_graph *g, const char *name, tosac_dtype dt, int rank, const int64_t *shape)
{
    int t = ir_graph_add_tensor(g, name, dt, rank, shape, &err);
    if (t < 0)
        die(name);
    return t;
}

static int cnst(ir_graph *g, const char *name, tosac_dtype dt, int rank, const int64_t *shape,
                const void *data, size_t nbytes)
{
    int t = ir_graph_add_const(g, name, dt, rank, shape, data, nbytes, &err);
    if (t < 0)
        die(name);
    return t;
}

static void node(ir_graph *g, const char *op, const char *name, const int *ins, int n_in,
                 int out)
{
    if (ir_graph_add_node(g, op, NULL, name, ins, n_in, &out, 1, &err) < 0)
        die(name);
}

/* Scale and zero-point scalars named <p>_scale / <p>_zp. */
static void qparams(ir_graph *g, const char *p, float scale, tosac_dtype zdt, int32_t zp,
                    int *s, int *z)
{
    char nm[128];
    snprintf(nm, sizeof nm, "%s_scale", p);
    *s = cnst(g, nm, TOSAC_DT_F32, 0, NULL, &scale, 4);
    snprintf(nm, sizeof nm, "%s_zp", p);
    uint8_t u8 = (uint8_t)zp;
    int8_t i8 = (int8_t)zp;
    const void *d = zdt == TOSAC_DT_U8 ? (const void *)&u8 : zdt == TOSAC_DT_I8 ? (const void *)&i8
                                                                                : (const void *)&zp;
    *z = cnst(g, nm, zdt, 0, NULL, d, zdt == TOSAC_DT_I32 ? 4 : 1);
}

/* DQ / Q of t with parameters (s, z) into a new tensor named out. */
static int qdq(ir_graph *g, const char *op, int t, int s, int z, const char *out, tosac_dtype dt,
               int rank, const int64_t *shape)
{
    int y = tensor(g, out, dt, rank, shape), ins[3] = {t, s, z};
    node(g, op, out, ins, 3, y);
    return y;
}

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) < 2) {
        fprintf(stderr, "usage: bench_synth_model N OUT.onnx [C]\n");
        return 2;
    }
    int n = atoi(argv[1]), C = argc > 3 ? atoi(argv[3]) : 8, blocks = (n - 2 + 8) / 9;
    if (C < 1 || C > 256)
        return 2;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int64_t xs[4] = {1, C, 8, 8}, ws[4] = {C, C, 3, 3}, bs[1] = {C};
    int x = ir_graph_add_input(g, "input", TOSAC_DT_F32, 4, xs, &err), s, z;
    if (x < 0)
        die("input");
    qparams(g, "input_q", 0.05f, TOSAC_DT_U8, 128, &s, &z);
    int xq = qdq(g, "QuantizeLinear", x, s, z, "input_q", TOSAC_DT_U8, 4, xs);
    int xs_ = s, xz = z; /* the current activation's parameters */
    int8_t *w = malloc((size_t)C * C * 9);
    int32_t *b = malloc((size_t)C * 4);
    unsigned seed = 12345;
    for (int k = 0; k < blocks; k++) {
        char p[64], nm[96];
        snprintf(p, sizeof p, "block%d", k);
        for (int i = 0; i < C * C * 9; i++) {
            seed = seed * 1103515245u + 12345u;
            w[i] = (int8_t)((seed >> 16) % 255 - 127);
        }
        for (int i = 0; i < C; i++)
            b[i] = (int32_t)(i * 37 % 200) - 100;
        snprintf(nm, sizeof nm, "%s_x", p);
        int xf = qdq(g, "DequantizeLinear", xq, xs_, xz, nm, TOSAC_DT_F32, 4, xs);
        snprintf(nm, sizeof nm, "%s_w_q", p);
        int wq = cnst(g, nm, TOSAC_DT_I8, 4, ws, w, (size_t)C * C * 9);
        int ws_, wz, bsc, bz, ys, yz, as, az;
        snprintf(nm, sizeof nm, "%s_w", p);
        qparams(g, nm, 0.01f + 0.0001f * (float)(k % 7), TOSAC_DT_I8, 0, &ws_, &wz);
        int wf = qdq(g, "DequantizeLinear", wq, ws_, wz, nm, TOSAC_DT_F32, 4, ws);
        snprintf(nm, sizeof nm, "%s_b_q", p);
        int bq = cnst(g, nm, TOSAC_DT_I32, 1, bs, b, (size_t)C * 4);
        snprintf(nm, sizeof nm, "%s_b", p);
        qparams(g, nm, 0.05f * (0.01f + 0.0001f * (float)(k % 7)), TOSAC_DT_I32, 0, &bsc, &bz);
        int bf = qdq(g, "DequantizeLinear", bq, bsc, bz, nm, TOSAC_DT_F32, 1, bs);
        snprintf(nm, sizeof nm, "%s_conv", p);
        int y = tensor(g, nm, TOSAC_DT_F32, 4, xs), ins[3] = {xf, wf, bf};
        if (ir_graph_add_node(g, "Conv", NULL, nm, ins, 3, &y, 1, &err) < 0 ||
            ir_node_set_ints(g, g->n_nodes - 1, "pads", (const int64_t[]){1, 1, 1, 1}, 4, &err) ||
            ir_node_set_ints(g, g->n_nodes - 1, "kernel_shape", (const int64_t[]){3, 3}, 2, &err))
            die(nm);
        snprintf(nm, sizeof nm, "%s_relu", p);
        int r = tensor(g, nm, TOSAC_DT_F32, 4, xs);
        node(g, "Relu", nm, &y, 1, r);
        snprintf(nm, sizeof nm, "%s_relu_q", p);
        qparams(g, nm, 0.04f, TOSAC_DT_U8, 0, &ys, &yz);
        int rq = qdq(g, "QuantizeLinear", r, ys, yz, nm, TOSAC_DT_U8, 4, xs);
        snprintf(nm, sizeof nm, "%s_relu_dq", p);
        int rf = qdq(g, "DequantizeLinear", rq, ys, yz, nm, TOSAC_DT_F32, 4, xs);
        snprintf(nm, sizeof nm, "%s_add", p);
        int a = tensor(g, nm, TOSAC_DT_F32, 4, xs), ai[2] = {rf, xf};
        node(g, "Add", nm, ai, 2, a);
        snprintf(nm, sizeof nm, "%s_out", p);
        qparams(g, nm, 0.05f, TOSAC_DT_U8, 128, &as, &az);
        xq = qdq(g, "QuantizeLinear", a, as, az, nm, TOSAC_DT_U8, 4, xs);
        xs_ = as;
        xz = az;
    }
    free(w);
    free(b);
    int out = qdq(g, "DequantizeLinear", xq, xs_, xz, "output", TOSAC_DT_F32, 4, xs);
    if (ir_graph_mark_output(g, out, &err) || onnx_export_file(m, argv[2], &err))
        die(argv[2]);
    printf("%d\n", g->n_nodes);
    ir_model_free(m);
    return 0;
}
