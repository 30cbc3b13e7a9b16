/* libFuzzer target: the ONNX reader (protobuf bytes -> graph IR), external data refused. */
#include <stddef.h>
#include <stdint.h>

#include "tosac/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tosac_error err = {0};
    ir_model *m = NULL;
    if (onnx_import_bytes(data, size, NULL, &m, &err) == TOSAC_OK)
        ir_model_free(m);
    return 0;
}
