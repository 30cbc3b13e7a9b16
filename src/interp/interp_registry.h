#ifndef TOSAC_INTERP_REGISTRY_H
#define TOSAC_INTERP_REGISTRY_H

#include "interp/interp_internal.h"

/* The implementation of op, or NULL when the interpreter does not implement it. */
interp_op_fn interp_find_op(tosa_op op);

#endif
