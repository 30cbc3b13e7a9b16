/* Single-operator model cases for the lowering tests (see lower_act_testutil.h). */
#include "lower_act_testutil.h"
#include "lower_core_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/compile.h"
#include "tosac/interp.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

static tosac_error e0(void)
{
    tosac_error err;
    tosac_error_clear(&err);
    return err;
}

static int scalar(ir_graph *g, const char *name, tosac_dtype dt, double v)
{
    tosac_error err = e0();
    uint8_t buf[8] = {0};
    if (dt == TOSAC_DT_F32) {
        float f = (float)v;
        memcpy(buf, &f, 4);
    } else if (dt == TOSAC_DT_I8) {
        buf[0] = (uint8_t)(int8_t)v;
    } else {
        int16_t h = (int16_t)v;
        memcpy(buf, &h, 2);
    }
    int t = ir_graph_add_const(g, name, dt, 0, NULL, buf, tosac_dtype_size(dt), &err);
    assert_true(t >= 0);
    return t;
}

static int tensor(ir_graph *g, const char *name, tosac_dtype dt, int rank, const int64_t *shape)
{
    tosac_error err = e0();
    int t = ir_graph_add_tensor(g, name, dt, rank, shape, &err);
    assert_true(t >= 0);
    return t;
}

static void node(ir_graph *g, const char *op, const int *ins, int n_in, int out)
{
    tosac_error err = e0();
    assert_true(ir_graph_add_node(g, op, NULL, NULL, ins, n_in, &out, 1, &err) >= 0);
}

/* in -Q-> q -DQ-> returned float tensor */
static int qdq(ir_graph *g, const char *name, int in, int rank, const int64_t *shape,
               tosac_dtype dt, double scale, int64_t zp)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s_scale", name);
    int s = scalar(g, buf, TOSAC_DT_F32, scale);
    snprintf(buf, sizeof buf, "%s_zp", name);
    int z = scalar(g, buf, dt, (double)zp);
    snprintf(buf, sizeof buf, "%s_q", name);
    int q = tensor(g, buf, dt, rank, shape);
    snprintf(buf, sizeof buf, "%s_dq", name);
    int f = tensor(g, buf, TOSAC_DT_F32, rank, shape);
    int qi[3] = {in, s, z}, di[3] = {q, s, z};
    node(g, "QuantizeLinear", qi, 3, q);
    node(g, "DequantizeLinear", di, 3, f);
    return f;
}

/* A constant operand: float, or int8 through DequantizeLinear. */
static int extra_input(ir_graph *g, const lat_const *k, bool quant)
{
    tosac_error err = e0();
    int64_t n = tosac_shape_numel(k->rank, k->shape);
    if (!quant || k->qscale <= 0) {
        int t = ir_graph_add_const(g, k->name, TOSAC_DT_F32, k->rank, k->shape, k->data,
                                   (size_t)n * sizeof(float), &err);
        assert_true(t >= 0);
        return t;
    }
    int8_t *q = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++)
        q[i] = (int8_t)fmax(-128, fmin(127, nearbyint(k->data[i] / k->qscale)));
    char buf[64];
    snprintf(buf, sizeof buf, "%s_q", k->name);
    int c = ir_graph_add_const(g, buf, TOSAC_DT_I8, k->rank, k->shape, q, (size_t)n, &err);
    free(q);
    assert_true(c >= 0);
    snprintf(buf, sizeof buf, "%s_scale", k->name);
    int s = scalar(g, buf, TOSAC_DT_F32, k->qscale);
    snprintf(buf, sizeof buf, "%s_zp", k->name);
    int z = scalar(g, buf, TOSAC_DT_I8, 0);
    int f = tensor(g, k->name, TOSAC_DT_F32, k->rank, k->shape);
    int di[3] = {c, s, z};
    node(g, "DequantizeLinear", di, 3, f);
    return f;
}

ir_model *lat_model(const lat_op *op, const lat_quant *q)
{
    tosac_error err = e0();
    ir_model *m = ir_model_new();
    assert_non_null(m);
    assert_int_equal(ir_model_set_opset(m, "", op->opset ? op->opset : 21, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    bool quant = q && q->dt != TOSAC_DT_F32;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, op->rank, op->shape, &err);
    assert_true(x >= 0);
    int in = quant ? qdq(g, "x", x, op->rank, op->shape, q->dt, q->sx, q->zx) : x;
    int ins[5] = {in, -1, -1, -1, -1};
    for (int i = 0; i < op->n_extra; i++)
        ins[1 + i] = extra_input(g, &op->extra[i], quant);
    int y = tensor(g, quant ? "y_f" : "y", TOSAC_DT_F32, op->rank, op->shape);
    int k = ir_graph_add_node(g, op->op_type, NULL, "op", ins, 1 + op->n_extra, &y, 1, &err);
    assert_true(k >= 0);
    if (op->attrs)
        op->attrs(g, k);
    if (quant)
        y = qdq(g, "y", y, op->rank, op->shape, q->dt, q->sy, q->zy);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(onnx_record_quant(g, &err), TOSAC_OK);
    return m;
}

static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static void list_ops(const tosa_graph *tg, char *buf, size_t len)
{
    const tosa_block *b = tosa_graph_main_block(tg);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < b->n_ops && used < len; i++) {
        tosa_op o = b->ops[i].op;
        if (o == TOSA_OP_CONST || o == TOSA_OP_CONST_SHAPE)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", tosa_op_name(o));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static float quantize(float v, const lat_quant *q)
{
    int64_t lo = q->dt == TOSAC_DT_I8 ? -128 : -32768, hi = -lo - 1;
    double r = nearbyint((double)v / q->sx) + (double)q->zx;
    return (float)fmax((double)lo, fmin((double)hi, r));
}

/* Delegate 0 alone on the interpreter: its result must be the program's. */
static void check_delegate(const lat_result *r, const lat_op *op, const lat_quant *q,
                           const float *x, const float *prog_y, int64_t n)
{
    const tosa_block *b = tosa_graph_main_block(r->tg);
    assert_int_equal(b->n_inputs, 1);
    assert_int_equal(b->n_outputs, 1);
    bool quant = q && q->dt != TOSAC_DT_F32;
    tosac_error err = e0();
    tosac_tensor in, out;
    memset(&out, 0, sizeof out);
    assert_int_equal(tosac_tensor_alloc(&in, quant ? q->dt : TOSAC_DT_F32, op->rank, op->shape,
                                        &err), TOSAC_OK);
    for (int64_t i = 0; i < n; i++) {
        if (!quant)
            ((float *)in.data)[i] = x[i];
        else if (q->dt == TOSAC_DT_I8)
            ((int8_t *)in.data)[i] = (int8_t)quantize(x[i], q);
        else
            ((int16_t *)in.data)[i] = (int16_t)quantize(x[i], q);
    }
    tosac_code rc = tosa_interp_run(r->tg, &in, 1, &out, 1, &err);
    if (rc)
        fail_msg("interpreter: %s", err.msg);
    for (int64_t i = 0; i < n; i++) {
        float v;
        if (!quant)
            v = ((float *)out.data)[i];
        else if (q->dt == TOSAC_DT_I8)
            v = (float)(((int8_t *)out.data)[i] - q->zy) * q->sy;
        else
            v = (float)(((int16_t *)out.data)[i] - q->zy) * q->sy;
        if (!(v == prog_y[i] || (isnan(v) && isnan(prog_y[i]))))
            fail_msg("element %lld: interpreter %.9g, program %.9g", (long long)i, v, prog_y[i]);
    }
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

void lat_run(const lat_op *op, const lat_quant *q, const char *spec, const float *x, double qtol,
             lat_result *r)
{
    memset(r, 0, sizeof *r);
    tosac_error err = e0();
    int64_t n = tosac_shape_numel(op->rank, op->shape);
    tosac_tensor in;
    memset(&in, 0, sizeof in);
    in.dtype = TOSAC_DT_F32;
    in.rank = op->rank;
    memcpy(in.shape, op->shape, sizeof op->shape);
    in.data = (void *)x;
    in.nbytes = (size_t)n * sizeof(float);
    /* the float reference */
    ir_model *fm = lat_model(op, NULL);
    tosac_tensor ref, got;
    tosac_code rc = cpu_run_model(fm, &in, 1, &ref, 1, &err);
    if (rc)
        fail_msg("float reference: %s", err.msg);
    ir_model_free(fm);
    /* compile and run */
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    char *report = NULL;
    rc = tosac_compile_model(lat_model(op, q), &o, &p, &report, &err);
    if (rc)
        fail_msg("compile under %s: %s", spec, err.msg);
    r->delegated = count_str(report, "\"placement\": \"delegate\"");
    free(report);
    r->prog_ = p;
    if (tosac_program_n_delegates(p) > 0) {
        r->tg = tosac_program_delegate(p, 0);
        list_ops(r->tg, r->ops, sizeof r->ops);
    }
    rc = tosac_program_run(p, &in, 1, &got, 1, &err);
    if (rc)
        fail_msg("run: %s", err.msg);
    assert_int_equal(tosac_tensor_numel(&got), n);
    double sy = q && q->dt != TOSAC_DT_F32 ? q->sy : 0.0;
    const float *g = got.data, *e = ref.data;
    double emax = 0;
    for (int64_t i = 0; i < n; i++)
        emax = fabs(e[i]) > emax ? fabs(e[i]) : emax;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)g[i] - e[i]);
        if (d > r->max_err)
            r->max_err = d;
        if (!(d <= lc_tol(qtol, sy, e[i], emax)))
            fail_msg("%s under %s, element %lld (x %g): got %.9g, float reference %.9g",
                     op->op_type, spec, (long long)i, x[i], g[i], e[i]);
    }
    if (r->tg)
        check_delegate(r, op, q, x, g, n);
    tosac_tensor_free(&got);
    tosac_tensor_free(&ref);
}

void lat_result_free(lat_result *r)
{
    tosac_program_free(r->prog_);
    memset(r, 0, sizeof *r);
}

int lat_count(const lat_result *r, tosa_op op)
{
    int k = 0;
    const tosa_block *b = r->tg ? tosa_graph_main_block(r->tg) : NULL;
    for (int i = 0; b && i < b->n_ops; i++)
        k += b->ops[i].op == op;
    return k;
}

tosac_dtype lat_out_dtype(const lat_result *r, tosa_op op, int nth)
{
    const tosa_block *b = r->tg ? tosa_graph_main_block(r->tg) : NULL;
    for (int i = 0; b && i < b->n_ops; i++)
        if (b->ops[i].op == op && nth-- == 0)
            return b->tensors[b->ops[i].outputs[0]].dtype;
    fail_msg("no %s operator", tosa_op_name(op));
    return TOSAC_DT_UNKNOWN;
}

void lat_ramp(float *x, int n, float lo, float hi)
{
    for (int i = 0; i < n; i++)
        x[i] = n > 1 ? lo + (hi - lo) * (float)i / (float)(n - 1) : lo;
}
