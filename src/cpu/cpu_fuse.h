/* Plan-time fusion of the host executor (cpu_exec.c): see cpu_fuse.c. */
#ifndef TOSAC_CPU_FUSE_H
#define TOSAC_CPU_FUSE_H

#include "cpu/cpu_internal.h"

/* The node that Conv node ni can absorb (its output's only reader, a Relu or a Clip with
 * constant bounds, both tensors declared f32), with that activation in act; or -1.
 * n_readers[t]: how many times tensor t is read (node inputs, graph outputs, captures). */
int cpu_fuse_conv_act(const ir_graph *g, int ni, const int *n_readers, kern_out_act *act);

#endif
