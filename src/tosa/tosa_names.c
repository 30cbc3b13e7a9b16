/* A name index over a block being built (compiler side): lookups and fresh names in constant
 * time, so lowering a graph stays linear in its size (a linear tosa_block_find_tensor per new
 * tensor, and a suffix search from 1 for every "weight_<k>", made it cubic). */
#include "tosa/tosa_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

void tosa_names_init(tosa_names *ix, const tosa_block *b)
{
    memset(ix, 0, sizeof *ix);
    ix->b = b;
}

void tosa_names_free(tosa_names *ix)
{
    for (size_t i = 0; i < ix->memo_cap; i++)
        free(ix->memo[i].stem);
    free(ix->memo);
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}

/* Index every tensor of the block again (capacity at least twice the count). */
static bool rebuild(tosa_names *ix, size_t want)
{
    size_t cap = 64;
    while (cap < want * 2 + 2)
        cap *= 2;
    int *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    ix->n = 0;
    return true;
}

/* Catches up with the tensors appended since the last call; false when out of memory. */
static bool sync(tosa_names *ix)
{
    const tosa_block *b = ix->b;
    if (b->n_tensors < ix->n || (size_t)b->n_tensors * 2 + 2 > ix->cap)
        if (!rebuild(ix, (size_t)b->n_tensors + 64))
            return false;
    for (; ix->n < b->n_tensors; ix->n++) {
        size_t h = hash_str(b->tensors[ix->n].name) & (ix->cap - 1);
        while (ix->slots[h])
            h = (h + 1) & (ix->cap - 1);
        ix->slots[h] = ix->n + 1;
    }
    return true;
}

int tosa_names_find(tosa_names *ix, const char *name)
{
    if (!name)
        return -1;
    if (!sync(ix))
        return tosa_block_find_tensor(ix->b, name);
    const tosa_block *b = ix->b;
    for (size_t h = hash_str(name) & (ix->cap - 1); ix->slots[h]; h = (h + 1) & (ix->cap - 1))
        if (strcmp(b->tensors[ix->slots[h] - 1].name, name) == 0)
            return ix->slots[h] - 1;
    return -1;
}

/* The memo slot of stem (the last suffix found taken), added when new; NULL when out of
 * memory (the search then starts at 1: slower, same answer). */
static unsigned *memo_of(tosa_names *ix, const char *stem)
{
    if ((ix->memo_n + 1) * 2 > ix->memo_cap) {
        size_t nc = ix->memo_cap ? ix->memo_cap * 2 : 64;
        struct tosa_names_memo *m = calloc(nc, sizeof *m);
        if (!m)
            return NULL;
        for (size_t i = 0; i < ix->memo_cap; i++) {
            if (!ix->memo[i].stem)
                continue;
            size_t h = hash_str(ix->memo[i].stem) & (nc - 1);
            while (m[h].stem)
                h = (h + 1) & (nc - 1);
            m[h] = ix->memo[i];
        }
        free(ix->memo);
        ix->memo = m;
        ix->memo_cap = nc;
    }
    size_t h = hash_str(stem) & (ix->memo_cap - 1);
    for (; ix->memo[h].stem; h = (h + 1) & (ix->memo_cap - 1))
        if (strcmp(ix->memo[h].stem, stem) == 0)
            return &ix->memo[h].last;
    if (!(ix->memo[h].stem = strdup(stem)))
        return NULL;
    ix->memo_n++;
    return &ix->memo[h].last;
}

void tosa_names_fresh(tosa_names *ix, const char *first, const char *stem, char *buf, size_t len)
{
    snprintf(buf, len, "%s", first);
    if (tosa_names_find(ix, buf) < 0)
        return;
    /* names are only added while ix is used, so every suffix below the last one found taken
     * is still taken: the search resumes there and gives the smallest free suffix */
    unsigned *last = memo_of(ix, stem), k = last ? *last : 0;
    for (;;) {
        k++;
        char num[16];
        int nd = snprintf(num, sizeof num, "%u", k);
        size_t keep = strlen(stem);
        if (keep + (size_t)nd >= len) /* too long: the stem gives way to the suffix */
            keep = len > (size_t)nd + 1 ? len - (size_t)nd - 1 : 0;
        snprintf(buf, len, "%.*s%s", (int)keep, stem, num);
        if (tosa_names_find(ix, buf) < 0)
            break;
    }
    if (last)
        *last = k;
}
