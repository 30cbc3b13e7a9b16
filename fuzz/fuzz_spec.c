/* libFuzzer target: the spec-string parser; an accepted spec prints and parses back equal. */
#include <stdlib.h>
#include <string.h>

#include "tosac/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 1); /* the parser takes a C string: cut at the first NUL */
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    tosac_error err = {0};
    tosa_spec spec;
    if (tosa_spec_parse(s, &spec, &err) == TOSAC_OK) {
        char buf[512];
        tosa_spec back;
        int n = tosa_spec_to_string(&spec, buf, sizeof buf);
        if (n <= 0 || (size_t)n >= sizeof buf || tosa_spec_parse(buf, &back, &err) != TOSAC_OK ||
            tosa_spec_features(&back) != tosa_spec_features(&spec))
            abort();
        (void)tosa_spec_op_count(&spec);
    }
    free(s);
    return 0;
}
