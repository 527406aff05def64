/* Disassembly text builder: bounded output with snprintf semantics, and operand formatters
 * that use the same register classes as the assembler, so text and tables cannot drift. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "asm/asm.h"

void npk_dis_init(npk_dis *d, char *buf, size_t n)
{
    d->buf = buf;
    d->n = buf ? n : 0;
    d->len = 0;
    d->operands = 0;
    if (d->n)
        d->buf[0] = '\0';
}

static void add(npk_dis *d, const char *s, size_t k)
{
    if (d->len < d->n) {
        size_t room = d->n - 1 - d->len;
        size_t c = k < room ? k : room;
        memcpy(d->buf + d->len, s, c);
        d->buf[d->len + c] = '\0';
    }
    d->len += k;
}

void npk_dis_puts(npk_dis *d, const char *s)
{
    add(d, s, strlen(s));
}

void npk_dis_printf(npk_dis *d, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k < sizeof tmp) {
        add(d, tmp, (size_t)k);
        return;
    }
    /* long text: write straight into the remaining room, count the full length */
    size_t room = d->len < d->n ? d->n - d->len : 0;
    va_start(ap, fmt);
    if (room)
        vsnprintf(d->buf + d->len, room, fmt, ap);
    va_end(ap);
    d->len += (size_t)k;
}

void npk_dis_opt(npk_dis *d, const char *opt)
{
    add(d, ".", 1);
    npk_dis_puts(d, opt);
}

void npk_dis_sep(npk_dis *d)
{
    if (d->operands++)
        add(d, ", ", 2);
    else
        add(d, " ", 1);
}

void npk_dis_reg(npk_dis *d, const npk_regset *rs, unsigned num)
{
    char buf[64];
    npk_dis_puts(d, npk_regset_name(rs, num, buf, sizeof buf));
}

void npk_dis_int(npk_dis *d, int64_t v)
{
    npk_dis_printf(d, "%" PRId64, v);
}

void npk_dis_hex(npk_dis *d, int64_t v)
{
    if (v < 0)
        npk_dis_printf(d, "-0x%" PRIx64, (uint64_t)0 - (uint64_t)v);
    else
        npk_dis_printf(d, "0x%" PRIx64, (uint64_t)v);
}

void npk_dis_addr(npk_dis *d, int64_t addr, const npk_asm_result *syms)
{
    const char *label = npk_asm_result_label_at(syms, addr);
    if (label)
        npk_dis_puts(d, label);
    else
        npk_dis_hex(d, addr);
}

void npk_dis_mem(npk_dis *d, const npk_regset *rs, int64_t off, unsigned reg)
{
    npk_dis_int(d, off);
    add(d, "(", 1);
    npk_dis_reg(d, rs, reg);
    add(d, ")", 1);
}

void npk_dis_kv(npk_dis *d, const char *key, int64_t v, bool hex)
{
    npk_dis_puts(d, key);
    add(d, "=", 1);
    if (hex)
        npk_dis_hex(d, v);
    else
        npk_dis_int(d, v);
}

void npk_dis_word(npk_dis *d, const uint64_t *w, size_t nw, unsigned nbits, char comment,
                  const char *why)
{
    char hex[NPK_BITS_MAX / 4 + 8];
    npk_dis_puts(d, ".word 0x");
    if ((nbits + 3) / 4 < sizeof hex) {
        npk_bits_hex(w, nw, nbits, hex, sizeof hex);
        npk_dis_puts(d, hex);
    } else {
        for (unsigned k = (nbits + 3) / 4; k-- > 0;)
            npk_dis_printf(d, "%x", (unsigned)npk_bits_get(w, nw, 4 * k, 4));
    }
    if (why) {
        char cm[5] = {' ', ' ', comment, ' ', '\0'};
        npk_dis_puts(d, cm);
        npk_dis_puts(d, why);
    }
}

int npk_dis_done(const npk_dis *d)
{
    return (int)d->len;
}
