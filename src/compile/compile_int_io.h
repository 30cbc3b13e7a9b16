/* --int-io (compile_int_io.c). */
#ifndef TOSAC_COMPILE_INT_IO_H
#define TOSAC_COMPILE_INT_IO_H

#include "tosac/error.h"
#include "tosac/ir.h"

/* Every float graph input becomes its QuantizeLinear's output and every float graph output
 * its DequantizeLinear's input (the Q/DQ dropped, scale and zero point set on the new edge
 * tensors); an input or output without that form is TOSAC_ERR_UNSUPPORTED naming it. */
tosac_code compile_int_io(ir_graph *g, tosac_error *err);

#endif
