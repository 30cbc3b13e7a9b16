/* Small IR-building helpers shared by the passes (not part of the IR API). */
#ifndef TOSAC_PASS_UTIL_H
#define TOSAC_PASS_UTIL_H

#include "tosac/ir.h"

/* Sets input slot of node, growing the input list with omitted (-1) slots when slot is past
 * its end (a Q/DQ without its optional zero point gets one). */
tosac_code pass_set_input(ir_graph *g, int node, int slot, int tensor, tosac_error *err);
/* A new constant named "<base><suffix>" (made unique) with a copy of data. rank 0 or 1
 * (n values). Returns its id or -1 (err set). */
int pass_add_const(ir_graph *g, const char *base, const char *suffix, tosac_dtype dt, int rank,
                   int64_t n, const void *data, tosac_error *err);
/* A new tensor "<base><suffix>" (unique) of dtype dt shaped like tensor like. */
int pass_add_like(ir_graph *g, int like, const char *suffix, tosac_dtype dt, tosac_error *err);
/* The sole live node reading t (index), or -1 if none, several, or t is a graph output. */
int pass_sole_reader(const ir_graph *g, int t);

#endif
