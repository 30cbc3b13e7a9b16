/* tosac compare DIR_REF DIR_RESULT (compare_dumps.c). */
#ifndef TOSAC_COMPARE_DUMPS_H
#define TOSAC_COMPARE_DUMPS_H

#include "tosac/error.h"

/* Prints one line per tensor of ref_dir's index (in its order) that res_dir also has, and
 * the first whose SQNR is below sqnr_below dB. Returns 0 none below, 1 one below, -1 error
 * (in err). */
int compare_dump_dirs(const char *ref_dir, const char *res_dir, double sqnr_below,
                      tosac_error *err);

#endif
