/* See lower_core_testutil.h. */
#include "lower_core_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/compile.h"
#include "tosac/interp.h"
#include "tosac/onnx.h"
#include "tosac/quant.h"
#include "util/json.h"

#define LC_MAX 64

typedef struct lc_scales {
    int t;        /* tensor id (in the build being made) */
    int n;
    float *s;
} lc_scales;

struct lc_b {
    ir_model *m;
    ir_graph *g;
    lc_mode mode;
    bool calib;
    int n_probe;
    int probe_t[LC_MAX];
    double lo[LC_MAX], hi[LC_MAX];   /* calibrated ranges by probe index */
    int n_in;
    tosac_tensor in[16];             /* input samples (views of the test's data) */
    int n_out;
    double out_scale[16];
    lc_scales sc[LC_MAX];
    int n_sc;
};

static tosac_error E;

const lc_mode_case lc_modes[3] = {
    {LC_A8W8, "TOSA-1.0+INT", TOSAC_DT_I8, TOSAC_DT_I32},
    {LC_A16W8, "TOSA-1.0+INT+int16", TOSAC_DT_I16, TOSAC_DT_I48},
    {LC_FLOAT, "TOSA-1.0+FP", TOSAC_DT_F32, TOSAC_DT_F32},
};

void lc_fill(float *v, int n, unsigned seed, float amp)
{
    uint32_t s = seed * 2654435761u + 1;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = amp * ((float)(s >> 8) / 8388608.0f - 1.0f);
    }
}

static void ok(tosac_code rc)
{
    if (rc)
        print_error("tosac error: %s\n", E.msg);
    assert_int_equal(rc, TOSAC_OK);
}

static int id_ok(int id)
{
    if (id < 0)
        print_error("tosac error: %s\n", E.msg);
    assert_true(id >= 0);
    return id;
}

ir_graph *lc_graph(lc_b *b) { return b->g; }
lc_mode lc_mode_of(const lc_b *b) { return b->mode; }

void lc_set_opset(lc_b *b, int64_t opset) { ok(ir_model_set_opset(b->m, "", opset, &E)); }

static bool qdq(const lc_b *b) { return !b->calib && b->mode != LC_FLOAT; }

static void remember_scales(lc_b *b, int t, int n, const float *s)
{
    assert_true(b->n_sc < LC_MAX);
    lc_scales *e = &b->sc[b->n_sc++];
    e->t = t;
    e->n = n;
    e->s = malloc((size_t)n * sizeof *e->s);
    memcpy(e->s, s, (size_t)n * sizeof *e->s);
}

static const lc_scales *scales_of(const lc_b *b, int t)
{
    for (int i = 0; i < b->n_sc; i++)
        if (b->sc[i].t == t)
            return &b->sc[i];
    fail_msg("tensor %d has no quantization scales", t);
    return NULL;
}

static int scalar(lc_b *b, const char *name, tosac_dtype dt, double v)
{
    uint8_t buf[8] = {0};
    if (dt == TOSAC_DT_F32) {
        float f = (float)v;
        memcpy(buf, &f, 4);
    } else if (dt == TOSAC_DT_I8) {
        buf[0] = (uint8_t)(int8_t)v;
    } else {
        int16_t s = (int16_t)v;
        memcpy(buf, &s, 2);
    }
    return id_ok(ir_graph_add_const(b->g, name, dt, 0, NULL, buf, tosac_dtype_size(dt), &E));
}

static int add_node1(lc_b *b, const char *op, const int *ins, int n_in, int out)
{
    char name[300];
    snprintf(name, sizeof name, "%s_%s", op, b->g->tensors[out].name);
    return id_ok(ir_graph_add_node(b->g, op, NULL, name, ins, n_in, &out, 1, &E));
}

/* Q -> DQ on t with per-tensor parameters from [lo, hi]; returns the DQ output. */
static int insert_qdq(lc_b *b, int t, double lo, double hi)
{
    char base[256], name[300];
    snprintf(base, sizeof base, "%s", b->g->tensors[t].name);
    double scale;
    int64_t zp = 0;
    tosac_dtype qt = b->mode == LC_A16W8 ? TOSAC_DT_I16 : TOSAC_DT_I8;
    if (b->mode == LC_A16W8) {
        scale = fmax(fabs(lo), fabs(hi)) / 32767.0;
    } else {
        lo = fmin(lo, 0.0);
        hi = fmax(hi, 0.0);
        scale = (hi - lo) / 255.0;
    }
    if (!(scale > 0))
        scale = 1.0;
    float fs = (float)scale;
    if (b->mode == LC_A8W8) {
        double z = nearbyint(-128.0 - lo / fs);
        zp = (int64_t)(z < -128 ? -128 : z > 127 ? 127 : z);
    }
    snprintf(name, sizeof name, "%s_scale", base);
    int s = scalar(b, name, TOSAC_DT_F32, fs);
    snprintf(name, sizeof name, "%s_zp", base);
    int z = scalar(b, name, qt, (double)zp);
    snprintf(name, sizeof name, "%s_q", base);
    int q = id_ok(ir_graph_add_tensor(b->g, name, qt, -1, NULL, &E));
    snprintf(name, sizeof name, "%s_dq", base);
    int d = id_ok(ir_graph_add_tensor(b->g, name, TOSAC_DT_F32, -1, NULL, &E));
    int ins[3] = {t, s, z};
    add_node1(b, "QuantizeLinear", ins, 3, q);
    ins[0] = q;
    add_node1(b, "DequantizeLinear", ins, 3, d);
    remember_scales(b, d, 1, &fs);
    return d;
}

int lc_input(lc_b *b, const char *name, int rank, const int64_t *shape, const float *data)
{
    int t = lc_input_typed(b, name, TOSAC_DT_F32, rank, shape, data);
    if (!qdq(b))
        return t;
    double lo = 0, hi = 0;
    for (int64_t i = 0; i < tosac_shape_numel(rank, shape); i++) {
        lo = fmin(lo, data[i]);
        hi = fmax(hi, data[i]);
    }
    return insert_qdq(b, t, lo, hi);
}

int lc_input_typed(lc_b *b, const char *name, tosac_dtype dt, int rank, const int64_t *shape,
                   const void *data)
{
    int t = id_ok(ir_graph_add_input(b->g, name, dt, rank, shape, &E));
    assert_true(b->n_in < 16);
    tosac_tensor *v = &b->in[b->n_in++];
    memset(v, 0, sizeof *v);
    v->dtype = dt;
    v->rank = rank;
    memcpy(v->shape, shape, (size_t)rank * sizeof *shape);
    v->data = (void *)data;
    v->nbytes = (size_t)tosac_shape_numel(rank, shape) * tosac_dtype_size(dt);
    return t;
}

int lc_weight(lc_b *b, const char *name, int rank, const int64_t *shape, const float *data,
              int axis)
{
    int64_t n = tosac_shape_numel(rank, shape);
    if (!qdq(b))
        return id_ok(ir_graph_add_const(b->g, name, TOSAC_DT_F32, rank, shape, data,
                                        (size_t)n * sizeof(float), &E));
    int64_t nc = axis >= 0 ? shape[axis] : 1, inner = 1;
    for (int d = axis + 1; axis >= 0 && d < rank; d++)
        inner *= shape[d];
    float *sc = calloc((size_t)nc, sizeof *sc);
    int8_t *q = malloc((size_t)n);
    int8_t *zp = calloc((size_t)nc, 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t ch = axis >= 0 ? (i / inner) % nc : 0;
        sc[ch] = fmaxf(sc[ch], fabsf(data[i]));
    }
    for (int64_t c = 0; c < nc; c++)
        sc[c] = sc[c] > 0 ? sc[c] / 127.0f : 1.0f;
    for (int64_t i = 0; i < n; i++) {
        int64_t ch = axis >= 0 ? (i / inner) % nc : 0;
        double v = nearbyint(data[i] / sc[ch]);
        q[i] = (int8_t)(v < -127 ? -127 : v > 127 ? 127 : v);
    }
    char nm[300];
    int srank = axis >= 0 ? 1 : 0;
    snprintf(nm, sizeof nm, "%s_q", name);
    int wq = id_ok(ir_graph_add_const(b->g, nm, TOSAC_DT_I8, rank, shape, q, (size_t)n, &E));
    snprintf(nm, sizeof nm, "%s_scale", name);
    int ws = id_ok(ir_graph_add_const(b->g, nm, TOSAC_DT_F32, srank, &nc, sc,
                                      (size_t)nc * sizeof *sc, &E));
    snprintf(nm, sizeof nm, "%s_zp", name);
    int wz = id_ok(ir_graph_add_const(b->g, nm, TOSAC_DT_I8, srank, &nc, zp, (size_t)nc, &E));
    int w = id_ok(ir_graph_add_tensor(b->g, name, TOSAC_DT_F32, rank, shape, &E));
    int ins[3] = {wq, ws, wz};
    int k = add_node1(b, "DequantizeLinear", ins, 3, w);
    if (axis >= 0)
        ok(ir_node_set_int(b->g, k, "axis", axis, &E));
    remember_scales(b, w, (int)nc, sc);
    free(sc);
    free(q);
    free(zp);
    return w;
}

int lc_bias(lc_b *b, const char *name, int64_t n, const float *data, int x, int w)
{
    if (!qdq(b))
        return id_ok(ir_graph_add_const(b->g, name, TOSAC_DT_F32, 1, &n, data,
                                        (size_t)n * sizeof(float), &E));
    const lc_scales *sx = scales_of(b, x), *sw = scales_of(b, w);
    float *sc = malloc((size_t)n * sizeof *sc);
    int32_t *q = malloc((size_t)n * sizeof *q), *zp = calloc((size_t)n, sizeof *zp);
    for (int64_t c = 0; c < n; c++) {
        sc[c] = sx->s[0] * sw->s[sw->n > 1 ? c : 0];
        q[c] = (int32_t)nearbyint(data[c] / sc[c]);
    }
    char nm[300];
    snprintf(nm, sizeof nm, "%s_q", name);
    int bq = id_ok(ir_graph_add_const(b->g, nm, TOSAC_DT_I32, 1, &n, q, (size_t)n * 4, &E));
    snprintf(nm, sizeof nm, "%s_scale", name);
    int bs = id_ok(ir_graph_add_const(b->g, nm, TOSAC_DT_F32, 1, &n, sc, (size_t)n * 4, &E));
    snprintf(nm, sizeof nm, "%s_zp", name);
    int bz = id_ok(ir_graph_add_const(b->g, nm, TOSAC_DT_I32, 1, &n, zp, (size_t)n * 4, &E));
    int t = id_ok(ir_graph_add_tensor(b->g, name, TOSAC_DT_F32, 1, &n, &E));
    int ins[3] = {bq, bs, bz};
    ok(ir_node_set_int(b->g, add_node1(b, "DequantizeLinear", ins, 3, t), "axis", 0, &E));
    free(sc);
    free(q);
    free(zp);
    return t;
}

int lc_ints(lc_b *b, const char *name, int n, const int64_t *v)
{
    int64_t len = n;
    return id_ok(ir_graph_add_const(b->g, name, TOSAC_DT_I64, 1, &len, v,
                                    (size_t)n * sizeof *v, &E));
}

int lc_node(lc_b *b, const char *op, const char *name, const int *ins, int n_in, int n_out)
{
    int outs[8];
    assert_true(n_out <= 8);
    for (int i = 0; i < n_out; i++) {
        char nm[300];
        snprintf(nm, sizeof nm, "%s_%d", name, i);
        outs[i] = id_ok(ir_graph_add_tensor(b->g, nm, TOSAC_DT_UNKNOWN, -1, NULL, &E));
    }
    return id_ok(ir_graph_add_node(b->g, op, NULL, name, ins, n_in, outs, n_out, &E));
}

int lc_out(lc_b *b, int node, int i)
{
    assert_true(i < b->g->nodes[node].n_outputs);
    return b->g->nodes[node].outputs[i];
}

int lc_q(lc_b *b, int t)
{
    int k = b->n_probe++;
    assert_true(k < LC_MAX);
    b->probe_t[k] = t;
    if (!qdq(b))
        return t;
    return insert_qdq(b, t, b->lo[k], b->hi[k]);
}

void lc_output(lc_b *b, int t)
{
    int k = b->n_probe;
    int y = lc_q(b, t);
    if (b->calib)
        return; /* calibration marks every probe as an output at the end */
    assert_true(b->n_out < 16);
    b->out_scale[b->n_out++] = qdq(b) ? scales_of(b, y)->s[0] : 0.0;
    (void)k;
    ok(ir_graph_mark_output(b->g, y, &E));
}

void lc_output_plain(lc_b *b, int t)
{
    if (b->calib)
        return; /* not a float probe */
    assert_true(b->n_out < 16);
    b->out_scale[b->n_out++] = 0.0;
    ok(ir_graph_mark_output(b->g, t, &E));
}

static void reset(lc_b *b)
{
    for (int i = 0; i < b->n_sc; i++)
        free(b->sc[i].s);
    b->n_sc = 0;
    b->n_probe = 0;
    b->n_in = 0;
    b->n_out = 0;
}

static ir_model *build(lc_b *b, lc_build_fn fn, const void *arg)
{
    reset(b);
    ir_model *m = ir_model_new();
    ok(ir_model_set_opset(m, "", b->mode == LC_A16W8 ? 21 : 13, &E));
    b->g = m->graph;
    b->m = m;
    fn(b, arg);
    for (int k = 0; b->calib && k < b->n_probe; k++)
        ok(ir_graph_mark_output(b->g, b->probe_t[k], &E));
    ok(ir_model_infer_shapes(m, &E));
    return m;
}

/* The model as a file would hold it: exported and imported (Q/DQ parameters recorded). */
static ir_model *reimport(const ir_model *m)
{
    void *buf = NULL;
    size_t len = 0;
    ir_model *out = NULL;
    ok(onnx_export_bytes(m, &buf, &len, &E));
    ok(onnx_import_bytes(buf, len, NULL, &out, &E));
    free(buf);
    return out;
}

static void calibrate(lc_b *b, lc_build_fn fn, const void *arg)
{
    b->calib = true;
    ir_model *m = build(b, fn, arg);
    int n = b->n_probe;
    tosac_tensor outs[LC_MAX];
    if (n > 0) /* a model with only plain (integer / bool) outputs has nothing to calibrate */
        ok(cpu_run_model(m, b->in, b->n_in, outs, n, &E));
    for (int k = 0; k < n; k++) {
        assert_int_equal(outs[k].dtype, TOSAC_DT_F32);
        b->lo[k] = b->hi[k] = 0;
        for (int64_t i = 0; i < tosac_tensor_numel(&outs[k]); i++) {
            b->lo[k] = fmin(b->lo[k], ((float *)outs[k].data)[i]);
            b->hi[k] = fmax(b->hi[k], ((float *)outs[k].data)[i]);
        }
        tosac_tensor_free(&outs[k]);
    }
    ir_model_free(m);
    b->calib = false;
}

/* Non-f32 tensors must match bytewise; true when y is f32 (the caller compares). */
static bool exact_unless_f32(const tosac_tensor *y, const tosac_tensor *ref, const char *what)
{
    assert_int_equal(y->dtype, ref->dtype);
    assert_int_equal(tosac_tensor_numel(y), tosac_tensor_numel(ref));
    if (y->dtype == TOSAC_DT_F32)
        return true;
    assert_int_equal(y->nbytes, ref->nbytes);
    if (memcmp(y->data, ref->data, y->nbytes) != 0) {
        print_error("%s: %s values differ from the reference\n", what,
                    tosac_dtype_name(y->dtype));
        fail();
    }
    return false;
}

void lc_assert_close(const tosac_tensor *y, const tosac_tensor *ref, double atol,
                     const char *what)
{
    if (!exact_unless_f32(y, ref, what))
        return;
    for (int64_t i = 0; i < tosac_tensor_numel(y); i++) {
        double a = ((const float *)y->data)[i], e = ((const float *)ref->data)[i];
        if (!(fabs(a - e) <= atol + 1e-3 * fabs(e))) {
            print_error("%s[%lld]: %.9g vs reference %.9g (atol %.3g)\n", what, (long long)i,
                        a, e, atol);
            fail();
        }
    }
}

double lc_tol(double qtol, double scale, double ref, double ref_max)
{
    if (scale > 0)
        return qtol * scale + 1e-6 * fabs(ref);
    return 1e-5 * (fabs(ref) + ref_max);
}

void lc_assert_steps(const tosac_tensor *y, const tosac_tensor *ref, double scale, double qtol,
                     const char *what)
{
    if (!exact_unless_f32(y, ref, what))
        return;
    const float *a = y->data, *e = ref->data;
    int64_t n = tosac_tensor_numel(y);
    double emax = 0;
    for (int64_t i = 0; i < n; i++)
        emax = fabs(e[i]) > emax ? fabs(e[i]) : emax;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)a[i] - e[i]) <= lc_tol(qtol, scale, e[i], emax))) {
            if (scale > 0)
                print_error("%s[%lld]: %.9g vs reference %.9g: %.2f steps of %.3g (allowed "
                            "%g)\n", what, (long long)i, a[i], e[i], fabs(a[i] - e[i]) / scale,
                            scale, qtol);
            else
                print_error("%s[%lld]: %.9g vs reference %.9g (fp32, rtol 1e-5)\n", what,
                            (long long)i, a[i], e[i]);
            fail();
        }
}

static bool is_delegate(const ir_node *n)
{
    return !n->dead && strcmp(n->domain, IR_DOMAIN_TOSAC) == 0 &&
           strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0;
}

static int output_pos(ir_graph *g, int t)
{
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t)
            return i;
    ok(ir_graph_mark_output(g, t, &E));
    return g->n_outputs - 1;
}

static tosa_graph *reread(const tosa_graph *tg)
{
    void *buf = NULL;
    size_t len = 0;
    tosa_graph *out = NULL;
    ok(tosa_graph_write(tg, &buf, &len, &E));
    ok(tosa_graph_read(buf, len, &out, &E));
    free(buf);
    return out;
}

void lc_run_program_checked(tosac_program *p, const tosac_tensor *ins, int n_in,
                            tosac_tensor *outs, int n_out, tosa_graph *const *emitted)
{
    ir_graph *g = tosac_program_cpu(p)->graph;
    assert_true(g->n_outputs >= n_out); /* more when an earlier call added the delegates' I/O */
    /* every delegate's inputs and outputs become extra program outputs, so the values the
     * program passed each delegate can be replayed on the interpreter alone */
    for (int ni = 0; ni < g->n_nodes; ni++) {
        if (!is_delegate(&g->nodes[ni]))
            continue;
        for (int i = 0; i < g->nodes[ni].n_inputs; i++)
            output_pos(g, g->nodes[ni].inputs[i]);
        for (int i = 0; i < g->nodes[ni].n_outputs; i++)
            output_pos(g, g->nodes[ni].outputs[i]);
    }
    int total = g->n_outputs;
    tosac_tensor *all = calloc((size_t)total, sizeof *all);
    ok(tosac_program_run(p, ins, n_in, all, total, &E));
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const ir_node *n = &g->nodes[ni];
        if (!is_delegate(n))
            continue;
        int k = (int)ir_node_attr_int(n, "index", -1);
        assert_true(k >= 0 && k < tosac_program_n_delegates(p));
        tosa_graph *tg = emitted && emitted[k] ? NULL : reread(tosac_program_delegate(p, k));
        const tosa_graph *run = tg ? tg : emitted[k];
        tosac_tensor din[64], dout[64];
        assert_true(n->n_inputs <= 64 && n->n_outputs <= 64);
        for (int i = 0; i < n->n_inputs; i++)
            din[i] = all[output_pos(g, n->inputs[i])];
        memset(dout, 0, sizeof dout);
        ok(tosa_interp_run(run, din, n->n_inputs, dout, n->n_outputs, &E));
        for (int i = 0; i < n->n_outputs; i++) {
            const tosac_tensor *want = &all[output_pos(g, n->outputs[i])];
            assert_int_equal(dout[i].dtype, want->dtype);
            assert_int_equal(dout[i].nbytes, want->nbytes);
            assert_memory_equal(dout[i].data, want->data, want->nbytes);
            tosac_tensor_free(&dout[i]);
        }
        tosa_graph_free(tg);
    }
    for (int i = 0; i < total; i++) {
        if (i < n_out)
            outs[i] = all[i];
        else
            tosac_tensor_free(&all[i]);
    }
    free(all);
}

static void read_report(const char *text, lc_result *r)
{
    tosac_json *j = NULL;
    ok(tosac_json_parse(text, strlen(text), &j, &E));
    const tosac_json *nodes = tosac_json_get(j, "nodes");
    size_t used = 0, cused = 0;
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *nd = tosac_json_at(nodes, i);
        const char *pl = tosac_json_string(tosac_json_get(nd, "placement"));
        if (strcmp(pl, "delegate") == 0) {
            r->delegated++;
        } else if (strcmp(pl, "cpu") == 0) {
            r->cpu++;
            int c = snprintf(r->categories + cused, sizeof r->categories - cused, "%s%s: %s",
                             cused ? "; " : "", tosac_json_string(tosac_json_get(nd, "op_type")),
                             tosac_json_string(tosac_json_get(nd, "category")));
            if (c > 0 && cused + (size_t)c < sizeof r->categories)
                cused += (size_t)c;
            /* reasons phrased for the node start with its op type already */
            const char *op = tosac_json_string(tosac_json_get(nd, "op_type"));
            const char *why = tosac_json_string(tosac_json_get(nd, "reason"));
            size_t k = strlen(op);
            bool named = strncmp(why, op, k) == 0 && why[k] == ':';
            int w = snprintf(r->reasons + used, sizeof r->reasons - used, "%s%s%s%s",
                             used ? "; " : "", named ? "" : op, named ? "" : ": ", why);
            if (w > 0 && used + (size_t)w < sizeof r->reasons)
                used += (size_t)w;
        } else {
            r->folded++;
        }
    }
    tosac_json_free(j);
}

static void collect_ops(const tosac_program *p, lc_result *r)
{
    r->n_delegates = tosac_program_n_delegates(p);
    for (int k = 0; k < tosac_program_n_delegates(p); k++) {
        const tosa_block *blk = tosa_graph_main_block(tosac_program_delegate(p, k));
        for (int i = 0; i < blk->n_tensors; i++)
            if (blk->tensors[i].dtype < TOSAC_DT_COUNT)
                r->dtypes[blk->tensors[i].dtype] = 1;
        for (int i = 0; i < blk->n_ops && r->n_ops < LC_MAX_OPS; i++) {
            const tosa_operator *o = &blk->ops[i];
            if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE)
                continue;
            lc_op_info *info = &r->ops[r->n_ops++];
            info->op = o->op;
            info->in_dtype = o->n_inputs ? blk->tensors[o->inputs[0]].dtype : TOSAC_DT_UNKNOWN;
            info->out_dtype = o->n_outputs ? blk->tensors[o->outputs[0]].dtype : TOSAC_DT_UNKNOWN;
            info->acc_type = o->attr.acc_type;
            info->axis = o->attr.axis;
        }
        if (k == 0)
            for (int i = 0; i < blk->n_outputs && i < 16; i++)
                r->boundary[r->n_boundary++] = blk->tensors[blk->outputs[i]].dtype;
    }
}

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? " " : "", s);
}

/* The CPU graph's operators, and what reads the delegates' outputs. */
static void describe_cpu(const tosac_program *p, lc_result *r)
{
    const ir_graph *g = tosac_program_cpu(p)->graph;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const ir_node *n = &g->nodes[ni];
        append(r->cpu_graph, sizeof r->cpu_graph, n->op_type);
        if (!is_delegate(n))
            continue;
        for (int o = 0; o < n->n_outputs; o++) {
            int who[16];
            int cnt = ir_graph_consumers(g, n->outputs[o], who, 16);
            for (int k = 0; k < cnt && k < 16; k++)
                append(r->delegate_readers, sizeof r->delegate_readers,
                       g->nodes[who[k]].op_type);
        }
    }
}

/* Compiles m under spec, runs it and checks it against ref_m's outputs (see the header). */
static void check_compiled(lc_b *b, ir_model *ref_m, ir_model *m, const char *spec,
                           double qtol, lc_result *r)
{
    int n_out = b->n_out;
    tosac_tensor ref[16], out[16];
    ok(cpu_run_model(ref_m, b->in, b->n_in, ref, n_out, &E));
    ir_model_free(ref_m);

    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    char *report = NULL;
    ok(tosac_compile_model(m, &o, &p, &report, &E));
    read_report(report, r);
    free(report);
    collect_ops(p, r);
    describe_cpu(p, r);
    lc_run_program_checked(p, b->in, b->n_in, out, n_out, NULL);
    for (int k = 0; k < n_out; k++) {
        char what[64];
        snprintf(what, sizeof what, "output %d under %s", k, spec);
        lc_assert_steps(&out[k], &ref[k], b->out_scale[k], qtol, what);
        tosac_tensor_free(&out[k]);
        tosac_tensor_free(&ref[k]);
    }
    tosac_program_free(p);
    reset(b);
    free(b);
}

void lc_check(lc_build_fn fn, const void *arg, lc_mode mode, const char *spec, double qtol,
              lc_result *r)
{
    memset(r, 0, sizeof *r);
    tosac_error_clear(&E);
    lc_b *b = calloc(1, sizeof *b);
    b->mode = mode;
    calibrate(b, fn, arg);
    ir_model *built = build(b, fn, arg);
    ir_model *ref_m = reimport(built), *m = reimport(built);
    ir_model_free(built);
    check_compiled(b, ref_m, m, spec, qtol, r);
}

/* The scale of the DequantizeLinear writing graph output k, or 0 (a float or plain output). */
static double output_scale(const ir_graph *g, int k)
{
    int t = g->outputs[k], pn = ir_graph_producer(g, t);
    tosac_tensor s;
    if (pn < 0 || !ir_node_is(&g->nodes[pn], "DequantizeLinear") ||
        !ir_graph_const_value(g, g->nodes[pn].inputs[1], &s) || s.dtype != TOSAC_DT_F32 ||
        tosac_tensor_numel(&s) != 1)
        return 0.0;
    return ((const float *)s.data)[0];
}

void lc_check_quantize(lc_build_fn fn, const void *arg, quant_scheme scheme, const char *spec,
                       double qtol, lc_result *r)
{
    memset(r, 0, sizeof *r);
    tosac_error_clear(&E);
    lc_b *b = calloc(1, sizeof *b);
    b->mode = LC_FLOAT;
    ir_model *built = build(b, fn, arg);
    ir_model *fm = reimport(built);
    ir_model_free(built);
    /* one calibration sample: the inputs the program runs on */
    quant_calib cal = {1, b->n_in, b->in};
    quant_options qo = {.scheme = scheme};
    tosa_spec sp; /* as tosac_compile_quantize: the bodies too under +cf */
    qo.bodies = !tosa_spec_parse(spec, &sp, NULL) && tosa_spec_has_ext(&sp, TOSA_EXT_CONTROLFLOW);
    ok(tosac_quantize(fm, &qo, &cal, &E));
    for (int k = 0; k < b->n_out; k++)
        b->out_scale[k] = output_scale(fm->graph, k);
    ir_model *ref_m = reimport(fm), *m = reimport(fm);
    ir_model_free(fm);
    check_compiled(b, ref_m, m, spec, qtol, r);
}

int lc_count(const lc_result *r, tosa_op op, tosac_dtype out_dt)
{
    int n = 0;
    for (int i = 0; i < r->n_ops; i++)
        n += r->ops[i].op == op && (out_dt == TOSAC_DT_UNKNOWN || r->ops[i].out_dtype == out_dt);
    return n;
}

const lc_op_info *lc_find(const lc_result *r, tosa_op op)
{
    for (int i = 0; i < r->n_ops; i++)
        if (r->ops[i].op == op)
            return &r->ops[i];
    return NULL;
}
