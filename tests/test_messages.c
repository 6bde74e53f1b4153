/* test_messages.c: messages over connections (docs/workloads.md "Messages over
 * connections"). Lines of a .cm that share an id are one connection's
 * messages: how they are grouped and checked, that UET pipelines a
 * connection's messages in one sequence space as htsim -conn_reuse does,
 * that otherwise they run one after another in file order with the FCT
 * counted from posting, and that a message inherits its connection's
 * congestion state (--msg-cc inherit) or starts fresh (--msg-cc fresh), for
 * UET and for RoCE's rate control.
 */
#include "testutil.h"

#include "sim.h"
#include "cc/cc.h"
#include "transport/flow.h"
#include "transport/transport.h"
#include "transport/uet.h"
#include "workload/cm.h"

static struct sim S;

static const char *const THREE_MSGS =
    "Nodes 16\nConnections 4\n"
    "0->5 id 7 start 0 size 200000 msg 1\n"
    "3->9 id 2 start 0 size 100000\n"
    "0->5 id 7 start 0 size 100000 msg 2\n"
    "0->5 id 7 start 200 size 300000 msg 5\n";

static void test_lines_sharing_an_id_are_one_connection(void **st)
{
    (void)st;
    struct conn_matrix cm;
    char err[256];
    assert_true(cm_read_buffer(&cm, "m.cm", THREE_MSGS, err, sizeof err));
    assert_int_equal(cm.conns[0].msg_prev, CM_NO_MSG);
    assert_int_equal(cm.conns[0].msg_next, 2);
    assert_int_equal(cm.conns[2].msg_prev, 0);
    assert_int_equal(cm.conns[2].msg_next, 3);
    assert_int_equal(cm.conns[3].msg_prev, 2);
    assert_int_equal(cm.conns[3].msg_next, CM_NO_MSG);
    assert_int_equal(cm.conns[3].msg_index, 3);
    assert_int_equal(cm.conns[1].msg_prev, CM_NO_MSG);
    assert_int_equal(cm.conns[1].msg_next, CM_NO_MSG);
    assert_int_equal(cm.conns[1].msg_index, 1);
    cm_free(&cm);
}

static void expect_error(const char *text, const char *want)
{
    struct conn_matrix cm;
    char err[256];
    assert_false(cm_read_buffer(&cm, "m.cm", text, err, sizeof err));
    if (!strstr(err, want))
        fail_msg("error '%s' does not contain '%s'", err, want);
    cm_free(&cm);
}

static void test_a_connection_s_lines_must_agree(void **st)
{
    (void)st;
    expect_error("Nodes 16\nConnections 2\n0->5 id 7 start 0 size 10\n0->6 id 7 start 0 size 10\n",
                 "m.cm:4: connection id 7 is also on line 3 with different hosts");
    expect_error("Nodes 16\nConnections 2\n0->5 id 7 start 0 size 10 lb ecmp\n0->5 id 7 start 0 size 10\n",
                 "m.cm:4: connection id 7 is also on line 3 with different lb");
    expect_error("Nodes 16\nConnections 3\n0->5 id 7 start 0 size 10 msg 3\n0->5 id 7 start 0 size 10 msg 4\n"
                 "0->5 id 7 start 0 size 10 msg 3\n",
                 "m.cm:5: msg 3 is used twice on connection id 7 (also on line 3)");
    /* an automatic id is a position, never a connection to join */
    expect_error("Nodes 16\nConnections 2\n0->5 id 2 start 0 size 10\n0->5 start 0 size 10\n",
                 "m.cm:4: connection has no id, and its automatic id 2");
}

static void run(const char *cm_text, int msg_cc, const char *transport, const struct cc_ops *cc)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(cm_text, ".cm");
    c.msg_cc = (int8_t)msg_cc;
    c.progress = false;
    c.end_ps = 5000 * PS_PER_US;
    if (transport)
        c.transport_name = transport;
    sim_setup(&S, &c);
    if (cc)
        S.cc = cc;
    sim_run(&S);
}

/* With --msg-cc fresh each message has its own state: no pipelining. */
static void test_messages_run_one_after_another(void **st)
{
    (void)st;
    run(THREE_MSGS, 0, NULL, NULL);
    assert_int_equal(S.flows_finished, 4);
    const struct flow *m1 = &S.flows[0], *m2 = &S.flows[2], *m3 = &S.flows[3];
    /* posted together, the second starts when the first is acknowledged */
    assert_int_equal(m2->posted_ps, 0);
    assert_int_equal(m2->start_ps, m1->finish_ps);
    assert_true(m1->finish_ps > 0);
    /* the third is posted at 200 us, after the second finished: it starts then */
    assert_true(m2->finish_ps < 200 * PS_PER_US);
    assert_int_equal(m3->posted_ps, 200 * PS_PER_US);
    assert_int_equal(m3->start_ps, 200 * PS_PER_US);
    /* the other connection ran alongside from t = 0 */
    assert_int_equal(S.flows[1].start_ps, 0);
    sim_free(&S);
}

/* UET with its default (inherit): a message posted while the one before it
 * is in flight goes out at once behind it, in one sequence space, as htsim
 * -conn_reuse's UecPdcSes does; the connection finishes when a single
 * message of both sizes would (sizes whole MSSs: the same packets), each
 * message when its own last packet is acknowledged. One posted after the
 * connection finished starts then. */
static void test_uet_pipelines_a_connection_s_messages(void **st)
{
    (void)st;
    const uint32_t mss = 4150 - 64;
    char text[512];
    snprintf(text, sizeof text, "Nodes 16\nConnections 1\n0->5 id 7 start 0 size %u\n", 60 * mss);
    run(text, -1, NULL, NULL);
    simtime_ps alone_ps = S.flows[0].finish_ps;
    sim_free(&S);
    snprintf(text, sizeof text,
             "Nodes 16\nConnections 3\n0->5 id 7 start 0 size %u\n0->5 id 7 start 0 size %u\n"
             "0->5 id 7 start 300 size 1000\n", 40 * mss, 20 * mss);
    run(text, -1, NULL, NULL);
    assert_int_equal(S.flows_finished, 3);
    const struct flow *m1 = &S.flows[0], *m2 = &S.flows[1], *m3 = &S.flows[2];
    assert_int_equal(m2->start_ps, 0);
    assert_int_equal(m2->finish_ps, alone_ps);
    assert_true(m1->finish_ps < m2->finish_ps);
    assert_true(m1->rcv_done_ps < m2->rcv_done_ps);
    assert_true(m2->rcv_complete);
    /* the carrier sent both messages' packets, no more */
    assert_int_equal(m1->c.pkts_sent, 60);
    assert_int_equal(m2->c.pkts_sent, 0);
    assert_true(m2->finish_ps < 300 * PS_PER_US);
    assert_int_equal(m3->start_ps, 300 * PS_PER_US);
    sim_free(&S);
    /* a later message larger than what the connection carried so far
     * joins it the same way (20 then 40 packets: still 60 from the carrier) */
    snprintf(text, sizeof text, "Nodes 16\nConnections 2\n0->5 id 7 start 0 size %u\n0->5 id 7 start 0 size %u\n",
             20 * mss, 40 * mss);
    run(text, -1, NULL, NULL);
    assert_int_equal(S.flows_finished, 2);
    assert_int_equal(S.flows[0].c.pkts_sent, 60);
    assert_int_equal(S.flows[1].c.pkts_sent, 0);
    assert_int_equal(S.flows[1].finish_ps, alone_ps);
    sim_free(&S);
}

/* Each message is cut into packets of its own (htsim UecMsg::getNextSegment):
 * two messages of 1.5 MSS take four packets, not three, and the bytes on
 * the wire are each message's payload plus four headers. */
static void test_pipelined_messages_keep_their_own_last_packet(void **st)
{
    (void)st;
    const uint32_t mss = 4150 - 64;
    char text[512];
    snprintf(text, sizeof text, "Nodes 16\nConnections 2\n0->5 id 7 start 0 size %u\n0->5 id 7 start 0 size %u\n",
             mss + mss / 2, mss + mss / 2);
    run(text, -1, NULL, NULL);
    assert_int_equal(S.flows_finished, 2);
    assert_int_equal(S.flows[1].start_ps, 0);
    assert_int_equal(S.flows[0].c.pkts_sent, 4);
    assert_int_equal(uet_of(&S.flows[0])->rcv_bytes, 2 * (mss + mss / 2) + 4 * 64);
    sim_free(&S);
}

/* A CC that counts: how many states were initialised, and in each state
 * the ACKs it has seen (its one counter, saved when a message finishes). */
static unsigned g_inits;

struct count_cc {
    struct cc_window win;
    double acks;
};

static void count_init(void *st, const struct cc_params *p)
{
    (void)p;
    struct count_cc *c = st;
    c->win.cwnd_bytes = 20 * 4150;
    g_inits++;
}

static void count_on_ack(void *st, const struct cc_ack *a)
{
    (void)a;
    ((struct count_cc *)st)->acks++;
}

static void count_on_nack(void *st, const struct cc_nack *n)
{
    (void)st;
    (void)n;
}

static void count_on_timeout(void *st, simtime_ps now, uint32_t pkt_bytes)
{
    (void)st;
    (void)now;
    (void)pkt_bytes;
}

static void count_counters(const void *st, double *out)
{
    out[0] = ((const struct count_cc *)st)->acks;
}

static const char *const count_names[] = {"acks_seen"};

static const struct cc_ops count_cc_ops = {
    .name = "count",
    .state_size = sizeof(struct count_cc),
    .init = count_init,
    .on_ack = count_on_ack,
    .on_nack = count_on_nack,
    .on_timeout = count_on_timeout,
    .n_counters = 1,
    .counter_names = count_names,
    .counters = count_counters,
};

static const char *const TWO_MSGS =
    "Nodes 16\nConnections 2\n"
    "0->5 id 1 start 0 size 400000\n"
    "0->5 id 1 start 100 size 400000\n"; /* after the first finished: not pipelined */

static void test_inherit_hands_the_cc_state_over(void **st)
{
    (void)st;
    g_inits = 0;
    run(TWO_MSGS, 1, NULL, &count_cc_ops);
    assert_int_equal(S.flows_finished, 2);
    assert_int_equal(g_inits, 1); /* one state for the connection */
    double a1 = S.flows[0].cc_counters[0], a2 = S.flows[1].cc_counters[0];
    assert_true(a1 > 0);
    /* the second message's state is the first's, still counting */
    assert_true(a2 > a1);
    sim_free(&S);
}

static void test_fresh_starts_each_message_anew(void **st)
{
    (void)st;
    g_inits = 0;
    run(TWO_MSGS, 0, NULL, &count_cc_ops);
    assert_int_equal(S.flows_finished, 2);
    assert_int_equal(g_inits, 2);
    /* equal messages on an idle path see the same ACKs each */
    assert_true(S.flows[0].cc_counters[0] > 0);
    assert_true(S.flows[1].cc_counters[0] <= S.flows[0].cc_counters[0] + 1);
    sim_free(&S);
}

/* UET's default is to inherit (htsim -conn_reuse keeps one source). */
static void test_uet_inherits_by_default(void **st)
{
    (void)st;
    g_inits = 0;
    run(TWO_MSGS, -1, NULL, &count_cc_ops);
    assert_int_equal(g_inits, 1);
    sim_free(&S);
}

/* A triggered message on a busy connection waits for the one before it;
 * its send-done trigger then starts the next connection. */
static void test_triggers_work_on_messages(void **st)
{
    (void)st;
    run("Nodes 16\nConnections 3\nTriggers 2\n"
        "0->5 id 4 start 0 size 300000 send_done_trigger 1\n"
        "0->5 id 4 trigger 1 size 100000 send_done_trigger 2\n"
        "9->3 id 8 trigger 2 size 1000\n"
        "trigger id 1 oneshot\ntrigger id 2 oneshot\n",
        -1, NULL, NULL);
    assert_int_equal(S.flows_finished, 3);
    assert_int_equal(S.flows[1].posted_ps, S.flows[0].finish_ps);
    assert_int_equal(S.flows[1].start_ps, S.flows[0].finish_ps);
    assert_int_equal(S.flows[2].start_ps, S.flows[1].finish_ps);
    sim_free(&S);
}

/* Pools (--workload poisson:...,conns=K): messages picked onto K
 * persistent connections per host pair, driven by hand here. */
static void pool_setup(int msg_cc)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n9->3 start 0 size 1000\n", ".cm");
    c.msg_cc = (int8_t)msg_cc;
    c.progress = false;
    c.end_ps = 5000 * PS_PER_US;
    sim_setup(&S, &c);
    S.cc = &count_cc_ops;
}

static void test_pool_picks_idle_then_least_queued(void **st)
{
    (void)st;
    pool_setup(-1);
    uint32_t a = transport_add_flow_pooled(&S, 0, 5, 300000, 2);
    uint32_t b = transport_add_flow_pooled(&S, 0, 5, 100000, 2);
    uint32_t c = transport_add_flow_pooled(&S, 0, 5, 50000, 2);  /* both busy: behind b (fewer bytes) */
    uint32_t d = transport_add_flow_pooled(&S, 0, 5, 50000, 2);  /* a 300000 vs b+c 150000: behind c */
    uint32_t e = transport_add_flow_pooled(&S, 1, 5, 50000, 2);  /* another pair: its own connections */
    assert_int_not_equal(S.flows[a].pool_conn, S.flows[b].pool_conn);
    assert_int_equal(S.flows[c].pool_conn, S.flows[b].pool_conn);
    assert_int_equal(S.cm.conns[c].msg_prev, b);
    assert_int_equal(S.cm.conns[d].msg_prev, c);
    assert_int_equal(S.cm.conns[a].msg_prev, CM_NO_MSG);
    assert_int_equal(S.cm.conns[e].msg_prev, CM_NO_MSG);
    for (uint32_t fi = a; fi <= e; fi++)
        transport_flow_start(&S, fi);
    sim_run(&S);
    assert_int_equal(S.flows_finished, 6);
    /* each waited for the one before it on its connection */
    assert_int_equal(S.flows[c].start_ps, S.flows[b].finish_ps);
    assert_int_equal(S.flows[d].start_ps, S.flows[c].finish_ps);
    assert_int_equal(S.flows[d].posted_ps, 0);
    sim_free(&S);
}

static void test_pool_connection_keeps_its_state_while_idle(void **st)
{
    (void)st;
    for (int inherit = 0; inherit <= 1; inherit++) {
        g_inits = 0;
        pool_setup(inherit);
        uint32_t a = transport_add_flow_pooled(&S, 0, 5, 100000, 1);
        transport_flow_start(&S, a);
        sim_run(&S); /* a finishes; its connection idles */
        assert_int_equal(S.flows[a].state, FLOW_DONE);
        S.stop = false;
        uint32_t b = transport_add_flow_pooled(&S, 0, 5, 100000, 1);
        assert_int_equal(S.cm.conns[b].msg_prev, CM_NO_MSG); /* idle: nothing to wait for */
        transport_flow_start(&S, b);
        sim_run(&S);
        assert_int_equal(S.flows[b].state, FLOW_DONE);
        /* the matrix's flow, a, and b (inheriting: b takes a's state) */
        assert_int_equal(g_inits, inherit ? 2 : 3);
        if (inherit)
            assert_true(S.flows[b].cc_counters[0] > S.flows[a].cc_counters[0]);
        sim_free(&S);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_sharing_an_id_are_one_connection),
        cmocka_unit_test(test_a_connection_s_lines_must_agree),
        cmocka_unit_test(test_messages_run_one_after_another),
        cmocka_unit_test(test_uet_pipelines_a_connection_s_messages),
        cmocka_unit_test(test_pipelined_messages_keep_their_own_last_packet),
        cmocka_unit_test(test_inherit_hands_the_cc_state_over),
        cmocka_unit_test(test_fresh_starts_each_message_anew),
        cmocka_unit_test(test_uet_inherits_by_default),
        cmocka_unit_test(test_triggers_work_on_messages),
        cmocka_unit_test(test_pool_picks_idle_then_least_queued),
        cmocka_unit_test(test_pool_connection_keeps_its_state_while_idle),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    temp_files_remove();
    return rc;
}
