/* rvnpu decoder: word -> rvnpu_decoded. The first isa.def row (in file order) whose mask and
 * match fit and whose revision is selected wins; the remaining legality rules (reserved rm
 * values, unknown CSRs, writes to read-only CSRs) are checked here too, so the cached form of
 * an illegal word is RVNPU_OP_ILLEGAL with a reason the disassembler can print. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "targets/rvnpu/rvnpu.h"

_Static_assert(RVNPU_OP_ILLEGAL < 256, "rvnpu_decoded.op is 8 bits");

static int illegal(rvnpu_decoded *d, char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int illegal(rvnpu_decoded *d, char *why, size_t n, const char *fmt, ...)
{
    d->op = RVNPU_OP_ILLEGAL;
    if (why && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Why no row matched, in the terms of spec §11.1. */
static int no_row(uint32_t w, int rev2, rvnpu_decoded *d, char *why, size_t n)
{
    unsigned opc = w & 0x7F, f3 = w >> 12 & 7, f7 = w >> 25;
    if ((w & 3) != 3)
        return illegal(d, why, n, "16-bit encoding (no C extension)");
    if (opc == 0x73 && f3 == 0)
        return illegal(d, why, n, "SYSTEM funct3=0 (only ecall, ebreak, mret, wfi)");
    if (opc == 0x13 && (f3 == 1 || f3 == 5) && (w >> 25 & 1))
        return illegal(d, why, n, "shift amount bit 25 set (RV32 shamt is 5 bits)");
    for (unsigned i = 0; i < RVNPU_N_OPS; i++) {
        const rvnpu_insn_info *in = &rvnpu_insns[i];
        if ((w & in->mask) == in->match)
            return illegal(d, why, n, "%s exists only in the %s revision (selected: %s)",
                           in->mnemonic, rev2 ? "seed" : "rev2", rev2 ? "rev2" : "seed");
    }
    return illegal(d, why, n, "unknown encoding (opcode 0x%02x, funct3 %u, funct7 0x%02x)", opc,
                   f3, f7);
}

int rvnpu_decode(uint32_t w, int rev2, rvnpu_decoded *d, char *why, size_t why_size)
{
    memset(d, 0, sizeof *d);
    d->src[0] = d->src[1] = d->src[2] = d->dst = RVNPU_NOREG;
    unsigned i = 0;
    for (; i < RVNPU_N_OPS; i++) {
        const rvnpu_insn_info *in = &rvnpu_insns[i];
        if ((w & in->mask) == in->match &&
            !(in->rev == RVNPU_REV_SEED && rev2) && !(in->rev == RVNPU_REV_REV2 && !rev2))
            break;
    }
    if (i == RVNPU_N_OPS)
        return no_row(w, rev2, d, why, why_size);
    const rvnpu_insn_info *in = &rvnpu_insns[i];
    d->rd = w >> 7 & 31;
    d->rs1 = w >> 15 & 31;
    d->rs2 = w >> 20 & 31;
    d->rs3 = w >> 27;
    d->rm = w >> 12 & 7;
    d->imm = rvnpu_imm(w, in->fmt);
    rvnpu_kind k[RVNPU_MAX_OPERANDS];
    int n = rvnpu_operands((rvnpu_op)i, k);
    if (n < 0)
        return illegal(d, why, why_size, "%s: bad operand list in isa.def", in->mnemonic);
    unsigned ns = 0;
    for (int j = 0; j < n; j++) {
        switch (k[j]) {
        case RVNPU_K_XD: d->dst = d->rd; break;
        case RVNPU_K_FD: d->dst = (uint8_t)(d->rd + 32); break;
        case RVNPU_K_XCNT: d->src[ns++] = d->rd; break;
        case RVNPU_K_XS1:
        case RVNPU_K_MEM_I:
        case RVNPU_K_MEM_S: d->src[ns++] = d->rs1; break;
        case RVNPU_K_XS2: d->src[ns++] = d->rs2; break;
        case RVNPU_K_FS1: d->src[ns++] = (uint8_t)(d->rs1 + 32); break;
        case RVNPU_K_FS2: d->src[ns++] = (uint8_t)(d->rs2 + 32); break;
        case RVNPU_K_FS3: d->src[ns++] = (uint8_t)(d->rs3 + 32); break;
        case RVNPU_K_RM:
            if (d->rm == 5 || d->rm == 6)
                return illegal(d, why, why_size, "%s with reserved rounding mode %u",
                               in->mnemonic, d->rm);
            break;
        case RVNPU_K_CSR: {
            unsigned csr = w >> 20;
            const rvnpu_csr_info *c = rvnpu_csr_find(csr);
            if (!c)
                return illegal(d, why, why_size, "%s of unknown CSR 0x%03x", in->mnemonic, csr);
            /* csrrw[i] always write; csrrs/c[i] only with a nonzero rs1 field */
            unsigned f3 = w >> 12 & 3;
            if (!c->writable && (f3 == 1 || d->rs1 != 0))
                return illegal(d, why, why_size, "%s writes read-only CSR %s (0x%03x)",
                               in->mnemonic, c->name, csr);
            break;
        }
        default: break;
        }
        if (ns > 3)
            ns = 3;
    }
    if (d->dst == 0) {
        d->dst = RVNPU_NOREG; /* x0 */
        d->rd = RVNPU_X_SINK;
    }
    d->op = (uint8_t)i;
    return 0;
}
