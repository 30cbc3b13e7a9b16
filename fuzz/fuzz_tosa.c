/* libFuzzer target: the verifying .tosa reader; what it accepts must write back. */
#include <stdlib.h>

#include "tosac/tosa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tosac_error err = {0};
    tosa_graph *g = NULL;
    if (tosa_graph_read(data, size, &g, &err) != TOSAC_OK)
        return 0;
    /* The writer refuses what the reader refuses, so an accepted graph writes and reads back. */
    void *buf = NULL;
    size_t len = 0;
    if (tosa_graph_write(g, &buf, &len, &err) != TOSAC_OK)
        abort();
    tosa_graph *back = NULL;
    if (tosa_graph_read(buf, len, &back, &err) != TOSAC_OK || !tosa_graph_equal(g, back))
        abort();
    tosa_graph_free(back);
    free(buf);
    tosa_graph_free(g);
    return 0;
}
