/* tf_sim_test: runs the rvnpu transformer firmware in npukit through the public library API
 * and compares its stdout and exit status byte for byte with the host reference (tf_ref.c).
 *
 * For each run: load the ELF (which also resets the machine), clear the statistics, write test_tokens,
 * test_n_tokens and test_n_generate with npk_write_symbol, capture guest stdout with
 * npk_set_output, npk_run, then compare with tf_ref_run() for the same inputs: the stdout
 * bytes and exit status, and, read back with npk_mem_read, the bits of every K and V vector
 * the firmware cached and of its last residual stream. Prints the retired instructions (and
 * timing-model cycles) of every run.
 * Exit status: 0 pass, 1 a mismatch, 2 usage or setup error. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/npukit.h"
#include "tf_ref.h"

#define MAX_FW 4
#define MAX_PROMPTS 64
#define RUN_BUDGET 500000000u /* instructions per run; the plain build needs about 30 M */

typedef struct fw {
    const char *elf;
    const char *rev;
    int plain;
    npk_machine *m;
    uint8_t *image;
    size_t image_size;
    uint64_t insns_total, cycles_total;
    int runs;
    uint8_t out[MAX_PROMPTS][TF_REF_MAX_OUTPUT]; /* outputs of the prompt runs */
    size_t out_len[MAX_PROMPTS];
} fw;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tf_sim_test --weights FILE --fw ELF[,plain][,rev=seed|rev2] [--fw ...]\n"
            "                   [--prompts FILE] [--prompt TEXT ...] [options]\n"
            "Runs the rvnpu transformer firmware (examples/rvnpu/transformer) in npukit and\n"
            "compares its output and exit status byte for byte with the host reference.\n"
            "\n"
            "  --weights FILE      the weight blob the firmware was built with (required)\n"
            "  --fw ELF[,plain][,rev=R]  firmware to test; 'plain' for the -DNO_NPU build\n"
            "                      (compared with the reference's plain mode), R = NPU revision\n"
            "                      (default seed); repeatable\n"
            "  --prompts FILE      prompts, one per line (1..32 bytes each)\n"
            "  --prompt TEXT       one more prompt; repeatable\n"
            "  --max-prompts N     use only the first N prompts\n"
            "  --generate N        test_n_generate for the prompt runs (default 0: fill the\n"
            "                      context)\n"
            "  --conventions       also check the output convention of spec 13.3 on the first\n"
            "                      --fw: refused prompt lengths, test_n_generate limits\n"
            "  --quiet             print only failures and the summary\n"
            "  -h, --help          this text\n"
            "exit status: 0 pass, 1 mismatch, 2 usage or setup error\n");
}

static const tf_weights *g_w;
static int g_quiet;
static int g_failures;

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tf_sim_test: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap *= 2);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        fprintf(stderr, "tf_sim_test: cannot read '%s'\n", path);
        return -1;
    }
    *data = buf;
    *size = n;
    return 0;
}

/* Printable form of output bytes for the log. */
static void print_escaped(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            fputs("\\n", stdout);
        else if (s[i] == '\\')
            fputs("\\\\", stdout);
        else if (s[i] >= 32 && s[i] < 127)
            putchar(s[i]);
        else
            printf("\\x%02x", s[i]);
    }
}

typedef struct run_result {
    uint8_t out[4096];
    size_t len;
    int status;          /* exit status, or -1 if the run did not end with an exit */
    uint64_t insns, cycles;
    tf_ref_state state;  /* the firmware's tf_kcache, tf_vcache, tf_x after the run */
} run_result;

/* Reads `n` bytes of the guest's global `name` (in RAM) into buf. */
static int read_global(npk_machine *m, const char *name, void *buf, size_t n)
{
    uint64_t addr;
    if (npk_symbol(m, name, &addr) != NPK_OK || addr < 0x80000000u ||
        npk_mem_read(m, "ram", addr - 0x80000000u, buf, n) != NPK_OK) {
        fprintf(stderr, "tf_sim_test: cannot read the firmware's %s: %s\n", name, npk_error(m));
        return -1;
    }
    return 0;
}

/* Compares the first `count` floats bit for bit; describes the first difference in why. */
static int same_bits(const char *what, const float *got, const float *want, size_t count,
                     char *why, size_t why_size)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t g, w;
        memcpy(&g, &got[i], 4);
        memcpy(&w, &want[i], 4);
        if (g != w) {
            snprintf(why, why_size, "%s[%zu] = 0x%08x (%.9g), reference 0x%08x (%.9g)", what, i,
                     (unsigned)g, (double)got[i], (unsigned)w, (double)want[i]);
            return 0;
        }
    }
    return 1;
}

/* One firmware run; returns -1 on a setup error (message printed). */
static int run_fw(fw *f, const uint8_t tokens[TF_CTX], int32_t n_tokens, int32_t n_generate,
                  run_result *r)
{
    FILE *out = tmpfile();
    if (!out) {
        fprintf(stderr, "tf_sim_test: tmpfile: %s\n", strerror(errno));
        return -1;
    }
    npk_set_output(f->m, out, stderr);
    npk_stop stop;
    int rc = -1;
    /* Loading resets the machine; npk_reset then clears the statistics of the last run. */
    if (npk_load_elf(f->m, f->image, f->image_size, f->elf) != NPK_OK ||
        npk_reset(f->m) != NPK_OK || npk_stats_enable(f->m, 1) != NPK_OK ||
        npk_write_symbol(f->m, "test_tokens", tokens, TF_CTX) != NPK_OK ||
        npk_write_symbol(f->m, "test_n_tokens", &n_tokens, 4) != NPK_OK ||
        npk_write_symbol(f->m, "test_n_generate", &n_generate, 4) != NPK_OK) {
        fprintf(stderr, "tf_sim_test: %s: %s\n", f->elf, npk_error(f->m));
        goto done;
    }
    if (npk_run(f->m, RUN_BUDGET, &stop) != NPK_OK) {
        fprintf(stderr, "tf_sim_test: %s: run failed: %s\n", f->elf, npk_error(f->m));
        goto done;
    }
    npk_stats st;
    if (npk_stats_get(f->m, &st) != NPK_OK) {
        fprintf(stderr, "tf_sim_test: %s: %s\n", f->elf, npk_error(f->m));
        goto done;
    }
    r->insns = st.insns;
    r->cycles = st.cycles;
    r->status = stop.reason == NPK_STOP_EXIT ? (int)(stop.exit_code & 0xFF) : -1;
    if (stop.reason != NPK_STOP_EXIT)
        printf("FAIL %s: the run did not exit: %s\n", f->elf, stop.message);
    if (read_global(f->m, "tf_kcache", r->state.k, sizeof r->state.k) != 0 ||
        read_global(f->m, "tf_vcache", r->state.v, sizeof r->state.v) != 0 ||
        read_global(f->m, "tf_x", r->state.x, sizeof r->state.x) != 0)
        goto done;
    fflush(out);
    rewind(out);
    r->len = fread(r->out, 1, sizeof r->out, out);
    rc = 0;
done:
    npk_set_output(f->m, stdout, stderr);
    fclose(out);
    return rc;
}

/* Runs f on the inputs and compares with the reference; `want_gen` >= 0 also checks the
 * number of generated bytes against the spec's rule, and `what` names the case. Returns -1
 * on a setup error, else 0 (failures are counted). */
static int check_run(fw *f, const char *what, const uint8_t tokens[TF_CTX], int32_t n_tokens,
                     int32_t n_generate, int want_status, int want_gen, run_result *r)
{
    uint8_t ref[TF_REF_MAX_OUTPUT];
    int ref_status;
    static tf_ref_state rs;
    size_t ref_len = tf_ref_run(g_w, f->plain ? TF_REF_PLAIN : TF_REF_NPU, tokens, n_tokens,
                                n_generate, ref, &ref_status, NULL, &rs);
    if (run_fw(f, tokens, n_tokens, n_generate, r) != 0)
        return -1;
    int ok = r->status == ref_status && r->len == ref_len && !memcmp(r->out, ref, ref_len);
    char why[300] = "";
    if (!ok)
        snprintf(why, sizeof why, "differs from the reference (status %d vs %d, %zu vs %zu bytes)",
                 r->status, ref_status, r->len, ref_len);
    /* Beyond the text: every K and V the model computed, and the last residual stream, must
     * have the reference's exact bits (greedy text alone hides small numeric differences). */
    for (int l = 0; ok && l < TF_LAYERS; l++) {
        char name[32];
        snprintf(name, sizeof name, "tf_kcache[%d]", l);
        ok = same_bits(name, &r->state.k[l][0][0], &rs.k[l][0][0], (size_t)rs.positions * TF_DIM,
                       why, sizeof why);
        snprintf(name, sizeof name, "tf_vcache[%d]", l);
        ok = ok && same_bits(name, &r->state.v[l][0][0], &rs.v[l][0][0],
                             (size_t)rs.positions * TF_DIM, why, sizeof why);
    }
    if (ok && rs.positions > 0)
        ok = same_bits("tf_x", r->state.x, rs.x, TF_DIM, why, sizeof why);
    if (ok && want_status >= 0 && r->status != want_status) {
        ok = 0;
        snprintf(why, sizeof why, "exit status %d, the spec says %d", r->status, want_status);
    }
    if (ok && want_status == 1 && r->len != 0) {
        ok = 0;
        snprintf(why, sizeof why, "printed %zu bytes, the spec says nothing", r->len);
    }
    if (ok && want_gen >= 0) {
        size_t want_len = (size_t)n_tokens + 3 + (size_t)want_gen + 1;
        if (r->len != want_len || memcmp(r->out, tokens, (size_t)n_tokens) ||
            memcmp(r->out + n_tokens, "\n> ", 3) || r->out[r->len - 1] != '\n') {
            ok = 0;
            snprintf(why, sizeof why, "not prompt + \"\\n> \" + %d bytes + \"\\n\"", want_gen);
        }
    }
    if (!ok)
        g_failures++;
    if (!ok || !g_quiet) {
        printf("%s %s [%s]: %" PRIu64 " instructions, %" PRIu64 " cycles, status %d, %d positions: \"",
               ok ? "ok  " : "FAIL", f->elf, what, r->insns, r->cycles, r->status, rs.positions);
        print_escaped(r->out, r->len);
        printf("\"\n");
        if (!ok) {
            printf("     %s\n     reference: \"", why);
            print_escaped(ref, ref_len);
            printf("\"\n");
        }
    }
    return 0;
}

static int conventions(fw *f)
{
    static const char text[] = "Time flies like an arrow; fruit flies like a banana.";
    uint8_t tok[TF_CTX];
    memcpy(tok, text, TF_CTX);
    run_result r;
    struct { const char *what; int32_t n, gen; int status, want_gen; } cases[] = {
        {"test_n_tokens = 0: exit 1, no output", 0, 0, 1, -1},
        {"test_n_tokens = 33: exit 1, no output", 33, 0, 1, -1},
        {"test_n_tokens = -1: exit 1, no output", -1, 0, 1, -1},
        {"32-byte prompt: one generated byte", 32, 0, 0, 1},
        {"n_tokens 5, test_n_generate 3", 5, 3, 0, 3},
        {"n_tokens 1, test_n_generate 1", 1, 1, 0, 1},
        {"n_tokens 30, test_n_generate 100: 33 - 30 bytes", 30, 100, 0, 3},
        {"n_tokens 20, test_n_generate -7: fills the context", 20, -7, 0, 13},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (check_run(f, cases[i].what, tok, cases[i].n, cases[i].gen, cases[i].status,
                      cases[i].want_gen, &r) != 0)
            return -1;
    return 0;
}

static int add_prompt(char **prompts, int *n, const char *p, size_t len)
{
    if (len < 1 || len > TF_CTX) {
        fprintf(stderr, "tf_sim_test: prompt \"%.*s\" must be 1..%d bytes\n", (int)len, p, TF_CTX);
        return -1;
    }
    if (*n >= MAX_PROMPTS) {
        fprintf(stderr, "tf_sim_test: more than %d prompts\n", MAX_PROMPTS);
        return -1;
    }
    prompts[*n] = calloc(TF_CTX + 1, 1);
    if (!prompts[*n]) {
        fprintf(stderr, "tf_sim_test: out of memory\n");
        return -1;
    }
    memcpy(prompts[(*n)++], p, len);
    return 0;
}

int main(int argc, char **argv)
{
    const char *weights = NULL;
    fw *fws[MAX_FW];
    int n_fw = 0, n_prompts = 0, do_conv = 0, max_prompts = MAX_PROMPTS;
    long n_generate = 0;
    char *prompts[MAX_PROMPTS];
    int rc = 2;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--conventions")) {
            do_conv = 1;
        } else if (!strcmp(a, "--quiet")) {
            g_quiet = 1;
        } else if (!v && (!strcmp(a, "--weights") || !strcmp(a, "--fw") || !strcmp(a, "--prompts") ||
                          !strcmp(a, "--prompt") || !strcmp(a, "--generate") ||
                          !strcmp(a, "--max-prompts"))) {
            fprintf(stderr, "tf_sim_test: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--weights")) {
            weights = argv[++i];
        } else if (!strcmp(a, "--generate") || !strcmp(a, "--max-prompts")) {
            char *end;
            errno = 0;
            long x = strtol(v, &end, 10);
            if (errno || *end || end == v || x < -1000000 || x > 1000000 ||
                (a[2] == 'm' && x < 1)) {
                fprintf(stderr, "tf_sim_test: bad %s value '%s'\n", a, v);
                return 2;
            }
            if (a[2] == 'g')
                n_generate = x;
            else
                max_prompts = (int)x;
            i++;
        } else if (!strcmp(a, "--prompt")) {
            if (add_prompt(prompts, &n_prompts, v, strlen(v)) != 0)
                return 2;
            i++;
        } else if (!strcmp(a, "--prompts")) {
            uint8_t *data;
            size_t size;
            if (read_file(v, &data, &size) != 0)
                return 2;
            for (size_t s = 0; s < size;) {
                size_t e = s;
                while (e < size && data[e] != '\n')
                    e++;
                if (add_prompt(prompts, &n_prompts, (const char *)data + s, e - s) != 0) {
                    free(data);
                    return 2;
                }
                s = e + 1;
            }
            free(data);
            i++;
        } else if (!strcmp(a, "--fw")) {
            if (n_fw == MAX_FW) {
                fprintf(stderr, "tf_sim_test: at most %d --fw\n", MAX_FW);
                return 2;
            }
            fw *f = calloc(1, sizeof *f);
            char *spec = malloc(strlen(v) + 1);
            if (spec)
                memcpy(spec, v, strlen(v) + 1);
            if (!f || !spec) {
                fprintf(stderr, "tf_sim_test: out of memory\n");
                return 2;
            }
            f->rev = "seed";
            f->elf = spec;
            char *p = strchr(spec, ',');
            if (p)
                *p++ = '\0';
            while (p) {
                char *item = p;
                p = strchr(p, ',');
                if (p)
                    *p++ = '\0';
                if (!strcmp(item, "plain"))
                    f->plain = 1;
                else if (!strcmp(item, "rev=seed") || !strcmp(item, "rev=rev2"))
                    f->rev = item + 4;
                else {
                    fprintf(stderr, "tf_sim_test: unknown --fw item '%s' (plain, rev=seed|rev2)\n", item);
                    return 2;
                }
            }
            fws[n_fw++] = f;
            i++;
        } else {
            fprintf(stderr, "tf_sim_test: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!weights || n_fw == 0) {
        usage(stderr);
        fprintf(stderr, "tf_sim_test: --weights and at least one --fw are required\n");
        return 2;
    }
    int n_all = n_prompts; /* all of them are freed at the end */
    if (n_prompts > max_prompts)
        n_prompts = max_prompts;
    if (n_prompts == 0 && !do_conv) {
        fprintf(stderr, "tf_sim_test: nothing to run: give prompts or --conventions\n");
        return 2;
    }

    tf_weights *w = malloc(sizeof *w);
    char err[512];

    if (!w) {
        fprintf(stderr, "tf_sim_test: out of memory\n");
        return 2;
    }
    if (tf_ref_load(weights, w, err, sizeof err) != 0) {
        fprintf(stderr, "tf_sim_test: %s\n", err);
        goto out;
    }
    g_w = w;

    for (int k = 0; k < n_fw; k++) {
        fw *f = fws[k];
        char cfg[64];
        snprintf(cfg, sizeof cfg, "isa_rev=%s", f->rev);
        if (npk_create(&f->m, "rvnpu", cfg, err, sizeof err) != NPK_OK) {
            fprintf(stderr, "tf_sim_test: npk_create(rvnpu, %s): %s\n", cfg, err);
            goto out;
        }
        if (read_file(f->elf, &f->image, &f->image_size) != 0)
            goto out;
    }

    if (do_conv && conventions(fws[0]) != 0)
        goto out;

    for (int k = 0; k < n_fw; k++) {
        fw *f = fws[k];
        for (int p = 0; p < n_prompts; p++) {
            uint8_t tok[TF_CTX] = {0};
            size_t len = strlen(prompts[p]);
            memcpy(tok, prompts[p], len);
            char what[64];
            snprintf(what, sizeof what, "prompt %d%s%s", p + 1, f->plain ? ", plain" : "",
                     strcmp(f->rev, "seed") ? ", rev2" : "");
            run_result r;
            if (check_run(f, what, tok, (int32_t)len, (int32_t)n_generate, 0, -1, &r) != 0)
                goto out;
            memcpy(f->out[p], r.out, r.len < TF_REF_MAX_OUTPUT ? r.len : TF_REF_MAX_OUTPUT);
            f->out_len[p] = r.len;
            f->insns_total += r.insns;
            f->cycles_total += r.cycles;
            f->runs++;
        }
    }

    if (n_prompts > 0) {
        printf("\nper prompt run (test_n_generate %ld), averaged over %d prompts:\n", n_generate,
               n_prompts);
        for (int k = 0; k < n_fw; k++)
            printf("  %-40s %s%s: %12.0f instructions, %12.0f cycles\n", fws[k]->elf,
                   fws[k]->plain ? "plain" : "NPU", strcmp(fws[k]->rev, "seed") ? " rev2" : "",
                   (double)fws[k]->insns_total / fws[k]->runs,
                   (double)fws[k]->cycles_total / fws[k]->runs);
        /* Builds against each other: NPU builds must agree exactly (they compute the same
         * bits); the plain build's binary32 arithmetic may pick other bytes: listed. */
        for (int k = 1; k < n_fw; k++) {
            int same = 0;
            for (int p = 0; p < n_prompts; p++) {
                int eq = fws[k]->out_len[p] == fws[0]->out_len[p] &&
                         !memcmp(fws[k]->out[p], fws[0]->out[p], fws[0]->out_len[p]);
                same += eq;
                if (!eq && fws[k]->plain == fws[0]->plain) {
                    printf("FAIL prompt %d: %s and %s disagree\n", p + 1, fws[0]->elf, fws[k]->elf);
                    g_failures++;
                }
                if (!eq && fws[k]->plain != fws[0]->plain)
                    printf("  prompt %d: %s and %s print different text\n", p + 1,
                           fws[0]->elf, fws[k]->elf);
            }
            printf("  %s vs %s: identical output on %d of %d prompts\n", fws[k]->elf, fws[0]->elf,
                   same, n_prompts);
            if (fws[k]->plain != fws[0]->plain) {
                const fw *pl = fws[k]->plain ? fws[k] : fws[0], *np = fws[k]->plain ? fws[0] : fws[k];
                printf("  plain / NPU instructions: %.2f\n",
                       (double)pl->insns_total / (double)np->insns_total);
                if (pl->insns_total <= np->insns_total) {
                    printf("FAIL the plain build retired no more instructions than the NPU build\n");
                    g_failures++;
                }
            }
        }
    }
    printf("%d failure%s\n", g_failures, g_failures == 1 ? "" : "s");
    rc = g_failures ? 1 : 0;
out:
    for (int k = 0; k < n_fw; k++) {
        if (fws[k]->m)
            npk_destroy(fws[k]->m);
        free(fws[k]->image);
        free((char *)fws[k]->elf);
        free(fws[k]);
    }
    for (int p = 0; p < n_all; p++)
        free(prompts[p]);
    free(w);
    return rc;
}
