/* tosac quantize --report: per activation its observed min/max, the range its parameters
 * cover, scale, zero point and the SQNR of its own quantization against its float values on
 * the calibration samples (a pass at the final parameters; the error of this tensor alone,
 * not what upstream layers add). */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

void quant_sqnr_add(quant_sqnr *s, const quant_qparams *qp, const float *x, int64_t n)
{
    int64_t qmin = qp->dtype == TOSAC_DT_I16 ? INT16_MIN : INT8_MIN;
    int64_t qmax = qp->dtype == TOSAC_DT_I16 ? INT16_MAX : INT8_MAX;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            continue; /* left out of the ranges, so out of the measure too */
        double q = (double)(quant_value(x[i], qp->scale, qp->zero_point, qmin, qmax) -
                            qp->zero_point) * (double)qp->scale;
        double e = (double)x[i] - q;
        s->signal += (double)x[i] * x[i];
        s->noise += e * e;
    }
}

double quant_sqnr_db(const quant_sqnr *s)
{
    if (s->noise == 0)
        return INFINITY;
    return 10.0 * log10(s->signal / s->noise);
}

typedef struct sqnr_pass {
    const quant_plan *p;
    quant_sqnr *acc;
} sqnr_pass;

static void observe_sqnr(void *ctx, int tensor, const tosac_tensor *t)
{
    sqnr_pass *sp = ctx;
    if (tensor < sp->p->n_tensors && sp->p->role[tensor] == QROLE_ACT &&
        t->dtype == TOSAC_DT_F32)
        quant_sqnr_add(&sp->acc[tensor], &sp->p->qp[tensor], t->data, tosac_tensor_numel(t));
}

static void write_tensor(tosac_json_writer *w, const ir_graph *g, int t, const quant_seen *s,
                         const quant_qparams *qp, double sqnr)
{
    tosac_json_begin_object(w);
    tosac_json_key(w, "name");
    tosac_json_write_string(w, g->tensors[t].name);
    tosac_json_key(w, "min");
    tosac_json_write_double(w, s->minmax.seen ? s->minmax.lo : NAN);
    tosac_json_key(w, "max");
    tosac_json_write_double(w, s->minmax.seen ? s->minmax.hi : NAN);
    /* what the parameters represent: [(qmin - zp) * scale, (qmax - zp) * scale] */
    bool i16 = qp->dtype == TOSAC_DT_I16;
    tosac_json_key(w, "range_lo");
    tosac_json_write_double(w, (double)((i16 ? INT16_MIN : INT8_MIN) - qp->zero_point) * qp->scale);
    tosac_json_key(w, "range_hi");
    tosac_json_write_double(w, (double)((i16 ? INT16_MAX : INT8_MAX) - qp->zero_point) * qp->scale);
    tosac_json_key(w, "scale");
    tosac_json_write_double(w, qp->scale);
    tosac_json_key(w, "zero_point");
    tosac_json_write_int(w, qp->zero_point);
    tosac_json_key(w, "dtype");
    tosac_json_write_string(w, tosac_dtype_name(qp->dtype));
    tosac_json_key(w, "sqnr_db"); /* null: no error at all */
    tosac_json_write_double(w, sqnr);
    tosac_json_end_object(w);
}

tosac_code quant_report_build(ir_model *m, const quant_options *o, const quant_calib *c,
                              const quant_seen *seen, const quant_plan *p, char **out,
                              tosac_error *err)
{
    const ir_graph *g = m->graph;
    sqnr_pass sp = {p, calloc((size_t)p->n_tensors + 1, sizeof *sp.acc)};
    if (!sp.acc)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = quant_run_pass(m, o, "sqnr", c, observe_sqnr, &sp, err);
    if (rc) {
        free(sp.acc);
        return rc;
    }
    quant_calib_method method = o->method ? o->method : QUANT_CALIB_DEFAULT_IS;
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "scheme");
    tosac_json_write_string(&w, quant_scheme_name(o->scheme));
    tosac_json_key(&w, "method");
    tosac_json_write_string(&w, quant_method_name(method));
    if (method == QUANT_CALIB_PERCENTILE) {
        tosac_json_key(&w, "percentile");
        tosac_json_write_double(&w, o->percentile > 0 ? o->percentile : QUANT_PERCENTILE_DEFAULT);
    }
    tosac_json_key(&w, "samples");
    tosac_json_write_int(&w, c->n_samples);
    tosac_json_key(&w, "tensors");
    tosac_json_begin_array(&w);
    for (int t = 0; t < p->n_tensors; t++)
        if (p->role[t] == QROLE_ACT)
            write_tensor(&w, g, t, &seen[t], &p->qp[t], quant_sqnr_db(&sp.acc[t]));
    tosac_json_end_array(&w);
    tosac_json_key(&w, "kept_float");
    tosac_json_begin_array(&w);
    for (int i = 0; i < p->n_nodes; i++)
        if (p->keep_float[i])
            tosac_json_write_string(&w, g->nodes[i].name);
    tosac_json_end_array(&w);
    tosac_json_end_object(&w);
    free(sp.acc);
    size_t len;
    *out = tosac_json_writer_take(&w, &len);
    tosac_json_writer_free(&w);
    return *out ? TOSAC_OK : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing the report");
}
