/* Delegate I/O metadata as JSON (the --emit-tosa <n>.json and the program's metadata). */
#include "compile/compile_json.h"

static void tensor_entry(tosac_json_writer *w, const ir_tensor *t)
{
    tosac_json_begin_object(w);
    tosac_json_key(w, "name");
    tosac_json_write_string(w, t->name);
    tosac_json_key(w, "dtype");
    const char *np = tosac_dtype_numpy_name(t->dtype);
    tosac_json_write_string(w, np ? np : tosac_dtype_name(t->dtype));
    tosac_json_key(w, "shape");
    tosac_json_begin_array(w);
    for (int d = 0; d < t->rank; d++)
        tosac_json_write_int(w, t->shape[d]);
    tosac_json_end_array(w);
    if (t->quant && tosac_dtype_is_int(t->dtype)) {
        bool list = t->quant->axis >= 0;
        tosac_json_key(w, "scale");
        if (list)
            tosac_json_begin_array(w);
        for (int i = 0; i < (list ? t->quant->n : 1); i++)
            tosac_json_write_double(w, t->quant->scale[i]);
        if (list)
            tosac_json_end_array(w);
        tosac_json_key(w, "zero_point");
        if (list)
            tosac_json_begin_array(w);
        for (int i = 0; i < (list ? t->quant->n : 1); i++)
            tosac_json_write_int(w, t->quant->zero_point[i]);
        if (list)
            tosac_json_end_array(w);
    }
    tosac_json_end_object(w);
}

char *compile_delegate_meta(const ir_graph *g, const int *ins, int n_in, const int *outs,
                            int n_out)
{
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    tosac_json_begin_object(&w);
    for (int side = 0; side < 2; side++) {
        tosac_json_key(&w, side ? "outputs" : "inputs");
        tosac_json_begin_array(&w);
        for (int i = 0; i < (side ? n_out : n_in); i++)
            tensor_entry(&w, &g->tensors[side ? outs[i] : ins[i]]);
        tosac_json_end_array(&w);
    }
    tosac_json_end_object(&w);
    size_t len;
    return tosac_json_writer_take(&w, &len);
}
