/* Minimal test harness shared by npukit's unit tests: checks that count, report where they
 * failed, and a closing "N passed, N failed" line that ctest's log shows. */
#ifndef NPK_TEST_H
#define NPK_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned long npk_test_pass, npk_test_fail;

#define NPK_CHECK(cond)                                                                     \
    do {                                                                                    \
        if (cond) {                                                                         \
            npk_test_pass++;                                                                \
        } else {                                                                            \
            npk_test_fail++;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
        }                                                                                   \
    } while (0)

#define NPK_CHECK_EQ_U64(got, want)                                                         \
    do {                                                                                    \
        uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                               \
        if (g_ == w_) {                                                                     \
            npk_test_pass++;                                                                \
        } else {                                                                            \
            npk_test_fail++;                                                                \
            fprintf(stderr, "%s:%d: %s = 0x%" PRIx64 ", want 0x%" PRIx64 "\n", __FILE__,    \
                    __LINE__, #got, g_, w_);                                                \
        }                                                                                   \
    } while (0)

#define NPK_CHECK_EQ_STR(got, want)                                                         \
    do {                                                                                    \
        const char *g_ = (got), *w_ = (want);                                               \
        if (g_ && w_ && strcmp(g_, w_) == 0) {                                              \
            npk_test_pass++;                                                                \
        } else {                                                                            \
            npk_test_fail++;                                                                \
            fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got,  \
                    g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                \
        }                                                                                   \
    } while (0)

/* Substring check, for diagnostics whose exact wording is free. */
#define NPK_CHECK_CONTAINS(hay, needle)                                                     \
    do {                                                                                    \
        const char *h_ = (hay), *n_ = (needle);                                             \
        if (h_ && n_ && strstr(h_, n_)) {                                                   \
            npk_test_pass++;                                                                \
        } else {                                                                            \
            npk_test_fail++;                                                                \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,  \
                    h_ ? h_ : "(null)", n_ ? n_ : "(null)");                                \
        }                                                                                   \
    } while (0)

/* A check with a printf-style message, for loops over many cases: only the first 40
 * failures are printed, all are counted. */
static unsigned long npk_test_printed;
#define NPK_REPORT(ok, ...)                                                                 \
    do {                                                                                    \
        if (ok) {                                                                           \
            npk_test_pass++;                                                                \
        } else {                                                                            \
            npk_test_fail++;                                                                \
            if (npk_test_printed++ < 40)                                                    \
                fprintf(stderr, __VA_ARGS__);                                               \
        }                                                                                   \
    } while (0)

/* Print the closing line and return the process exit status. */
static inline int npk_test_done(void)
{
    (void)npk_test_printed;
    printf("%lu passed, %lu failed\n", npk_test_pass, npk_test_fail);
    return npk_test_fail ? 1 : 0;
}

#endif
