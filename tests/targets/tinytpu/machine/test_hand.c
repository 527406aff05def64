/* tinytpu: a small case computed by hand, checked edge by edge through the trace (spec B8).
 *
 * Program (N = 2, pathway 0000 = pass-through, so the VPU adds no stage):
 *   c1  host lane1 = 1.0, lane0 = 2.0   appends lane 1 first: UB[0] = 0100, UB[1] = 0200
 *   c2  host lane1 = 0.5, lane0 = 0     UB[2] = 0080, UB[3] = 0000 (unchanged: no W line)
 *   c3  host lane1 = 1.0, lane0 = 1.0   UB[4] = 0100, UB[5] = 0100
 *   c4  read weight addr 0 rows 2 cols 2 (untransposed: M = A = [[1, 2], [0.5, 0]], A7.4);
 *       E := 11 at edge 4
 *   c5  idle
 *   c6  read input addr 4 rows 1 cols 2 (x = 6 >= w + R_w = 4 + 2)
 *   c7  sw (x + 1)
 *   c8 .. c10 idle
 * The weight walk: ptr = 0 + 2*2 - 2 = 2, skip 3; beat 0 lane 0 reads UB[2] = 0.5 (A[1][0]);
 * beat 1 lane 1 UB[3] = 0 (A[1][1]), lane 0 UB[0] = 1.0 (A[0][0]); beat 2 lane 1 UB[1] = 2.0.
 * So PE(0,0) = 1.0, PE(1,0) = 0.5, PE(0,1) = 2.0, PE(1,1) = 0.
 * Input row [1, 1]: column 0 = 1*1.0 + 1*0.5 = 1.5 (0180), registered at edge x+N+0 = 8;
 * column 1 = 1*2.0 + 1*0 = 2.0 (0200) at edge 9. With S = 0 the VPU outputs are valid during
 * cycles 9 and 10 (trace "V 8 0 0180", "V 9 1 0200") and appended at edges 9 and 10 at wp = 6
 * and 7. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <unistd.h>

#include "tt_prog.h"

static const char *const expected =
    "W 1 0 0100\n"
    "W 1 1 0200\n"
    "W 2 2 0080\n"
    "W 3 4 0100\n"
    "W 3 5 0100\n"
    "V 8 0 0180\n"
    "W 9 6 0180\n"
    "V 9 1 0200\n"
    "W 10 7 0200\n";

int main(void)
{
    pb b;
    pb_init(&b, 2);
    int h1[2] = {0x0200, 0x0100}, h2[2] = {0x0000, 0x0080}, h3[2] = {0x0100, 0x0100};
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h1, 2);
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h2, 2);
    pb_cycle(&b, -1, 0, 0, 0, 0, 0, h3, 2);
    pb_cycle(&b, TT_CH_WEIGHT, 0, 2, 2, 0, 0, NULL, 0);
    pb_idle(&b, 1);
    pb_cycle(&b, TT_CH_INPUT, 4, 1, 2, 0, 0, NULL, 0);
    pb_cycle(&b, -1, 0, 0, 0, 0, 1, NULL, 0);
    pb_idle(&b, 3);
    npk_machine *m = pb_machine(&b, "tinytpu");
    FILE *tr = tmpfile();
    npk_trace_text(m, tr);
    npk_stop stop;
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK(stop.reason == NPK_STOP_EXIT);
    npk_trace_text(m, NULL);
    rewind(tr);
    char got[8192];
    size_t n = fread(got, 1, sizeof got - 1, tr);
    got[n] = 0;
    fclose(tr);
    /* the final contents follow (B8): "UB a v" for every address */
    char *ub = strstr(got, "UB 0 ");
    NPK_CHECK(ub && strstr(ub, "UB 6 0180\nUB 7 0200\n") && strstr(ub, "UB 127 0000\n"));
    if (ub)
        *ub = 0;
    NPK_CHECK_EQ_STR(got, expected);
    NPK_CHECK_EQ_U64(ub_word(m, 6), 0x0180);
    NPK_CHECK_EQ_U64(ub_word(m, 7), 0x0200);
    /* the same run without observers leaves the same memory */
    npk_reset(m);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK);
    NPK_CHECK_EQ_U64(ub_word(m, 6), 0x0180);
    NPK_CHECK_EQ_U64(ub_word(m, 7), 0x0200);
    npk_destroy(m);

    /* the same run with a VCD: header, one #10k and one #10k+5 timestamp per cycle, clk
     * toggling, and the first VPU result (lane 0 = 0180) at edge 8 (time 80): vpu_data_0 is
     * cycle k's VPU output at time 10k, and the output is valid during cycle 9 */
    char path[] = "/tmp/npk_tt_vcd_XXXXXX";
    int fd = mkstemp(path);
    NPK_CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    char spec[128];
    snprintf(spec, sizeof spec, "tinytpu:vcd=%s", path);
    m = pb_machine(&b, spec);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    npk_destroy(m);
    FILE *v = fopen(path, "r");
    NPK_CHECK(v != NULL);
    if (v) {
        char line[256];
        unsigned stamps = 0, defs = 0, vars = 0, found = 0;
        char vpu_id[8] = "";
        long t = -1;
        while (fgets(line, sizeof line, v)) {
            char id[8], name[64];
            unsigned bits;
            if (sscanf(line, "$var wire %u %7s %63s $end", &bits, id, name) == 3) {
                vars++;
                if (!strcmp(name, "vpu_data_0"))
                    snprintf(vpu_id, sizeof vpu_id, "%s", id);
            }
            defs += strncmp(line, "$enddefinitions", 15) == 0;
            if (line[0] == '#')
                stamps++, t = atol(line + 1);
            char want[32];
            snprintf(want, sizeof want, "b110000000 %s\n", vpu_id);
            if (t == 90 && vpu_id[0] && !strcmp(line, want))
                found = 1;
        }
        fclose(v);
        NPK_CHECK_EQ_U64(defs, 1);
        NPK_CHECK_EQ_U64(stamps, 2 * 10);
        NPK_CHECK(vars > 20);
        NPK_CHECK(found); /* 0x0180 = 110000000b during cycle 9 */
    }
    remove(path);
    tt_program_free(&b.p);
    return npk_test_done();
}
