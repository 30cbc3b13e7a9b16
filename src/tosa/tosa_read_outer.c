/* Outer references: a COND_IF / WHILE_LOOP sub-block may use a tensor declared only in the
 * block that calls it (the conformance WHILE_LOOP tests do: the loop condition compares with
 * a constant of "main"). The reader gives such a name a placeholder tensor in the sub-block
 * (outer_ref) and, once every block is read, copies dtype and shape from the declaration
 * found by walking up the callers. */
#include "tosa/tosa_read.h"

#include <string.h>

int tosa_reader_operand(tosa_reader *r, tosa_block *b, const tosa_name_index *ix,
                        const char *name)
{
    int ti = tosa_name_lookup(ix, name);
    if (ti >= 0)
        return ti;
    for (int i = ix->n; i < b->n_tensors; i++) /* outer references follow the declared */
        if (strcmp(b->tensors[i].name, name) == 0)
            return i;
    if (r->n_outer >= TOSA_MAX_OUTER_REFS) {
        tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: more than %d names refer to "
                   "tensors outside their block", TOSA_MAX_OUTER_REFS);
        return -1;
    }
    char *nm = tosa_reader_str(r, name, strlen(name));
    if (!nm)
        return -1;
    tosa_tensor *t = tosa_reader_new_tensor(r, b, nm, TOSAC_DT_UNKNOWN, 0, NULL);
    if (!t) {
        tosa_graph_release(r->g, nm);
        return -1;
    }
    t->outer_ref = true;
    r->n_outer++;
    return (int)(t - b->tensors);
}

/* Names the operators use that the block does not declare (an upper bound: repeats count). */
static int count_missing(const fb_buf *fb, const fb_table *ot, int id, const tosa_name_index *ix)
{
    fb_vec v;
    bool present;
    int n = 0;
    if (fb_vec_field(fb, ot, id, 4, &v, &present, "operator"))
        return 0;
    for (uint32_t i = 0; i < v.n; i++) {
        const char *s;
        size_t len;
        if (fb_vec_str(fb, &v, i, &s, &len, "operator"))
            return n;
        n += tosa_name_lookup(ix, s) < 0;
    }
    return n;
}

int tosa_count_outer_candidates(tosa_reader *r, const fb_vec *ops, const tosa_name_index *ix)
{
    /* a quiet pass: a malformed operator is reported when it is read for real */
    tosac_error quiet;
    tosac_error_clear(&quiet);
    fb_buf fb = r->b;
    fb.err = &quiet;
    int n = 0;
    for (uint32_t i = 0; i < ops->n && n < TOSA_MAX_OUTER_REFS + 1; i++) {
        fb_table ot;
        if (fb_vec_table(&fb, ops, i, &ot, "operator"))
            break;
        n += count_missing(&fb, &ot, 3, ix) + count_missing(&fb, &ot, 4, ix);
    }
    return n < TOSA_MAX_OUTER_REFS + 1 ? n : TOSA_MAX_OUTER_REFS + 1;
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

/* The first operator of b naming tensor ti (inputs before outputs, as they are read). */
static int first_use(const tosa_block *b, int ti, const char **kind)
{
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        for (int k = 0; k < o->n_inputs; k++)
            if (o->inputs[k] == ti) {
                *kind = "input";
                return i;
            }
        for (int k = 0; k < o->n_outputs; k++)
            if (o->outputs[k] == ti) {
                *kind = "output";
                return i;
            }
    }
    *kind = "operand";
    return 0;
}

tosac_code tosa_resolve_outer_refs(tosa_reader *r, tosa_graph *g)
{
    if (r->n_outer == 0)
        return TOSAC_OK;
    int n_blocks = 0;
    for (int i = 0; i < g->n_regions; i++)
        n_blocks += g->regions[i].n_blocks;
    const tosa_block **queue = tosa_reader_alloc(r, (size_t)n_blocks * sizeof *queue, 0);
    if (!queue)
        return r->err->code;
    tosac_code rc = TOSAC_OK;
    /* region, block and creation order: the first unresolvable reference is reported */
    for (int ri = 0; ri < g->n_regions && !rc; ri++)
        for (int bi = 0; bi < g->regions[ri].n_blocks && !rc; bi++) {
            tosa_block *b = &g->regions[ri].blocks[bi];
            for (int ti = 0; ti < b->n_tensors && !rc; ti++) {
                tosa_tensor *t = &b->tensors[ti];
                if (!t->outer_ref)
                    continue;
                const tosa_tensor *decl = find_declaration(g, b, t->name, queue, n_blocks);
                if (!decl) {
                    const char *kind;
                    int op = first_use(b, ti, &kind);
                    rc = tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: operator %d (%s): "
                                    "%s '%s' is not a tensor of block '%s'", op,
                                    tosa_op_name(b->ops[op].op), kind, t->name, b->name);
                    break;
                }
                t->dtype = decl->dtype;
                t->rank = decl->rank;
                memcpy(t->shape, decl->shape, sizeof t->shape);
                t->is_unranked = decl->is_unranked;
            }
        }
    tosa_graph_release(g, queue);
    return rc;
}
