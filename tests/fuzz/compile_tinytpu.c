/* Fuzz the tinytpu schedule compiler (src/targets/tinytpu/compile.h, `npukit compile`): parse
 * an MLP description, compile it, write the program and the memory map, and when the program
 * is short (<= 50000 cycles) run the self-check on the simulator. */
#include "fuzz.h"
#include "targets/tinytpu/compile.h"

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
            if (c.cycles <= 50000) {
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
