/* Deep structural equality of graphs and models (round-trip tests, pass idempotence). */
#include "ir_internal.h"

#include <string.h>

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool host_tensor_equal(const tosac_tensor *a, const tosac_tensor *b)
{
    if (a->dtype != b->dtype || !tosac_shape_equal(a->rank, a->shape, b->rank, b->shape) ||
        a->nbytes != b->nbytes)
        return false;
    return a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
}

static bool quant_equal(const ir_quant *a, const ir_quant *b)
{
    if (!a || !b)
        return a == b;
    if (a->axis != b->axis || a->n != b->n || a->zp_dtype != b->zp_dtype ||
        a->block_size != b->block_size)
        return false;
    return memcmp(a->scale, b->scale, (size_t)a->n * sizeof *a->scale) == 0 &&
           memcmp(a->zero_point, b->zero_point, (size_t)a->n * sizeof *a->zero_point) == 0;
}

static bool tensor_equal(const ir_tensor *a, const ir_tensor *b)
{
    if (!str_eq(a->name, b->name) || a->dtype != b->dtype || a->rank != b->rank ||
        a->outer_id != b->outer_id || a->nbytes != b->nbytes || !a->data != !b->data)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d] || !str_eq(a->dim_param[d], b->dim_param[d]))
            return false;
    if (a->data && a->nbytes && memcmp(a->data, b->data, a->nbytes) != 0)
        return false;
    return quant_equal(a->quant, b->quant);
}

static bool attr_equal(const ir_attr *a, const ir_attr *b)
{
    if (!str_eq(a->name, b->name) || a->kind != b->kind)
        return false;
    switch (a->kind) {
    case IR_ATTR_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case IR_ATTR_INT: return a->i == b->i;
    case IR_ATTR_STRING: return str_eq(a->s, b->s);
    case IR_ATTR_TENSOR: return host_tensor_equal(&a->t, &b->t);
    case IR_ATTR_GRAPH: return ir_graph_equal(a->g, b->g);
    default: break;
    }
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++) {
        bool same = true;
        switch (a->kind) {
        case IR_ATTR_FLOATS: same = memcmp(&a->floats[i], &b->floats[i], sizeof(float)) == 0; break;
        case IR_ATTR_INTS: same = a->ints[i] == b->ints[i]; break;
        case IR_ATTR_STRINGS: same = str_eq(a->strings[i], b->strings[i]); break;
        case IR_ATTR_TENSORS: same = host_tensor_equal(&a->tensors[i], &b->tensors[i]); break;
        case IR_ATTR_GRAPHS: same = ir_graph_equal(a->graphs[i], b->graphs[i]); break;
        default: same = false;
        }
        if (!same)
            return false;
    }
    return true;
}

static bool node_equal(const ir_node *a, const ir_node *b)
{
    if (a->op_type != b->op_type || a->domain != b->domain || !str_eq(a->name, b->name) ||
        a->n_inputs != b->n_inputs || a->n_outputs != b->n_outputs ||
        a->n_attrs != b->n_attrs || a->dead != b->dead)
        return false;
    if ((a->n_inputs && memcmp(a->inputs, b->inputs, (size_t)a->n_inputs * sizeof(int))) ||
        (a->n_outputs && memcmp(a->outputs, b->outputs, (size_t)a->n_outputs * sizeof(int))))
        return false;
    for (int i = 0; i < a->n_attrs; i++)
        if (!attr_equal(&a->attrs[i], &b->attrs[i]))
            return false;
    return true;
}

bool ir_graph_equal(const ir_graph *a, const ir_graph *b)
{
    if (!a || !b)
        return a == b;
    if (!str_eq(a->name, b->name) || a->n_tensors != b->n_tensors || a->n_nodes != b->n_nodes ||
        a->n_inputs != b->n_inputs || a->n_outputs != b->n_outputs)
        return false;
    if ((a->n_inputs && memcmp(a->inputs, b->inputs, (size_t)a->n_inputs * sizeof(int))) ||
        (a->n_outputs && memcmp(a->outputs, b->outputs, (size_t)a->n_outputs * sizeof(int))))
        return false;
    for (int i = 0; i < a->n_tensors; i++)
        if (!tensor_equal(&a->tensors[i], &b->tensors[i]))
            return false;
    for (int i = 0; i < a->n_nodes; i++)
        if (!node_equal(&a->nodes[i], &b->nodes[i]))
            return false;
    return true;
}

bool ir_model_equal(const ir_model *a, const ir_model *b)
{
    if (!a || !b)
        return a == b;
    if (a->ir_version != b->ir_version || a->n_opsets != b->n_opsets ||
        !str_eq(a->producer_name, b->producer_name) ||
        !str_eq(a->producer_version, b->producer_version))
        return false;
    for (int i = 0; i < a->n_opsets; i++)
        if (ir_model_opset(b, a->opsets[i].domain) != a->opsets[i].version)
            return false;
    return ir_graph_equal(a->graph, b->graph);
}
