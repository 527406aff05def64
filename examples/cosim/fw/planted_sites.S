# The three instructions the planted bugs of rv32im_core break (PLANT_BUG_SRA, PLANT_BUG_LH,
# PLANT_BUG_SB), each at the first word of a function of its own, so that the lock-step test
# can check that the mismatch is reported exactly there (<cosim_sra_site+0x0>, ...).
    .text
    .globl cosim_sra_site
    .type cosim_sra_site, @function
cosim_sra_site:             # int cosim_sra_site(int x, int s): x >> s, arithmetic
    sra   a0, a0, a1
    ret
    .size cosim_sra_site, . - cosim_sra_site

    .globl cosim_lh_site
    .type cosim_lh_site, @function
cosim_lh_site:              # int cosim_lh_site(const short *p): *p, sign-extended
    lh    a0, 0(a0)
    ret
    .size cosim_lh_site, . - cosim_lh_site

    .globl cosim_sb_site
    .type cosim_sb_site, @function
cosim_sb_site:              # void cosim_sb_site(char *p, int v): *p = (char)v
    sb    a1, 0(a0)
    ret
    .size cosim_sb_site, . - cosim_sb_site
