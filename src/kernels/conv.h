/* Convolution kernels, NC(D)(H)W layout, 1 to 3 spatial dimensions, groups, dilations. */
#ifndef TOSAC_KERNELS_CONV_H
#define TOSAC_KERNELS_CONV_H

#include "kernels/out_act.h"
#include "kernels/kern.h"

#define KERN_CONV_MAX_SP 3

typedef struct kern_conv_params {
    int nsp;                          /* spatial dims, 1..3 */
    int64_t n, c, m, group;           /* batch, input channels, output channels, groups */
    int64_t in[KERN_CONV_MAX_SP];     /* input spatial size */
    int64_t k[KERN_CONV_MAX_SP];      /* kernel spatial size */
    int64_t out[KERN_CONV_MAX_SP];    /* output spatial size */
    int64_t stride[KERN_CONV_MAX_SP];
    int64_t dil[KERN_CONV_MAX_SP];
    int64_t pad[KERN_CONV_MAX_SP];    /* padding before each spatial dim (the end pad is
                                         implied by out) */
} kern_conv_params;

/* y[n,m,o] = bias[m] + sum_{c in group, k} x[n,c,o*stride-pad+k*dil] * w[m,c,k], the bias
 * added after the sum. bias may be NULL. w is [m, c/group, k...]. scratch holds
 * kern_conv_f32_scratch(p) floats. Depthwise convolutions (1-D/2-D) run their own window
 * kernel; every other one is a matrix product per group (sgemm.h): a 1x1 stride-1 unpadded
 * kernel reads the image as B directly, others first copy a block of image columns
 * (im2col). The summation order therefore differs from the naive (c, k) order. */
size_t kern_conv_f32_scratch(const kern_conv_params *p);
void kern_conv_f32(const kern_conv_params *p, const float *x, const float *w, const float *bias,
                   float *y, float *scratch);
/* The same with the weights packed once (constant weights, kept by the caller): floats the
 * packing needs (0: this convolution's path reads w as it is), the packing (returns the tag
 * to pass along), and the convolution reading wp (w when wp is NULL or the tag is stale),
 * with act (NULL or an activation, out_act.h) applied to every output after its bias. */
size_t kern_conv_f32_packed_size(const kern_conv_params *p);
int kern_conv_f32_pack(const kern_conv_params *p, const float *w, float *wp);
int kern_conv_f32_pack_tag(void);
void kern_conv_f32_packed(const kern_conv_params *p, const float *x, const float *w,
                          const float *wp, int tag, const float *bias, const kern_out_act *act,
                          float *y, float *scratch);
/* The depthwise path of kern_conv_f32 (group == c, any channel multiplier, nsp <= 2). */
int kern_conv_is_depthwise(const kern_conv_params *p);
size_t kern_conv_depthwise_scratch(const kern_conv_params *p);
void kern_conv_depthwise_f32(const kern_conv_params *p, const float *x, const float *w,
                             const float *bias, const kern_out_act *act, float *y, float *scratch);
/* The same over int32 values (inputs with their zero points already subtracted). */
void kern_conv_i32(const kern_conv_params *p, const int32_t *x, const int32_t *w,
                   const int32_t *bias, int32_t *y);

/* ConvTranspose: p->in is the input size, p->out the output size, w is [c, m/group, k...],
 * y[n,m,i*stride-pad+k*dil] += x[n,c,i] * w[c,m,k], then bias. */
void kern_conv_transpose_f32(const kern_conv_params *p, const float *x, const float *w,
                             const float *bias, float *y);

#endif
