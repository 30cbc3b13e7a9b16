/* BatchNormalization's affine form and its folding (onnxop_norm.h). */
#include "onnxop/onnxop_norm.h"

#include <math.h>

void onnx_bn_affine(const tosac_tensor *gamma, const tosac_tensor *beta,
                    const tosac_tensor *mean, const tosac_tensor *var, double eps, int64_t c,
                    double *k, double *shift)
{
    for (int64_t i = 0; i < c; i++) {
        k[i] = tosac_tensor_f64_at(gamma, i) / sqrt(tosac_tensor_f64_at(var, i) + eps);
        shift[i] = tosac_tensor_f64_at(beta, i) - tosac_tensor_f64_at(mean, i) * k[i];
    }
}

double onnx_bn_epsilon(const ir_node *n) { return ir_node_attr_float(n, "epsilon", 1e-5f); }
