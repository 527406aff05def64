/* The rvnpu lowering (lower.h; docs/models.md "Lowering to rvnpu"): a plan becomes the layer
 * table of the generic model firmware (model_fw/model_fw.c, built with the SDK toolchain and
 * embedded here), added to the firmware's ELF as a second loadable segment at RVM_BASE, with
 * the symbols model_input and model_output (float). int8 (default) runs the integer NPU with
 * per-channel requantisation by an integer multiplier and shift (activations other than ReLU
 * in binary32 between a dequantisation and a quantisation); `precision=fp32` runs the float
 * weights on the FP NPU. Settings: precision=int8|fp32, isa_rev=seed|rev2. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lower.h"
#include "npukit/npukit.h"
#include "targets/rvnpu/model_fw/model_fw.h"

#ifdef NPK_HAVE_RVNPU_MODEL_FW
extern const char npk_rvnpu_model_fw[];
extern const size_t npk_rvnpu_model_fw_len;
#endif

_Static_assert(sizeof(rvm_header) == 64 && sizeof(rvm_op) == 128, "blob layout");

#define RAM_BASE 0x80000000u
#define RAM_DEFAULT (4u << 20)
#define RAM_MAX (2u << 30)

typedef struct rv_settings {
    int fp32, rev2;
} rv_settings;

/* The program: the ELF bytes and what a run needs to know. */
typedef struct rv_prog {
    uint8_t *elf;
    size_t elf_size;
    uint32_t ram_size;       /* RAM the run needs (a multiple of 4 KiB, at least 4 MiB) */
    uint32_t n_in, n_out;
    uint64_t macs;           /* VMAC/FVMAC elements of one inference */
    uint64_t budget;         /* instructions one inference cannot need more than */
    int rev2;
} rv_prog;

static int parse_settings(const char *s, rv_settings *o, char *err, size_t err_size)
{
    *o = (rv_settings){0, 0};
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        if (n == 14 && strncmp(s, "precision=int8", n) == 0)
            o->fp32 = 0;
        else if (n == 14 && strncmp(s, "precision=fp32", n) == 0)
            o->fp32 = 1;
        else if (n == 12 && strncmp(s, "isa_rev=seed", n) == 0)
            o->rev2 = 0;
        else if (n == 12 && strncmp(s, "isa_rev=rev2", n) == 0)
            o->rev2 = 1;
        else if (n) {
            snprintf(err, err_size, "unknown setting '%.*s' (known: precision=int8|fp32, "
                     "isa_rev=seed|rev2)", (int)n, s);
            return -1;
        }
        s = end ? end + 1 : NULL;
    }
    return 0;
}

/* ---- the blob ---------------------------------------------------------------------------- */

/* Emission runs twice: a sizing pass (data NULL) and the real one, so that the buffers can
 * follow the constants and every address is known when an op is written. */
typedef struct rv_emit {
    uint8_t *data;           /* where the constants go, or NULL while sizing */
    uint32_t base;           /* their address */
    uint64_t size;           /* constant bytes so far */
    uint64_t buf_base;       /* address of the first buffer (pass 2) */
    uint64_t buf_size;       /* buffer bytes so far */
    rvm_op *ops;             /* NULL while sizing */
    size_t n_ops;
    rvm_op tmp;              /* the sizing pass's ops go here, never read */
} rv_emit;

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t f32bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t align16(uint64_t v)
{
    return (v + 15) & ~(uint64_t)15;
}

/* Room for n constant bytes; returns its address and where to write it (NULL while sizing). */
static uint32_t constant(rv_emit *e, size_t n, uint8_t **at)
{
    e->size = align16(e->size);
    uint32_t addr = (uint32_t)(e->base + e->size);
    *at = e->data ? e->data + e->size : NULL;
    e->size += n;
    return addr;
}

static uint32_t put_i32s(rv_emit *e, const int32_t *v, size_t n)
{
    uint8_t *at;
    uint32_t addr = constant(e, n * 4, &at);
    for (size_t i = 0; at && i < n; i++)
        wr32(at + 4 * i, (uint32_t)v[i]);
    return addr;
}

static uint32_t put_f32s(rv_emit *e, const float *v, size_t n)
{
    uint8_t *at;
    uint32_t addr = constant(e, n * 4, &at);
    for (size_t i = 0; at && i < n; i++)
        wr32(at + 4 * i, v ? f32bits(v[i]) : 0);
    return addr;
}

static uint32_t put_i8s(rv_emit *e, const int8_t *v, size_t n)
{
    uint8_t *at;
    uint32_t addr = constant(e, n, &at);
    if (at)
        memcpy(at, v, n);
    return addr;
}

static uint32_t buffer(rv_emit *e, uint64_t n)
{
    e->buf_size = align16(e->buf_size);
    uint64_t addr = e->buf_base + e->buf_size;
    e->buf_size += n;
    return (uint32_t)addr;
}

static rvm_op *add_op(rv_emit *e, uint32_t kind, uint32_t flags, uint32_t src, uint32_t dst)
{
    rvm_op *op = e->ops ? &e->ops[e->n_ops] : &e->tmp;
    e->n_ops++;
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->flags = flags;
    op->src = src;
    op->dst = dst;
    return op;
}

/* Requantisation M = mult * 2^-shift, mult in [2^30, 2^31), shift in 1..62; -1 when M is out
 * of that range (0 < M < 2^30). */
static int quant_multiplier(double m, int32_t *mult, int32_t *shift)
{
    int ex;
    double f = frexp(m, &ex); /* m = f * 2^ex, f in [0.5, 1) */
    if (!(m > 0) || !isfinite(m))
        return -1;
    double r = nearbyint(ldexp(f, 31));
    if (r >= 2147483648.0) {
        r /= 2;
        ex++;
    }
    int sh = 31 - ex;
    if (sh < 1 || sh > 62)
        return -1;
    *mult = (int32_t)r;
    *shift = sh;
    return 0;
}

static uint32_t act_code(npk_act a)
{
    switch (a) {
    case NPK_ACT_NONE: return RVM_ACT_NONE;
    case NPK_ACT_RELU: return RVM_ACT_RELU;
    case NPK_ACT_LEAKY_RELU: return RVM_ACT_LEAKY;
    case NPK_ACT_GELU: return RVM_ACT_GELU;
    case NPK_ACT_TANH: return RVM_ACT_TANH;
    case NPK_ACT_SIGMOID: return RVM_ACT_SIGMOID;
    }
    return RVM_ACT_NONE;
}

/* int8: an activation the integer NPU lacks, applied in binary32 between a dequantisation and
 * a quantisation (RVM_F_FACT). */
static int float_act(npk_act a)
{
    return a != NPK_ACT_NONE && a != NPK_ACT_RELU;
}

/* A tensor as (C, H, W): features are (n, 1, 1). */
static void dims3(const npk_ptensor *t, uint32_t d[3])
{
    int r3 = t->rank == 3;
    d[0] = r3 ? (uint32_t)t->dims[0] : (uint32_t)t->elems;
    d[1] = r3 ? (uint32_t)t->dims[1] : 1;
    d[2] = r3 ? (uint32_t)t->dims[2] : 1;
}

/* The geometry fields of an op from its layer and tensors. */
static void geometry(rvm_op *op, const npk_layer *l, const npk_ptensor *in, const npk_ptensor *out)
{
    uint32_t a[3], b[3];
    dims3(in, a);
    dims3(out, b);
    op->c = a[0];
    op->h = a[1];
    op->w = a[2];
    op->m = b[0];
    op->oh = b[1];
    op->ow = b[2];
    op->kh = (uint32_t)l->kh;
    op->kw = (uint32_t)l->kw;
    op->sh = (uint32_t)l->sh;
    op->sw = (uint32_t)l->sw;
    op->pt = (uint32_t)l->pt;
    op->pl = (uint32_t)l->pl;
}

/* What the plan must look like for this lowering; the checks that do not depend on the pass. */
static int check_layer(const npk_plan *p, size_t i, const rv_settings *s, char *err,
                       size_t err_size)
{
    const npk_layer *l = &p->layers[i];
    const npk_ptensor *in = &p->tensors[l->in], *out = &p->tensors[l->out];
    int last = i + 1 == p->n_layers;
    size_t rows = l->rows > 1 ? (size_t)l->rows : 1;
    if (!s->fp32 && (l->in != (int)i || l->out != (int)i + 1))
        return npk_lower_fail(err, err_size, p, i, "int8: rvnpu lowers a chain of layers only");
    switch (l->kind) {
    case NPK_LAYER_DENSE:
        if ((size_t)l->n_in * rows != in->elems || (size_t)l->n_out * rows != out->elems)
            return npk_lower_fail(err, err_size, p, i, "dense layer of %zu x %d -> %d does not "
                                  "match its tensors (%zu -> %zu elements)", rows, l->n_in,
                                  l->n_out, in->elems, out->elems);
        break;
    case NPK_LAYER_LAYERNORM:
    case NPK_LAYER_RMSNORM:
        if (l->row <= 0 || in->elems % (size_t)l->row || in->elems != out->elems)
            return npk_lower_fail(err, err_size, p, i, "%s rows of %d do not divide %zu "
                                  "elements", npk_layer_kind_name(l->kind), l->row, in->elems);
        break;
    case NPK_LAYER_MATMUL:
        if (l->in2 < 0 || (size_t)l->batch * (size_t)l->rows * (size_t)l->n_in != in->elems ||
            (size_t)l->batch * (size_t)l->n_in * (size_t)l->n_out != p->tensors[l->in2].elems ||
            (size_t)l->batch * (size_t)l->rows * (size_t)l->n_out != out->elems)
            return npk_lower_fail(err, err_size, p, i, "matmul of %d x [%d x %d] by [%d x %d] "
                                  "does not match its tensors", l->batch, l->rows, l->n_in,
                                  l->n_in, l->n_out);
        break;
    case NPK_LAYER_TRANSPOSE:
        if (l->trank < 1 || l->trank > 3)
            return npk_lower_fail(err, err_size, p, i, "a transpose of rank %d", l->trank);
        break;
    case NPK_LAYER_ADD:
        if (l->in2 < 0 || p->tensors[l->in2].elems != in->elems || in->elems != out->elems)
            return npk_lower_fail(err, err_size, p, i, "add of tensors of different sizes");
        break;
    case NPK_LAYER_SCALE:
        if (in->elems != out->elems)
            return npk_lower_fail(err, err_size, p, i, "scale changes the element count");
        break;
    case NPK_LAYER_CONV:
        if (in->rank != 3 || out->rank != 3 || in->dims[0] != l->n_in ||
            out->dims[0] != l->n_out)
            return npk_lower_fail(err, err_size, p, i, "convolution needs (C, H, W) tensors "
                                  "with C = %d and M = %d", l->n_in, l->n_out);
        break;
    case NPK_LAYER_MAXPOOL:
    case NPK_LAYER_AVGPOOL:
        if (in->rank != 3 || out->rank != 3 || in->dims[0] != out->dims[0])
            return npk_lower_fail(err, err_size, p, i, "pooling needs (C, H, W) tensors with "
                                  "the same C");
        break;
    case NPK_LAYER_SOFTMAX:
        if (l->row <= 0 || in->elems % (size_t)l->row || in->elems != out->elems)
            return npk_lower_fail(err, err_size, p, i, "softmax rows of %d do not divide %zu "
                                  "elements", l->row, in->elems);
        if (!s->fp32 && !last)
            return npk_lower_fail(err, err_size, p, i, "int8: softmax only as the last layer "
                                  "(it runs in float on the dequantised output; use "
                                  "precision=fp32)");
        break;
    case NPK_LAYER_ACT:
        if (in->elems != out->elems)
            return npk_lower_fail(err, err_size, p, i, "activation changes the element count");
        break;
    default:
        return npk_lower_fail(err, err_size, p, i, "layer kind %d is not supported by rvnpu",
                              (int)l->kind);
    }
    if (l->kind != NPK_LAYER_DENSE && l->kind != NPK_LAYER_CONV && l->kind != NPK_LAYER_ACT &&
        l->act != NPK_ACT_NONE)
        return npk_lower_fail(err, err_size, p, i, "activation %s after %s is not supported",
                              npk_act_name(l->act), npk_layer_kind_name(l->kind));
    if (l->kind == NPK_LAYER_DENSE || l->kind == NPK_LAYER_CONV) {
        uint64_t k = (uint64_t)l->n_in * (uint64_t)(l->kind == NPK_LAYER_CONV ? l->kh * l->kw : 1);
        /* int8: |sum| <= k * 127 * 127 and the bias must leave the int32 accumulator exact */
        if (!s->fp32 && k > 131000)
            return npk_lower_fail(err, err_size, p, i, "int8: a dot product of %llu elements "
                                  "may overflow the 32-bit accumulator RSTACC returns (limit "
                                  "131000)", (unsigned long long)k);
        if (!l->w || (!s->fp32 && (!l->wq || !l->wscale)))
            return npk_lower_fail(err, err_size, p, i, "the layer has no %s weights",
                                  s->fp32 ? "float" : "quantised (calibrate the plan first)");
    }
    return 0;
}

/* The fields of a sequence layer's op (float only). */
static int emit_seq(rv_emit *e, const npk_layer *l, rvm_op *op, const uint32_t *tbuf,
                    const npk_ptensor *in)
{
    op->c = (uint32_t)in->elems;
    op->h = op->w = 1;
    switch (l->kind) {
    case NPK_LAYER_LAYERNORM:
    case NPK_LAYER_RMSNORM:
        op->c = (uint32_t)(in->elems / (size_t)l->row);
        op->h = (uint32_t)l->row;
        op->flags |= l->kind == NPK_LAYER_RMSNORM ? RVM_F_RMS : 0;
        op->wts = l->w ? put_f32s(e, l->w, (size_t)l->row) : 0;
        op->bias = l->b ? put_f32s(e, l->b, (size_t)l->row) : 0;
        op->fparam = f32bits((float)l->eps);
        break;
    case NPK_LAYER_MATMUL:
        op->src2 = tbuf[l->in2];
        op->batch = (uint32_t)l->batch;
        op->rows = (uint32_t)l->rows;
        op->c = (uint32_t)l->n_in;
        op->m = (uint32_t)l->n_out;
        op->scratch = buffer(e, (uint64_t)l->n_in * (uint64_t)l->n_out * 4);
        break;
    case NPK_LAYER_TRANSPOSE: {
        /* as three axes: a missing leading axis of size 1 stays first */
        int lead = 3 - l->trank;
        uint32_t d[3] = {1, 1, 1}, perm = 0;
        for (int a = 0; a < 3; a++) {
            int pa = a < lead ? a : l->perm[a - lead] + lead;
            if (a >= lead)
                d[a] = (uint32_t)l->tdims[a - lead];
            perm |= (uint32_t)pa << (4 * a);
        }
        op->c = d[0];
        op->h = d[1];
        op->w = d[2];
        op->perm = perm;
        break;
    }
    case NPK_LAYER_ADD:
        op->src2 = tbuf[l->in2];
        break;
    case NPK_LAYER_SCALE:
        op->fparam = f32bits((float)l->factor);
        break;
    default:
        break;
    }
    return 0;
}

/* Emit one layer. `scale` holds the int8 scale of every tensor as this lowering uses it (pools
 * and ReLU keep their input's scale); the last dense/conv of an int8 plan keeps int32. */
static int emit_layer(rv_emit *e, const npk_plan *p, size_t i, const rv_settings *s,
                      const uint32_t *tbuf, double *scale, int out32, char *err, size_t err_size)
{
    const npk_layer *l = &p->layers[i];
    const npk_ptensor *in = &p->tensors[l->in], *out = &p->tensors[l->out];
    uint32_t fp = s->fp32 ? RVM_F_FP32 : 0;
    static const uint32_t kinds[] = {
        [NPK_LAYER_DENSE] = RVM_OP_DENSE, [NPK_LAYER_CONV] = RVM_OP_CONV,
        [NPK_LAYER_MAXPOOL] = RVM_OP_MAXPOOL, [NPK_LAYER_AVGPOOL] = RVM_OP_AVGPOOL,
        [NPK_LAYER_SOFTMAX] = RVM_OP_SOFTMAX, [NPK_LAYER_ACT] = RVM_OP_ACT,
        [NPK_LAYER_LAYERNORM] = RVM_OP_NORM, [NPK_LAYER_RMSNORM] = RVM_OP_NORM,
        [NPK_LAYER_MATMUL] = RVM_OP_MATMUL, [NPK_LAYER_TRANSPOSE] = RVM_OP_TRANSPOSE,
        [NPK_LAYER_ADD] = RVM_OP_ADD, [NPK_LAYER_SCALE] = RVM_OP_SCALE};
    if (l->kind == NPK_LAYER_SOFTMAX && !s->fp32)
        return 0; /* int8: emitted after the final DEQUANT */
    rvm_op *op = add_op(e, kinds[l->kind], fp, tbuf[l->in], tbuf[l->out]);
    geometry(op, l, in, out);
    if (l->kind == NPK_LAYER_DENSE) {
        op->c = (uint32_t)l->n_in;
        op->m = (uint32_t)l->n_out;
        op->rows = l->rows > 1 ? (uint32_t)l->rows : 1;
    }
    if (l->kind >= NPK_LAYER_LAYERNORM) /* float only: check_layer refused them in int8 */
        return emit_seq(e, l, op, tbuf, in);
    op->act = act_code(l->act);
    op->fparam = f32bits((float)l->alpha);
    if (l->kind == NPK_LAYER_SOFTMAX) {
        op->c = (uint32_t)(in->elems / (size_t)l->row);
        op->h = (uint32_t)l->row;
        return 0;
    }
    if (l->kind == NPK_LAYER_ACT) {
        op->c = (uint32_t)in->elems;
        scale[l->out] = scale[l->in];
        if (!s->fp32 && float_act(l->act)) {
            scale[l->out] = out->scale;
            op->flags |= RVM_F_FACT;
            op->fscale_in = f32bits((float)scale[l->in]);
            op->fscale_out = f32bits((float)(1.0 / out->scale));
        }
        return 0;
    }
    if (l->kind == NPK_LAYER_AVGPOOL && l->count_include_pad)
        op->flags |= RVM_F_PAD_COUNT;
    if (l->kind != NPK_LAYER_DENSE && l->kind != NPK_LAYER_CONV) {
        scale[l->out] = scale[l->in];
        return 0;
    }
    scale[l->out] = out->scale;
    size_t k = (size_t)l->n_in * (l->kind == NPK_LAYER_CONV ? (size_t)(l->kh * l->kw) : 1);
    size_t m = (size_t)l->n_out;
    if (l->kind == NPK_LAYER_CONV)
        op->scratch = buffer(e, k * (s->fp32 ? 4 : 1));
    if (s->fp32) {
        op->wts = put_f32s(e, l->w, m * k);
        op->bias = put_f32s(e, l->b, m);
        return 0;
    }
    op->wts = put_i8s(e, l->wq, m * k);
    int fact = float_act(l->act);
    int32_t *bias = malloc(m * sizeof *bias), *mult = malloc(m * sizeof *mult),
            *shift = malloc(m * sizeof *shift);
    float *accs = malloc(m * sizeof *accs);
    int rc = bias && mult && shift && accs ? 0
                                           : npk_lower_fail(err, err_size, p, i, "out of memory");
    for (size_t o = 0; rc == 0 && o < m; o++) {
        double acc_scale = scale[l->in] * l->wscale[o];
        double bq = l->b ? nearbyint(l->b[o] / acc_scale) : 0.0;
        if (!(fabs(bq) + (double)k * 127 * 128 < 2147483647.0))
            rc = npk_lower_fail(err, err_size, p, i, "int8: channel %zu: the bias %g is %.3g "
                                "in accumulator units, too large for the 32-bit accumulator",
                                o, l->b ? l->b[o] : 0.0, bq);
        bias[o] = (int32_t)bq;
        mult[o] = shift[o] = 0;
        accs[o] = (float)acc_scale;
        if (rc == 0 && !out32 && !fact && quant_multiplier(acc_scale / scale[l->out], &mult[o], &shift[o]))
            rc = npk_lower_fail(err, err_size, p, i, "int8: channel %zu: the requantisation "
                                "factor %g is outside 2^-31..2^30", o,
                                acc_scale / scale[l->out]);
    }
    if (rc == 0) {
        op->bias = put_i32s(e, bias, m);
        if (out32) {
            op->flags |= RVM_F_OUT32; /* a float activation follows in the DEQUANT */
        } else if (fact) {
            op->flags |= RVM_F_FACT;
            op->mult = put_f32s(e, accs, m);
            op->fscale_out = f32bits((float)(1.0 / out->scale));
        } else {
            op->mult = put_i32s(e, mult, m);
            op->shift = put_i32s(e, shift, m);
        }
    }
    free(accs);
    free(bias);
    free(mult);
    free(shift);
    return rc;
}

/* One pass of the emission: every op, its constants and buffers. */
static int emit(rv_emit *e, const npk_plan *p, const rv_settings *s, uint32_t *tbuf,
                double *scale, uint32_t *io, char *err, size_t err_size)
{
    size_t nl = p->n_layers, nt = p->n_tensors;
    int fp = s->fp32;
    size_t last = nl - 1; /* the last layer that is not an int8 softmax */
    if (!fp && p->layers[last].kind == NPK_LAYER_SOFTMAX) {
        if (nl < 2)
            return npk_lower_fail(err, err_size, p, last, "int8: a softmax alone has nothing "
                                  "to quantise (use precision=fp32)");
        last = nl - 2;
    }
    int out32 = !fp && (p->layers[last].kind == NPK_LAYER_DENSE ||
                                     p->layers[last].kind == NPK_LAYER_CONV);
    uint32_t n_in = (uint32_t)p->tensors[0].elems, n_out = (uint32_t)p->tensors[nt - 1].elems;
    io[0] = buffer(e, (uint64_t)n_in * 4);
    io[1] = buffer(e, (uint64_t)n_out * 4);
    for (size_t t = 0; t < nt; t++) {
        size_t esz = fp ? 4 : (out32 && t == last + 1) || (t > last + 1) ? 4 : 1;
        tbuf[t] = fp && t == 0 ? io[0] : fp && t == nt - 1 ? io[1]
                                       : buffer(e, (uint64_t)p->tensors[t].elems * esz);
    }
    scale[0] = p->tensors[0].scale;
    if (!fp) {
        rvm_op *q = add_op(e, RVM_OP_QUANT, 0, io[0], tbuf[0]);
        q->c = n_in;
        q->fparam = f32bits((float)(1.0 / scale[0]));
    }
    for (size_t i = 0; i < nl; i++)
        if (emit_layer(e, p, i, s, tbuf, scale, out32 && i == last, err, err_size))
            return -1;
    if (fp)
        return 0;
    /* int8: the float output, from int32 accumulators (per-channel scales) or int8 values */
    const npk_layer *l = &p->layers[last];
    const npk_ptensor *t = &p->tensors[last + 1];
    int soft = last + 1 < nl;
    rvm_op *d = add_op(e, RVM_OP_DEQUANT, out32 ? RVM_F_OUT32 : 0, tbuf[last + 1],
                       soft ? tbuf[nt - 1] : io[1]);
    size_t ch = out32 ? (size_t)l->n_out : 1;
    if (out32 && float_act(l->act)) {
        d->act = act_code(l->act);
        d->fparam = f32bits((float)l->alpha);
    }
    d->c = (uint32_t)ch;
    d->h = (uint32_t)(t->elems / ch);
    float *fs = malloc(ch * sizeof *fs);
    if (!fs)
        return npk_lower_fail(err, err_size, p, last, "out of memory");
    for (size_t o = 0; o < ch; o++)
        fs[o] = (float)(out32 ? scale[l->in] * l->wscale[o] : scale[last + 1]);
    d->mult = put_f32s(e, fs, ch);
    free(fs);
    if (soft) {
        const npk_layer *sl = &p->layers[nl - 1];
        rvm_op *sm = add_op(e, RVM_OP_SOFTMAX, RVM_F_FP32, tbuf[nt - 1], io[1]);
        sm->c = (uint32_t)(t->elems / (size_t)sl->row);
        sm->h = (uint32_t)sl->row;
    }
    return 0;
}

/* ---- the ELF: the firmware's own bytes, then the blob, a symbol table and new headers ---- */

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static int make_elf(const uint8_t *fw, size_t fw_size, const uint8_t *blob, uint32_t filesz,
                    uint32_t memsz, const uint32_t *io, uint32_t n_in, uint32_t n_out,
                    rv_prog *out, char *err, size_t err_size)
{
    static const char strtab[] = "\0model_input\0model_output\0model_blob";
    if (fw_size < 52 || rd16(fw + 42) != 32 || rd16(fw + 46) != 40) {
        snprintf(err, err_size, "the embedded model firmware is not a usable ELF");
        return -1;
    }
    uint32_t phoff = rd32(fw + 28), shoff = rd32(fw + 32);
    uint16_t phnum = rd16(fw + 44), shnum = rd16(fw + 48);
    size_t at_blob = (fw_size + 15) & ~(size_t)15;
    size_t at_str = at_blob + filesz, at_sym = (at_str + sizeof strtab + 3) & ~(size_t)3;
    size_t at_ph = at_sym + 4 * 16, at_sh = at_ph + (size_t)(phnum + 1) * 32;
    size_t size = at_sh + (size_t)(shnum + 2) * 40;
    if ((size_t)phoff + phnum * 32u > fw_size || (size_t)shoff + shnum * 40u > fw_size) {
        snprintf(err, err_size, "the embedded model firmware is not a usable ELF");
        return -1;
    }
    uint8_t *b = calloc(size, 1);
    if (!b) {
        snprintf(err, err_size, "out of memory for a %zu-byte ELF", size);
        return -1;
    }
    memcpy(b, fw, fw_size);
    memcpy(b + at_blob, blob, filesz);
    memcpy(b + at_str, strtab, sizeof strtab);
    /* symbols: null, model_input, model_output, model_blob (global objects, section 0xFFF1
     * absolute: the addresses lie in the blob's segment) */
    const uint32_t sym[4][3] = {{0, 0, 0}, {1, io[0], n_in * 4}, {13, io[1], n_out * 4},
                                {26, RVM_BASE, filesz}};
    for (int k = 1; k < 4; k++) {
        uint8_t *s = b + at_sym + 16 * k;
        wr32(s, sym[k][0]);
        wr32(s + 4, sym[k][1]);
        wr32(s + 8, sym[k][2]);
        s[12] = 0x11; /* STB_GLOBAL, STT_OBJECT */
        wr16(s + 14, 0xFFF1);
    }
    memcpy(b + at_ph, fw + phoff, (size_t)phnum * 32);
    uint8_t *ph = b + at_ph + (size_t)phnum * 32;
    const uint32_t phv[8] = {1 /* PT_LOAD */, (uint32_t)at_blob, RVM_BASE, RVM_BASE, filesz,
                             memsz, 6 /* RW */, 16};
    for (int k = 0; k < 8; k++)
        wr32(ph + 4 * k, phv[k]);
    memcpy(b + at_sh, fw + shoff, (size_t)shnum * 40);
    uint8_t *sh = b + at_sh + (size_t)shnum * 40;
    const uint32_t str_sh[10] = {0, 3 /* STRTAB */, 0, 0, (uint32_t)at_str, sizeof strtab, 0, 0,
                                 1, 0};
    const uint32_t sym_sh[10] = {0, 2 /* SYMTAB */, 0, 0, (uint32_t)at_sym, 4 * 16, shnum, 1,
                                 4, 16};
    for (int k = 0; k < 10; k++) {
        wr32(sh + 4 * k, str_sh[k]);
        wr32(sh + 40 + 4 * k, sym_sh[k]);
    }
    wr32(b + 28, (uint32_t)at_ph);
    wr16(b + 44, (uint16_t)(phnum + 1));
    wr32(b + 32, (uint32_t)at_sh);
    wr16(b + 48, (uint16_t)(shnum + 2));
    out->elf = b;
    out->elf_size = size;
    return 0;
}

static int build(const npk_plan *p, const char *settings, rv_prog *out, char *err,
                 size_t err_size)
{
    memset(out, 0, sizeof *out);
    rv_settings s;
    if (parse_settings(settings, &s, err, err_size))
        return -1;
#ifndef NPK_HAVE_RVNPU_MODEL_FW
    (void)p;
    snprintf(err, err_size, "this npukit was built without the model firmware (no "
             "RISC-V firmware toolchain: install clang and lld, or gcc-riscv64-unknown-elf)");
    return -1;
#else
    if (!p || p->n_layers == 0 || p->n_tensors != p->n_layers + 1) {
        snprintf(err, err_size, "the plan has no chain of layers");
        return -1;
    }
    if (!s.fp32 && npk_lower_chain_only(p, "rvnpu", "int8: not lowered yet; "
                                        "precision=fp32 runs them", err, err_size))
        return -1;
    if (!s.fp32 && !p->calibrated) {
        snprintf(err, err_size, "%s, or precision=fp32", NPK_LOWER_NOT_CALIBRATED);
        return -1;
    }
    if (!s.fp32 && npk_plan_q_symmetric(p, err, err_size) != 0)   /* a model's own scales */
        return -1;
    for (size_t i = 0; i < p->n_layers; i++)
        if (check_layer(p, i, &s, err, err_size))
            return -1;
    size_t nt = p->n_tensors;
    uint32_t *tbuf = calloc(nt, sizeof *tbuf);
    double *scale = calloc(nt, sizeof *scale);
    rv_emit e = {.base = RVM_BASE};
    uint32_t io[2];
    int rc = tbuf && scale ? 0 : -1;
    if (rc)
        snprintf(err, err_size, "out of memory");
    /* pass 1: sizes only */
    if (rc == 0)
        rc = emit(&e, p, &s, tbuf, scale, io, err, err_size);
    uint64_t consts = e.size;
    size_t n_ops = e.n_ops;
    uint64_t table = 64 + (uint64_t)n_ops * sizeof(rvm_op);
    uint64_t filesz = align16(table + consts), total = filesz + align16(e.buf_size);
    if (rc == 0 && RVM_BASE - RAM_BASE + total > RAM_MAX) {
        snprintf(err, err_size, "the model needs %llu bytes of RAM above 0x%x (weights "
                 "%llu, buffers %llu); rvnpu has at most %u", (unsigned long long)total,
                 RVM_BASE, (unsigned long long)consts, (unsigned long long)e.buf_size, RAM_MAX);
        rc = -1;
    }
    uint8_t *blob = NULL;
    if (rc == 0) {
        blob = calloc(filesz, 1);
        e = (rv_emit){.data = blob ? blob + table : NULL, .base = (uint32_t)(RVM_BASE + table),
                      .buf_base = RVM_BASE + filesz, .ops = calloc(n_ops, sizeof(rvm_op))};
        if (!blob || !e.ops) {
            snprintf(err, err_size, "out of memory for a %llu-byte model",
                     (unsigned long long)filesz);
            rc = -1;
        }
    }
    /* pass 2: the constants after the header and the op table, then the buffers */
    if (rc == 0)
        rc = emit(&e, p, &s, tbuf, scale, io, err, err_size);
    if (rc == 0) {
        const uint32_t hdr[9] = {RVM_MAGIC, RVM_VERSION, (uint32_t)n_ops, RVM_BASE + 64,
                                 s.rev2 ? (s.fp32 ? 64u : 256u) : 0u, io[0],
                                 (uint32_t)p->tensors[0].elems, io[1],
                                 (uint32_t)p->tensors[nt - 1].elems};
        for (int k = 0; k < 9; k++)
            wr32(blob + 4 * k, hdr[k]);
        for (size_t k = 0; k < n_ops; k++)
            for (size_t j = 0; j < sizeof(rvm_op) / 4; j++)
                wr32(blob + 64 + k * sizeof(rvm_op) + 4 * j, ((const uint32_t *)&e.ops[k])[j]);
        rc = make_elf((const uint8_t *)npk_rvnpu_model_fw, npk_rvnpu_model_fw_len, blob,
                      (uint32_t)filesz, (uint32_t)(total), io, hdr[6], hdr[8], out, err,
                      err_size);
    }
    if (rc == 0) {
        uint64_t need = RVM_BASE - RAM_BASE + total;
        need = (need + 4095) & ~(uint64_t)4095;
        out->ram_size = need < RAM_DEFAULT ? RAM_DEFAULT : (uint32_t)need;
        out->n_in = (uint32_t)p->tensors[0].elems;
        out->n_out = (uint32_t)p->tensors[nt - 1].elems;
        out->rev2 = s.rev2;
        uint64_t work = 0; /* elements touched: each costs the firmware a few dozen steps */
        for (size_t i = 0; i < p->n_layers; i++) {
            const npk_layer *l = &p->layers[i];
            uint64_t oe = p->tensors[l->out].elems, win = (uint64_t)(l->kh * l->kw);
            if (l->kind == NPK_LAYER_DENSE)
                out->macs += (uint64_t)l->n_in * (uint64_t)l->n_out *
                             (uint64_t)(l->rows > 1 ? l->rows : 1);
            else if (l->kind == NPK_LAYER_MATMUL)
                out->macs += (uint64_t)l->batch * (uint64_t)l->rows * (uint64_t)l->n_in *
                             (uint64_t)l->n_out;
            else if (l->kind == NPK_LAYER_CONV)
                out->macs += oe * (uint64_t)l->n_in * win;
            work += oe * (1 + win) + p->tensors[l->in].elems;
        }
        out->budget = 200 * (out->macs + work) + 1000000;
    }
    free(e.ops);
    free(blob);
    free(tbuf);
    free(scale);
    return rc;
#endif
}

/* ---- the lowering's entry points ----------------------------------------------------------- */

static int rv_compile(const npk_plan *p, const char *settings, const char *out_path, FILE *note,
                      char *err, size_t err_size)
{
    rv_prog pr;
    if (build(p, settings, &pr, err, err_size))
        return -1;
    FILE *f = fopen(out_path, "wb");
    int ok = f && fwrite(pr.elf, 1, pr.elf_size, f) == pr.elf_size;
    if (f && fclose(f) != 0)
        ok = 0;
    free(pr.elf);
    if (!ok) {
        snprintf(err, err_size, "%s: cannot write the firmware ELF", out_path);
        return -1;
    }
    if (note) {
        char ram[48] = "";
        if (pr.ram_size > RAM_DEFAULT)
            snprintf(ram, sizeof ram, " --ram-size %u", pr.ram_size);
        fprintf(note, "rvnpu: %s: the model firmware with the model at 0x%08x; run it with\n"
                "  npukit run%s%s %s --write model_input:f32:X.npy --dump model_output:f32\n"
                "(input %u floats, output %u floats; %llu MACs per inference)\n",
                out_path, RVM_BASE, ram, pr.rev2 ? " --config isa_rev=rev2" : "", out_path,
                pr.n_in, pr.n_out, (unsigned long long)pr.macs);
    }
    return 0;
}

typedef struct rv_session {
    rv_prog pr;
    npk_machine *m;
    uint8_t *in;             /* little-endian floats in and out */
} rv_session;

static void rv_close(void *session)
{
    rv_session *s = session;
    if (!s)
        return;
    npk_destroy(s->m);
    free(s->pr.elf);
    free(s->in);
    free(s);
}

static int rv_open(const npk_plan *p, const char *settings, void **session, char *err,
                   size_t err_size)
{
    *session = NULL;
    rv_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    if (build(p, settings, &s->pr, err, err_size)) {
        free(s);
        return -1;
    }
    char spec[96];
    snprintf(spec, sizeof spec, "rvnpu:ram_size=%u,isa_rev=%s", s->pr.ram_size,
             s->pr.rev2 ? "rev2" : "seed");
    s->in = malloc((size_t)s->pr.n_in * 4 + (size_t)s->pr.n_out * 4 + 1);
    if (!s->in)
        snprintf(err, err_size, "out of memory");
    if (!s->in || npk_create(&s->m, spec, NULL, err, err_size) != NPK_OK) {
        rv_close(s);
        return -1;
    }
    if (npk_load_elf(s->m, s->pr.elf, s->pr.elf_size, "model firmware") != NPK_OK ||
        npk_stats_enable(s->m, 1) != NPK_OK) {
        snprintf(err, err_size, "%s", npk_error(s->m));
        rv_close(s);
        return -1;
    }
    *session = s;
    return 0;
}

static int rv_infer(void *session, const float *x, float *y, npk_lower_stats *st, char *err,
                    size_t err_size)
{
    rv_session *s = session;
    npk_machine *m = s->m;
    size_t nin = s->pr.n_in, nout = s->pr.n_out;
    npk_stats a, b;
    npk_stop stop;
    for (size_t i = 0; i < nin; i++)
        wr32(s->in + 4 * i, f32bits(x[i]));
    /* the program stays loaded (open); a reset per inference brings the registers, the
     * accumulators, the timing model and the statistics back to the start, and every buffer
     * the firmware reads it writes first in the same run, so each inference runs as on a
     * freshly loaded machine */
    if (npk_reset(m) != NPK_OK || npk_write_symbol(m, "model_input", s->in, nin * 4) != NPK_OK ||
        npk_stats_get(m, &a) != NPK_OK)
        goto fail;
    uint64_t i0 = a.insns, c0 = a.cycles;
    if (npk_run(m, s->pr.budget, &stop) != NPK_OK)
        goto fail;
    if (stop.reason == NPK_STOP_BUDGET) {
        snprintf(err, err_size, "the model firmware did not finish within %llu instructions",
                 (unsigned long long)s->pr.budget);
        return -1;
    }
    if (stop.reason != NPK_STOP_EXIT || stop.exit_code != 0) {
        snprintf(err, err_size, "the model firmware stopped: %s (exit %lld)",
                 stop.message[0] ? stop.message : "no message", (long long)stop.exit_code);
        return -1;
    }
    if (npk_read_symbol(m, "model_output", s->in, nout * 4) != NPK_OK ||
        npk_stats_get(m, &b) != NPK_OK)
        goto fail;
    for (size_t i = 0; i < nout; i++) {
        uint32_t u = rd32(s->in + 4 * i);
        memcpy(&y[i], &u, 4);
    }
    if (st) {
        st->instructions = b.insns - i0;
        st->cycles = b.cycles - c0;
        st->macs = s->pr.macs;
        /* peak: one MAC per cycle (VMAC's default lat_npu_elem = 1) */
        st->utilisation = st->cycles ? (double)st->macs / (double)st->cycles : 0.0;
    }
    return 0;
fail:
    snprintf(err, err_size, "%s", npk_error(m));
    return -1;
}

const npk_lower_target npk_lower_rvnpu = {"rvnpu", rv_compile, rv_open, rv_infer, rv_close,
                                          "precision=fp32"};
