/* The symbol table: labels and .equ names, case-sensitive, kept across passes so later
 * passes see forward references; a definition twice in one pass is an error. */
#include <stdlib.h>
#include <string.h>

#include "asm/internal.h"

asm_sym *asm_sym_find(const npk_asm *a, const char *name, size_t len)
{
    size_t i;
    return npk_name_find(&a->sym_index, name, len, &i) ? a->syms[i] : NULL;
}

static asm_sym *sym_add(npk_asm *a, const char *name, size_t len)
{
    if (a->n_syms == a->cap_syms) {
        size_t cap = a->cap_syms ? a->cap_syms * 2 : 64;
        asm_sym **v = asm_realloc(a, a->syms, cap * sizeof *v);
        if (!v)
            return NULL;
        a->syms = v;
        a->cap_syms = cap;
    }
    asm_sym *s = asm_alloc(a, sizeof *s);
    char *nm = asm_strndup(a, name, len);
    if (!s || !nm) {
        free(s);
        free(nm);
        return NULL;
    }
    s->name = nm;
    s->len = len;
    if (npk_name_put(&a->sym_index, nm, len, a->n_syms) != 0) {
        free(s);
        free(nm);
        a->oom = a->stopped = true;
        return NULL;
    }
    a->syms[a->n_syms++] = s;
    return s;
}

void asm_syms_free(npk_asm *a)
{
    for (size_t i = 0; i < a->n_syms; i++) {
        free(a->syms[i]->name);
        free(a->syms[i]);
    }
    free(a->syms);
    npk_name_free(&a->sym_index);
    a->syms = NULL;
    a->n_syms = a->cap_syms = 0;
}

/* Common part of definitions; `state` is SYM_DEFINED, SYM_PENDING or SYM_POISONED. */
static int define(npk_asm *a, const char *name, size_t len, int64_t value, int kind, int state,
                  const char *at)
{
    const char *why = a->t->reserved ? a->t->reserved(a, name, len) : NULL;
    if (why)
        return npk_asm_error(a, at, len, "'%.*s' is %s and cannot be defined", (int)len, name,
                             why);
    asm_sym *s = asm_sym_find(a, name, len);
    if (s && s->def_pass == a->pass)
        return npk_asm_error(a, at, len, "redefinition of '%.*s' (first defined at %s:%u)",
                             (int)len, name, a->files[s->def_file].path, s->def_line);
    if (!s && !(s = sym_add(a, name, len)))
        return -1;
    if (s->def_pass && s->def_pass + 1 == a->pass && s->state == SYM_DEFINED &&
        state == SYM_DEFINED && s->value != value) {
        /* a forward reference earlier in this pass may have used the old value */
        a->unresolved++;
        npk_asm_error(a, at, len, "value of '%.*s' does not settle (0x%llx, then 0x%llx)",
                      (int)len, name, (unsigned long long)s->value, (unsigned long long)value);
    }
    s->kind = kind;
    s->state = state;
    s->value = value;
    s->def_pass = a->pass;
    s->def_file = a->frame ? a->frame->file : 0;
    s->def_line = a->frame ? a->frame->line : 0;
    return 0;
}

int npk_asm_define(npk_asm *a, const char *name, size_t len, int64_t value, int kind,
                   const char *at)
{
    return define(a, name, len, value, kind, SYM_DEFINED, at);
}

/* A definition whose value failed: uses stay errors without cascading messages. */
int asm_define_failed(npk_asm *a, const char *name, size_t len, int kind, bool pending,
                      const char *at)
{
    return define(a, name, len, 0, kind, pending ? SYM_PENDING : SYM_POISONED, at);
}

bool npk_asm_symbol(const npk_asm *a, const char *name, size_t len, int64_t *value)
{
    asm_sym *s = asm_sym_find(a, name, len);
    if (!s || !s->def_pass || s->state != SYM_DEFINED)
        return false;
    *value = s->value;
    return true;
}
