/* Deep structural equality of two graphs (used by round-trip tests and tools). */
#include "tosa/tosa_internal.h"

#include <string.h>

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool ints_eq(const int *a, int na, const int *b, int nb)
{
    return na == nb && (na == 0 || memcmp(a, b, (size_t)na * sizeof *a) == 0);
}

static bool tensor_eq(const tosa_tensor *a, const tosa_tensor *b)
{
    if (!str_eq(a->name, b->name) || a->dtype != b->dtype ||
        !tosac_shape_equal(a->rank, a->shape, b->rank, b->shape) ||
        a->is_unranked != b->is_unranked || a->variable != b->variable ||
        a->in_shapes_table != b->in_shapes_table || a->outer_ref != b->outer_ref ||
        !str_eq(a->variable_name, b->variable_name))
        return false;
    if (!a->data || !b->data)
        return !a->data && !b->data;
    return a->data_size == b->data_size && memcmp(a->data, b->data, a->data_size) == 0;
}

static bool op_eq(const tosa_operator *a, const tosa_operator *b)
{
    return a->op == b->op && tosa_attr_equal(a->op, &a->attr, &b->attr) &&
           ints_eq(a->inputs, a->n_inputs, b->inputs, b->n_inputs) &&
           ints_eq(a->outputs, a->n_outputs, b->outputs, b->n_outputs) &&
           str_eq(a->location, b->location);
}

static bool block_eq(const tosa_block *a, const tosa_block *b)
{
    if (!str_eq(a->name, b->name) || a->n_tensors != b->n_tensors || a->n_ops != b->n_ops ||
        !ints_eq(a->inputs, a->n_inputs, b->inputs, b->n_inputs) ||
        !ints_eq(a->outputs, a->n_outputs, b->outputs, b->n_outputs))
        return false;
    for (int i = 0; i < a->n_tensors; i++)
        if (!tensor_eq(&a->tensors[i], &b->tensors[i]))
            return false;
    for (int i = 0; i < a->n_ops; i++)
        if (!op_eq(&a->ops[i], &b->ops[i]))
            return false;
    return true;
}

bool tosa_graph_equal(const tosa_graph *a, const tosa_graph *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->ver_major != b->ver_major || a->ver_minor != b->ver_minor ||
        a->ver_patch != b->ver_patch || a->ver_draft != b->ver_draft ||
        a->n_regions != b->n_regions)
        return false;
    for (int r = 0; r < a->n_regions; r++) {
        const tosa_region *ra = &a->regions[r], *rb = &b->regions[r];
        if (!str_eq(ra->name, rb->name) || ra->n_blocks != rb->n_blocks)
            return false;
        for (int i = 0; i < ra->n_blocks; i++)
            if (!block_eq(&ra->blocks[i], &rb->blocks[i]))
                return false;
    }
    return true;
}
