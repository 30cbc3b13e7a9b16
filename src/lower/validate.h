/* Legality of emitted TOSA operators against a spec's tables. */
#ifndef TOSAC_LOWER_VALIDATE_H
#define TOSAC_LOWER_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "tosac/spec.h"
#include "tosac/tosa.h"

/* True if operator op_index of b is legal for spec: the version defines the operator; the
 * operand counts match its arguments; each operand's rank is within the argument's bounds;
 * every operand's dtype binds the argument's symbolic element type (in_t, weight_t, ...;
 * acc_t from attr.acc_type) consistently and some legal row of the table has those types;
 * compile-time-constant operands come from CONST / CONST_SHAPE (unless EXT-DYNAMIC); and enum
 * attributes (rounding_mode, nan_mode, resize mode) hold values the spec allows.
 * Otherwise false with a one-line reason ("RESCALE: in_t=i48 needs EXT-INT16"). */
bool tosa_validate_op(const tosa_spec *spec, const tosa_block *b, int op_index, char *reason,
                      size_t len);
/* Ethos-U55 limits (validate_u55.c) that depend on shapes, attributes, constants and the
 * neighbouring operators, applied by tosa_validate_op when the spec has the u55 subset (the
 * type rows Vela lacks are cut from the tables themselves); false with a reason starting
 * "U55 restriction:". */
bool tosa_u55_op_ok(const tosa_spec *spec, const tosa_block *b, int op_index, char *reason,
                    size_t len);
/* Every operator of b; the first illegal one's reason. */
bool tosa_validate_block(const tosa_spec *spec, const tosa_block *b, char *reason, size_t len);
/* The same giving the index of the first illegal operator (reason set), -1 if all are legal.
 * Linear in the block size (tosa_validate_op per operator would look up producers by scan). */
int tosa_validate_first_illegal(const tosa_spec *spec, const tosa_block *b, char *reason,
                                size_t len);

/* Index of the operator of b writing tensor t; -1 if none (block input or unused). */
int tosa_block_producer(const tosa_block *b, int t);
/* How many operator inputs of b read tensor t, a block output counting as two (so that a
 * count of 1 means "read by one operator and nothing else"); *only is the last reader. */
int tosa_block_readers(const tosa_block *b, int t, int *only);

#endif
