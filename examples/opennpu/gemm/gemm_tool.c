/* onpu-gemm: make (and optionally run) an opennpu GEMM program for any M x N x K.
 * See --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_run.h"
#include "gemm_run.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: onpu-gemm [options] M N K\n"
            "Make an opennpu program for C = A * B (A M x K, B K x N, int8; C int32) tiled onto\n"
            "the machine's K x K MMA array, with seeded random A and B.\n"
            "  -o PREFIX      write PREFIX.s (the program), PREFIX.mem (data memory image from\n"
            "                 address 0: packed A and B, C zeroed) and PREFIX.expected (the\n"
            "                 host reference C, row-major int32 little-endian)\n"
            "  --run          run it on the simulator here, compare with the host reference\n"
            "                 and print ticks, the tick bound and MMA utilisation\n"
            "  --config SPEC  machine settings as for npukit (default: test = K 8, L 32)\n"
            "  --seed N       random seed (default 1)\n"
            "  -h, --help     this text\n"
            "Example:\n"
            "  onpu-gemm -o g 64 64 64 && npukit run -t opennpu --config mem_size=2M \\\n"
            "      --load mem:0:g.mem --stats --dump mem:C:16384 g.s\n"
            "(onpu-gemm prints the exact run command with C's address.)\n");
}

static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno || *s == '-' || end == s || *end || v > 1000000)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "onpu-gemm: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *prefix = NULL, *config = NULL;
    int run = 0;
    unsigned seed = 1, dims[3], nd = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            prefix = argv[++i];
        } else if (!strcmp(a, "--run")) {
            run = 1;
        } else if (!strcmp(a, "--config") && i + 1 < argc) {
            config = argv[++i];
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            if (parse_uint(argv[++i], &seed)) {
                fprintf(stderr, "onpu-gemm: bad seed '%s'\n", argv[i]);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "onpu-gemm: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (nd < 3) {
            if (parse_uint(a, &dims[nd]) || dims[nd] == 0) {
                fprintf(stderr, "onpu-gemm: '%s' is not a dimension (1 .. 1000000)\n", a);
                return 2;
            }
            nd++;
        } else {
            fprintf(stderr, "onpu-gemm: too many arguments (see --help)\n");
            return 2;
        }
    }
    if (nd != 3 || (!prefix && !run)) {
        fprintf(stderr, nd != 3 ? "onpu-gemm: need M N K (see --help)\n"
                                : "onpu-gemm: nothing to do: give -o PREFIX and/or --run\n");
        return 2;
    }
    char err[512];
    npk_machine *probe = NULL;
    if (npk_create(&probe, "opennpu", config, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "onpu-gemm: %s\n", err);
        return 2;
    }
    const char *cs = npk_config_string(probe);
    const char *kp = strstr(cs, "K="), *lp = strstr(cs, "L=");
    unsigned K = kp ? (unsigned)atoi(kp + 2) : 0, L = lp ? (unsigned)atoi(lp + 2) : 0;
    char spec[300];
    snprintf(spec, sizeof spec, "opennpu:%s", cs);
    npk_destroy(probe);

    unsigned M = dims[0], N = dims[1], Kd = dims[2];
    npk_opennpu_gemm_plan p;
    if (npk_opennpu_gemm_plan_make(&p, M, N, Kd, K, L, 0, err, sizeof err)) {
        fprintf(stderr, "onpu-gemm: %s\n", err);
        return 2;
    }
    int8_t *A = malloc((size_t)M * Kd), *B = malloc((size_t)Kd * N);
    int32_t *C = malloc(sizeof *C * M * N), *R = malloc(sizeof *R * M * N);
    uint8_t *img = malloc(p.end);
    if (!A || !B || !C || !R || !img) {
        fprintf(stderr, "onpu-gemm: out of memory\n");
        return 1;
    }
    onpu_gemm_random(M, N, Kd, A, B, 0x9E3779B97F4A7C15ull * (seed + 1));
    npk_opennpu_gemm_pack(&p, A, B, img);
    onpu_gemm_ref(M, N, Kd, A, B, R);
    npk_opennpu_gemm_counts cnt;
    char *prog = npk_opennpu_gemm_program(&p, &cnt);
    if (!prog) {
        fprintf(stderr, "onpu-gemm: out of memory\n");
        return 1;
    }
    uint64_t tiles = (uint64_t)p.tiles_m * p.tiles_n;
    printf("GEMM %ux%ux%u on K=%u L=%u: %llu tiles, %llu instructions (%llu feeds, %llu loads, "
           "%llu stores, %llu address/scratch), tick bound %llu\n",
           M, N, Kd, K, L, (unsigned long long)tiles, (unsigned long long)cnt.insns,
           (unsigned long long)cnt.feeds, (unsigned long long)cnt.loads,
           (unsigned long long)cnt.stores, (unsigned long long)cnt.setup,
           (unsigned long long)cnt.bound);
    uint64_t mem = 1 << 20;
    while (mem < p.end)
        mem *= 2;
    int rc = 0;
    if (prefix) {
        char path[4096];
        snprintf(path, sizeof path, "%s.s", prefix);
        rc |= write_file(path, prog, strlen(prog));
        snprintf(path, sizeof path, "%s.mem", prefix);
        rc |= write_file(path, img, p.end);
        uint8_t *e = malloc(4 * (size_t)M * N + 1);
        for (size_t i = 0; e && i < (size_t)M * N; i++)
            for (unsigned b = 0; b < 4; b++)
                e[4 * i + b] = (uint8_t)((uint32_t)R[i] >> (8 * b));
        snprintf(path, sizeof path, "%s.expected", prefix);
        rc |= e ? write_file(path, e, 4 * (size_t)M * N) : -1;
        free(e);
        if (!rc)
            printf("wrote %s.s, %s.mem, %s.expected; run with\n"
                   "  npukit run -t opennpu --config %s%smem_size=%llu --load mem:0:%s.mem "
                   "--stats --dump mem:%llu:%llu %s.s\n",
                   prefix, prefix, prefix, config ? config : "", config ? "," : "",
                   (unsigned long long)mem, prefix, (unsigned long long)p.c_addr,
                   (unsigned long long)(4ull * M * N), prefix);
    }
    if (run && !rc) {
        npk_machine *m = onpu_gemm_machine(spec, p.end, err, sizeof err);
        onpu_gemm_result res;
        if (!m || onpu_gemm_run(m, &p, prog, img, 1, &res, err, sizeof err)) {
            fprintf(stderr, "onpu-gemm: %s\n", err);
            rc = 1;
        } else {
            npk_opennpu_gemm_unpack_c(&p, img, C);
            size_t bad = 0;
            for (size_t i = 0; i < (size_t)M * N; i++)
                bad += C[i] != R[i];
            printf("ran %llu instructions: %llu ticks (bound %llu, %.2f %% above), %llu stall "
                   "ticks, MMA utilisation %llu per mille (%llu feeds); C %s the host "
                   "reference%s\n",
                   (unsigned long long)res.insns, (unsigned long long)res.ticks,
                   (unsigned long long)cnt.bound,
                   100.0 * ((double)res.ticks / (double)cnt.bound - 1),
                   (unsigned long long)res.stalls,
                   (unsigned long long)(res.ticks ? res.feeds * 1000 / res.ticks : 0),
                   (unsigned long long)res.feeds, bad ? "DIFFERS from" : "equals",
                   bad ? "" : " exactly");
            rc = bad != 0;
        }
        if (m)
            npk_destroy(m);
    }
    free(prog), free(A), free(B), free(C), free(R), free(img);
    return rc;
}
