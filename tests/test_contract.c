/* test_contract.c: the transport contract (src/transport/transport.h,
 * docs/contributing-transport.md). The registry's self-check refuses an ops
 * table missing a hook the generic layer calls. Fabric policy is declared,
 * not imposed: a transport's needs go on the switch classes its packets use
 * (net/policy.c), so a UET run's flows end exactly as they do alone when an
 * unrelated SIRD or Homa message is added in another class (before, SIRD's
 * setup turned trimming off and step marking on for every port, and Homa's
 * turned ECN off everywhere). SIRD's credit pacer is a host timer, so its
 * hosts are not limited to the 14 bits a flow timer's kind once carried
 * (tests/contract_test.sh runs it on 18,522 hosts).
 */
#include "testutil.h"

#include "cli/options.h"
#include "sim.h"
#include "transport/flow.h"
#include "transport/homa.h"
#include "transport/rcv_bitmap.h"
#include "transport/transport.h"

#include <sys/wait.h>

static struct sim S;

/* ---- the registry's self-check --------------------------------------------------- */

static void test_registry_passes_its_own_check(void **st)
{
    (void)st;
    size_t n;
    const struct transport_ops *const *all = transport_registry(&n);
    char err[256];
    assert_true(n >= 5);
    assert_null(transport_registry_check(all, n, err, sizeof err));
}

/* The registry holds at most TRANSPORT_MAX (16) transports: 16 distinct
 * ones (copies of UET's table under other names) pass the check, a 17th is
 * refused (issue 26: '>' as '>='
 * refused a full registry, unnoticed with the few registered). */
static void test_registry_at_transport_max(void **st)
{
    (void)st;
    static struct transport_ops t[TRANSPORT_MAX + 1];
    static char names[TRANSPORT_MAX + 1][8];
    const struct transport_ops *all[TRANSPORT_MAX + 1];
    for (unsigned i = 0; i <= TRANSPORT_MAX; i++) {
        t[i] = transport_uet_ops;
        snprintf(names[i], sizeof names[i], "t%02u", i);
        t[i].name = names[i];
        all[i] = &t[i];
    }
    char err[256];
    const char *e = transport_registry_check(all, TRANSPORT_MAX, err, sizeof err);
    if (e)
        fail_msg("%u distinct transports: %s", TRANSPORT_MAX, e);
    e = transport_registry_check(all, TRANSPORT_MAX + 1, err, sizeof err);
    assert_non_null(e);
    assert_non_null(strstr(e, "at most 16"));
}

/* Each required hook removed in turn from a copy of UET's table: the check
 * names the transport and the hook. */
static void test_registry_refuses_an_incomplete_table(void **st)
{
    (void)st;
    static const char *const hooks[] = {"setup", "flow_start", "nic_pull", "receive", "timer", "free",
                                        "fabric_needs"};
    for (size_t h = 0; h < sizeof hooks / sizeof hooks[0]; h++) {
        struct transport_ops t = transport_uet_ops;
        switch (h) {
        case 0: t.setup = NULL; break;
        case 1: t.flow_start = NULL; break;
        case 2: t.nic_pull = NULL; break;
        case 3: t.receive = NULL; break;
        case 4: t.timer = NULL; break;
        case 5: t.free = NULL; break;
        default: t.fabric_needs = NULL; break;
        }
        const struct transport_ops *one[] = {&t};
        char err[256];
        const char *e = transport_registry_check(one, 1, err, sizeof err);
        assert_non_null(e);
        assert_non_null(strstr(e, "transport uet"));
        assert_non_null(strstr(e, hooks[h]));
    }
    /* counters without their names, a release without its guard, a name twice */
    struct transport_ops t = transport_uet_ops;
    t.counter_names = NULL;
    const struct transport_ops *one[] = {&t};
    char err[256];
    assert_non_null(strstr(transport_registry_check(one, 1, err, sizeof err), "counter_names"));
    t = transport_uet_ops;
    t.can_release = NULL;
    assert_non_null(strstr(transport_registry_check(one, 1, err, sizeof err), "can_release"));
    const struct transport_ops *twice[] = {&transport_uet_ops, &transport_sird_ops, &transport_uet_ops};
    assert_non_null(strstr(transport_registry_check(twice, 3, err, sizeof err), "registered twice"));
}

/* ---- fabric policy declared, not imposed ------------------------------------------ */

/* Seven UET senders into host 0 (an incast that trims), as alone. */
#define UET_LINES                                                                                                 \
    "1->0 id 1 start 0 size 200000\n2->0 id 2 start 0 size 200000\n3->0 id 3 start 0 size 200000\n"                 \
    "4->0 id 4 start 0 size 200000\n5->0 id 5 start 0 size 200000\n6->0 id 6 start 0 size 200000\n"                 \
    "7->0 id 7 start 0 size 200000\n"
#define N_UET 7

struct uet_outcome {
    simtime_ps finish_ps[N_UET];
    uint64_t counters[N_UET][32];
    uint64_t class1_trims;
};

static void run_cm(const char *cm_text, uint32_t n_classes)
{
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file(cm_text, ".cm");
    c.n_classes = n_classes;
    c.classes_given = true;
    c.end_ps = 2000 * PS_PER_US;
    sim_setup(&S, &c);
    sim_run(&S);
}

static struct uet_outcome uet_outcome(void)
{
    struct uet_outcome o;
    memset(&o, 0, sizeof o);
    const struct transport_ops *u = &transport_uet_ops;
    assert_true(u->n_counters <= 32);
    for (uint32_t i = 0; i < N_UET; i++) {
        assert_ptr_equal(S.flows[i].tp, u);
        o.finish_ps[i] = S.flows[i].finish_ps;
        u->counters(&S, i, o.counters[i]);
    }
    o.class1_trims = S.tot.class_trims[1];
    return o;
}

/* The case: UET flows, plus one small message of another transport
 * between two hosts none of them uses, in its own switch class. Each UET
 * flow ends at the same picosecond with the same counters as without it.
 * Fails when a transport's setup writes every switch port (SIRD: step
 * marking and no trimming; Homa: no ECN). */
static void check_unrelated_message(const char *extra_line, uint32_t n_classes)
{
    run_cm("Nodes 16\nConnections 7\n" UET_LINES, n_classes);
    struct uet_outcome alone = uet_outcome();
    assert_true(alone.class1_trims > 0); /* trimming matters to this run */
    sim_free(&S);
    char cm[1024];
    snprintf(cm, sizeof cm, "Nodes 16\nConnections 8\n" UET_LINES "%s", extra_line);
    run_cm(cm, n_classes);
    struct uet_outcome mixed = uet_outcome();
    assert_int_equal(S.flows_finished, N_UET + 1);
    for (uint32_t i = 0; i < N_UET; i++) {
        assert_int_equal(mixed.finish_ps[i], alone.finish_ps[i]);
        assert_memory_equal(mixed.counters[i], alone.counters[i], sizeof alone.counters[i]);
    }
    assert_int_equal(mixed.class1_trims, alone.class1_trims);
    sim_free(&S);
}

static void test_unrelated_sird_message_leaves_uet_alone(void **st)
{
    (void)st;
    check_unrelated_message("14->15 id 8 start 0 size 2000 transport sird priority 2\n", 3);
}

static void test_unrelated_homa_message_leaves_uet_alone(void **st)
{
    (void)st;
    /* Homa's levels are classes 1 .. 7, shared with UET in class 1: Homa
     * only prefers no ECN (it never reads a mark), so UET keeps its marking */
    check_unrelated_message("14->15 id 8 start 0 size 20000 transport homa\n", 8);
}

/* SIRD's needs land on its class only: class 2 gets step marking at NThr
 * and no trimming on every switch port; class 1 keeps RED and trimming. */
static void test_needs_go_on_the_class_that_needs_them(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 2\n1->0 id 1 start 0 size 20000\n"
                          "14->15 id 2 start 0 size 2000 transport sird priority 2\n", ".cm");
    c.n_classes = 3;
    c.classes_given = true;
    sim_setup(&S, &c);
    const struct class_policy *cp = &S.class_policy[2];
    assert_int_equal(cp->ecn, NEED_STEP);
    assert_int_equal(cp->trim, NEED_OFF);
    assert_string_equal(cp->ecn_by, "sird");
    assert_string_equal(S.class_policy[1].ecn_by, "uet");
    for (uint32_t i = S.n_hosts; i < S.n_ports; i++) {
        const struct port *p = &S.ports[i];
        assert_true(p->x->c[0].ecn && !p->x->c[0].trim);
        assert_int_equal(p->x->c[0].ecn_kmin_bytes, cp->ecn_step_bytes);
        assert_int_equal(p->x->c[0].ecn_kmax_bytes, cp->ecn_step_bytes);
        assert_true((p->flags & PORTF_ECN) && (p->flags & PORTF_TRIM));
        assert_true(p->ecn_kmin_bytes < p->ecn_kmax_bytes);
    }
    sim_free(&S);
}

/* ---- the contract API (issue 21 item 3) -------------------------------------------- */

/* One slot per registered transport: each reads back its own, others stay
 * NULL; a Homa run's state is there from setup to free. */
static void test_run_state_one_slot_per_transport(void **st)
{
    (void)st;
    static struct sim t;
    memset(&t, 0, sizeof t);
    int a = 1, b = 2;
    transport_set_run_state(&t, &transport_homa_ops, &a);
    transport_set_run_state(&t, &transport_sird_ops, &b);
    assert_ptr_equal(transport_run_state(&t, &transport_homa_ops), &a);
    assert_ptr_equal(transport_run_state(&t, &transport_sird_ops), &b);
    assert_null(transport_run_state(&t, &transport_uet_ops));
    size_t n;
    const struct transport_ops *const *all = transport_registry(&n);
    assert_true(n <= TRANSPORT_MAX);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(transport_index(all[i]), i);

    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n1->0 id 1 start 0 size 20000\n", ".cm");
    c.transport_name = "homa";
    sim_setup(&S, &c);
    assert_non_null(transport_run_state(&S, &transport_homa_ops));
    sim_run(&S);
    assert_int_equal(S.flows_finished, 1);
    sim_free(&S);
    assert_null(transport_run_state(&S, &transport_homa_ops));
}

/* The CLI stores a transport's flag in command-line order (both spellings
 * of a value), the lookups read it back, and --help lists it under its
 * transport. */
static void test_owned_flags_stored_and_looked_up(void **st)
{
    (void)st;
    char *argv[] = {"spraysim", "-tm", "x.cm", "--homa-opt", "k=4", "--transport", "homa", "--homa-opt=levels=6", NULL};
    struct config c;
    char err[256];
    assert_int_equal(options_parse(&c, 8, argv, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(c.n_tp_flags, 2);
    static struct sim t;
    memset(&t, 0, sizeof t);
    t.cfg = c;
    assert_true(transport_flag_given(&t, "--homa-opt"));
    assert_false(transport_flag_given(&t, "--sird-opt"));
    assert_int_equal(transport_flag_count(&t, "--homa-opt"), 2);
    assert_string_equal(transport_flag_arg_at(&t, "--homa-opt", 0, 0), "k=4");
    assert_string_equal(transport_flag_arg_at(&t, "--homa-opt", 1, 0), "levels=6");
    assert_null(transport_flag_arg_at(&t, "--homa-opt", 2, 0));
    assert_null(transport_flag_arg_at(&t, "--homa-opt", 0, 1));
    assert_string_equal(transport_flag_arg(&t, "--homa-opt", 0), "levels=6"); /* the last */
    assert_null(transport_flag_arg(&t, "--nosuch", 0));
    options_free(&c);
    /* a flag no transport owns is still refused, naming it */
    char *bad_argv[] = {"spraysim", "-tm", "x.cm", "--homa-optx", "k=4", NULL};
    assert_int_equal(options_parse(&c, 5, bad_argv, err, sizeof err), OPTIONS_ERROR);
    assert_non_null(strstr(err, "--homa-optx"));
    options_free(&c);
    char *help = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&help, &len);
    assert_non_null(f);
    options_usage(f);
    fclose(f);
    const char *sect = strstr(help, "Flags of --transport homa");
    assert_non_null(sect);
    assert_non_null(strstr(sect, "--homa-opt NAME=VALUE"));
    free(help);
}

/* Flags without `repeats`: the later occurrence wins, also among several
 * flags read together (transport_flag_last): "-oversubscribed_cc
 * -force_disable_oversubscribed_cc -oversubscribed_cc" turns the control
 * on. (A repeated flag once kept its first position, so the middle one
 * looked last and won.) */
static void test_owned_flags_later_occurrence_wins(void **st)
{
    (void)st;
    char *argv[] = {"spraysim", "-tm", "x.cm", "-oversubscribed_cc", "-force_disable_oversubscribed_cc",
                    "-oversubscribed_cc", "--no-reps-freeze", "--reps-freeze", "--no-reps-freeze", "--reps-freeze",
                    NULL};
    struct config c;
    char err[256];
    assert_int_equal(options_parse(&c, 10, argv, err, sizeof err), OPTIONS_RUN);
    static struct sim t;
    memset(&t, 0, sizeof t);
    t.cfg = c;
    static const char *const oversub[] = {"-force_disable_oversubscribed_cc", "-oversubscribed_cc"};
    static const char *const freeze[] = {"--no-reps-freeze", "--reps-freeze"};
    assert_int_equal(transport_flag_last(&t, oversub, 2), 1);
    assert_int_equal(transport_flag_last(&t, freeze, 2), 1);
    assert_int_equal(transport_flag_count(&t, "-oversubscribed_cc"), 1); /* one record: the last */
    assert_int_equal(c.n_tp_flags, 4);
    options_free(&c);
}

/* Runs fn in a child with stderr captured: its exit status, its stderr in err. */
static struct sim T2;
static int exit_of(void (*fn)(void), char *err, size_t err_len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], err, err_len - 1);
    err[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void set_records(const char *name, const char *a0, const char *a1)
{
    memset(&T2, 0, sizeof T2);
    T2.cfg.tp_flags[0] = (struct tp_flag_given){name, {a0, a1}};
    T2.cfg.n_tp_flags = 1;
}

static void uint_k1(void) { transport_flag_uint(&T2, "--x", 1, 1, 100, 7); }
static void real_k0(void) { transport_flag_real(&T2, "--x", 0, 0, 1, 0.5); }

/* Typed parsing: a default when not given, the value when good, else one
 * line naming the flag and exit 2. */
static void test_owned_flags_typed_parsing(void **st)
{
    (void)st;
    char err[512];
    set_records("--x", "0.25", "42");
    assert_int_equal(transport_flag_uint(&T2, "--x", 1, 1, 100, 7), 42);
    assert_true(transport_flag_real(&T2, "--x", 0, 0, 1, 0.5) == 0.25);
    assert_int_equal(transport_flag_uint(&T2, "--y", 0, 1, 100, 7), 7);
    assert_true(transport_flag_real(&T2, "--y", 0, 0, 1, 0.5) == 0.5);
    set_records("--x", "2", "abc");
    assert_int_equal(exit_of(uint_k1, err, sizeof err), 2);
    assert_string_equal(err, "spraysim: --x: 'abc' is not a non-negative whole number\n");
    set_records("--x", "2", "101");
    assert_int_equal(exit_of(uint_k1, err, sizeof err), 2);
    assert_string_equal(err, "spraysim: --x: '101' is out of range (1 to 100)\n");
    assert_int_equal(exit_of(real_k0, err, sizeof err), 2);
    assert_string_equal(err, "spraysim: --x: '2' is out of range (0 to 1)\n");
    set_records("--x", "z", NULL);
    assert_int_equal(exit_of(real_k0, err, sizeof err), 2);
    assert_string_equal(err, "spraysim: --x: 'z' is not a number\n");
}

static double opt_a, opt_b;
static bool opt_a_given;
static void walk_opts(void)
{
    const struct transport_opt table[] = {
        {"alpha", 0, 1, &opt_a, false, &opt_a_given},
        {"b", 1, 8, &opt_b, true, NULL},
    };
    transport_flag_opts(&T2, "--x-opt", table, 2);
}

static void opts_block_refuses(const char *v, const char *want)
{
    char err[512];
    set_records("--x-opt", v, NULL);
    assert_int_equal(exit_of(walk_opts, err, sizeof err), 2);
    assert_string_equal(err, want);
}

/* An options block: every occurrence in order, a later NAME replacing an
 * earlier one; anything else one line naming the flag and the NAME. */
static void test_owned_flags_options_block(void **st)
{
    (void)st;
    memset(&T2, 0, sizeof T2);
    T2.cfg.tp_flags[0] = (struct tp_flag_given){"--x-opt", {"alpha=0.5", NULL}};
    T2.cfg.tp_flags[1] = (struct tp_flag_given){"--other", {"b=2", NULL}};
    T2.cfg.tp_flags[2] = (struct tp_flag_given){"--x-opt", {"b=3", NULL}};
    T2.cfg.tp_flags[3] = (struct tp_flag_given){"--x-opt", {"alpha=0.25", NULL}};
    T2.cfg.n_tp_flags = 4;
    opt_a = opt_b = -1;
    opt_a_given = false;
    walk_opts();
    assert_true(opt_a == 0.25 && opt_b == 3 && opt_a_given);
    opts_block_refuses("c=1", "spraysim: --x-opt c=1: unknown option (known: alpha, b)\n");
    opts_block_refuses("b=2.5", "spraysim: --x-opt b: '2.5' is not a whole number\n");
    opts_block_refuses("alpha=x", "spraysim: --x-opt alpha: 'x' is not a number\n");
    opts_block_refuses("alpha=2", "spraysim: --x-opt alpha: '2' is out of range (0 to 1)\n");
    opts_block_refuses("alpha", "spraysim: --x-opt: 'alpha' is not NAME=VALUE\n");
    opts_block_refuses("=1", "spraysim: --x-opt: '=1' is not NAME=VALUE\n");
}

/* The registry refuses a flag table or a packet-type table it could not use. */
static void test_registry_checks_flags_and_packet_types(void **st)
{
    (void)st;
    char err[256];
    static const struct transport_flag three[] = {{"--three", 3, false, "A B C", "three values"}};
    struct transport_ops t = transport_homa_ops;
    t.flags = three;
    t.n_flags = 1;
    const struct transport_ops *one[] = {&t};
    assert_non_null(strstr(transport_registry_check(one, 1, err, sizeof err), "--three"));
    static const struct transport_flag other_arity[] = {{"--homa-opt", 2, true, "A B", "two values"}};
    t.flags = other_arity;
    t.name = "homa2";
    const struct transport_ops *both[] = {&transport_homa_ops, &t};
    assert_non_null(strstr(transport_registry_check(both, 2, err, sizeof err), "flag --homa-opt takes other arguments"));
    t = transport_homa_ops;
    t.pkt_type_names = NULL;
    assert_non_null(strstr(transport_registry_check(one, 1, err, sizeof err), "pkt_type_names"));
    static const char *const unnamed[] = {"A", ""};
    t.pkt_type_names = unnamed;
    t.n_pkt_types = 2;
    assert_non_null(strstr(transport_registry_check(one, 1, err, sizeof err), "packet type 17 has no name"));
    assert_true((int)HOMA_PKT_GRANT >= (int)PKT_TP_FIRST && (int)HOMA_PKT_DONE > (int)HOMA_PKT_RESEND);
    assert_int_equal(transport_homa_ops.n_pkt_types, 4); /* GRANT, RESEND, DONE, NEED_DONE */
}

/* One constructor: every field the contract names, the rest zero, and the
 * --stream count in the flow. */
static void test_make_packet_fills_the_contract(void **st)
{
    (void)st;
    struct config c;
    config_defaults(&c);
    c.tm_path = temp_file("Nodes 16\nConnections 1\n3->9 id 1 start 0 size 20000 priority 1 class 1\n", ".cm");
    sim_setup(&S, &c);
    struct flow *f = &S.flows[0];
    f->gen = 5;
    S.count_pkts = 1;
    uint32_t d = transport_make_packet(&S, 0, PKT_DATA, 7, 1500);
    struct packet want;
    memset(&want, 0, sizeof want);
    want.type = PKT_DATA;
    want.seq = 7;
    want.size_bytes = 1500;
    want.flow = 0;
    want.flow_gen = 5;
    want.src_host = 3;
    want.dst_host = 9;
    want.prio = 1;
    want.tclass = 1;
    struct packet got = *pkt_at(&S.pool, d);
    got.next = 0; /* the pool's own link */
    assert_memory_equal(&got, &want, sizeof want);
    uint32_t r = transport_make_reply(&S, 0, PKT_ACK, 3, 64);
    const struct packet *a = pkt_at(&S.pool, r);
    assert_int_equal(a->src_host, 9);
    assert_int_equal(a->dst_host, 3);
    assert_int_equal(a->prio, PKT_PRIO_CONTROL);
    assert_int_equal(a->size_bytes, 64);
    assert_int_equal(f->pkts_out, 2);
    pkt_release(&S.pool, d);
    pkt_release(&S.pool, r);
    f->pkts_out = 0;
    S.count_pkts = 0;
    sim_free(&S);
}

/* The receive bitmap: duplicates, the cumulative point across words, the
 * next gap. */
static void test_rcv_bitmap(void **st)
{
    (void)st;
    struct rcv_bitmap b;
    rcv_bitmap_init(&b, 130);
    assert_int_equal(rcv_bitmap_next_missing(&b, 0), 0);
    assert_true(rcv_bitmap_set(&b, 1));
    assert_false(rcv_bitmap_set(&b, 1));
    assert_int_equal(b.cum, 0);
    assert_int_equal(b.count, 1);
    for (uint32_t q = 2; q < 129; q++)
        assert_true(rcv_bitmap_set(&b, q));
    assert_int_equal(b.cum, 0);
    assert_int_equal(rcv_bitmap_next_missing(&b, 1), 129);
    assert_true(rcv_bitmap_set(&b, 0));
    assert_int_equal(b.cum, 129); /* past every packet already there, across two words */
    assert_false(rcv_bitmap_complete(&b));
    assert_true(rcv_bitmap_test(&b, 64));
    assert_false(rcv_bitmap_test(&b, 129));
    assert_true(rcv_bitmap_set(&b, 129));
    assert_int_equal(b.cum, 130);
    assert_int_equal(rcv_bitmap_next_missing(&b, 0), 130);
    assert_true(rcv_bitmap_complete(&b));
    rcv_bitmap_free(&b);
    assert_null(b.bits);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_at_transport_max),
        cmocka_unit_test(test_registry_passes_its_own_check),
        cmocka_unit_test(test_registry_refuses_an_incomplete_table),
        cmocka_unit_test(test_unrelated_sird_message_leaves_uet_alone),
        cmocka_unit_test(test_unrelated_homa_message_leaves_uet_alone),
        cmocka_unit_test(test_needs_go_on_the_class_that_needs_them),
        cmocka_unit_test(test_run_state_one_slot_per_transport),
        cmocka_unit_test(test_owned_flags_stored_and_looked_up),
        cmocka_unit_test(test_owned_flags_later_occurrence_wins),
        cmocka_unit_test(test_owned_flags_typed_parsing),
        cmocka_unit_test(test_owned_flags_options_block),
        cmocka_unit_test(test_registry_checks_flags_and_packet_types),
        cmocka_unit_test(test_make_packet_fills_the_contract),
        cmocka_unit_test(test_rcv_bitmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
