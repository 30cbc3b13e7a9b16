/* `tosac run ... --dump-intermediates DIR`: every value a run makes, as DIR/<name>.npy, and
 * DIR/index.json listing them in the order they were made (docs/USAGE.md, "Finding the layer
 * that goes wrong"). Values are copied as the run hands them over (the runtime reuses its
 * buffers) and written together at the end: a failed run or write leaves no dump behind. */
#ifndef TOSAC_CLI_DUMP_H
#define TOSAC_CLI_DUMP_H

#include "tosac/error.h"
#include "tosac/tensor.h"

typedef struct cli_dump cli_dump;

cli_dump *cli_dump_new(const char *dir);
/* The program's compile report (its quantized_tensors, docs/REPORT.md): each integer value
 * named there is also written dequantized, under the float tensor's name. NULL: none. */
tosac_code cli_dump_set_report(cli_dump *d, const char *report_json, tosac_error *err);
/* One value: name, what wrote it (op, node: "" when none), delegate (-1: not inside one).
 * The first value of a name is kept (a delegate's output is seen inside it and again as the
 * CPU value it becomes). Failures are kept for cli_dump_write. */
void cli_dump_value(cli_dump *d, const char *name, const tosac_tensor *t, const char *op,
                    const char *node, int delegate);
/* Writes every value and index.json (created or replaced together). */
tosac_code cli_dump_write(cli_dump *d, tosac_error *err);
void cli_dump_free(cli_dump *d);

#endif
