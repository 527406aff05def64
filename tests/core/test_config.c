/* Configuration strings: parsing, overrides, typed lookups, and the messages of rejections. */
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/machine.h"
#include "test.h"

int main(void)
{
    npk_config c;
    char err[256] = "";
    NPK_CHECK(npk_config_parse(&c, "K=8, L=32,top", "k=16", err, sizeof err) == NPK_OK);
    NPK_CHECK_EQ_U64(c.n, 3);
    NPK_CHECK_EQ_STR(npk_config_take(&c, "K"), "16"); /* later list overrides, keys fold case */
    NPK_CHECK_EQ_STR(npk_config_take(&c, "preset"), "top");
    NPK_CHECK(npk_config_take(&c, "missing") == NULL);
    npk_config_free(&c);

    NPK_CHECK(npk_config_parse(&c, "K=", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "expected key=value");
    NPK_CHECK(npk_config_parse(&c, "", NULL, err, sizeof err) == NPK_OK && c.n == 0);
    npk_config_free(&c);

    uint64_t v;
    NPK_CHECK(npk_parse_u64("64K", &v) == 0 && v == 65536);
    NPK_CHECK(npk_parse_u64("4MiB", &v) == 0 && v == 4u << 20);
    NPK_CHECK(npk_parse_u64("0x10", &v) == 0 && v == 16);
    NPK_CHECK(npk_parse_u64("0b101", &v) == 0 && v == 5);
    NPK_CHECK(npk_parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
    NPK_CHECK(npk_parse_u64("18446744073709551616", &v) != 0); /* 2^64 overflows */
    NPK_CHECK(npk_parse_u64("12x", &v) != 0);
    NPK_CHECK(npk_parse_u64("", &v) != 0);
    NPK_CHECK(npk_parse_u64("0x", &v) != 0);
    NPK_CHECK(npk_parse_u64("17179869184G", &v) != 0); /* 2^34 * 2^30 overflows */
    NPK_CHECK(npk_parse_u64("1T", &v) == 0 && v == UINT64_C(1) << 40);
    NPK_CHECK(npk_parse_u64("16777216T", &v) == -2); /* 2^24 * 2^40: well formed, too big */
    NPK_CHECK(npk_parse_u64("99999999999999999999", &v) == -2);
    NPK_CHECK(npk_parse_u64("99999999999999999999x", &v) == -1); /* malformed wins */

    /* Through a real target: each rejection names key, value and what is legal. */
    npk_machine *m;
    NPK_CHECK(npk_create(&m, "toy:mem=8", NULL, err, sizeof err) == NPK_ERR_ARG && !m);
    NPK_CHECK_CONTAINS(err, "mem=8 is out of range (legal: 16 .. 16777216)");
    NPK_CHECK(npk_create(&m, "toy", "mem=18", err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "not a multiple of 4");
    NPK_CHECK(npk_create(&m, "toy:speed=9", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "unknown setting 'speed'");
    NPK_CHECK(npk_create(&m, "toy:turbo", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "unknown preset or setting 'turbo'");
    NPK_CHECK(npk_create(&m, "toy:mem=lots", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "mem=lots is not a number");
    NPK_CHECK(npk_create(&m, "nosuch:K=8", NULL, err, sizeof err) == NPK_ERR_ARG);
    NPK_CHECK_CONTAINS(err, "unknown target 'nosuch' (known: toy");
    NPK_CHECK(npk_create(&m, "", NULL, err, sizeof err) == NPK_ERR_ARG);

    /* Absurd memory sizes (issue 13 defect 10): every target refuses them at npk_create,
     * before allocating, naming the setting, the size and the target's maximum. */
    static const struct {
        const char *spec, *msg;
    } huge[] = {
        {"rvnpu:ram_size=1T", "rvnpu: ram_size=1T (1099511627776 bytes) is larger than the 2 GiB "
                              "maximum"},
        {"rvnpu:ram_size=4G", "rvnpu: ram_size=4G (4294967296 bytes) is larger than the 2 GiB "
                              "maximum"},
        {"rvnpu:ram_size=0x80001000", "(2147487744 bytes) is larger than the 2 GiB maximum"},
        {"rvnpu:ram_size=99999999999999999999", "rvnpu: ram_size=99999999999999999999 (more than "
                                                "18446744073709551615 bytes) is larger than the "
                                                "2 GiB maximum"},
        {"toy:mem=1G", "toy: mem=1G (1073741824 bytes) is larger than the 16 MiB maximum"},
        {"opennpu:mem_size=1T", "opennpu: mem_size=1T (1099511627776 bytes) is larger than the "
                                "4 GiB maximum"},
        {"opennpu:mem_size=4294967297", "(4294967297 bytes) is larger than the 4 GiB maximum"},
        {"pccx:host_ddr_bytes=1T", "pccx: host_ddr_bytes=1T (1099511627776 bytes) is larger than "
                                   "the 4 GiB maximum"},
        {"tinytpu:ub_words=1G", "tinytpu: ub_words=1G (1073741824 words) is larger than the "
                                "32768-word maximum"},
        {"tinytpu:lanes=3,ub_words=65537", "tinytpu: ub_words=65537 (65537 words) is larger than "
                                           "the 65536-word maximum"},
    };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        m = NULL;
        err[0] = '\0';
        NPK_REPORT(npk_create(&m, huge[i].spec, NULL, err, sizeof err) == NPK_ERR_ARG && !m,
                   "%s: not refused with NPK_ERR_ARG\n", huge[i].spec);
        NPK_CHECK_CONTAINS(err, huge[i].msg);
        npk_destroy(m);
    }
    /* the maxima themselves are legal (rvnpu's 2 GiB is calloc'ed, so untouched pages cost
     * nothing; a failed allocation would be NPK_ERR_NOMEM, never a crash) */
    npk_status st = npk_create(&m, "toy:mem=16M", NULL, err, sizeof err);
    NPK_CHECK(st == NPK_OK);
    npk_destroy(m);
    st = npk_create(&m, "tinytpu:ub_words=32768", NULL, err, sizeof err);
    NPK_CHECK(st == NPK_OK);
    npk_destroy(m);

    NPK_CHECK(npk_create(&m, "TOY:mem=1K", NULL, err, sizeof err) == NPK_OK && m);
    if (m) {
        NPK_CHECK_EQ_STR(npk_config_string(m), "mem=1024");
        NPK_CHECK_EQ_STR(npk_target_of(m), "toy");
        npk_destroy(m);
    }
    /* Key recording: a lookup notes the key once (case-insensitively), found or not. */
    NPK_CHECK(npk_config_parse(&c, "a=1", NULL, err, sizeof err) == NPK_OK);
    c.record = 1;
    npk_config_take(&c, "a");
    npk_config_take(&c, "missing");
    npk_config_take(&c, "A");
    NPK_CHECK_EQ_U64(c.n_taken, 2);
    NPK_CHECK_EQ_STR(c.taken[0], "a");
    NPK_CHECK_EQ_STR(c.taken[1], "missing");
    npk_config_free(&c);
    NPK_CHECK(c.taken == NULL && c.n_taken == 0);

    /* The settings a target accepts, as its create() reads them: presets first, then KEY=. */
    char *names;
    NPK_CHECK(npk_target_setting_names("toy", &names, err, sizeof err) == NPK_OK);
    NPK_CHECK_EQ_STR(names, "mem=\n");
    free(names);
    NPK_CHECK(npk_target_setting_names("opennpu", &names, err, sizeof err) == NPK_OK);
    NPK_CHECK_EQ_STR(names, "test\ntop\nN=\nL=\nK=\nmem_size=\nmem_latency=\n");
    free(names);
    NPK_CHECK(npk_target_setting_names("pccx", &names, err, sizeof err) == NPK_OK);
    const char *head = "base\next\nstrict\nhw-compat\next=\nmode=\nhost_ddr_bytes=\n";
    NPK_CHECK(strncmp(names, head, strlen(head)) == 0);
    NPK_CHECK_CONTAINS(names, "\nlat_exp=\n"); /* built in a loop over the CVO functions */
    NPK_CHECK(strstr(names, "preset") == NULL);
    free(names);
    NPK_CHECK(npk_target_setting_names("nosuch", &names, err, sizeof err) == NPK_ERR_ARG &&
              !names);
    NPK_CHECK_CONTAINS(err, "unknown target 'nosuch' (known: toy");
    return npk_test_done();
}
