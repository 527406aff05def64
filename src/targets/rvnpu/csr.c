/* rvnpu control and status registers (spec §11.3): the table of CSRs that exist, and their
 * read and write behaviour. Counters count retired instructions (one "cycle" each), so what
 * firmware reads does not depend on the timing model. */
#include "targets/rvnpu/rvnpu.h"

const rvnpu_csr_info rvnpu_csrs[] = {
#define RVNPU_CSR(name, addr, writable) {name, addr, writable},
#include "targets/rvnpu/isa.def"
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
