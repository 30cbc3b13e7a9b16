/* The CLI as a careless or hostile user drives it: no arguments, unknown commands, empty
 * strings, directories where files are expected, option values missing, unusable output
 * directories, control characters in user text. Every case: exit 2, exactly one stderr line
 * naming the problem, nothing on stdout, no output written. And standard output that cannot
 * be written: exit 1. */
#include "testutil.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRANSPOSE "conformance/transpose/transpose_15x6_f32_perm0_fs/"

/* Runs args, expects exit `want`, one stderr line containing msg and an empty stdout. */
static void expect(int want, const char *msg, const char *const *args)
{
    char *out = NULL, *errout = NULL;
    int rc = tu_cli_argv(&out, &errout, args);
    if (rc != want || !strstr(errout, msg) || tu_count_lines(errout) != 1)
        fail_msg("%s: rc %d (want %d), stderr: %s (want '%s')", args[0], rc, want, errout, msg);
    assert_string_equal(out, "");
    free(out);
    free(errout);
}

static void test_top_level(void **state)
{
    (void)state;
    char *out = NULL, *errout = NULL;
    /* no command: the usage goes to stderr, exit 2 */
    assert_int_equal(tu_cli(&out, &errout, NULL), 2);
    assert_string_equal(out, "");
    assert_non_null(strstr(errout, "usage: tosac"));
    free(out);
    free(errout);
    assert_int_equal(tu_cli(&out, NULL, "--help", NULL), 0);
    assert_non_null(strstr(out, "'tosac COMMAND --help'"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "--version", NULL), 0);
    assert_non_null(strstr(out, "tosac "));
    assert_non_null(strstr(out, "(TOSA 1.0, 1.1; kernels: "));
    free(out);
    /* --quiet and --verbose exclude each other, for any command */
    char *e3 = NULL;
    assert_int_equal(tu_cli(&out, &e3, "spec", "TOSA-1.0+INT", "-q", "--verbose", NULL), 2);
    assert_non_null(strstr(e3, "--quiet and --verbose exclude each other"));
    free(out);
    free(e3);
    /* --verbose: compile lists each CPU node with its reason; --quiet: nothing on stderr */
    const char *m = tu_shared("models/synth_qdq_s8_op13_conv/model.onnx");
    char *mm = strdup(m), *dir = tu_mkdtemp(), *prog = strdup(tu_join(dir, "c.prog"));
    assert_int_equal(tu_cli(&out, &e3, "compile", mm, "--spec", "TOSA-1.0+INT", "-o", prog,
                            "--verbose", NULL), 0);
    assert_non_null(strstr(e3, "tosac: compiled: 1 delegate"));
    assert_non_null(strstr(e3, "\ntosac: cpu: "));
    assert_non_null(strstr(e3, "(QuantizeLinear): "));
    free(out);
    free(e3);
    assert_int_equal(tu_cli(&out, &e3, "compile", mm, "--spec", "TOSA-1.0+INT", "-o", prog,
                            "--quiet", NULL), 0);
    assert_string_equal(e3, "");
    free(out);
    free(e3);
    free(prog);
    free(mm);
    tu_rmtree(dir);
    free(dir);
    /* --opt=value is --opt value */
    char *err2 = NULL;
    assert_int_equal(tu_cli(&out, &err2, "spec", "--json=x", NULL), 2);
    assert_non_null(strstr(err2, "spec string 'x' does not start with 'TOSA-'"));
    free(out);
    free(err2);
    assert_int_equal(tu_cli(&out, NULL, "compare", "--atol=0.5", "--help", NULL), 0);
    free(out);
    expect(2, "tosac: error: unknown command 'frobnicate' (try 'tosac --help')",
           (const char *const[]){"frobnicate", NULL});
    expect(2, "tosac: error: unknown command ''", (const char *const[]){"", NULL});
}

/* User text with control characters is escaped: the error stays on one line. */
static void test_control_characters_stay_on_one_line(void **state)
{
    (void)state;
    expect(2, "unknown command 'a\\nb\\x0dc'", (const char *const[]){"a\nb\rc", NULL});
    expect(2, "cannot open '/nonexistent/x\\ny': No such file or directory",
           (const char *const[]){"run", "/nonexistent/x\ny", NULL});
    expect(2, "unknown option '--a\\tb'",
           (const char *const[]){"spec", "--a\tb", NULL});
}

static void test_files_that_are_not_files(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    expect(2, "is a directory, not a file", (const char *const[]){"run", dir, NULL});
    expect(2, "is a directory, not a file", (const char *const[]){"inspect", dir, NULL});
    expect(2, "cannot open '': No such file or directory", (const char *const[]){"run", "", NULL});
    expect(2, "cannot open '': No such file or directory",
           (const char *const[]){"inspect", "", NULL});
    expect(2, "'/dev/null' is not a .tosa graph, a tosac program or an ONNX model",
           (const char *const[]){"inspect", "/dev/null", NULL});
    expect(2, "run needs a file (try 'tosac run --help')", (const char *const[]){"run", NULL});
    expect(2, "inspect needs a file", (const char *const[]){"inspect", "--json", NULL});
    /* a directory given as the .npy input */
    char *graph = strdup(tu_shared(TRANSPOSE "test.tosa"));
    expect(2, "is not a regular file", (const char *const[]){"run", graph, "-i", dir, NULL});
    free(graph);
    /* a cut ONNX file: named, and called what it is (not protobuf field numbers alone) */
    const char *model = tu_shared("models/synth_qdq_s8_op13_conv/model.onnx");
    FILE *in = fopen(model, "rb");
    assert_non_null(in);
    char head[300];
    assert_int_equal(fread(head, 1, sizeof head, in), sizeof head);
    fclose(in);
    char *cut = strdup(tu_join(dir, "cut.onnx"));
    FILE *o = fopen(cut, "wb");
    assert_non_null(o);
    fwrite(head, 1, sizeof head, o);
    fclose(o);
    char want[700];
    snprintf(want, sizeof want, "'%s': truncated or corrupt ONNX model (", cut);
    expect(2, want, (const char *const[]){"inspect", cut, NULL});
    expect(2, want, (const char *const[]){"compile", cut, "--spec", "TOSA-1.0+INT", "-o",
                                          tu_join(dir, "x.prog"), NULL});
    free(cut);
    /* a wrong input name is told the valid ones */
    char *tosa = strdup(tu_shared(TRANSPOSE "test.tosa"));
    expect(2, "no input named 'nosuch' (inputs: '",
           (const char *const[]){"run", tosa, "--input", "nosuch=/x.npy", NULL});
    free(tosa);
    tu_rmtree(dir);
    free(dir);
}

static void test_option_values(void **state)
{
    (void)state;
    char *graph = strdup(tu_shared(TRANSPOSE "test.tosa"));
    char *input = strdup(tu_shared(TRANSPOSE "input-0.npy"));
    expect(2, "--input needs a value", (const char *const[]){"run", graph, "--input", NULL});
    expect(2, "-i needs a value", (const char *const[]){"run", graph, "-i", "", NULL});
    expect(2, "-o needs a value", (const char *const[]){"run", graph, "-i", input, "-o", "", NULL});
    expect(2, "--output-dir needs a value",
           (const char *const[]){"run", graph, "-i", input, "--output-dir", NULL});
    expect(2, "unknown option '--runs'", (const char *const[]){"run", graph, "--runs", "3", NULL});
    expect(2, "inspect: unknown option '--dot'", (const char *const[]){"inspect", graph, "--dot", NULL});
    expect(2, "inspect: more than one file given",
           (const char *const[]){"inspect", graph, graph, NULL});
    expect(2, "more than one graph given", (const char *const[]){"run", graph, graph, NULL});
    free(graph);
    free(input);
}

/* Output directories that cannot be used: nothing is written anywhere. (The tests may run as
 * root, so permissions are not used: a regular file in the way and /proc are.) */
static void test_unusable_output_dir(void **state)
{
    (void)state;
    char *graph = strdup(tu_shared(TRANSPOSE "test.tosa"));
    char *input = strdup(tu_shared(TRANSPOSE "input-0.npy"));
    char *dir = tu_mkdtemp();
    char file[600], sub[700], longdir[2200];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    expect(2, "is not a directory", (const char *const[]){"run", graph, "-i", input, "-o", file, NULL});
    snprintf(sub, sizeof sub, "%s/below", file);
    expect(2, "cannot create directory", (const char *const[]){"run", graph, "-i", input, "-o", sub, NULL});
    expect(2, "cannot create directory '/proc/tosac-qa'",
           (const char *const[]){"run", graph, "-i", input, "-o", "/proc/tosac-qa/out", NULL});
    /* one path component longer than any file system allows */
    int n = snprintf(longdir, sizeof longdir, "%s/", dir);
    memset(longdir + n, 'x', 600);
    longdir[n + 600] = '\0';
    expect(2, "File name too long", (const char *const[]){"run", graph, "-i", input, "-o", longdir, NULL});
    /* a directory where the output file should go */
    snprintf(sub, sizeof sub, "%s/result-0.npy", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    expect(2, "cannot write", (const char *const[]){"run", graph, "-i", input, "-o", dir, NULL});
    struct stat st;
    assert_int_equal(stat(sub, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    tu_rmtree(dir);
    free(dir);
    free(graph);
    free(input);
}

/* Output directories with spaces, quotes and dollar signs work as given. */
static void test_odd_output_dir_names(void **state)
{
    (void)state;
    char *graph = strdup(tu_shared(TRANSPOSE "test.tosa"));
    char *input = strdup(tu_shared(TRANSPOSE "input-0.npy"));
    char *dir = tu_mkdtemp();
    char odd[600], file[700];
    snprintf(odd, sizeof odd, "%s/a b'\"$x;*", dir);
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "run", graph, "-i", input, "-o", odd, NULL), 0);
    snprintf(file, sizeof file, "%s/result-0.npy", odd);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_non_null(strstr(out, "result-0.npy: f32[6,15]"));
    free(out);
    tu_rmtree(dir);
    free(dir);
    free(graph);
    free(input);
}

static void test_help_texts(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", "--help", NULL), 0);
    assert_non_null(strstr(out, "usage: tosac inspect"));
    assert_non_null(strstr(out, "--input-shape NAME=D0,D1,..."));
    assert_non_null(strstr(out, "--dot"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "run", "-h", NULL), 0);
    assert_non_null(strstr(out, "usage: tosac run"));
    assert_non_null(strstr(out, "--output-dir DIR"));
    free(out);
    /* every command's help ends with a real example of itself */
    const char *const cmds[] = {"spec", "compile", "quantize", "run", "inspect", "bench", "compare"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        assert_int_equal(tu_cli(&out, NULL, cmds[i], "--help", NULL), 0);
        char want[64];
        snprintf(want, sizeof want, "\nExample:\n  tosac %s ", cmds[i]);
        if (!strstr(out, want))
            fail_msg("'tosac %s --help' has no example", cmds[i]);
        free(out);
    }
}

/* Runs the CLI with stdout on a pipe nobody reads (SIGPIPE ignored, so writes fail with
 * EPIPE); returns the exit status, stderr's first bytes in errbuf. */
static int run_with_broken_stdout(const char *const *args, char *errbuf, size_t n)
{
    int out[2], errp[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(errp), 0);
    close(out[0]);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        dup2(out[1], 1);
        dup2(errp[1], 2);
        close(errp[0]);
        const char *argv[16] = {TOSAC_CLI_PATH};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        execv(TOSAC_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    close(errp[1]);
    size_t have = 0;
    ssize_t got;
    while (have + 1 < n && (got = read(errp[0], errbuf + have, n - 1 - have)) > 0)
        have += (size_t)got;
    errbuf[have] = '\0';
    close(errp[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Output that cannot be written is an error (exit 1), not a silent success. */
static void test_unwritable_stdout(void **state)
{
    (void)state;
    char errbuf[512];
    char *graph = strdup(tu_shared(TRANSPOSE "test.tosa"));
    const char *const cases[][4] = {{"spec", "TOSA-1.0+INT", NULL}, {"--version", NULL},
                                    {"inspect", graph, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(run_with_broken_stdout(cases[i], errbuf, sizeof errbuf), 1);
        if (!strstr(errbuf, "tosac: error: cannot write to standard output: Broken pipe"))
            fail_msg("%s: %s", cases[i][0], errbuf);
    }
    /* an error already reported keeps its own status and message */
    const char *const bad[] = {"spec", "TOSA-1.0+XX", NULL};
    assert_int_equal(run_with_broken_stdout(bad, errbuf, sizeof errbuf), 2);
    assert_non_null(strstr(errbuf, "unknown token 'XX'"));
    free(graph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_level),
        cmocka_unit_test(test_control_characters_stay_on_one_line),
        cmocka_unit_test(test_files_that_are_not_files),
        cmocka_unit_test(test_option_values),
        cmocka_unit_test(test_unusable_output_dir),
        cmocka_unit_test(test_odd_output_dir_names),
        cmocka_unit_test(test_help_texts),
        cmocka_unit_test(test_unwritable_stdout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
