/* tosac_quantize: the post-training quantizer's recipe, one step per line. */
#include "quant/quant_internal.h"

#include <stdlib.h>
#include <string.h>

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

static tosac_code check_float_model(const ir_graph *g, tosac_error *err)
{
    static const char *const qops[] = {"QuantizeLinear", "DequantizeLinear", "QLinearConv",
                                       "QLinearMatMul", "DynamicQuantizeLinear", NULL};
    char desc[200];
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; qops[k]; k++)
            if (!g->nodes[i].dead && ir_node_is(&g->nodes[i], qops[k]))
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "the model is already quantized (%s); give the float model",
                                  ir_node_desc(g, i, desc, sizeof desc));
    return TOSAC_OK;
}

tosac_code tosac_quantize(ir_model *m, const quant_options *o, const quant_calib *calib,
                          tosac_error *err)
{
    ir_graph *g = m->graph;
    quant_scheme s = o ? o->scheme : QUANT_A8W8;
    tosac_code rc = check_float_model(g, err);
    if (rc)
        return rc;
    /* BN first, so calibration observes the folded conv and weights include BN's scale */
    if ((rc = quant_fold_batchnorm(g, err)) || (rc = quant_decompose(m, err)))
        return rc;
    quant_seen *seen = calloc((size_t)g->n_tensors + 1, sizeof *seen);
    if (!seen)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    quant_plan plan;
    memset(&plan, 0, sizeof plan);
    rc = quant_calibrate(m, calib, seen, err);
    if (!rc)
        rc = quant_plan_build(g, s, seen, &plan, err);
    /* after calibration: the executor ran the model at its own opset */
    if (!rc)
        rc = quant_upgrade_opset(m, s == QUANT_A16W8 ? 21 : 13, seen, err);
    if (!rc)
        rc = quant_insert(g, s, &plan, err);
    if (!rc)
        rc = quant_cleanup(g, err);
    if (!rc) /* later stages read tensor->quant, as on an imported QDQ model */
        rc = onnx_record_quant(g, err);
    if (!rc)
        rc = ir_model_verify(m, err);
    quant_plan_free(&plan);
    free(seen);
    return rc;
}
