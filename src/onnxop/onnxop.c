/* The layer's one error formatter, also the CPU operators' (cpu_fail). */
#include "onnxop/onnxop.h"

#include <stdarg.h>
#include <string.h>

tosac_code onnxop_vfail(tosac_error *err, const ir_node *n, tosac_code code, const char *fmt,
                        va_list ap)
{
    if (!err || err->code != TOSAC_OK)
        return code; /* the first failure wins, as in tosac_fail */
    tosac_vfail(err, code, fmt, ap);
    /* prefix the node in place (no snprintf: the runtime has none) */
    tosac_error pre;
    tosac_error_clear(&pre);
    const char *name = n->name && n->name[0] ? n->name : "?";
    tosac_fail(&pre, code, "node '%s' (%s): ", name, n->op_type);
    size_t cap = sizeof err->msg - 1, np = strlen(pre.msg), nm = strlen(err->msg);
    np = np < cap ? np : cap;
    nm = np + nm <= cap ? nm : cap - np;
    memmove(err->msg + np, err->msg, nm);
    memcpy(err->msg, pre.msg, np);
    err->msg[np + nm] = '\0';
    return code;
}

tosac_code onnxop_fail(tosac_error *err, const ir_node *n, tosac_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    onnxop_vfail(err, n, code, fmt, ap);
    va_end(ap);
    return code;
}
