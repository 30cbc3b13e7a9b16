/* tosac: the command-line front end. Exit 0 success, 2 bad input or unsupported request,
 * 1 internal error. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernels/isa.h"
#include "tosac/version.h"

#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>

/* Transparent huge pages for the first `bytes` of the heap (the kernel's "madvise" mode gives
 * them only where asked): a block that size is taken, advised and freed, and stays the heap's
 * top (M_TRIM_THRESHOLD), so compile's buffers of a program's size are carved from it. A fault
 * per 2 MB instead of per 4 KB: the page faults were a quarter of compiling resnet18. What
 * glibc's tunable glibc.malloc.hugetlb=1 does, which only the environment can set. */
static void heap_huge_pages(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    void *p = malloc(bytes);
    if (!p)
        return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* only an optimisation */
    free(p);
#else
    (void)bytes;
#endif
}
#endif

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"spec", cmd_spec, "parse a TOSA specification string and show what it allows"},
    {"compile", cmd_compile, "compile an ONNX model for a TOSA specification"},
    {"quantize", cmd_quantize, "quantize a float ONNX model to a QDQ model"},
    {"run", cmd_run, "run a program, an ONNX model or a .tosa graph on .npy inputs"},
    {"inspect", cmd_inspect, "show the contents of a program, ONNX model or .tosa graph"},
    {"bench", cmd_bench, "time a program, ONNX model or .tosa graph"},
    {"compare", cmd_compare, "show how close a result .npy is to a reference .npy"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tosac [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'tosac COMMAND --help' describes one command. Every command takes --quiet (-q:\n"
               "no warnings, summaries or progress) or --verbose (-v: more detail), and\n"
               "--opt=value as well as --opt value.\n");
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tosac %s (TOSA %s; kernels: %s)\n", TOSAC_VERSION_STRING, TOSAC_TOSA_VERSIONS,
               kern_isa_name(kern_isa_active()));
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    return cli_error(TOSAC_ERR_INPUT, "unknown command '%s' (try 'tosac --help')", argv[1]);
}

int cli_quiet = 0, cli_verbose = 0;

/* "--opt=value" becomes "--opt" "value", so every option takes both spellings. A single
 * dash or a bare argument (NAME=FILE.npy) is left alone. */
static char **split_equals(int argc, char **argv, int *out_argc)
{
    char **v = calloc((size_t)argc * 2 + 1, sizeof *v);
    int n = 0;
    if (!v)
        return NULL;
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (i > 1 && (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0)) {
            cli_quiet = 1;
        } else if (i > 1 && (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)) {
            cli_verbose = 1;
        } else if (i > 1 && strncmp(argv[i], "--", 2) == 0 && eq && eq > argv[i] + 2) {
            *eq = 0; /* argv strings are writable */
            v[n++] = argv[i];
            v[n++] = eq + 1;
        } else {
            v[n++] = argv[i];
        }
    }
    *out_argc = n;
    return v;
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* compile makes and frees a few buffers of a program's size (tens of MB): from the heap,
     * kept after free, they are reused instead of mapped afresh (page faults were a third of
     * a compile) */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    if (argc > 1 && strcmp(argv[1], "compile") == 0) /* run/bench: arenas written sparsely */
        heap_huge_pages((size_t)192 << 20);
#endif
    tosac_set_warning_handler(tosac_warn_stderr, NULL);
    /* a debugging aid: an unknown value keeps the automatic choice */
    const char *isa = getenv("TOSAC_KERNEL_ISA");
    if (isa && kern_isa_from_name(isa) >= 0)
        kern_isa_force((kern_isa)kern_isa_from_name(isa));
    int nargc = 0;
    char **nargv = split_equals(argc, argv, &nargc);
    if (!nargv)
        return cli_error(TOSAC_ERR_INTERNAL, "out of memory");
    if (cli_quiet && cli_verbose) {
        free(nargv);
        return cli_error(TOSAC_ERR_INPUT, "--quiet and --verbose exclude each other");
    }
    if (cli_quiet)
        tosac_set_warning_handler(NULL, NULL);
    int status = run(nargc, nargv);
    free(nargv);
    /* Output that could not be written (a full disk, a closed pipe) is a failure, not a
     * success with a truncated result. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        if (status == 0)
            status = cli_error(TOSAC_ERR_INTERNAL, "cannot write to standard output: %s",
                               e ? strerror(e) : "write error");
    }
    return status;
}
