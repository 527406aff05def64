/* Fuzz the tinytpu schedule compiler (src/targets/tinytpu/compile.h, `npukit compile`): parse
 * an MLP description, compile it, write the program and the memory map, and when the program
 * is short run the self-check on the simulator: at most 50000 cycles and 4 M PE updates
 * (cycles x lanes^2). A cycle of an N-lane array updates N^2 PEs, so the cycle bound alone let
 * a 67-lane net of 39,160 cycles (175 M PE updates) take over 10 s under the fuzzing
 * instrumentation (crashes/compile_tinytpu/timeout-lanes-67-39160-cycles.net; 0.09 s in the
 * release build: linear work, no bug). */
#include "fuzz.h"
#include "targets/tinytpu/compile.h"

#define CHECK_MAX_CYCLES 50000u
#define CHECK_MAX_PE_UPDATES 4000000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return -1;
    char *text = fuzz_text(data, size);
    char err[1024];
    tt_net net;
    tt_compiled c;
    memset(&c, 0, sizeof c);
    if (tt_net_parse(text, "fuzz.net", &net, err, sizeof err) == 0) {
        if (tt_compile(&net, &c, err, sizeof err) == 0) {
            if (c.cycles != c.prog.n)
                fuzz_fail("tt_compile: cycles differs from the program length", NULL);
            tt_write_program(&c.prog, net.format, fuzz_null(), err, sizeof err);
            tt_compiled_print_map(&net, &c, fuzz_null());
            tt_compiled_find(&c, "X", -1);
            if (c.cycles <= CHECK_MAX_CYCLES &&
                c.cycles * net.N * net.N <= CHECK_MAX_PE_UPDATES) {
                long bad = tt_compiled_check(&net, &c, NULL, err, sizeof err);
                /* the compiler's prediction must match the simulator (rule 11) */
                if (bad > 0)
                    fuzz_fail("tt_compiled_check: prediction and simulation differ", err);
            }
        } else {
            fuzz_check_str(err, sizeof err, "tt_compile message");
        }
        tt_compiled_free(&c);
    } else {
        fuzz_check_str(err, sizeof err, "tt_net_parse message");
    }
    tt_net_free(&net);
    free(text);
    return 0;
}
