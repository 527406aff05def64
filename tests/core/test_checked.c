/* src/core/checked.h: the checked sums, products and the one range test every bounds check in
 * the library uses, at the edges where unchecked arithmetic wraps. */
#include "core/checked.h"
#include "test.h"

int main(void)
{
    uint64_t u = 7;
    NPK_CHECK(npk_add_u64_ok(UINT64_MAX - 1, 1, &u) && u == UINT64_MAX);
    NPK_CHECK(!npk_add_u64_ok(UINT64_MAX, 1, &u)); /* wrap by one */
    NPK_CHECK(!npk_add_u64_ok(UINT64_MAX, UINT64_MAX, &u));
    NPK_CHECK(npk_add_u64_ok(0, 0, &u) && u == 0);
    NPK_CHECK(npk_mul_u64_ok(UINT64_C(1) << 32, (UINT64_C(1) << 32) - 1, &u) &&
              u == UINT64_MAX - UINT32_MAX);
    NPK_CHECK(!npk_mul_u64_ok(UINT64_C(1) << 32, UINT64_C(1) << 32, &u));
    NPK_CHECK(!npk_mul_u64_ok(2, UINT64_C(1) << 63, &u));
    NPK_CHECK(npk_mul_u64_ok(0, UINT64_MAX, &u) && u == 0);
    NPK_CHECK(npk_mul_u64_ok(UINT64_MAX, 1, &u) && u == UINT64_MAX);

    int64_t i = 0;
    NPK_CHECK(npk_add_i64_ok(INT64_MAX, INT64_MIN, &i) && i == -1);
    NPK_CHECK(!npk_add_i64_ok(INT64_MAX, 1, &i));
    NPK_CHECK(!npk_add_i64_ok(INT64_MIN, -1, &i));
    NPK_CHECK(npk_mul_i64_ok(-1, INT64_MAX, &i) && i == -INT64_MAX);
    NPK_CHECK(!npk_mul_i64_ok(-1, INT64_MIN, &i));
    NPK_CHECK(!npk_mul_i64_ok(INT64_C(1) << 62, 2, &i)); /* the .wview stride of issue 13 */
    NPK_CHECK(npk_mul_i64_ok(INT64_C(1) << 62, -2, &i) && i == INT64_MIN);
    NPK_CHECK(!npk_mul_i64_ok(INT64_C(1) << 62, -3, &i));
    NPK_CHECK(npk_mul_i64_ok(0, INT64_MIN, &i) && i == 0);

    /* [addr, addr+len) inside [0, size) */
    NPK_CHECK(npk_range_ok(0, 16, 16));
    NPK_CHECK(!npk_range_ok(1, 16, 16));
    NPK_CHECK(npk_range_ok(16, 0, 16));   /* empty range at the very end */
    NPK_CHECK(!npk_range_ok(17, 0, 16));  /* empty range past the end */
    NPK_CHECK(npk_range_ok(0, 0, 0));
    NPK_CHECK(!npk_range_ok(UINT64_MAX, 2, 16));           /* addr+len wraps to 1 */
    NPK_CHECK(!npk_range_ok(8, UINT64_MAX, 16));           /* addr+len wraps to 7 */
    NPK_CHECK(!npk_range_ok(UINT64_MAX, 1, UINT64_MAX));   /* ends one past 2^64-1 */
    NPK_CHECK(npk_range_ok(UINT64_MAX - 1, 1, UINT64_MAX));
    NPK_CHECK(npk_range_ok(0, UINT64_MAX, UINT64_MAX));
    return npk_test_done();
}
