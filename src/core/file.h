/* The one reader of input files (programs, data for --load/--write, .include, network
 * descriptions): the CLI, npk_load_file and the assembler all read through it, so that every
 * command treats a FIFO, a device, a directory or a huge file the same way. */
#ifndef NPK_CORE_FILE_H
#define NPK_CORE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

/* How long a FIFO is waited for before it counts as having no writer. */
#define NPK_FIFO_WAIT_MS 2000

/* Read the whole of `path` ("-": standard input, read to its end) into a malloc'ed buffer
 * with a NUL byte after the data (*size excludes it). A regular file is read by its size; a
 * FIFO or pipe is read once a writer has written or hung up, waiting at most
 * NPK_FIFO_WAIT_MS; a directory, device or socket is refused without reading. More than
 * `cap` bytes is an error (cap 0: NPK_INPUT_MAX). On failure *data is NULL and err holds
 * "PATH: reason"; the status is NPK_ERR_IO (cannot open or read, wrong kind of file, no
 * writer), NPK_ERR_RANGE (over the cap) or NPK_ERR_NOMEM. */
npk_status npk_file_read(const char *path, size_t cap, uint8_t **data, size_t *size,
                         char *err, size_t err_size);

#endif
