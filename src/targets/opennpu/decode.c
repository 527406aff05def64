/* opennpu: word -> onpu_decoded, with the legality rules of spec §4.5 applied in order. The
 * rows (match/mask, format, operand kinds, options) come from isa.def; this file only knows
 * where the fields sit (§4.1, §4.2) and how register fields are masked per class (§4.4). */
#include <stdio.h>
#include <string.h>

#include "targets/opennpu/opennpu.h"

/* Family names of the assigned opcodes (§4.3), for reasons; NULL: reserved. */
static const char *family_name(unsigned opcode)
{
    static const char *const low[4] = {"NOP", "LD", "ST", "MMA"};
    static const char *const valu[9] = {"VALU_ARITH", "VALU_LOGIC", "VALU_REDUCE",
                                        "VALU_LUT",   "VALU_CVT",   "VALU_BCAST",
                                        "VALU_FP",    "VALU_FP_FMA", "VALU_MOV"};
    if (opcode < 4)
        return low[opcode];
    if (opcode >= 0x10 && opcode <= 0x18)
        return valu[opcode - 0x10];
    return NULL;
}

/* Mark d illegal and copy the reason (already formatted into r) to why. */
static int illegal(onpu_decoded *d, char *why, size_t n, const char *r)
{
    memset(d, 0, sizeof *d);
    d->op = ONPU_OP_ILLEGAL;
    if (why && n)
        snprintf(why, n, "%s", r);
    return -1;
}

static const char *cvt_name(unsigned code, char *buf, size_t n)
{
    if (code < 6)
        return onpu_cvt_fmts[code].name;
    snprintf(buf, n, "reserved format %u%u%u", code >> 2 & 1, code >> 1 & 1, code & 1);
    return buf;
}

static const char *const count_names[3] = {"L", "L/2", "L/4"};

int onpu_decode(uint32_t w, const onpu_cfg *c, onpu_decoded *d, char *why, size_t why_size)
{
    const unsigned opcode = w & 0x7F, funct3 = w >> 12 & 7, width = w >> 25 & 3;
    char r[96], b1[32], b2[32];
    const char *fam = family_name(opcode);
    if (!fam) { /* rule 1 */
        snprintf(r, sizeof r, "reserved opcode 0x%02x", opcode);
        return illegal(d, why, why_size, r);
    }
    unsigned op = 0;
    while (op < ONPU_N_OPS && (w & onpu_insns[op].mask) != onpu_insns[op].match)
        op++;
    if (op == ONPU_N_OPS && opcode == 0x14) /* rule 3 */
        snprintf(r, sizeof r, "illegal conversion %s -> %s", cvt_name(w >> 25 & 7, b1, sizeof b1),
                 cvt_name(funct3, b2, sizeof b2));
    else if (op == ONPU_N_OPS) /* rule 2 */
        snprintf(r, sizeof r, "reserved funct3 %u%u%u for %s", funct3 >> 2, funct3 >> 1 & 1,
                 funct3 & 1, fam);
    if (op == ONPU_N_OPS)
        return illegal(d, why, why_size, r);
    const onpu_insn_info *in = &onpu_insns[op];
    if (in->fmt == ONPU_FMT_R && (width == 3 || w >> 30 == 3)) /* rule 4 */
        return illegal(d, why, why_size, width == 3 ? "reserved width 11" : "reserved dtype 11");
    onpu_decoded t;
    memset(&t, 0, sizeof t);
    t.op = (uint16_t)op;
    if (in->fmt == ONPU_FMT_RC) {
        t.cvt_dst = (uint8_t)funct3;
        t.cvt_src = (uint8_t)(w >> 25 & 7);
        t.cls = (uint8_t)onpu_cvt_fmts[t.cvt_dst].cls;
        t.src_cls = (uint8_t)onpu_cvt_fmts[t.cvt_src].cls;
    }
    if (opcode == 0x12) /* VALU_REDUCE: the source class */
        t.src_cls = (uint8_t)width;
    onpu_kind k[ONPU_MAX_OPERANDS];
    const int nk = onpu_operands((onpu_op)op, k);
    for (int i = 0; i < nk; i++) {
        const onpu_kind_info *ki = &onpu_kinds[k[i]];
        if (ki->cls == ONPU_CLS_WIDTH)
            t.cls = (uint8_t)width;
        if (ki->field < 0)
            continue;
        const unsigned field = w >> onpu_field_lsb[ki->field] & 31;
        if (k[i] == ONPU_K_VRD && op == ONPU_OP_MMA) { /* a feed ignores rd (§4.4) */
            t.mma_rd = (uint8_t)(field & 7);
            continue;
        }
        const unsigned cls = onpu_kind_class(k[i], &t), count = onpu_nregs(c, (onpu_class)cls);
        if (ki->field == 0 && onpu_mem_shapes[op].is_mem) /* LD/ST: the class of rd's kind */
            t.cls = (uint8_t)cls;
        const unsigned idx = field & (31u >> cls);
        if (idx >= count) { /* rule 5 */
            snprintf(r, sizeof r, "register %s%u out of range (%s = %u)", onpu_class_names[cls],
                     idx, count_names[cls], count);
            return illegal(d, why, why_size, r);
        }
        *onpu_reg(&t, ki->field) = (uint8_t)idx;
    }
    if (in->fmt == ONPU_FMT_I)
        t.imm = (int32_t)(w >> 20) - (w >> 31 ? 4096 : 0);
    if (op == ONPU_OP_VSETLUT_A || op == ONPU_OP_VSETLUT_B) { /* rule 6 */
        const int32_t nseg = c->K ? (int32_t)(64 / c->K) : 0;
        if (t.imm < 0 || t.imm >= nseg) {
            snprintf(r, sizeof r, "LUT segment %d out of range 0..%d", (int)t.imm, (int)nseg - 1);
            return illegal(d, why, why_size, r);
        }
    }
    const unsigned opts = onpu_options((onpu_op)op);
    switch (in->fmt) {
    case ONPU_FMT_R:
        t.sat = (uint8_t)((opts & ONPU_OPT_SAT) ? w >> 29 & 1 : 0);
        t.keep = (uint8_t)((opts & ONPU_OPT_KEEP) ? w >> 29 & 1 : 0);
        t.round = (uint8_t)((opts & ONPU_OPT_ROUND) ? w >> 27 & 3 : 0);
        break;
    case ONPU_FMT_RC:
        t.sat = (uint8_t)(w >> 28 & 1);
        t.round = (uint8_t)(w >> 29 & 3);
        t.var = (uint8_t)((opts & ONPU_OPT_VAR) ? w >> 31 : 0);
        break;
    case ONPU_FMT_S: t.round = (uint8_t)(w >> 25 & 3); break;
    case ONPU_FMT_N: case ONPU_FMT_I: break;
    }
    *d = t;
    if (why && why_size)
        why[0] = '\0';
    return 0;
}
