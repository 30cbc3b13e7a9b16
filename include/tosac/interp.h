/* The bit-exact TOSA interpreter. Runs the main block of a graph. */
#ifndef TOSAC_INTERP_H
#define TOSAC_INTERP_H

#include "tosac/tosa.h"

/* Runs g's main block. inputs[i] binds the block's i-th input (dtype and shape must match,
 * or TOSAC_ERR_INPUT naming the input). On success outputs[0..n_outputs) are allocated
 * tensors the caller frees with tosac_tensor_free; n_outputs must equal the block's outputs.
 * An ERROR_IF violation is TOSAC_ERR_INPUT naming the operator and the condition. */
tosac_code tosa_interp_run(const tosa_graph *g, const tosac_tensor *inputs, int n_inputs,
                           tosac_tensor *outputs, int n_outputs, tosac_error *err);

#endif
