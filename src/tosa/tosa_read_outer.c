/* Outer references: a COND_IF / WHILE_LOOP sub-block may use a tensor declared only in the
 * block that calls it (the conformance WHILE_LOOP tests do: the loop condition compares with
 * a constant of "main"). The reader gives such a name a placeholder tensor in the sub-block
 * (outer_ref) and, once every block is read, copies dtype and shape from the declaration
 * found by walking up the callers. */
#include "tosa/tosa_read.h"

#include <stdlib.h>
#include <string.h>

int tosa_reader_operand(tosa_reader *r, tosa_block *b, const tosa_name_index *ix,
                        const char *name)
{
    int ti = tosa_name_lookup(ix, name);
    if (ti >= 0)
        return ti;
    for (int i = 0; i < r->n_outer; i++) {
        const tosa_outer_ref *o = &r->outer[i];
        if (o->region == r->cur_region && o->block == r->cur_block &&
            strcmp(b->tensors[o->tensor].name, name) == 0)
            return o->tensor;
    }
    if (r->n_outer >= TOSA_MAX_OUTER_REFS) {
        tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: more than %d names refer to "
                   "tensors outside their block", TOSA_MAX_OUTER_REFS);
        return -1;
    }
    if (!(r->n_outer & (r->n_outer - 1))) {
        void *p = realloc(r->outer, (size_t)(r->n_outer ? 2 * r->n_outer : 1) * sizeof *r->outer);
        if (!p) {
            tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
            return -1;
        }
        r->outer = p;
    }
    if (tosa_reader_charge(r, strlen(name) + 1) != TOSAC_OK)
        return -1;
    ti = tosa_block_push_tensor(b, name, TOSAC_DT_UNKNOWN, 0, NULL, NULL, 0, r->err);
    if (ti < 0)
        return -1;
    b->tensors[ti].outer_ref = true;
    r->outer[r->n_outer++] = (tosa_outer_ref){r->cur_region, r->cur_block, ti, r->cur_op,
                                                r->cur_kind};
    return ti;
}

static tosa_block *block_at(tosa_graph *g, int region, int block)
{
    return &g->regions[region].blocks[block];
}

/* True if some operator of `caller` runs block `callee` as a sub-graph. */
static bool calls(const tosa_graph *g, const tosa_block *caller, const tosa_block *callee)
{
    for (int i = 0; i < caller->n_ops; i++) {
        const tosa_operator *o = &caller->ops[i];
        const char *names[2] = {NULL, NULL};
        if (o->op == TOSA_OP_COND_IF) {
            names[0] = o->attr.then_graph;
            names[1] = o->attr.else_graph;
        } else if (o->op == TOSA_OP_WHILE_LOOP) {
            names[0] = o->attr.cond_graph;
            names[1] = o->attr.body_graph;
        }
        for (int k = 0; k < 2; k++)
            if (names[k] && tosa_graph_find_block(g, names[k]) == callee)
                return true;
    }
    return false;
}

/* Breadth-first walk up the callers of `start` for a real declaration of `name`. */
static const tosa_tensor *find_declaration(const tosa_graph *g, const tosa_block *start,
                                           const char *name, const tosa_block **queue,
                                           int n_blocks)
{
    int head = 0, tail = 0;
    queue[tail++] = start;
    while (head < tail) {
        const tosa_block *cur = queue[head++];
        for (int r = 0; r < g->n_regions; r++)
            for (int i = 0; i < g->regions[r].n_blocks; i++) {
                const tosa_block *cand = &g->regions[r].blocks[i];
                bool seen = false;
                for (int q = 0; q < tail && !seen; q++)
                    seen = queue[q] == cand;
                if (seen || tail >= n_blocks || !calls(g, cand, cur))
                    continue;
                int ti = tosa_block_find_tensor(cand, name);
                if (ti >= 0 && !cand->tensors[ti].outer_ref)
                    return &cand->tensors[ti];
                queue[tail++] = cand;
            }
    }
    return NULL;
}

tosac_code tosa_resolve_outer_refs(tosa_reader *r, tosa_graph *g)
{
    if (r->n_outer == 0)
        return TOSAC_OK;
    int n_blocks = 0;
    for (int i = 0; i < g->n_regions; i++)
        n_blocks += g->regions[i].n_blocks;
    const tosa_block **queue = malloc((size_t)n_blocks * sizeof *queue);
    if (!queue)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < r->n_outer && !rc; i++) {
        tosa_block *b = block_at(g, r->outer[i].region, r->outer[i].block);
        tosa_tensor *t = &b->tensors[r->outer[i].tensor];
        const tosa_tensor *decl = find_declaration(g, b, t->name, queue, n_blocks);
        if (!decl) {
            const tosa_operator *o = &b->ops[r->outer[i].op];
            rc = tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: operator %d (%s): %s '%s' "
                            "is not a tensor of block '%s'", r->outer[i].op,
                            tosa_op_name(o->op), r->outer[i].kind, t->name, b->name);
            break;
        }
        t->dtype = decl->dtype;
        t->rank = decl->rank;
        memcpy(t->shape, decl->shape, sizeof t->shape);
        t->is_unranked = decl->is_unranked;
    }
    free(queue);
    return rc;
}
