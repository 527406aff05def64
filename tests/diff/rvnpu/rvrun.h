/* rvnpu differential test: run one generated ELF under qemu-riscv32 (a child process) or
 * under npukit's rvnpu (in-process, through the public API) and capture its stdout. */
#ifndef NPK_RVRUN_H
#define NPK_RVRUN_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

#define RVR_QEMU_PACKAGE "qemu-user"

/* Find qemu-riscv32: $RVNPU_QEMU if set, else the first qemu-riscv32 on $PATH. Returns 0 and
 * fills path, or -1 after printing what to install. */
int rvr_find_qemu(char *path, size_t n);

/* Run `elf_path` under qemu; *out (malloc'd) gets its stdout, *status its wait status turned
 * into an exit code (128 + signal for a signal). Returns 0 if the process could be run. */
int rvr_qemu(const char *qemu, const char *elf_path, uint8_t **out, size_t *nout, int *status);

/* Run an ELF image in `m` (reset first) with an instruction budget. *out gets guest stdout.
 * *insns receives the retired-instruction count. Returns 0 if the run itself worked. */
int rvr_npukit(npk_machine *m, const uint8_t *elf, size_t n, uint64_t budget, uint8_t **out,
               size_t *nout, npk_stop *stop, uint64_t *insns);

/* Write bytes to a file; 0 on success. */
int rvr_write_file(const char *path, const uint8_t *b, size_t n);

#endif
