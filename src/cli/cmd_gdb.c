/* `npukit gdb`: load firmware and serve it to one GDB session over TCP (the protocol is
 * src/debug/gdb.c). Listens on 127.0.0.1 unless --bind says otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "debug/gdb.h"

static void help(void)
{
    printf("usage: npukit gdb [--port N] [--bind ADDR] [-t TARGET] [options] FIRMWARE\n"
           "\n"
           "Load FIRMWARE (an rvnpu ELF) and serve it to one GDB session over the GDB remote\n"
           "serial protocol: breakpoints, watchpoints, stepping and continuing (also in\n"
           "reverse), registers (x0-x31, pc, f0-f31, fflags, frm, fcsr and the NPU's acc,\n"
           "facc, v0-v3), memory, Ctrl-C and 'monitor' commands (stats, reset, npu,\n"
           "isa-rev, help). Connect with\n"
           "  gdb-multiarch -ex 'target remote 127.0.0.1:PORT' FIRMWARE\n"
           "The port is printed on standard error once npukit listens; the firmware's own\n"
           "output goes to standard output.\n"
           "\n"
           "options:\n"
           "      --port N                TCP port (default 1234; 0: any free port)\n"
           "      --bind ADDR             numeric address to listen on (default 127.0.0.1;\n"
           "                              anything else gets a warning: the protocol has no\n"
           "                              authentication)\n"
           "  -t, --target NAME[:CONFIG]  target (rvnpu; may be omitted for an rvnpu ELF)\n"
           "      --config KEY=VAL,...    target settings (see 'npukit info -t rvnpu')\n"
           "      --isa-rev REV           isa_rev=REV   (seed or rev2)\n"
           "      --ram-size SIZE         ram_size=SIZE (RAM size, default 4M)\n"
           "      --fs-root DIR           fs_root=DIR   (sandbox for file syscalls)\n"
           "      --uart-in FILE|-        uart_in=FILE  (UART receive source)\n"
           "      --no-syscalls           syscalls=off  (every ECALL traps)\n"
           "  -h, --help                  this help\n"
           "\n"
           "One session: when GDB detaches, the firmware runs on to its end without the\n"
           "debugger; when GDB kills it or the connection closes, npukit ends.\n"
           "\n"
           "exit status:\n"
           "  the firmware's own exit status when it ended (under GDB or after a detach);\n"
           "  0 when the session ended with the firmware stopped (kill, connection closed);\n"
           "  125 could not start (bad option, file, target, address or port);\n"
           "  126 the firmware stopped on an unhandled fault after a detach\n");
}

enum {
    O_PORT = 1, O_BIND, O_TARGET, O_CONFIG, O_ISA_REV, O_RAM_SIZE, O_FS_ROOT, O_UART_IN,
    O_NO_SYSCALLS, O_HELP
};

static const npk_opt_def defs[] = {
    {O_PORT, 0, "port", OPT_VALUE},
    {O_BIND, 0, "bind", OPT_VALUE},
    {O_TARGET, 't', "target", OPT_VALUE},
    {O_CONFIG, 0, "config", OPT_VALUE},
    {O_ISA_REV, 0, "isa-rev", OPT_VALUE},
    {O_RAM_SIZE, 0, "ram-size", OPT_VALUE},
    {O_FS_ROOT, 0, "fs-root", OPT_VALUE},
    {O_UART_IN, 0, "uart-in", OPT_VALUE},
    {O_NO_SYSCALLS, 0, "no-syscalls", OPT_FLAG},
    {O_HELP, 'h', "help", OPT_FLAG},
    {0, 0, NULL, OPT_FLAG},
};

static int loopback(const char *a)
{
    return strcmp(a, "::1") == 0 || strncmp(a, "127.", 4) == 0;
}

int npk_gdb_port(const char *prog, const char *opt, const char *v, unsigned *port)
{
    char *end;
    errno = 0;
    unsigned long p = strtoul(v, &end, 10);
    if (!*v || *end || errno || p > 65535 || v[0] == '-')
        return npk_usage_error(prog, "%s %s: not a port number (0 to 65535)", opt, v), -1;
    *port = (unsigned)p;
    return 0;
}

const npk_gdb_target *npk_gdb_cli_target(const char *prog, const char *target)
{
    char tname[64];
    snprintf(tname, sizeof tname, "%.*s", (int)strcspn(target, ":"), target);
    const npk_gdb_target *gt = npk_gdb_target_for(tname);
    if (!gt)
        fprintf(stderr, "%s: target %s has no GDB register description (only rvnpu has one); "
                "debug it with 'npukit debug -t %s'\n", prog, tname, tname);
    return gt;
}

int npk_gdb_cli_serve(const char *prog, npk_machine *m, const npk_gdb_target *gt,
                      const char *bind_addr, unsigned port)
{
    char err[256];
    unsigned bound;
    int lfd = npk_gdb_listen(bind_addr, port, &bound, err, sizeof err);
    if (lfd < 0) {
        fprintf(stderr, "%s: cannot listen: %s\n", prog, err);
        return NPK_EXIT_NOSTART;
    }
    if (!loopback(bind_addr))
        fprintf(stderr, "%s: warning: listening on %s, not the loopback: anyone who can reach "
                "it can read and change the machine (the protocol has no authentication)\n",
                prog, bind_addr);
    fprintf(stderr, "%s: listening on %s%s%s:%u\n", prog, strchr(bind_addr, ':') ? "[" : "",
            bind_addr, strchr(bind_addr, ':') ? "]" : "", bound);
    fflush(stderr);
    int fd;
    do
        fd = accept(lfd, NULL, NULL);
    while (fd < 0 && errno == EINTR);
    close(lfd);
    if (fd < 0) {
        fprintf(stderr, "%s: accept: %s\n", prog, strerror(errno));
        return NPK_EXIT_NOSTART;
    }
    npk_gdb_result res;
    int rc = npk_gdb_serve(m, gt, fd, stdout, stderr, stderr, &res, err, sizeof err);
    close(fd);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return NPK_EXIT_NOSTART;
    }
    rc = NPK_EXIT_OK;
    npk_stop stop = res.stop;
    switch (res.end) {
    case NPK_GDB_DETACHED:
        if (!res.exited) {
            fprintf(stderr, "%s: detached; the firmware runs on\n", prog);
            if (npk_run(m, 0, &stop) != NPK_OK) {
                fprintf(stderr, "npukit: %s\n", npk_error(m));
                rc = NPK_EXIT_NOSTART;
                break;
            }
        }
        if (stop.reason == NPK_STOP_EXIT)
            rc = (int)(stop.exit_code & 0xff);
        else if (stop.reason == NPK_STOP_FAULT) {
            fprintf(stderr, "npukit: %s\n", stop.message);
            rc = NPK_EXIT_FAULT;
        }
        break;
    case NPK_GDB_EXITED:
    case NPK_GDB_KILLED:
    case NPK_GDB_CLOSED:
        if (res.end == NPK_GDB_KILLED)
            fprintf(stderr, "%s: killed by the debugger\n", prog);
        else
            fprintf(stderr, "%s: the debugger closed the connection\n", prog);
        if (res.exited)
            rc = (int)(stop.exit_code & 0xff);
        break;
    }
    fflush(stdout);
    return rc;
}

int npk_cmd_gdb(int argc, char **argv)
{
    const char *prog = "npukit gdb";
    npk_opt_state st = {argc, argv, 1, prog, 0};
    const char *v, *file = NULL, *target = NULL, *config = NULL, *bind_addr = "127.0.0.1";
    char settings[4096] = "";
    unsigned port = 1234;
    int id;
    while ((id = npk_opt_next(&st, defs, &v)) != -1) {
        int bad = 0;
        switch (id) {
        case -2: return NPK_EXIT_NOSTART;
        case 0:
            if (file)
                return npk_usage_error(prog, "one FIRMWARE only ('%s' and '%s')", file, v),
                       NPK_EXIT_NOSTART;
            file = v;
            break;
        case O_PORT:
            if (npk_gdb_port(prog, "--port", v, &port) != 0)
                return NPK_EXIT_NOSTART;
            break;
        case O_BIND: bind_addr = v; break;
        case O_TARGET: target = v; break;
        case O_CONFIG: config = v; break;
        case O_ISA_REV:
            bad = npk_add_setting(prog, settings, sizeof settings, "--isa-rev", "isa_rev", v, 0);
            break;
        case O_RAM_SIZE:
            bad = npk_add_setting(prog, settings, sizeof settings, "--ram-size", "ram_size", v,
                                  0);
            break;
        case O_FS_ROOT:
            bad = npk_add_setting(prog, settings, sizeof settings, "--fs-root", "fs_root", v, 0);
            break;
        case O_UART_IN:
            bad = npk_add_setting(prog, settings, sizeof settings, "--uart-in", "uart_in", v, 0);
            break;
        case O_NO_SYSCALLS:
            bad = npk_add_setting(prog, settings, sizeof settings, "--no-syscalls", "syscalls",
                                  "off", 0);
            break;
        case O_HELP: help(); return NPK_EXIT_OK;
        default: break;
        }
        if (bad)
            return NPK_EXIT_NOSTART;
    }
    if (!file)
        return npk_usage_error(prog, "no FIRMWARE given"), NPK_EXIT_NOSTART;

    uint8_t *data;
    size_t size;
    if (npk_read_file(file, &data, &size) != 0)
        return NPK_EXIT_NOSTART;
    if (!target)
        target = npk_guess_target(data, size);
    if (!target) {
        char why[160] = "";
        npk_describe_no_target(data, size, file, why, sizeof why);
        fprintf(stderr, "%s: %sno target: give -t rvnpu\n", prog, why);
        free(data);
        return NPK_EXIT_NOSTART;
    }
    const npk_gdb_target *gt = npk_gdb_cli_target(prog, target);
    if (!gt) {
        free(data);
        return NPK_EXIT_NOSTART;
    }
    char cfg[8192];
    const char *joined = npk_join_settings(cfg, sizeof cfg, config, settings);
    npk_machine *m = npk_cli_machine(prog, target, joined);
    if (!m) {
        free(data);
        return NPK_EXIT_NOSTART;
    }
    const char *in_name = strcmp(file, "-") == 0 ? "<stdin>" : file;
    npk_status loaded = npk_load_bytes(m, data, size, in_name, stderr);
    free(data);
    if (loaded != NPK_OK) {
        if (npk_error(m)[0])
            fprintf(stderr, "npukit: %s\n", npk_error(m));
        npk_destroy(m);
        return NPK_EXIT_NOSTART;
    }

    int rc = npk_gdb_cli_serve(prog, m, gt, bind_addr, port);
    npk_destroy(m);
    return rc;
}
