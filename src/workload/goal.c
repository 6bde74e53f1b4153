/* goal.c: GOAL schedules: the text and binary readers, the checks a
 * schedule must pass before it runs, and the engine that runs it on the
 * simulated fabric (goal.h says what; docs/goal.md the format and the
 * execution model).
 *
 * Readers. The text grammar is the one LogGOPSim's txt2bin accepts
 * (statements end at a newline; "//" and block comments; labels are a
 * rank's own); forward references to labels are accepted too, and a label
 * defined twice is refused (txt2bin keeps the first silently). The binary
 * layout is txt2bin's (LogGOPSim Parser.hpp, little-endian, packed): u64
 * magic 4223; u32 ranks, u8 max cpu, u8 max nic; per rank u64 start and end
 * relative to byte 8; at a rank's start u32 records, u32 roots, the roots'
 * record numbers, then 39-byte records (u32 dependency count, u8 type, u32
 * peer, u64 size, u32 tag, u8 cpu, u8 nic, u32 dependants and their first
 * appendix entry, u32 start-dependants and their first entry), then the
 * appendix of u32 record numbers. Every count and offset is checked against
 * the file's length before it is used, so a truncated or corrupt file is
 * one line naming the rank and record, never a read past the end.
 *
 * Engine. Ops whose dependencies are met join their CPU's FIFO; a CPU runs
 * its FIFO until a calc holds it. Matching keeps, per rank, posted
 * receives and unexpected messages in FIFO buckets keyed by (source, tag),
 * LogGOPSim's default hash matching; wildcard receives (and sends with tag
 * -1) are kept in short lists and compared by arrival sequence, so the
 * earliest posted receive or earliest arrived message wins, as MPI orders
 * them. Nothing recurses: an op that completes queues its dependants, and
 * one pump drains every CPU touched.
 *
 * Parallel runs (--goal-send-done path only): every GOAL event belongs to
 * the host of the rank whose state it changes, a send's completion is a
 * note from the receiver's host, and pdes.c decides the schedule's end and
 * deadlock from every process's counts at window ends and gathers each
 * op's and rank's state at the end (goal_window_end, goal_state_*).
 */
#include "goal.h"

#include "../sim.h"
#include "../transport/flow.h"
#include "../transport/transport.h"
#include "../core/parse.h"
#include "../metrics/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOAL_MAGIC 4223ull         /* LogGOPSim Parser.hpp MAGIC_COOKIE */
#define GOAL_MAGIC_INVALID 2342ull /* Parser.hpp MAGIC_COOKIE_INVALID: a --save-mem run consumed the file */
#define GOAL_RECORD_BYTES 39u      /* Parser.hpp: char + 2 x u8 + 7 x u32 + u64, packed */
#define GOAL_HEADER_BYTES 14u      /* magic, ranks, max cpu, max nic */
#define GOAL_MAX_OPS (UINT32_MAX / 4) /* op indices, sequence numbers and succ offsets stay in 32 bits */

static void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void sched_reset(struct goal_sched *g, const char *name)
{
    memset(g, 0, sizeof *g);
    size_t n = strlen(name) + 1;
    g->name = xmalloc(n);
    memcpy(g->name, name, n);
}

void goal_sched_free(struct goal_sched *g)
{
    free(g->name);
    free(g->ops);
    free(g->rank_first);
    free(g->succ);
    memset(g, 0, sizeof *g);
}

/* Where an op is, for messages: "file:line" (text) or "file: rank R, record K". */
static void op_where(const struct goal_sched *g, uint32_t op, char *buf, size_t len)
{
    const struct goal_op *o = &g->ops[op];
    if (g->binary)
        snprintf(buf, len, "%s: rank %u, record %u", g->name, o->rank, o->line);
    else
        snprintf(buf, len, "%s:%u", g->name, o->line);
}

static const char *op_name(uint8_t type)
{
    return type == GOAL_SEND ? "send" : type == GOAL_RECV ? "recv" : "calc";
}

/* "from 3" / "from any" and "tag 7" / "tag any" */
static void peer_text(uint32_t v, char *buf, size_t len)
{
    if (v == GOAL_ANY)
        snprintf(buf, len, "any");
    else
        snprintf(buf, len, "%u", v);
}

/* ---- text reader ------------------------------------------------------------------------------- */

enum tok_kind { T_EOF, T_NL, T_NUM, T_ANY, T_IDENT, T_COLON, T_LBRACE, T_RBRACE, T_BAD };

struct token {
    enum tok_kind kind;
    const unsigned char *s;
    size_t len;
    uint64_t num;
    bool too_big;
    uint32_t line;
};

struct lexer {
    const unsigned char *p, *end;
    uint32_t line;
    bool unterminated_comment;
    uint32_t comment_line;
};

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static struct token lex(struct lexer *L)
{
    for (;;) {
        while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r'))
            L->p++;
        if (L->p + 1 < L->end && L->p[0] == '/' && L->p[1] == '/') {
            while (L->p < L->end && *L->p != '\n')
                L->p++;
            continue;
        }
        if (L->p + 1 < L->end && L->p[0] == '/' && L->p[1] == '*') {
            L->comment_line = L->line;
            L->p += 2;
            while (L->p + 1 < L->end && !(L->p[0] == '*' && L->p[1] == '/')) {
                if (*L->p == '\n')
                    L->line++;
                L->p++;
            }
            if (L->p + 1 >= L->end) {
                L->unterminated_comment = true;
                L->p = L->end;
                return (struct token){.kind = T_BAD, .line = L->comment_line};
            }
            L->p += 2;
            continue;
        }
        break;
    }
    struct token t = {.s = L->p, .line = L->line};
    if (L->p >= L->end) {
        t.kind = T_EOF;
        return t;
    }
    unsigned char c = *L->p;
    if (c == '\n') {
        L->p++;
        L->line++;
        t.kind = T_NL;
    } else if (is_digit(c) || (c == '-' && L->p + 1 < L->end && is_digit(L->p[1]))) {
        bool neg = c == '-';
        if (neg)
            L->p++;
        uint64_t v = 0;
        while (L->p < L->end && is_digit(*L->p)) {
            unsigned d = (unsigned)(*L->p - '0');
            if (v > (UINT64_MAX - d) / 10)
                t.too_big = true;
            else
                v = v * 10 + d;
            L->p++;
        }
        t.num = v;
        t.kind = neg ? (v == 1 && !t.too_big ? T_ANY : T_BAD) : T_NUM;
    } else if (is_alpha(c)) {
        while (L->p < L->end && (is_alpha(*L->p) || is_digit(*L->p) || *L->p == '_'))
            L->p++;
        t.kind = T_IDENT;
    } else {
        L->p++;
        t.kind = c == ':' ? T_COLON : c == '{' ? T_LBRACE : c == '}' ? T_RBRACE : T_BAD;
    }
    t.len = (size_t)(L->p - t.s);
    return t;
}

static bool tok_is(const struct token *t, const char *word)
{
    return t->kind == T_IDENT && t->len == strlen(word) && !memcmp(t->s, word, t->len);
}

/* The token as it may appear in a message. */
static const char *tok_text(const struct token *t, char *buf)
{
    switch (t->kind) {
    case T_EOF:
        return "the end of the file";
    case T_NL:
        return "the end of the line";
    default: {
        char tmp[41];
        size_t n = t->len < 40 ? t->len : 40;
        if (!n)
            n = 1;
        memcpy(tmp, t->s, n);
        tmp[n] = 0;
        char shown_buf[SHOWN_BUF];
        snprintf(buf, 64, "'%s'", shown(tmp, shown_buf));
        return buf;
    }
    }
}

struct label_slot {
    const unsigned char *s; /* NULL: empty */
    uint32_t len;
    uint32_t op;
};

/* A pending "a requires b" / "a irequires b": resolved when the rank closes. */
struct pending_dep {
    const unsigned char *a, *b;
    uint32_t alen, blen;
    uint32_t line;
    bool start;
};

struct text_parser {
    struct goal_sched *g;
    struct lexer L;
    char *err;
    size_t errlen;
    uint32_t cap_ops;
    struct label_slot *labels;
    uint32_t label_cap, label_count;
    uint32_t *label_used; /* slots in use, cleared when the rank closes */
    struct pending_dep *deps;
    uint32_t n_deps, cap_deps;
    uint32_t cap_succ;
    uint8_t *rank_seen;
    uint32_t rank_line_seen_first;
};

static uint64_t hash_bytes(const unsigned char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static void labels_grow(struct text_parser *P)
{
    uint32_t old = P->label_cap;
    struct label_slot *o = P->labels;
    P->label_cap = old ? old * 2 : 1024;
    P->labels = xcalloc(P->label_cap, sizeof *P->labels);
    P->label_used = xrealloc(P->label_used, (size_t)P->label_cap * sizeof(uint32_t));
    P->label_count = 0;
    for (uint32_t i = 0; i < old; i++) {
        if (!o[i].s)
            continue;
        uint32_t j = (uint32_t)hash_bytes(o[i].s, o[i].len) & (P->label_cap - 1);
        while (P->labels[j].s)
            j = (j + 1) & (P->label_cap - 1);
        P->labels[j] = o[i];
        P->label_used[P->label_count++] = j;
    }
    free(o);
}

/* The op labelled s, or UINT32_MAX. */
static uint32_t label_find(const struct text_parser *P, const unsigned char *s, uint32_t len)
{
    if (!P->label_cap)
        return UINT32_MAX;
    uint32_t j = (uint32_t)hash_bytes(s, len) & (P->label_cap - 1);
    while (P->labels[j].s) {
        if (P->labels[j].len == len && !memcmp(P->labels[j].s, s, len))
            return P->labels[j].op;
        j = (j + 1) & (P->label_cap - 1);
    }
    return UINT32_MAX;
}

static void label_add(struct text_parser *P, const unsigned char *s, uint32_t len, uint32_t op)
{
    if (2 * (P->label_count + 1) > P->label_cap)
        labels_grow(P);
    uint32_t j = (uint32_t)hash_bytes(s, len) & (P->label_cap - 1);
    while (P->labels[j].s)
        j = (j + 1) & (P->label_cap - 1);
    P->labels[j] = (struct label_slot){.s = s, .len = len, .op = op};
    P->label_used[P->label_count++] = j;
}

static void labels_clear(struct text_parser *P)
{
    for (uint32_t i = 0; i < P->label_count; i++)
        P->labels[P->label_used[i]].s = NULL;
    P->label_count = 0;
}

static bool perr(struct text_parser *P, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool perr(struct text_parser *P, uint32_t line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    errf(P->err, P->errlen, "%s:%u: %s", P->g->name, line, msg);
    return false;
}

static bool expect_fail(struct text_parser *P, const struct token *t, const char *what)
{
    char buf[64];
    if (t->kind == T_BAD && P->L.unterminated_comment)
        return perr(P, t->line, "a comment opened here is never closed");
    return perr(P, t->line, "expected %s, found %s", what, tok_text(t, buf));
}

/* A number token into *v (at most max), else the error. */
static bool take_num(struct text_parser *P, const struct token *t, const char *what, uint64_t max, uint64_t *v)
{
    if (t->kind != T_NUM)
        return expect_fail(P, t, what);
    if (t->too_big || t->num > max)
        return perr(P, t->line, "%s %.*s is out of range (at most %llu)", what, (int)(t->len < 30 ? t->len : 30),
                    (const char *)t->s, (unsigned long long)max);
    *v = t->num;
    return true;
}

static struct goal_op *new_op(struct text_parser *P)
{
    struct goal_sched *g = P->g;
    if (g->n_ops == P->cap_ops) {
        P->cap_ops = P->cap_ops ? P->cap_ops * 2 : 1024;
        g->ops = xrealloc(g->ops, (size_t)P->cap_ops * sizeof *g->ops);
    }
    struct goal_op *o = &g->ops[g->n_ops++];
    memset(o, 0, sizeof *o);
    return o;
}

/* "send SIZE b to PEER [tag T] [cpu C] [nic N]" and the recv and calc
 * forms, after the keyword; ends at the newline. */
static bool parse_op(struct text_parser *P, uint8_t type, uint32_t rank, uint32_t line)
{
    struct goal_sched *g = P->g;
    if (g->n_ops >= GOAL_MAX_OPS)
        return perr(P, line, "more than %u operations", GOAL_MAX_OPS);
    struct goal_op *o = new_op(P);
    o->type = type;
    o->rank = rank;
    o->line = line;
    struct token t = lex(&P->L);
    uint64_t v;
    if (!take_num(P, &t, type == GOAL_CALC ? "the calc's length (ns)" : "a size in bytes", UINT64_MAX, &v))
        return false;
    o->size = v;
    if (type != GOAL_CALC) {
        t = lex(&P->L);
        if (!tok_is(&t, "b"))
            return expect_fail(P, &t, "'b' after the size");
        t = lex(&P->L);
        if (!tok_is(&t, type == GOAL_SEND ? "to" : "from"))
            return expect_fail(P, &t, type == GOAL_SEND ? "'to'" : "'from'");
        t = lex(&P->L);
        if (type == GOAL_RECV && t.kind == T_ANY) {
            o->peer = GOAL_ANY;
        } else {
            if (!take_num(P, &t, "a rank", UINT32_MAX - 1, &v))
                return false;
            if (v >= g->n_ranks)
                return perr(P, t.line, "rank %llu is out of range: num_ranks is %u", (unsigned long long)v,
                            g->n_ranks);
            o->peer = (uint32_t)v;
        }
    }
    bool seen_tag = false, seen_cpu = false, seen_nic = false;
    for (;;) {
        t = lex(&P->L);
        if (t.kind == T_NL || t.kind == T_EOF)
            break;
        if (type != GOAL_CALC && tok_is(&t, "tag") && !seen_tag) {
            seen_tag = true;
            t = lex(&P->L);
            if (t.kind == T_ANY) {
                o->tag = GOAL_ANY;
                continue;
            }
            if (!take_num(P, &t, "a tag", UINT32_MAX - 1, &v))
                return false;
            o->tag = (uint32_t)v;
        } else if (tok_is(&t, "cpu") && !seen_cpu) {
            seen_cpu = true;
            t = lex(&P->L);
            if (!take_num(P, &t, "a cpu", 255, &v))
                return false;
            o->cpu = (uint8_t)v;
        } else if (type != GOAL_CALC && tok_is(&t, "nic") && !seen_nic) {
            seen_nic = true;
            t = lex(&P->L);
            if (!take_num(P, &t, "a nic", 255, &v))
                return false;
            o->nic = (uint8_t)v;
        } else {
            return expect_fail(P, &t, type == GOAL_CALC ? "'cpu' or the end of the line"
                                                        : "'tag', 'cpu', 'nic' or the end of the line");
        }
    }
    return true;
}

/* The rank's block closed: its dependencies resolved into the dependants
 * table (each op's requires-dependants then its irequires-dependants, in
 * statement order, as txt2bin lays them out). */
static bool close_rank(struct text_parser *P, uint32_t rank)
{
    struct goal_sched *g = P->g;
    uint32_t first = g->rank_first[rank];
    uint32_t *a_of = xmalloc(((size_t)P->n_deps + 1) * sizeof(uint32_t));
    uint32_t *b_of = xmalloc(((size_t)P->n_deps + 1) * sizeof(uint32_t));
    bool ok = true;
    for (uint32_t i = 0; i < P->n_deps && ok; i++) {
        const struct pending_dep *d = &P->deps[i];
        a_of[i] = label_find(P, d->a, d->alen);
        b_of[i] = label_find(P, d->b, d->blen);
        const unsigned char *bad = a_of[i] == UINT32_MAX ? d->a : b_of[i] == UINT32_MAX ? d->b : NULL;
        uint32_t bad_len = a_of[i] == UINT32_MAX ? d->alen : d->blen;
        if (bad) {
            char tmp[41], sb[SHOWN_BUF];
            size_t n = bad_len < 40 ? bad_len : 40;
            memcpy(tmp, bad, n);
            tmp[n] = 0;
            ok = perr(P, d->line, "label '%s' is not defined in rank %u", shown(tmp, sb), rank);
        } else if (a_of[i] == b_of[i]) {
            ok = perr(P, d->line, "dependency cycle in rank %u: the op on line %u %s itself", rank,
                      g->ops[a_of[i]].line, d->start ? "irequires" : "requires");
        }
    }
    if (ok) {
        for (uint32_t i = 0; i < P->n_deps; i++) {
            struct goal_op *b = &g->ops[b_of[i]];
            if (P->deps[i].start)
                b->n_start++;
            else
                b->n_done++;
            g->ops[a_of[i]].n_deps++;
        }
        uint32_t cur = g->n_succ;
        for (uint32_t k = first; k < g->n_ops; k++) {
            g->ops[k].done_first = cur;
            cur += g->ops[k].n_done;
            g->ops[k].start_first = cur;
            cur += g->ops[k].n_start;
        }
        if (cur > P->cap_succ) {
            while (P->cap_succ < cur)
                P->cap_succ = P->cap_succ ? P->cap_succ * 2 : 1024;
            g->succ = xrealloc(g->succ, (size_t)P->cap_succ * sizeof(uint32_t));
        }
        /* fill, counting each list back up */
        for (uint32_t k = first; k < g->n_ops; k++)
            g->ops[k].n_done = g->ops[k].n_start = 0;
        for (uint32_t i = 0; i < P->n_deps; i++) {
            struct goal_op *b = &g->ops[b_of[i]];
            if (P->deps[i].start)
                g->succ[b->start_first + b->n_start++] = a_of[i];
            else
                g->succ[b->done_first + b->n_done++] = a_of[i];
        }
        g->n_succ = cur;
    }
    free(a_of);
    free(b_of);
    P->n_deps = 0;
    labels_clear(P);
    return ok;
}

static bool parse_text(struct goal_sched *g, const unsigned char *data, size_t len, char *err, size_t errlen)
{
    struct text_parser P = {.g = g, .L = {.p = data, .end = data + len, .line = 1}, .err = err, .errlen = errlen};
    bool ok = true, have_ranks = false;
    uint32_t in_rank = UINT32_MAX, rank_line = 0, ranks_done = 0;
    uint32_t num_ranks_line = 0;
    while (ok) {
        struct token t = lex(&P.L);
        if (t.kind == T_NL)
            continue;
        if (t.kind == T_EOF) {
            if (in_rank != UINT32_MAX)
                ok = perr(&P, rank_line, "rank %u's block is never closed with '}'", in_rank);
            else if (!have_ranks)
                ok = perr(&P, t.line, "no num_ranks line: not a GOAL schedule");
            break;
        }
        if (in_rank == UINT32_MAX) {
            uint64_t v;
            if (tok_is(&t, "num_ranks")) {
                if (have_ranks) {
                    ok = perr(&P, t.line, "a second num_ranks line (the first is line %u)", num_ranks_line);
                    break;
                }
                struct token n = lex(&P.L);
                if (!(ok = take_num(&P, &n, "the number of ranks", (uint64_t)UINT32_MAX - 1, &v)))
                    break;
                if (v == 0) {
                    ok = perr(&P, n.line, "num_ranks 0: a schedule needs at least one rank");
                    break;
                }
                /* every rank needs a block of several bytes ("rank 0{}"): a
                 * count past the file's length cannot be complete, and is
                 * refused before any table is sized by it */
                if (v > len) {
                    ok = perr(&P, n.line, "num_ranks %llu, but the file's %zu bytes cannot hold that many rank blocks",
                              (unsigned long long)v, len);
                    break;
                }
                g->n_ranks = (uint32_t)v;
                have_ranks = true;
                num_ranks_line = t.line;
                g->rank_first = xcalloc((size_t)g->n_ranks + 1, sizeof(uint32_t));
                P.rank_seen = xcalloc(g->n_ranks, 1);
            } else if (tok_is(&t, "rank")) {
                if (!have_ranks) {
                    ok = perr(&P, t.line, "a rank block before the num_ranks line");
                    break;
                }
                struct token n = lex(&P.L);
                if (!(ok = take_num(&P, &n, "a rank number", UINT32_MAX, &v)))
                    break;
                if (v >= g->n_ranks) {
                    ok = perr(&P, n.line, "rank %llu is out of range: num_ranks is %u", (unsigned long long)v,
                              g->n_ranks);
                    break;
                }
                if (P.rank_seen[v]) {
                    ok = perr(&P, n.line, "rank %llu has a second block", (unsigned long long)v);
                    break;
                }
                /* ops are kept rank by rank in rank order; txt2bin needs the
                 * blocks in that order too */
                if (v != ranks_done) {
                    ok = perr(&P, n.line, "rank %llu's block comes where rank %u's is expected (blocks go in rank "
                              "order, as txt2bin writes them)", (unsigned long long)v, ranks_done);
                    break;
                }
                struct token b = lex(&P.L);
                if (b.kind != T_LBRACE) {
                    ok = expect_fail(&P, &b, "'{'");
                    break;
                }
                P.rank_seen[v] = 1;
                in_rank = (uint32_t)v;
                rank_line = t.line;
                g->rank_first[in_rank] = g->n_ops;
            } else {
                ok = expect_fail(&P, &t, "'num_ranks' or 'rank'");
            }
            continue;
        }
        /* inside a rank's block */
        if (t.kind == T_RBRACE) {
            ok = close_rank(&P, in_rank);
            ranks_done++;
            in_rank = UINT32_MAX;
            continue;
        }
        if (t.kind != T_IDENT) {
            ok = expect_fail(&P, &t, "an operation, a label, a dependency or '}'");
            continue;
        }
        uint8_t type = tok_is(&t, "send") ? GOAL_SEND : tok_is(&t, "recv") ? GOAL_RECV : tok_is(&t, "calc") ? GOAL_CALC : 0;
        if (type) {
            ok = parse_op(&P, type, in_rank, t.line);
            continue;
        }
        if (t.len > UINT32_MAX / 2) {
            ok = perr(&P, t.line, "a label longer than %u bytes", UINT32_MAX / 2);
            continue;
        }
        struct token n = lex(&P.L);
        if (n.kind == T_COLON) {
            struct token k = lex(&P.L);
            type = tok_is(&k, "send") ? GOAL_SEND : tok_is(&k, "recv") ? GOAL_RECV : tok_is(&k, "calc") ? GOAL_CALC : 0;
            if (!type) {
                ok = expect_fail(&P, &k, "'send', 'recv' or 'calc' after the label");
                continue;
            }
            if (label_find(&P, t.s, (uint32_t)t.len) != UINT32_MAX) {
                char tmp[41], sb[SHOWN_BUF];
                size_t m = t.len < 40 ? t.len : 40;
                memcpy(tmp, t.s, m);
                tmp[m] = 0;
                ok = perr(&P, t.line, "label '%s' is defined twice in rank %u (first on line %u)", shown(tmp, sb),
                          in_rank, g->ops[label_find(&P, t.s, (uint32_t)t.len)].line);
                continue;
            }
            if (!(ok = parse_op(&P, type, in_rank, t.line)))
                continue;
            label_add(&P, t.s, (uint32_t)t.len, g->n_ops - 1);
        } else if (tok_is(&n, "requires") || tok_is(&n, "irequires")) {
            struct token b = lex(&P.L);
            if (b.kind != T_IDENT) {
                ok = expect_fail(&P, &b, "a label");
                continue;
            }
            struct token e = lex(&P.L);
            if (e.kind != T_NL && e.kind != T_EOF) {
                ok = expect_fail(&P, &e, "the end of the line");
                continue;
            }
            if (P.n_deps == P.cap_deps) {
                P.cap_deps = P.cap_deps ? P.cap_deps * 2 : 1024;
                P.deps = xrealloc(P.deps, (size_t)P.cap_deps * sizeof *P.deps);
            }
            P.deps[P.n_deps++] = (struct pending_dep){.a = t.s, .alen = (uint32_t)t.len, .b = b.s,
                                                      .blen = (uint32_t)b.len, .line = t.line,
                                                      .start = n.s[0] == 'i'};
        } else {
            ok = expect_fail(&P, &n, "':', 'requires' or 'irequires' after a label");
        }
    }
    if (ok && ranks_done < g->n_ranks)
        ok = perr(&P, P.L.line, "rank %u has no block (num_ranks is %u): is the file cut short?", ranks_done,
                  g->n_ranks);
    if (ok)
        g->rank_first[g->n_ranks] = g->n_ops;
    free(P.labels);
    free(P.label_used);
    free(P.deps);
    free(P.rank_seen);
    return ok;
}

/* ---- binary reader ----------------------------------------------------------------------------- */

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool parse_binary(struct goal_sched *g, const unsigned char *data, size_t len, char *err, size_t errlen)
{
    g->binary = true;
    const char *nm = g->name;
    if (len < GOAL_HEADER_BYTES) {
        errf(err, errlen, "%s: truncated: %zu bytes, the header alone needs %u", nm, len, GOAL_HEADER_BYTES);
        return false;
    }
    const unsigned char *base = data + 8; /* the jump table's offsets count from here */
    size_t blen = len - 8;
    uint32_t n_ranks = rd32(base);
    if (n_ranks == 0) {
        errf(err, errlen, "%s: the header says 0 ranks", nm);
        return false;
    }
    uint64_t table_end = 6 + 16ull * n_ranks;
    if (table_end > blen) {
        errf(err, errlen, "%s: truncated: %zu bytes, the jump table of %u ranks needs %llu", nm, len, n_ranks,
             (unsigned long long)(table_end + 8));
        return false;
    }
    g->n_ranks = n_ranks;
    g->rank_first = xcalloc((size_t)n_ranks + 1, sizeof(uint32_t));
    /* first pass: every rank's extent and counts, so the arrays are sized once */
    uint64_t total_ops = 0, total_succ = 0;
    for (uint32_t r = 0; r < n_ranks; r++) {
        uint64_t start = rd64(base + 6 + 16ull * r), end = rd64(base + 6 + 16ull * r + 8);
        if (start < table_end || start > end || end > blen) {
            if (end > blen && start <= end)
                errf(err, errlen, "%s: rank %u: truncated: its records end at byte %llu but the file has %zu bytes",
                     nm, r, (unsigned long long)(end + 8), len);
            else
                errf(err, errlen, "%s: rank %u: the jump table gives bytes %llu .. %llu, outside the file's %zu",
                     nm, r, (unsigned long long)(start + 8), (unsigned long long)(end + 8), len);
            return false;
        }
        if (end - start < 8) {
            errf(err, errlen, "%s: rank %u: truncated: %llu bytes, its counts alone need 8", nm, r,
                 (unsigned long long)(end - start));
            return false;
        }
        uint32_t n = rd32(base + start), roots = rd32(base + start + 4);
        uint64_t need = 8 + 4ull * roots + (uint64_t)GOAL_RECORD_BYTES * n;
        if (need > end - start) {
            errf(err, errlen, "%s: rank %u: truncated: %u records and %u roots need %llu bytes, the rank has %llu",
                 nm, r, n, roots, (unsigned long long)need, (unsigned long long)(end - start));
            return false;
        }
        if ((end - start - need) % 4) {
            errf(err, errlen, "%s: rank %u: its dependants table is %llu bytes, not whole 4-byte entries", nm, r,
                 (unsigned long long)(end - start - need));
            return false;
        }
        total_ops += n;
        total_succ += (end - start - need) / 4;
        if (total_ops > GOAL_MAX_OPS || total_succ > UINT32_MAX - 1) {
            errf(err, errlen, "%s: rank %u: more than %u operations or dependencies", nm, r, GOAL_MAX_OPS);
            return false;
        }
    }
    g->n_ops = (uint32_t)total_ops;
    g->ops = xcalloc(total_ops ? total_ops : 1, sizeof *g->ops);
    g->succ = xmalloc((total_succ ? total_succ : 1) * sizeof(uint32_t));
    uint32_t *incoming = xcalloc(total_ops ? total_ops : 1, sizeof(uint32_t));
    bool ok = true;
    uint32_t op0 = 0;
    for (uint32_t r = 0; r < n_ranks && ok; r++) {
        uint64_t start = rd64(base + 6 + 16ull * r), end = rd64(base + 6 + 16ull * r + 8);
        const unsigned char *q = base + start;
        uint32_t n = rd32(q), roots = rd32(q + 4);
        const unsigned char *rec = q + 8 + 4ull * roots;
        uint64_t n_apx = (end - start - 8 - 4ull * roots - (uint64_t)GOAL_RECORD_BYTES * n) / 4;
        const unsigned char *apx = rec + (uint64_t)GOAL_RECORD_BYTES * n;
        g->rank_first[r] = op0;
        for (uint32_t k = 0; k < roots && ok; k++)
            if (rd32(q + 8 + 4ull * k) >= n) {
                errf(err, errlen, "%s: rank %u: root %u names record %u of %u", nm, r, k, rd32(q + 8 + 4ull * k), n);
                ok = false;
            }
        for (uint32_t k = 0; k < n && ok; k++) {
            const unsigned char *p = rec + (uint64_t)GOAL_RECORD_BYTES * k;
            struct goal_op *o = &g->ops[op0 + k];
            o->n_deps = rd32(p);
            o->type = p[4];
            o->peer = rd32(p + 5);
            o->size = rd64(p + 9);
            o->tag = rd32(p + 17);
            o->cpu = p[21];
            o->nic = p[22];
            uint32_t nd = rd32(p + 23), fd = rd32(p + 27), ns = rd32(p + 31), fs = rd32(p + 35);
            o->rank = r;
            o->line = k;
            if (o->type != GOAL_SEND && o->type != GOAL_RECV && o->type != GOAL_CALC) {
                errf(err, errlen, "%s: rank %u, record %u: operation type %u (1 send, 2 recv, 3 calc)", nm, r, k,
                     o->type);
                ok = false;
            } else if (o->type == GOAL_CALC) {
                o->peer = 0;
                o->tag = 0;
            } else if (o->peer >= n_ranks && !(o->type == GOAL_RECV && o->peer == GOAL_ANY)) {
                errf(err, errlen, "%s: rank %u, record %u: %s %s rank %u, out of range: the schedule has %u ranks", nm,
                     r, k, op_name(o->type), o->type == GOAL_SEND ? "to" : "from", o->peer, n_ranks);
                ok = false;
            }
            /* every type's, calcs' too */
            if (ok && ((uint64_t)fd + nd > n_apx || (uint64_t)fs + ns > n_apx)) {
                errf(err, errlen, "%s: rank %u, record %u: its dependants run past the rank's %llu entries", nm, r, k,
                     (unsigned long long)n_apx);
                ok = false;
            }
            if (!ok)
                break;
            o->done_first = g->n_succ + fd;
            o->n_done = nd;
            o->start_first = g->n_succ + fs;
            o->n_start = ns;
        }
        for (uint64_t e = 0; e < n_apx && ok; e++) {
            uint32_t t = rd32(apx + 4 * e);
            if (t >= n) {
                errf(err, errlen, "%s: rank %u: dependants entry %llu names record %u of %u", nm, r,
                     (unsigned long long)e, t, n);
                ok = false;
                break;
            }
            g->succ[g->n_succ + e] = op0 + t;
        }
        /* each record's dependency count must equal the entries naming it,
         * or it would start early or never */
        for (uint32_t k = 0; k < n && ok; k++) {
            const struct goal_op *o = &g->ops[op0 + k];
            for (uint32_t e = 0; e < o->n_done; e++)
                incoming[g->succ[o->done_first + e]]++;
            for (uint32_t e = 0; e < o->n_start; e++)
                incoming[g->succ[o->start_first + e]]++;
        }
        for (uint32_t k = 0; k < n && ok; k++)
            if (incoming[op0 + k] != g->ops[op0 + k].n_deps) {
                errf(err, errlen, "%s: rank %u, record %u: dependency count %u, but %u records name it", nm, r, k,
                     g->ops[op0 + k].n_deps, incoming[op0 + k]);
                ok = false;
            }
        g->n_succ += (uint32_t)n_apx;
        op0 += n;
    }
    free(incoming);
    if (ok)
        g->rank_first[n_ranks] = op0;
    return ok;
}

/* ---- checks ------------------------------------------------------------------------------------ */

/* Op i's e-th dependant of either kind (requires first, then irequires). */
static uint32_t n_succ_of(const struct goal_sched *g, uint32_t i)
{
    return g->ops[i].n_done + g->ops[i].n_start;
}
static uint32_t succ_of(const struct goal_sched *g, uint32_t i, uint32_t e)
{
    const struct goal_op *o = &g->ops[i];
    return e < o->n_done ? g->succ[o->done_first + e] : g->succ[o->start_first + (e - o->n_done)];
}

/* No op waits, directly or not, for itself (Kahn's algorithm over both
 * kinds of dependency; an op left over lies on or after a cycle, and
 * walking back along unfinished predecessors from it must close one). */
static bool check_cycles(const struct goal_sched *g, char *err, size_t errlen)
{
    uint32_t n = g->n_ops;
    uint32_t *left = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t *stack = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t top = 0, seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        left[i] = g->ops[i].n_deps;
        if (!left[i])
            stack[top++] = i;
    }
    while (top) {
        uint32_t i = stack[--top];
        seen++;
        for (uint32_t e = 0; e < n_succ_of(g, i); e++) {
            uint32_t j = succ_of(g, i, e);
            if (--left[j] == 0)
                stack[top++] = j;
        }
    }
    bool ok = seen == n;
    if (!ok) {
        /* pred[j]: some never-started op that j waits for */
        uint32_t *pred = stack;
        for (uint32_t i = 0; i < n; i++)
            pred[i] = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++) {
            if (!left[i])
                continue;
            for (uint32_t e = 0; e < n_succ_of(g, i); e++) {
                uint32_t j = succ_of(g, i, e);
                if (left[j] && pred[j] == UINT32_MAX)
                    pred[j] = i;
            }
        }
        uint32_t start = 0;
        while (!left[start])
            start++;
        /* walk back n steps: then we are surely on the cycle */
        uint32_t u = start;
        for (uint32_t k = 0; k < n; k++)
            u = pred[u];
        /* the cycle from u, in the order "waits for" */
        char where[256], chain[512];
        op_where(g, u, where, sizeof where);
        size_t used = 0;
        uint32_t v = u, steps = 0;
        chain[0] = 0;
        do {
            if (steps < 8)
                used += (size_t)snprintf(chain + used, sizeof chain - used, "%s%s %u", steps ? " waits for " : "",
                                         g->binary ? "record" : "line", g->ops[v].line);
            v = pred[v];
            steps++;
        } while (v != u && used < sizeof chain - 64);
        /* a cycle of more than 8 ops shows its first 8: the loop above
         * runs round it whole, so v is back at u either way */
        if (v != u || steps > 8)
            snprintf(chain + used, sizeof chain - used, " ...");
        else
            snprintf(chain + used, sizeof chain - used, " waits for %s %u", g->binary ? "record" : "line",
                     g->ops[u].line);
        errf(err, errlen, "%s: dependency cycle in rank %u, no op on it can ever start: %s", where, g->ops[u].rank,
             chain);
    }
    free(left);
    free(stack);
    return ok;
}

/* A message end for the matching check: sorted by (dst, src, tag, op). */
struct mrec {
    uint32_t dst, src, tag, op;
    uint8_t recv;
};

static int cmp_mrec(const void *a, const void *b)
{
    const struct mrec *x = a, *y = b;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

/* Every receive can find a send and every send a receive, by counts that
 * any complete matching must satisfy (so no correct schedule is refused;
 * what passes may still deadlock at run time, which the engine reports):
 * per destination, sends and receives are equally many; per (source,
 * tag), exact receives do not outnumber the sends (with the source's
 * tag -1 sends) and sends do not outnumber the receives that could take
 * them; per source, receives naming it do not outnumber its sends. */
static bool check_matching(const struct goal_sched *g, char *err, size_t errlen)
{
    uint32_t m = g->n_sends + g->n_recvs;
    struct mrec *v = xmalloc(((size_t)m + 1) * sizeof *v);
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n_ops; i++) {
        const struct goal_op *o = &g->ops[i];
        if (o->type == GOAL_SEND)
            v[k++] = (struct mrec){.dst = o->peer, .src = o->rank, .tag = o->tag, .op = i, .recv = 0};
        else if (o->type == GOAL_RECV)
            v[k++] = (struct mrec){.dst = o->rank, .src = o->peer, .tag = o->tag, .op = i, .recv = 1};
    }
    qsort(v, k, sizeof *v, cmp_mrec);
    bool ok = true;
    char where[256], a[16], b[16];
    for (uint32_t d0 = 0; d0 < k && ok;) {
        uint32_t d1 = d0;
        uint64_t sends = 0, recvs = 0, any_src_recvs = 0;
        uint32_t last_send = UINT32_MAX, last_recv = UINT32_MAX;
        while (d1 < k && v[d1].dst == v[d0].dst) {
            if (v[d1].recv) {
                recvs++;
                last_recv = v[d1].op;
                any_src_recvs += v[d1].src == GOAL_ANY;
            } else {
                sends++;
                last_send = v[d1].op;
            }
            d1++;
        }
        uint32_t dst = v[d0].dst;
        if (sends != recvs) {
            uint32_t op = recvs > sends ? last_recv : last_send;
            op_where(g, op, where, sizeof where);
            if (recvs > sends)
                errf(err, errlen, "%s: unmatched receive: rank %u posts %llu receives but is sent %llu messages", where,
                     dst, (unsigned long long)recvs, (unsigned long long)sends);
            else
                errf(err, errlen, "%s: unmatched send: rank %u is sent %llu messages but posts %llu receives", where,
                     dst, (unsigned long long)sends, (unsigned long long)recvs);
            ok = false;
            break;
        }
        /* per source (exact sources only; -1 sorts last) */
        for (uint32_t s0 = d0; s0 < d1 && ok && v[s0].src != GOAL_ANY;) {
            uint32_t s1 = s0;
            uint64_t s_sends = 0, s_recvs = 0, s_anytag_sends = 0, s_anytag_recvs = 0;
            while (s1 < d1 && v[s1].src == v[s0].src) {
                if (v[s1].recv) {
                    s_recvs++;
                    s_anytag_recvs += v[s1].tag == GOAL_ANY;
                } else {
                    s_sends++;
                    s_anytag_sends += v[s1].tag == GOAL_ANY;
                }
                s1++;
            }
            uint32_t src = v[s0].src;
            if (s_recvs > s_sends) {
                uint32_t op = UINT32_MAX;
                for (uint32_t i = s0; i < s1; i++)
                    if (v[i].recv)
                        op = v[i].op;
                op_where(g, op, where, sizeof where);
                errf(err, errlen, "%s: unmatched receive: rank %u posts %llu receives from rank %u, which sends it %llu "
                     "messages", where, dst, (unsigned long long)s_recvs, src, (unsigned long long)s_sends);
                ok = false;
                break;
            }
            for (uint32_t t0 = s0; t0 < s1 && ok && v[t0].tag != GOAL_ANY;) {
                uint32_t t1 = t0;
                uint64_t t_sends = 0, t_recvs = 0;
                uint32_t t_last_recv = UINT32_MAX, t_last_send = UINT32_MAX;
                while (t1 < s1 && v[t1].tag == v[t0].tag) {
                    if (v[t1].recv) {
                        t_recvs++;
                        t_last_recv = v[t1].op;
                    } else {
                        t_sends++;
                        t_last_send = v[t1].op;
                    }
                    t1++;
                }
                peer_text(v[t0].tag, b, sizeof b);
                if (t_recvs > t_sends + s_anytag_sends) {
                    op_where(g, t_last_recv, where, sizeof where);
                    errf(err, errlen, "%s: unmatched receive: rank %u posts %llu receives from rank %u with tag %s, "
                         "which sends it %llu such messages", where, dst, (unsigned long long)t_recvs, src, b,
                         (unsigned long long)(t_sends + s_anytag_sends));
                    ok = false;
                } else if (t_sends > t_recvs + s_anytag_recvs + any_src_recvs) {
                    op_where(g, t_last_send, where, sizeof where);
                    peer_text(dst, a, sizeof a);
                    errf(err, errlen, "%s: unmatched send: rank %u sends rank %s %llu messages with tag %s, which "
                         "posts at most %llu receives that could take them", where, src, a, (unsigned long long)t_sends,
                         b, (unsigned long long)(t_recvs + s_anytag_recvs + any_src_recvs));
                    ok = false;
                }
                t0 = t1;
            }
            s0 = s1;
        }
        d0 = d1;
    }
    free(v);
    return ok;
}

static bool finish_sched(struct goal_sched *g, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < g->n_ops; i++) {
        const struct goal_op *o = &g->ops[i];
        g->n_sends += o->type == GOAL_SEND;
        g->n_recvs += o->type == GOAL_RECV;
        g->n_calcs += o->type == GOAL_CALC;
        if (o->cpu + 1u > g->n_cpus)
            g->n_cpus = o->cpu + 1u;
        if (o->nic + 1u > g->n_nics)
            g->n_nics = o->nic + 1u;
        if ((o->type == GOAL_RECV && o->peer == GOAL_ANY) || (o->type != GOAL_CALC && o->tag == GOAL_ANY))
            g->has_wildcards = true;
    }
    if (!g->n_cpus)
        g->n_cpus = 1;
    if (!g->n_nics)
        g->n_nics = 1;
    return check_cycles(g, err, errlen) && check_matching(g, err, errlen);
}

bool goal_read_buffer(struct goal_sched *g, const char *name, const unsigned char *data, size_t len, char *err,
                      size_t errlen)
{
    sched_reset(g, name);
    bool ok;
    uint64_t magic = len >= 8 ? rd64(data) : 0;
    if (magic == GOAL_MAGIC) {
        ok = parse_binary(g, data, len, err, errlen);
    } else if (magic == GOAL_MAGIC_INVALID) {
        errf(err, errlen, "%s: a binary schedule that a LogGOPSim --save-mem run invalidated (magic 2342)", name);
        ok = false;
    } else if (memchr(data, 0, len)) {
        errf(err, errlen, "%s: neither a GOAL text schedule (it has NUL bytes) nor a binary one (magic %llu, not 4223)",
             name, (unsigned long long)magic);
        ok = false;
    } else {
        ok = parse_text(g, data, len, err, errlen);
    }
    ok = ok && finish_sched(g, err, errlen);
    if (!ok) {
        char *keep = g->name;
        g->name = NULL;
        goal_sched_free(g);
        free(keep);
    }
    return ok;
}

static unsigned char *read_whole(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    *len = n;
    return buf;
}

bool goal_read_file(struct goal_sched *g, const char *path, char *err, size_t errlen)
{
    size_t len;
    unsigned char *data = read_whole(path, &len, err, errlen);
    if (!data)
        return false;
    bool ok = goal_read_buffer(g, path, data, len, err, errlen);
    free(data);
    return ok;
}

bool goal_read_map(const struct goal_sched *g, const char *path, uint32_t *hosts, char *err, size_t errlen)
{
    size_t len;
    unsigned char *data = read_whole(path, &len, err, errlen);
    if (!data)
        return false;
    uint32_t nn = g->n_nics;
    uint32_t *line_of = xcalloc(g->n_ranks, sizeof(uint32_t));
    bool ok = true;
    uint32_t line = 1;
    const unsigned char *p = data, *end = data + len;
    while (p < end && ok) {
        const unsigned char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        char buf[4096];
        size_t n = (size_t)(eol - p);
        if (n >= sizeof buf) {
            errf(err, errlen, "%s:%u: line longer than %zu bytes", path, line, sizeof buf - 1);
            ok = false;
            break;
        }
        memcpy(buf, p, n);
        buf[n] = 0;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *save = NULL, *w = strtok_r(buf, " \t\r", &save);
        if (w) {
            uint64_t rank;
            if (parse_u64(w, &rank) != NUM_OK || rank >= g->n_ranks) {
                char sb[SHOWN_BUF];
                errf(err, errlen, "%s:%u: '%s' is not a rank of the schedule (0 to %u)", path, line, shown(w, sb),
                     g->n_ranks - 1);
                ok = false;
                break;
            }
            if (line_of[rank]) {
                errf(err, errlen, "%s:%u: rank %llu is mapped twice (first on line %u)", path, line,
                     (unsigned long long)rank, line_of[rank]);
                ok = false;
                break;
            }
            line_of[rank] = line;
            for (uint32_t k = 0; k <= nn && ok; k++) {
                w = strtok_r(NULL, " \t\r", &save);
                if (k == nn) {
                    if (w) {
                        char sb[SHOWN_BUF];
                        errf(err, errlen, "%s:%u: '%s' after rank %llu's %u host%s (the schedule uses %u NIC%s)", path,
                             line, shown(w, sb), (unsigned long long)rank, nn, nn == 1 ? "" : "s", nn,
                             nn == 1 ? "" : "s");
                        ok = false;
                    }
                    break;
                }
                uint64_t h;
                if (!w) {
                    errf(err, errlen, "%s:%u: rank %llu needs %u host%s, one per NIC of the schedule", path, line,
                         (unsigned long long)rank, nn, nn == 1 ? "" : "s");
                    ok = false;
                } else if (parse_u64(w, &h) != NUM_OK || h >= (1u << 24)) {
                    char sb[SHOWN_BUF];
                    errf(err, errlen, "%s:%u: '%s' is not a host number (0 to %u)", path, line, shown(w, sb),
                         (1u << 24) - 1);
                    ok = false;
                } else {
                    hosts[rank * nn + k] = (uint32_t)h;
                }
            }
        }
        p = eol + (eol < end);
        line++;
    }
    for (uint32_t r = 0; r < g->n_ranks && ok; r++)
        if (!line_of[r]) {
            errf(err, errlen, "%s: rank %u has no line (every rank of the schedule needs a host)", path, r);
            ok = false;
        }
    free(line_of);
    free(data);
    return ok;
}

/* ---- the engine -------------------------------------------------------------------------------- */

enum op_state { OP_WAITING = 0, OP_READY = 1, OP_STARTED = 2, OP_DONE = 3 };

/* A FIFO of ops, linked through goal_run.next. */
struct fifo {
    uint32_t head, tail;
};

/* A (rank, source, tag, queue) bucket of the matching tables. */
struct bucket {
    uint32_t rank, src, tag;
    uint8_t uq; /* 0: posted receives, 1: unexpected messages */
    uint8_t used;
    struct fifo q;
};

struct goal_run {
    struct goal_sched g;
    uint32_t *hosts;          /* [rank * n_nics + nic] */
    uint32_t *conn_of;        /* [op]: a send's connection (GOAL_LAZY: made when it starts), UINT32_MAX when
                                 both ends share a host */
    uint32_t *op_of_conn;     /* [conn]: the send op whose message a connection (a flow slot) carries */
    uint32_t cap_op_of_conn;
    uint32_t *flow_id;        /* [op]: a send's row in flows.csv (its flow's id), 0 until it has one */
    bool lazy;                /* flows made as sends start (the transport adds flows during a run) */
    uint32_t n_net_msgs;      /* sends between two hosts */
    uint32_t *left;           /* [op]: dependencies not met yet */
    uint8_t *state;           /* [op]: enum op_state */
    uint32_t *next;           /* [op]: link in a CPU FIFO, then in a matching queue */
    uint32_t *seq;            /* [op]: when it was posted (recv) or arrived (send's message) */
    uint8_t *arrived;         /* [op]: a send's message reached its receiver */
    uint32_t seq_next;
    struct fifo *cpu_q;       /* [rank * n_cpus + cpu] */
    uint8_t *cpu_busy;        /* a calc holds it */
    uint8_t *cpu_dirty;       /* on the pump's list */
    uint32_t *dirty;          /* the pump's list */
    uint32_t n_dirty;
    uint32_t *rank_left;      /* [rank]: ops not done */
    simtime_ps *rank_finish;  /* [rank]: when its last op completed */
    struct bucket *buckets;
    uint32_t bucket_cap;
    struct fifo *rq_wild, *uq_wild; /* [rank]: receives with a -1, messages with tag -1 */
    uint32_t ops_done, calcs_running, msgs_in_flight;
    simtime_ps done_ps;       /* SIMTIME_NEVER until complete */
    simtime_ps deadlock_ps;   /* SIMTIME_NEVER unless it deadlocked */
    simtime_ps *t_start, *t_end; /* --goal-ops: [op] */
    uint64_t matched_unexpected; /* receives that found their message already there */
    /* --goal-send-done path: a send op completes when a note from its
     * receiver's host reaches its sender's (goal_at, sent_note) */
    bool send_path;
    uint32_t notes_pending;   /* notes on their way in this process's view (plain runs: all of them) */
    uint32_t ranks_to_start;  /* path: ranks whose start event has not run (plain runs) */
    /* a parallel run (goal_partition): each process runs its own ranks, and
     * the schedule's end and deadlock are decided from every process's
     * counts at window ends (goal_window_counts, goal_window_end) */
    bool partitioned;
    uint64_t msgs_started, msgs_arrived, notes_sent, notes_done, ranks_started;
    simtime_ps last_pump_ps;  /* the last event that ran the pump here */
    simtime_ps last_done_ps;  /* the last op completed here */
    /* path: the notes' latencies, a row per receiving host (to every
     * host), direct-mapped into lat_rows slots by host (lat_host: whose
     * row a slot holds, UINT32_MAX none) within GOAL_LAT_CACHE_BYTES:
     * sim.c keeps the shortest paths from one host only, and consecutive
     * matches are at different hosts in most collectives (an all-to-all of
     * 256 ranks on 1,024 hosts ran a shortest-path search per message) */
    simtime_ps *lat;
    uint32_t *lat_host;
    uint32_t lat_rows;
};

#define GOAL_EV_START UINT32_MAX
#define GOAL_EV_SEND 0x80000000u /* id | op: make and start send op's flow (ops < GOAL_MAX_OPS < 2^31) */
#define GOAL_EV_NOTE 0x40000000u /* id | op: path: send op's receiver matched it (ops < GOAL_MAX_OPS < 2^30) */
#define GOAL_EV_RANK 0xC0000000u /* id | rank: path: the rank's start (ranks < 2^24) */
#define GOAL_LAZY (UINT32_MAX - 1)

/* The host of a rank's NIC. */
static uint32_t rank_host(const struct goal_run *G, uint32_t rank, uint32_t nic)
{
    return G->hosts[rank * G->g.n_nics + nic];
}

/* Schedules EV_GOAL `id` at t. Under --goal-send-done path the event names
 * the host whose rank's state it changes (1 + host in aux: sim.c's
 * sim_event_origin_other), so a parallel run runs it on that host's
 * process; under match it runs where it was scheduled, as before. */
static void goal_at(struct sim *s, simtime_ps t, uint32_t id, uint32_t host)
{
    if (s->goal->send_path)
        eq_push_aux(&s->eq, t, EV_GOAL, id, 1 + host);
    else
        sim_at(s, t, EV_GOAL, id);
}

static void fifo_push(struct goal_run *G, struct fifo *f, uint32_t op)
{
    G->next[op] = UINT32_MAX;
    if (f->head == UINT32_MAX)
        f->head = op;
    else
        G->next[f->tail] = op;
    f->tail = op;
}

static uint32_t fifo_pop(struct goal_run *G, struct fifo *f)
{
    uint32_t op = f->head;
    if (op != UINT32_MAX) {
        f->head = G->next[op];
        if (f->head == UINT32_MAX)
            f->tail = UINT32_MAX;
    }
    return op;
}

/* Removes op from f (a short wildcard list: linear). */
static void fifo_remove(struct goal_run *G, struct fifo *f, uint32_t op)
{
    uint32_t prev = UINT32_MAX;
    for (uint32_t i = f->head; i != UINT32_MAX; prev = i, i = G->next[i]) {
        if (i != op)
            continue;
        if (prev == UINT32_MAX)
            f->head = G->next[i];
        else
            G->next[prev] = G->next[i];
        if (f->tail == i)
            f->tail = prev;
        return;
    }
}

static uint64_t goal_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static struct fifo *bucket_get(struct goal_run *G, uint32_t rank, uint32_t src, uint32_t tag, uint8_t uq)
{
    uint64_t h = goal_mix(((uint64_t)rank << 32 | src) ^ goal_mix((uint64_t)tag << 1 | uq));
    uint32_t j = (uint32_t)h & (G->bucket_cap - 1);
    for (;;) {
        struct bucket *b = &G->buckets[j];
        if (!b->used) {
            *b = (struct bucket){.rank = rank, .src = src, .tag = tag, .uq = uq, .used = 1,
                                 .q = {UINT32_MAX, UINT32_MAX}};
            return &b->q;
        }
        if (b->rank == rank && b->src == src && b->tag == tag && b->uq == uq)
            return &b->q;
        j = (j + 1) & (G->bucket_cap - 1);
    }
}

static bool tags_match(uint32_t want, uint32_t got)
{
    return want == GOAL_ANY || got == GOAL_ANY || want == got;
}

static void make_ready(struct goal_run *G, uint32_t op)
{
    const struct goal_op *o = &G->g.ops[op];
    uint32_t c = o->rank * G->g.n_cpus + o->cpu;
    G->state[op] = OP_READY;
    fifo_push(G, &G->cpu_q[c], op);
    if (!G->cpu_dirty[c]) {
        G->cpu_dirty[c] = 1;
        G->dirty[G->n_dirty++] = c;
    }
}

static void release(struct goal_run *G, uint32_t first, uint32_t n)
{
    for (uint32_t e = 0; e < n; e++) {
        uint32_t j = G->g.succ[first + e];
        if (--G->left[j] == 0)
            make_ready(G, j);
    }
}

static void complete(struct sim *s, uint32_t op)
{
    struct goal_run *G = s->goal;
    const struct goal_op *o = &G->g.ops[op];
    G->state[op] = OP_DONE;
    if (G->t_end)
        G->t_end[op] = s->now;
    G->ops_done++;
    G->last_done_ps = s->now;
    if (--G->rank_left[o->rank] == 0)
        G->rank_finish[o->rank] = s->now;
    release(G, o->done_first, o->n_done);
    if (G->ops_done == G->g.n_ops && !G->partitioned) {
        G->done_ps = s->now;
        s->arrivals_open = false; /* the run ends once the last message is acknowledged too */
        if (s->flows_finished == s->n_msgs)
            s->stop = true;
    }
}

#define GOAL_LAT_CACHE_BYTES (64u << 20)

/* The latency of a note from host a to host b (goal_run.lat). */
static simtime_ps note_latency_ps(struct sim *s, uint32_t a, uint32_t b)
{
    struct goal_run *G = s->goal;
    uint32_t nh = s->n_hosts;
    if (!G->lat_rows) {
        uint64_t rows = GOAL_LAT_CACHE_BYTES / ((uint64_t)nh * sizeof(simtime_ps));
        G->lat_rows = rows < 1 ? 1 : rows > nh ? nh : (uint32_t)rows;
        G->lat = xmalloc((size_t)G->lat_rows * nh * sizeof(simtime_ps));
        G->lat_host = xmalloc((size_t)G->lat_rows * sizeof(uint32_t));
        for (uint32_t i = 0; i < G->lat_rows; i++)
            G->lat_host[i] = UINT32_MAX;
    }
    uint32_t slot = a % G->lat_rows;
    simtime_ps *row = G->lat + (size_t)slot * nh;
    if (G->lat_host[slot] != a) {
        /* one search from a (which exits 2 if b is out of reach) gives
         * the row: trig_lat_ps holds a's latency to every node, the hosts
         * first */
        simtime_ps ps = sim_trigger_latency_ps(s, a, b);
        memcpy(row, s->trig_lat_ps, (size_t)nh * sizeof(simtime_ps));
        G->lat_host[slot] = a;
        return ps;
    }
    if (row[b] == SIMTIME_NEVER)
        return sim_trigger_latency_ps(s, a, b); /* exits 2: b is out of reach */
    return row[b];
}

/* A message (of send op `snd`) meets receive `rcv`: both complete, the
 * receive now and, under --goal-send-done path, the send when a control
 * packet from the receiver's host could reach the sender's: after the
 * minimum one-way latency (sim_trigger_latency_ps, the floor
 * --trigger-delay path uses; 0 when both ends share a host, and then at
 * once). ATLAHS's htsim backend completes the send at the sender's last
 * ACK, later still (docs/goal.md). The note is an event of the sender's
 * host: one for another process's host leaves like a packet, and its
 * latency crosses a link between processes, so it is at least the window
 * (pdes.c checks). */
static void matched(struct sim *s, uint32_t snd, uint32_t rcv)
{
    struct goal_run *G = s->goal;
    const struct goal_op *o = &G->g.ops[snd];
    uint32_t src = rank_host(G, o->rank, o->nic), dst = rank_host(G, o->peer, o->nic);
    if (!G->send_path || src == dst) {
        complete(s, snd);
        complete(s, rcv);
        return;
    }
    simtime_ps at = s->now + note_latency_ps(s, dst, src);
    G->notes_pending++;
    G->notes_sent++;
    if (s->node_remote && s->node_remote[src])
        s->export_event(s, at, (*s->eq.seq_next)++, EV_GOAL, GOAL_EV_NOTE | snd, 1 + src);
    else
        goal_at(s, at, GOAL_EV_NOTE | snd, src);
    complete(s, rcv);
}

/* Send op snd's message is at its receiver: a posted receive takes it, or
 * it waits as unexpected. */
static void message_arrived(struct sim *s, uint32_t snd)
{
    struct goal_run *G = s->goal;
    const struct goal_op *o = &G->g.ops[snd];
    G->msgs_in_flight--;
    G->msgs_arrived++;
    G->arrived[snd] = 1;
    G->seq[snd] = G->seq_next++;
    uint32_t dst = o->peer;
    /* candidates: the first posted exact receive, and the first matching
     * wildcard receive; the earlier posted wins */
    struct fifo *exact = NULL;
    if (o->tag != GOAL_ANY) {
        exact = bucket_get(G, dst, o->rank, o->tag, 0);
    } else {
        /* a tag -1 send takes the earliest posted receive from its source,
         * whatever its tag: a scan of the buckets (rare: traces seldom
         * write tag -1 on a send) */
        for (uint32_t j = 0; j < G->bucket_cap; j++) {
            struct bucket *b = &G->buckets[j];
            if (b->used && !b->uq && b->rank == dst && b->src == o->rank && b->q.head != UINT32_MAX &&
                (!exact || G->seq[b->q.head] < G->seq[exact->head]))
                exact = &b->q;
        }
    }
    uint32_t best = exact ? exact->head : UINT32_MAX;
    uint32_t wild = UINT32_MAX;
    for (uint32_t i = G->rq_wild[dst].head; i != UINT32_MAX; i = G->next[i]) {
        const struct goal_op *r = &G->g.ops[i];
        if ((r->peer == GOAL_ANY || r->peer == o->rank) && tags_match(r->tag, o->tag)) {
            wild = i;
            break;
        }
    }
    if (wild != UINT32_MAX && (best == UINT32_MAX || G->seq[wild] < G->seq[best]))
        best = wild;
    if (best != UINT32_MAX) {
        if (best == wild)
            fifo_remove(G, &G->rq_wild[dst], best);
        else
            fifo_pop(G, exact);
        matched(s, snd, best);
        return;
    }
    if (o->tag == GOAL_ANY)
        fifo_push(G, &G->uq_wild[dst], snd);
    else
        fifo_push(G, bucket_get(G, dst, o->rank, o->tag, 1), snd);
}

/* Receive op rcv is posted: a waiting message is taken, or it waits. */
static void post_recv(struct sim *s, uint32_t rcv)
{
    struct goal_run *G = s->goal;
    const struct goal_op *o = &G->g.ops[rcv];
    G->seq[rcv] = G->seq_next++;
    uint32_t best = UINT32_MAX;
    struct fifo *exact = NULL;
    bool from_wild = false;
    if (o->peer != GOAL_ANY && o->tag != GOAL_ANY) {
        exact = bucket_get(G, o->rank, o->peer, o->tag, 1);
        best = exact->head;
    } else {
        /* a wildcard receive: the earliest arrived message of any matching
         * bucket; wildcard receives are rare, so the scan is over the
         * buckets (the table's size) */
        for (uint32_t j = 0; j < G->bucket_cap; j++) {
            struct bucket *b = &G->buckets[j];
            if (!b->used || !b->uq || b->rank != o->rank || b->q.head == UINT32_MAX)
                continue;
            if ((o->peer == GOAL_ANY || o->peer == b->src) && tags_match(o->tag, b->tag) &&
                (best == UINT32_MAX || G->seq[b->q.head] < G->seq[best])) {
                best = b->q.head;
                exact = &b->q;
            }
        }
    }
    /* messages with tag -1, in arrival order: the first that matches */
    for (uint32_t i = G->uq_wild[o->rank].head; i != UINT32_MAX; i = G->next[i]) {
        if (o->peer != GOAL_ANY && o->peer != G->g.ops[i].rank)
            continue;
        if (best == UINT32_MAX || G->seq[i] < G->seq[best]) {
            best = i;
            from_wild = true;
        }
        break;
    }
    if (best != UINT32_MAX) {
        if (from_wild)
            fifo_remove(G, &G->uq_wild[o->rank], best);
        else
            fifo_pop(G, exact);
        G->matched_unexpected++;
        matched(s, best, rcv);
        return;
    }
    if (o->peer == GOAL_ANY || o->tag == GOAL_ANY)
        fifo_push(G, &G->rq_wild[o->rank], rcv);
    else
        fifo_push(G, bucket_get(G, o->rank, o->peer, o->tag, 0), rcv);
}

static void start_op(struct sim *s, uint32_t op)
{
    struct goal_run *G = s->goal;
    const struct goal_op *o = &G->g.ops[op];
    G->state[op] = OP_STARTED;
    if (G->t_start)
        G->t_start[op] = s->now;
    release(G, o->start_first, o->n_start);
    switch (o->type) {
    case GOAL_CALC:
        if (o->size == 0) {
            complete(s, op);
            break;
        }
        G->cpu_busy[o->rank * G->g.n_cpus + o->cpu] = 1;
        G->calcs_running++;
        /* calc lengths are nanoseconds (ATLAHS's htsim backend adds them to
         * its clock in ns); a length past the clock's range never ends */
        goal_at(s, o->size > (SIMTIME_NEVER - s->now) / PS_PER_NS ? SIMTIME_NEVER - 1 : s->now + o->size * PS_PER_NS,
                op, rank_host(G, o->rank, 0));
        break;
    case GOAL_SEND: {
        G->msgs_in_flight++;
        G->msgs_started++;
        uint32_t c = G->conn_of[op];
        if (c == UINT32_MAX) {
            message_arrived(s, op); /* both ends on one host: no network */
        } else if (c == GOAL_LAZY) {
            /* its flow is made by an event of its own: this may run inside a
             * transport's delivery, which must not see the flow table move */
            sim_at(s, s->now, EV_GOAL, GOAL_EV_SEND | op);
        } else {
            s->flows[c].start_scheduled = true;
            sim_at(s, s->now, EV_FLOW_START, c);
        }
        break;
    }
    case GOAL_RECV:
        post_recv(s, op);
        break;
    default:
        break;
    }
}

/* Runs every CPU that has ready ops and is free, until none has. */
static void pump(struct sim *s)
{
    struct goal_run *G = s->goal;
    while (G->n_dirty) {
        uint32_t c = G->dirty[--G->n_dirty];
        G->cpu_dirty[c] = 0;
        while (!G->cpu_busy[c]) {
            uint32_t op = fifo_pop(G, &G->cpu_q[c]);
            if (op == UINT32_MAX)
                break;
            start_op(s, op);
        }
    }
    G->last_pump_ps = s->now;
    if (G->partitioned)
        return; /* decided at window ends from every process's counts (goal_window_end) */
    if (G->done_ps == SIMTIME_NEVER && G->deadlock_ps == SIMTIME_NEVER && !G->calcs_running &&
        !G->msgs_in_flight && !G->notes_pending && !G->ranks_to_start) {
        /* nothing runs, nothing is on its way, and ops remain: none can
         * ever start or complete */
        G->deadlock_ps = s->now;
        s->arrivals_open = false;
        if (s->flows_finished == s->n_msgs)
            s->stop = true;
    }
}

uint32_t goal_build_matrix(struct sim *s)
{
    const struct config *c = &s->cfg;
    char err[1024];
    struct goal_run *G = xcalloc(1, sizeof *G);
    s->goal = G;
    if (!goal_read_file(&G->g, c->goal_path, err, sizeof err))
        die_input("%s", err);
    struct goal_sched *g = &G->g;
    uint64_t slots = (uint64_t)g->n_ranks * g->n_nics;
    if (slots > (1u << 24))
        die_input("%s: %u ranks x %u NICs is more than %u hosts", g->name, g->n_ranks, g->n_nics, 1u << 24);
    G->hosts = xmalloc(slots * sizeof(uint32_t));
    if (c->goal_map_path) {
        if (!goal_read_map(g, c->goal_map_path, G->hosts, err, sizeof err))
            die_input("%s", err);
    } else {
        for (uint64_t i = 0; i < slots; i++)
            G->hosts[i] = (uint32_t)i; /* ATLAHS htsim backend: rank * nics + nic */
    }
    uint32_t need = 0;
    for (uint64_t i = 0; i < slots; i++)
        if (G->hosts[i] + 1 > need)
            need = G->hosts[i] + 1;
    if (need < 2)
        need = 2; /* the smallest fabric */
    /* one connection per send between two hosts: made when the send starts
     * where the run's transport can add flows during a run (then --stream
     * recycles finished ones and the network's state is the messages in
     * flight), else all before the run */
    const struct transport_ops *tp = transport_find(c->transport_name);
    G->send_path = c->goal_send_done;
    /* under --goal-send-done path every connection is made before the run,
     * lazy transports too: a parallel run's processes must hold the same
     * flow table, and a flow made by its sender's process during the run
     * would exist there only (plain runs do the same, so their outputs
     * are the parallel runs') */
    G->lazy = tp && tp->flow_add && !G->send_path;
    G->conn_of = xmalloc(((size_t)g->n_ops + 1) * sizeof(uint32_t));
    G->flow_id = xcalloc((size_t)g->n_ops + 1, sizeof(uint32_t));
    uint32_t n_conns = 0;
    for (uint32_t i = 0; i < g->n_ops; i++) {
        const struct goal_op *o = &g->ops[i];
        G->conn_of[i] = UINT32_MAX;
        if (o->type == GOAL_SEND && G->hosts[o->rank * g->n_nics + o->nic] != G->hosts[o->peer * g->n_nics + o->nic]) {
            G->conn_of[i] = G->lazy ? GOAL_LAZY : n_conns;
            n_conns++;
        }
    }
    G->n_net_msgs = n_conns;
    if (n_conns >= GOAL_TRIGGER_BASE)
        die_input("%s: %u messages between hosts, more than %u", g->name, n_conns, GOAL_TRIGGER_BASE - 1);
    if (G->lazy)
        n_conns = 0;
    struct conn_matrix *cm = &s->cm;
    memset(cm, 0, sizeof *cm);
    cm->nodes = need;
    cm->conns = xcalloc(n_conns ? n_conns : 1, sizeof *cm->conns);
    G->op_of_conn = xmalloc(((size_t)n_conns + 1) * sizeof(uint32_t));
    G->cap_op_of_conn = n_conns + 1;
    for (uint32_t i = 0; i < g->n_ops; i++) {
        uint32_t k = G->conn_of[i];
        if (k >= GOAL_LAZY)
            continue;
        const struct goal_op *o = &g->ops[i];
        G->op_of_conn[k] = i;
        G->flow_id[i] = k + 1;
        cm->conns[k] = (struct cm_conn){
            .src = G->hosts[o->rank * g->n_nics + o->nic],
            .dst = G->hosts[o->peer * g->n_nics + o->nic],
            .id = k + 1,
            .size_bytes = o->size ? o->size : 1, /* an empty message still crosses the network (ATLAHS: 1 byte) */
            .start_ps = SIMTIME_NEVER,
            .start_trigger = CM_NO_TRIGGER,
            .send_done_trigger = CM_NO_TRIGGER,
            .recv_done_trigger = GOAL_TRIGGER_BASE + k,
            .msg_prev = CM_NO_MSG,
            .msg_next = CM_NO_MSG,
            .msg_index = 1,
            .tclass = CM_CLASS_AUTO,
            .prio_class = 1,
            .line = g->binary ? 0 : o->line,
        };
    }
    cm->n_conns = n_conns;
    return need;
}

void goal_start(struct sim *s)
{
    struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    if (s->n_hosts < s->cm.nodes) /* a -topo with fewer hosts than the map names (sim.c checks Nodes) */
        die_input("%s: the schedule needs %u hosts, the fabric has %u", g->name, s->cm.nodes, s->n_hosts);
    if ((uint64_t)g->n_ranks * g->n_cpus > (1u << 28))
        die_input("%s: %u ranks x %u CPUs is more than %u CPUs in all", g->name, g->n_ranks, g->n_cpus, 1u << 28);
    uint32_t n = g->n_ops, ncpu = g->n_ranks * g->n_cpus;
    G->left = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
    G->state = xcalloc((size_t)n + 1, 1);
    G->next = xmalloc(((size_t)n + 1) * sizeof(uint32_t));
    G->seq = xcalloc((size_t)n + 1, sizeof(uint32_t));
    G->arrived = xcalloc((size_t)n + 1, 1);
    G->cpu_q = xmalloc(((size_t)ncpu + 1) * sizeof *G->cpu_q);
    G->cpu_busy = xcalloc((size_t)ncpu + 1, 1);
    G->cpu_dirty = xcalloc((size_t)ncpu + 1, 1);
    G->dirty = xmalloc(((size_t)ncpu + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < ncpu; i++)
        G->cpu_q[i] = (struct fifo){UINT32_MAX, UINT32_MAX};
    G->rq_wild = xmalloc(((size_t)g->n_ranks + 1) * sizeof(struct fifo));
    G->uq_wild = xmalloc(((size_t)g->n_ranks + 1) * sizeof(struct fifo));
    G->rank_left = xcalloc((size_t)g->n_ranks + 1, sizeof(uint32_t));
    G->rank_finish = xcalloc((size_t)g->n_ranks + 1, sizeof(simtime_ps));
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        G->rq_wild[r] = G->uq_wild[r] = (struct fifo){UINT32_MAX, UINT32_MAX};
        G->rank_left[r] = g->rank_first[r + 1] - g->rank_first[r];
    }
    /* at most one bucket per send and per receive, at most half full */
    G->bucket_cap = 64;
    while (G->bucket_cap < 2ull * (g->n_sends + g->n_recvs) + 2)
        G->bucket_cap *= 2;
    G->buckets = xcalloc(G->bucket_cap, sizeof *G->buckets);
    for (uint32_t i = 0; i < n; i++)
        G->left[i] = g->ops[i].n_deps;
    if (s->cfg.goal_ops) {
        G->t_start = xmalloc(((size_t)n + 1) * sizeof(simtime_ps));
        G->t_end = xmalloc(((size_t)n + 1) * sizeof(simtime_ps));
        for (uint32_t i = 0; i < n; i++)
            G->t_start[i] = G->t_end[i] = SIMTIME_NEVER;
    }
    G->done_ps = G->deadlock_ps = SIMTIME_NEVER;
    s->arrivals_open = true; /* all messages done is not the end: the schedule says when */
    if (G->send_path && n) {
        /* one start per rank, an event of its host (goal_at), so a parallel
         * run starts each rank on its own process */
        G->ranks_to_start = g->n_ranks;
        for (uint32_t r = 0; r < g->n_ranks; r++)
            goal_at(s, 0, GOAL_EV_RANK | r, rank_host(G, r, 0));
        return;
    }
    sim_at(s, 0, EV_GOAL, GOAL_EV_START);
}

void goal_event(struct sim *s, uint32_t id)
{
    struct goal_run *G = s->goal;
    if (id != GOAL_EV_START && (id & GOAL_EV_RANK) == GOAL_EV_RANK) {
        uint32_t r = id & ~GOAL_EV_RANK;
        for (uint32_t i = G->g.rank_first[r]; i < G->g.rank_first[r + 1]; i++)
            if (!G->left[i])
                make_ready(G, i);
        G->ranks_to_start--;
        G->ranks_started++;
        pump(s);
        return;
    }
    if ((id & GOAL_EV_RANK) == GOAL_EV_NOTE) {
        /* the sender's host hears that its message was matched */
        G->notes_pending--;
        G->notes_done++;
        complete(s, id & ~GOAL_EV_NOTE);
        pump(s);
        return;
    }
    if (id != GOAL_EV_START && (id & GOAL_EV_SEND)) {
        /* a send's message: a flow of the run's transport and balancer */
        uint32_t op = id & ~GOAL_EV_SEND;
        const struct goal_op *o = &G->g.ops[op];
        uint32_t nn = G->g.n_nics;
        uint32_t fi = transport_add_flow(s, G->hosts[o->rank * nn + o->nic], G->hosts[o->peer * nn + o->nic],
                                         o->size ? o->size : 1);
        s->cm.conns[fi].recv_done_trigger = GOAL_TRIGGER_BASE + fi;
        s->cm.conns[fi].line = G->g.binary ? 0 : o->line;
        if (fi >= G->cap_op_of_conn) {
            G->cap_op_of_conn = s->cap_flows > fi ? s->cap_flows : fi + 1;
            G->op_of_conn = xrealloc(G->op_of_conn, (size_t)G->cap_op_of_conn * sizeof(uint32_t));
        }
        G->op_of_conn[fi] = op;
        G->flow_id[op] = s->cm.conns[fi].id;
        s->flows[fi].start_scheduled = true;
        transport_flow_start(s, fi);
        return;
    }
    if (id == GOAL_EV_START) {
        for (uint32_t i = 0; i < G->g.n_ops; i++)
            if (!G->left[i])
                make_ready(G, i);
        if (!G->g.n_ops) {
            G->done_ps = s->now;
            s->arrivals_open = false;
            s->stop = s->flows_finished == s->n_msgs;
            return;
        }
    } else {
        const struct goal_op *o = &G->g.ops[id];
        uint32_t c = o->rank * G->g.n_cpus + o->cpu;
        G->cpu_busy[c] = 0;
        G->calcs_running--;
        complete(s, id);
        if (!G->cpu_dirty[c]) {
            G->cpu_dirty[c] = 1;
            G->dirty[G->n_dirty++] = c;
        }
    }
    pump(s);
}

void goal_delivered(struct sim *s, uint32_t conn)
{
    struct goal_run *G = s->goal;
    if (conn >= s->cm.n_conns || conn >= G->cap_op_of_conn)
        die_internal("GOAL: delivery of unknown connection %u", conn);
    uint32_t op = G->op_of_conn[conn];
    if (G->arrived[op])
        return; /* a transport that tells twice: the message arrived once */
    message_arrived(s, op);
    pump(s);
}

/* ---- parallel runs ----------------------------------------------------------------------------- */

bool goal_check_partition(const struct sim *s, const uint32_t *part, char *err, size_t errlen)
{
    const struct goal_run *G = s->goal;
    for (uint32_t r = 0; r < G->g.n_ranks; r++)
        for (uint32_t k = 1; k < G->g.n_nics; k++) {
            uint32_t a = rank_host(G, r, 0), b = rank_host(G, r, k);
            if (part[a] != part[b]) {
                errf(err, errlen, "%s: rank %u's NICs are on hosts %u and %u, of processes %u and %u; parallel runs "
                     "need a rank's hosts on one process (its CPUs' state is one)", G->g.name, r, a, b, part[a],
                     part[b]);
                return false;
            }
        }
    return true;
}

void goal_partition(struct sim *s)
{
    s->goal->partitioned = true;
}

void goal_window_counts(const struct sim *s, int64_t v[4])
{
    const struct goal_run *G = s->goal;
    v[0] = G->ops_done;
    v[1] = (int64_t)G->calcs_running + (int64_t)(G->msgs_started - G->msgs_arrived) +
           (int64_t)(G->notes_sent - G->notes_done) - (int64_t)G->ranks_started;
    v[2] = (int64_t)G->last_pump_ps;
    v[3] = (int64_t)G->last_done_ps;
}

void goal_window_end(struct sim *s, const int64_t v[4])
{
    struct goal_run *G = s->goal;
    if (G->done_ps != SIMTIME_NEVER || G->deadlock_ps != SIMTIME_NEVER)
        return;
    /* ranks not started yet count as pending (path starts each rank by an
     * event of its own: goal_start) */
    int64_t pending = v[1] + (G->send_path && G->g.n_ops ? (int64_t)G->g.n_ranks : 0);
    if ((uint64_t)v[0] == G->g.n_ops)
        G->done_ps = (simtime_ps)v[3];
    else if (pending == 0)
        G->deadlock_ps = (simtime_ps)v[2];
    else
        return;
    s->arrivals_open = false; /* each process's stop test then waits for its own flows only */
}

/* Words per op: state, dependencies left, start, end; per rank: ops
 * left, finish; then ops done and receives matched at once. */
size_t goal_state_words(const struct sim *s)
{
    const struct goal_run *G = s->goal;
    return 4 * (size_t)G->g.n_ops + 2 * (size_t)G->g.n_ranks + 2;
}

static int64_t t64(simtime_ps t)
{
    return t >= (simtime_ps)INT64_MAX ? INT64_MAX : (int64_t)t;
}

static simtime_ps t_of(int64_t v)
{
    return v == INT64_MAX ? SIMTIME_NEVER : (simtime_ps)v;
}

void goal_state_export(const struct sim *s, const uint8_t *node_remote, int64_t *v)
{
    const struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    memset(v, 0, goal_state_words(s) * sizeof *v);
    int64_t *rk = v + 4 * (size_t)g->n_ops;
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        if (node_remote[rank_host(G, r, 0)])
            continue;
        for (uint32_t i = g->rank_first[r]; i < g->rank_first[r + 1]; i++) {
            int64_t *x = v + 4 * (size_t)i;
            x[0] = G->state[i];
            x[1] = G->left[i];
            x[2] = G->t_start ? t64(G->t_start[i]) : 0;
            x[3] = G->t_end ? t64(G->t_end[i]) : 0;
        }
        rk[2 * r] = G->rank_left[r];
        rk[2 * r + 1] = t64(G->rank_finish[r]);
    }
    rk[2 * (size_t)g->n_ranks] = G->ops_done;
    rk[2 * (size_t)g->n_ranks + 1] = (int64_t)G->matched_unexpected;
}

void goal_state_import(struct sim *s, const int64_t *v)
{
    struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    for (uint32_t i = 0; i < g->n_ops; i++) {
        const int64_t *x = v + 4 * (size_t)i;
        G->state[i] = (uint8_t)x[0];
        G->left[i] = (uint32_t)x[1];
        if (G->t_start) {
            G->t_start[i] = t_of(x[2]);
            G->t_end[i] = t_of(x[3]);
        }
    }
    const int64_t *rk = v + 4 * (size_t)g->n_ops;
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        G->rank_left[r] = (uint32_t)rk[2 * r];
        G->rank_finish[r] = t_of(rk[2 * r + 1]);
    }
    G->ops_done = (uint32_t)rk[2 * (size_t)g->n_ranks];
    G->matched_unexpected = (uint64_t)rk[2 * (size_t)g->n_ranks + 1];
}

simtime_ps goal_completion_ps(const struct sim *s)
{
    return s->goal ? s->goal->done_ps : SIMTIME_NEVER;
}

/* ---- outputs ----------------------------------------------------------------------------------- */

static const char *goal_status(const struct goal_run *G)
{
    return G->done_ps != SIMTIME_NEVER ? "complete" : G->deadlock_ps != SIMTIME_NEVER ? "deadlocked" : "unfinished";
}

/* What keeps rank r from finishing: its first op (in file order) not done. */
static void stuck_reason(const struct goal_run *G, uint32_t r, char *buf, size_t len)
{
    const struct goal_sched *g = &G->g;
    for (uint32_t i = g->rank_first[r]; i < g->rank_first[r + 1]; i++) {
        if (G->state[i] == OP_DONE)
            continue;
        const struct goal_op *o = &g->ops[i];
        char p[16], t[16];
        peer_text(o->peer, p, sizeof p);
        peer_text(o->tag, t, sizeof t);
        const char *where = g->binary ? "record" : "line";
        if (o->type == GOAL_RECV && G->state[i] == OP_STARTED)
            snprintf(buf, len, "rank %u waits in recv from %s tag %s (%s %u)", r, p, t, where, o->line);
        else if (o->type == GOAL_SEND && G->state[i] == OP_STARTED)
            snprintf(buf, len, "rank %u's send to %s tag %s (%s %u) is not received", r, p, t, where, o->line);
        else if (G->state[i] == OP_WAITING)
            snprintf(buf, len, "rank %u's %s (%s %u) waits for %u dependenc%s", r, op_name(o->type), where, o->line,
                     G->left[i], G->left[i] == 1 ? "y" : "ies");
        else
            snprintf(buf, len, "rank %u's %s (%s %u) has not completed", r, op_name(o->type), where, o->line);
        return;
    }
    snprintf(buf, len, "rank %u", r);
}

void goal_stdout(const struct sim *s)
{
    const struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    printf("goal: %s, %u ranks, %u ops (%u sends, %u recvs, %u calcs), %u messages between hosts; %s",
           g->name, g->n_ranks, g->n_ops, g->n_sends, g->n_recvs, g->n_calcs, G->n_net_msgs, goal_status(G));
    if (G->done_ps != SIMTIME_NEVER)
        printf(": completion %.3f us\n", (double)G->done_ps / PS_PER_US);
    else
        printf(" at %.3f us, %u of %u ops done\n",
               (double)(G->deadlock_ps != SIMTIME_NEVER ? G->deadlock_ps : s->now) / PS_PER_US, G->ops_done, g->n_ops);
    /* per-rank finish times: every rank when few, else the spread and the
     * slowest (all of them in ranks.csv and summary.json) */
    uint32_t unfinished = 0, slowest = 0;
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        if (G->rank_left[r])
            unfinished++;
        else if (G->rank_finish[r] > G->rank_finish[slowest] || G->rank_left[slowest])
            slowest = r;
    }
    if (g->n_ranks <= 16) {
        printf("goal ranks (finish us):");
        for (uint32_t r = 0; r < g->n_ranks; r++) {
            if (G->rank_left[r])
                printf(" %u:-", r);
            else
                printf(" %u:%.3f", r, (double)G->rank_finish[r] / PS_PER_US);
        }
        printf("\n");
    } else if (unfinished < g->n_ranks) {
        double *v = xmalloc(g->n_ranks * sizeof(double));
        uint32_t k = 0;
        for (uint32_t r = 0; r < g->n_ranks; r++)
            if (!G->rank_left[r])
                v[k++] = (double)G->rank_finish[r] / PS_PER_US;
        qsort(v, k, sizeof *v, report_cmp_double);
        printf("goal ranks: finish min %.3f us, median %.3f us, max %.3f us (rank %u); %u unfinished\n", v[0],
               report_percentile(v, k, 50), v[k - 1], slowest, unfinished);
        free(v);
    }
    if (G->deadlock_ps != SIMTIME_NEVER || (G->done_ps == SIMTIME_NEVER && unfinished)) {
        char why[1024], one[256];
        size_t used = 0;
        uint32_t shown_n = 0;
        for (uint32_t r = 0; r < g->n_ranks && shown_n < 3; r++)
            if (G->rank_left[r]) {
                stuck_reason(G, r, one, sizeof one);
                used += (size_t)snprintf(why + used, sizeof why - used, "%s%s", shown_n++ ? "; " : "", one);
            }
        if (unfinished > shown_n)
            snprintf(why + used, sizeof why - used, "; ...");
        printf("goal stuck: %s\n", why);
        /* on stderr too: a deadlock is the schedule's fault, not the
         * network's, and no completion time exists */
        if (G->deadlock_ps != SIMTIME_NEVER)
            warn_input("%s: the schedule deadlocked at %.3f us: %u of %u ranks stuck (%s)", g->name,
                       (double)G->deadlock_ps / PS_PER_US, unfinished, g->n_ranks, why);
        else
            warn_input("%s: the schedule did not complete by -end %.3f us: %u of %u ranks unfinished (%s)", g->name,
                       (double)s->cfg.end_ps / PS_PER_US, unfinished, g->n_ranks, why);
    }
}

void goal_json(const struct sim *s, struct strbuf *b)
{
    const struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    sb_printf(b, "  \"goal\": {\"ranks\": %u, \"ops\": %u, \"sends\": %u, \"recvs\": %u, \"calcs\": %u, "
                 "\"messages\": %u, \"format\": \"%s\", \"cpus\": %u, \"nics\": %u, \"status\": \"%s\", ",
              g->n_ranks, g->n_ops, g->n_sends, g->n_recvs, g->n_calcs, G->n_net_msgs, g->binary ? "binary" : "text",
              g->n_cpus, g->n_nics, goal_status(G));
    if (G->done_ps != SIMTIME_NEVER)
        sb_printf(b, "\"completion_us\": %.6f, ", (double)G->done_ps / PS_PER_US);
    else
        sb_printf(b, "\"completion_us\": null, ");
    if (G->deadlock_ps != SIMTIME_NEVER)
        sb_printf(b, "\"deadlock_us\": %.6f, ", (double)G->deadlock_ps / PS_PER_US);
    sb_printf(b, "\"ops_done\": %u, \"stuck_ranks\": [", G->ops_done);
    uint32_t k = 0;
    for (uint32_t r = 0; r < g->n_ranks; r++)
        if (G->rank_left[r])
            sb_printf(b, "%s%u", k++ ? ", " : "", r);
    sb_printf(b, "], \"rank_finish_us\": [");
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        if (G->rank_left[r])
            sb_printf(b, "%snull", r ? ", " : "");
        else
            sb_printf(b, "%s%.6f", r ? ", " : "", (double)G->rank_finish[r] / PS_PER_US);
    }
    sb_printf(b, "]},\n");
}

void goal_ranks_csv(const struct sim *s, struct strbuf *b)
{
    const struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    sb_printf(b, "rank,host,ops,finish_us\n");
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        sb_printf(b, "%u,%u,%u,", r, G->hosts[r * g->n_nics], g->rank_first[r + 1] - g->rank_first[r]);
        if (G->rank_left[r])
            sb_printf(b, "\n");
        else
            sb_printf(b, "%.6f\n", (double)G->rank_finish[r] / PS_PER_US);
    }
}

void goal_ops_csv(const struct sim *s, struct strbuf *b)
{
    const struct goal_run *G = s->goal;
    const struct goal_sched *g = &G->g;
    sb_printf(b, "rank,%s,type,peer,tag,size,cpu,nic,flow_id,start_us,end_us\n", g->binary ? "record" : "line");
    for (uint32_t i = 0; i < g->n_ops; i++) {
        const struct goal_op *o = &g->ops[i];
        char p[16] = "", t[16] = "";
        if (o->type != GOAL_CALC) {
            peer_text(o->peer, p, sizeof p);
            peer_text(o->tag, t, sizeof t);
            if (o->peer == GOAL_ANY)
                snprintf(p, sizeof p, "-1");
            if (o->tag == GOAL_ANY)
                snprintf(t, sizeof t, "-1");
        }
        sb_printf(b, "%u,%u,%s,%s,%s,%llu,%u,%u,", o->rank, o->line, op_name(o->type), p, t,
                  (unsigned long long)o->size, o->cpu, o->nic);
        if (G->flow_id[i])
            sb_printf(b, "%u", G->flow_id[i]);
        sb_printf(b, ",");
        if (G->t_start && G->t_start[i] != SIMTIME_NEVER)
            sb_printf(b, "%.6f", (double)G->t_start[i] / PS_PER_US);
        sb_printf(b, ",");
        if (G->t_end && G->t_end[i] != SIMTIME_NEVER)
            sb_printf(b, "%.6f", (double)G->t_end[i] / PS_PER_US);
        sb_printf(b, "\n");
    }
}

void goal_free(struct sim *s)
{
    struct goal_run *G = s->goal;
    if (!G)
        return;
    goal_sched_free(&G->g);
    free(G->hosts);
    free(G->conn_of);
    free(G->op_of_conn);
    free(G->flow_id);
    free(G->left);
    free(G->state);
    free(G->next);
    free(G->seq);
    free(G->arrived);
    free(G->cpu_q);
    free(G->cpu_busy);
    free(G->cpu_dirty);
    free(G->dirty);
    free(G->rank_left);
    free(G->rank_finish);
    free(G->buckets);
    free(G->rq_wild);
    free(G->uq_wild);
    free(G->t_start);
    free(G->t_end);
    free(G->lat);
    free(G->lat_host);
    free(G);
    s->goal = NULL;
}
