/* Static shape rules of image sampling (ONNX semantics): GridSample, RoiAlign. */
#include "ir_shape.h"

#include <string.h>

#define NODE (&c->g->nodes[node])

/* X [N, C, D...], grid [N, D_out..., r] -> [N, C, D_out...] */
static tosac_code r_grid_sample(shape_ctx *c, int node)
{
    const ir_tensor *x, *g;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &g))
        return c->err->code;
    if (x->rank < 3 || g->rank != x->rank || g->shape[0] != x->shape[0] ||
        g->shape[g->rank - 1] != x->rank - 2)
        return sh_bad(c, node, "inconsistent shapes: grid must be [N, D_out..., rank - 2]");
    int64_t out[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int d = 1; d < g->rank - 1; d++)
        out[d + 1] = g->shape[d];
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

/* [num_rois, C, output_height, output_width] */
static tosac_code r_roi_align(shape_ctx *c, int node)
{
    const ir_tensor *x, *rois;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &rois))
        return c->err->code;
    if (x->rank != 4 || rois->rank != 2 || rois->shape[1] != 4)
        return sh_bad(c, node, "X must be 4-D and rois [num_rois, 4]");
    int64_t oh = ir_node_attr_int(NODE, "output_height", 1);
    int64_t ow = ir_node_attr_int(NODE, "output_width", 1);
    if (oh < 1 || ow < 1)
        return sh_bad(c, node, "output_height/output_width must be positive");
    int64_t out[4] = {rois->shape[0], x->shape[1], oh, ow};
    return sh_set(c, node, 0, x->dtype, 4, out);
}

const shape_rule_row ir_shape_rules_image[] = {
    {"GridSample", r_grid_sample}, {"RoiAlign", r_roi_align},
    {NULL, NULL},
};
