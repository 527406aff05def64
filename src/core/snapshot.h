/* Snapshots (docs/snapshot.md): the writer and reader a target's snapshot hooks use for their
 * tagged, length-prefixed sections. The core writes the header, its own sections (statistics,
 * symbols) and the checksum, and restores in two passes over the same hook: a dry run that
 * validates everything, then the pass that writes, so a bad snapshot never half-loads. */
#ifndef NPK_CORE_SNAPSHOT_H
#define NPK_CORE_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/npukit.h"

/* Bump whenever any section's layout or meaning changes. */
#define NPK_SNAPSHOT_FORMAT 1u
/* Memory sections store runs of 4 KiB blocks that are not all zero. */
#define NPK_SNAPSHOT_BLOCK 4096u

typedef struct npk_snap_writer {
    uint8_t *buf;
    size_t len, cap;
    size_t section_start;     /* offset of the open section's length field, 0: none open */
    int nomem;
} npk_snap_writer;

/* Open a section with a 4-character tag ("CPU ", "MEM "), append to it, close it. */
void npk_snap_begin(npk_snap_writer *w, const char tag[4]);
void npk_snap_u8(npk_snap_writer *w, uint8_t v);
void npk_snap_u32(npk_snap_writer *w, uint32_t v);
void npk_snap_u64(npk_snap_writer *w, uint64_t v);
void npk_snap_bytes(npk_snap_writer *w, const void *p, size_t n);
void npk_snap_end(npk_snap_writer *w);
/* A whole "MEM " section for memory `name` of `size` bytes (sparse: zero blocks left out). */
void npk_snap_mem(npk_snap_writer *w, const char *name, const uint8_t *data, uint64_t size);

typedef struct npk_snap_section {
    char tag[5];
    const uint8_t *data;
    uint64_t len;
    int used;
} npk_snap_section;

typedef struct npk_snap_reader {
    npk_machine *m;
    const char *name;         /* the snapshot's name in messages (a path or "snapshot") */
    npk_snap_section *sec;
    size_t n_sec;
    int apply;                /* 0: the validating dry run (write nothing); 1: write */
} npk_snap_reader;

/* Reading one section's payload in order; a read past its end sets `bad`. */
typedef struct npk_snap_cursor {
    const uint8_t *p;
    uint64_t left;
    int bad;
} npk_snap_cursor;

/* The first unused section with `tag`, as a cursor, marked used; NPK_ERR_FORMAT naming the
 * snapshot and the tag when there is none. */
npk_status npk_snap_section_get(npk_snap_reader *r, const char tag[4], npk_snap_cursor *c);
uint8_t npk_snap_get_u8(npk_snap_cursor *c);
uint32_t npk_snap_get_u32(npk_snap_cursor *c);
uint64_t npk_snap_get_u64(npk_snap_cursor *c);
void npk_snap_get_bytes(npk_snap_cursor *c, void *out, size_t n);
/* After the last field: NPK_OK when the section was exactly that long, else NPK_ERR_FORMAT. */
npk_status npk_snap_section_done(npk_snap_reader *r, const char tag[4],
                                 const npk_snap_cursor *c);
/* The "MEM " section of memory `name`: checks it fits `size` bytes and, in the applying
 * pass, writes it over data (blocks it leaves out become zero; blocks already zero are not
 * touched, so a large untouched calloc'ed memory stays unmapped). `changed`, if non-NULL, is
 * called for every range written or zeroed (a target drops cached decodes there). */
npk_status npk_snap_mem_restore(npk_snap_reader *r, const char *name, uint8_t *data,
                                uint64_t size,
                                void (*changed)(void *ctx, uint64_t off, uint64_t len),
                                void *ctx);
/* A failed check of a section's contents: "NAME: section 'TAG': WHY" (printf-style). */
npk_status npk_snap_bad(npk_snap_reader *r, const char tag[4], const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of n bytes, continuing from crc. */
uint32_t npk_crc32(uint32_t crc, const uint8_t *p, size_t n);

#endif
