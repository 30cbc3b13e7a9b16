/* Compiling an ONNX model for a TOSA specification:
 * import -> shape inference -> pass pipeline -> partition -> lower each delegate -> program. */
#ifndef TOSAC_COMPILE_H
#define TOSAC_COMPILE_H

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/program.h"
#include "tosac/spec.h"

/* Version of the JSON schema of `compile --report` and `inspect PROGRAM --json`
 * (docs/REPORT.md); raised when a field changes meaning or goes away. */
#define TOSAC_REPORT_SCHEMA_VERSION 1

/* Options are plain data by design: the caller fills a struct (zero = defaults). */
typedef struct tosac_compile_options {
    const char *spec;                   /* "TOSA-1.0+INT", ... */
    const char *const *input_shapes;    /* "NAME=D0,D1,..." each */
    int n_input_shapes;
    const char *emit_dir;               /* NULL, or write DIR/<n>.tosa and DIR/<n>.json */
    const char *emit_mlir;              /* NULL, or write every delegate as MLIR (tosa dialect,
                                         * one module, func.func @delegate_<n>) to this file */
    const char *report_path;            /* NULL, or write the partition report (JSON) */
    const char *quantize;               /* NULL, or "a8w8" / "a16w8": quantize a float model first */
    const char *const *calib;           /* --calib arguments (quant_calib_load forms) */
    int n_calib;
    const char *calib_method;           /* NULL (the default), or quant_parse_method's forms */
    const char *exclude;                /* NULL, or --exclude NAME|OP_TYPE,...: kept float */
    const char *int16;                  /* NULL, or --int16 NAME|OP_TYPE,...: a16w8 layers of
                                         * an a8w8 model (needs +int16) */
    const char *mixed;                  /* NULL, or --mixed auto[=N] */
    int no_keep_float;                  /* --no-keep-float (quant_options.no_keep_float) */
    int bias_correction;                /* --bias-correction (quant_options.bias_correction) */
    const char *weight_rounding;        /* NULL (the default), or quant_parse_rounding's forms */
    void (*quant_progress)(void *ctx, const char *pass, int done, int total); /* may be NULL */
    int int_io;                         /* 1: the program's float inputs/outputs are the
                                         * quantized integers (the edge Q/DQ dropped; the
                                         * signature holds scale and zero point) */
    void *quant_progress_ctx;
} tosac_compile_options;

/* Compiles model m (consumed: it becomes the program's CPU graph, or is freed on failure).
 * *report (may be NULL) gets the partition report JSON text (malloc'd). */
tosac_code tosac_compile_model(ir_model *m, const tosac_compile_options *o, tosac_program **out,
                               char **report, tosac_error *err);
/* With o->quantize: calibrates on o->calib and quantizes m in place (tosac_quantize); graph
 * inputs with dynamic dims and no --input-shape take the first calibration sample's shape. */
tosac_code tosac_compile_quantize(ir_model *m, const tosac_compile_options *o, tosac_error *err);
/* The check behind every exit 0 of compile (compile_verify.c): the program's bytes (file v2)
 * read back, load as `tosac run` loads them (tosac_rt_arena_size, then tosac_rt_init in an
 * arena of exactly that size), the CPU graph's declared types are what its nodes compute
 * (ir_model_check_shapes), and every operator of every delegate block is legal for spec
 * (tosa_validate_op). A failure is TOSAC_ERR_INTERNAL naming what broke: a tosac bug. */
tosac_code tosac_compile_verify(const void *bytes, size_t len, const tosa_spec *spec,
                                tosac_error *err);
/* The program file of p for the runtime (compile_runtime.c): the CPU graphs put in execution
 * order (p is changed so), the memory plan with every CPU node's temporaries and scratch
 * measured on the runtime (one run on zero inputs, delegates skipped), and the runtime's
 * sizes. *out is malloc'd. A program the runtime cannot run (an operator it lacks, a CPU
 * node failing) is an error naming it. */
tosac_code tosac_program_build(tosac_program *p, void **out, size_t *out_len, tosac_error *err);
/* Reads model_path, (quantizes,) compiles, verifies (tosac_compile_verify) and writes the
 * program to out_path with the optional emit dir / report (compile_output.c): all or nothing.
 * Refused up front: an output naming the model or another output. A float model for a spec
 * without FP that delegates nothing is TOSAC_ERR_UNSUPPORTED (quantize it or add +FP). */
tosac_code tosac_compile_file(const char *model_path, const char *out_path,
                              const tosac_compile_options *o, tosac_error *err);
/* The same; *report (may be NULL) gets the report JSON (malloc'd) on success. */
tosac_code tosac_compile_file_report(const char *model_path, const char *out_path,
                                     const tosac_compile_options *o, char **report,
                                     tosac_error *err);

#endif
