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

#include "sim.h"
#include "transport/flow.h"
#include "transport/transport.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_passes_its_own_check),
        cmocka_unit_test(test_registry_refuses_an_incomplete_table),
        cmocka_unit_test(test_unrelated_sird_message_leaves_uet_alone),
        cmocka_unit_test(test_unrelated_homa_message_leaves_uet_alone),
        cmocka_unit_test(test_needs_go_on_the_class_that_needs_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
