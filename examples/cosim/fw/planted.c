/* Firmware for the planted-bug tests of examples/cosim: it uses SRA and LH first on values
 * the planted bugs do not change (non-negative), then on negative ones, and SB first on
 * values whose bytes 0 and 1 are equal, then on others; it checks every result. On a correct
 * core (and on npukit) it prints "planted: ok" and exits 0; a core with a planted bug prints
 * which check failed and exits 1 when it runs alone, and the lock-step run stops at the first
 * SRA, LH or SB whose result differs from npukit's. */
#include "syscalls.h"

int cosim_sra_site(int x, int s);
int cosim_lh_site(const short *p);
void cosim_sb_site(char *p, int v);

static const short halves[6] = {1, 2, 300, 0x7fff, -2, -300};
static volatile char bytes[4];

/* The first byte on its own: write(1, s, 1) returns 1 into a0, which held the 1 of fd 1, so
 * npukit's commit record leaves a0 out (a host syscall's unchanged register) while the core
 * reports writing it; the lock-step must still agree (cosim_tb.sv). */
static void say(const char *s)
{
    long n = 0;
    while (s[n])
        n++;
    write(1, s, 1);
    write(1, s + 1, n - 1);
}

int main(void)
{
    int bad = 0;
    /* non-negative operands: 4 SRA, then 4 LH, equal on the buggy cores */
    for (int i = 0; i < 4; i++)
        if (cosim_sra_site(1000 << i, i + 1) != (1000 << i) >> (i + 1))
            bad |= 1;
    for (int i = 0; i < 4; i++)
        if (cosim_lh_site(&halves[i]) != halves[i])
            bad |= 2;
    /* negative operands: the first SRA here is the one PLANT_BUG_SRA breaks */
    if (cosim_sra_site(-64, 3) != -8)
        bad |= 1;
    /* ... and the first LH here (halves[4] = -2) the one PLANT_BUG_LH breaks */
    if (cosim_lh_site(&halves[4]) != -2 || cosim_lh_site(&halves[5]) != -300)
        bad |= 2;
    /* SB of 0x0505 and 0x7777 (byte 1 = byte 0), then of 0x1234: the one PLANT_BUG_SB breaks */
    cosim_sb_site((char *)&bytes[0], 0x0505);
    cosim_sb_site((char *)&bytes[1], 0x7777);
    cosim_sb_site((char *)&bytes[2], 0x1234);
    if (bytes[0] != 0x05 || bytes[1] != 0x77 || bytes[2] != 0x34)
        bad |= 4;
    if (bad & 1)
        say("planted: SRA gave a wrong result\n");
    if (bad & 2)
        say("planted: LH gave a wrong result\n");
    if (bad & 4)
        say("planted: SB gave a wrong result\n");
    if (!bad)
        say("planted: ok\n");
    return bad ? 1 : 0;
}
