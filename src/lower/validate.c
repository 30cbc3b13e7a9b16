/* tosa_validate_op: an emitted operator checked against the spec tables, so lowering rules
 * never need to know which profile or extension allows what. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/validate.h"

static bool fail(char *reason, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *reason, size_t len, const char *fmt, ...)
{
    if (reason && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, len, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool is_list(const tosa_spec_arg *a)
{
    return strcmp(a->type, "tensor_list_t") == 0;
}

static bool has_arg(const tosa_spec_op *sop, const char *name)
{
    for (int i = 0; i < sop->n_args; i++)
        if (strcmp(sop->args[i].name, name) == 0)
            return true;
    return false;
}

int tosa_block_producer(const tosa_block *b, int tensor)
{
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_outputs; k++)
            if (b->ops[i].outputs[k] == tensor)
                return i;
    return -1;
}

int tosa_block_readers(const tosa_block *b, int t, int *only)
{
    int n = 0;
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_inputs; k++)
            if (b->ops[i].inputs[k] == t) {
                n++;
                *only = i;
            }
    for (int i = 0; i < b->n_outputs; i++)
        n += b->outputs[i] == t ? 2 : 0;
    return n;
}

typedef struct binding {
    tosac_dtype t[TOSA_SPEC_MAX_TYPES];
} binding;

/* Checks one operand against its argument and binds its element type. */
static bool check_operand(const tosa_spec *spec, const tosa_block *b, const int *prod,
                          const tosa_spec_op *sop, const tosa_spec_arg *arg, int tensor,
                          binding *bd, char *reason, size_t len)
{
    const char *op = sop->name;
    if (tensor < 0 || tensor >= b->n_tensors)
        return fail(reason, len, "%s: operand '%s' is tensor %d, out of range", op, arg->name,
                    tensor);
    const tosa_tensor *t = &b->tensors[tensor];
    if (strcmp(arg->type, "shape_t") == 0) {
        if (t->dtype != TOSAC_DT_SHAPE)
            return fail(reason, len, "%s: '%s' must be a shape value, not %s", op, arg->name,
                        tosac_dtype_name(t->dtype));
    } else if (arg->has_rank && !t->is_unranked) {
        int lo = tosa_spec_rank_value(spec, arg->rank_min);
        int hi = tosa_spec_rank_value(spec, arg->rank_max);
        if (t->rank < lo || t->rank > hi)
            return fail(reason, len, "%s: '%s' has rank %d, outside %d..%d", op, arg->name,
                        t->rank, lo, hi);
    }
    if (arg->ctc && !tosa_spec_has_ext(spec, TOSA_EXT_DYNAMIC)) {
        int p = prod ? prod[tensor] : tosa_block_producer(b, tensor);
        if (p < 0 || (b->ops[p].op != TOSA_OP_CONST && b->ops[p].op != TOSA_OP_CONST_SHAPE))
            return fail(reason, len, "%s: '%s' must be a compile-time constant", op, arg->name);
    }
    int k = tosa_spec_op_type_index(sop, arg->element_type);
    if (k < 0)
        return true;
    if (bd->t[k] != TOSAC_DT_UNKNOWN && bd->t[k] != t->dtype)
        return fail(reason, len, "%s: %s is both %s and %s", op, arg->element_type,
                    tosac_dtype_name(bd->t[k]), tosac_dtype_name(t->dtype));
    bd->t[k] = t->dtype;
    return true;
}

static bool check_operands(const tosa_spec *spec, const tosa_block *b, const int *prod,
                           const tosa_spec_op *sop, const tosa_operator *o, binding *bd,
                           char *reason, size_t len)
{
    for (int pass = 0; pass < 2; pass++) {
        tosa_arg_category cat = pass ? TOSA_ARG_OUTPUT : TOSA_ARG_INPUT;
        const int *ops = pass ? o->outputs : o->inputs;
        int n = pass ? o->n_outputs : o->n_inputs;
        int n_args = 0;
        bool list = false;
        for (int i = 0; i < sop->n_args; i++)
            if (sop->args[i].category == cat) {
                n_args++;
                list |= is_list(&sop->args[i]);
            }
        if (list ? n < n_args - 1 : n != n_args)
            return fail(reason, len, "%s: %d %s where the spec has %s%d", sop->name, n,
                        pass ? "outputs" : "inputs", list ? "at least " : "",
                        list ? n_args - 1 : n_args);
        int next = 0;
        for (int i = 0; i < sop->n_args; i++) {
            const tosa_spec_arg *a = &sop->args[i];
            if (a->category != cat)
                continue;
            int take = is_list(a) ? n - (n_args - 1) : 1;
            for (int k = 0; k < take; k++)
                if (!check_operand(spec, b, prod, sop, a, ops[next++], bd, reason, len))
                    return false;
        }
    }
    return true;
}

static bool check_enums(const tosa_spec *spec, const tosa_spec_op *sop, const tosa_attr *at,
                        char *reason, size_t len)
{
    static const struct {
        const char *arg, *enum_name;
    } enums[] = {
        {"rounding_mode", "rounding_mode_t"},
        {"nan_mode", "nan_propagation_mode_t"},
        {"mode", "resize_mode_t"},
    };
    for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++) {
        if (!has_arg(sop, enums[i].arg))
            continue;
        int v = (int)(i == 0 ? at->rounding_mode : i == 1 ? at->nan_mode : at->mode);
        if (!tosa_spec_enum_legal(spec, enums[i].enum_name, v)) {
            const char *name = tosa_spec_enum_value_name(spec, enums[i].enum_name, v);
            if (name)
                return fail(reason, len, "%s: %s %s is not allowed by this spec", sop->name,
                            enums[i].arg, name);
            return fail(reason, len, "%s: %s %d is not a valid value", sop->name,
                        enums[i].arg, v);
        }
    }
    return true;
}

static void describe_types(const tosa_spec_op *sop, const binding *bd, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < sop->n_types && used < len; i++) {
        if (bd->t[i] == TOSAC_DT_UNKNOWN)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", sop->type_names[i],
                         tosac_dtype_name(bd->t[i]));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static bool check_rows(const tosa_spec *spec, const tosa_spec_op *sop, const binding *bd,
                       char *reason, size_t len)
{
    const tosa_spec_row *first = NULL;
    const char *u55 = NULL; /* the profiles allow a matching row, Ethos-U55 does not */
    tosa_spec plain = *spec;
    plain.u55 = false;
    for (int r = 0; r < sop->n_rows; r++) {
        const tosa_spec_row *row = &sop->rows[r];
        if (row->block_scaled)
            continue;
        bool match = true;
        for (int i = 0; i < sop->n_types && match; i++)
            match = bd->t[i] == TOSAC_DT_UNKNOWN || row->types[i] == bd->t[i];
        if (!match)
            continue;
        if (tosa_spec_row_legal(spec, row))
            return true;
        if (!u55 && spec->u55 && tosa_spec_row_legal(&plain, row))
            u55 = tosa_spec_u55_refusal(sop, row);
        if (!first)
            first = row;
    }
    if (u55)
        return fail(reason, len, "U55 restriction: %s %s", sop->name, u55);
    char types[160];
    describe_types(sop, bd, types, sizeof types);
    if (first && first->n_alts > 0) {
        char feats[96];
        tosa_spec_features_to_string(first->alts[0], feats, sizeof feats);
        return fail(reason, len, "%s: %s needs %s", sop->name, types, feats);
    }
    return fail(reason, len, "%s: no form for %s", sop->name, types);
}

/* tosa_validate_op with prod[t] = tosa_block_producer(b, t) for every tensor, or NULL. */
static bool validate_op(const tosa_spec *spec, const tosa_block *b, const int *prod,
                        int op_index, char *reason, size_t len)
{
    if (reason && len)
        reason[0] = '\0';
    if (!spec || !b || op_index < 0 || op_index >= b->n_ops)
        return fail(reason, len, "operator %d out of range", op_index);
    const tosa_operator *o = &b->ops[op_index];
    const tosa_spec_op *sop = tosa_spec_find_op(spec, o->op);
    if (!sop) {
        const char *name = tosa_op_name(o->op);
        return fail(reason, len, "%s is not an operator of TOSA %d.%d", name ? name : "?",
                    spec->major, spec->minor);
    }
    binding bd;
    for (int i = 0; i < TOSA_SPEC_MAX_TYPES; i++)
        bd.t[i] = TOSAC_DT_UNKNOWN;
    if (!check_operands(spec, b, prod, sop, o, &bd, reason, len))
        return false;
    int acc = tosa_spec_op_type_index(sop, "acc_t");
    if (acc >= 0 && has_arg(sop, "acc_type")) {
        if (o->attr.acc_type == TOSAC_DT_UNKNOWN)
            return fail(reason, len, "%s: acc_type is not set", sop->name);
        bd.t[acc] = o->attr.acc_type;
    }
    if (!check_enums(spec, sop, &o->attr, reason, len) || !check_rows(spec, sop, &bd, reason, len))
        return false;
    return !tosa_spec_is_u55_subset(spec) || tosa_u55_op_ok(spec, b, op_index, reason, len);
}

bool tosa_validate_op(const tosa_spec *spec, const tosa_block *b, int op_index, char *reason,
                      size_t len)
{
    return validate_op(spec, b, NULL, op_index, reason, len);
}

int tosa_validate_first_illegal(const tosa_spec *spec, const tosa_block *b, char *reason,
                                size_t len)
{
    if (!b)
        return -1;
    /* the producers once (the first writer, as tosa_block_producer finds it): a scan per
     * constant operand made validation quadratic in the block size */
    int *prod = malloc(((size_t)b->n_tensors + 1) * sizeof *prod);
    for (int t = 0; prod && t < b->n_tensors; t++)
        prod[t] = -1;
    for (int i = b->n_ops - 1; prod && i >= 0; i--)
        for (int k = 0; k < b->ops[i].n_outputs; k++)
            if (b->ops[i].outputs[k] >= 0 && b->ops[i].outputs[k] < b->n_tensors)
                prod[b->ops[i].outputs[k]] = i;
    int bad = -1;
    for (int i = 0; i < b->n_ops && bad < 0; i++)
        if (!validate_op(spec, b, prod, i, reason, len))
            bad = i;
    free(prod);
    return bad;
}

bool tosa_validate_block(const tosa_spec *spec, const tosa_block *b, char *reason, size_t len)
{
    return tosa_validate_first_illegal(spec, b, reason, len) < 0;
}
