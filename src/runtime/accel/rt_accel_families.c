/* The accelerated operator families, in the order they are offered an operator (see
 * rt_accel.h). A family is one file rt_accel_<family>.c exporting one rt_accel_family. */
#include "runtime/accel/rt_accel.h"

extern const rt_accel_family rt_accel_family_conv;
extern const rt_accel_family rt_accel_conv16;
extern const rt_accel_family rt_accel_dwconv;
extern const rt_accel_family rt_accel_tconv;
extern const rt_accel_family rt_accel_family_matmul;
extern const rt_accel_family rt_accel_matmul16;
extern const rt_accel_family rt_accel_pool;
extern const rt_accel_family rt_accel_ewise;
extern const rt_accel_family rt_accel_table;

const rt_accel_family *const rt_accel_families[] = {
    &rt_accel_family_conv,
    &rt_accel_conv16,
    &rt_accel_dwconv,
    &rt_accel_tconv,
    &rt_accel_family_matmul,
    &rt_accel_matmul16,
    &rt_accel_pool,
    &rt_accel_ewise,
    &rt_accel_table,
    NULL,
};
