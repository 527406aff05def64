/* The timeline writer (src/core/obs.c): slices that would overlap a track's slices without
 * nesting go to extra lanes ("lsu #2", ...) placed after their track, zero-length slices get
 * one cycle, and past 64 lanes a slice is left out and counted in the file. */
#include <stdlib.h>

#include "json_check.h"
#include "core/obs.h"
#include "test.h"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(1 << 20) : NULL;
    *n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (buf)
        buf[*n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

int main(void)
{
    const char *path = "core_timeline.json"; /* in the test's working directory */
    static const char *const tracks[] = {"lsu", "alu", "mem"};
    FILE *f = fopen(path, "w");
    NPK_CHECK(f != NULL);
    if (!f)
        return npk_test_done();
    npk_timeline *t = npk_timeline_create(f, path, tracks, 3, "demo");
    NPK_CHECK(t != NULL);
    if (!t)
        return npk_test_done();
    npk_timeline_event(t, 0, "sw", 0, 2);  /* lsu */
    npk_timeline_event(t, 0, "sw", 1, 2);  /* [1, 3) overlaps [0, 2): lsu #2 */
    npk_timeline_event(t, 0, "lw", 2, 2);  /* [2, 4): lsu again */
    npk_timeline_event(t, 0, "in", 2, 1);  /* [2, 3) inside [2, 4): lsu */
    npk_timeline_event(t, 0, "sb", 3, 2);  /* [3, 5) overlaps [2, 4): lsu #2, after [1, 3) */
    npk_timeline_event(t, 0, "lb", 0, 1);  /* an earlier start, inside [0, 2): lsu */
    npk_timeline_event(t, 0, "lh", 3, 6);  /* [3, 9) would come after the shorter [3, 5) with
                                            * its start: lsu #3 */
    npk_timeline_event(t, 1, "nop", 0, 0); /* zero length: one cycle */
    for (unsigned i = 0; i < 65; i++)      /* a staircase: each overlaps every earlier one */
        npk_timeline_event(t, 1, "div", 10 + i, 90);
    /* mem: 17 disjoint slices, one more than a lane keeps; the first one forgotten ends at
     * 101, so a slice starting before that goes to mem #2 even where it would fit */
    for (unsigned i = 0; i < 17; i++)
        npk_timeline_event(t, 2, "burst", 100 + 2 * i, 1);
    npk_timeline_event(t, 2, "early", 99, 1);
    npk_timeline_event(t, 2, "late", 135, 1);
    char where[64];
    NPK_CHECK(npk_timeline_finish(t, where, sizeof where) == 0);
    NPK_CHECK_EQ_STR(where, path);

    size_t n;
    char *s = slurp(path, &n);
    NPK_CHECK(s != NULL);
    if (!s)
        return npk_test_done();
    NPK_CHECK(npk_json_check(s, n) == 0);
    /* tracks 1-3 are lsu, alu and mem; lanes come as needed from tid 4 on, each sorted right
     * after its track (sort index: track * 64 + lane) */
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"lsu\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":0}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"alu\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":64}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"mem\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":3,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":128}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":4,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"lsu #2\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":4,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":1}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":5,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"lsu #3\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":5,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":2}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":2,\"name\":\"sw\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":4,\"ts\":1,\"dur\":2,\"name\":\"sw\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":2,\"name\":\"lw\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"name\":\"in\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":4,\"ts\":3,\"dur\":2,\"name\":\"sb\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"name\":\"lb\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":3,\"dur\":6,\"name\":\"lh\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":1,\"name\":\"nop\"}");
    /* alu: [10, 100) on its first lane after nop, then lanes #2 .. #64 (tids 6 .. 68); the
     * 65th is left out and counted */
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":90,\"name\":\"div\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":6,\"ts\":11,\"dur\":90,\"name\":\"div\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":68,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"alu #64\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":68,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":127}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":68,\"ts\":73,\"dur\":90,\"name\":\"div\"}");
    NPK_CHECK(strstr(s, "alu #65") == NULL);
    NPK_CHECK(strstr(s, "\"ts\":74,\"dur\":90") == NULL);
    NPK_CHECK_CONTAINS(s, "\"1 slices left out: more than 64 overlapping on one track\"");
    /* mem: the bursts and the late one on mem, the early one on mem #2 */
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":100,\"dur\":1,\"name\":\"burst\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":132,\"dur\":1,\"name\":\"burst\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":135,\"dur\":1,\"name\":\"late\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":1,\"tid\":69,\"ts\":99,\"dur\":1,\"name\":\"early\"}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":69,\"name\":\"thread_name\",\"args\":"
                          "{\"name\":\"mem #2\"}}");
    NPK_CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":1,\"tid\":69,\"name\":\"thread_sort_index\","
                          "\"args\":{\"sort_index\":129}}");
    free(s);
    remove(path);
    return npk_test_done();
}
