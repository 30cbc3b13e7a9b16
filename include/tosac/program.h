/* A compiled program: the CPU part as a graph IR in which each TOSA delegate is a node
 * TosaDelegate (domain "tosac", attribute "index"), plus the delegates' .tosa graphs and their
 * I/O metadata (JSON, as `--emit-tosa` writes it).
 *
 * File: program v2 (docs/PROGRAM_FORMAT.md, records in src/runtime/rt_program.h): a header,
 * a section table and 16-aligned sections (strings, signature, CPU records, constants, one
 * per delegate with its .tosa flatbuffer unchanged, the memory plan, the report). Reading
 * verifies the whole file (rt_program_load) before rebuilding anything; version 1 files are
 * refused. */
#ifndef TOSAC_PROGRAM_H
#define TOSAC_PROGRAM_H

#include <stddef.h>

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/tensor.h"
#include "tosac/tosa.h"

#define TOSAC_PROGRAM_MAGIC "TOSACPRG"
#define TOSAC_DELEGATE_OP "TosaDelegate"

/* Opaque: what tosac_compile_model / tosac_program_read_file give, read through the accessors
 * below (the definition is src/compile/program_internal.h). */
typedef struct tosac_program tosac_program;

/* The program's parts, owned by p (valid until tosac_program_free). An index out of range
 * gives NULL. */
int tosac_program_n_delegates(const tosac_program *p);
/* The i-th delegate's TOSA graph (the node TosaDelegate with index i runs it). */
const tosa_graph *tosac_program_delegate(const tosac_program *p, int i);
/* The i-th delegate's I/O metadata JSON text, as `--emit-tosa` writes it. */
const char *tosac_program_delegate_meta(const tosac_program *p, int i);
/* The CPU part: a graph IR in which each delegate is a TosaDelegate node. */
const ir_model *tosac_program_cpu(const tosac_program *p);
/* The compile report JSON (every node's placement and reasons), or NULL for a program
 * written without one. */
const char *tosac_program_report(const tosac_program *p);

/* Serializes p (the .tosa graphs written with the deterministic writer) with an empty memory
 * plan: the runtime needs tosac_program_build's file (tosac/compile.h), which write_file
 * writes. */
tosac_code tosac_program_to_bytes(const tosac_program *p, void **buf, size_t *len,
                                  tosac_error *err);
tosac_code tosac_program_write_file(const tosac_program *p, const char *path, tosac_error *err);
/* Untrusted bytes: bad files are TOSAC_ERR_INPUT naming the problem. */
tosac_code tosac_program_from_bytes(const void *buf, size_t len, tosac_program **out,
                                    tosac_error *err);
/* The same with the delegates' names and constants pointing into buf where their file bytes
 * are their in-memory form (TOSA_READ_BORROW: buf must outlive *out, unchanged). Compile's
 * read-back check: no second copy of the weights. */
tosac_code tosac_program_from_bytes_borrowed(const void *buf, size_t len, tosac_program **out,
                                             tosac_error *err);
tosac_code tosac_program_read_file(const char *path, tosac_program **out, tosac_error *err);
void tosac_program_free(tosac_program *p);

/* Loads everything a run needs, without input data, on the runtime (tosac/runtime.h): builds
 * the program file (tosac_program_build), initialises it in a malloc'd arena of the size it
 * asks for (every TosaDelegate node, also in If/Loop/Scan bodies, checked against its
 * delegate's main block, every delegate prepared, every CPU operator resolved). A failure
 * names the delegate or node. tosac_program_run calls it itself; p is not to be changed
 * after (the prepared runtime is kept). */
tosac_code tosac_program_prepare(tosac_program *p, tosac_error *err);

/* Runs the program on the runtime: inputs (dtype and static shape as the signature's) bind
 * the CPU graph's inputs in order; outputs get its outputs (caller frees). */
tosac_code tosac_program_run(tosac_program *p, const tosac_tensor *inputs, int n_inputs,
                             tosac_tensor *outputs, int n_outputs, tosac_error *err);

#endif
