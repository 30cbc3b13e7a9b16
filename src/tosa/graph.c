/* The in-memory TOSA graph, runtime side: lookup and release through the graph's
 * allocator (building is in graph_build.c, which the runtime does not link). */
#include "tosa/tosa_internal.h"

#include <string.h>

#include "util/alloc.h"

void tosa_graph_release(const tosa_graph *g, void *p)
{
    const uint8_t *q = p;
    if (!p || (g->borrowed && q >= g->borrowed && q <= g->borrowed + g->n_borrowed))
        return;
    tosac_release(&g->alloc, p);
}

void tosa_graph_release_attr(const tosa_graph *g, tosa_attr *a)
{
    tosa_graph_release(g, a->then_graph);
    tosa_graph_release(g, a->else_graph);
    tosa_graph_release(g, a->cond_graph);
    tosa_graph_release(g, a->body_graph);
    tosa_graph_release(g, a->custom_operator_name);
    tosa_graph_release(g, a->custom_domain_name);
    tosa_graph_release(g, a->custom_impl_attrs);
    a->then_graph = a->else_graph = a->cond_graph = a->body_graph = NULL;
    a->custom_operator_name = a->custom_domain_name = NULL;
    a->custom_impl_attrs = NULL;
    a->n_custom_impl_attrs = 0;
}

static void block_release(const tosa_graph *g, tosa_block *b)
{
    if (b->tensors)
        for (int i = 0; i < b->n_tensors; i++) {
            tosa_graph_release(g, b->tensors[i].name);
            tosa_graph_release(g, b->tensors[i].data);
            tosa_graph_release(g, b->tensors[i].variable_name);
        }
    if (b->ops)
        for (int i = 0; i < b->n_ops; i++) {
            tosa_operator *o = &b->ops[i];
            tosa_graph_release_attr(g, &o->attr);
            tosa_graph_release(g, o->inputs);
            tosa_graph_release(g, o->outputs);
            tosa_graph_release(g, o->location);
        }
    tosa_graph_release(g, b->tensors);
    tosa_graph_release(g, b->ops);
    tosa_graph_release(g, b->inputs);
    tosa_graph_release(g, b->outputs);
    tosa_graph_release(g, b->name);
}

void tosa_graph_free(tosa_graph *g)
{
    if (!g)
        return;
    for (int r = 0; g->regions && r < g->n_regions; r++) {
        tosa_region *reg = &g->regions[r];
        for (int i = 0; reg->blocks && i < reg->n_blocks; i++)
            block_release(g, &reg->blocks[i]);
        tosa_graph_release(g, reg->blocks);
        tosa_graph_release(g, reg->name);
    }
    tosa_graph_release(g, g->regions);
    tosac_allocator a = g->alloc; /* g itself came from it */
    tosac_release(&a, g);
}

int tosa_block_find_tensor(const tosa_block *b, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < b->n_tensors; i++)
        if (strcmp(b->tensors[i].name, name) == 0)
            return i;
    return -1;
}

const tosa_block *tosa_graph_main_block(const tosa_graph *g)
{
    if (!g || g->n_regions < 1 || g->regions[0].n_blocks < 1)
        return NULL;
    const tosa_region *r = &g->regions[0];
    for (int i = 0; i < r->n_blocks; i++)
        if (strcmp(r->blocks[i].name, "main") == 0)
            return &r->blocks[i];
    return &r->blocks[0];
}

const tosa_block *tosa_graph_find_block(const tosa_graph *g, const char *name)
{
    if (!g || !name)
        return NULL;
    for (int r = 0; r < g->n_regions; r++)
        if (strcmp(g->regions[r].name, name) == 0 && g->regions[r].n_blocks > 0)
            return &g->regions[r].blocks[0];
    for (int r = 0; r < g->n_regions; r++)
        for (int i = 0; i < g->regions[r].n_blocks; i++)
            if (strcmp(g->regions[r].blocks[i].name, name) == 0)
                return &g->regions[r].blocks[i];
    return NULL;
}
