/* A step's scratch region as a first-fit heap: an operator's temporaries are released in any
 * order (a Loop drops the last iteration's state while the new one lives), so freed blocks
 * are reused and a loop's temporaries stay bounded by what is alive at once. Blocks are laid
 * one after the other from the base, each behind a 16-byte header; `top` is the end of the
 * last block, `high` its high-water mark (what the compiler measures and plans). */
#include <string.h>

#include "runtime/rt_internal.h"

typedef struct rt_block {
    uint64_t size;   /* payload bytes, a multiple of 16 */
    uint64_t used;
} rt_block;

_Static_assert(sizeof(rt_block) == 16, "headers keep payloads 16-aligned");

void rt_heap_init(rt_heap *h, unsigned char *base, size_t size)
{
    h->base = base;
    h->size = size;
    h->top = 0;
    h->high = 0;
}

static rt_block *at(const rt_heap *h, size_t off) { return (rt_block *)(h->base + off); }

void *rt_heap_alloc(rt_heap *h, size_t bytes)
{
    if (bytes > h->size)
        return NULL;
    size_t need = align16(bytes ? bytes : 1);
    for (size_t off = 0; off < h->top; off += sizeof(rt_block) + at(h, off)->size) {
        rt_block *b = at(h, off);
        if (b->used || b->size < need)
            continue;
        if (b->size >= need + 2 * sizeof(rt_block)) { /* split: the rest stays free */
            rt_block *rest = at(h, off + sizeof(rt_block) + need);
            rest->size = b->size - need - sizeof(rt_block);
            rest->used = 0;
            b->size = need;
        }
        b->used = 1;
        return (unsigned char *)b + sizeof(rt_block);
    }
    if (h->size - h->top < sizeof(rt_block) || h->size - h->top - sizeof(rt_block) < need)
        return NULL;
    rt_block *b = at(h, h->top);
    b->size = need;
    b->used = 1;
    h->top += sizeof(rt_block) + need;
    if (h->top > h->high)
        h->high = h->top;
    return (unsigned char *)b + sizeof(rt_block);
}

void rt_heap_free(rt_heap *h, void *ptr)
{
    unsigned char *p = ptr;
    if (!p || p < h->base + sizeof(rt_block) || p > h->base + h->top)
        return;
    size_t target = (size_t)(p - h->base) - sizeof(rt_block);
    size_t prev = SIZE_MAX;
    /* walk to the block (the header is trusted only when the walk lands on it) */
    size_t off = 0;
    while (off < target && off < h->top) {
        prev = at(h, off)->used ? SIZE_MAX : off;
        off += sizeof(rt_block) + at(h, off)->size;
    }
    if (off != target)
        return;
    rt_block *b = at(h, off);
    b->used = 0;
    size_t next = off + sizeof(rt_block) + b->size;
    while (next < h->top && !at(h, next)->used) { /* merge the free blocks after it */
        b->size += sizeof(rt_block) + at(h, next)->size;
        next = off + sizeof(rt_block) + b->size;
    }
    if (prev != SIZE_MAX) { /* and into the free block before it */
        at(h, prev)->size += sizeof(rt_block) + b->size;
        off = prev;
    }
    if (off + sizeof(rt_block) + at(h, off)->size == h->top) /* the last block: shrink */
        h->top = off;
}
