/* libFuzzer target: the .npy reader (header dictionary, dtype, shape, payload size). */
#include "tosac/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tosac_error err = {0};
    tosac_tensor t = {0};
    if (tosac_npy_parse(data, size, &t, &err) == TOSAC_OK)
        tosac_tensor_free(&t);
    return 0;
}
