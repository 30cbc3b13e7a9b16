/* NonMaxSuppression and RoiAlign kernels on hand-derived cases. */
#include "testutil.h"

#include "kernels/detect.h"

static void test_nms(void **state)
{
    (void)state;
    /* A = [0,0,1,1]; B shifted right by 0.1 (IoU with A = 0.9 / 1.1 = 0.82); C disjoint.
     * By score: B (0.95), A (0.9), C (0.5). */
    float boxes[12] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3};
    float scores[3] = {0.9f, 0.95f, 0.5f};
    int64_t out[9], scratch[6];
    kern_nms_params p = {1, 1, 3, 10, 0.5f, 0, 0, 0};
    assert_int_equal(kern_nms(&p, boxes, scores, out, scratch), 2);
    int64_t want[6] = {0, 0, 1, 0, 0, 2}; /* B kept, A suppressed by B, C kept */
    assert_memory_equal(out, want, sizeof want);
    p.iou_threshold = 0.9f; /* 0.82 does not exceed it: all three, by score */
    assert_int_equal(kern_nms(&p, boxes, scores, out, scratch), 3);
    assert_true(out[2] == 1 && out[5] == 0 && out[8] == 2);
    p.has_score_threshold = 1;
    p.score_threshold = 0.6f; /* C's 0.5 is not above it */
    assert_int_equal(kern_nms(&p, boxes, scores, out, scratch), 2);
    p.max_per_class = 1;
    assert_int_equal(kern_nms(&p, boxes, scores, out, scratch), 1);
    assert_int_equal(out[2], 1);
    /* center format [xc, yc, w, h]: [0.5,0.5,1,1] is A, [0.6,0.5,1,1] is B */
    float cboxes[8] = {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1};
    kern_nms_params q = {1, 1, 2, 10, 0.5f, 0, 0, 1};
    assert_int_equal(kern_nms(&q, cboxes, scores, out, scratch), 1);
    assert_int_equal(out[2], 1);
}

static void test_roi_align(void **state)
{
    (void)state;
    float x[4] = {0, 1, 2, 3}, roi1[4] = {0, 0, 1, 1}, roi2[4] = {0, 0, 2, 2}, y;
    int64_t b = 0;
    /* unshifted: one sample at (0.5, 0.5), the mean of the four pixels */
    kern_roi_align_params p = {1, 1, 2, 2, 1, 1, 1, 1, 1.0f, 0, 0};
    kern_roi_align(&p, x, roi1, &b, &y);
    assert_true(y == 1.5f);
    /* half_pixel: the sample moves to (0, 0), pixel 0 */
    p.half_pixel = 1;
    kern_roi_align(&p, x, roi1, &b, &y);
    assert_true(y == 0.0f);
    /* [0,0,2,2] shifted with a 2x2 grid samples the four pixel centres: mean 1.5, max 3 */
    p.sampling_ratio = 2;
    kern_roi_align(&p, x, roi2, &b, &y);
    assert_true(y == 1.5f);
    p.max_mode = 1;
    kern_roi_align(&p, x, roi2, &b, &y);
    assert_true(y == 3.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nms),
        cmocka_unit_test(test_roi_align),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
