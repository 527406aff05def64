/* npukit's tinytpu schedule compiler as a library call (docs/tinytpu-compiler.md, tinytpu spec
 * Part E): an MLP training job described in text turned into a cycle-exact control stream,
 * what `npukit compile -t tinytpu` does, for programs that drive npukit (the Python package's
 * npukit.tinytpu.compile). C linkage; no exit, no globals. */
#ifndef NPUKIT_TINYTPU_H
#define NPUKIT_TINYTPU_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_tinytpu_compiled {
    char *program;        /* the stream as text in the chosen format (a header comment line,
                             then the cycles), NUL-terminated; program_size bytes */
    size_t program_size;
    char *settings;       /* the settings to run it with: "lanes=N,ub_words=W,lr=0xLLLL" and
                             ",format=F" when F is not asm: npk_create("tinytpu", settings) */
    char *map;            /* the memory map, one line per region (as `npukit compile --map`) */
    uint64_t cycles;      /* cycles of the stream, cycle 1 a reset cycle */
    uint64_t load_cycles; /* reset + host load */
    uint64_t step_cycles; /* cycles of one training step */
    unsigned steps;       /* training steps */
    double *loss;         /* per step: mean squared error of the Q8.8 model's output */
    int has_eval;         /* an evaluation pass follows the last step; its loss: */
    double eval_loss;
    uint16_t *ub;         /* the compiler's prediction of the unified buffer after the run:
                             Q8.8 words 0 .. words - 1, the UB words the program writes (an
                             exact run leaves exactly these) */
    unsigned words;
} npk_tinytpu_compiled;

/* Compile the description `src` (named `name` in messages; "file:line: message") into a stream
 * of format `format` ("asm", "w88", "w94", "w130", "wfull", "port"; NULL: the description's
 * `format` line, else asm). NPK_OK and *out filled (free it with npk_tinytpu_compiled_free), or
 * NPK_ERR_FORMAT (the description), NPK_ERR_ARG (a format name, a network that does not fit)
 * or NPK_ERR_NOMEM with the reason in err and *out empty. */
NPK_API npk_status npk_tinytpu_compile(const char *src, const char *name, const char *format,
                                       npk_tinytpu_compiled *out, char *err, size_t err_size);
NPK_API void npk_tinytpu_compiled_free(npk_tinytpu_compiled *c);

#ifdef __cplusplus
}
#endif
#endif
