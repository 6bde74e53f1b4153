/* cm.c: reader for connection matrices in the reference simulator's .cm
 * format (see cm.h for an example). The whole input is copied into one
 * buffer, split into lines and whitespace-separated tokens in place, so lines
 * of any length are handled and no token is ever truncated. Every value is
 * checked strictly (digits only, overflow detected), and every problem is
 * reported as a single line "path:LINE: message" so a user can jump straight
 * to it. One deliberate leniency over the reference simulator: a line whose
 * first token starts with '#' is a comment, wherever it appears.
 */
#include "cm.h"

#include "../core/parse.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits that turn an endless or wrong input (-tm /dev/zero, a binary file)
 * into one clear error instead of exhausting memory. A line holds one
 * connection, trigger or failure schedule; a million characters is far
 * beyond any real one. A matrix of 1 GiB holds about 20 million connections. */
/* Hosts in one run: 2^24, beyond UEC's stated million-host scale (the
 * topology reader has the same limit). */
#define CM_MAX_NODES (1u << 24)
#define CM_MAX_LINE_BYTES (1u << 20)
#define CM_MAX_FILE_BYTES (1ull << 30)

/* Start times beyond this many microseconds (about 16 minutes) are surely
 * typos; rejecting them also keeps the picosecond product far from 2^64. */
#define CM_MAX_START_US 1e9

enum header_key { HDR_NODES, HDR_CONNECTIONS, HDR_TRIGGERS, HDR_FAILURES, HDR_COUNT };
static const char *const header_names[HDR_COUNT] = { "Nodes", "Connections", "Triggers", "Failures" };

struct parser {
    const char *name;
    char *err;
    size_t errlen;
    struct conn_matrix *cm;
    size_t cap_conns, cap_triggers, cap_failures;
    bool hdr_seen[HDR_COUNT];
    unsigned hdr_line[HDR_COUNT];
    uint64_t hdr_value[HDR_COUNT];
    unsigned first_body_line; /* 0 until the first connection/trigger/failure line */
    unsigned first_conn_line, first_trigger_line, first_failure_line;
    char **tok;
    size_t ntok, captok;
};

/* Writes the one-line message; line 0 means a whole-file problem. Always
 * returns false so callers can write "return fail(...)". */
__attribute__((format(printf, 3, 4)))
static bool fail(struct parser *p, unsigned line, const char *fmt, ...)
{
    if (!p->err || p->errlen == 0)
        return false;
    int n = line ? snprintf(p->err, p->errlen, "%s:%u: ", p->name, line)
                 : snprintf(p->err, p->errlen, "%s: ", p->name);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* ---- numbers ------------------------------------------------------------- */

/* Parses an unsigned value for `what` in [lo, hi], reporting any problem. */
static bool get_uint(struct parser *p, unsigned line, const char *what, const char *tok,
                     uint64_t lo, uint64_t hi, uint64_t *out)
{
    char b[64];
    uint64_t v = 0;
    enum num_status st = parse_u64(tok, &v);
    if (st == NUM_BAD)
        return fail(p, line, "%s value '%s' is not a non-negative integer", what, shown(tok, b));
    if (st == NUM_RANGE || v < lo || v > hi)
        return fail(p, line, "%s value '%s' is out of range (%llu to %llu)", what, shown(tok, b),
                    (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return true;
}

/* Microseconds, possibly fractional, to picoseconds rounded to nearest. */
static bool get_start(struct parser *p, unsigned line, const char *tok, simtime_ps *out)
{
    char b[64];
    if (tok[0] == '-')
        return fail(p, line, "start time '%s' is negative", shown(tok, b));
    double us = 0;
    enum num_status st = parse_real(tok, &us);
    if (st == NUM_BAD)
        return fail(p, line, "start time '%s' is not a number of microseconds", shown(tok, b));
    if (st == NUM_RANGE || us < 0 || us > CM_MAX_START_US)
        return fail(p, line, "start time '%s' is out of range (0 to %.0f microseconds)", shown(tok, b),
                    CM_MAX_START_US);
    *out = (simtime_ps)llround(us * (double)PS_PER_US);
    return true;
}

/* ---- tokens and growth --------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits one NUL-terminated line into p->tok in place. */
static void tokenize(struct parser *p, char *s)
{
    p->ntok = 0;
    for (;;) {
        while (is_space(*s))
            s++;
        if (!*s)
            return;
        if (*s == '#')
            return; /* a comment runs to the end of the line, as in .topo files */
        if (p->ntok == p->captok) {
            p->captok = p->captok ? p->captok * 2 : 16;
            p->tok = xrealloc(p->tok, p->captok * sizeof *p->tok);
        }
        p->tok[p->ntok++] = s;
        while (*s && !is_space(*s))
            s++;
        if (*s)
            *s++ = '\0';
    }
}

/* Struct conn_matrix stores counts as uint32_t, so that caps each array. */
static bool room_for_one(struct parser *p, unsigned line, uint32_t n, const char *what)
{
    if (n == UINT32_MAX)
        return fail(p, line, "too many %s lines", what);
    return true;
}

/* Returns arr grown (by doubling) so that item n fits. */
static void *grow(void *arr, size_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    *cap = *cap ? *cap * 2 : 64;
    return xrealloc(arr, *cap * elem);
}

/* ---- headers ---------------------------------------------------------------- */

static int header_key(const char *tok)
{
    for (int i = 0; i < HDR_COUNT; i++)
        if (strcmp(tok, header_names[i]) == 0)
            return i;
    return -1;
}

/* After the first body line with no Nodes seen: is there a Nodes line later?
 * Looking ahead lets us say "Nodes comes too late" rather than "missing". */
static unsigned find_later_nodes(const char *s, const char *end, unsigned line)
{
    while (s < end) {
        line++;
        while (s < end && is_space(*s))
            s++;
        if ((size_t)(end - s) >= 5 && memcmp(s, "Nodes", 5) == 0 &&
            (s + 5 == end || is_space(s[5]) || s[5] == '\n'))
            return line;
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl)
            break;
        s = nl + 1;
    }
    return 0;
}

static bool parse_header(struct parser *p, unsigned line, int key)
{
    char b[64];
    const char *hname = header_names[key];
    if (p->first_body_line)
        return fail(p, line, "header '%s' after the first body line (line %u); headers must come first",
                    hname, p->first_body_line);
    if (p->hdr_seen[key])
        return fail(p, line, "duplicate header '%s' (first on line %u)", hname, p->hdr_line[key]);
    if (p->ntok < 2)
        return fail(p, line, "header '%s' has no value", hname);
    if (p->ntok > 2)
        return fail(p, line, "unexpected '%s' after the %s value", shown(p->tok[2], b), hname);
    uint64_t v;
    if (!get_uint(p, line, hname, p->tok[1], key == HDR_NODES ? 1 : 0, key == HDR_NODES ? CM_MAX_NODES : UINT32_MAX, &v))
        return false;
    p->hdr_seen[key] = true;
    p->hdr_line[key] = line;
    p->hdr_value[key] = v;
    return true;
}

/* ---- connection lines ----------------------------------------------------------- */

enum conn_key {
    CK_START, CK_SIZE, CK_ID, CK_TRIGGER, CK_SEND_DONE, CK_RECV_DONE, CK_PRIO, CK_MSG, CK_LB, CK_CLASS, CK_TRANSPORT,
    CK_PRIORITY, CK_COUNT
};
static const char *const conn_keys[CK_COUNT] = {
    "start", "size", "id", "trigger", "send_done_trigger", "recv_done_trigger", "prio", "msg", "lb", "class",
    "transport", "priority",
};

/* Trigger ids exclude UINT32_MAX, which is CM_NO_TRIGGER. */
#define TRIGGER_ID_MAX ((uint64_t)UINT32_MAX - 1)

static bool parse_endpoint(struct parser *p, unsigned line, const char *what, const char *s, uint32_t *out)
{
    char b[64];
    uint64_t v = 0;
    enum num_status st = parse_u64(s, &v);
    if (st == NUM_BAD)
        return fail(p, line, "%s '%s' is not a node number", what, shown(s, b));
    if (st == NUM_RANGE || v >= p->cm->nodes)
        return fail(p, line, "%s %s is out of range (Nodes is %u, so 0 to %u)", what, shown(s, b),
                    p->cm->nodes, p->cm->nodes - 1);
    *out = (uint32_t)v;
    return true;
}

/* Whether a token is a plain decimal number (digits only), as the value of
 * "msg" is; anything else after "msg" is the next key. */
static bool is_uint_token(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static bool parse_connection(struct parser *p, unsigned line)
{
    char b[64];
    struct conn_matrix *cm = p->cm;
    if (!room_for_one(p, line, cm->n_conns, "connection"))
        return false;
    cm->conns = grow(cm->conns, &p->cap_conns, cm->n_conns, sizeof *cm->conns);
    struct cm_conn c = {
        .start_ps = SIMTIME_NEVER,
        .start_trigger = CM_NO_TRIGGER,
        .send_done_trigger = CM_NO_TRIGGER,
        .recv_done_trigger = CM_NO_TRIGGER,
        .tclass = CM_CLASS_AUTO,
        .prio_class = 1,
        .line = line,
    };

    /* The arrow must be inside the first token: "0 -> 13" is not accepted. */
    char *first = p->tok[0];
    char *arrow = strstr(first, "->");
    if (!arrow)
        return fail(p, line, "expected SRC->DST, got '%s'", shown(first, b));
    *arrow = '\0';
    if (!parse_endpoint(p, line, "source", first, &c.src) ||
        !parse_endpoint(p, line, "destination", arrow + 2, &c.dst))
        return false;
    if (c.src == c.dst)
        return fail(p, line, "source and destination are both node %u", c.src);

    bool seen[CK_COUNT] = { false };
    for (size_t i = 1; i < p->ntok; i += 2) {
        const char *k = p->tok[i];
        int key = -1;
        for (int j = 0; j < CK_COUNT; j++)
            if (strcmp(k, conn_keys[j]) == 0)
                key = j;
        if (key < 0)
            return fail(p, line, "unknown connection key '%s'", shown(k, b));
        if (seen[key])
            return fail(p, line, "key '%s' given twice", k);
        seen[key] = true;
        /* A bare "msg" (no number after it: the line ends or the next token
         * is not a number) marks the line as a message of its connection
         * without a number of its own, as the reference's connection-matrix
         * reader takes it (uet-htsim connection_matrix.cpp: a "msg" whose
         * next token does not parse as an integer gets msg id 0). Its
         * validate_uec_connreuse.txt writes "0->1 id 1 msg start 0 ...". */
        if (key == CK_MSG && (i + 1 >= p->ntok || !is_uint_token(p->tok[i + 1]))) {
            i -= 1;
            continue;
        }
        if (i + 1 >= p->ntok)
            return fail(p, line, "key '%s' has no value", k);
        const char *v = p->tok[i + 1];
        uint64_t u = 0;
        switch ((enum conn_key)key) {
        case CK_START:
            if (!get_start(p, line, v, &c.start_ps))
                return false;
            break;
        case CK_SIZE:
            if (!get_uint(p, line, k, v, 1, UINT64_MAX, &u))
                return false;
            c.size_bytes = u;
            break;
        case CK_ID:
            if (!get_uint(p, line, k, v, 1, UINT32_MAX, &u))
                return false;
            c.id = (uint32_t)u;
            c.has_id = true;
            break;
        case CK_TRIGGER:
        case CK_SEND_DONE:
        case CK_RECV_DONE:
            if (!get_uint(p, line, k, v, 1, TRIGGER_ID_MAX, &u))
                return false;
            if (key == CK_TRIGGER)
                c.start_trigger = (uint32_t)u;
            else if (key == CK_SEND_DONE)
                c.send_done_trigger = (uint32_t)u;
            else
                c.recv_done_trigger = (uint32_t)u;
            break;
        case CK_PRIO: {
            enum num_status st = parse_i64(v, &c.prio);
            if (st == NUM_BAD)
                return fail(p, line, "prio value '%s' is not an integer", shown(v, b));
            if (st == NUM_RANGE)
                return fail(p, line, "prio value '%s' is out of range", shown(v, b));
            break;
        }
        case CK_MSG:
            if (!get_uint(p, line, k, v, 1, UINT32_MAX, &u))
                return false;
            c.msg = (uint32_t)u;
            break;
        case CK_LB:
            /* checked against the known balancers by the simulator */
            if (strlen(v) >= sizeof c.lb)
                return fail(p, line, "lb name '%s' is too long", shown(v, b));
            strcpy(c.lb, v);
            break;
        case CK_PRIORITY:
            /* checked against --classes by the simulator */
            if (!get_uint(p, line, k, v, 1, 7, &u))
                return false;
            c.prio_class = (uint8_t)u;
            break;
        case CK_TRANSPORT:
            /* checked against the known transports by the simulator */
            if (strlen(v) >= sizeof c.transport)
                return fail(p, line, "transport name '%s' is too long", shown(v, b));
            strcpy(c.transport, v);
            break;
        case CK_CLASS:
            if (!get_uint(p, line, k, v, 0, 1, &u))
                return false;
            c.tclass = (uint8_t)u;
            break;
        case CK_COUNT:
            break;
        }
    }
    if (!seen[CK_START] && !seen[CK_TRIGGER])
        return fail(p, line, "no start time or trigger");
    if (seen[CK_START] && seen[CK_TRIGGER])
        return fail(p, line, "both start and trigger given; a connection starts one way");
    if (!seen[CK_SIZE])
        return fail(p, line, "no size");
    /* Auto ids are filled in after the whole file is read, because whether
     * they collide depends on explicit ids that may come later. */
    cm->conns[cm->n_conns++] = c;
    return true;
}

/* ---- trigger and failure lines ---------------------------------------------------- */

static bool parse_trigger(struct parser *p, unsigned line)
{
    char b[64];
    struct conn_matrix *cm = p->cm;
    if (!room_for_one(p, line, cm->n_triggers, "trigger"))
        return false;
    cm->triggers = grow(cm->triggers, &p->cap_triggers, cm->n_triggers, sizeof *cm->triggers);
    struct cm_trigger t = { .line = line };
    bool have_id = false, have_type = false, have_count = false;
    /* Type words stand alone; "id" and "count" take a value. */
    for (size_t i = 1; i < p->ntok; i++) {
        const char *k = p->tok[i];
        uint64_t u = 0;
        if (strcmp(k, "oneshot") == 0 || strcmp(k, "multishot") == 0 || strcmp(k, "barrier") == 0) {
            if (have_type)
                return fail(p, line, "more than one trigger type ('%s' after an earlier type)", k);
            have_type = true;
            t.type = k[0] == 'o' ? TRIGGER_ONESHOT : k[0] == 'm' ? TRIGGER_MULTISHOT : TRIGGER_BARRIER;
        } else if (strcmp(k, "id") == 0 || strcmp(k, "count") == 0) {
            bool is_id = k[0] == 'i';
            if (is_id ? have_id : have_count)
                return fail(p, line, "trigger key '%s' given twice", k);
            if (i + 1 >= p->ntok)
                return fail(p, line, "trigger key '%s' has no value", k);
            if (!get_uint(p, line, is_id ? "trigger id" : "count", p->tok[++i], 1,
                          is_id ? TRIGGER_ID_MAX : UINT32_MAX, &u))
                return false;
            if (is_id) {
                have_id = true;
                t.id = (uint32_t)u;
            } else {
                have_count = true;
                t.count = (uint32_t)u;
            }
        } else {
            return fail(p, line, "unknown trigger key '%s' (expected id, oneshot, multishot, barrier or count)",
                        shown(k, b));
        }
    }
    if (!have_id)
        return fail(p, line, "trigger has no id");
    if (!have_type)
        return fail(p, line, "trigger has no type (oneshot, multishot or barrier)");
    if (t.type == TRIGGER_BARRIER && !have_count)
        return fail(p, line, "barrier trigger needs 'count N'");
    if (t.type != TRIGGER_BARRIER && have_count)
        return fail(p, line, "'count' only applies to barrier triggers");
    cm->triggers[cm->n_triggers++] = t;
    return true;
}

static bool parse_failure(struct parser *p, unsigned line)
{
    char b[64];
    static const char *const keys[3] = { "switch_type", "switch_id", "link_id" };
    struct conn_matrix *cm = p->cm;
    if (!room_for_one(p, line, cm->n_failures, "failure"))
        return false;
    cm->failures = grow(cm->failures, &p->cap_failures, cm->n_failures, sizeof *cm->failures);
    struct cm_failure f = { .line = line };
    if (p->ntok >= 2 && (strcmp(p->tok[1], "link") == 0 || strcmp(p->tok[1], "switch") == 0)) {
        /* extended form: keep the words; the failure model checks them
         * against the topology and reports file:line itself */
        size_t len = 1;
        for (size_t i = 1; i < p->ntok; i++)
            len += strlen(p->tok[i]) + 1;
        f.spec = xmalloc(len);
        f.spec[0] = '\0';
        for (size_t i = 1; i < p->ntok; i++) {
            strcat(f.spec, p->tok[i]);
            if (i + 1 < p->ntok)
                strcat(f.spec, " ");
        }
        cm->failures[cm->n_failures++] = f;
        return true;
    }
    bool seen[3] = { false };
    for (size_t i = 1; i < p->ntok; i += 2) {
        const char *k = p->tok[i];
        int key = -1;
        for (int j = 0; j < 3; j++)
            if (strcmp(k, keys[j]) == 0)
                key = j;
        if (key < 0)
            return fail(p, line, "unknown failure key '%s' (expected switch_type, switch_id or link_id)",
                        shown(k, b));
        if (seen[key])
            return fail(p, line, "failure key '%s' given twice", k);
        seen[key] = true;
        if (i + 1 >= p->ntok)
            return fail(p, line, "failure key '%s' has no value", k);
        const char *v = p->tok[i + 1];
        uint64_t u = 0;
        if (key == 0) {
            static const char *const types[3] = { "TOR", "AGG", "CORE" };
            int type = -1;
            for (int j = 0; j < 3; j++) {
                /* Case-insensitive compare, ASCII only, without locale. */
                const char *a = v, *t = types[j];
                while (*a && *t && (*a == *t || *a == *t + ('a' - 'A')))
                    a++, t++;
                if (!*a && !*t)
                    type = j;
            }
            if (type < 0)
                return fail(p, line, "switch_type '%s' is not TOR, AGG or CORE", shown(v, b));
            f.switch_type = (uint32_t)type;
        } else {
            if (!get_uint(p, line, k, v, 0, UINT32_MAX, &u))
                return false;
            if (key == 1)
                f.switch_id = (uint32_t)u;
            else
                f.link_id = (uint32_t)u;
        }
    }
    for (int j = 0; j < 3; j++)
        if (!seen[j])
            return fail(p, line, "failure has no %s", keys[j]);
    cm->failures[cm->n_failures++] = f;
    return true;
}

/* ---- whole-file checks ---------------------------------------------------------- */

struct id_ref {
    uint32_t id;
    uint32_t idx;
};

static int cmp_id_ref(const void *a, const void *b)
{
    const struct id_ref *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool check_count(struct parser *p, int key, uint32_t n, unsigned first_line, const char *what)
{
    if (!p->hdr_seen[key]) {
        if (n == 0)
            return true;
        if (key == HDR_CONNECTIONS)
            return fail(p, first_line, "connection line but no Connections header");
        return fail(p, first_line, "%s line but no %s header (absent means 0)", what, header_names[key]);
    }
    if (p->hdr_value[key] != n)
        return fail(p, p->hdr_line[key], "%s says %llu but %u %s line%s follow%s", header_names[key],
                    (unsigned long long)p->hdr_value[key], n, what, n == 1 ? "" : "s", n == 1 ? "s" : "");
    return true;
}

/* Two lines of one connection must agree on everything that makes it a
 * connection: the host pair, the transport, the balancer and the classes.
 * Returns the first key that differs, or NULL. */
static const char *conn_mismatch(const struct cm_conn *a, const struct cm_conn *b)
{
    if (a->src != b->src || a->dst != b->dst)
        return "hosts";
    if (strcmp(a->transport, b->transport) != 0)
        return "transport";
    if (strcmp(a->lb, b->lb) != 0)
        return "lb";
    if (a->tclass != b->tclass)
        return "class";
    if (a->prio_class != b->prio_class)
        return "priority";
    return NULL;
}

/* Assigns automatic ids and groups the lines that share an explicit id into
 * connections: each such line is one message of that connection, in file
 * order (htsim's -conn_reuse reading; docs/workloads.md "Messages over connections").
 * An automatic id (a line without "id") clashing with another line is an
 * error, as are lines of one connection that disagree on hosts, transport,
 * balancer or class, and a msg number used twice on one connection. Of
 * several errors, the one on the earliest line is reported. */
static bool check_conn_ids(struct parser *p)
{
    struct conn_matrix *cm = p->cm;
    if (cm->n_conns == 0)
        return true;
    struct id_ref *r = xmalloc(cm->n_conns * sizeof *r);
    for (uint32_t i = 0; i < cm->n_conns; i++) {
        if (!cm->conns[i].has_id)
            cm->conns[i].id = i + 1;
        cm->conns[i].msg_prev = cm->conns[i].msg_next = CM_NO_MSG;
        cm->conns[i].msg_index = 1;
        r[i] = (struct id_ref){ cm->conns[i].id, i };
    }
    /* cmp_id_ref orders equal ids by position: each group is in file order */
    qsort(r, cm->n_conns, sizeof *r, cmp_id_ref);
    uint32_t bad = UINT32_MAX, other = 0;
    const char *why = NULL;
    for (uint32_t i = 1; i < cm->n_conns; i++) {
        if (r[i].id != r[i - 1].id)
            continue;
        uint32_t first = i - 1;
        while (first > 0 && r[first - 1].id == r[i].id)
            first--;
        uint32_t blame = UINT32_MAX, prior = 0;
        const char *reason = NULL;
        const struct cm_conn *c = &cm->conns[r[i].idx], *c0 = &cm->conns[r[first].idx];
        if (!c->has_id || !c0->has_id) {
            /* an automatic id clashes: blame the line without an id */
            blame = c->has_id ? r[first].idx : r[i].idx;
            prior = c->has_id ? r[i].idx : r[first].idx;
            reason = "auto";
        } else if ((reason = conn_mismatch(c0, c))) {
            blame = r[i].idx;
            prior = r[first].idx;
        } else if (c->msg) {
            for (uint32_t j = first; j < i; j++)
                if (cm->conns[r[j].idx].msg == c->msg) {
                    blame = r[i].idx;
                    prior = r[j].idx;
                    reason = "msg";
                    break;
                }
        }
        if (blame != UINT32_MAX && (bad == UINT32_MAX || cm->conns[blame].line < cm->conns[bad].line)) {
            bad = blame;
            other = prior;
            why = reason;
        }
        /* link the messages of the connection in file order */
        cm->conns[r[i - 1].idx].msg_next = r[i].idx;
        cm->conns[r[i].idx].msg_prev = r[i - 1].idx;
        cm->conns[r[i].idx].msg_index = cm->conns[r[i - 1].idx].msg_index + 1;
    }
    free(r);
    if (bad == UINT32_MAX)
        return true;
    const struct cm_conn *c = &cm->conns[bad];
    if (strcmp(why, "auto") == 0)
        return fail(p, c->line, "connection has no id, and its automatic id %u (its position) is already "
                    "used by line %u; give it an explicit id", c->id, cm->conns[other].line);
    if (strcmp(why, "msg") == 0)
        return fail(p, c->line, "msg %u is used twice on connection id %u (also on line %u)", c->msg, c->id,
                    cm->conns[other].line);
    return fail(p, c->line, "connection id %u is also on line %u with different %s: the lines of one connection "
                "(its messages) must share hosts, transport, lb, class and priority", c->id,
                cm->conns[other].line, why);
}

/* Checks trigger ids are distinct and every reference is declared. */
static bool check_triggers(struct parser *p)
{
    struct conn_matrix *cm = p->cm;
    struct id_ref *r = xmalloc((cm->n_triggers ? cm->n_triggers : 1) * sizeof *r);
    for (uint32_t i = 0; i < cm->n_triggers; i++)
        r[i] = (struct id_ref){ cm->triggers[i].id, i };
    qsort(r, cm->n_triggers, sizeof *r, cmp_id_ref);
    /* Equal ids sort in file order, so r[i] is the later of each pair. */
    unsigned bad_line = 0, first_line = 0;
    uint32_t bad_id = 0;
    for (uint32_t i = 1; i < cm->n_triggers; i++) {
        if (r[i].id == r[i - 1].id && (bad_line == 0 || cm->triggers[r[i].idx].line < bad_line)) {
            bad_line = cm->triggers[r[i].idx].line;
            first_line = cm->triggers[r[i - 1].idx].line;
            bad_id = r[i].id;
        }
    }
    if (bad_line) {
        free(r);
        return fail(p, bad_line, "duplicate trigger id %u (first on line %u)", bad_id, first_line);
    }
    static const char *const what[3] = { "trigger", "send_done_trigger", "recv_done_trigger" };
    for (uint32_t i = 0; i < cm->n_conns; i++) {
        const struct cm_conn *c = &cm->conns[i];
        const uint32_t refs[3] = { c->start_trigger, c->send_done_trigger, c->recv_done_trigger };
        for (int j = 0; j < 3; j++) {
            if (refs[j] == CM_NO_TRIGGER)
                continue;
            struct id_ref key = { refs[j], 0 };
            /* Binary search on id alone: idx is irrelevant here. */
            size_t lo = 0, hi = cm->n_triggers;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (r[mid].id < key.id)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == cm->n_triggers || r[lo].id != key.id) {
                free(r);
                return fail(p, c->line, "%s %u is not declared (no 'trigger id %u' line)", what[j], refs[j],
                            refs[j]);
            }
        }
    }
    free(r);
    return true;
}

/* Checks that every triggered connection can start: a trigger that nothing
 * fires, a cycle of connections each waiting for another's completion, a
 * barrier whose count exceeds the activations that can reach it, or a
 * multishot trigger with more waiters than activations would leave
 * connections that silently never run. The simulator activates a trigger once
 * per send-done and once per receive-done reference of a connection that
 * runs, so propagating "can start" from the timed connections to a fixed
 * point gives exactly the connections that can ever start. Linear in the
 * number of connections and references. */
static bool check_reachable(struct parser *p)
{
    struct conn_matrix *cm = p->cm;
    uint32_t nt = cm->n_triggers, nc = cm->n_conns;
    if (nt == 0)
        return true;
    /* trigger ids -> indices, through a sorted copy */
    struct id_ref *ids = xmalloc(nt * sizeof *ids);
    for (uint32_t i = 0; i < nt; i++)
        ids[i] = (struct id_ref){ cm->triggers[i].id, i };
    qsort(ids, nt, sizeof *ids, cmp_id_ref);
    uint32_t *start_t = xmalloc((size_t)nc * 3 * sizeof *start_t); /* start, send-done, recv-done index */
    for (uint32_t c = 0; c < nc; c++) {
        const uint32_t refs[3] = { cm->conns[c].start_trigger, cm->conns[c].send_done_trigger,
                                   cm->conns[c].recv_done_trigger };
        for (int j = 0; j < 3; j++) {
            uint32_t ti = UINT32_MAX;
            if (refs[j] != CM_NO_TRIGGER) {
                size_t lo = 0, hi = nt;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (ids[mid].id < refs[j])
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                ti = ids[lo].idx; /* declared: check_triggers ran first */
            }
            start_t[3 * c + (uint32_t)j] = ti;
        }
    }
    free(ids);
    /* waiters of each trigger, in file order: counting sort into one array */
    uint32_t *first_waiter = xcalloc((size_t)nt + 1, sizeof *first_waiter);
    for (uint32_t c = 0; c < nc; c++)
        if (start_t[3 * c] != UINT32_MAX)
            first_waiter[start_t[3 * c] + 1]++;
    for (uint32_t t = 0; t < nt; t++)
        first_waiter[t + 1] += first_waiter[t];
    uint32_t *waiters = xmalloc(((size_t)first_waiter[nt] + 1) * sizeof *waiters);
    uint32_t *fill = xmalloc((size_t)nt * sizeof *fill);
    memcpy(fill, first_waiter, (size_t)nt * sizeof *fill);
    for (uint32_t c = 0; c < nc; c++)
        if (start_t[3 * c] != UINT32_MAX)
            waiters[fill[start_t[3 * c]]++] = c;
    /* activations reachable so far and waiters released so far, per trigger */
    uint32_t *activations = xcalloc(nt, sizeof *activations);
    uint32_t *released = fill; /* reused: waiters of t released so far */
    memset(released, 0, (size_t)nt * sizeof *released);
    bool *can_start = xcalloc(nc ? nc : 1, sizeof *can_start);
    uint32_t *work = xmalloc(((size_t)nc + 1) * sizeof *work);
    uint32_t nwork = 0;
    for (uint32_t c = 0; c < nc; c++)
        if (start_t[3 * c] == UINT32_MAX) {
            can_start[c] = true;
            work[nwork++] = c;
        }
    while (nwork) {
        uint32_t c = work[--nwork];
        for (int j = 1; j < 3; j++) {
            uint32_t t = start_t[3 * c + (uint32_t)j];
            if (t == UINT32_MAX)
                continue;
            activations[t]++;
            const struct cm_trigger *tr = &cm->triggers[t];
            uint32_t nw = first_waiter[t + 1] - first_waiter[t];
            uint32_t allowed = tr->type == TRIGGER_MULTISHOT ? activations[t]
                               : (tr->type == TRIGGER_ONESHOT ? activations[t] >= 1 : activations[t] >= tr->count) ? nw
                                                                                                                   : 0;
            if (allowed > nw)
                allowed = nw;
            while (released[t] < allowed) {
                uint32_t w = waiters[first_waiter[t] + released[t]++];
                can_start[w] = true;
                work[nwork++] = w;
            }
        }
    }
    bool ok = true;
    for (uint32_t c = 0; c < nc && ok; c++) {
        if (can_start[c])
            continue;
        const struct cm_trigger *tr = &cm->triggers[start_t[3 * c]];
        uint32_t nw = first_waiter[start_t[3 * c] + 1] - first_waiter[start_t[3 * c]];
        uint32_t a = activations[start_t[3 * c]];
        if (a == 0)
            fail(p, cm->conns[c].line,
                 "trigger %u can never fire: no connection that can run names it as send_done_trigger or "
                 "recv_done_trigger%s, so this connection would never start",
                 tr->id, nw ? " (or only connections that wait on it, directly or through other triggers)" : "");
        else if (tr->type == TRIGGER_BARRIER)
            fail(p, cm->conns[c].line,
                 "barrier trigger %u (line %u) needs count %u activations but at most %u can reach it, so this "
                 "connection would never start", tr->id, tr->line, tr->count, a);
        else
            fail(p, cm->conns[c].line,
                 "multishot trigger %u (line %u) starts one waiting connection per activation; %u connections wait "
                 "on it but at most %u activations can reach it, so this one would never start",
                 tr->id, tr->line, nw, a);
        ok = false;
    }
    free(start_t);
    free(first_waiter);
    free(waiters);
    free(fill);
    free(activations);
    free(can_start);
    free(work);
    return ok;
}

/* ---- entry points ------------------------------------------------------------------ */

static bool parse_all(struct parser *p, char *buf, size_t len)
{
    char *end = buf + len;
    char *s = buf;
    unsigned line = 0;
    char b[64];
    while (s < end) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        if (nl)
            *nl = '\0';
        line++;
        char *next = nl ? nl + 1 : end;
        tokenize(p, s);
        s = next;
        if (p->ntok == 0 || p->tok[0][0] == '#')
            continue;
        const char *t0 = p->tok[0];
        int key = header_key(t0);
        if (key >= 0) {
            if (!parse_header(p, line, key))
                return false;
            if (key == HDR_NODES)
                p->cm->nodes = (uint32_t)p->hdr_value[key];
            continue;
        }
        bool is_conn = strstr(t0, "->") != NULL || (t0[0] >= '0' && t0[0] <= '9');
        bool is_trig = strcmp(t0, "trigger") == 0;
        bool is_fail = strcmp(t0, "failure") == 0;
        if (!is_conn && !is_trig && !is_fail) {
            if (!p->first_body_line)
                return fail(p, line, "unknown header word '%s'", shown(t0, b));
            return fail(p, line, "unknown line starting with '%s' (expected SRC->DST, trigger or failure)",
                        shown(t0, b));
        }
        if (!p->first_body_line) {
            p->first_body_line = line;
            if (!p->hdr_seen[HDR_NODES]) {
                unsigned later = find_later_nodes(s, end, line);
                if (later)
                    return fail(p, later, "header 'Nodes' after the first body line (line %u); headers must "
                                "come first", line);
                return fail(p, 0, "missing 'Nodes N' header");
            }
        }
        if (is_conn) {
            if (!p->first_conn_line)
                p->first_conn_line = line;
            if (!parse_connection(p, line))
                return false;
        } else if (is_trig) {
            if (!p->first_trigger_line)
                p->first_trigger_line = line;
            if (!parse_trigger(p, line))
                return false;
        } else {
            if (!p->first_failure_line)
                p->first_failure_line = line;
            if (!parse_failure(p, line))
                return false;
        }
    }
    if (!p->hdr_seen[HDR_NODES])
        return fail(p, 0, "missing 'Nodes N' header");
    const struct conn_matrix *cm = p->cm;
    return check_count(p, HDR_CONNECTIONS, cm->n_conns, p->first_conn_line, "connection") &&
           check_count(p, HDR_TRIGGERS, cm->n_triggers, p->first_trigger_line, "trigger") &&
           check_count(p, HDR_FAILURES, cm->n_failures, p->first_failure_line, "failure") &&
           check_conn_ids(p) && check_triggers(p) && check_reachable(p);
}

bool cm_read_buffer(struct conn_matrix *cm, const char *name, const char *text, char *err, size_t errlen)
{
    memset(cm, 0, sizeof *cm);
    if (err && errlen)
        err[0] = '\0';
    struct parser p = { .name = name ? name : "(matrix)", .err = err, .errlen = errlen, .cm = cm };
    if (!text)
        return fail(&p, 0, "no text");
    size_t len = strlen(text);
    /* A private copy, tokenized in place, keeps the caller's text intact. */
    char *buf = xmalloc(len + 1);
    memcpy(buf, text, len + 1);
    bool ok = parse_all(&p, buf, len);
    free(buf);
    free(p.tok);
    if (!ok)
        cm_free(cm);
    return ok;
}

bool cm_read_file(struct conn_matrix *cm, const char *path, char *err, size_t errlen)
{
    memset(cm, 0, sizeof *cm);
    struct parser p = { .name = path, .err = err, .errlen = errlen, .cm = cm };
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(&p, 0, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    int read_errno = 0;
    char *buf = xmalloc(cap);
    /* Checked while reading, so an endless input stops at the first sign
     * that it is not a matrix: a NUL byte, an overlong line, or too much. */
    unsigned line = 1;
    size_t line_start = 0;
    bool ok = true;
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        errno = 0;
        size_t n = fread(buf + len, 1, cap - 1 - len, f);
        if (n == 0) {
            read_errno = errno;
            break;
        }
        for (size_t i = len; i < len + n && ok; i++) {
            if (buf[i] == '\n') {
                line++;
                line_start = i + 1;
            } else if (buf[i] == '\0') {
                /* cm_read_buffer takes a C string, so an embedded NUL would
                 * silently end the input early: it is surely not text */
                ok = fail(&p, line, "contains a NUL byte; not a text file");
            } else if (i - line_start >= CM_MAX_LINE_BYTES) {
                ok = fail(&p, line, "line longer than %u bytes; not a connection matrix", CM_MAX_LINE_BYTES);
            }
        }
        len += n;
        if (ok && len > CM_MAX_FILE_BYTES)
            ok = fail(&p, line, "larger than %llu bytes; not read further", (unsigned long long)CM_MAX_FILE_BYTES);
        if (!ok)
            break;
    }
    bool read_error = ferror(f) != 0;
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    if (read_error) {
        free(buf);
        return fail(&p, 0, "read error: %s", read_errno ? strerror(read_errno) : "unknown");
    }
    buf[len] = '\0';
    ok = cm_read_buffer(cm, path, buf, err, errlen);
    free(buf);
    return ok;
}

void cm_free(struct conn_matrix *cm)
{
    free(cm->conns);
    free(cm->triggers);
    for (uint32_t i = 0; i < cm->n_failures; i++)
        free(cm->failures[i].spec);
    free(cm->failures);
    memset(cm, 0, sizeof *cm);
}

uint32_t cm_trigger_index(const struct conn_matrix *cm, uint32_t trigger_id)
{
    for (uint32_t i = 0; i < cm->n_triggers; i++)
        if (cm->triggers[i].id == trigger_id)
            return i;
    return UINT32_MAX;
}
