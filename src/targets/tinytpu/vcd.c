/* tinytpu VCD output (the `vcd=FILE` setting): the main signals once per clock edge, for people
 * who read waveforms. Time 10k is edge k (clk rises), 10k + 5 the middle of cycle k + 1. At
 * 10k each signal shows its value after edge k; the control-word fields, the VPU output and the
 * UB write port show cycle k's values (what edge k registered). Written from the observed loop
 * only. */
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "targets/tinytpu/machine.h"

enum { V_CLK, V_CYCLE, V_SW, V_START, V_SEL, V_ADDR, V_ROWS, V_COLS, V_PATHWAY, V_WP, V_E,
       V_UB_WE, V_UB_ADDR, V_UB_DATA, V_GPTR, V_MODE, V_N_FIXED };
/* per lane: input data/valid, weight data/valid, VPU out data/valid, GD done/upd;
 * per PE (N <= 4): psum, vout, active */
enum { L_IN_D, L_IN_V, L_W_D, L_W_V, L_OUT_D, L_OUT_V, L_DONE, L_UPD, L_N };
enum { P_PSUM, P_VOUT, P_ACTIVE, P_N };
#define VCD_MAX_PE_N 4u

static void ident(unsigned id, char *out)
{
    unsigned n = 0;
    do {
        out[n++] = (char)('!' + id % 94);
        id /= 94;
    } while (id);
    out[n] = 0;
}

static void var(FILE *f, unsigned id, unsigned bits, const char *name)
{
    char c[8];
    ident(id, c);
    fprintf(f, "$var wire %u %s %s $end\n", bits, c, name);
}

static void val(FILE *f, unsigned id, unsigned bits, uint64_t v)
{
    char c[8];
    ident(id, c);
    if (bits == 1) {
        fprintf(f, "%u%s\n", (unsigned)(v & 1), c);
        return;
    }
    fputc('b', f);
    int started = 0;
    for (unsigned b = bits; b-- > 0;) {
        unsigned bit = (unsigned)(v >> b) & 1;
        if (bit || started || b == 0) {
            fputc('0' + (int)bit, f);
            started = 1;
        }
    }
    fprintf(f, " %s\n", c);
}

static unsigned lane_id(unsigned i, unsigned what)
{
    return V_N_FIXED + i * L_N + what;
}

static unsigned pe_id(const tt_state *s, unsigned idx, unsigned what)
{
    return V_N_FIXED + s->N * L_N + idx * P_N + what;
}

npk_status tt_vcd_open(npk_machine *m, tt_state *s)
{
    /* vcd=- is standard output, as "-" is everywhere in npukit */
    FILE *f = strcmp(s->vcd_path, "-") == 0 ? stdout : fopen(s->vcd_path, "w");
    if (!f)
        return npk_fail(m, NPK_ERR_IO, "tinytpu: vcd=%s: cannot write", s->vcd_path);
    const unsigned N = s->N;
    fprintf(f, "$version npukit tinytpu (lanes=%u, ub_words=%u) $end\n$timescale 1ns $end\n",
            N, s->ub_words);
    fprintf(f, "$scope module tinytpu $end\n");
    var(f, V_CLK, 1, "clk");
    var(f, V_CYCLE, 32, "cycle");
    var(f, V_SW, 1, "sw");
    var(f, V_START, 1, "start");
    var(f, V_SEL, 9, "sel");
    var(f, V_ADDR, 16, "addr");
    var(f, V_ROWS, 16, "rows");
    var(f, V_COLS, 16, "cols");
    var(f, V_PATHWAY, 4, "pathway");
    var(f, V_WP, 32, "wp");
    var(f, V_E, N > 64 ? 64 : N, "E");
    var(f, V_UB_WE, 1, "ub_we");
    var(f, V_UB_ADDR, 32, "ub_waddr");
    var(f, V_UB_DATA, 16, "ub_wdata");
    var(f, V_GPTR, 16, "gptr");
    var(f, V_MODE, 1, "gd_mode");
    char name[64];
    static const char *const lane_names[L_N] = {"in_data", "in_valid", "w_data", "w_valid",
                                                "vpu_data", "vpu_valid", "gd_done", "gd_upd"};
    static const unsigned lane_bits[L_N] = {16, 1, 16, 1, 16, 1, 1, 16};
    for (unsigned i = 0; i < N; i++)
        for (unsigned w = 0; w < L_N; w++) {
            snprintf(name, sizeof name, "%s_%u", lane_names[w], i);
            var(f, lane_id(i, w), lane_bits[w], name);
        }
    if (N <= VCD_MAX_PE_N)
        for (unsigned r = 0; r < N; r++)
            for (unsigned j = 0; j < N; j++) {
                static const char *const pn[P_N] = {"psum", "vout", "active"};
                static const unsigned pb[P_N] = {16, 1, 16};
                for (unsigned w = 0; w < P_N; w++) {
                    snprintf(name, sizeof name, "pe_%u_%u_%s", r, j, pn[w]);
                    var(f, pe_id(s, r * N + j, w), pb[w], name);
                }
            }
    fprintf(f, "$upscope $end\n$enddefinitions $end\n");
    s->vcd = f;
    s->vcd_cycle = 0;
    return NPK_OK;
}

void tt_vcd_edge(tt_state *s, uint64_t k, const tt_cycle *c)
{
    FILE *f = s->vcd;
    const unsigned N = s->N;
    fprintf(f, "#%llu\n", (unsigned long long)(10 * k));
    val(f, V_CLK, 1, 1);
    val(f, V_CYCLE, 32, k);
    val(f, V_SW, 1, c->rst ? 0 : c->sw);
    val(f, V_START, 1, c->rst ? 0 : c->start);
    val(f, V_SEL, 9, c->rst ? 0 : c->sel);
    val(f, V_ADDR, 16, c->rst ? 0 : c->addr);
    val(f, V_ROWS, 16, c->rst ? 0 : c->rows);
    val(f, V_COLS, 16, c->rst ? 0 : c->cols);
    val(f, V_PATHWAY, 4, c->rst ? 0 : c->pathway);
    val(f, V_WP, 32, s->wp);
    uint64_t e = 0;
    for (unsigned j = 0; j < N && j < 64; j++)
        e |= (uint64_t)(s->E[j] != 0) << j;
    val(f, V_E, N > 64 ? 64 : N, e);
    /* the first UB write of the edge (the append of the highest lane, or a GD write-back) */
    int any = !c->rst && s->n_wr > 0;
    val(f, V_UB_WE, 1, (unsigned)any);
    val(f, V_UB_ADDR, 32, any ? s->wr_addr[0] : 0);
    val(f, V_UB_DATA, 16, any ? s->wr_val[0] : 0);
    val(f, V_GPTR, 16, s->gptr);
    val(f, V_MODE, 1, s->mode);
    for (unsigned i = 0; i < N; i++) {
        val(f, lane_id(i, L_IN_D), 16, s->in_d[i]);
        val(f, lane_id(i, L_IN_V), 1, s->in_v[i]);
        val(f, lane_id(i, L_W_D), 16, s->w_d[i]);
        val(f, lane_id(i, L_W_V), 1, s->w_v[i]);
        val(f, lane_id(i, L_OUT_D), 16, c->rst ? 0 : s->out_d[i]);
        val(f, lane_id(i, L_OUT_V), 1, c->rst ? 0 : s->out_v[i]);
        val(f, lane_id(i, L_DONE), 1, s->done[i]);
        val(f, lane_id(i, L_UPD), 16, s->upd[i]);
    }
    if (N <= VCD_MAX_PE_N)
        for (unsigned i = 0; i < N * N; i++) {
            val(f, pe_id(s, i, P_PSUM), 16, TT_PE(s, TT_PE_PSUM, i));
            val(f, pe_id(s, i, P_VOUT), 1, TT_PE(s, TT_PE_VOUT, i));
            val(f, pe_id(s, i, P_ACTIVE), 16, TT_PE(s, TT_PE_ACTIVE, i));
        }
    fprintf(f, "#%llu\n", (unsigned long long)(10 * k + 5));
    val(f, V_CLK, 1, 0);
    s->vcd_cycle = k;
}

void tt_vcd_close(tt_state *s)
{
    if (s->vcd) {
        if (s->vcd == stdout)
            fflush(stdout);
        else
            fclose(s->vcd);
        s->vcd = NULL;
    }
}
