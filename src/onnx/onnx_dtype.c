/* ONNX TensorProto.DataType names for messages (the numbering itself: src/util/dtype.c). */
#include "tosac/onnx.h"

#include <stdio.h>

const char *onnx_dtype_name(int t)
{
    static _Thread_local char buf[24];
    const char *name = tosac_dtype_onnx_name(t);
    if (name)
        return name;
    snprintf(buf, sizeof buf, "type %d", t);
    return buf;
}
