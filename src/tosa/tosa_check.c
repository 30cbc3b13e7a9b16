/* Whole-graph checks done after reading: control-flow operators must name existing blocks,
 * and the blocks they call must not recurse or nest deeper than TOSA_MAX_CALL_DEPTH, so an
 * executor can recurse into sub-graphs without its own guard against cycles. */
#include "tosa/tosa_internal.h"

#include <string.h>

#include "util/alloc.h"

typedef struct cf_ctx {
    const tosa_graph *g;
    const tosa_block **blocks; /* every block, flattened */
    unsigned char *state;      /* 0 unvisited, 1 on the current path, 2 done */
    int *height;               /* done blocks: longest chain of calls below them */
    int n;
    const char *what; /* message prefix: "bad .tosa file" when reading */
    tosac_error *err;
} cf_ctx;

static int block_id(const cf_ctx *c, const tosa_block *b)
{
    for (int i = 0; i < c->n; i++)
        if (c->blocks[i] == b)
            return i;
    return -1;
}

static tosac_code visit(cf_ctx *c, int id, int depth, int *height);

static tosac_code visit_ref(cf_ctx *c, const tosa_block *from, int op_index, tosa_op op,
                            const char *field, const char *name, int depth, int *height)
{
    if (!name)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: block '%s' operator %d (%s): %s is missing",
                          c->what, from->name, op_index, tosa_op_name(op), field);
    const tosa_block *to = tosa_graph_find_block(c->g, name);
    if (!to)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: block '%s' operator %d (%s): %s '%s' is "
                          "not a block or region of the graph", c->what, from->name, op_index,
                          tosa_op_name(op), field, name);
    int h;
    tosac_code rc = visit(c, block_id(c, to), depth + 1, &h);
    if (!rc && h + 1 > *height)
        *height = h + 1;
    return rc;
}

static tosac_code visit(cf_ctx *c, int id, int depth, int *height)
{
    const tosa_block *b = c->blocks[id];
    *height = 0;
    if (c->state[id] == 2) {
        *height = c->height[id];
        return TOSAC_OK;
    }
    if (c->state[id] == 1)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: block '%s' calls itself "
                          "through control flow (recursion)", c->what, b->name);
    if (depth + *height > TOSA_MAX_CALL_DEPTH)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: control flow nests deeper than %d blocks "
                          "(at block '%s')", c->what, TOSA_MAX_CALL_DEPTH, b->name);
    c->state[id] = 1;
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < b->n_ops && !rc; i++) {
        const tosa_operator *o = &b->ops[i];
        if (o->op == TOSA_OP_COND_IF) {
            rc = visit_ref(c, b, i, o->op, "then_graph", o->attr.then_graph, depth, height);
            if (!rc)
                rc = visit_ref(c, b, i, o->op, "else_graph", o->attr.else_graph, depth, height);
        } else if (o->op == TOSA_OP_WHILE_LOOP) {
            rc = visit_ref(c, b, i, o->op, "cond_graph", o->attr.cond_graph, depth, height);
            if (!rc)
                rc = visit_ref(c, b, i, o->op, "body_graph", o->attr.body_graph, depth, height);
        }
    }
    if (!rc && *height > TOSA_MAX_CALL_DEPTH)
        rc = tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: control flow nests deeper than %d blocks "
                        "(below block '%s')", c->what, TOSA_MAX_CALL_DEPTH, b->name);
    c->state[id] = 2;
    c->height[id] = *height;
    return rc;
}

tosac_code tosa_check_control_flow(const tosa_graph *g, const char *what, tosac_error *err)
{
    cf_ctx c = {g, NULL, NULL, NULL, 0, what, err};
    for (int r = 0; r < g->n_regions; r++)
        c.n += g->regions[r].n_blocks;
    if (c.n == 0)
        return TOSAC_OK;
    /* temporaries from the graph's own allocator (the reader's under tosa_graph_read_ex) */
    c.blocks = tosac_alloc_array(&g->alloc, (size_t)c.n, sizeof *c.blocks, 0);
    c.state = tosac_alloc_zero(&g->alloc, (size_t)c.n, 1);
    c.height = c.state ? tosac_alloc_array(&g->alloc, (size_t)c.n, sizeof *c.height, 0) : NULL;
    if (c.height)
        memset(c.height, 0, (size_t)c.n * sizeof *c.height);
    tosac_code rc = TOSAC_OK;
    if (!c.blocks || !c.state || !c.height) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory checking control flow (%d "
                        "blocks)", c.n);
        goto out;
    }
    int k = 0;
    for (int r = 0; r < g->n_regions; r++)
        for (int i = 0; i < g->regions[r].n_blocks; i++)
            c.blocks[k++] = &g->regions[r].blocks[i];
    for (int i = 0; i < c.n && !rc; i++) {
        int h;
        rc = visit(&c, i, 0, &h);
    }
out:
    tosac_release(&g->alloc, c.height);
    tosac_release(&g->alloc, c.state);
    tosac_release(&g->alloc, c.blocks);
    return rc;
}
