/* Every limit tosac applies to untrusted input (models, .tosa files, programs, .npy files,
 * JSON, spec strings) in one place. Input beyond a limit is refused with a message before
 * anything of that size is allocated; a declared size never becomes a large allocation by
 * itself. Each value can be overridden at build time (-DTOSAC_LIMIT_...=N, e.g. smaller on a
 * microcontroller); the defaults are far above any real network. Node and operator counts,
 * string lengths inside models and total constant bytes are bounded by the file size, since
 * every node, string and constant takes bytes of the file (which is read whole). */
#ifndef TOSAC_LIMITS_H
#define TOSAC_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* Largest file read (models, .tosa, programs, .npy): 4 GiB. */
#ifndef TOSAC_LIMIT_FILE_BYTES
#define TOSAC_LIMIT_FILE_BYTES ((size_t)1 << 32)
#endif
/* Largest tensor (bytes): 16 GiB (half the address space on 32-bit targets), see tensor.h. */
#ifndef TOSAC_LIMIT_TENSOR_BYTES
#define TOSAC_LIMIT_TENSOR_BYTES ((uint64_t)1 << 34)
#endif
/* Largest dimension and element count a model or program may declare: 2^40. */
#ifndef TOSAC_LIMIT_DIM
#define TOSAC_LIMIT_DIM ((int64_t)1 << 40)
#endif
/* Highest rank (TOSAC_MAX_RANK in tensor.h; part of the tensor struct, so not overridable). */
/* Largest arena region a program may ask the runtime for (planned or dynamic): 1 TiB. */
#ifndef TOSAC_LIMIT_RUNTIME_REGION
#define TOSAC_LIMIT_RUNTIME_REGION ((uint64_t)1 << 40)
#endif
/* Nesting of ONNX subgraphs (If/Loop/Scan bodies inside bodies), checked on the wire. */
#ifndef TOSAC_LIMIT_ONNX_NESTING
#define TOSAC_LIMIT_ONNX_NESTING 48
#endif
/* Nesting of TOSA control flow (COND_IF/WHILE_LOOP) a .tosa file may declare, and the
 * interpreter's run-time nesting. */
#ifndef TOSAC_LIMIT_TOSA_CALL_DEPTH
#define TOSAC_LIMIT_TOSA_CALL_DEPTH 32
#endif
#ifndef TOSAC_LIMIT_INTERP_NESTING
#define TOSAC_LIMIT_INTERP_NESTING 256
#endif
/* Tensors a TOSA sub-block may name from its callers. */
#ifndef TOSAC_LIMIT_TOSA_OUTER_REFS
#define TOSAC_LIMIT_TOSA_OUTER_REFS 4096
#endif
/* Program files: sections, and the longest string of the STRINGS section. */
#ifndef TOSAC_LIMIT_PROGRAM_SECTIONS
#define TOSAC_LIMIT_PROGRAM_SECTIONS 65536u
#endif
#ifndef TOSAC_LIMIT_PROGRAM_STRING
#define TOSAC_LIMIT_PROGRAM_STRING 1048575u
#endif
/* JSON nesting (reports, delegate metadata). */
#ifndef TOSAC_LIMIT_JSON_DEPTH
#define TOSAC_LIMIT_JSON_DEPTH 128
#endif
/* .npy header bytes. */
#ifndef TOSAC_LIMIT_NPY_HEADER
#define TOSAC_LIMIT_NPY_HEADER 384
#endif
/* Calibration samples read by the quantizer. */
#ifndef TOSAC_LIMIT_CALIB_SAMPLES
#define TOSAC_LIMIT_CALIB_SAMPLES 4096
#endif

#endif
