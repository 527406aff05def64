/* rvnpu control and status registers (spec §11.3): the table of CSRs that exist, and their
 * read and write behaviour. Counters count retired instructions (one "cycle" each), so what
 * firmware reads does not depend on the timing model. */
#include "targets/rvnpu/rvnpu.h"

const rvnpu_csr_info rvnpu_csrs[] = {
    {"fflags", 0x001, 1},   {"frm", 0x002, 1},       {"fcsr", 0x003, 1},
    {"cycle", 0xC00, 0},    {"time", 0xC01, 0},      {"instret", 0xC02, 0},
    {"cycleh", 0xC80, 0},   {"timeh", 0xC81, 0},     {"instreth", 0xC82, 0},
    {"mcycle", 0xB00, 1},   {"minstret", 0xB02, 1},  {"mcycleh", 0xB80, 1},
    {"minstreth", 0xB82, 1}, {"mstatus", 0x300, 1},  {"misa", 0x301, 1},
    {"mie", 0x304, 1},      {"mtvec", 0x305, 1},     {"mscratch", 0x340, 1},
    {"mepc", 0x341, 1},     {"mcause", 0x342, 1},    {"mtval", 0x343, 1},
    {"mip", 0x344, 1},      {"mvendorid", 0xF11, 0}, {"marchid", 0xF12, 0},
    {"mimpid", 0xF13, 0},   {"mhartid", 0xF14, 0},
};
const size_t rvnpu_n_csrs = sizeof rvnpu_csrs / sizeof rvnpu_csrs[0];

const rvnpu_csr_info *rvnpu_csr_find(unsigned addr)
{
    for (size_t i = 0; i < rvnpu_n_csrs; i++)
        if (rvnpu_csrs[i].addr == addr)
            return &rvnpu_csrs[i];
    return NULL;
}

#define RVNPU_MISA 0x40801120u

uint32_t rvnpu_csr_read(rvnpu_state *s, unsigned addr)
{
    uint64_t cyc = s->retired + s->cycle_base, ins = s->retired + s->instret_base;
    switch (addr) {
    case 0x001: return s->fflags;
    case 0x002: return s->frm;
    case 0x003: return s->frm << 5 | s->fflags;
    case 0xC00: case 0xB00: return (uint32_t)cyc;
    case 0xC80: case 0xB80: return (uint32_t)(cyc >> 32);
    case 0xC01: return (uint32_t)s->retired;
    case 0xC81: return (uint32_t)(s->retired >> 32);
    case 0xC02: case 0xB02: return (uint32_t)ins;
    case 0xC82: case 0xB82: return (uint32_t)(ins >> 32);
    case 0x300:
        return s->mie << 3 | s->mpie << 7 | 3u << 11 | s->fs << 13 | (s->fs == 3 ? 1u << 31 : 0);
    case 0x301: return RVNPU_MISA;
    case 0x305: return s->mtvec;
    case 0x340: return s->mscratch;
    case 0x341: return s->mepc;
    case 0x342: return s->mcause;
    case 0x343: return s->mtval;
    default: return 0; /* mie, mip, ids */
    }
}

/* Set one half of a 64-bit counter so that the next instruction (after the writing one has
 * retired) reads `v` in that half. */
static void counter_write(rvnpu_state *s, uint64_t *base, int high, uint32_t v)
{
    uint64_t next = s->retired + 1, cur = next + *base;
    uint64_t want = high ? (cur & 0xFFFFFFFFu) | (uint64_t)v << 32
                         : (cur & 0xFFFFFFFF00000000u) | v;
    *base = want - next;
}

void rvnpu_csr_write(rvnpu_state *s, unsigned addr, uint32_t v)
{
    switch (addr) {
    case 0x001: s->fflags = v & 0x1F; break;
    case 0x002: s->frm = v & 7; break;
    case 0x003:
        s->frm = v >> 5 & 7;
        s->fflags = v & 0x1F;
        break;
    case 0xB00: counter_write(s, &s->cycle_base, 0, v); break;
    case 0xB80: counter_write(s, &s->cycle_base, 1, v); break;
    case 0xB02: counter_write(s, &s->instret_base, 0, v); break;
    case 0xB82: counter_write(s, &s->instret_base, 1, v); break;
    case 0x300:
        s->mie = v >> 3 & 1;
        s->mpie = v >> 7 & 1;
        s->fs = v >> 13 & 3;
        break;
    case 0x305: s->mtvec = (v & 3) >= 2 ? v & ~3u : v; break;
    case 0x340: s->mscratch = v; break;
    case 0x341: s->mepc = v & ~3u; break;
    case 0x342: s->mcause = v; break;
    case 0x343: s->mtval = v; break;
    default: break; /* misa, mie, mip: writes ignored */
    }
}
