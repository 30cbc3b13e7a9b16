/* BatchNormalization's inference form as a per-channel affine map, and its folding into the
 * producer before it (Conv, ConvTranspose, Gemm): one arithmetic for the compiler's pass
 * (src/passes/pass_fold_bn.c) and the quantizer's pre-calibration fold
 * (src/quant/quant_fold_bn.c). */
#ifndef TOSAC_ONNXOP_NORM_H
#define TOSAC_ONNXOP_NORM_H

#include "onnxop/onnxop.h"
#include "tosac/tensor.h"

/* BN(y) = y * k[i] + shift[i] per channel i < c, computed in double:
 * k = gamma / sqrt(var + eps), shift = beta - mean * k. The four tensors hold c numeric
 * elements each (the caller checks). */
void onnx_bn_affine(const tosac_tensor *gamma, const tosac_tensor *beta,
                    const tosac_tensor *mean, const tosac_tensor *var, double eps, int64_t c,
                    double *k, double *shift);

/* The epsilon attribute (default 1e-5, read as float as ONNX stores it). */
double onnx_bn_epsilon(const ir_node *n);

/* A producer's channel followed by BN: its weights times k, its bias b becoming
 * b * k + shift (exactly the affine map applied to its output). */
static inline double onnx_bn_fold_weight(double w, double k) { return w * k; }
static inline double onnx_bn_fold_bias(double b, double k, double shift) { return b * k + shift; }

#endif
