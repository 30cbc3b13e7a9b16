/* Name index over a TOSA block being built (tosa_names.c, compiler side). It catches up with
 * tensors appended to the block since its last use; a tensor renamed or removed while it is
 * used is not seen (lower_ctx and the layout propagation only append). */
#ifndef TOSAC_TOSA_NAMES_H
#define TOSAC_TOSA_NAMES_H

#include <stddef.h>

#include "tosac/tosa.h"

typedef struct tosa_names {
    const tosa_block *b;
    int *slots;   /* open addressing: tensor index + 1, 0 empty */
    size_t cap;   /* power of two */
    int n;        /* tensors of b indexed so far */
    struct tosa_names_memo {
        char *stem;
        unsigned last; /* stem<1..last> are all taken */
    } *memo;
    size_t memo_cap, memo_n;
} tosa_names;

void tosa_names_init(tosa_names *ix, const tosa_block *b);
void tosa_names_free(tosa_names *ix);
/* tosa_block_find_tensor through the index: the tensor named name, -1 if none. */
int tosa_names_find(tosa_names *ix, const char *name);
/* In buf (len bytes): first when the block has no tensor of that name, else stem<k> for the
 * smallest k >= 1 it has none of (a stem too long for buf is cut so the suffix fits). */
void tosa_names_fresh(tosa_names *ix, const char *first, const char *stem, char *buf, size_t len);

#endif
