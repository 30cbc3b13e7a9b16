/* ONNX import and export (protobuf-c underneath).
 *
 * Import turns a ModelProto into an ir_model: graph inputs (an input that also has an
 * initializer is treated as a constant, not an input), initializers (raw_data, typed fields,
 * sparse initializers, external data files next to the model), nodes with every attribute kind,
 * value_info shapes, and subgraphs (If/Loop/Scan bodies) whose outer-scope reads become
 * captures. Constant nodes stay nodes (ir_graph_const_value reads every value_* form; a
 * sparse_value becomes a dense "value"). An If whose condition is constant is replaced by the
 * branch it takes. Q/DQ, QLinearConv and QLinearMatMul record their constant scale/zero point
 * on the tensors they describe (ir_tensor.quant); the nodes keep their inputs unchanged.
 * The model is verified before it is returned.
 *
 * All input is untrusted: malformed protobuf, wrong field types, unknown data types,
 * inconsistent sizes, cycles, huge dims, dangling names and unsafe external-data paths are
 * TOSAC_ERR_INPUT (TOSAC_ERR_UNSUPPORTED for valid ONNX we do not handle) with a message
 * naming the node or tensor. */
#ifndef TOSAC_ONNX_H
#define TOSAC_ONNX_H

#include <stddef.h>

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/tensor.h"

/* ai.onnx opset versions the importer accepts. Models importing an older opset (down to
 * ONNX_MIN_LEGACY_OPSET) are accepted only when every operator they use means what it means
 * at opset 9, so consumers may treat them as opset-9 models; the one exception is Scan-8
 * (batch axis and sequence_lens), which a consumer must check the opset for. */
#define ONNX_MIN_OPSET 9
#define ONNX_MAX_OPSET 21
#define ONNX_MIN_LEGACY_OPSET 1

/* base_dir: directory external data paths are relative to; NULL rejects external data. */
tosac_code onnx_import_bytes(const void *buf, size_t len, const char *base_dir, ir_model **out,
                             tosac_error *err);
/* Reads path; external data is looked up next to it. */
tosac_code onnx_import_file(const char *path, ir_model **out, tosac_error *err);

/* ir_model -> ModelProto bytes (*buf malloc'd): opset imports, initializers (raw_data),
 * inputs/outputs with types, value_info for other typed tensors, nodes, subgraphs. */
tosac_code onnx_export_bytes(const ir_model *m, void **buf, size_t *len, tosac_error *err);
/* Written atomically. */
tosac_code onnx_export_file(const ir_model *m, const char *path, tosac_error *err);

/* A serialized TensorProto (as the ONNX node tests store inputs and outputs) into a host tensor
 * that owns its data; *name (may be NULL) gets the tensor's name, malloc'd. */
tosac_code onnx_read_tensor_bytes(const void *buf, size_t len, tosac_tensor *out, char **name,
                                  tosac_error *err);
tosac_code onnx_read_tensor_file(const char *path, tosac_tensor *out, char **name,
                                 tosac_error *err);

/* Records the constant scale/zero point of QuantizeLinear / DequantizeLinear / QLinear* nodes
 * on the quantized tensors they describe (recursing into subgraphs), as import does: a QDQ
 * graph built in memory (the quantizer's) is then in the same state as an imported one. */
tosac_code onnx_record_quant(ir_graph *g, tosac_error *err);

/* onnx_dtype_to_tosac / onnx_dtype_from_tosac: tosac/dtype.h */
/* "FLOAT", "INT8", ... for messages; "type 99" style text for unknown values (static buf). */
const char *onnx_dtype_name(int onnx_type);

#endif
