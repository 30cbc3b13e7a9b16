/* An activation fused into the store of a product kernel (Conv followed by Relu or Clip):
 * the same comparisons as kern_unary's KERN_RELU and KERN_CLIP on floats, so fusing changes
 * no bit (Relu: v > 0 ? v : 0, so -0 and NaN give +0; Clip: v < lo ? lo : v > hi ? hi : v,
 * NaN passes). */
#ifndef TOSAC_KERNELS_OUT_ACT_H
#define TOSAC_KERNELS_OUT_ACT_H

#include <stdint.h>

typedef enum kern_out_act_kind { KERN_OUT_ACT_NONE, KERN_OUT_ACT_RELU, KERN_OUT_ACT_CLIP } kern_out_act_kind;

typedef struct kern_out_act {
    kern_out_act_kind kind;
    float lo, hi; /* KERN_OUT_ACT_CLIP bounds */
} kern_out_act;

/* Applies a (NULL or KERN_OUT_ACT_NONE: nothing) to y[0..n). */
static inline void kern_out_act_run(const kern_out_act *a, float *y, int64_t n)
{
    if (!a || a->kind == KERN_OUT_ACT_NONE)
        return;
    if (a->kind == KERN_OUT_ACT_RELU) {
        for (int64_t i = 0; i < n; i++)
            y[i] = y[i] > 0 ? y[i] : 0.0f;
        return;
    }
    const float lo = a->lo, hi = a->hi;
    for (int64_t i = 0; i < n; i++) { /* v < lo ? lo : v > hi ? hi : v, as two selects */
        const float v = y[i], t = v > hi ? hi : v;
        y[i] = v < lo ? lo : t;
    }
}

#endif
