/* bench/rvnpu compute firmware: a CoreMark-like integer mix (linked-list work, small matrix
 * operations, a state machine, CRC) of our own. It prints one checksum line so that npukit
 * and qemu-riscv32 can be checked to have computed the same thing, then exits 0. */
#include <stdint.h>

#include "syscalls.h"

/* Data the loop writes lives on its own 4 KiB pages, away from the code: the SDK links code and
 * data into one RWX segment, and qemu-user (the bench's reference) retranslates a code page on
 * every store into it, which made qemu ~10x slower on this firmware. */
#define DATA_PAGE __attribute__((aligned(4096)))

#ifndef ITERATIONS
#define ITERATIONS 400
#endif

/* ---- CRC-16/CCITT, bit by bit (branchy on purpose, like CoreMark's crcu8) ---- */
static uint16_t crc16(uint16_t crc, uint32_t v, int bytes)
{
    for (int b = 0; b < bytes; b++) {
        crc ^= (uint16_t)((v >> (8 * b)) & 0xff) << 8;
        for (int i = 0; i < 8; i++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

/* ---- linked list: build, reverse, find, insertion-sort by key ---- */
#define NODES 64
typedef struct node {
    struct node *next;
    int16_t key;
    int16_t val;
} node;

static node pool[NODES] DATA_PAGE;

static node *list_build(uint32_t seed)
{
    node *head = 0;
    for (int i = 0; i < NODES; i++) {
        seed = seed * 1103515245u + 12345u;
        pool[i].key = (int16_t)((seed >> 16) & 0x3ff);
        pool[i].val = (int16_t)i;
        pool[i].next = head;
        head = &pool[i];
    }
    return head;
}

static node *list_reverse(node *h)
{
    node *prev = 0;
    while (h) {
        node *n = h->next;
        h->next = prev;
        prev = h;
        h = n;
    }
    return prev;
}

static node *list_sort(node *h)
{
    node *sorted = 0;
    while (h) {
        node *n = h->next, **p = &sorted;
        while (*p && (*p)->key <= h->key)
            p = &(*p)->next;
        h->next = *p;
        *p = h;
        h = n;
    }
    return sorted;
}

static uint16_t list_work(uint32_t seed, uint16_t crc)
{
    node *h = list_sort(list_reverse(list_build(seed)));
    int found = 0;
    for (node *p = h; p; p = p->next) {
        if ((p->key & 7) == (int)(seed & 7))
            found++;
        crc = crc16(crc, (uint32_t)(uint16_t)p->key, 2);
    }
    return crc16(crc, (uint32_t)found, 1);
}

/* ---- matrix: C = A*B + bias, then column maxima and a masked sum ---- */
#define MN 12
static int16_t ma[MN][MN] DATA_PAGE, mb[MN][MN] DATA_PAGE;
static int32_t mc[MN][MN] DATA_PAGE;

static uint16_t matrix_work(uint32_t seed, uint16_t crc)
{
    for (int i = 0; i < MN; i++)
        for (int j = 0; j < MN; j++) {
            seed = seed * 1664525u + 1013904223u;
            ma[i][j] = (int16_t)((int32_t)(seed >> 20) - 2048);
            mb[i][j] = (int16_t)((int32_t)((seed >> 8) & 0xfff) - 2048);
        }
    for (int i = 0; i < MN; i++)
        for (int j = 0; j < MN; j++) {
            int32_t s = i - j;
            for (int k = 0; k < MN; k++)
                s += (int32_t)ma[i][k] * mb[k][j];
            mc[i][j] = s;
        }
    int32_t total = 0;
    for (int j = 0; j < MN; j++) {
        int32_t mx = mc[0][j];
        for (int i = 1; i < MN; i++)
            if (mc[i][j] > mx)
                mx = mc[i][j];
        total += mx >> 4;
        for (int i = 0; i < MN; i++)
            if (mc[i][j] & 0x10)
                total ^= mc[i][j];
    }
    return crc16(crc, (uint32_t)total, 4);
}

/* ---- state machine: classify tokens of a generated string ---- */
enum { S_START, S_INT, S_FRAC, S_EXP, S_SIGN, S_ERR, S_N };

static uint16_t state_work(uint32_t seed, uint16_t crc)
{
    static const char alphabet[] = "0123456789+-.eE,x 19";
    char text[96];
    for (int i = 0; i < (int)sizeof text; i++) {
        seed = seed * 1103515245u + 12345u;
        text[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    uint32_t counts[S_N] = {0};
    int st = S_START;
    for (int i = 0; i < (int)sizeof text; i++) {
        char c = text[i];
        if (c == ',' || c == ' ') {
            counts[st]++;
            st = S_START;
            continue;
        }
        int digit = c >= '0' && c <= '9';
        switch (st) {
        case S_START: st = digit ? S_INT : (c == '+' || c == '-') ? S_SIGN : c == '.' ? S_FRAC : S_ERR; break;
        case S_SIGN: st = digit ? S_INT : c == '.' ? S_FRAC : S_ERR; break;
        case S_INT: st = digit ? S_INT : c == '.' ? S_FRAC : (c == 'e' || c == 'E') ? S_EXP : S_ERR; break;
        case S_FRAC: st = digit ? S_FRAC : (c == 'e' || c == 'E') ? S_EXP : S_ERR; break;
        case S_EXP: st = digit ? S_EXP : S_ERR; break;
        default: break;
        }
    }
    counts[st]++;
    for (int s = 0; s < S_N; s++)
        crc = crc16(crc, counts[s], 2);
    return crc;
}

static void print_hex(const char *label, uint32_t v)
{
    char buf[32];
    int n = 0;
    while (*label)
        buf[n++] = *label++;
    for (int i = 7; i >= 0; i--)
        buf[n++] = "0123456789abcdef"[(v >> (4 * i)) & 0xf];
    buf[n++] = '\n';
    write(1, buf, n);
}

int main(void)
{
    uint16_t crc = 0xffff;
    for (uint32_t it = 0; it < ITERATIONS; it++) {
        crc = list_work(it * 7919u + 1, crc);
        crc = matrix_work(it * 104729u + 3, crc);
        crc = state_work(it * 1299709u + 5, crc);
    }
    print_hex("compute checksum 0x", crc);
    return 0;
}
