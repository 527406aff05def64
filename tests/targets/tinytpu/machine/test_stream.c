/* Streamed programs (setting stream=1): a long port stream, generated here in a temporary
 * directory (the XOR training program of examples/tinytpu/xor, repeated with a different lr per
 * repetition), runs streamed and from memory with the same operations: a fast run stopped
 * halfway, the cycle register moved back (the stream re-reads from the start), a run to the
 * end, then an observed run with statistics. Both must leave the same UB, the same registers,
 * the same stops and the same statistics, and the streamed machine's peak memory must grow by
 * far less than the program takes in memory (32 bytes a cycle plus its text).
 * Usage: tinytpu_stream [CYCLES] (default 10^6; the exhaustive label runs 10^7). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "npukit/npukit.h"
#include "targets/tinytpu/compile.h"
#include "targets/tinytpu/machine.h"
#include "test.h"

#ifndef XOR_NET
#define XOR_NET ""
#endif

static long peak_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* What a machine leaves: the UB, every register, the stops and the statistics, as text. */
typedef struct result {
    char *text;
    size_t len;
} result;

static void add_state(npk_machine *m, FILE *f, const npk_stop *stop)
{
    fprintf(f, "stop %d pc %llu: %s\n", (int)stop->reason, (unsigned long long)stop->pc,
            stop->message);
    const uint64_t size = 2ull * tt_state_of(m)->ub_words;
    uint8_t *ub = malloc(size);
    NPK_CHECK(ub && npk_mem_read(m, "ub", 0, ub, size) == NPK_OK);
    unsigned nonzero = 0;
    for (uint64_t i = 0; ub && i < size; i++) {
        fprintf(f, "%02X", ub[i]);
        nonzero += ub[i] != 0;
    }
    fprintf(f, "\n%u bytes not zero\n", nonzero);
    NPK_CHECK(nonzero > 1000); /* the program writes most of its UB words */
    free(ub);
    for (size_t i = 0; i < npk_reg_count(m); i++) {
        const npk_reg_info *r = npk_reg(m, i);
        uint64_t v = 0;
        if (r->bits <= 64 && npk_reg_read(m, r->name, &v) == NPK_OK)
            fprintf(f, "%s=%llx ", r->name, (unsigned long long)v);
    }
    fputc('\n', f);
}

/* The operations, on a machine made from spec (stream=0 or 1) loading path. */
static int run_ops(const char *spec, const char *path, uint64_t half, int streamed,
                   result *out)
{
    char err[512];
    npk_machine *m = NULL;
    out->text = NULL;
    FILE *f = open_memstream(&out->text, &out->len);
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK ||
        npk_load_file(m, path, NULL) != NPK_OK) {
        NPK_REPORT(0, "%s: %s\n", spec, m ? npk_error(m) : err);
        npk_destroy(m);
        fclose(f);
        return -1;
    }
    const tt_state *s = tt_state_of(m);
    NPK_REPORT((s->stream != NULL) == streamed, "%s: streamed %d, want %d\n", spec,
               s->stream != NULL, streamed);
    npk_stop stop;
    /* fast: half the program, back to cycle 5 (a streamed program starts over), the rest */
    NPK_CHECK(npk_run(m, half, &stop) == NPK_OK && stop.reason == NPK_STOP_BUDGET);
    add_state(m, f, &stop);
    NPK_CHECK(npk_reg_write(m, "cycle", 5) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    add_state(m, f, &stop);
    /* observed, from a reset: statistics, one edge at a time */
    NPK_CHECK(npk_reset(m) == NPK_OK && npk_stats_enable(m, 1) == NPK_OK);
    NPK_CHECK(npk_run(m, 0, &stop) == NPK_OK && stop.reason == NPK_STOP_EXIT);
    add_state(m, f, &stop);
    npk_stats t;
    NPK_CHECK(npk_stats_get(m, &t) == NPK_OK);
    fprintf(f, "insns %llu cycles %llu\n", (unsigned long long)t.insns,
            (unsigned long long)t.cycles);
    for (size_t i = 0; i < t.n_mnemonics; i++)
        fprintf(f, "%s %llu\n", t.mnemonic[i], (unsigned long long)t.count[i]);
    for (size_t i = 0; i < t.n_units; i++)
        fprintf(f, "%s busy %llu\n", t.unit[i], (unsigned long long)t.busy[i]);
    for (size_t i = 0; i < t.n_extra; i++)
        fprintf(f, "%s %llu\n", t.extra_name[i], (unsigned long long)t.extra[i]);
    /* a streamed program is not put in snapshots: refused, with the reason */
    uint8_t *snap = NULL;
    size_t snap_n = 0;
    npk_status st = npk_snapshot_save(m, &snap, &snap_n);
    NPK_CHECK(streamed ? st == NPK_ERR_UNSUPPORTED && strstr(npk_error(m), "stream=0")
                       : st == NPK_OK);
    npk_free(snap);
    npk_destroy(m);
    fclose(f);
    return 0;
}

/* A file the stream does not read cleanly is read whole, as with stream=0: the same error,
 * the same diagnostics (here an error 70,000 lines in, past the first read buffer, a file
 * whose format the first 64 KiB do not settle, a NUL byte in a comment 70,000 lines in,
 * which only the stream's check of the lines it reads byte by byte sees, and 70,000 cycles
 * and a comment with max_cycles=69999). */
static void same_errors(const char *dir)
{
    static const char good[] = "0 0 0 0 0 0 0000 0000 000 0000 0000 0000 0 0040 0020 0080\n";
    static const char *const bad[] = {"0 0 0 0 0 0 0000 0000 000 0000 0000 0000 0 0040 0020\n",
                                      "0 0 0 0 0 0 0000 0000 000 0000 0000 0000 0 0040 0020 0x8\n"};
    char path[128];
    snprintf(path, sizeof path, "%s/bad.port", dir);
    static const char nul[] = "# a comment with a NUL (\0) in it\n";
    for (int k = 0; k < 5; k++) {
        FILE *f = fopen(path, "w");
        if (!f)
            return;
        for (int i = 0; i < (k == 2 ? 2000 : 0); i++) /* 2000 comment lines first */
            fprintf(f, "# a comment line that is 40 bytes long.\n");
        for (int i = 0; i < 70000; i++)
            fputs(good, f);
        if (k < 2)
            fputs(bad[k], f);
        if (k == 3)
            fwrite(nul, 1, sizeof nul - 1, f);
        if (k == 4) /* the last word is not the last line */
            fputs("# the end\n", f);
        fclose(f);
        char *diag[2] = {NULL, NULL}, msg[2][512];
        npk_status st[2];
        uint64_t n[2] = {0, 0};
        for (int sm = 0; sm < 2; sm++) {
            size_t len;
            FILE *d = open_memstream(&diag[sm], &len);
            npk_machine *m = NULL;
            char spec[64];
            snprintf(spec, sizeof spec, "tinytpu:lr=0x40,stream=%d%s", sm,
                     k == 4 ? ",max_cycles=69999" : "");
            npk_create(&m, spec, NULL, msg[sm], sizeof msg[sm]);
            st[sm] = npk_load_file(m, path, d);
            snprintf(msg[sm], sizeof msg[sm], "%s", npk_error(m));
            npk_stop stop;
            if (st[sm] == NPK_OK && npk_run(m, 0, &stop) == NPK_OK)
                n[sm] = stop.pc;
            npk_destroy(m);
            fclose(d);
        }
        NPK_REPORT(st[0] == st[1] && strcmp(msg[0], msg[1]) == 0 &&
                       strcmp(diag[0], diag[1]) == 0 && n[0] == n[1],
                   "case %d: stream=0: %d %s\n%s cycles %llu; stream=1: %d %s\n%s cycles %llu\n",
                   k, (int)st[0], msg[0], diag[0], (unsigned long long)n[0], (int)st[1], msg[1],
                   diag[1], (unsigned long long)n[1]);
        NPK_CHECK(k < 2    ? st[1] == NPK_ERR_FORMAT && strstr(diag[1], "bad.port:70001:")
                  : k == 2 ? st[1] == NPK_OK && n[1] == 70000
                  : k == 3 ? st[1] != NPK_OK
                           : st[1] == NPK_ERR_FORMAT && strstr(diag[1], "more than 69999"));
        free(diag[0]);
        free(diag[1]);
    }
    unlink(path);
}

int main(int argc, char **argv)
{
    const unsigned long want = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000ul;
    char err[512];
    tt_net net;
    tt_compiled c;
    if (tt_net_read(XOR_NET, &net, err, sizeof err) || tt_compile(&net, &c, err, sizeof err)) {
        NPK_REPORT(0, "cannot compile %s: %s\n", XOR_NET, err);
        return npk_test_done();
    }
    /* the stream: repetitions of the program (each starts with a reset cycle), lr + 8 r mod 32 */
    char dir[] = "/tmp/npk_tt_streamXXXXXX", path[64];
    NPK_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/long.port", dir);
    FILE *f = fopen(path, "w");
    NPK_CHECK(f != NULL);
    const size_t reps = (want + c.prog.n - 1) / c.prog.n;
    uint16_t *lr = malloc(c.prog.n * sizeof *lr);
    for (size_t k = 0; lr && k < c.prog.n; k++)
        lr[k] = c.prog.c[k].lr;
    for (size_t r = 0; f && lr && r < reps; r++) {
        for (size_t k = 0; k < c.prog.n; k++)
            c.prog.c[k].lr = (uint16_t)(lr[k] + 8 * (r % 4));
        NPK_CHECK(tt_write_words(&c.prog, TT_FMT_PORT, f, err, sizeof err) == 0);
    }
    if (f)
        fclose(f);
    const uint64_t cycles = reps * c.prog.n;
    printf("%zu repetitions of %zu cycles: %llu cycles\n", reps, c.prog.n,
           (unsigned long long)cycles);
    free(lr);

    /* a reset cycle by the setting in the first window and one in the last repetition, two
     * cycles into its host load */
    char spec[256];
    const char *fmt = "tinytpu:lanes=2,ub_words=%u,lr=0x%04X,reset_at=1000:%llu,stream=%d";
    const unsigned long long last_rep = (unsigned long long)(cycles - c.prog.n);
    snprintf(spec, sizeof spec, fmt, net.ub_words, c.lr, last_rep + 3, 1);
    long kb0 = peak_kb();
    result streamed, memory;
    run_ops(spec, path, cycles / 2, 1, &streamed);
    long kb1 = peak_kb();
    snprintf(spec, sizeof spec, fmt, net.ub_words, c.lr, last_rep + 3, 0);
    run_ops(spec, path, cycles / 2, 0, &memory);
    long kb2 = peak_kb();
    const char *a = streamed.text ? streamed.text : "", *b = memory.text ? memory.text : "";
    size_t at = 0; /* the first difference, shown with what leads up to it */
    while (a[at] && a[at] == b[at])
        at++;
    size_t from = at > 300 ? at - 300 : 0;
    NPK_REPORT(streamed.text && memory.text && !a[at] && !b[at],
               "streamed and in-memory runs differ at byte %zu:\n--- streamed:\n%.400s\n--- "
               "memory:\n%.400s\n", at, a + from, b + from);
    /* the program in memory: 32 bytes a cycle and its text (58 bytes a line); streamed: a
     * 1 MiB read buffer and a window of cycles */
    const long prog_kb = (long)(cycles * 32 / 1024);
    printf("peak memory growth: streamed %ld KB, in memory %ld KB (records alone %ld KB)\n",
           kb1 - kb0, kb2 - kb1, prog_kb);
    NPK_REPORT(kb1 - kb0 < 8192 && kb1 - kb0 < prog_kb / 4,
               "the streamed run grew the peak memory by %ld KB (the records: %ld KB)\n",
               kb1 - kb0, prog_kb);
    NPK_CHECK(kb2 - kb1 > prog_kb); /* what streaming saves */
    free(streamed.text);
    free(memory.text);
    same_errors(dir);
    unlink(path);
    rmdir(dir);
    tt_compiled_free(&c);
    tt_net_free(&net);
    return npk_test_done();
}
