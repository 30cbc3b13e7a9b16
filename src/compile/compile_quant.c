/* `tosac compile --quantize SCHEME --calib ...`: the quantizer run in front of the compiler,
 * so a float model becomes a QDQ model before the passes fold it into integer delegates. */
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"
#include "tosac/compile.h"
#include "tosac/quant.h"

/* True when the graph input `name` is given a shape by one of the --input-shape options. */
static bool shape_given(const tosac_compile_options *o, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->n_input_shapes; i++)
        if (strncmp(o->input_shapes[i], name, n) == 0 && o->input_shapes[i][n] == '=')
            return true;
    return false;
}

/* The scheme's integer types must be legal under the spec: an integer scheme needs the INT
 * profile, int16 activations need EXT-INT16. The error gives the spec string that works. */
static tosac_code check_scheme(const tosac_compile_options *o, quant_scheme scheme,
                               tosac_error *err)
{
    tosa_spec spec;
    tosac_code rc = tosa_spec_parse(o->spec ? o->spec : "", &spec, err);
    if (rc)
        return rc;
    tosa_spec fixed = spec;
    const char *need = NULL;
    if (!tosa_spec_supports_integer(&spec)) {
        fixed.profiles |= TOSA_FEAT_INT;
        need = "the INT profile";
    }
    bool mixed = scheme == QUANT_A8W8 && (o->int16 || o->mixed);
    if ((scheme == QUANT_A16W8 || mixed) && !tosa_spec_has_ext(&fixed, TOSA_EXT_INT16)) {
        fixed.extensions |= 1u << TOSA_EXT_INT16;
        need = need ? "the INT profile and +int16" : "+int16 (int16 activations)";
    }
    if (!need)
        return TOSAC_OK;
    char want[128];
    tosa_spec_to_string(&fixed, want, sizeof want);
    return tosac_fail(err, TOSAC_ERR_INPUT, "--quantize %s%s needs %s, which %s lacks: use --spec %s",
                      quant_scheme_name(scheme),
                      !mixed ? "" : o->int16 ? " --int16" : " --mixed", need, o->spec, want);
}

/* quant_options.body_lowers: the float If/Loop lowers as COND_IF / WHILE_LOOP under the
 * spec with PRO-FP added (its bodies still float); what does not (silero's If: a reflect Pad
 * in a branch) would stay on the CPU quantized, losing accuracy for no delegate. */
static bool body_lowers(void *ctx, const ir_graph *g, int i)
{
    tosa_spec fp = *(const tosa_spec *)ctx;
    fp.profiles |= TOSA_FEAT_FP;
    char why[256];
    return lower_trial_node(&fp, g, i, why, sizeof why);
}

tosac_code tosac_compile_quantize(ir_model *m, const tosac_compile_options *o, tosac_error *err)
{
    quant_options qo;
    memset(&qo, 0, sizeof qo);
    tosac_code rc = quant_parse_scheme(o->quantize, &qo.scheme, err);
    if (!rc && o->calib_method)
        rc = quant_parse_method(o->calib_method, &qo, err);
    qo.exclude = o->exclude;
    qo.int16 = o->int16;
    qo.no_keep_float = o->no_keep_float != 0;
    qo.bias_correction = o->bias_correction != 0;
    if (!rc && o->mixed)
        rc = quant_parse_mixed(o->mixed, &qo, err);
    if (!rc && o->weight_rounding)
        rc = quant_parse_rounding(o->weight_rounding, &qo, err);
    qo.progress = o->quant_progress;
    qo.progress_ctx = o->quant_progress_ctx;
    if (!rc)
        rc = check_scheme(o, qo.scheme, err);
    tosa_spec spec;
    if (!rc && !tosa_spec_parse(o->spec ? o->spec : "", &spec, NULL)) {
        qo.bodies = tosa_spec_has_ext(&spec, TOSA_EXT_CONTROLFLOW);
        qo.body_lowers = body_lowers;
        qo.body_lowers_ctx = &spec;
    }
    if (rc)
        return rc;
    if (o->n_calib == 0)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "--quantize %s needs calibration data: --calib FILE.npy|NAME=FILE.npy|DIR",
                          o->quantize);
    quant_calib calib;
    memset(&calib, 0, sizeof calib);
    rc = quant_calib_load(m, o->calib, o->n_calib, &calib, err);
    if (!rc)
        rc = tosac_quantize(m, &qo, &calib, err);
    /* Dynamic input dims the user did not fix: the calibration data says what they are. */
    const ir_graph *g = m->graph;
    for (int i = 0; !rc && i < g->n_inputs && calib.n_samples > 0; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        bool dynamic = t->rank < 0;
        for (int d = 0; d < t->rank; d++)
            dynamic |= t->shape[d] < 0;
        if (!dynamic || shape_given(o, t->name))
            continue;
        const tosac_tensor *s = &calib.tensors[i];
        rc = ir_model_set_input_shape(m, t->name, s->rank, s->shape, err);
    }
    quant_calib_free(&calib);
    return rc;
}
