/* Internal to the convolution kernels: spatial geometry padded to 3 dimensions with
 * leading 1s, so one loop nest serves 1-D, 2-D and 3-D. */
#ifndef TOSAC_KERNELS_CONV_SP3_H
#define TOSAC_KERNELS_CONV_SP3_H

#include "kernels/conv.h"

typedef struct sp3 {
    int64_t in[3], k[3], out[3], s[3], d[3], pad[3];
} sp3;

static inline void to_sp3(const kern_conv_params *p, sp3 *g)
{
    int lead = 3 - p->nsp;
    for (int i = 0; i < 3; i++) {
        int j = i - lead;
        g->in[i] = j < 0 ? 1 : p->in[j];
        g->k[i] = j < 0 ? 1 : p->k[j];
        g->out[i] = j < 0 ? 1 : p->out[j];
        g->s[i] = j < 0 ? 1 : p->stride[j];
        g->d[i] = j < 0 ? 1 : p->dil[j];
        g->pad[i] = j < 0 ? 0 : p->pad[j];
    }
}

/* First and one-past-last output index o with 0 <= o*s - pad + off < in. */
static inline void sp3_valid_range(int64_t out, int64_t in, int64_t s, int64_t pad, int64_t off,
                                   int64_t *lo, int64_t *hi)
{
    /* need o*s >= pad - off and o*s <= in - 1 + pad - off */
    int64_t a = pad - off, b = in - 1 + pad - off;
    int64_t l = a <= 0 ? 0 : (a + s - 1) / s;
    int64_t h = b < 0 ? 0 : b / s + 1;
    if (h > out)
        h = out;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

#endif
