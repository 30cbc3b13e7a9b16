/* The rule table: every family's rules, looked up by (domain, op_type).
 * A new family file adds one line to `families` below. */
#include <string.h>

#include "lower/lower.h"

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
    lower_rules_control,
};

lower_fn lower_find_rule(const char *domain, const char *op_type)
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
                return r->fn;
    return NULL;
}

tosac_code lower_node(lower_ctx *c, const ir_node *n)
{
    lower_fn fn = lower_find_rule(n->domain, n->op_type);
    if (!fn)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "no TOSA lowering for %s%s%s",
                          n->domain && *n->domain ? n->domain : "",
                          n->domain && *n->domain ? "." : "", n->op_type);
    tosac_code rc = fn(c, n);
    if (rc && (!c->err || !c->err->code))
        return tosac_fail(c->err, rc, "lowering %s failed", n->op_type);
    return rc;
}
