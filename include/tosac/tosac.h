/* tosac: the whole public API in one include.
 *
 * Two libraries (docs/ARCHITECTURE.md): the compiler, libtosac (ONNX import, quantizer,
 * compile to TOSA, .tosa I/O, the reference interpreter; pkg-config `tosac`, CMake
 * `tosac::tosac`), and the runtime, libtosac_runtime (runs a compiled program in a caller's
 * arena, no allocator; pkg-config `tosac-runtime`, CMake `tosac::runtime`). An application that
 * only runs programs includes "tosac/runtime.h" and links the runtime alone.
 * Every fallible call takes a tosac_error * and returns a tosac_code (tosac/error.h). */
#ifndef TOSAC_TOSAC_H
#define TOSAC_TOSAC_H

#include "tosac/version.h"
#include "tosac/limits.h"
#include "tosac/error.h"
#include "tosac/dtype.h"
#include "tosac/alloc.h"
#include "tosac/tensor.h"
#include "tosac/npy.h"
#include "tosac/spec.h"
#include "tosac/ir.h"
#include "tosac/onnx.h"
#include "tosac/quant.h"
#include "tosac/tosa.h"
#include "tosac/interp.h"
#include "tosac/program.h"
#include "tosac/compile.h"
#include "tosac/runtime.h"

#endif
