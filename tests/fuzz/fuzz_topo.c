/* fuzz_topo.c: fuzz harness for the topology reader (.topo,
 * src/topo/topo.c) and the derivation of a tree from it. Each input is read
 * as the bytes of a .topo file (not NUL-terminated, as topo_read_buffer
 * allows); an accepted description goes through topo_derive, and a derived
 * tree answers a few topo_hops queries. Besides what the sanitizers catch, it
 * checks that a derived tree's counts add up (the links between tiers match
 * up), that hop counts are 2, 4 or 6, symmetric and within the diameter, and
 * that every rejection comes with a one-line message naming the file (the
 * reader's) or the topology (topo_derive's).
 */
#include "harness.h"

#include "topo/topo.h"

#include <string.h>

static void check_tree(const struct topo *t)
{
    const struct topo_spec *s = &t->spec;
    fuzz_check(t->hosts_per_tor >= 1 && t->tors_per_pod >= 1 && t->pods >= 1);
    fuzz_check((uint64_t)t->n_tor * t->hosts_per_tor == s->nodes);
    fuzz_check((uint64_t)t->pods * t->tors_per_pod == t->n_tor);
    fuzz_check(t->n_agg >= 1 && t->aggs_per_pod >= 1);
    fuzz_check(s->tiers == 3 ? t->n_core >= 1 : t->n_core == 0);
    fuzz_check(t->first_switch == s->nodes);
    fuzz_check(t->diameter_hops == 2 * s->tiers);
    /* every ToR uplink ends on an aggregation down port, every aggregation
     * uplink on a core down port */
    fuzz_check((uint64_t)t->n_tor * s->tier[0].radix_up == (uint64_t)t->n_agg * s->tier[1].radix_down);
    if (s->tiers == 3)
        fuzz_check((uint64_t)t->n_agg * s->tier[1].radix_up == (uint64_t)t->n_core * s->tier[2].radix_down);
    uint32_t last = s->nodes - 1;
    const uint32_t pairs[][2] = {
        {0, 0}, {0, 1 < s->nodes ? 1 : 0}, {0, last}, {last, 0}, {0, t->hosts_per_tor < s->nodes ? t->hosts_per_tor : 0},
        {0, s->podsize < s->nodes ? s->podsize : 0}, {last / 2, last}, {last, last},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        uint32_t a = pairs[i][0], b = pairs[i][1];
        uint32_t h = topo_hops(t, a, b);
        fuzz_check(h == 2 || h == 4 || h == 6);
        fuzz_check(h <= t->diameter_hops);
        fuzz_check(h == topo_hops(t, b, a));
        /* hosts on one ToR are two links apart */
        fuzz_check((a / t->hosts_per_tor == b / t->hosts_per_tor) == (h == 2));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct topo_spec spec;
    struct topo t;
    char err[256];
    err[0] = '\0';
    if (!topo_read_buffer(&spec, "fuzz.topo", (const char *)data, size, err, sizeof err)) {
        fuzz_check(strncmp(err, "fuzz.topo:", 10) == 0 && strchr(err, '\n') == NULL);
        return 0;
    }
    err[0] = '\0';
    if (!topo_derive(&t, &spec, err, sizeof err)) {
        fuzz_check(strncmp(err, "topology: ", 10) == 0 && strchr(err, '\n') == NULL);
        return 0;
    }
    check_tree(&t);
    return 0;
}
