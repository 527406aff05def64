/* Recursive-descent JSON syntax checker (RFC 8259), used to validate the timeline and
 * statistics files without an external tool. */
#include "json_check.h"

#include <string.h>

typedef struct { const char *s; size_t n, i; int depth; } jc;

static void ws(jc *j)
{
    while (j->i < j->n && strchr(" \t\r\n", j->s[j->i]) && j->s[j->i])
        j->i++;
}

static int value(jc *j);

static int string(jc *j)
{
    if (j->i >= j->n || j->s[j->i] != '"')
        return -1;
    j->i++;
    while (j->i < j->n) {
        unsigned char c = (unsigned char)j->s[j->i++];
        if (c == '"')
            return 0;
        if (c < 0x20)
            return -1;
        if (c == '\\') {
            if (j->i >= j->n)
                return -1;
            c = (unsigned char)j->s[j->i++];
            if (c == 'u') {
                for (int k = 0; k < 4; k++, j->i++)
                    if (j->i >= j->n || !strchr("0123456789abcdefABCDEF", j->s[j->i]) ||
                        !j->s[j->i])
                        return -1;
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                return -1;
            }
        }
    }
    return -1;
}

static int digits(jc *j)
{
    size_t s = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
        j->i++;
    return j->i > s ? 0 : -1;
}

static int number(jc *j)
{
    if (j->s[j->i] == '-')
        j->i++;
    if (j->i < j->n && j->s[j->i] == '0')
        j->i++;
    else if (digits(j))
        return -1;
    if (j->i < j->n && j->s[j->i] == '.') {
        j->i++;
        if (digits(j))
            return -1;
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
            j->i++;
        if (digits(j))
            return -1;
    }
    return 0;
}

static int lit(jc *j, const char *w)
{
    size_t k = strlen(w);
    if (j->n - j->i < k || memcmp(j->s + j->i, w, k))
        return -1;
    j->i += k;
    return 0;
}

static int seq(jc *j, char close, int object)
{
    j->i++;
    if (++j->depth > 200)
        return -1;
    ws(j);
    if (j->i < j->n && j->s[j->i] == close) {
        j->i++;
        j->depth--;
        return 0;
    }
    for (;;) {
        ws(j);
        if (object) {
            if (string(j))
                return -1;
            ws(j);
            if (j->i >= j->n || j->s[j->i++] != ':')
                return -1;
        }
        if (value(j))
            return -1;
        ws(j);
        if (j->i >= j->n)
            return -1;
        char c = j->s[j->i++];
        if (c == close) {
            j->depth--;
            return 0;
        }
        if (c != ',')
            return -1;
    }
}

static int value(jc *j)
{
    ws(j);
    if (j->i >= j->n)
        return -1;
    switch (j->s[j->i]) {
    case '{': return seq(j, '}', 1);
    case '[': return seq(j, ']', 0);
    case '"': return string(j);
    case 't': return lit(j, "true");
    case 'f': return lit(j, "false");
    case 'n': return lit(j, "null");
    default: return number(j);
    }
}

size_t npk_json_check(const char *s, size_t n)
{
    jc j = {s, n, 0, 0};
    if (value(&j))
        return j.i + 1;
    ws(&j);
    return j.i == n ? 0 : j.i + 1;
}
