/* libFuzzer target: compile from ONNX end to end (import -> passes -> partition -> lower ->
 * program -> read-back check) for TOSA-1.0+INT, on small models only. */
#include <stdio.h>
#include <stdlib.h>

#include "tosac/compile.h"
#include "tosac/onnx.h"

#define FUZZ_COMPILE_MAX_BYTES (64 * 1024)

static void quiet(void *ctx, const char *msg) { (void)ctx; (void)msg; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_COMPILE_MAX_BYTES)
        return 0;
    tosac_set_warning_handler(quiet, NULL);
    tosac_error err = {0};
    ir_model *m = NULL;
    if (onnx_import_bytes(data, size, NULL, &m, &err) != TOSAC_OK)
        return 0;
    tosac_compile_options o = {.spec = "TOSA-1.0+INT"};
    tosac_program *p = NULL;
    char *report = NULL;
    if (tosac_compile_model(m, &o, &p, &report, &err) == TOSAC_OK) { /* m consumed */
        void *buf = NULL;
        size_t len = 0;
        tosa_spec spec;
        /* the file compile writes: sorted, planned, scratch measured (tosac_program_build);
         * a refusal there (an operator the runtime lacks) is compile's exit 2, not a bug */
        tosac_code rc = tosac_program_build(p, &buf, &len, &err);
        if (rc == TOSAC_ERR_INPUT || rc == TOSAC_ERR_UNSUPPORTED) {
            tosac_program_free(p);
            free(report);
            return 0;
        }
        if (rc != TOSAC_OK || tosa_spec_parse(o.spec, &spec, &err) != TOSAC_OK ||
            tosac_compile_verify(buf, len, &spec, &err) != TOSAC_OK) {
            fprintf(stderr, "compiled program fails its check: %s\n", err.msg);
            abort(); /* what compile returns must pass its own read-back check */
        }
        free(buf);
        tosac_program_free(p);
    }
    free(report);
    return 0;
}
