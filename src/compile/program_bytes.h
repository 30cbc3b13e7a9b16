/* The program writer with one more section at the end (program.c), for tosac_program_build
 * (compile_runtime.c): the file is written once with an empty PLAN and a RUNTIME record to
 * fill, then only its PLAN and what follows are rewritten in the same buffer. */
#ifndef TOSAC_PROGRAM_BYTES_H
#define TOSAC_PROGRAM_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "tosac/program.h"

/* tosac_program_to_bytes, with a last section of kind (0: none), flags and body, and spare
 * bytes of room after the file; *cap: the buffer's size (at least *len). */
tosac_code program_to_bytes_with(const tosac_program *p, uint32_t kind, uint32_t flags,
                                 const void *body, size_t body_len, size_t spare, void **buf,
                                 size_t *len, size_t *cap, tosac_error *err);

#endif
