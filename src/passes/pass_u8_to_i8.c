/* uint8 quantized tensors become int8 with zero point zp - 128.
 *
 * TOSA 1.0 has no uint8 tensors (only RESCALE's unsigned flags), and torch's QDQ export uses
 * uint8 activations. The rewrite is exact: Q gives saturate(round(x/s) + zp) in [0, 255], and
 * with zp - 128 in [-128, 127] exactly that value minus 128; DQ gives (q - zp) * s either way.
 *
 * A uint8 tensor with quantization parameters is rewritten when it is produced by a
 * QuantizeLinear, is constant (its data shifts by -128), or is a graph input, and is read only
 * by DequantizeLinear (as the quantized value) or is a graph output. The Q/DQ nodes around it
 * get new int8 zero-point constants. A graph input or output keeps its uint8 type for the
 * user: a CPU-side conversion DQ(scale 1) -> Q(scale 1) moves it between the two forms
 * (exact: every uint8/int8 value is a float). Other uint8 tensors stay as they are (their
 * readers then stay on the CPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

#define ONNX_INT8 3

static bool is_u8_quant(const ir_tensor *t)
{
    return t->dtype == TOSAC_DT_U8 && t->quant && t->quant->block_size == 0 &&
           t->quant->zp_dtype == TOSAC_DT_U8;
}

static bool convertible(const ir_graph *g, int t, int p, int *readers, int n_readers)
{
    bool from_q = p >= 0 && ir_node_is(&g->nodes[p], "QuantizeLinear") &&
                  g->nodes[p].outputs[0] == t;
    if (!from_q && !g->tensors[t].data && !ir_graph_is_input(g, t))
        return false;
    if (p >= 0 && !from_q)
        return false;
    for (int i = 0; i < n_readers; i++) {
        const ir_node *r = &g->nodes[readers[i]];
        if (!ir_node_is(r, "DequantizeLinear") || r->inputs[0] != t)
            return false;
        for (int k = 1; k < r->n_inputs; k++)
            if (r->inputs[k] == t)
                return false;
    }
    return true;
}

/* An int8 zero point constant (scalar, or [n] when per axis) holding zp - 128. */
static int i8_zero_points(ir_graph *g, int t, tosac_error *err)
{
    const ir_quant *q = g->tensors[t].quant;
    int8_t *v = malloc((size_t)q->n);
    if (!v) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int i = 0; i < q->n; i++)
        v[i] = (int8_t)(q->zero_point[i] - 128);
    int k = pass_add_const(g, g->tensors[t].name, "_zp_i8", TOSAC_DT_I8, q->axis >= 0 ? 1 : 0,
                           q->n, v, err);
    free(v);
    return k;
}

/* Tensors (of the first n) whose readers the pass's use snapshot no longer tells. */
typedef struct stale_set {
    unsigned char *mark;
    int n;
} stale_set;

/* The node's zero point slot (2) reads a fresh int8 constant; Q's output_dtype follows. The
 * tensor it read there loses a reader: stale. */
static tosac_code retarget_node(ir_graph *g, int node, int t, stale_set *stale,
                                tosac_error *err)
{
    const ir_node *n = &g->nodes[node];
    if (n->n_inputs > 2 && n->inputs[2] >= 0 && n->inputs[2] < stale->n)
        stale->mark[n->inputs[2]] = 1;
    int zp = i8_zero_points(g, t, err);
    if (zp < 0 || pass_set_input(g, node, 2, zp, err))
        return err->code;
    if (ir_node_attr(&g->nodes[node], "output_dtype"))
        return ir_node_set_int(g, node, "output_dtype", ONNX_INT8, err);
    return TOSAC_OK;
}

/* The tensor itself: type, parameters, and data for a constant. */
static tosac_code retype(ir_graph *g, int t, tosac_error *err)
{
    ir_tensor *it = &g->tensors[t];
    ir_quant q = *it->quant;
    int64_t *zp = malloc((size_t)q.n * sizeof *zp);
    if (!zp)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < q.n; i++)
        zp[i] = q.zero_point[i] - 128;
    tosac_code rc = ir_tensor_set_quant(g, t, q.scale, zp, q.n, q.axis, TOSAC_DT_I8, err);
    free(zp);
    if (rc)
        return rc;
    it = &g->tensors[t];
    it->dtype = TOSAC_DT_I8;
    if (it->data) /* same bytes, one shift: u8 v is i8 v - 128 */
        for (size_t i = 0; i < it->nbytes; i++)
            ((uint8_t *)it->data)[i] ^= 0x80;
    return TOSAC_OK;
}

/* from -DQ(scale 1, zp from_zp)-> f32 -Q(scale 1, zp to_zp)-> to: an exact type change; both
 * nodes are named origin, the Q/DQ of the model they sit next to (passes.h). */
static tosac_code convert_node_pair(ir_graph *g, int from, int to, tosac_dtype from_dt,
                                    int64_t from_zp, tosac_dtype to_dt, int64_t to_zp,
                                    const char *origin, tosac_error *err)
{
    float one = 1.0f;
    uint8_t fz = (uint8_t)from_zp, tz = (uint8_t)to_zp; /* the low byte: u8 or i8 */
    const char *base = g->tensors[to].name;
    int s = pass_add_const(g, base, "_unit_scale", TOSAC_DT_F32, 0, 1, &one, err);
    int z1 = s < 0 ? -1 : pass_add_const(g, base, "_from_zp", from_dt, 0, 1, &fz, err);
    int z2 = z1 < 0 ? -1 : pass_add_const(g, base, "_to_zp", to_dt, 0, 1, &tz, err);
    int f = z2 < 0 ? -1 : pass_add_like(g, to, "_f", TOSAC_DT_F32, err);
    if (f < 0)
        return err->code;
    int dq_in[3] = {from, s, z1}, q_in[3] = {f, s, z2};
    if (ir_graph_add_node(g, "DequantizeLinear", NULL, origin, dq_in, 3, &f, 1, err) < 0 ||
        ir_graph_add_node(g, "QuantizeLinear", NULL, origin, q_in, 3, &to, 1, err) < 0)
        return err->code;
    return TOSAC_OK;
}

/* An int8 twin of boundary tensor t (same parameters, then retyped like an inner tensor). */
static int int8_twin(ir_graph *g, int t, tosac_error *err)
{
    int t8 = pass_add_like(g, t, "_i8", TOSAC_DT_U8, err);
    if (t8 < 0)
        return -1;
    const ir_quant *q = g->tensors[t].quant;
    if (ir_tensor_set_quant(g, t8, q->scale, q->zero_point, q->n, q->axis, q->zp_dtype, err) ||
        retype(g, t8, err))
        return -1;
    return t8;
}

/* Points graph inputs (or outputs) that replace_uses moved to t8 back at t. */
static void keep_boundary(int *ids, int n, int t8, int t)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == t8)
            ids[i] = t;
}

/* A graph input: the user's uint8 tensor stays; its readers read an int8 twin. */
static tosac_code convert_input(ir_graph *g, int t, const char *origin, tosac_error *err)
{
    int t8 = int8_twin(g, t, err);
    if (t8 < 0)
        return err->code;
    ir_graph_replace_uses(g, t, t8);
    keep_boundary(g->inputs, g->n_inputs, t8, t);
    return convert_node_pair(g, t, t8, TOSAC_DT_U8, 128, TOSAC_DT_I8, 0, origin, err);
}

/* A graph output: the producer writes an int8 twin; the uint8 output is made from it. */
static tosac_code convert_output(ir_graph *g, int t, int producer, tosac_error *err)
{
    int t8 = int8_twin(g, t, err);
    if (t8 < 0)
        return err->code;
    ir_graph_replace_uses(g, t, t8); /* readers (DQ) move to the twin */
    keep_boundary(g->outputs, g->n_outputs, t8, t);
    g->nodes[producer].outputs[0] = t8;
    char origin[256];
    snprintf(origin, sizeof origin, "%s", g->nodes[producer].name);
    return convert_node_pair(g, t8, t, TOSAC_DT_I8, -128, TOSAC_DT_U8, 0, origin, err);
}

static tosac_code convert(ir_graph *g, int t, int p, int *readers, int n_readers,
                          stale_set *stale, tosac_error *err)
{
    bool in = ir_graph_is_input(g, t), out = ir_graph_is_output(g, t);
    if ((in && out) || (out && p < 0))
        return TOSAC_OK; /* passes straight through, or a constant output: nothing to do */
    for (int i = 0; i < n_readers; i++)
        if (retarget_node(g, readers[i], t, stale, err))
            return err->code;
    if (p >= 0 && retarget_node(g, p, t, stale, err))
        return err->code;
    if (in) {
        char origin[256];
        snprintf(origin, sizeof origin, "%s", n_readers > 0 ? g->nodes[readers[0]].name : "");
        return convert_input(g, t, origin, err);
    }
    if (out)
        return convert_output(g, t, p, err);
    return retype(g, t, err);
}

tosac_code pass_u8_to_i8(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    int n_tensors = g->n_tensors; /* the tensors the pass adds are int8 already */
    /* Producers and readers from one snapshot (asking the graph per tensor was quadratic).
     * What the pass changes for tensors it has not reached yet: a retargeted node stops
     * reading its old zero point (marked stale: asked of the graph itself); everything else it
     * rewires is the tensor at hand or a tensor it adds. */
    ir_uses u;
    tosac_code rc = ir_uses_build(g, &u, err);
    if (rc)
        return rc;
    stale_set stale = {calloc((size_t)n_tensors + 1, 1), n_tensors};
    if (!stale.mark) {
        ir_uses_free(&u);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int t = 0; t < n_tensors && !rc; t++) {
        if (!is_u8_quant(&g->tensors[t]) || g->tensors[t].outer_id >= 0)
            continue;
        bool live = stale.mark[t];
        int n = live ? ir_graph_consumers(g, t, NULL, 0) : ir_uses_consumers(&u, t, NULL, 0);
        int p = live ? ir_graph_producer(g, t) : ir_uses_producer(&u, t);
        int *readers = malloc(((size_t)n + 1) * sizeof *readers);
        if (!readers) {
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            break;
        }
        if (live)
            ir_graph_consumers(g, t, readers, n);
        else
            ir_uses_consumers(&u, t, readers, n);
        if (convertible(g, t, p, readers, n))
            rc = convert(g, t, p, readers, n, &stale, err);
        free(readers);
    }
    free(stale.mark);
    ir_uses_free(&u);
    return rc;
}
