/* Compiling an ONNX model for a TOSA specification:
 * import -> shape inference -> pass pipeline -> partition -> lower each delegate -> program. */
#ifndef TOSAC_COMPILE_H
#define TOSAC_COMPILE_H

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/program.h"

typedef struct tosac_compile_options {
    const char *spec;                   /* "TOSA-1.0+INT", ... */
    const char *const *input_shapes;    /* "NAME=D0,D1,..." each */
    int n_input_shapes;
    const char *emit_dir;               /* NULL, or write DIR/<n>.tosa and DIR/<n>.json */
    const char *report_path;            /* NULL, or write the partition report (JSON) */
    const char *quantize;               /* NULL, or "a8w8" / "a16w8": quantize a float model first */
    const char *const *calib;           /* --calib arguments (quant_calib_load forms) */
    int n_calib;
} tosac_compile_options;

/* Compiles model m (consumed: it becomes the program's CPU graph, or is freed on failure).
 * *report (may be NULL) gets the partition report JSON text (malloc'd). */
tosac_code tosac_compile_model(ir_model *m, const tosac_compile_options *o, tosac_program **out,
                               char **report, tosac_error *err);
/* With o->quantize: calibrates on o->calib and quantizes m in place (tosac_quantize); graph
 * inputs with dynamic dims and no --input-shape take the first calibration sample's shape. */
tosac_code tosac_compile_quantize(ir_model *m, const tosac_compile_options *o, tosac_error *err);
/* Reads model_path, (quantizes,) compiles, writes the program to out_path (atomically) and the optional
 * emit dir / report. */
tosac_code tosac_compile_file(const char *model_path, const char *out_path,
                              const tosac_compile_options *o, tosac_error *err);

#endif
