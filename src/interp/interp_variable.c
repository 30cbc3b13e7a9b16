/* Operator group: variables (EXT-VARIABLE). A variable's state lives in interp_state, keyed
 * by name; the graph names it through an operand tensor marked `variable` (its
 * variable_name, or its name), which also declares its shape, type and initial value. */
#include <string.h>

#include "interp/interp_state.h"

/* The variable the operator refers to, or NULL after reporting the problem. */
static interp_var *op_var(interp_ctx *c)
{
    const tosa_operator *o = c->op;
    for (int k = 0; k < o->n_inputs + o->n_outputs; k++) {
        int t = k < o->n_inputs ? o->inputs[k] : o->outputs[k - o->n_inputs];
        const tosa_tensor *d = &c->block->tensors[t];
        if (!d->variable)
            continue;
        const char *name = d->variable_name && d->variable_name[0] ? d->variable_name : d->name;
        interp_var *v = c->st ? interp_find_var(c->st, name) : NULL;
        if (!v)
            interp_error(c, "variable '%s' is not known", name);
        return v;
    }
    interp_error(c, "no operand is a variable tensor");
    return NULL;
}

/* The one operand of list[0..n) whose tensor is not the variable itself. */
static tosac_tensor *data_operand(interp_ctx *c, tosac_tensor **list, const int *idx, int n)
{
    for (int k = 0; k < n; k++)
        if (!c->block->tensors[idx[k]].variable)
            return list[k];
    return NULL;
}

/* Writes the variable's value into any variable-tensor outputs, so every output is set. */
static void mirror_outputs(interp_ctx *c, const interp_var *v)
{
    for (int k = 0; k < c->n_out; k++)
        if (c->block->tensors[c->op->outputs[k]].variable && interp_same_type(c->out[k], &v->value))
            interp_copy_tensor(c->out[k], &v->value);
}

static tosac_code type_check(interp_ctx *c, const interp_var *v, const tosac_tensor *t)
{
    if (interp_same_type(t, &v->value))
        return TOSAC_OK;
    char a[200], b[200];
    return interp_error(c, "ERROR_IF(variable '%s' is %s, the tensor is %s)", v->name,
                        interp_type_str(v->value.dtype, v->value.rank, v->value.shape, a, sizeof a),
                        interp_type_str(t->dtype, t->rank, t->shape, b, sizeof b));
}

tosac_code interp_op_variable(interp_ctx *c)
{
    interp_var *v = op_var(c);
    if (!v)
        return c->err ? c->err->code : TOSAC_ERR_INPUT;
    if (v->declared)
        return interp_error(c, "ERROR_IF(variable '%s' is already declared)", v->name);
    if (v->decl->data && v->decl->data_size >= v->value.nbytes)
        memcpy(v->value.data, v->decl->data, v->value.nbytes);
    else
        memset(v->value.data, 0, v->value.nbytes);
    v->declared = true;
    mirror_outputs(c, v);
    return TOSAC_OK;
}

tosac_code interp_op_variable_write(interp_ctx *c)
{
    interp_var *v = op_var(c);
    if (!v)
        return c->err ? c->err->code : TOSAC_ERR_INPUT;
    if (!v->declared)
        return interp_error(c, "ERROR_IF(variable '%s' is not declared)", v->name);
    const tosac_tensor *in = data_operand(c, c->in, c->op->inputs, c->n_in);
    if (!in)
        return interp_error(c, "no input value to write");
    tosac_code rc = type_check(c, v, in);
    if (rc)
        return rc;
    interp_copy_tensor(&v->value, in);
    mirror_outputs(c, v);
    return TOSAC_OK;
}

tosac_code interp_op_variable_read(interp_ctx *c)
{
    interp_var *v = op_var(c);
    if (!v)
        return c->err ? c->err->code : TOSAC_ERR_INPUT;
    if (!v->declared)
        return interp_error(c, "ERROR_IF(variable '%s' is not declared)", v->name);
    tosac_tensor *out = data_operand(c, c->out, c->op->outputs, c->n_out);
    if (!out)
        return interp_error(c, "no output to read into");
    tosac_code rc = type_check(c, v, out);
    if (rc)
        return rc;
    interp_copy_tensor(out, &v->value);
    return TOSAC_OK;
}

const interp_op_entry interp_ops_variable[] = {
    {TOSA_OP_VARIABLE, interp_op_variable},
    {TOSA_OP_VARIABLE_WRITE, interp_op_variable_write},
    {TOSA_OP_VARIABLE_READ, interp_op_variable_read},
    {TOSA_OP_UNKNOWN, NULL},
};
