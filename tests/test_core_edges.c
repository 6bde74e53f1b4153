/* test_core_edges.c: the edges of src/core/ that test_core.c's behavioural
 * tests pass over: the strict number parsers (parse.h) at both ends of each
 * range and at the characters just outside each accepted class ('/' and
 * ':' beside the digits), shown()'s 40-character cut and its byte classes,
 * and write_file_atomic when the lowest free descriptor is 0. Every
 * expected value follows from parse.h's and core.h's documented rules
 * (issue 26: each test here failed with a mutant the older tests let
 * through).
 */
#include "testutil.h"
#include "malloc_check.h"

#include "core/core.h"
#include "core/parse.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ---- parse_u64 ----------------------------------------------------------------- */

static void expect_u64(const char *s, enum num_status want, uint64_t want_v)
{
    uint64_t v = 12345;
    enum num_status st = parse_u64(s, &v);
    if (st != want)
        fail_msg("parse_u64(\"%s\"): status %d, expected %d", s ? s : "(null)", (int)st, (int)want);
    /* the value only on success; left alone otherwise */
    uint64_t expect = want == NUM_OK ? want_v : 12345;
    if (v != expect)
        fail_msg("parse_u64(\"%s\"): %llu, expected %llu", s ? s : "(null)", (unsigned long long)v,
                 (unsigned long long)expect);
}

static void test_parse_u64_digits_and_both_ends(void **state)
{
    (void)state;
    expect_u64("0", NUM_OK, 0);
    expect_u64("9", NUM_OK, 9);
    expect_u64("10", NUM_OK, 10);
    expect_u64("1234567890", NUM_OK, 1234567890ULL);
    expect_u64("007", NUM_OK, 7);
    /* 2^64 - 1 is the largest; each of the three next values overflows */
    expect_u64("18446744073709551615", NUM_OK, UINT64_MAX);
    expect_u64("18446744073709551614", NUM_OK, UINT64_MAX - 1);
    expect_u64("18446744073709551610", NUM_OK, UINT64_MAX - 5);
    expect_u64("18446744073709551616", NUM_RANGE, 0);
    expect_u64("18446744073709551619", NUM_RANGE, 0);
    expect_u64("18446744073709551620", NUM_RANGE, 0);
    expect_u64("99999999999999999999", NUM_RANGE, 0);
    expect_u64("1844674407370955161", NUM_OK, UINT64_MAX / 10);
    /* a bad character after an overflow is still BAD (the scan goes on) */
    expect_u64("99999999999999999999x", NUM_BAD, 0);
    /* nothing but ASCII digits: the characters either side of '0'..'9' */
    expect_u64("/", NUM_BAD, 0);
    expect_u64(":", NUM_BAD, 0);
    expect_u64("1/", NUM_BAD, 0);
    expect_u64("9:", NUM_BAD, 0);
    expect_u64("", NUM_BAD, 0);
    expect_u64(NULL, NUM_BAD, 0);
    expect_u64("+1", NUM_BAD, 0);
    expect_u64("-1", NUM_BAD, 0);
    expect_u64(" 1", NUM_BAD, 0);
    expect_u64("1 ", NUM_BAD, 0);
    expect_u64("0x10", NUM_BAD, 0);
}

static void test_parse_i64_forms(void **state)
{
    (void)state;
    int64_t v = 5;
    assert_int_equal(parse_i64("-0", &v), NUM_OK);
    assert_true(v == 0);
    assert_int_equal(parse_i64("42", &v), NUM_OK);
    assert_true(v == 42);
    assert_int_equal(parse_i64("-42", &v), NUM_OK);
    assert_true(v == -42);
    v = 5;
    assert_int_equal(parse_i64("-", &v), NUM_BAD);
    assert_int_equal(parse_i64("--1", &v), NUM_BAD);
    assert_int_equal(parse_i64("", &v), NUM_BAD);
    assert_int_equal(parse_i64(NULL, &v), NUM_BAD);
    assert_int_equal(parse_i64("+1", &v), NUM_BAD);
    assert_int_equal(parse_i64("-99999999999999999999", &v), NUM_RANGE);
    assert_true(v == 5);
}

/* ---- parse_real ------------------------------------------------------------------ */

static void expect_real(const char *s, enum num_status want, double want_v)
{
    double v = -7.25;
    enum num_status st = parse_real(s, &v);
    if (st != want)
        fail_msg("parse_real(\"%s\"): status %d, expected %d", s ? s : "(null)", (int)st, (int)want);
    double expect = want == NUM_OK ? want_v : -7.25;
    if (v != expect)
        fail_msg("parse_real(\"%s\"): %.17g, expected %.17g", s ? s : "(null)", v, expect);
}

static void test_parse_real_grammar(void **state)
{
    (void)state;
    expect_real("0", NUM_OK, 0.0);
    expect_real("9", NUM_OK, 9.0);
    expect_real("1.5", NUM_OK, 1.5);
    expect_real("-1.5", NUM_OK, -1.5);
    expect_real(".5", NUM_OK, 0.5);
    expect_real("-.5", NUM_OK, -0.5);
    expect_real("5.", NUM_OK, 5.0);
    expect_real("1e-3", NUM_OK, 1e-3);
    expect_real("2.5E+4", NUM_OK, 25000.0);
    expect_real("3e2", NUM_OK, 300.0);
    expect_real(".5e1", NUM_OK, 5.0);
    expect_real("09.90", NUM_OK, 9.9);
    /* too large for a double: the right form, out of range */
    expect_real("1e400", NUM_RANGE, 0);
    expect_real("-1e400", NUM_RANGE, 0);
    /* not the grammar */
    expect_real(NULL, NUM_BAD, 0);
    expect_real("", NUM_BAD, 0);
    expect_real("-", NUM_BAD, 0);
    expect_real(".", NUM_BAD, 0);
    expect_real("-.", NUM_BAD, 0);
    expect_real("e5", NUM_BAD, 0);
    expect_real(".e5", NUM_BAD, 0);
    expect_real("1e", NUM_BAD, 0);
    expect_real("1e+", NUM_BAD, 0);
    expect_real("1e-", NUM_BAD, 0);
    expect_real("1e5.0", NUM_BAD, 0);
    expect_real("1.2.3", NUM_BAD, 0);
    expect_real("+1", NUM_BAD, 0);
    expect_real("--1", NUM_BAD, 0);
    expect_real(" 1", NUM_BAD, 0);
    expect_real("1 ", NUM_BAD, 0);
    expect_real("inf", NUM_BAD, 0);
    expect_real("nan", NUM_BAD, 0);
    expect_real("0x10", NUM_BAD, 0);
    /* the characters either side of '0'..'9', in each place a digit goes */
    expect_real("/", NUM_BAD, 0);
    expect_real(":", NUM_BAD, 0);
    expect_real("1/", NUM_BAD, 0);
    expect_real("1:", NUM_BAD, 0);
    expect_real("1./", NUM_BAD, 0);
    expect_real("1.:", NUM_BAD, 0);
    expect_real("1e/", NUM_BAD, 0);
    expect_real("1e:", NUM_BAD, 0);
    expect_real("1e1:", NUM_BAD, 0);
    expect_real("1e1/", NUM_BAD, 0);
}

/* ---- shown --------------------------------------------------------------------------- */

/* parse.h: at most 40 characters, control and non-ASCII bytes as '?',
 * "..." when cut, in a 48-byte buffer. The buffer is filled with 'Z' first:
 * what shown() does not write stays 'Z', so a write past the "..." and its
 * terminator (the 44 bytes a cut text needs) shows. */
static void test_shown_cut_and_byte_classes(void **state)
{
    (void)state;
    char buf[SHOWN_BUF];
    memset(buf, 'Z', sizeof buf);
    assert_string_equal(shown(NULL, buf), "");
    assert_string_equal(shown("abc", buf), "abc");
    /* the printable range is 0x20 ' ' to 0x7e '~', both kept */
    assert_string_equal(shown("\x1f \x7e\x7f\x80\xff\t", buf), "? ~????");
    /* 40 characters: whole */
    const char *forty = "0123456789012345678901234567890123456789";
    memset(buf, 'Z', sizeof buf);
    assert_string_equal(shown(forty, buf), forty);
    for (size_t i = 41; i < sizeof buf; i++)
        assert_int_equal(buf[i], 'Z');
    /* 41 and more: the first 40 and "..." */
    char longer[100];
    for (size_t i = 0; i < sizeof longer - 1; i++)
        longer[i] = (char)('a' + i % 26);
    longer[sizeof longer - 1] = '\0';
    for (size_t len = 41; len <= 99; len += 58) {
        char in[100];
        memcpy(in, longer, len);
        in[len] = '\0';
        memset(buf, 'Z', sizeof buf);
        const char *out = shown(in, buf);
        assert_int_equal(strlen(out), 43);
        assert_int_equal(memcmp(out, longer, 40), 0);
        assert_string_equal(out + 40, "...");
        for (size_t i = 44; i < sizeof buf; i++)
            if (buf[i] != 'Z')
                fail_msg("shown() wrote byte %zu of its buffer, past the cut text's 44", i);
    }
}

/* ---- write_file_atomic --------------------------------------------------------------- */

/* Descriptor 0 is a descriptor like any other: with stdin closed, open()
 * hands the temporary file descriptor 0, and the write still succeeds. */
static void test_write_file_atomic_on_descriptor_zero(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/spraysim-test-%ld-fd0", (long)getpid());
    int saved = dup(0);
    assert_true(saved >= 0);
    close(0);
    bool ok = write_file_atomic(path, "zero\n", 5);
    /* stdin back before any assertion can end the test */
    assert_int_equal(dup2(saved, 0), 0);
    close(saved);
    assert_true(ok);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char got[16] = {0};
    assert_int_equal(fread(got, 1, sizeof got - 1, f), 5);
    fclose(f);
    unlink(path);
    assert_string_equal(got, "zero\n");
}

/* The file is made with mode 0644 (less the umask), as any output file:
 * with umask 022, rw-r--r--. */
static void test_write_file_atomic_mode(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/spraysim-test-%ld-mode", (long)getpid());
    mode_t old = umask(022);
    bool ok = write_file_atomic(path, "m", 1);
    umask(old);
    assert_true(ok);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    unlink(path);
    assert_int_equal(st.st_mode & 07777, 0644);
}

/* A write that fails (here: past the file size limit, EFBIG, the signal
 * ignored) ends write_file_atomic with false, no target and no temporary
 * file left; only EINTR is retried. In a child, under a 10 s alarm: a
 * retry of every error would spin for ever. */
static void test_write_file_atomic_write_error(void **state)
{
    (void)state;
    char path[64], tmp[96];
    snprintf(path, sizeof path, "/tmp/spraysim-test-%ld-efbig", (long)getpid());
    unlink(path);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {.rlim_cur = 10, .rlim_max = 10};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(3);
        char data[100];
        memset(data, 'd', sizeof data);
        _exit(write_file_atomic(path, data, sizeof data) ? 1 : 0);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)pid);
    assert_int_not_equal(access(tmp, F_OK), 0);
}

/* ---- the event queue's edges ---------------------------------------------------------- */

/* eq_pop_until takes an event due exactly at until_ps and leaves one due a
 * picosecond later, whether the earliest event waits in a delay's FIFO or
 * in the other heap (with no FIFOs every event is in the heap); eq_count
 * counts exactly what is pending in both. */
static void test_eq_pop_until_exact_and_count(void **state)
{
    (void)state;
    for (uint32_t fifos = 0; fifos <= EQ_FIFOS; fifos += EQ_FIFOS) {
        struct event_queue q;
        eq_init(&q, 0);
        eq_set_fifos(&q, fifos);
        /* a delay of 100 repeated (a FIFO when there are any) and stray ones */
        size_t pending = 0;
        for (uint32_t k = 0; k < 6; k++) {
            eq_push(&q, 100, 1, k);
            pending++;
            assert_int_equal(eq_count(&q), pending);
        }
        eq_push(&q, 37, 2, 100);
        eq_push(&q, 1000003, 2, 101);
        pending += 2;
        assert_int_equal(eq_count(&q), pending);
        struct event e = {0};
        assert_false(eq_pop_until(&q, 36, &e));
        assert_true(eq_pop_until(&q, 37, &e));
        assert_int_equal(e.id, 100);
        assert_false(eq_pop_until(&q, 99, &e));
        assert_int_equal(eq_count(&q), --pending);
        for (uint32_t k = 0; k < 6; k++) {
            assert_true(eq_pop_until(&q, 100, &e));
            assert_int_equal(e.id, k);
            assert_int_equal(eq_count(&q), --pending);
        }
        assert_false(eq_pop_until(&q, 1000002, &e));
        assert_true(eq_pop_until(&q, 1000003, &e));
        assert_int_equal(e.id, 101);
        assert_int_equal(eq_count(&q), 0);
        assert_false(eq_pop_until(&q, SIMTIME_NEVER, &e));
        eq_free(&q);
    }
}

/* eq_set_kind_class takes kinds 0..63 and classes 0 and 1; anything else
 * is an internal error (exit 1) naming the bounds. */
static int kind_class_in_child(uint32_t kind, uint32_t cls, char *out, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        struct event_queue q;
        eq_init(&q, 0);
        eq_set_kind_class(&q, kind, cls);
        _exit(0);
    }
    close(fds[1]);
    return child_output(fds[0], pid, out, len);
}

static void test_eq_kind_class_bounds(void **state)
{
    (void)state;
    char out[512];
    assert_int_equal(kind_class_in_child(63, 1, out, sizeof out), 0);
    assert_int_equal(kind_class_in_child(0, 0, out, sizeof out), 0);
    assert_int_equal(kind_class_in_child(64, 0, out, sizeof out), 1);
    assert_non_null(strstr(out, "kind 64 (at most 63)"));
    assert_int_equal(kind_class_in_child(5, 2, out, sizeof out), 1);
    assert_non_null(strstr(out, "class 2 (0 or 1)"));
}

/* The peeks on an empty queue (new, and drained after both a FIFO and the
 * other heap held events): no event, no time, no FIFO events ahead; then
 * eq_peek_fifo_ahead names the events `places` behind the earliest in its
 * FIFO exactly, NULL past the FIFO's end, and writes out[0 .. n-1] only
 * (events.c:491: a peek of an empty queue taken as a FIFO's answered one
 * far past the FIFO array). A
 * delay's first event goes to the other heap (a first miss gets no FIFO),
 * its next ones to a FIFO. */
static void test_eq_peeks_exact(void **state)
{
    (void)state;
    /* the queue at the start of a larger block whose rest is not zero: a
     * peek that strays past the FIFO array reads non-zero bytes and
     * answers non-NULL (on the stack it might read zeros and pass) */
    const size_t bytes = sizeof(struct event_queue) + 256 * sizeof(struct ev_fifo);
    unsigned char *block = malloc(bytes);
    assert_non_null(block);
    memset(block, 0xa5, bytes);
    struct event_queue *qp = (struct event_queue *)(void *)block;
    eq_init(qp, 0);
    const struct event marker = {.id = 999};
    const struct event *out[5];
    static const uint32_t places[4] = {0, 1, 2, 3};
    for (int round = 0; round < 2; round++) {
        assert_null(eq_peek(qp));
        assert_true(eq_peek_time(qp) == SIMTIME_NEVER);
        for (int i = 0; i < 5; i++)
            out[i] = &marker;
        eq_peek_fifo_ahead(qp, 4, places, out);
        for (int i = 0; i < 4; i++)
            assert_null(out[i]);
        assert_ptr_equal(out[4], &marker);
        struct event e;
        assert_false(eq_pop(qp, &e));
        /* ids 0 (the heap: the delay's first miss), then 1, 2, 3 (its FIFO) */
        for (uint32_t id = 0; id < 4; id++)
            eq_push(qp, 100 + 1000 * (simtime_ps)round, 1, id);
        assert_int_equal(eq_peek(qp)->id, 0);
        assert_true(eq_peek_time(qp) == 100 + 1000 * (simtime_ps)round);
        eq_peek_fifo_ahead(qp, 4, places, out);
        for (int i = 0; i < 4; i++)
            assert_null(out[i]); /* the earliest is not in a FIFO */
        assert_true(eq_pop(qp, &e));
        assert_int_equal(e.id, 0);
        eq_peek_fifo_ahead(qp, 4, places, out);
        assert_ptr_equal(out[0], eq_peek(qp));
        for (uint32_t i = 0; i < 3; i++) {
            assert_non_null(out[i]);
            assert_int_equal(out[i]->id, 1 + i);
        }
        assert_null(out[3]);
        assert_ptr_equal(out[4], &marker);
        while (eq_pop(qp, &e))
            ;
    }
    eq_free(qp);
    free(block);
}

/* The queue without FIFOs keeps every event in its 4-ary heap: 400,000
 * pushes (never before the last pop, at random times up to 2^30 ps ahead)
 * and pops, in phases that grow the heap to about 12,500 events and drain
 * it again, pop every event once, in (time, seq) order (checked pop by
 * pop, not against a reference queue). */
static void test_eq_heap_alone_pops_in_order(void **state)
{
    (void)state;
    struct event_queue q;
    eq_init(&q, 16);
    eq_set_fifos(&q, 0);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    simtime_ps last_t = 0;
    uint64_t last_seq = 0, pushed = 0, popped = 0;
    bool any = false;
    for (uint32_t op = 0; op < 400000; op++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t depth = eq_count(&q);
        /* grow to a few thousand, then drain, then grow again */
        bool push = depth == 0 || ((op / 50000) % 2 == 0 ? (x % 8) < 5 : (x % 8) < 3);
        if (push) {
            eq_push(&q, q.now_ps + (x >> 34), 0, (uint32_t)pushed);
            pushed++;
        } else {
            struct event e;
            assert_true(eq_pop(&q, &e));
            if (any && (e.time_ps < last_t || (e.time_ps == last_t && e.seq < last_seq)))
                fail_msg("pop %llu: t=%llu seq=%llu after t=%llu seq=%llu", (unsigned long long)popped,
                         (unsigned long long)e.time_ps, (unsigned long long)e.seq, (unsigned long long)last_t,
                         (unsigned long long)last_seq);
            last_t = e.time_ps;
            last_seq = e.seq;
            any = true;
            popped++;
        }
    }
    struct event e;
    while (eq_pop(&q, &e)) {
        assert_true(e.time_ps > last_t || (e.time_ps == last_t && e.seq > last_seq));
        last_t = e.time_ps;
        last_seq = e.seq;
        popped++;
    }
    assert_int_equal(popped, pushed);
    eq_free(&q);
}

int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv); /* tests/malloc_check.h: heap overruns fail here too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_u64_digits_and_both_ends),
        cmocka_unit_test(test_parse_i64_forms),
        cmocka_unit_test(test_parse_real_grammar),
        cmocka_unit_test(test_shown_cut_and_byte_classes),
        cmocka_unit_test(test_write_file_atomic_on_descriptor_zero),
        cmocka_unit_test(test_write_file_atomic_mode),
        cmocka_unit_test(test_write_file_atomic_write_error),
        cmocka_unit_test(test_eq_pop_until_exact_and_count),
        cmocka_unit_test(test_eq_kind_class_bounds),
        cmocka_unit_test(test_eq_peeks_exact),
        cmocka_unit_test(test_eq_heap_alone_pops_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
