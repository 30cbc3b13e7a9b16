/* Static shape inference (filled in next). */
#include "ir_internal.h"

tosac_code ir_model_infer_shapes(ir_model *m, tosac_error *err)
{
    (void)m;
    return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "shape inference is not implemented yet");
}
