/* Subcommands whose implementation has not landed yet. Each moves to its own file
 * (cmd_<verb>.c or <verb>_<kind>.c) when it is written; until then it fails cleanly. */
#include "cli.h"

#define PENDING(fn, what)                                                                      \
    int fn(int argc, char **argv)                                                              \
    {                                                                                          \
        (void)argc;                                                                            \
        (void)argv;                                                                            \
        return cli_error(TOSAC_ERR_UNSUPPORTED, "%s is not implemented yet", what);            \
    }

