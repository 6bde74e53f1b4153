/* fuzz_goal.c: fuzz harness for the GOAL schedule readers (text and
 * binary, src/workload/goal.c). Each input is read as a schedule file (the
 * first 8 bytes choose the binary reader when they are its magic number).
 * Besides what the sanitizers catch, it checks what goal.h promises: an
 * accepted schedule is consistent (every rank's operations in range, peers
 * in range or -1 for a receive's source, dependants inside their rank and
 * each operation's dependency count equal to the entries naming it, counts
 * of each kind adding up), and a rejected one comes with exactly one line
 * of message naming the file.
 */
#include "harness.h"

#include "workload/goal.h"

#include <string.h>

static void check_accepted(const struct goal_sched *g)
{
    fuzz_check(g->n_ranks >= 1);
    fuzz_check(g->rank_first[0] == 0 && g->rank_first[g->n_ranks] == g->n_ops);
    fuzz_check(g->n_sends + g->n_recvs + g->n_calcs == g->n_ops);
    uint32_t *incoming = calloc(g->n_ops ? g->n_ops : 1, sizeof(uint32_t));
    if (!incoming)
        return;
    for (uint32_t r = 0; r < g->n_ranks; r++) {
        fuzz_check(g->rank_first[r] <= g->rank_first[r + 1]);
        for (uint32_t i = g->rank_first[r]; i < g->rank_first[r + 1]; i++) {
            const struct goal_op *o = &g->ops[i];
            fuzz_check(o->rank == r);
            fuzz_check(o->type == GOAL_SEND || o->type == GOAL_RECV || o->type == GOAL_CALC);
            if (o->type == GOAL_SEND)
                fuzz_check(o->peer < g->n_ranks);
            if (o->type == GOAL_RECV)
                fuzz_check(o->peer < g->n_ranks || o->peer == GOAL_ANY);
            fuzz_check(o->cpu < g->n_cpus && o->nic < g->n_nics);
            fuzz_check((uint64_t)o->done_first + o->n_done <= g->n_succ);
            fuzz_check((uint64_t)o->start_first + o->n_start <= g->n_succ);
            for (uint32_t e = 0; e < o->n_done + o->n_start; e++) {
                uint32_t j = e < o->n_done ? g->succ[o->done_first + e] : g->succ[o->start_first + e - o->n_done];
                fuzz_check(j >= g->rank_first[r] && j < g->rank_first[r + 1]);
                fuzz_check(j != i);
                incoming[j]++;
            }
        }
    }
    for (uint32_t i = 0; i < g->n_ops; i++)
        fuzz_check(incoming[i] == g->ops[i].n_deps);
    free(incoming);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct goal_sched g;
    char err[1024];
    if (goal_read_buffer(&g, "fuzz.goal", data, size, err, sizeof err)) {
        check_accepted(&g);
        goal_sched_free(&g);
    } else {
        fuzz_check(!strncmp(err, "fuzz.goal", 9));
        fuzz_check(!strchr(err, '\n'));
    }
    return 0;
}
