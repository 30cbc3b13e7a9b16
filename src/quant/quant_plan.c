/* The quantization plan: which tensors get a Q/DQ pair, which share one range, and the
 * parameters each gets. The rules (ExecuTorch's Arm quantizer annotates the same way):
 *   - graph inputs and outputs, and the float inputs and outputs of quantized operators,
 *     are activations (Q -> DQ, per tensor);
 *   - a Conv/Gemm/MatMul/Add output read only by a Relu or Clip is not quantized: the
 *     activation is fused and its output carries the range (clamping happens in integers);
 *   - Concat inputs and output share one range; the shape/layout operators (Reshape, Flatten,
 *     Transpose, Squeeze, Unsqueeze, Slice, Split, Gather), the pools and Resize pass values
 *     through, so their output shares the input's range (integer lowering needs no rescale);
 *   - Pad shares its input's range with its output and its constant value, Where its two
 *     data inputs with its output (a constant fill included), Gather on a constant table
 *     (an embedding) quantizes the table per tensor at the output's parameters; Max/Min and
 *     PRelu quantize a constant operand (slope) per tensor at its own range;
 *   - Div, BatchNormalization (not after a Conv), Layer/InstanceNormalization, Clip with
 *     runtime bounds, PRelu with a per-channel slope were decomposed into the operators
 *     above first (quant_decompose.c);
 *   - nodes named by --exclude (by name or operator type) stay float like the operators
 *     the plan does not quantize, their weights included;
 *   - other operators stay float: they read the DQ outputs and their outputs are quantized
 *     only when a quantized operator or the graph output reads them; a graph input read only
 *     by kept-float nodes, and a graph output a kept-float node writes, stay float too;
 *   - nodes named by --int16 (or picked by --mixed) in an a8w8 plan make every activation
 *     they read or write int16, with its whole shared-range group; an int8 operator reading
 *     such a tensor reads it through a requantization to int8 (quant_insert.c).
 * An activation whose range is one value (or none) is named in a warning: its scale does not
 * come from the data (quant_act_params). */
#include "quant/quant_internal.h"
#include "onnxop/onnxop_traits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The operator classes and input slots come from the traits table (src/onnxop/onnxop_traits.c):
 * qclass COMPUTE / SHARED / OWN, q_data (activation slots; the shared slots of a SHARED
 * operator), q_const (constant operands quantized per tensor). */
static const onnxop_traits *traits(const ir_node *n) { return onnxop_traits_of(n); }

static bool is_shared(const ir_node *n) { return onnxop_qclass_of(n) == ONNXOP_Q_SHARED; }

bool quant_op_is_quantized(const ir_node *n)
{
    return onnxop_qclass_of(n) != ONNXOP_Q_NONE;
}

bool quant_plan_quantizes(const quant_plan *p, const ir_graph *g, int i)
{
    return !g->nodes[i].dead && quant_op_is_quantized(&g->nodes[i]) &&
           !(p->keep_float && i < p->n_nodes && p->keep_float[i]);
}

/* Input slots of n that carry activations (data), the rest being parameters (shapes, axes,
 * indices, clip bounds, roi/scales): everything for the arithmetic ops and Concat, the first
 * input otherwise. For a SHARED operator these are also the slots sharing the output's range
 * (the two sets were always equal). */
static bool act_slot(const ir_node *n, int k)
{
    const onnxop_traits *t = traits(n);
    return t ? onnxop_slot_in(t->q_data, k) : k == 0;
}

bool quant_weight_slot(const ir_node *n, int k, int rank, int *axis)
{
    if (ir_node_is(n, "Conv") && k == 1 && rank >= 1) {
        *axis = 0;
        return true;
    }
    /* ConvTranspose weights are [C_in, C_out / group, k...]: output channels on axis 1 */
    if (ir_node_is(n, "ConvTranspose") && k == 1 && rank >= 2) {
        *axis = 1;
        return true;
    }
    if (ir_node_is(n, "Gemm") && k == 1 && rank == 2) {
        *axis = ir_node_attr_int(n, "transB", 0) ? 0 : 1;
        return true;
    }
    if (ir_node_is(n, "MatMul") && k == 1 && rank >= 1) {
        *axis = rank - 1; /* output features: the last axis of B (rank 1: per tensor) */
        return true;
    }
    return false;
}

bool quant_bias_slot(const ir_node *n, int k)
{
    if (ir_node_is(n, "Conv") || ir_node_is(n, "ConvTranspose"))
        return k == 2;
    /* Gemm's C is a bias only when it is added unscaled to alpha = 1 products */
    return ir_node_is(n, "Gemm") && k == 2 && ir_node_attr_float(n, "alpha", 1.0f) == 1.0f &&
           ir_node_attr_float(n, "beta", 1.0f) == 1.0f;
}

bool quant_const_act_slot(const ir_node *n, int k)
{
    const onnxop_traits *t = traits(n);
    return t && onnxop_slot_in(t->q_const, k);
}

/* The constant slots of a pass-through (SHARED) operator take the output's parameters. */
bool quant_const_shares_output(const ir_node *n, int k)
{
    return is_shared(n) && quant_const_act_slot(n, k);
}

static int find(int *parent, int t)
{
    while (parent[t] != t) {
        parent[t] = parent[parent[t]];
        t = parent[t];
    }
    return t;
}

int quant_plan_group(const quant_plan *p, int t)
{
    while (p->group[t] != t)
        t = p->group[t];
    return t;
}

quant_scheme quant_plan_node_scheme(const quant_plan *p, quant_scheme s, int i)
{
    return p->int16 && i >= 0 && i < p->n_nodes && p->int16[i] ? QUANT_A16W8 : s;
}

/* The groups an --int16 node reads or writes become int16. */
static void mark_wide(const ir_graph *g, quant_plan *p, bool *wide_root)
{
    for (int i = 0; i < p->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!p->int16[i] || !quant_plan_quantizes(p, g, i))
            continue;
        for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
            int t = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
            if (t >= 0 && p->role[t] == QROLE_ACT)
                wide_root[find(p->group, t)] = true;
        }
        /* a fused Conv -> Relu: the Relu's output is what the int16 Conv writes */
        for (int o = 0; o < n->n_outputs; o++) {
            int t = n->outputs[o], c;
            if (t >= 0 && p->role[t] == QROLE_FUSED && ir_graph_consumers(g, t, &c, 1) == 1 &&
                g->nodes[c].n_outputs > 0 && g->nodes[c].outputs[0] >= 0 &&
                p->role[g->nodes[c].outputs[0]] == QROLE_ACT)
                wide_root[find(p->group, g->nodes[c].outputs[0])] = true;
        }
    }
}

static void unite(int *parent, int a, int b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a != b)
        parent[b < a ? a : b] = b < a ? b : a;
}

static bool is_const(const ir_graph *g, int t)
{
    tosac_tensor v;
    return ir_graph_const_value(g, t, &v);
}

/* A float activation: produced (or fed) as float32 on the calibration runs, not constant. */
static bool is_act(const ir_graph *g, const quant_seen *seen, int t)
{
    return t >= 0 && seen[t].is_float && !is_const(g, t);
}

/* Marks outputs of fusable producers read only by a Relu/Clip. */
static void mark_fused(const ir_graph *g, const quant_seen *seen, const quant_plan *p,
                       quant_role *role)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!quant_plan_quantizes(p, g, i) || !onnxop_has(n, ONNXOP_FUSES_ACT) || n->n_outputs != 1)
            continue;
        int t = n->outputs[0], c;
        if (!is_act(g, seen, t) || ir_graph_is_output(g, t) ||
            ir_graph_consumers(g, t, &c, 1) != 1)
            continue;
        const ir_node *r = &g->nodes[c];
        if (onnxop_has(r, ONNXOP_FUSABLE_ACT) && r->inputs[0] == t &&
            quant_plan_quantizes(p, g, c))
            role[t] = QROLE_FUSED;
    }
}

static void mark_act(quant_role *role, int t)
{
    if (role[t] == QROLE_NONE)
        role[t] = QROLE_ACT;
}

/* True when some node reads t and every node reading t (an If/Loop/Scan reading it from a
 * body included: ir_graph_consumers) is kept float. */
static bool read_only_by_kept_float(const ir_graph *g, const quant_plan *p, int t)
{
    int n = ir_graph_consumers(g, t, NULL, 0);
    int *c = n > 0 ? malloc((size_t)n * sizeof *c) : NULL;
    if (!c)
        return false;
    n = ir_graph_consumers(g, t, c, n);
    bool all = true;
    for (int k = 0; k < n; k++)
        all &= c[k] >= 0 && c[k] < p->n_nodes && p->keep_float[c[k]];
    free(c);
    return all;
}

static bool made_by_kept_float(const ir_graph *g, const quant_plan *p, int t)
{
    int i = ir_graph_producer(g, t);
    return i >= 0 && i < p->n_nodes && p->keep_float[i];
}

/* The edges of an If/Loop whose bodies are quantized (quant_body.c) are activations, so
 * COND_IF / WHILE_LOOP read and write integers: the outer values its bodies capture, a
 * Loop's carried values (its initial value sharing the final one's range: every iteration's
 * values were merged into that one) and its outputs. */
static void mark_control(const ir_graph *g, const quant_seen *seen, quant_plan *p, int i)
{
    const ir_node *n = &g->nodes[i];
    bool loop = ir_node_is(n, "Loop");
    if (!(loop || ir_node_is(n, "If")) || (p->keep_float && i < p->n_nodes && p->keep_float[i]))
        return;
    for (int o = 0; o < n->n_outputs; o++)
        if (is_act(g, seen, n->outputs[o]))
            mark_act(p->role, n->outputs[o]);
    for (int k = 2; loop && k < n->n_inputs && k - 2 < n->n_outputs; k++)
        if (is_act(g, seen, n->inputs[k]) && n->outputs[k - 2] >= 0 &&
            p->role[n->outputs[k - 2]] == QROLE_ACT) {
            mark_act(p->role, n->inputs[k]);
            unite(p->group, n->outputs[k - 2], n->inputs[k]);
        }
    const ir_graph *sub;
    for (int b = 0; (sub = ir_node_subgraph(n, b)); b++)
        for (int t = 0; t < sub->n_tensors; t++) {
            int o = sub->tensors[t].outer_id;
            if (o >= 0 && o < g->n_tensors && is_act(g, seen, o))
                mark_act(p->role, o);
        }
}

static void assign(const ir_graph *g, const quant_seen *seen, quant_plan *p)
{
    for (int i = 0; p->control && i < g->n_nodes; i++)
        if (!g->nodes[i].dead)
            mark_control(g, seen, p, i);
    /* graph inputs and outputs are quantized, but where only float nodes touch them */
    for (int i = 0; i < g->n_inputs; i++)
        if (is_act(g, seen, g->inputs[i]) && !read_only_by_kept_float(g, p, g->inputs[i]))
            mark_act(p->role, g->inputs[i]);
    for (int i = 0; i < g->n_outputs; i++)
        if (is_act(g, seen, g->outputs[i]) && !made_by_kept_float(g, p, g->outputs[i]))
            mark_act(p->role, g->outputs[i]);
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!quant_plan_quantizes(p, g, i))
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (act_slot(n, k) && is_act(g, seen, n->inputs[k]))
                mark_act(p->role, n->inputs[k]);
        for (int o = 0; o < n->n_outputs; o++)
            if (is_act(g, seen, n->outputs[o]))
                mark_act(p->role, n->outputs[o]);
        if (!is_shared(n) || n->n_outputs < 1 || n->outputs[0] < 0 ||
            p->role[n->outputs[0]] != QROLE_ACT)
            continue;
        int y = n->outputs[0];
        for (int o = 1; o < n->n_outputs; o++)
            if (n->outputs[o] >= 0 && p->role[n->outputs[o]] == QROLE_ACT)
                unite(p->group, y, n->outputs[o]);
        for (int k = 0; k < n->n_inputs; k++)
            if (act_slot(n, k) && n->inputs[k] >= 0 && p->role[n->inputs[k]] == QROLE_ACT)
                unite(p->group, y, n->inputs[k]);
    }
}

/* Constants quantized at their output's parameters (a Pad value, a Where fill, a Gather
 * table) widen the output's range, so they are represented, not saturated. */
static void merge_shared_consts(const ir_graph *g, quant_plan *p, quant_range *ranges)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!quant_plan_quantizes(p, g, i) || !is_shared(n) || ir_node_is(n, "Concat") ||
            n->n_outputs < 1 ||
            n->outputs[0] < 0 || p->role[n->outputs[0]] != QROLE_ACT)
            continue;
        for (int k = 0; k < n->n_inputs; k++) {
            tosac_tensor v;
            if (quant_const_shares_output(n, k) && quant_const_f32(g, n->inputs[k], &v))
                quant_range_observe(&ranges[find(p->group, n->outputs[0])], v.data,
                                    tosac_tensor_numel(&v));
        }
    }
}

/* An activation's output range covers the image of its input's representable range
 * (quant_image.c): nodes in graph order, so a chain of them widens in turn. */
static void widen_images(const ir_graph *g, quant_scheme s, quant_plan *p,
                         const bool *wide_root, quant_range *ranges)
{
    for (int i = 0; i < g->n_nodes; i++) {
        int x, y = g->nodes[i].n_outputs > 0 ? g->nodes[i].outputs[0] : -1;
        if (!quant_plan_quantizes(p, g, i) || !quant_image_of(g, i, &x) || y < 0 ||
            p->role[y] != QROLE_ACT || p->role[x] != QROLE_ACT)
            continue;
        int rx = find(p->group, x);
        quant_qparams q;
        if (quant_act_params(s == QUANT_A16W8 || wide_root[rx] ? QUANT_A16W8 : s, &ranges[rx],
                             &q))
            continue; /* a degenerate input range: no data to derive from */
        double qmin = q.dtype == TOSAC_DT_I16 ? -32768.0 : -128.0;
        double qmax = q.dtype == TOSAC_DT_I16 ? 32767.0 : 127.0;
        quant_range img;
        quant_image_range(g, i, (qmin - (double)q.zero_point) * q.scale,
                          (qmax - (double)q.zero_point) * q.scale, &img);
        quant_range_merge(&ranges[find(p->group, y)], &img);
    }
}

tosac_code quant_plan_build(const ir_graph *g, quant_scheme s, const quant_seen *seen,
                            const bool *keep_float, const bool *int16, bool control,
                            quant_plan *p, tosac_error *err)
{
    int nt = g->n_tensors;
    memset(p, 0, sizeof *p);
    p->control = control;
    p->n_tensors = nt;
    p->n_nodes = g->n_nodes;
    p->role = calloc((size_t)nt + 1, sizeof *p->role);
    p->group = malloc(((size_t)nt + 1) * sizeof *p->group);
    p->qp = calloc((size_t)nt + 1, sizeof *p->qp);
    p->keep_float = calloc((size_t)g->n_nodes + 1, sizeof *p->keep_float);
    p->int16 = calloc((size_t)g->n_nodes + 1, sizeof *p->int16);
    p->wide = calloc((size_t)nt + 1, sizeof *p->wide);
    p->narrow = calloc((size_t)nt + 1, sizeof *p->narrow);
    quant_range *ranges = calloc((size_t)nt + 1, sizeof *ranges);
    if (!p->role || !p->group || !p->qp || !ranges || !p->keep_float || !p->int16 || !p->wide ||
        !p->narrow) {
        free(ranges);
        quant_plan_free(p);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int t = 0; t < nt; t++) {
        p->group[t] = t;
        quant_range_init(&ranges[t]);
    }
    if (keep_float)
        memcpy(p->keep_float, keep_float, (size_t)g->n_nodes * sizeof *keep_float);
    if (int16 && s == QUANT_A8W8)
        memcpy(p->int16, int16, (size_t)g->n_nodes * sizeof *int16);
    mark_fused(g, seen, p, p->role);
    assign(g, seen, p);
    bool *wide_root = calloc((size_t)nt + 1, sizeof *wide_root);
    if (!wide_root) {
        free(ranges);
        quant_plan_free(p);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    mark_wide(g, p, wide_root);
    /* a group's range is the union of its members' ranges */
    for (int t = 0; t < nt; t++)
        if (p->role[t] == QROLE_ACT)
            quant_range_merge(&ranges[find(p->group, t)], &seen[t].range);
    merge_shared_consts(g, p, ranges);
    widen_images(g, s, p, wide_root, ranges);
    quant_names flat = {0};
    for (int t = 0; t < nt; t++) {
        if (p->role[t] != QROLE_ACT)
            continue;
        const quant_range *r = &ranges[find(p->group, t)];
        p->wide[t] = s == QUANT_A16W8 || wide_root[find(p->group, t)];
        bool unit = quant_act_params(p->wide[t] ? QUANT_A16W8 : s, r, &p->qp[t]);
        if (p->wide[t] && s == QUANT_A8W8)
            quant_act_params(QUANT_A8W8, r, &p->narrow[t]);
        char detail[96];
        if (r->seen && r->lo == r->hi)
            snprintf(detail, sizeof detail, "always %g, scale %g%s", (double)r->lo,
                     (double)p->qp[t].scale, unit ? " of [-1, 1]" : "");
        else if (unit)
            snprintf(detail, sizeof detail, "%s, scale %g of [-1, 1]",
                     r->seen ? "range too narrow" : "no finite value", (double)p->qp[t].scale);
        else
            continue;
        quant_names_add(&flat, g->tensors[t].name, detail);
    }
    quant_names_warn(&flat, "a degenerate range (one value, or none, on every sample)",
                     "; their scales do not come from the data (calibrate with varied samples)");
    free(wide_root);
    free(ranges);
    return TOSAC_OK;
}

void quant_plan_free(quant_plan *p)
{
    free(p->role);
    free(p->group);
    free(p->qp);
    free(p->keep_float);
    free(p->int16);
    free(p->wide);
    free(p->narrow);
    free(p->outside);
    memset(p, 0, sizeof *p);
}
