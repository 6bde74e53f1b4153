/* test_invariants.c: the run-time invariant checks (invariant() in
 * src/core/core.h, compiled in with SPRAYSIM_CHECKS) fire when the state
 * they guard is corrupted on purpose, with a message naming what broke, and
 * stay quiet on clean runs. Each test points the failure hook at a recorder
 * instead of abort(), breaks one thing, and looks for the message. Only
 * builds with the checks have them (make asan, make debug); in the others
 * every test here is skipped, which cmocka does not count as passed.
 */
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>

#include "lb/lb.h"
#include "sim.h"
#include "transport/flow.h"
#include "transport/transport.h"
#include "transport/uet.h"

/* Every test, in order; each is defined below, or skipped without checks. */
#define INVARIANT_TESTS(X)                                                                                             \
    X(test_default_hook_prints_one_line_and_aborts)                                                                    \
    X(test_clean_runs_fire_nothing)                                                                                    \
    X(test_pool_double_release)                                                                                        \
    X(test_pool_release_outside)                                                                                       \
    X(test_pool_release_with_none_in_use)                                                                              \
    X(test_pool_alloc_of_allocated_packet)                                                                             \
    X(test_pool_in_use_above_capacity)                                                                                 \
    X(test_pool_grow_with_lost_free_list)                                                                              \
    X(test_event_scheduled_in_the_past)                                                                                \
    X(test_event_popped_out_of_order)                                                                                  \
    X(test_event_fifo_out_of_order)                                                                                    \
    X(test_sim_clock_goes_backwards)                                                                                   \
    X(test_sim_schedules_nothing_in_the_past)                                                                          \
    X(test_port_data_bytes)                                                                                            \
    X(test_port_ctl_bytes)                                                                                             \
    X(test_port_counters_at_end_of_run)                                                                                \
    X(test_port_drr_class0_bytes)                                                                                      \
    X(test_port_drr_class1_bytes)                                                                                      \
    X(test_port_queue_holds_released_packet)                                                                           \
    X(test_port_queue_tail)                                                                                            \
    X(test_port_queue_cycle)                                                                                           \
    X(test_port_sending_released_packet)                                                                               \
    X(test_port_tx_done_without_packet)                                                                                \
    X(test_port_ctl_bytes_underflow)                                                                                   \
    X(test_port_data_bytes_underflow)                                                                                  \
    X(test_port_drr_bytes_underflow)                                                                                   \
    X(test_arrival_of_released_packet)                                                                                 \
    X(test_census_in_use_mismatch)                                                                                     \
    X(test_census_packet_in_two_places)                                                                                \
    X(test_census_released_packet_in_network)                                                                          \
    X(test_census_packet_beyond_the_pool)                                                                              \
    X(test_census_data_packets_unaccounted)                                                                            \
    X(test_census_runs_during_the_run)                                                                                 \
    X(test_flow_in_flight_bytes)                                                                                       \
    X(test_flow_in_flight_underflow_on_ack)                                                                            \
    X(test_flow_in_flight_underflow_on_loss)                                                                           \
    X(test_flow_in_flight_underflow_on_nack)                                                                           \
    X(test_flow_in_flight_underflow_on_timeout)                                                                        \
    X(test_flow_in_flight_underflow_on_go_back_n)                                                                      \
    X(test_mixed_entropy_beyond_narrow_paths)

#ifdef SPRAYSIM_CHECKS

/* ---- the recording hook ---------------------------------------------------------- */

#define MAX_FIRED 64
static struct sim S;
static struct {
    unsigned n; /* failures seen (only the first MAX_FIRED are kept) */
    simtime_ps sim_now[MAX_FIRED]; /* S.now when it fired */
    char file[MAX_FIRED][128];
    char message[MAX_FIRED][256];
} fired;

static void record_failure(const char *file, int line, const char *message)
{
    (void)line;
    if (fired.n < MAX_FIRED) {
        fired.sim_now[fired.n] = S.now;
        snprintf(fired.file[fired.n], sizeof fired.file[0], "%s", file);
        snprintf(fired.message[fired.n], sizeof fired.message[0], "%s", message);
    }
    fired.n++;
}

static int hook_on(void **st)
{
    (void)st;
    memset(&fired, 0, sizeof fired);
    invariant_hook = record_failure;
    return 0;
}

static int hook_off(void **st)
{
    (void)st;
    invariant_hook = invariant_hook_default;
    return 0;
}

/* Some recorded failure is in a file ending in `file` and its message
 * starts with `prefix`. */
static void expect_fired(const char *file, const char *prefix)
{
    unsigned kept = fired.n < MAX_FIRED ? fired.n : MAX_FIRED;
    for (unsigned i = 0; i < kept; i++) {
        size_t fl = strlen(fired.file[i]), l = strlen(file);
        if (fl >= l && !strcmp(fired.file[i] + fl - l, file) && !strncmp(fired.message[i], prefix, strlen(prefix)))
            return;
    }
    for (unsigned i = 0; i < kept; i++)
        print_message("fired: %s: %s\n", fired.file[i], fired.message[i]);
    fail_msg("no invariant failure in %s starting \"%s\" (%u fired)", file, prefix, fired.n);
}

static void expect_none(void)
{
    for (unsigned i = 0; i < fired.n && i < MAX_FIRED; i++)
        print_message("fired: %s: %s\n", fired.file[i], fired.message[i]);
    assert_int_equal(fired.n, 0);
}

static void test_default_hook_prints_one_line_and_aborts(void **st)
{
    (void)st;
    /* In a child: stderr into a pipe, the default hook, a false invariant. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int line = __LINE__ + 8;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        invariant_hook = invariant_hook_default;
        int answer = 41;
        invariant(answer == 42, "answer %d, want %d", answer, 42);
        _exit(0); /* not reached when the hook aborts */
    }
    close(fds[1]);
    char text[256] = {0};
    size_t got = 0;
    ssize_t n;
    while (got < sizeof text - 1 && (n = read(fds[0], text + got, sizeof text - 1 - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    char want[256];
    snprintf(want, sizeof want, "spraysim: invariant failed at %s:%d: answer 41, want 42\n", __FILE__, line);
    assert_string_equal(text, want);
}

/* ---- a small fabric ---------------------------------------------------------------- */

struct opts {
    const char *cm;
    const char *cc;
    const char *fail;
    bool drr;
    bool no_trim;
    bool sleek;
    uint32_t mtu_bytes;  /* 0 = default */
    uint32_t queue_pkts; /* 0 = default; else RED between 1 and this */
    double end_us;
};

static const char *ONE_FLOW = "Nodes 16\nConnections 1\n0->13 start 0 size 200000\n";

static void setup(const struct opts *o)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(o->cm ? o->cm : ONE_FLOW, ".cm");
    if (o->cc)
        c.cc_name = o->cc;
    if (o->fail) {
        c.fail_specs[0] = o->fail;
        c.n_fail_specs = 1;
    }
    c.drr = o->drr;
    c.trimming = !o->no_trim;
    c.sleek = o->sleek;
    if (o->mtu_bytes)
        c.mtu_bytes = o->mtu_bytes;
    if (o->queue_pkts) {
        c.queue_pkts = o->queue_pkts;
        c.ecn_low_pkts = 1;
        c.ecn_high_pkts = o->queue_pkts;
    }
    c.end_ps = (simtime_ps)((o->end_us ? o->end_us : 1000) * PS_PER_US);
    c.progress = false;
    sim_setup(&S, &c);
    unlink(c.tm_path);
}

/* Runs on to end_us, or up to where the previous run stopped if earlier. */
static void run_to(double end_us)
{
    S.cfg.end_ps = (simtime_ps)(end_us * PS_PER_US);
    sim_run(&S);
}

/* ToR 0's first downlink (to host 0), a switch port. */
static uint32_t tor_port(void)
{
    return S.switches[0].first_port;
}

static uint32_t new_pkt(uint8_t type, uint32_t size, uint8_t tclass)
{
    uint32_t idx = pkt_alloc(&S.pool);
    struct packet *p = pkt_at(&S.pool, idx);
    memset(p, 0, sizeof(*p));
    p->type = type;
    p->prio = (type == PKT_DATA || type == PKT_PROBE) ? PKT_PRIO_DATA : PKT_PRIO_CONTROL; /* as UET sets it */
    p->size_bytes = size;
    p->tclass = tclass;
    p->dst_host = 0;
    return idx;
}

/* The first pending arrival event's packet. */
static void find_arrival(const struct event *e, void *ctx)
{
    uint32_t *found = ctx;
    if (e->kind == EV_PKT_ARRIVE && *found == PKT_NONE)
        *found = e->id;
}

static uint32_t packet_on_a_link(void)
{
    uint32_t found = PKT_NONE;
    eq_visit(&S.eq, find_arrival, &found);
    assert_int_not_equal(found, PKT_NONE);
    return found;
}

/* A port with nothing queued or in service. */
static uint32_t idle_port(void)
{
    for (uint32_t i = 0; i < S.n_ports; i++)
        if (S.ports[i].in_service == PKT_NONE && S.ports[i].ctl_head == PKT_NONE && S.ports[i].data_head == PKT_NONE)
            return i;
    fail_msg("no idle port");
    return 0;
}

/* ---- clean runs ---------------------------------------------------------------------- */

static void test_clean_runs_fire_nothing(void **st)
{
    (void)st;
    /* Incast overflows queues (trims, drops without trimming; with small
     * packets and one-packet queues the control class overflows too and
     * headers bounce), DRR mixes classes, a failure cuts packets on the
     * wire, SLEEK and NewReno retransmit: none of it may trip a check. */
    const char *incast = "Nodes 16\nConnections 6\n1->0 start 0 size 300000\n2->0 start 0 size 300000\n"
                         "3->0 start 0 size 300000 lb ecmp\n4->0 start 0 size 300000 lb ecmp\n"
                         "5->0 start 0 size 300000\n6->0 start 0 size 300000\n";
    const struct opts runs[] = {
        {.cm = incast, .end_us = 200},
        {.cm = incast, .drr = true, .end_us = 200},
        {.cm = incast, .no_trim = true, .end_us = 200},
        {.cm = incast, .sleek = true, .fail = "link tor0 agg1 down at 20", .end_us = 200},
        {.cm = incast, .cc = "newreno", .no_trim = true, .end_us = 200},
        {.cm = incast, .mtu_bytes = 512, .queue_pkts = 1, .end_us = 100},
    };
    uint64_t bounced = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        setup(&runs[i]);
        sim_run(&S);
        assert_true(S.tot.data_pkts_sent > 100);
        bounced += S.tot.data_bounced;
        sim_free(&S);
    }
    expect_none();
    assert_true(bounced > 0);
}

/* ---- the packet pool ------------------------------------------------------------------ */

static void test_pool_double_release(void **st)
{
    (void)st;
    struct packet_pool pool;
    pool_init(&pool, 64);
    uint32_t a = pkt_alloc(&pool);
    pkt_release(&pool, a);
    expect_none();
    pkt_release(&pool, a);
    expect_fired("packet.h", "packet ");
    assert_non_null(strstr(fired.message[0], "released twice"));
    assert_int_equal(pool.in_use, 0); /* the second release changed nothing */
    pool_free(&pool);
}

static void test_pool_release_outside(void **st)
{
    (void)st;
    struct packet_pool pool;
    pool_init(&pool, 64);
    pkt_release(&pool, pool.capacity + 3);
    expect_fired("packet.h", "released packet 67 is outside the pool");
    pool_free(&pool);
}

static void test_pool_release_with_none_in_use(void **st)
{
    (void)st;
    struct packet_pool pool;
    pool_init(&pool, 64);
    uint32_t a = pkt_alloc(&pool);
    pool.in_use = 0;
    pkt_release(&pool, a);
    expect_fired("packet.h", "packet 0 released with the pool's in_use at 0");
    pool_free(&pool);
}

static void test_pool_alloc_of_allocated_packet(void **st)
{
    (void)st;
    struct packet_pool pool;
    pool_init(&pool, 64);
    pool.live[pool_next_free(&pool)] = 1; /* as if a packet were free and in use */
    pkt_alloc(&pool);
    expect_fired("packet.h", "packet 0 on the free list is allocated");
    pool_free(&pool);
}

static void test_pool_in_use_above_capacity(void **st)
{
    (void)st;
    struct packet_pool pool;
    pool_init(&pool, 64);
    pool.in_use = pool.capacity;
    pkt_alloc(&pool);
    expect_fired("packet.h", "pool in_use 65 above capacity 64");
    pool_free(&pool);
}

static void test_pool_grow_with_lost_free_list(void **st)
{
    (void)st;
    struct packet_pool pool;
    pool_init(&pool, 64);
    for (int i = 0; i < 65; i++) /* grows once, cleanly */
        pkt_alloc(&pool);
    assert_int_equal(pool.capacity, 128);
    for (int i = 65; i < 128; i++) /* the new slots are free */
        pkt_alloc(&pool);
    expect_none();
    pool.in_use--; /* one packet neither free nor counted */
    pkt_alloc(&pool);
    expect_fired("packet.c", "pool grown with 127 of 128 packets in use");
    assert_int_equal(fired.n, 1);
    pool_free(&pool);
}

/* ---- time ------------------------------------------------------------------------------ */

static void test_event_scheduled_in_the_past(void **st)
{
    (void)st;
    struct event_queue q;
    struct event e;
    eq_init(&q, 16);
    /* a general queue takes any time */
    eq_push(&q, 100, 1, 1);
    assert_true(eq_pop(&q, &e));
    eq_push(&q, 50, 1, 2);
    assert_true(eq_pop(&q, &e));
    expect_none();
    /* a monotonic one (the simulator's) does not */
    q.monotonic = true;
    eq_push(&q, 100, 1, 3);
    assert_true(eq_pop(&q, &e));
    eq_push(&q, 50, 1, 4);
    /* checked in the push's inline part (core.h eq_push_aux) */
    expect_fired("core.h", "event kind 1 id 4 scheduled at 50 ps, before the current 100 ps");
    eq_free(&q);
}

static void test_event_popped_out_of_order(void **st)
{
    (void)st;
    struct event_queue q;
    struct event e;
    eq_init(&q, 16);
    q.monotonic = true;
    eq_push(&q, 100, 1, 1);
    eq_push(&q, 200, 1, 2);
    assert_true(eq_pop(&q, &e));
    expect_none();
    assert_int_equal(q.other.len, 1); /* a delay seen once has no FIFO */
    q.other.ev[0].time_ps = 50; /* a heap that lost its order */
    assert_true(eq_pop(&q, &e));
    expect_fired("events.c", "event kind 1 id 2 popped at 50 ps, after one at 100 ps");
    eq_free(&q);
}

static void test_event_fifo_out_of_order(void **st)
{
    (void)st;
    /* A FIFO is sorted only because its pushes share one delay from a clock
     * that never goes back: wind the queue's clock back by hand and the
     * append check fires. */
    struct event_queue q;
    struct event e;
    eq_init(&q, 16);
    eq_push(&q, 100, 1, 1);
    assert_true(eq_pop(&q, &e));
    eq_push(&q, 400, 1, 2); /* delay 300: the other heap */
    eq_push(&q, 400, 1, 2); /* delay 300 again: a FIFO */
    assert_int_equal(q.top_bytes, sizeof(struct eq_head)); /* one head */
    expect_none();
    q.now_ps = 0;
    eq_push(&q, 300, 1, 3); /* delay 300 again, but earlier than 400 */
    expect_fired("events.c", "event kind 1 id 3 at 300 ps appended to a FIFO whose last event is later");
    eq_free(&q);
}

static void test_sim_schedules_nothing_in_the_past(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    run_to(3);
    expect_none();
    simtime_ps last = S.eq.last_pop_ps; /* the clock of the last event; the run's end is later */
    transport_timer_at(&S, last - 1, 0, UET_TIMER_PACE);
    char want[128];
    snprintf(want, sizeof want, "event kind 4 id 0 scheduled at %llu ps, before the current %llu ps",
             (unsigned long long)last - 1, (unsigned long long)last);
    expect_fired("core.h", want); /* the push's inline part checks it */
    sim_free(&S);
}

static void test_sim_clock_goes_backwards(void **st)
{
    (void)st;
    setup(&(struct opts){.end_us = 1});
    S.now = 5 * PS_PER_US; /* the flow starts at 0 */
    sim_run(&S);
    expect_fired("sim.c", "event kind 3 id 0 at 0 ps runs after the clock reached 5000000 ps");
    sim_free(&S);
}

/* ---- ports ----------------------------------------------------------------------------- */

static void test_port_data_bytes(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    expect_none();
    S.ports[port].data_bytes += 1;
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    expect_fired("net.c", "port 16 data_bytes 12451 but its data packets hold 12450 bytes");
    sim_free(&S);
}

static void test_port_ctl_bytes(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    for (int i = 0; i < 3; i++)
        port_enqueue(&S, port, new_pkt(PKT_ACK, 64, 0));
    expect_none();
    S.ports[port].ctl_bytes -= 1;
    port_tx_done(&S, port); /* checked when a packet leaves too */
    expect_fired("net.c", "port 16 ctl_bytes 127 but its control packets hold 128 bytes");
    sim_free(&S);
}

static void test_port_counters_at_end_of_run(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    run_to(3);
    expect_none();
    uint32_t port = idle_port();
    S.ports[port].data_bytes = 5; /* no event will touch this port again */
    run_to(3);
    char want[128];
    snprintf(want, sizeof want, "port %u data_bytes 5 but its data packets hold 0 bytes", port);
    expect_fired("net.c", want);
    sim_free(&S);
}

static void test_port_drr_class0_bytes(void **st)
{
    (void)st;
    setup(&(struct opts){.drr = true});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 1));
    expect_none();
    S.ports[port].drr->bytes[0] += 7;
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    expect_fired("net.c", "port 16 DRR class 0 bytes 8307 but its packets hold 8300 bytes");
    sim_free(&S);
}

static void test_port_drr_class1_bytes(void **st)
{
    (void)st;
    setup(&(struct opts){.drr = true});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 1)); /* on the wire, from class 1 */
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 1));
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    expect_none();
    S.ports[port].drr->bytes[1] -= 7;
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    expect_fired("net.c", "port 16 DRR class 1 bytes 8293 but its packets hold 8300 bytes");
    sim_free(&S);
}

static void test_port_queue_holds_released_packet(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0)); /* on the wire */
    uint32_t queued = new_pkt(PKT_DATA, 4150, 0);
    port_enqueue(&S, port, queued);
    uint32_t ack = new_pkt(PKT_ACK, 64, 0); /* before the release would recycle the slot */
    expect_none();
    pkt_release(&S.pool, queued); /* behind the port's back */
    port_enqueue(&S, port, ack);
    char want[128];
    snprintf(want, sizeof want, "port 16 data queue holds released packet %u", queued);
    expect_fired("net.c", want);
    sim_free(&S);
}

static void test_port_queue_tail(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_ACK, 64, 0)); /* on the wire */
    uint32_t first = new_pkt(PKT_ACK, 64, 0);
    port_enqueue(&S, port, first);
    uint32_t stray = new_pkt(PKT_ACK, 64, 0);
    expect_none();
    S.ports[port].ctl_tail = stray; /* the next append links after a packet not in the queue */
    uint32_t last = new_pkt(PKT_ACK, 64, 0);
    port_enqueue(&S, port, last);
    char want[128];
    snprintf(want, sizeof want, "port 16 control queue ends at packet %u but its tail is %u", first, last);
    expect_fired("net.c", want);
    sim_free(&S);
}

static void test_port_queue_cycle(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_ACK, 64, 0)); /* on the wire */
    uint32_t a = new_pkt(PKT_ACK, 64, 0), b = new_pkt(PKT_ACK, 64, 0);
    port_enqueue(&S, port, a);
    port_enqueue(&S, port, b);
    expect_none();
    S.pool.pkts[b].next = a; /* a -> b -> a -> ... */
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0)); /* the check walks the control queue too */
    char want[128];
    snprintf(want, sizeof want, "port 16 control queue is longer than the %u packets in use (a cycle)", S.pool.in_use);
    expect_fired("net.c", want);
    /* the walk stops after as many packets as are in use (a, b, a, b: 64 B
     * each), and the one on the wire adds its 64 B */
    snprintf(want, sizeof want, "port 16 ctl_bytes %u but its control packets hold %u bytes", S.ports[port].ctl_bytes,
             (S.pool.in_use + 1) * 64);
    expect_fired("net.c", want);
    sim_free(&S);
}

static void test_port_sending_released_packet(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    uint32_t sending = new_pkt(PKT_DATA, 4150, 0);
    port_enqueue(&S, port, sending);
    uint32_t next = new_pkt(PKT_DATA, 4150, 0); /* before the release would recycle the slot */
    expect_none();
    pkt_release(&S.pool, sending);
    port_enqueue(&S, port, next);
    char want[128];
    snprintf(want, sizeof want, "port 16 is sending released packet %u", sending);
    expect_fired("net.c", want);
    sim_free(&S);
}

static void test_port_tx_done_without_packet(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    uint32_t sending = new_pkt(PKT_ACK, 64, 0);
    port_enqueue(&S, port, sending);
    expect_none();
    pkt_release(&S.pool, sending);
    port_tx_done(&S, port);
    char want[128];
    snprintf(want, sizeof want, "port 16 finished sending packet %u, which it does not hold", sending);
    expect_fired("net.c", want);
    sim_free(&S);
}

static void test_port_ctl_bytes_underflow(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_ACK, 64, 0));
    expect_none();
    S.ports[port].ctl_bytes = 10;
    port_tx_done(&S, port);
    expect_fired("net.c", "port 16 ctl_bytes 10 below the 64-byte packet leaving");
    sim_free(&S);
}

static void test_port_data_bytes_underflow(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 0));
    expect_none();
    S.ports[port].data_bytes = 100;
    port_tx_done(&S, port);
    expect_fired("net.c", "port 16 data_bytes 100 below the 4150-byte packet leaving");
    sim_free(&S);
}

static void test_port_drr_bytes_underflow(void **st)
{
    (void)st;
    setup(&(struct opts){.drr = true});
    uint32_t port = tor_port();
    port_enqueue(&S, port, new_pkt(PKT_DATA, 4150, 1));
    expect_none();
    S.ports[port].drr->bytes[1] = 100;
    port_tx_done(&S, port);
    expect_fired("net.c", "port 16 DRR class 1 bytes 100 below the 4150-byte packet leaving");
    sim_free(&S);
}

static void test_arrival_of_released_packet(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    uint32_t idx = new_pkt(PKT_ACK, 64, 0);
    pkt_release(&S.pool, idx);
    expect_none();
    node_receive(&S, idx, tor_port());
    char want[128];
    snprintf(want, sizeof want, "packet %u reaches a node but is not allocated", idx);
    expect_fired("net.c", want);
    sim_free(&S);
}

/* ---- packet conservation ---------------------------------------------------------------- */

/* One flow stopped after 3 us: packets queued, on wires and on links. */
static void mid_run(void)
{
    setup(&(struct opts){0});
    run_to(3);
    expect_none();
    assert_true(S.pool.in_use > 2);
}

static void test_census_in_use_mismatch(void **st)
{
    (void)st;
    mid_run();
    uint32_t in_network = S.pool.in_use;
    pkt_alloc(&S.pool); /* allocated and held by no one */
    run_to(3);
    char want[128];
    snprintf(want, sizeof want, "the pool has %u packets in use but %u are in the network", in_network + 1, in_network);
    expect_fired("sim.c", want);
    sim_free(&S);
}

static void test_census_packet_in_two_places(void **st)
{
    (void)st;
    mid_run();
    uint32_t idx = packet_on_a_link();
    S.ports[idle_port()].in_service = idx; /* and also on a wire */
    run_to(3);
    char want[128];
    snprintf(want, sizeof want, "packet %u is in two places", idx);
    expect_fired("sim.c", want);
    sim_free(&S);
}

static void test_census_released_packet_in_network(void **st)
{
    (void)st;
    mid_run();
    uint32_t idx = pkt_alloc(&S.pool);
    pkt_release(&S.pool, idx);
    uint32_t port = idle_port();
    S.ports[port].in_service = idx;
    S.ports[port].in_service_queue = SERVED_FROM_TRANSPORT;
    run_to(3);
    char want[128];
    snprintf(want, sizeof want, "the wire of port %u holds packet %u, which is not allocated", port, idx);
    expect_fired("sim.c", want);
    sim_free(&S);
}

/* A wire holding an index one past the pool: reported as not allocated,
 * and not counted as a packet in the network (the census stops there, so
 * the pool's in-use count and the network's still agree). */
static void test_census_packet_beyond_the_pool(void **st)
{
    (void)st;
    mid_run();
    uint32_t idx = S.pool.capacity;
    uint32_t port = idle_port();
    S.ports[port].in_service = idx;
    S.ports[port].in_service_queue = SERVED_FROM_TRANSPORT;
    run_to(3);
    char want[128];
    snprintf(want, sizeof want, "the wire of port %u holds packet %u, which is not allocated", port, idx);
    expect_fired("sim.c", want);
    for (unsigned i = 0; i < fired.n && i < MAX_FIRED; i++)
        if (!strncmp(fired.message[i], "the pool has ", 13))
            fail_msg("counted as in the network: %s", fired.message[i]);
    sim_free(&S);
}

static void test_census_data_packets_unaccounted(void **st)
{
    (void)st;
    mid_run();
    S.tot.data_pkts_delivered++;
    run_to(3);
    expect_fired("sim.c", "");
    char want[64];
    snprintf(want, sizeof want, "%llu data packets sent but ", (unsigned long long)S.tot.data_pkts_sent);
    expect_fired("sim.c", want);
    sim_free(&S);
}

static void test_census_runs_during_the_run(void **st)
{
    (void)st;
    /* the census also runs every so many events, not only at the end */
    setup(&(struct opts){.cm = "Nodes 16\nConnections 8\n0->8 start 0 size 2000000\n1->9 start 0 size 2000000\n"
                               "2->10 start 0 size 2000000\n3->11 start 0 size 2000000\n4->12 start 0 size 2000000\n"
                               "5->13 start 0 size 2000000\n6->14 start 0 size 2000000\n7->15 start 0 size 2000000\n"});
    run_to(3);
    pkt_alloc(&S.pool); /* held by no one */
    run_to(100);
    assert_true(S.events_processed > 2 * 16384); /* twice CENSUS_EVENTS (sim.c) */
    expect_fired("sim.c", "the pool has ");
    assert_true(fired.sim_now[0] < 100 * PS_PER_US);
    sim_free(&S);
}

/* ---- a flow's bytes in flight ---------------------------------------------------------- */

static void test_flow_in_flight_bytes(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    run_to(20); /* the first ACKs are back */
    expect_none();
    assert_true(S.flows[0].c.acks > 0 && S.flows[0].state == FLOW_ACTIVE);
    uet_of(&S.flows[0])->in_flight_bytes += 1;
    run_to(22);
    expect_fired("uet.c", "flow 0 in_flight_bytes ");
    assert_non_null(strstr(fired.message[0], "but its packets in flight hold"));
    sim_free(&S);
}

/* The sender's host receives a control packet of flow 0. */
static void deliver_to_sender(uint8_t type, uint32_t cum_ack, uint32_t ref_seq)
{
    uint32_t idx = new_pkt(type, 64, 0);
    struct packet *a = pkt_at(&S.pool, idx);
    a->flow = 0;
    a->seq = cum_ack;
    a->ref_seq = ref_seq;
    a->src_host = 13;
    a->dst_host = 0;
    transport_receive(&S, idx);
}

static void test_flow_in_flight_underflow_on_ack(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    transport_flow_start(&S, 0); /* packet 0 goes on the wire */
    expect_none();
    uet_of(&S.flows[0])->in_flight_bytes = 0;
    deliver_to_sender(PKT_ACK, 1, 0);
    expect_fired("uet_ack.c", "flow 0: acknowledging packet 0 (4150 bytes) with 0 in flight");
    sim_free(&S);
}

static void test_flow_in_flight_underflow_on_loss(void **st)
{
    (void)st;
    /* seed 002's SLEEK example (as tests/test_transport.c sets it up):
     * ten packets out, 0 1 3 4 6 7 acknowledged, so 2 5 8 9 are in flight
     * and a large out-of-order count declares the old ones lost */
    setup(&(struct opts){.cm = "Nodes 16\nConnections 1\n0->13 start 0 size 40860\n", .sleek = true});
    transport_flow_start(&S, 0);
    struct flow *f = &S.flows[0];
    uet_of(f)->rtx_len = 0;
    for (uint32_t q = 0; q < 10; q++) { /* sent by hand: each has its record (a ring, uet.h) */
        struct tx_rec *t = &uet_of(f)->tx[q & uet_of(f)->tx_mask];
        if (!uet_tx_holds(uet_of(f), q)) { /* the start may have sent the first ones for real */
            uet_of(f)->next_new_seq = q;
            t = uet_tx_claim(uet_of(f), q);
            uet_of(f)->next_new_seq = q + 1;
        }
        *t = (struct tx_rec){.state = TX_IN_FLIGHT, .count = 1, .time_ps = 0};
    }
    uet_of(f)->next_new_seq = 10;
    uint32_t acked[] = {0, 1, 3, 4, 6, 7};
    for (size_t i = 0; i < 6; i++)
        uet_txw(uet_of(f), acked[i])->state = TX_ACKED;
    uet_of(f)->cum_acked = 2;
    uet_of(f)->in_flight_bytes = 4150; /* should be 4 x 4150 */
    S.now = 10 * PS_PER_US;
    uet_sleek_step(&S, 0, 1000);
    expect_fired("uet_ack.c", "flow 0: packet ");
    assert_non_null(strstr(fired.message[0], "lost with"));
    sim_free(&S);
}

static void test_flow_in_flight_underflow_on_nack(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    transport_flow_start(&S, 0); /* packet 0 goes on the wire */
    expect_none();
    uet_of(&S.flows[0])->in_flight_bytes = 0;
    deliver_to_sender(PKT_NACK, 0, 0);
    expect_fired("uet_ack.c", "flow 0: packet 0 (4150 bytes) NACKed with 0 in flight");
    sim_free(&S);
}

static void test_flow_in_flight_underflow_on_timeout(void **st)
{
    (void)st;
    setup(&(struct opts){0});
    run_to(2);
    expect_none();
    uet_of(&S.flows[0])->in_flight_bytes = 0;
    S.now = 2 * PS_PER_US + S.min_rto_ps;
    transport_timer(&S, 0, UET_TIMER_RTO);
    expect_fired("uet_recovery.c", "flow 0: packet 0 (4150 bytes) timed out with 0 in flight");
    sim_free(&S);
}

static void test_flow_in_flight_underflow_on_go_back_n(void **st)
{
    (void)st;
    /* NewReno resends everything outstanding after a timeout */
    setup(&(struct opts){.cc = "newreno"});
    run_to(2);
    expect_none();
    assert_true(uet_of(&S.flows[0])->next_new_seq >= 3);
    uet_of(&S.flows[0])->in_flight_bytes = 4150; /* only the timed-out packet's */
    S.now = 2 * PS_PER_US + S.min_rto_ps;
    transport_timer(&S, 0, UET_TIMER_RTO);
    expect_fired("uet_recovery.c", "flow 0: packet 1 (4150 bytes) resent after a timeout with 0 in flight");
    sim_free(&S);
    /* with the true count nothing fires: the last packet resent takes the
     * count to exactly 0 */
    memset(&fired, 0, sizeof fired);
    setup(&(struct opts){.cc = "newreno"});
    run_to(2);
    uint32_t sent = uet_of(&S.flows[0])->next_new_seq;
    assert_true(sent >= 3);
    assert_int_equal(uet_of(&S.flows[0])->in_flight_bytes, (uint64_t)sent * 4150);
    S.now = 2 * PS_PER_US + S.min_rto_ps;
    transport_timer(&S, 0, UET_TIMER_RTO);
    expect_none();
    assert_int_equal(uet_of(&S.flows[0])->in_flight_bytes, 0);
    sim_free(&S);
}

/* Mixed keeps fed-back entropies in bytes while paths <= 256: an entropy
 * of 256 cannot be stored there (it would come back as 0), one of 255 can. */
static void test_mixed_entropy_beyond_narrow_paths(void **st)
{
    (void)st;
    struct lb_params p = {.paths = 256, .trimming = true, .seed = 13};
    void *m = calloc(1, lb_state_bytes(&lb_mixed_ops, &p));
    assert_non_null(m);
    lb_mixed_ops.init(m, &p);
    lb_mixed_ops.feedback(m, 255, LB_GOOD, 0);
    expect_none();
    lb_mixed_ops.feedback(m, 256, LB_GOOD, 0);
    expect_fired("mixed.c", "Mixed: entropy 256 fed back with at most 256 paths");
    if (lb_mixed_ops.release)
        lb_mixed_ops.release(m);
    free(m);
}

#else /* no checks compiled in: every test is skipped */

#define SKIPPED_TEST(name)                                                                                             \
    static void name(void **st)                                                                                        \
    {                                                                                                                  \
        (void)st;                                                                                                      \
        skip();                                                                                                        \
    }
INVARIANT_TESTS(SKIPPED_TEST)

static int hook_on(void **st)
{
    (void)st;
    return 0;
}

static int hook_off(void **st)
{
    (void)st;
    return 0;
}

#endif

int main(void)
{
#define TEST_ENTRY(name) cmocka_unit_test_setup_teardown(name, hook_on, hook_off),
    const struct CMUnitTest tests[] = {INVARIANT_TESTS(TEST_ENTRY)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
