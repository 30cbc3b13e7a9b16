/* tosac_quantize: the post-training quantizer's recipe, one step per line. */
#include "quant/quant_internal.h"

#include <stdlib.h>
#include <string.h>

#include "onnxop/onnxop_traits.h"
#include "tosac/onnx.h"

tosac_code quant_parse_scheme(const char *s, quant_scheme *out, tosac_error *err)
{
    if (s && strcmp(s, "a8w8") == 0)
        *out = QUANT_A8W8;
    else if (s && strcmp(s, "a16w8") == 0)
        *out = QUANT_A16W8;
    else
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "unknown quantization scheme '%s' (expected a8w8 or a16w8)",
                          s ? s : "");
    return TOSAC_OK;
}

const char *quant_scheme_name(quant_scheme s)
{
    return s == QUANT_A16W8 ? "a16w8" : "a8w8";
}

static const char *const k_methods[] = {"default", "minmax", "moving-average", "percentile",
                                        "mse", "entropy"};

const char *quant_method_name(quant_calib_method m)
{
    return m >= 0 && m <= QUANT_CALIB_ENTROPY ? k_methods[m] : "?";
}

tosac_code quant_parse_method(const char *s, quant_options *o, tosac_error *err)
{
    const char *pct = "percentile=";
    for (int m = QUANT_CALIB_MINMAX; s && m <= QUANT_CALIB_ENTROPY; m++)
        if (strcmp(s, k_methods[m]) == 0) {
            o->method = (quant_calib_method)m;
            return TOSAC_OK;
        }
    if (s && strncmp(s, pct, strlen(pct)) == 0) {
        char *end;
        double p = strtod(s + strlen(pct), &end);
        if (end != s + strlen(pct) && *end == '\0' && p > 0 && p <= 100) {
            o->method = QUANT_CALIB_PERCENTILE;
            o->percentile = p;
            return TOSAC_OK;
        }
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "--calib-method '%s': the percentile must be a number in (0, 100]", s);
    }
    return tosac_fail(err, TOSAC_ERR_INPUT,
                      "unknown calibration method '%s' (expected minmax, moving-average, "
                      "percentile, percentile=P, mse or entropy)",
                      s ? s : "");
}

static tosac_code check_float_model(const ir_graph *g, tosac_error *err)
{
    char desc[200];
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && onnxop_has(&g->nodes[i], ONNXOP_QUANT_FORM))
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "the model is already quantized (%s); give the float model",
                              ir_node_desc(g, i, desc, sizeof desc));
    return TOSAC_OK;
}

/* An int16 activation in an a8w8 plan needs opset 21's int16 Q/DQ. */
static bool any_wide(const quant_plan *p)
{
    for (int t = 0; t < p->n_tensors; t++)
        if (p->role[t] == QROLE_ACT && p->wide[t])
            return true;
    return false;
}

/* quant_options.body_lowers: an If/Loop that cannot become a TOSA control operator gains
 * nothing from quantized bodies (it runs on the CPU) and loses accuracy. When none can, the
 * bodies are not entered at all (the model quantizes as without +cf: returns false); else
 * the ones that cannot are kept float with their edges, as --exclude would. */
static bool keep_unlowered_bodies_float(const ir_graph *g, const quant_options *o,
                                        bool *keep_float)
{
    /* one trial lowering per If/Loop (a body can be most of the model), remembered */
    bool *out = calloc((size_t)g->n_nodes + 1, sizeof *out);
    int n_ctl = 0, n_out = 0;
    for (int i = 0; out && i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead || keep_float[i] || !(ir_node_is(n, "If") || ir_node_is(n, "Loop")))
            continue;
        n_ctl++;
        out[i] = !o->body_lowers(o->body_lowers_ctx, g, i);
        n_out += out[i];
    }
    bool enter = out && !(n_ctl > 0 && n_out == n_ctl);
    for (int i = 0; enter && i < g->n_nodes; i++)
        keep_float[i] |= out[i];
    free(out);
    return enter; /* out of memory: bodies stay float, the safe side */
}

tosac_code tosac_quantize(ir_model *m, const quant_options *o, const quant_calib *calib,
                          tosac_error *err)
{
    ir_graph *g = m->graph;
    quant_scheme s = o ? o->scheme : QUANT_A8W8;
    if (o && o->report)
        *o->report = NULL;
    tosac_code rc = check_float_model(g, err);
    if (rc)
        return rc;
    /* BN first, so calibration observes the folded conv and weights include BN's scale */
    if ((rc = quant_fold_batchnorm(g, err)) || (rc = quant_decompose(m, err)))
        return rc;
    int n_seen = g->n_tensors;
    quant_seen *seen = calloc((size_t)n_seen + 1, sizeof *seen);
    if (!seen)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    quant_plan plan;
    memset(&plan, 0, sizeof plan);
    bool *keep_float = NULL, *int16 = NULL;
    quant_bodies bodies = {0};
    rc = quant_exclude_parse(g, o && o->exclude ? o->exclude : "", &keep_float, err);
    if (!rc && o && s == QUANT_A16W8 && (o->int16 || o->mixed_auto))
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s raises layers of an a8w8 model to int16; "
                        "a16w8 has int16 activations everywhere", o->int16 ? "--int16" : "--mixed");
    if (!rc)
        rc = quant_node_list_parse(g, "--int16", o && o->int16 ? o->int16 : "", &int16, err);
    bool bodies_on = o && o->bodies;
    if (!rc && bodies_on && o->body_lowers)
        bodies_on = keep_unlowered_bodies_float(g, o, keep_float);
    if (!rc && bodies_on)
        rc = quant_bodies_collect(g, &bodies, err);
    if (!rc)
        rc = quant_calibrate(m, o, calib, seen, err);
    if (!rc) /* before the plan: a Loop's outputs take every iteration's range */
        rc = quant_bodies_calibrate(m, o, calib, &bodies, seen, err);
    if (!rc && o && o->bias_correction) /* one more pass: the input means */
        rc = quant_channel_means(m, o, calib, seen, err);
    if (!rc)
        rc = quant_plan_build(g, s, seen, keep_float, int16, bodies.n > 0, &plan, err);
    /* where quantization destroys the signal: kept float (and --mixed auto's int16 picks) */
    if (!rc)
        rc = quant_sens_apply(m, o, calib, seen, keep_float, int16, &plan, err);
    quant_weight_rounding wr = o && o->rounding ? o->rounding : QUANT_WROUND_DEFAULT_IS;
    if (!rc && wr == QUANT_WROUND_GPTQ) /* one more pass: the layers' input covariances */
        rc = quant_round_weights(m, o, calib, seen, n_seen, &plan, err);
    if (!rc && o && o->report) /* on the float graph, before the rewrite */
        rc = quant_report_build(m, o, calib, seen, &plan, o->report, err);
    /* after calibration: the executor ran the model at its own opset */
    if (!rc)
        rc = quant_upgrade_opset(m, s == QUANT_A16W8 || any_wide(&plan) ? 21 : 13, seen, err);
    if (!rc)
        rc = quant_insert(g, s, &plan, seen, err);
    if (!rc)
        rc = quant_bodies_insert(g, s, &plan, &bodies, err);
    if (!rc)
        rc = quant_cleanup(g, err);
    if (!rc) /* later stages read tensor->quant, as on an imported QDQ model */
        rc = onnx_record_quant(g, err);
    if (!rc)
        rc = ir_model_verify(m, err);
    quant_plan_free(&plan);
    quant_bodies_free(&bodies);
    free(keep_float);
    free(int16);
    quant_seen_free(seen, n_seen);
    free(seen);
    if (rc && o && o->report) {
        free(*o->report);
        *o->report = NULL;
    }
    return rc;
}

tosac_code quant_parse_rounding(const char *s, quant_options *o, tosac_error *err)
{
    if (s && (strcmp(s, "nearest") == 0 || strcmp(s, "gptq") == 0)) {
        o->rounding = s[0] == 'n' ? QUANT_WROUND_NEAREST : QUANT_WROUND_GPTQ;
        return TOSAC_OK;
    }
    return tosac_fail(err, TOSAC_ERR_INPUT,
                      "unknown weight rounding '%s' (expected nearest or gptq)", s ? s : "");
}
