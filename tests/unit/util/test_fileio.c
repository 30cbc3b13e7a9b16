/* Atomic writing (temp file + rename, or a swap with an existing file): the target holds the
 * new bytes, nothing else is left in the folder, folders and symbolic links at the target are
 * treated as rename(2) treats them; staged files likewise. Whole-file views (mappings). */
#define _DEFAULT_SOURCE /* symlink */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void test_write_new_and_over_existing(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    const char *p = tu_join(dir, "out.bin");
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_write_file(p, "first", 5, &err), TOSAC_OK);
    char *s = tu_slurp(p);
    assert_string_equal(s, "first");
    free(s);
    /* over an existing regular file (the swap), twice: the old bytes are gone each time */
    for (int i = 0; i < 2; i++) {
        const char *text = i ? "third, longer than the others" : "2nd";
        assert_int_equal(tosac_write_file(p, text, strlen(text), &err), TOSAC_OK);
        s = tu_slurp(p);
        assert_string_equal(s, text);
        free(s);
        assert_int_equal(count_entries(dir), 1);
    }
    /* an empty write over it */
    assert_int_equal(tosac_write_file(p, "", 0, &err), TOSAC_OK);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_int_equal(count_entries(dir), 1);
    tu_rmtree_free(dir);
}

static void test_write_over_folder_fails(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    const char *sub = tu_join(dir, "sub");
    assert_int_equal(mkdir(sub, 0777), 0);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_write_file(sub, "x", 1, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "cannot write"));
    struct stat st;
    assert_int_equal(stat(sub, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(count_entries(dir), 1); /* no temp file left */
    tu_rmtree_free(dir);
}

static void test_write_over_symlink_replaces_the_link(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char target[512], link[512];
    snprintf(target, sizeof target, "%s/target", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    put(target, "kept");
    assert_int_equal(symlink(target, link), 0);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_write_file(link, "new", 3, &err), TOSAC_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode)); /* as rename(2): the link itself is replaced */
    char *s = tu_slurp(link);
    assert_string_equal(s, "new");
    free(s);
    s = tu_slurp(target);
    assert_string_equal(s, "kept");
    free(s);
    assert_int_equal(count_entries(dir), 2);
    tu_rmtree_free(dir);
}

static void test_stage_commit_over_existing(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    put(a, "old a");
    tosac_stage st;
    memset(&st, 0, sizeof st);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_stage_file(&st, a, "new a", 5, &err), TOSAC_OK);
    assert_int_equal(tosac_stage_file(&st, b, "new b", 5, &err), TOSAC_OK);
    char *s = tu_slurp(a);
    assert_string_equal(s, "old a"); /* nothing in place before the commit */
    free(s);
    assert_int_equal(tosac_stage_commit(&st, &err), TOSAC_OK);
    s = tu_slurp(a);
    assert_string_equal(s, "new a");
    free(s);
    s = tu_slurp(b);
    assert_string_equal(s, "new b");
    free(s);
    assert_int_equal(count_entries(dir), 2);
    /* an aborted stage leaves the old bytes and no temp file */
    assert_int_equal(tosac_stage_file(&st, a, "newer", 5, &err), TOSAC_OK);
    tosac_stage_abort(&st);
    s = tu_slurp(a);
    assert_string_equal(s, "new a");
    free(s);
    assert_int_equal(count_entries(dir), 2);
    tu_rmtree_free(dir);
}

/* A view holds the file's bytes (a mapping here); an empty file is a valid empty view; a
 * folder or a missing file is refused as tosac_read_file refuses it. */
static void test_view_file(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    const char *p = tu_join(dir, "in.bin");
    char big[20000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)(i * 7 + 1);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_write_file(p, big, sizeof big, &err), TOSAC_OK);
    tosac_file_view v;
    assert_int_equal(tosac_view_file(p, &v, &err), TOSAC_OK);
    assert_int_equal(v.len, sizeof big);
    assert_true(v.mapped);
    assert_null(v.owned);
    assert_memory_equal(v.data, big, sizeof big);
    tosac_view_release(&v);
    assert_null(v.data);
    assert_int_equal(v.len, 0);
    tosac_view_release(NULL);

    assert_int_equal(tosac_write_file(p, "", 0, &err), TOSAC_OK);
    assert_int_equal(tosac_view_file(p, &v, &err), TOSAC_OK);
    assert_int_equal(v.len, 0);
    assert_non_null(v.data);
    assert_false(v.mapped);
    tosac_view_release(&v);

    tosac_error_clear(&err);
    assert_int_equal(tosac_view_file(dir, &v, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "is not a regular file"));
    assert_null(v.data);
    tosac_error_clear(&err);
    assert_int_equal(tosac_view_file(tu_join(dir, "missing"), &v, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "cannot open"));
    assert_null(v.data);
    tu_rmtree_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_new_and_over_existing),
        cmocka_unit_test(test_write_over_folder_fails),
        cmocka_unit_test(test_write_over_symlink_replaces_the_link),
        cmocka_unit_test(test_stage_commit_over_existing),
        cmocka_unit_test(test_view_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
