#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cli_error(tosac_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tosac: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return tosac_exit_status(code);
}

int cli_report(const tosac_error *err)
{
    return cli_error(err->code ? err->code : TOSAC_ERR_INTERNAL, "%s",
                     err->msg[0] ? err->msg : "unknown failure");
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

tosac_code cli_detect_file(const char *path, cli_file_kind *kind, tosac_error *err)
{
    unsigned char head[8] = {0};
    *kind = CLI_FILE_UNKNOWN;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot open '%s'", path);
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    size_t plen = strlen(path);
    if (n >= 8 && memcmp(head + 4, "TOSA", 4) == 0)
        *kind = CLI_FILE_TOSA;
    else if (n >= 8 && memcmp(head, "TOSACPRG", 8) == 0)
        *kind = CLI_FILE_PROGRAM;
    else if ((plen > 5 && strcmp(path + plen - 5, ".onnx") == 0) || (n > 0 && head[0] == 0x08))
        *kind = CLI_FILE_ONNX;
    else
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "'%s' is not a .tosa graph, a tosac program or an ONNX model", path);
    return TOSAC_OK;
}
