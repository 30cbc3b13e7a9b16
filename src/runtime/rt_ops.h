/* The operator tables behind tosac_rt_resolver (runtime.h): one lookup per operator family,
 * each in its own file under ops/ so that an application links only the families it names. */
#ifndef TOSAC_RT_OPS_H
#define TOSAC_RT_OPS_H

#include <string.h>

#include "cpu/cpu_internal.h"
#include "tosac/runtime.h"

static inline const tosac_rt_op *rt_ops_find(const cpu_op_entry *table, const char *op_type)
{
    for (const cpu_op_entry *e = table; op_type && e->op_type; e++)
        if (strcmp(e->op_type, op_type) == 0)
            return e;
    return NULL;
}

#define RT_OPS_FAMILY(family)                                                                  \
    const tosac_rt_op *tosac_rt_ops_##family(const char *op_type)                              \
    {                                                                                          \
        return rt_ops_find(cpu_ops_##family, op_type);                                         \
    }

#endif
