/* The rule table: every family's rules, looked up by (domain, op_type), and the rules'
 * preconditions (lower_rule.pre, .const_params) checked here once before a rule runs.
 * A new family file adds one line to `families` below. */
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_extra.h"
#include "onnxop/onnxop_traits.h"

static const lower_rule *const families[] = {
    lower_rules_elementwise,
    lower_rules_conv,
    lower_rules_activation,
    lower_rules_softmax,
    lower_rules_quant,
    lower_rules_norm,
    lower_rules_matmul,
    lower_rules_pool,
    lower_rules_layout,
    lower_rules_reduce,
    lower_rules_compare,
    lower_rules_minmax,
    lower_rules_unary,
    lower_rules_gather,
    lower_rules_pad,
    lower_rules_resize,
    lower_rules_cast,
    lower_rules_tile,
    lower_rules_div,
    lower_rules_bitwise,
    lower_rules_trig,
    lower_rules_pow,
    lower_rules_mod,
    lower_rules_cumsum,
    lower_rules_trilu,
    lower_rules_scatter,
    lower_rules_conv_transpose,
    lower_rules_dft,
    lower_rules_grid_sample,
    lower_rules_control,
};

const lower_rule *lower_find(const char *domain, const char *op_type)
{
    if (!op_type)
        return NULL;
    if (!domain)
        domain = IR_DOMAIN_ONNX;
    /* "ai.onnx" is the same domain as "" (ONNX writes both). */
    if (strcmp(domain, "ai.onnx") == 0)
        domain = IR_DOMAIN_ONNX;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (const lower_rule *r = families[f]; r->op_type; r++)
            if (strcmp(r->op_type, op_type) == 0 && strcmp(r->domain, domain) == 0)
                return r;
    return NULL;
}

lower_fn lower_find_rule(const char *domain, const char *op_type)
{
    const lower_rule *r = lower_find(domain, op_type);
    return r ? r->fn : NULL;
}

static tosac_code check_one(lower_ctx *c, const ir_node *n, const ir_tensor *t)
{
    if (t->dtype == TOSAC_DT_UNKNOWN || t->rank < 0)
        return lx_unsupported(c, n, "'%s' has an unknown type or rank", t->name);
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return lx_unsupported(c, n, "'%s' has an unknown dimension %d", t->name, d);
    size_t nbytes;
    tosac_error e;
    tosac_error_clear(&e);
    if (tosac_shape_check(t->dtype, t->rank, t->shape, &nbytes, &e))
        return lx_unsupported(c, n, "'%s' is too large", t->name);
    return TOSAC_OK;
}

tosac_code lower_check_static(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = TOSAC_OK;
    for (int i = 0; !rc && i < n->n_inputs; i++)
        if (n->inputs[i] >= 0 && lower_in_ir(c, n, i))
            rc = check_one(c, n, lower_in_ir(c, n, i));
    for (int i = 0; !rc && i < n->n_outputs; i++)
        if (n->outputs[i] >= 0 && lower_out_ir(c, n, i))
            rc = check_one(c, n, lower_out_ir(c, n, i));
    return rc;
}

/* Shape / axes operands must be constants (the output's static shape says the rest). */
tosac_code lower_check_const_params(lower_ctx *c, const ir_node *n, uint32_t mask)
{
    tosac_tensor v;
    for (int i = 0; i < n->n_inputs; i++)
        if (onnxop_slot_in(mask, i) && n->inputs[i] >= 0 && !lower_in_const(c, n, i, &v))
            return lx_unsupported(c, n, "a shape or axes operand is computed at run time");
    return TOSAC_OK;
}

tosac_code lower_node(lower_ctx *c, const ir_node *n)
{
    const lower_rule *r = lower_find(n->domain, n->op_type);
    if (!r)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "no TOSA lowering for %s%s%s",
                          n->domain && *n->domain ? n->domain : "",
                          n->domain && *n->domain ? "." : "", n->op_type);
    tosac_code rc = TOSAC_OK;
    if (r->pre & LOWER_PRE_STATIC)
        rc = lower_check_static(c, n);
    if (!rc && r->const_params)
        rc = lower_check_const_params(c, n, r->const_params);
    if (!rc)
        rc = r->fn(c, n);
    if (rc && (!c->err || !c->err->code))
        return tosac_fail(c->err, rc, "lowering %s failed", n->op_type);
    return rc;
}
