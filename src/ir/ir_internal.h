/* Helpers shared by the src/ir files (not part of the public API). */
#ifndef TOSAC_IR_INTERNAL_H
#define TOSAC_IR_INTERNAL_H

#include "tosac/ir.h"

char *ir_strdup(const char *s); /* NULL for NULL or out of memory */
/* Grows *arr (element size esz) so it holds at least need elements. */
int ir_grow(void **arr, int *cap, int need, size_t esz);

void ir_attr_free(ir_attr *a);
void ir_tensor_fini(ir_tensor *t);
void ir_node_fini(ir_node *n);
/* Deep copy of a host tensor (data copied). */
tosac_code ir_tensor_copy(tosac_tensor *dst, const tosac_tensor *src, tosac_error *err);

/* Name index maintenance (src/ir/ir_graph.c). */
void ir_index_rebuild(ir_graph *g);
/* A node of g now holds a body (ir_node_set_graph/_graphs): fresh names look into bodies. */
void ir_index_note_body(ir_graph *g);
/* The captures of tensor in g's bodies (and theirs, deeper) take its current name where the
 * body has no tensor of that name: a dump of a body then names what the body really reads. */
void ir_sync_capture_names(ir_graph *g, int tensor);


#endif
