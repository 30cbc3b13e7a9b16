/* Spatial geometry shared by Conv, ConvTranspose and the pools: kernel, strides, dilations,
 * pads (explicit or auto_pad) and output sizes, from the node's attributes. */
#ifndef TOSAC_CPU_GEOMETRY_H
#define TOSAC_CPU_GEOMETRY_H

#include "cpu/cpu_internal.h"
#include "kernels/conv.h"
#include "onnxop/onnxop_window.h"

#define CPU_MAX_SP 3

typedef struct cpu_geom {
    int nsp;
    int64_t in[CPU_MAX_SP], k[CPU_MAX_SP], s[CPU_MAX_SP], d[CPU_MAX_SP];
    int64_t pb[CPU_MAX_SP], pe[CPU_MAX_SP], out[CPU_MAX_SP];
} cpu_geom;

/* x is [N, C, spatial...]; kernel sizes from kshape (NULL: the kernel_shape attribute).
 * ceil_mode rounds the output size up (pools). */
tosac_code cpu_geom_forward(cpu_ctx *c, const tosac_tensor *x, const int64_t *kshape,
                            int ceil_mode, cpu_geom *g);
/* The two halves: the node's window attributes for x's rank (onnxop_window.h; a prepare
 * step), and the geometry over x from them. */
tosac_code cpu_geom_window(cpu_ctx *c, const tosac_tensor *x, onnx_window *w);
tosac_code cpu_geom_forward_w(cpu_ctx *c, const onnx_window *w, const tosac_tensor *x,
                              const int64_t *kshape, cpu_geom *g);
/* ConvTranspose: output sizes from output_shape / output_padding / pads / auto_pad. */
tosac_code cpu_geom_transpose(cpu_ctx *c, const tosac_tensor *x, const int64_t *kshape,
                              cpu_geom *g);
/* The same from window attributes parsed before (a prepare step's). */
tosac_code cpu_geom_transpose_w(cpu_ctx *c, const onnx_window *w, const tosac_tensor *x,
                                const int64_t *kshape, cpu_geom *g);

/* The prepared state of the conv-like operators (Conv, ConvInteger, QLinearConv,
 * ConvTranspose): group and,
 * when the input's rank is declared, the window attributes. */
typedef struct cpu_conv_prep {
    int64_t group;
    int have_w;
    onnx_window w;
} cpu_conv_prep;
extern const cpu_op_prep cpu_prep_conv;

/* Conv-like operators (Conv, ConvInteger, QLinearConv): checks x [N,C,sp...] against
 * w [M, C/group, k...] and the prepared attributes (c->prep, a cpu_conv_prep); fills the
 * kernel params and the output shape. */
tosac_code cpu_conv_setup(cpu_ctx *c, const tosac_tensor *x, const tosac_tensor *w,
                          kern_conv_params *p, int64_t *yshape);

/* MatMul shape rules (numpy matmul; MatMul, MatMulInteger, QLinearMatMul): 1-D operands are
 * promoted and the added dim removed, batch dims broadcast. Allocates output 0 of type ydt
 * and calls fn once per output matrix with element offsets into a, b and y. */
typedef void (*cpu_mm_fn)(void *ctx, void *y, int64_t a_off, int64_t b_off, int64_t y_off,
                          int64_t m, int64_t n, int64_t k);
tosac_code cpu_matmul_shapes(cpu_ctx *c, const tosac_tensor *a, const tosac_tensor *b,
                             tosac_dtype ydt, cpu_mm_fn fn, void *ctx);

#endif
