/* The bump arena and the allocation helpers: alignment by address, exhaustion leaves the
 * arena unchanged, size overflow is refused, zero-size requests consume nothing. */
#include "testutil.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arena.h"

static _Alignas(64) unsigned char g_buf[256];

static void test_alignment(void **state)
{
    (void)state;
    tosac_arena a;
    tosac_arena_init(&a, g_buf + 1, 200); /* deliberately misaligned base */
    unsigned char *p = tosac_arena_alloc(&a, 3, 1);
    assert_ptr_equal(p, g_buf + 1);
    assert_int_equal(a.used, 3);
    unsigned char *q = tosac_arena_alloc(&a, 8, 16); /* by address: g_buf + 16 */
    assert_ptr_equal(q, g_buf + 16);
    assert_int_equal(a.used, 23);
    unsigned char *r = tosac_arena_alloc(&a, 1, 64);
    assert_ptr_equal(r, g_buf + 64);
    assert_int_equal(a.used, 64);
    assert_int_equal(a.high, 64);
    assert_int_equal(a.n_allocs, 3);
    assert_null(tosac_arena_alloc(&a, 1, 3));  /* not a power of two */
    assert_null(tosac_arena_alloc(&a, 1, 48));
    assert_int_equal(a.used, 64);
    assert_int_equal(a.n_allocs, 3);
}

static void test_exhaustion(void **state)
{
    (void)state;
    tosac_arena a;
    tosac_arena_init(&a, g_buf, 64);
    assert_non_null(tosac_arena_alloc(&a, 60, 1));
    assert_null(tosac_arena_alloc(&a, 5, 1));        /* 4 left */
    assert_null(tosac_arena_alloc(&a, 1, 64));       /* padding alone does not fit */
    assert_int_equal(a.used, 60);
    assert_int_equal(a.high, 60);
    assert_int_equal(a.n_allocs, 1);
    assert_ptr_equal(tosac_arena_alloc(&a, 4, 1), g_buf + 60); /* exactly full */
    assert_int_equal(a.used, 64);
    assert_null(tosac_arena_alloc(&a, 1, 1));
    tosac_arena_reset(&a);
    assert_int_equal(a.used, 0);
    assert_int_equal(a.high, 64); /* high-water mark survives a reset */
    assert_ptr_equal(tosac_arena_alloc(&a, 16, 16), g_buf);
}

static void test_overflow(void **state)
{
    (void)state;
    tosac_arena a;
    tosac_arena_init(&a, g_buf, sizeof g_buf);
    assert_non_null(tosac_arena_alloc(&a, 10, 1));
    assert_null(tosac_arena_alloc(&a, SIZE_MAX, 1));
    assert_null(tosac_arena_alloc(&a, SIZE_MAX - 5, 16)); /* pad + bytes would wrap */
    assert_int_equal(a.used, 10);
    tosac_allocator al = tosac_arena_allocator(&a);
    assert_null(tosac_alloc_array(&al, SIZE_MAX / 2, 3, 1)); /* n * size wraps */
    assert_null(tosac_alloc_array(&al, (size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4), 1));
    assert_int_equal(a.used, 10);
    assert_int_equal(a.n_allocs, 1);
    int32_t *v = tosac_alloc_array(&al, 4, sizeof(int32_t), 4);
    assert_ptr_equal(v, g_buf + 12);
}

static void test_zero_size(void **state)
{
    (void)state;
    tosac_arena a;
    tosac_arena_init(&a, g_buf, 16);
    void *p = tosac_arena_alloc(&a, 0, 1);
    assert_ptr_equal(p, g_buf);
    assert_int_equal(a.used, 0);
    assert_non_null(tosac_arena_alloc(&a, 16, 1));
    assert_ptr_equal(tosac_arena_alloc(&a, 0, 1), g_buf + 16); /* full arena: still fine */
    assert_null(tosac_arena_alloc(&a, 1, 1));
    tosac_arena empty;
    tosac_arena_init(&empty, NULL, 100); /* no memory: every request fails */
    assert_int_equal(empty.size, 0);
    assert_null(tosac_arena_alloc(&empty, 0, 1));
}

static void test_helpers(void **state)
{
    (void)state;
    tosac_arena a;
    memset(g_buf, 0xab, sizeof g_buf);
    tosac_arena_init(&a, g_buf, sizeof g_buf);
    tosac_allocator al = tosac_arena_allocator(&a);
    unsigned char *z = tosac_alloc_zero(&al, 32, 16);
    assert_ptr_equal(z, g_buf);
    for (int i = 0; i < 32; i++)
        assert_int_equal(z[i], 0);
    assert_int_equal(g_buf[32], 0xab); /* nothing beyond the request touched */
    tosac_release(&al, z);              /* no-op: the next allocation follows */
    assert_ptr_equal(tosac_alloc(&al, 1, 0), g_buf + 32);
    assert_null(tosac_alloc(NULL, 1, 1));
    tosac_release(NULL, z);
    const tosac_allocator *lc = tosac_libc_allocator();
    void *big = tosac_alloc(lc, 100, 64);
    assert_non_null(big);
    assert_int_equal((uintptr_t)big % 64, 0);
    tosac_release(lc, big);
    void *none = tosac_alloc(lc, 0, 1);
    assert_non_null(none); /* zero bytes is not exhaustion */
    tosac_release(lc, none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_exhaustion),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
