/* See onpu_mlp.h. */
#include "onpu_mlp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int onpu_mlp_layout_make(onpu_mlp_layout *l, unsigned batch, unsigned K, unsigned L, char *err,
                         size_t err_size)
{
    memset(l, 0, sizeof *l);
    if (batch == 0 || batch > 4096) {
        snprintf(err, err_size, "batch %u: must be 1 .. 4096 images", batch);
        return -1;
    }
    l->batch = batch, l->K = K, l->L = L;
    l->batch_pad = (batch + K - 1) / K * K;
    /* layer 1: A = W1q at 0 */
    if (npk_opennpu_gemm_plan_make(&l->g1, MLP_N_HID, batch, MLP_N_IN, K, L, 0, err, err_size) ||
        npk_opennpu_gemm_plan_make(&l->g2, MLP_N_OUT, batch, MLP_N_HID, K, L, 0, err, err_size))
        return -1;
    uint64_t at = 0;
    l->g1.a_addr = at, at += l->g1.a_panel * l->g1.tiles_m;
    l->g2.a_addr = at, at += l->g2.a_panel * l->g2.tiles_m;
    l->b1_addr = at, at += 4ull * K * MLP_N_HID;
    l->b2_addr = at, at += 4ull * K * MLP_N_OUT;
    l->x_addr = l->g1.b_addr = at, l->x_size = l->g1.b_panel * l->g1.tiles_n, at += l->x_size;
    l->g1.c_addr = at, at += l->g1.ldc * MLP_N_HID + 4ull * K;
    l->g2.b_addr = at, at += l->g2.b_panel * l->g2.tiles_n; /* H, written by the program */
    l->g2.c_addr = at, at += l->g2.ldc * MLP_N_OUT + 4ull * K;
    l->logits_addr = at, at += 4ull * MLP_N_OUT * l->batch_pad;
    l->end = at;
    l->g1.base = l->g2.base = 0;
    l->g1.end = l->g2.end = at;
    return 0;
}

static void put32(uint8_t *p, int32_t v)
{
    for (unsigned b = 0; b < 4; b++)
        p[b] = (uint8_t)((uint32_t)v >> (8 * b));
}

void onpu_mlp_pack_model(const onpu_mlp_layout *l, const mlp_model *m, uint8_t *mem)
{
    memset(mem, 0, l->end);
    npk_opennpu_gemm_pack_a(&l->g1, &m->w1[0][0], mem + l->g1.a_addr);
    npk_opennpu_gemm_pack_a(&l->g2, &m->w2[0][0], mem + l->g2.a_addr);
    for (unsigned h = 0; h < MLP_N_HID; h++)
        for (unsigned k = 0; k < l->K; k++)
            put32(mem + l->b1_addr + 4ull * (l->K * h + k), m->b1adj[h]);
    for (unsigned o = 0; o < MLP_N_OUT; o++)
        for (unsigned k = 0; k < l->K; k++)
            put32(mem + l->b2_addr + 4ull * (l->K * o + k), m->b2[o]);
}

void onpu_mlp_pack_images(const onpu_mlp_layout *l, const uint8_t *images, unsigned n,
                          uint8_t *dst)
{
    /* X' is 784 x batch: X'[t][i] = pixel t of image i - 128 */
    int8_t *x = calloc((size_t)MLP_N_IN * l->batch, 1);
    if (!x) {
        memset(dst, 0, l->x_size);
        return;
    }
    for (unsigned i = 0; i < n && i < l->batch; i++)
        for (unsigned t = 0; t < MLP_N_IN; t++)
            x[(size_t)t * l->batch + i] = (int8_t)(images[(size_t)MLP_N_IN * i + t] - 128);
    npk_opennpu_gemm_pack_b(&l->g1, x, dst);
    free(x);
}

/* ld.vr/st.vr of 4K bytes at addr, through a base register */
static void vr_access(npk_opennpu_gen *g, const char *op, unsigned reg, uint64_t addr,
                      unsigned avoid)
{
    long long off;
    unsigned b = npk_opennpu_gen_base(g, addr, avoid | 1u << reg, &off);
    npk_opennpu_gen_insn(g, "%s vr%u, %lld(vr%u)", op, reg, off, b);
}

char *onpu_mlp_program(const onpu_mlp_layout *l, int32_t shift1, npk_opennpu_gemm_counts *counts)
{
    unsigned K = l->K, groups = l->batch_pad / K;
    npk_opennpu_gen *g = npk_opennpu_gen_new(K, l->L);
    if (!g)
        return NULL;
    npk_opennpu_gen_text(g, "# int8 Fashion-MNIST MLP 784-128-10, batch %u, K=%u L=%u (made by "
                     "onpu_mlp)\n# layer 1\n", l->batch, K, l->L);
    npk_opennpu_gen_gemm(g, &l->g1);

    /* Requantise: VR c holds SHIFT1 in every lane (vsra uses the low 5 bits) and a zero row
     * (VX[4c+1]) for the ReLU; t and bb are temporaries, x gathers four hidden units. */
    npk_opennpu_gen_text(g, "# requantise: H = ReLU(clamp8((C1 + B1') >> SHIFT1)), packed for "
                            "layer 2\n");
    unsigned c = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_insn(g, "vbcast.imm vx%u, %d", 4 * c, (int)shift1);
    npk_opennpu_gen_insn(g, "vbcast.imm vx%u, 0", 4 * c + 1);
    npk_opennpu_gen_busy(g, c, 1);
    unsigned t = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_busy(g, t, 1);
    unsigned bb = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_busy(g, bb, 1);
    unsigned x = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_busy(g, x, 1);
    for (unsigned gr = 0; gr < groups; gr++)
        for (unsigned u = 0; u < MLP_N_HID / 4; u++) {
            for (unsigned b = 0; b < 4; b++) {
                unsigned h = 4 * u + b;
                vr_access(g, "ld.vr", t, l->g1.c_addr + h * l->g1.ldc + 4ull * K * gr, 0);
                vr_access(g, "ld.vr", bb, l->b1_addr + 4ull * K * h, 0);
                npk_opennpu_gen_insn(g, "vadd vr%u, vr%u, vr%u", t, t, bb);
                npk_opennpu_gen_insn(g, "vsra vr%u, vr%u, vr%u", t, t, c);
                npk_opennpu_gen_insn(g, "vcvt_s8_s32.sat vx%u, vr%u", 4 * x + b, t);
                npk_opennpu_gen_insn(g, "vmax vx%u, vx%u, vx%u", 4 * x + b, 4 * x + b, 4 * c + 1);
            }
            vr_access(g, "st.vr", x, l->g2.b_addr + gr * l->g2.b_panel + 4ull * K * u, 0);
        }
    for (unsigned r = 0; r < l->L / 4 && r < 8; r++)
        npk_opennpu_gen_busy(g, r, 0);

    npk_opennpu_gen_text(g, "# layer 2\n");
    npk_opennpu_gen_gemm(g, &l->g2);

    npk_opennpu_gen_text(g, "# logits = C2 + B2\n");
    t = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_busy(g, t, 1);
    bb = npk_opennpu_gen_reg(g, 0);
    npk_opennpu_gen_busy(g, bb, 1);
    for (unsigned o = 0; o < MLP_N_OUT; o++)
        for (unsigned gr = 0; gr < groups; gr++) {
            vr_access(g, "ld.vr", t, l->g2.c_addr + o * l->g2.ldc + 4ull * K * gr, 0);
            vr_access(g, "ld.vr", bb, l->b2_addr + 4ull * K * o, 0);
            npk_opennpu_gen_insn(g, "vadd vr%u, vr%u, vr%u", t, t, bb);
            vr_access(g, "st.vr", t, l->logits_addr + 4ull * (o * l->batch_pad + K * gr), 0);
        }
    return npk_opennpu_gen_finish(g, counts);
}

void onpu_mlp_logits(const onpu_mlp_layout *l, const uint8_t *res, unsigned i, int32_t out[10])
{
    for (unsigned o = 0; o < MLP_N_OUT; o++) {
        const uint8_t *p = res + 4ull * (o * l->batch_pad + i);
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24;
        out[o] = u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1;
    }
}
