/* RNN / GRU / LSTM: not written yet. */
#include "cpu/cpu_internal.h"

const cpu_op_entry cpu_ops_rnn[] = {
    {NULL, NULL, 0},
};
