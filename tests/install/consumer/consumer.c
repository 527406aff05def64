/* A program outside npukit that uses only the installed package: built by tests/install with
 * pkg-config and with find_package(npukit). It checks the linked library's version, runs a toy
 * program (sum 1..10 through the assembler and simulator), a pccx host-API call, and the model
 * API's ONNX reader on bytes that are no model (linking the static library so needs what
 * npukit.pc's Libs.private and the CMake package name: libprotobuf-c). */
#include <npukit/model.h>
#include <npukit/npukit.h>
#include <npukit/pccx.h>
#include <stdio.h>
#include <string.h>

static const char prog[] = "        li   r1, 10\n"
                           "        li   r2, 0\n"
                           "loop:   add  r2, r2, r1\n"
                           "        addi r1, r1, -1\n"
                           "        bne  r1, r0, loop\n"
                           "        exit r2\n";

int main(void)
{
    if (strcmp(npk_version(), NPK_VERSION_STRING) != 0) {
        printf("FAIL: library %s, headers %s\n", npk_version(), NPK_VERSION_STRING);
        return 1;
    }
    npk_machine *m;
    char err[256];
    if (npk_create(&m, "toy:mem=4K", NULL, err, sizeof err) != NPK_OK) {
        printf("FAIL: %s\n", err);
        return 1;
    }
    npk_stop stop;
    if (npk_load_asm(m, prog, "sum.s", stderr) != NPK_OK || npk_run(m, 1000, &stop) != NPK_OK ||
        stop.reason != NPK_STOP_EXIT) {
        printf("FAIL: %s\n", npk_error(m));
        npk_destroy(m);
        return 1;
    }
    npk_destroy(m);

    pccx_t *c;
    if (pccx_init(&c, NULL) != PCCX_OK) {
        printf("FAIL: pccx_init\n");
        return 1;
    }
    int sync = pccx_sync(c, 0);
    pccx_deinit(c);

    npk_nn *nn;
    npk_status st = npk_nn_open_buffer(&nn, "\x0a\xff", 2, "junk", err, sizeof err);
    if (st != (npk_nn_supported() ? NPK_ERR_FORMAT : NPK_ERR_UNSUPPORTED) || nn) {
        printf("FAIL: npk_nn_open_buffer of junk: %s (%s)\n", npk_status_name(st), err);
        return 1;
    }

    printf("npukit %s: toy sum 1..10 = %lld, pccx sync %d\n", npk_version(),
           (long long)stop.exit_code, sync);
    return stop.exit_code == 55 && sync == PCCX_OK ? 0 : 1;
}
