/* The lowerings of a plan (plan.h) to the targets: one table entry per target, each in
 * src/targets/<t>/lower.c (docs/models.md, "Lowering"). `npukit compile MODEL.onnx -t T` calls
 * `compile`; `npukit run-model` calls `open` once, `infer` per input, `close`. A lowering that
 * cannot take a layer fails with the layer's node, operator and the reason (npk_lower_fail). */
#ifndef NPK_MODEL_LOWER_H
#define NPK_MODEL_LOWER_H

#include <stdint.h>
#include <stdio.h>

#include "model/plan.h"

/* What one inference cost on the simulator. */
typedef struct npk_lower_stats {
    uint64_t cycles;          /* the target's cycle (tick) model; 0 when it has none */
    uint64_t instructions;    /* retired instructions (control words for tinytpu) */
    uint64_t macs;            /* multiply-accumulates the arrays/engines did */
    double utilisation;       /* macs / (cycles * peak MACs per cycle), 0..1; 0 when unknown */
} npk_lower_stats;

typedef struct npk_lower_target {
    const char *name;         /* "opennpu", "rvnpu", "pccx", "tinytpu" */
    /* Write what runs the model to `out_path` (a program, an image, a firmware ELF: the
     * target's own formats; more files may be written beside it, named in `note`). `settings`
     * is the part after "T:" of -t (may be ""). */
    int (*compile)(const npk_plan *p, const char *settings, const char *out_path, FILE *note,
                   char *err, size_t err_size);
    /* Prepare a machine for inferences. */
    int (*open)(const npk_plan *p, const char *settings, void **session, char *err,
                size_t err_size);
    /* One inference: x of the plan's input element count, y of its output count. */
    int (*infer)(void *session, const float *x, float *y, npk_lower_stats *st, char *err,
                 size_t err_size);
    void (*close)(void *session);
    /* Settings `npukit model-info` tries besides the default when it says which targets can
     * run a model (rvnpu: "precision=fp32", which takes what its int8 cannot), or NULL. */
    const char *alt_settings;
} npk_lower_target;

/* The targets with a lowering, and lookup by name (NULL when there is none). */
const npk_lower_target *npk_lower_find(const char *name);
size_t npk_lower_count(void);
const npk_lower_target *npk_lower_get(size_t i);

/* "T[:SETTINGS]" (what -t takes): the lowering named T (NULL for "host", the float64 run),
 * T in name (name_size bytes) and *settings the part after the colon ("" when none). Returns
 * 0, or -1 with "no lowering for target 'T' (targets: host, pccx, ...)" in err. */
int npk_lower_parse(const char *spec, const npk_lower_target **t, char *name, size_t name_size,
                    const char **settings, char *err, size_t err_size);

/* "layer I (node N 'NAME', OP): message"; returns -1. */
int npk_lower_fail(char *err, size_t err_size, const npk_plan *p, size_t layer, const char *fmt,
                   ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* For the lowerings that take chains only: -1 with "layer I (...): TARGET lowers ... (WHY)" for
 * the first layer of a sequence kind (plan.h: LAYERNORM and after) or a dense layer of several
 * rows, "... a chain ..." for a layer outside the chain (in != i, out != i + 1); 0 for a
 * chain. `why`: the target's reason, in a few words. */
int npk_lower_chain_only(const npk_plan *p, const char *target, const char *why, char *err,
                         size_t err_size);

/* The int8 lowerings' refusal of an uncalibrated plan: every way a caller has to calibrate. */
#define NPK_LOWER_NOT_CALIBRATED                                                                \
    "int8 needs a calibrated plan: calibrate it on sample inputs first (npukit's --calib X.npy, " \
    "npk_nn_calibrate, or Model.calibrate in Python)"

#endif
