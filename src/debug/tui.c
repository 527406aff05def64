/* `npukit debug`'s full-screen UI (ncurses). Every panel is one view of debugger.h rendered
 * into a memory stream and drawn clipped to its rectangle: registers (changed ones, marked
 * '*' by the view, highlighted), the NPU or engine state, the disassembly around pc, memory
 * (the `x` command with a type the user cycles), the guest's output, statistics, and a log of
 * the commands typed on the command line with their output. The whole screen is redrawn
 * after each key, so a resize needs nothing but the next redraw. */
#define _POSIX_C_SOURCE 200809L
#include "debug/tui.h"

#include <stdio.h>
#include <string.h>

#ifndef NPK_HAVE_CURSES

int npk_tui_available(void) { return 0; }

int npk_tui_run(npk_debugger *d, npk_machine *m, const char *title, volatile int *intr,
                char *err, size_t n)
{
    (void)d;
    (void)m;
    (void)title;
    (void)intr;
    snprintf(err, n, "this npukit was built without ncurses, so it has no full-screen UI "
                     "(the line mode works; install libncurses-dev and rebuild for it)");
    return -1;
}

#else

#include <curses.h>
#include <stdlib.h>
#include <unistd.h>

#define MIN_W 60          /* below this size: "terminal too small" */
#define MIN_H 16
#define LOG_MAX 65536     /* bytes of the command log kept */
#define HIST 32           /* command lines remembered (Up/Down) */
#define CMD_MAX 256

typedef struct text {
    char *buf;
    size_t len;
} text;

typedef struct ui {
    npk_debugger *d;
    npk_machine *m;
    const char *title;
    volatile int *intr;
    char *log;                 /* "(npk) LINE" and the output of each command */
    size_t log_len;
    int log_scroll;            /* lines up from the end */
    int reg_scroll;            /* lines down from the first */
    char cmd[CMD_MAX];
    size_t cmd_len;
    int typing;                /* keys go to the command line */
    char hist[HIST][CMD_MAX];
    int n_hist, hist_at;
    char mem_fmt[16];          /* the memory panel: x/FMT REF */
    char mem_ref[128];
    const char *busy;          /* the command running, for the key bar */
    attr_t hl;                 /* changed registers */
} ui;

/* ---- text ---------------------------------------------------------------------------- */

enum { V_WHERE, V_REGS, V_NPU, V_DISASM, V_MEM, V_OUTPUT, V_STATS };

static void mem_view(ui *u, unsigned rows, FILE *f)
{
    unsigned per = strcmp(u->mem_fmt, "x") == 0 ? 16 : 8;
    char err[512] = "", cmd[CMD_MAX + 64];
    /* a window that runs past the end of the memory shrinks until it fits */
    for (unsigned long count = (unsigned long)(rows ? rows : 1) * per; count > 0; count /= 2) {
        snprintf(cmd, sizeof cmd, "x/%s %s %lu", u->mem_fmt, u->mem_ref, count);
        if (npk_debugger_exec(u->d, cmd, f, err, sizeof err) == 0)
            return;
    }
    fprintf(f, "%s\n", err);
}

/* One view into t (t->buf NULL when no memory stream could be opened; free it after). */
static void render(ui *u, int view, unsigned arg, text *t)
{
    t->buf = NULL;
    t->len = 0;
    FILE *f = open_memstream(&t->buf, &t->len);
    if (!f)
        return;
    char err[512] = "";
    switch (view) {
    case V_WHERE: npk_debugger_view_where(u->d, f); break;
    case V_REGS: npk_debugger_view_regs_width(u->d, arg, f); break;
    case V_NPU: npk_debugger_view_npu(u->d, f); break;
    case V_DISASM:
        if (npk_debugger_view_disasm(u->d, arg, f, err, sizeof err) != 0)
            fprintf(f, "%s\n", err);
        break;
    case V_MEM: mem_view(u, arg, f); break;
    case V_OUTPUT: npk_debugger_view_output(u->d, f); break;
    case V_STATS:
        if (npk_debugger_view_stats(u->d, f) != 0)
            fprintf(f, "%s\n", npk_error(u->m));
        break;
    }
    fclose(f);
}

static int count_lines(const char *s, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\n' || i + 1 == len)
            n++;
    return n;
}

static int widest_line(const char *s, size_t len)
{
    int most = 0, cur = 0;
    for (size_t i = 0; i < len; i++, cur++)
        if (s[i] == '\n') {
            most = cur > most ? cur : most;
            cur = -1;
        }
    return cur > most ? cur : most;
}

/* Line k of s (0-based): its start and length. */
static const char *line_at(const char *s, size_t len, int k, size_t *ll)
{
    size_t i = 0;
    for (; k > 0 && i < len; i++)
        if (s[i] == '\n')
            k--;
    size_t e = i;
    while (e < len && s[e] != '\n')
        e++;
    *ll = e - i;
    return s + i;
}

static void log_add(ui *u, const char *s, size_t len)
{
    if (len > LOG_MAX)
        s += len - LOG_MAX, len = LOG_MAX;
    if (u->log_len + len > LOG_MAX) {   /* drop the oldest lines */
        size_t drop = u->log_len + len - LOG_MAX;
        while (drop < u->log_len && u->log[drop - 1] != '\n')
            drop++;
        memmove(u->log, u->log + drop, u->log_len - drop);
        u->log_len -= drop;
    }
    char *p = realloc(u->log, u->log_len + len + 1);
    if (!p)
        return;
    u->log = p;
    memcpy(u->log + u->log_len, s, len);
    u->log_len += len;
}

/* ---- drawing ------------------------------------------------------------------------- */

/* The cells of a registers line that end in '*' (changed): the name and the value. */
static void changed_cells(const char *s, size_t len, char *mask, size_t mn)
{
    memset(mask, 0, mn);
    for (size_t p = 0; p < len && p < mn; p++) {
        if (s[p] != '*')
            continue;
        size_t j = p, k;
        while (j > 0 && s[j - 1] != ' ')
            j--;
        memset(mask + j, 1, p + 1 - j);
        for (k = j; k > 0 && s[k - 1] == ' '; k--)
            ;
        size_t e = k;
        while (k > 0 && s[k - 1] != ' ')
            k--;
        memset(mask + k, 1, e - k);
    }
}

/* One line at y, x in at most w columns: tabs as blanks, other control characters and
 * non-ASCII bytes as '?'; with stars, changed register cells in attribute hl. */
static void put_line(int y, int x, int w, const char *s, size_t len, int stars, attr_t hl)
{
    char mask[1024];
    if (stars)
        changed_cells(s, len, mask, sizeof mask);
    move(y, x);
    int col = 0;
    for (size_t i = 0; i < len && col < w; i++) {
        unsigned char c = (unsigned char)s[i];
        attr_t a = stars && i < sizeof mask && mask[i] ? hl : A_NORMAL;
        if (c == '\t') {
            do
                addch(' ' | a);
            while (++col < w && col % 8);
            continue;
        }
        addch((c < 32 || c > 126 ? '?' : c) | a);
        col++;
    }
}

enum { TOP, BOTTOM, AT_PC };

/* A panel: a title bar and the lines of t from the first (TOP, scroll lines down), the last
 * (BOTTOM, scroll lines up) or around the line starting "=>" (AT_PC). The title says which
 * lines show when not all fit. */
static void panel(int y, int x, int h, int w, const char *title, const text *t, int mode,
                  int *scroll, int stars, attr_t hl)
{
    if (h <= 0 || w <= 0)
        return;
    const char *s = t->buf ? t->buf : "";
    size_t len = t->buf ? t->len : 0;
    int n = count_lines(s, len), rows = h - 1, first = 0, most = n > rows ? n - rows : 0;
    if (mode == AT_PC) {
        for (int k = 0; k < n; k++) {
            size_t ll;
            const char *l = line_at(s, len, k, &ll);
            if (ll >= 2 && l[0] == '=' && l[1] == '>' && k >= rows)
                first = k - rows / 2;
        }
    } else if (scroll) {
        if (*scroll > most)
            *scroll = most;
        if (*scroll < 0)
            *scroll = 0;
        first = mode == TOP ? *scroll : most - *scroll;
    } else if (mode == BOTTOM)
        first = most;
    if (first > most)
        first = most;
    char bar[256];
    if (n > rows)
        snprintf(bar, sizeof bar, " %s  [%d-%d of %d] ", title, first + 1,
                 first + rows < n ? first + rows : n, n);
    else
        snprintf(bar, sizeof bar, " %s ", title);
    attron(A_REVERSE);
    mvhline(y, x, ' ', w);
    mvaddnstr(y, x, bar, w);
    attroff(A_REVERSE);
    for (int r = 0; r < rows && first + r < n; r++) {
        size_t ll;
        const char *l = line_at(s, len, first + r, &ll);
        put_line(y + 1 + r, x, w, l, ll, stars, hl);
    }
}

static int min_int(int a, int b) { return a < b ? a : b; }
static int max_int(int a, int b) { return a > b ? a : b; }

static void draw(ui *u)
{
    int H = LINES, W = COLS;
    erase();
    if (H < MIN_H || W < MIN_W) {
        char msg[160];
        int len = snprintf(msg, sizeof msg, "terminal too small (%dx%d): npukit debug needs "
                           "%dx%d; q quits", W, H, MIN_W, MIN_H);
        for (int y = 0, off = 0; y < H && off < len && W > 0; y++, off += W)
            mvaddnstr(y, 0, msg + off, W);
        refresh();
        return;
    }
    attr_t hl = u->hl;
    text where, regs, npu, dis, mem, out, stats, log = {u->log, u->log_len};
    render(u, V_WHERE, 0, &where);
    size_t wl = 0;
    const char *w0 = where.buf ? line_at(where.buf, where.len, 0, &wl) : "";
    char bar[512];
    const char *base = strrchr(u->title, '/');
    snprintf(bar, sizeof bar, " npukit debug: %s on %s | %.*s", base ? base + 1 : u->title,
             npk_target_of(u->m), (int)wl, w0);
    attron(A_REVERSE | A_BOLD);
    mvhline(0, 0, ' ', W);
    mvaddnstr(0, 0, bar, W);
    attroff(A_REVERSE | A_BOLD);
    free(where.buf);

    /* rows 1 .. H-3: registers (full width), then two columns, then the log */
    int body = H - 3, log_h = max_int(4, body / 5), top = body - log_h;
    render(u, V_REGS, (unsigned)W, &regs);
    int reg_h = min_int(count_lines(regs.buf ? regs.buf : "", regs.len) + 1, top / 3);
    panel(1, 0, reg_h, W, "Registers ('*' changed; [ ] scroll)", &regs, TOP, &u->reg_scroll,
          1, hl);
    free(regs.buf);
    /* the right column is as wide as the NPU view's lines, 45% to 60% of the screen */
    render(u, V_NPU, 0, &npu);
    int npu_w = widest_line(npu.buf ? npu.buf : "", npu.len);
    int rw = max_int(W * 9 / 20, min_int(npu_w, W * 3 / 5)), lw = W - rw - 1, rx = lw + 1;
    int y = 1 + reg_h, rest = top - reg_h;

    int dis_h = min_int(rest / 2, 10);
    render(u, V_DISASM, (unsigned)max_int(1, dis_h - 3), &dis);
    panel(y, 0, dis_h, lw, "Disassembly", &dis, AT_PC, NULL, 0, hl);
    free(dis.buf);
    char title[256];
    snprintf(title, sizeof title, "Memory x/%s %s (t: type)", u->mem_fmt, u->mem_ref);
    render(u, V_MEM, (unsigned)(rest - dis_h - 1), &mem);
    panel(y + dis_h, 0, rest - dis_h, lw, title, &mem, TOP, NULL, 0, hl);
    free(mem.buf);

    int npu_h = min_int(count_lines(npu.buf ? npu.buf : "", npu.len) + 1, rest / 2);
    panel(y, rx, npu_h, rw, "NPU / engine state", &npu, TOP, NULL, 0, hl);
    free(npu.buf);
    int out_h = max_int(2, (rest - npu_h) / 3);
    render(u, V_OUTPUT, 0, &out);
    panel(y + npu_h, rx, out_h, rw, "Guest output", &out, BOTTOM, NULL, 0, hl);
    free(out.buf);
    render(u, V_STATS, 0, &stats);
    panel(y + npu_h + out_h, rx, rest - npu_h - out_h, rw, "Statistics", &stats, TOP, NULL, 0,
          hl);
    free(stats.buf);

    panel(1 + top, 0, log_h, W, "Log (PgUp/PgDn)", &log, BOTTOM, &u->log_scroll, 0, hl);

    attron(A_REVERSE);
    mvhline(H - 2, 0, ' ', W);
    if (u->busy)
        mvprintw(H - 2, 0, " running '%s' (Ctrl-C interrupts)", u->busy);
    else if (u->typing)
        mvaddnstr(H - 2, 0, " Enter runs the command  Esc cancels  Up/Down history  "
                            "(every line-mode command; 'help' lists them)", W);
    else
        mvaddnstr(H - 2, 0, " s step  n next  c continue  r reverse-step  R reverse-continue  "
                            "t memory type  : command  q quit", W);
    attroff(A_REVERSE);
    mvaddnstr(H - 1, 0, "(npk) ", W);
    int off = (int)u->cmd_len > W - 7 ? (int)u->cmd_len - (W - 7) : 0;
    addnstr(u->cmd + off, W - 7);
    refresh();
}

/* ---- commands ------------------------------------------------------------------------ */

/* `x[/FMT] REF [N]` typed on the command line: the memory panel shows REF as FMT from now. */
static void follow_x(ui *u, const char *line)
{
    char buf[CMD_MAX], *tok[4], *save = NULL;
    int k = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, " \t", &save); t && k < 4; t = strtok_r(NULL, " \t", &save))
        tok[k++] = t;
    if (k < 2 || k > 3 || tok[0][0] != 'x' || (tok[0][1] && tok[0][1] != '/'))
        return;
    snprintf(u->mem_fmt, sizeof u->mem_fmt, "%s", tok[0][1] ? tok[0] + 2 : "x");
    snprintf(u->mem_ref, sizeof u->mem_ref, "%s", tok[1]);
}

/* Run one command line: echo it to the log with its output; 1 when it quits. */
static int run(ui *u, const char *line)
{
    char echo[CMD_MAX + 16];
    int el = snprintf(echo, sizeof echo, "(npk) %s\n", line);
    log_add(u, echo, (size_t)el < sizeof echo ? (size_t)el : sizeof echo - 1);
    u->busy = line;
    draw(u);
    *u->intr = 0;
    text t = {NULL, 0};
    char err[1024] = "";
    int rc = -1;
    FILE *f = open_memstream(&t.buf, &t.len);
    if (f) {
        rc = npk_debugger_exec(u->d, line, f, err, sizeof err);
        fclose(f);
    } else
        snprintf(err, sizeof err, "out of memory");
    u->busy = NULL;
    if (t.buf)
        log_add(u, t.buf, t.len);
    free(t.buf);
    if (rc < 0) {
        char msg[1100];
        int ml = snprintf(msg, sizeof msg, "error: %s\n", err);
        log_add(u, msg, (size_t)ml < sizeof msg ? (size_t)ml : sizeof msg - 1);
    } else if (rc == 0)
        follow_x(u, line);
    u->log_scroll = 0;
    return rc == 1;
}

static void remember(ui *u, const char *line)
{
    if (!line[0] || (u->n_hist && strcmp(u->hist[(u->n_hist - 1) % HIST], line) == 0))
        return;
    snprintf(u->hist[u->n_hist % HIST], CMD_MAX, "%s", line);
    u->n_hist++;
}

static void recall(ui *u, int dir)
{
    int oldest = u->n_hist > HIST ? u->n_hist - HIST : 0, at = u->hist_at + dir;
    if (at < oldest || at > u->n_hist)
        return;
    u->hist_at = at;
    snprintf(u->cmd, sizeof u->cmd, "%s", at == u->n_hist ? "" : u->hist[at % HIST]);
    u->cmd_len = strlen(u->cmd);
}

static const char *const mem_types[] = {"x", "i8", "f32", "bf16", "q8.8"};

static void next_type(ui *u)
{
    size_t n = sizeof mem_types / sizeof mem_types[0], k = 0;
    while (k < n && strcmp(mem_types[k], u->mem_fmt) != 0)
        k++;
    snprintf(u->mem_fmt, sizeof u->mem_fmt, "%s", mem_types[k < n ? (k + 1) % n : 0]);
}

/* A key while typing a command line; 1 when the session ends. */
static int edit_key(ui *u, int ch)
{
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER: {
        char line[CMD_MAX];
        snprintf(line, sizeof line, "%s", u->cmd);
        u->cmd[0] = '\0';
        u->cmd_len = 0;
        u->typing = 0;
        remember(u, line);
        u->hist_at = u->n_hist;
        return line[0] ? run(u, line) : 0;
    }
    case 27: /* Esc */
        u->cmd[0] = '\0';
        u->cmd_len = 0;
        u->typing = 0;
        return 0;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (u->cmd_len)
            u->cmd[--u->cmd_len] = '\0';
        else
            u->typing = 0;
        return 0;
    case 21: /* Ctrl-U */
        u->cmd[0] = '\0';
        u->cmd_len = 0;
        return 0;
    case KEY_UP: recall(u, -1); return 0;
    case KEY_DOWN: recall(u, 1); return 0;
    default:
        if (ch >= 32 && ch < 127 && u->cmd_len + 1 < sizeof u->cmd) {
            u->cmd[u->cmd_len++] = (char)ch;
            u->cmd[u->cmd_len] = '\0';
        }
        return 0;
    }
}

/* A key outside the command line; 1 when the session ends. */
static int key(ui *u, int ch)
{
    switch (ch) {
    case 's': return run(u, "step");
    case 'n': return run(u, "next");
    case 'c': return run(u, "continue");
    case 'r': return run(u, "reverse-step");
    case 'R': return run(u, "reverse-continue");
    case 'q': return 1;
    case 't': next_type(u); return 0;
    case '[': u->reg_scroll--; return 0;
    case ']': u->reg_scroll++; return 0;
    case KEY_PPAGE: u->log_scroll += 5; return 0;
    case KEY_NPAGE: u->log_scroll -= 5; return 0;
    case 12: clearok(curscr, TRUE); return 0; /* Ctrl-L */
    case ':': u->typing = 1; return 0;
    default:
        if (ch > 32 && ch < 127) {   /* typing starts a command line */
            u->typing = 1;
            return edit_key(u, ch);
        }
        return 0;
    }
}

int npk_tui_available(void) { return 1; }

int npk_tui_run(npk_debugger *d, npk_machine *m, const char *title, volatile int *intr,
                char *err, size_t n)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, n, "the full-screen UI needs a terminal on standard input and output "
                         "(--line or --batch work without one)");
        return -1;
    }
    const char *term = getenv("TERM");
    SCREEN *scr = term && term[0] ? newterm(NULL, stdout, stdin) : NULL;
    if (!scr) {
        snprintf(err, n, "cannot drive the terminal (TERM=%s) full screen; --line works "
                         "without terminal features", term && term[0] ? term : "unset");
        return -1;
    }
    set_term(scr);
    cbreak();   /* Ctrl-C stays a signal: it interrupts a continue */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    attr_t hl = A_BOLD | A_UNDERLINE;   /* black on yellow where there are colours */
    if (has_colors() && start_color() == OK) {
        use_default_colors();
        if (init_pair(1, COLOR_BLACK, COLOR_YELLOW) == OK)
            hl = A_BOLD | COLOR_PAIR(1);
    }
    ui *u = calloc(1, sizeof *u);
    if (!u) {
        endwin();
        delscreen(scr);
        snprintf(err, n, "out of memory");
        return -1;
    }
    u->d = d;
    u->m = m;
    u->title = title;
    u->intr = intr;
    u->hl = hl;
    snprintf(u->mem_fmt, sizeof u->mem_fmt, "x");
    snprintf(u->mem_ref, sizeof u->mem_ref, "%s:0",
             npk_space_count(m) ? npk_space(m, 0)->name : "mem");
    npk_debugger_echo_output(d, NULL);   /* the output panel shows it */
    for (int done = 0; !done;) {
        draw(u);
        int ch = getch();
        if (ch == ERR || ch == KEY_RESIZE)   /* a signal, or the next draw fits the new size */
            continue;
        if (LINES < MIN_H || COLS < MIN_W)
            done = ch == 'q';
        else
            done = u->typing ? edit_key(u, ch) : key(u, ch);
    }
    endwin();
    delscreen(scr);
    free(u->log);
    free(u);
    return 0;
}

#endif
