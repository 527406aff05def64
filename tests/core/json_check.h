/* A strict little JSON syntax checker for tests: is the text one valid JSON value? */
#ifndef NPK_TEST_JSON_CHECK_H
#define NPK_TEST_JSON_CHECK_H
#include <stddef.h>
/* Returns 0 when `s` (n bytes) is exactly one JSON value (with surrounding blanks), else the
 * byte offset + 1 of the first error. */
size_t npk_json_check(const char *s, size_t n);
#endif
