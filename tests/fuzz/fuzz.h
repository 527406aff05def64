/* Shared pieces of the libFuzzer harnesses (tests/fuzz/README.md): bounded inputs, a sink for
 * guest output and diagnostics, and the two drivers most harnesses are made of - assemble text
 * and binary image - each ending in a short run under an instruction budget. Only the public
 * API is used here; a harness aborts only when the library broke one of its promises. */
#ifndef NPK_FUZZ_H
#define NPK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"

#define FUZZ_MAX_INPUT ((size_t)64 << 10) /* longer inputs are ignored */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a broken promise of the library (a sanitizer-style crash the fuzzer records). */
static inline void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "npukit fuzz: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Guest output, diagnostics and listings go here: /dev/null, opened once per process. Also
 * points the process's standard input at /dev/null so that nothing a guest does can block on
 * a terminal (rvnpu's read(0) and uart_in=- use stdin). */
static inline FILE *fuzz_null(void)
{
    static FILE *null;
    if (!null) {
        null = fopen("/dev/null", "w");
        if (!null || !freopen("/dev/null", "r", stdin))
            fuzz_fail("cannot open /dev/null", NULL);
    }
    return null;
}

/* A machine for spec, its guest output silenced. Creating one must work for the specs the
 * harnesses use, so failure is a harness bug. */
static inline npk_machine *fuzz_machine(const char *spec)
{
    npk_machine *m = NULL;
    char err[512];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK || !m)
        fuzz_fail("npk_create failed", err);
    npk_set_output(m, fuzz_null(), fuzz_null());
    return m;
}

/* The input as a NUL-terminated string (NUL bytes inside stay and end the text early). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        fuzz_fail("out of memory", NULL);
    if (size)
        memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

/* Every message the library hands back must be a terminated string. */
static inline void fuzz_check_str(const char *s, size_t cap, const char *what)
{
    if (!s || memchr(s, '\0', cap) == NULL)
        fuzz_fail("unterminated message", what);
}

/* Words disassembled per input. A word's text depends only on the word and its address, and
 * a decode (a scan of the whole instruction table, every compare traced by the fuzzer) is the
 * most expensive thing a binary harness does per word: 128 words cover the same disassembler
 * paths as 4096 (the fuzzer moves words to the front as readily as it changes them), while
 * the words past them are still loaded and run. With 512, rvnpu's harnesses spent 37 % of
 * their time here. */
#define FUZZ_DISASM_WORDS 128
/* A text image (tinytpu's word file) read back by npk_disasm_text only up to this size: a
 * short source can ask for millions of cycles (`@3333387`: a 113 MB word file, linear work
 * that is no bug but takes seconds under the sanitizers) */
#define FUZZ_DISASM_TEXT_MAX ((size_t)1 << 20)

/* Disassemble the words of image (at most FUZZ_DISASM_WORDS) into heap buffers of varying,
 * exact sizes, so that ASan sees a write past a short output buffer. */
static inline void fuzz_disasm_words(npk_machine *m, const uint8_t *image, size_t n,
                                     uint64_t base)
{
    static const size_t sizes[] = {1, 2, 9, 17, 40, 256};
    size_t wb = npk_insn_bytes(m);
    if (wb == 0)
        return;
    for (size_t i = 0; i + wb <= n && i / wb < FUZZ_DISASM_WORDS; i += wb) {
        size_t cap = sizes[(i / wb) % (sizeof sizes / sizeof sizes[0])];
        char *out = malloc(cap);
        if (!out)
            fuzz_fail("out of memory", NULL);
        if (npk_disasm(m, image + i, base + i, out, cap) == NPK_OK)
            fuzz_check_str(out, cap, "npk_disasm output");
        free(out);
    }
}

/* The instruction budget of an rvnpu run with ram bytes of RAM. One NPU vector instruction
 * works on up to ram_size elements (npu.vmac: one per byte, bounded by the RAM alone), so a
 * run's work is up to budget x ram element operations: 4096 instructions of 256K-element
 * npu.vexp on a 1 MiB machine took 4.6 s under the sanitizers, over 10 s on a loaded machine
 * (crashes/bin_rvnpu/timeout-bb4e8d7b...: linear work, no bug). The budget keeps budget x ram
 * at most 2^28 (4096 up to 64 KiB, 256 at 1 MiB). */
static inline uint64_t fuzz_rvnpu_budget(uint64_t ram)
{
    uint64_t b = ((uint64_t)1 << 28) / (ram ? ram : 1);
    return b > 4096 ? 4096 : b < 16 ? 16 : b;
}

/* Observed runs format a trace line per instruction (cycle on tinytpu), most of their cost:
 * they get at most this budget. The observed loop and its stop paths are the same after 256
 * instructions as after 4096; the unobserved runs keep the full budget. */
#define FUZZ_OBSERVED_BUDGET 256

/* Run what is loaded for at most `budget` instructions (cycles on tinytpu), optionally with
 * the observers on (statistics and a text trace to /dev/null: the observed loop, at most
 * FUZZ_OBSERVED_BUDGET). */
static inline void fuzz_run(npk_machine *m, uint64_t budget, int observed)
{
    if (observed && budget > FUZZ_OBSERVED_BUDGET)
        budget = FUZZ_OBSERVED_BUDGET;
    if (observed) {
        npk_stats_enable(m, 1);
        npk_trace_text(m, fuzz_null());
    }
    npk_stop stop;
    npk_status st = npk_run(m, budget, &stop);
    if (st == NPK_OK) {
        fuzz_check_str(stop.message, sizeof stop.message, "npk_stop.message");
        if (stop.reason == NPK_STOP_NONE)
            fuzz_fail("npk_run returned without a stop reason", stop.message);
    }
    fuzz_check_str(npk_error(m), 1024, "npk_error");
    if (observed) {
        npk_stats s;
        if (npk_stats_get(m, &s) == NPK_OK && s.insns > budget)
            fuzz_fail("more instructions retired than the budget", NULL);
        npk_stats_json(m, fuzz_null());
        npk_trace_text(m, NULL);
    }
}

/* Assembler harness: assemble the text; if that works, disassemble the image, load it and
 * run it briefly. `disasm_spec` (or NULL) names a machine whose npk_disasm_text reads the
 * image back (tinytpu's word formats). `own_load` says the target has its own load_asm
 * (tinytpu, pccx: data, weights, .hostsize beyond the image), so the source is always loaded
 * with npk_load_asm. Elsewhere npk_load_asm is npk_assemble followed by npk_load_raw of the
 * image at 0 (src/core/machine.c), and npk_assemble has already defined the symbols, so
 * loading the image gives the same machine without assembling a second time; one successful
 * input in eight (chosen by its length) still goes through npk_load_asm, and so does an image
 * that is not whole instruction words. */
static inline int fuzz_asm(const char *spec, const char *disasm_spec, int own_load,
                           uint64_t budget, const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1;
    char *text = fuzz_text(data, size);
    npk_machine *m = fuzz_machine(spec);
    uint8_t *image = NULL;
    size_t n = 0;
    /* one input in four also writes the assembler's listing (npk_set_listing), to /dev/null */
    if ((size >> 3 & 3) == 0)
        npk_set_listing(m, fuzz_null());
    /* most mutants do not assemble; loading them would only repeat the same diagnostics */
    if (npk_assemble(m, text, "fuzz.s", fuzz_null(), &image, &n) == NPK_OK) {
        fuzz_disasm_words(m, image, n, 0);
        if (disasm_spec && n <= FUZZ_DISASM_TEXT_MAX) {
            npk_machine *d = fuzz_machine(disasm_spec);
            npk_disasm_text(d, image, n, "fuzz.words", fuzz_null());
            npk_destroy(d);
        }
        /* npk_load_raw, unlike the target hook npk_load_asm calls, rejects an image that is
         * not whole words (.byte data): those go through npk_load_asm too */
        size_t wb = npk_insn_bytes(m);
        npk_status st = own_load || (size >> 1 & 7) == 0 || (wb && n % wb)
                            ? npk_load_asm(m, text, "fuzz.s", fuzz_null())
                            : npk_load_raw(m, image, n, 0);
        if (st == NPK_OK)
            fuzz_run(m, budget, size & 1);
    } else {
        fuzz_check_str(npk_error(m), 1024, "npk_error");
    }
    npk_free(image);
    npk_destroy(m);
    free(text);
    return 0;
}

/* Binary harness: the first input byte picks one of `n_specs` machine specs (bit 7: run with
 * observers), the rest is a raw image: loaded at 0, disassembled word by word, run briefly. */
static inline int fuzz_bin_budgets(const char *const *specs, const uint64_t *budgets,
                                   size_t n_specs, uint64_t budget, const uint8_t *data,
                                   size_t size)
{
    if (size < 1 || size > FUZZ_MAX_INPUT)
        return -1;
    size_t k = (data[0] & 0x7F) % n_specs;
    if (budgets)
        budget = budgets[k];
    npk_machine *m = fuzz_machine(specs[k]);
    const uint8_t *image = data + 1;
    size_t n = size - 1;
    fuzz_disasm_words(m, image, n, 0);
    if (npk_load_raw(m, image, n, 0) == NPK_OK)
        fuzz_run(m, budget, data[0] >> 7);
    else
        fuzz_check_str(npk_error(m), 1024, "npk_error");
    npk_destroy(m);
    return 0;
}

/* fuzz_bin with one budget for every config. */
static inline int fuzz_bin(const char *const *specs, size_t n_specs, uint64_t budget,
                           const uint8_t *data, size_t size)
{
    return fuzz_bin_budgets(specs, NULL, n_specs, budget, data, size);
}

#endif
