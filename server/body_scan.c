/* body_scan.c - a /solve body read without a JSON tree (contract in body_scan.h).
 *
 * yajl reports the body as events; a state keeps the nesting level: 1 inside
 * the envelope, 2 inside "inputs", 3 and more inside an input's object or
 * array value, which is built as a jansson value. Any event outside the shape
 * returns 0, which cancels the parse: the body is declined. */
#include "server/body_scan.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "server/jsonw.h"

#define MAX_TREE_DEPTH 64 /* nesting inside one input's value; deeper bodies go to jansson */

enum { M_NONE, M_SOLVER, M_CATALOG, M_CALIBRATION, M_INPUTS };

static const char *const ENVELOPE[] = {[M_SOLVER] = "solver", [M_CATALOG] = "catalog",
                                       [M_CALIBRATION] = "calibration", [M_INPUTS] = "inputs"};

typedef struct {
    body_scan *b;
    yajl_handle h;
    size_t end;                     /* bytes up to the envelope's closing brace (yajl's count) */
    int level;                      /* containers open */
    int member;                     /* the envelope member whose value comes next */
    unsigned seen;                  /* envelope members read (bit per M_*) */
    json_t *tree[MAX_TREE_DEPTH];   /* an input's value being built: tree[0] its root, tree[k] open at level k + 3 */
    const char *key[MAX_TREE_DEPTH]; /* the member name pending in tree[k], when it is an object */
} scan;

/* A copy of s (n bytes) with its NUL in the text budget, if s is a string
 * jansson accepts; NULL otherwise. */
static const char *keep(scan *st, const unsigned char *s, size_t n)
{
    body_scan *b = st->b;
    if (n >= sizeof b->text - b->text_used || !json_utf8_okn((const char *)s, n))
        return NULL;
    char *t = b->text + b->text_used;
    memcpy(t, s, n);
    t[n] = '\0';
    b->text_used += n + 1;
    return t;
}

/* v added to the value being built (NULL: out of memory; a duplicate key declines). */
static int add(scan *st, json_t *v)
{
    if (!v)
        return 0;
    int k = st->level - 3;
    json_t *c = st->tree[k];
    if (json_is_object(c)) {
        if (json_object_get(c, st->key[k])) {
            json_decref(v);
            return 0;
        }
        return json_object_set_new_nocheck(c, st->key[k], v) == 0;
    }
    return json_array_append_new(c, v) == 0;
}

/* A scalar (g) read: an envelope string, an input, or part of an input's value (made by make). */
static int value(scan *st, input_given g, json_t *(*make)(const input_given *))
{
    if (st->level >= 3)
        return add(st, make(&g));
    if (st->level == 2) {
        st->b->value[st->b->n_inputs - 1] = g;
        return 1;
    }
    if (st->level != 1 || g.t != GIVEN_STRING || st->member == M_INPUTS)
        return 0;
    body_scan *b = st->b;
    const char **slot = st->member == M_SOLVER ? &b->solver : st->member == M_CATALOG ? &b->catalog : &b->calibration;
    *slot = g.s;
    return 1;
}

static json_t *make_null(const input_given *g) { (void)g; return json_null(); }
static json_t *make_bool(const input_given *g) { return json_boolean(g->b); }
static json_t *make_int(const input_given *g) { return json_integer(g->i); }
static json_t *make_real(const input_given *g) { return json_real(g->r); }
static json_t *make_string(const input_given *g) { return json_string_nocheck(g->s); }

static int on_null(void *ctx) { return value(ctx, (input_given){.t = GIVEN_NULL}, make_null); }
static int on_bool(void *ctx, int v) { return value(ctx, (input_given){.t = GIVEN_BOOL, .b = v != 0}, make_bool); }
static int on_int(void *ctx, long long v) { return value(ctx, (input_given){.t = GIVEN_INT, .i = v}, make_int); }
static int on_real(void *ctx, double v) { return value(ctx, (input_given){.t = GIVEN_REAL, .r = v}, make_real); }

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    const char *t = keep(ctx, s, n);
    return t && value(ctx, (input_given){.t = GIVEN_STRING, .s = t}, make_string);
}

/* An object or array opens inside "inputs": an input's value (tree[0], owned
 * here until it is complete) or a part of one (owned by its parent). */
static int open_container(scan *st, json_t *c)
{
    if (!c)
        return 0;
    if (st->level - 2 >= MAX_TREE_DEPTH) {
        json_decref(c);
        return 0;
    }
    if (st->level >= 3 && !add(st, c))
        return 0;
    st->tree[st->level - 2] = c;
    st->level++;
    return 1;
}

static int on_start_map(void *ctx)
{
    scan *st = ctx;
    if (st->level == 0 || (st->level == 1 && st->member == M_INPUTS)) {
        st->level++;
        return 1;
    }
    if (st->level == 1)
        return 0;
    return open_container(st, json_object());
}

static int on_start_array(void *ctx)
{
    scan *st = ctx;
    return st->level >= 2 && open_container(st, json_array());
}

static int on_close(void *ctx)
{
    scan *st = ctx;
    if (st->level == 3) { /* an input's value is complete */
        st->b->value[st->b->n_inputs - 1] = (input_given){.t = GIVEN_JSON, .j = st->tree[0]};
        st->tree[0] = NULL;
    }
    if (--st->level == 0)
        st->end = yajl_get_bytes_consumed(st->h);
    return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    scan *st = ctx;
    const char *k = keep(st, s, n);
    if (!k)
        return 0;
    if (st->level == 1) {
        st->member = M_NONE;
        for (int m = M_SOLVER; m <= M_INPUTS && st->member == M_NONE; m++)
            if (!strcmp(k, ENVELOPE[m]))
                st->member = m;
        if (st->member == M_NONE || (st->seen & (1u << st->member)))
            return 0;
        st->seen |= 1u << st->member;
        return 1;
    }
    if (st->level == 2) {
        body_scan *b = st->b;
        if (b->n_inputs == SOLVER_MAX_INPUTS)
            return 0;
        for (size_t i = 0; i < b->n_inputs; i++)
            if (!strcmp(b->key[i], k))
                return 0;
        b->value[b->n_inputs] = (input_given){.t = GIVEN_NONE}; /* until its value is read */
        b->key[b->n_inputs++] = k;
        return 1;
    }
    st->key[st->level - 3] = k;
    return 1;
}

static const yajl_callbacks EVENTS = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_integer = on_int,
    .yajl_double = on_real,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_close,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_close,
};

/* yajl's allocations for one parse (its handle, lexer, state stack and token
 * buffer, a few hundred bytes for a /solve body) come from a block on the
 * caller's stack, each after a header holding its size, instead of malloc and
 * free; what does not fit goes to malloc. Freeing from the block does nothing:
 * the block goes with the parse. */
#define ARENA_HEADER 16
typedef struct {
    size_t used;
    alignas(max_align_t) unsigned char buf[4096];
} arena;

static bool in_arena(const arena *ar, const void *p)
{
    const unsigned char *c = p;
    return c >= ar->buf && c < ar->buf + sizeof ar->buf;
}

static void *arena_malloc(void *ctx, size_t n)
{
    arena *ar = ctx;
    if (n > sizeof ar->buf)
        return malloc(n);
    size_t need = ARENA_HEADER + (n + ARENA_HEADER - 1) / ARENA_HEADER * ARENA_HEADER;
    if (need > sizeof ar->buf - ar->used)
        return malloc(n);
    unsigned char *p = ar->buf + ar->used;
    memcpy(p, &n, sizeof n);
    ar->used += need;
    return p + ARENA_HEADER;
}

static void arena_free(void *ctx, void *p)
{
    if (!in_arena(ctx, p))
        free(p);
}

static void *arena_realloc(void *ctx, void *p, size_t n)
{
    if (!p)
        return arena_malloc(ctx, n);
    if (!in_arena(ctx, p))
        return realloc(p, n);
    size_t old;
    memcpy(&old, (unsigned char *)p - ARENA_HEADER, sizeof old);
    if (n <= old)
        return p;
    void *q = arena_malloc(ctx, n);
    if (q)
        memcpy(q, p, old);
    return q;
}

void body_scan_release(body_scan *b)
{
    for (size_t i = 0; i < b->n_inputs; i++)
        if (b->value[i].t == GIVEN_JSON)
            json_decref((json_t *)b->value[i].j);
    b->n_inputs = 0;
}

int body_scan_solve(const char *body, size_t len, body_scan *b)
{
    /* jansson and yajl read escapes (lone surrogates, \u0000) and the whitespace
     * \v and \f differently: such bodies go to jansson. */
    if (!len || memchr(body, '\\', len) || memchr(body, '\v', len) || memchr(body, '\f', len))
        return -1;
    b->solver = b->catalog = b->calibration = NULL;
    b->n_inputs = 0;
    b->text_used = 0;
    scan st = {.b = b};
    arena ar;
    ar.used = 0;
    yajl_alloc_funcs funcs = {arena_malloc, arena_realloc, arena_free, &ar};
    yajl_handle h = yajl_alloc(&EVENTS, &funcs, &st);
    if (!h)
        return -1;
    st.h = h;
    yajl_config(h, yajl_dont_validate_strings, 1); /* keep() applies jansson's rule */
    bool ok = yajl_parse(h, (const unsigned char *)body, len) == yajl_status_ok &&
              yajl_complete_parse(h) == yajl_status_ok && st.level == 0 && st.end;
    yajl_free(h);
    /* yajl ends a parse at a complete value even when an unfinished token
     * follows ({...}"ab): nothing but whitespace may follow the envelope */
    for (size_t i = st.end; ok && i < len; i++)
        ok = body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r';
    if (st.level >= 3)
        json_decref(st.tree[0]); /* a value left half-built by a declined body */
    if (!ok || !b->solver) {
        body_scan_release(b);
        return -1;
    }
    return 0;
}
