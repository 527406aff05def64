/* The register lists of every target (docs/state.md): names unique without regard to case (a
 * lookup must find one register), widths from 1 bit, every register readable by its name with
 * the call its width calls for, and a walk over the list by name linear in time (the lookup
 * starts where the last one ended). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "npukit/npukit.h"
#include "test.h"

static void check_target(const char *spec)
{
    npk_machine *m = NULL;
    char err[256];
    if (npk_create(&m, spec, NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s: %s\n", spec, err);
        npk_test_fail++;
        return;
    }
    size_t n = npk_reg_count(m);
    NPK_REPORT(n > 0, "%s: no registers\n", spec);
    for (size_t i = 0; i < n; i++) {
        const npk_reg_info *r = npk_reg(m, i);
        NPK_REPORT(r->bits >= 1 && r->name[0], "%s: register %zu\n", spec, i);
        for (size_t j = i + 1; j < n; j++)
            NPK_REPORT(strcasecmp(r->name, npk_reg(m, j)->name) != 0,
                       "%s: %s and %s are one name\n", spec, r->name, npk_reg(m, j)->name);
        uint8_t b[1024];
        size_t nb = (r->bits + 7) / 8;
        NPK_REPORT(nb <= sizeof b && npk_reg_read_bytes(m, r->name, b, nb) == NPK_OK,
                   "%s: read %s: %s\n", spec, r->name, npk_error(m));
        uint64_t v;
        npk_status st = npk_reg_read(m, r->name, &v);
        NPK_REPORT(r->bits <= 64 ? st == NPK_OK : st == NPK_ERR_RANGE, "%s: %s: %s\n", spec,
                   r->name, npk_status_name(st));
        if (r->bits <= 64 && st == NPK_OK) {
            uint64_t w = 0;
            for (size_t k = 0; k < nb; k++)
                w |= (uint64_t)b[k] << 8 * k;
            NPK_REPORT(w == v, "%s: %s reads differently as bytes\n", spec, r->name);
        }
    }
    npk_destroy(m);
}

/* tinytpu at N = 128: 117,000 registers; reading them all by name in list order must not
 * search the list for each (a quadratic walk takes minutes) */
static void check_walk(void)
{
    npk_machine *m = NULL;
    char err[256];
    if (npk_create(&m, "tinytpu:lanes=128", NULL, err, sizeof err) != NPK_OK) {
        fprintf(stderr, "%s\n", err);
        npk_test_fail++;
        return;
    }
    size_t n = npk_reg_count(m);
    NPK_CHECK_EQ_U64(n, 43 + 20 * 128 + 7 * 128 * 128);
    clock_t t0 = clock();
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        ok &= npk_reg_read(m, npk_reg(m, i)->name, &v) == NPK_OK;
    }
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    NPK_CHECK(ok);
    NPK_REPORT(s < 2.0, "reading %zu registers by name took %.1f s\n", n, s);
    npk_destroy(m);
}

int main(void)
{
    static const char *const specs[] = {"toy", "rvnpu", "opennpu", "opennpu:K=64,L=4",
                                        "tinytpu", "tinytpu:lanes=3", "pccx"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        check_target(specs[i]);
    check_walk();
    return npk_test_done();
}
