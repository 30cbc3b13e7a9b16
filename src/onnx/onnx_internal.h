/* Shared between the src/onnx files: TensorProto conversion, quant recording, If folding. */
#ifndef TOSAC_ONNX_INTERNAL_H
#define TOSAC_ONNX_INTERNAL_H

#include "tosac/limits.h"
#include "onnx.pb-c.h"
#include "tosac/onnx.h"

/* Nesting deeper than this (graphs in attributes in nodes ...) is refused before unpacking,
 * so a hostile file cannot exhaust the stack in the recursive protobuf-c parser. */
#define ONNX_MAX_NESTING TOSAC_LIMIT_ONNX_NESTING

/* Checks the wire format of buf against desc (field types, lengths, nesting depth). */
tosac_code onnx_wire_check(const void *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                           tosac_error *err);

/* TensorProto -> host tensor owning its data (in dtype.h representation). what names the
 * tensor in messages ("initializer 'w'", "attribute 'value' of node 3 (...)"). tp's
 * raw_data may be taken over as the data (tp is then left without it: convert once). */
tosac_code onnx_tensor_from_proto(Onnx__TensorProto *tp, const char *base_dir,
                                  const char *what, tosac_tensor *out, tosac_error *err);
/* SparseTensorProto -> dense host tensor. */
tosac_code onnx_tensor_from_sparse(const Onnx__SparseTensorProto *sp, const char *base_dir,
                                   const char *what, tosac_tensor *out, tosac_error *err);
/* Host tensor -> a malloc'd TensorProto (raw_data) that protobuf-c's free_unpacked releases
 * (the exporter builds every message with malloc so one free_unpacked frees the model). */
Onnx__TensorProto *onnx_tensor_to_proto(const char *name, tosac_dtype dt, int rank,
                                        const int64_t *shape, const void *data, size_t nbytes,
                                        tosac_error *err);

/* Opsets below ONNX_MIN_OPSET: fails unless every ai.onnx operator (subgraphs included)
 * means at the model's opset what it means at opset 9 (onnx_legacy.c lists which do). */
tosac_code onnx_check_legacy_ops(const ir_model *m, tosac_error *err);
/* Replaces each If with a constant condition by the nodes of the branch it takes. */
tosac_code onnx_fold_constant_if(ir_graph *g, tosac_error *err);

#endif
