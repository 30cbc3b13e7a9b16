/* libFuzzer target: the strict JSON reader (the delegate metadata and report format). */
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tosac_error err = {0};
    tosac_json *v = NULL;
    if (tosac_json_parse((const char *)data, size, &v, &err) == TOSAC_OK)
        tosac_json_free(v);
    return 0;
}
