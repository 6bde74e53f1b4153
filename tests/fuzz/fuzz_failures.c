/* fuzz_failures.c: fuzz harness for the failure-specification parser
 * (failures_parse_spec, src/topo/failures.c), the grammar of --fail and of
 * the .cm's "failure link|switch ..." lines.
 *
 * The parser resolves node names and links against a built fabric, so the
 * harness builds three small simulations once (first call): the default
 * 16-host three-tier fat tree (host, tor, agg, core names), a 16-host
 * leaf-spine whose ToR-spine links come in bundles of two (spine names,
 * "member 1"), and a 300-host leaf-spine with one ToR per host and a single
 * 300-port spine (a switch with many links). Every input is then parsed
 * against each, two ways:
 *   1. as one specification string, as --fail passes it;
 *   2. as the text of a .cm file: each "failure link|switch ..." line the
 *      matrix reader keeps is parsed as sim_setup would parse it (there
 *      failures_setup exits on an error, so the harness calls the parser
 *      itself).
 * Before each parse the simulation's failure-event list is emptied; the
 * parser touches nothing else. Besides what the sanitizers catch, it checks
 * what failures.h and docs/models.md promise: a rejected specification leaves
 * no events and says why; an accepted one yields events on real links (the
 * two ports of one link, a time inside the run, a rate no higher than the
 * link's), all on the one link a "link" names, and on both directions of
 * every link of the switch a "switch" names.
 */
#include "harness.h"

#include "sim.h"
#include "topo/failures.h"
#include "workload/cm.h"

#include <string.h>
#include <unistd.h>

/* 16 hosts on 4 ToRs; 2 spines, each reached from every ToR by 2 links */
static const char leaf_spine_16[] = "Nodes 16\nTiers 2\nPodsize 16\n"
                                    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\n"
                                    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 8\nDownlink_Latency_ns 1000\nBundle 2\n";
/* 300 hosts, one per ToR; one spine with 300 down ports */
static const char wide_300[] = "Nodes 300\nTiers 2\nPodsize 300\n"
                               "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 1\nRadix_Up 1\nDownlink_Latency_ns 1000\n"
                               "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 300\nDownlink_Latency_ns 1000\n";

static struct sim sims[3];
static uint8_t *port_seen; /* scratch, one byte per port of the largest simulation */

/* Writes text to a new temporary file (the readers take any name); returns
 * its path in buf. */
static void write_temp(char *buf, size_t len, const char *text)
{
    snprintf(buf, len, "/tmp/spraysim-fuzz-XXXXXX");
    int fd = mkstemp(buf);
    fuzz_check(fd >= 0);
    size_t n = strlen(text);
    fuzz_check(write(fd, text, n) == (ssize_t)n);
    close(fd);
}

static void build(struct sim *s, unsigned nodes, const char *topo_text)
{
    char cm_path[64], topo_path[64], matrix[128];
    struct config c;
    config_defaults(&c);
    c.quiet = true;
    snprintf(matrix, sizeof matrix, "Nodes %u\nConnections 1\n0->%u start 0 size 10000\n", nodes, nodes - 1);
    write_temp(cm_path, sizeof cm_path, matrix);
    c.tm_path = cm_path;
    if (topo_text) {
        write_temp(topo_path, sizeof topo_path, topo_text);
        c.topo_path = topo_path;
    }
    sim_setup(s, &c);
    unlink(cm_path);
    if (topo_text)
        unlink(topo_path);
    /* the harness owns the event list from here on */
    s->n_link_events = 0;
}

/* Is the specification's first word "switch"? (else it names a link, or
 * was rejected) */
static bool names_switch(const char *spec)
{
    spec += strspn(spec, " \t");
    return strncmp(spec, "switch", 6) == 0 && (spec[6] == ' ' || spec[6] == '\t');
}

static void check_events(const struct sim *s, const char *spec)
{
    for (uint32_t i = 0; i < s->n_link_events; i++) {
        const struct link_event *e = &s->link_events[i];
        fuzz_check(e->kind <= LC_DELAY);
        fuzz_check(e->port_a < s->n_ports && e->port_b < s->n_ports);
        const struct port *a = &s->ports[e->port_a], *b = &s->ports[e->port_b];
        fuzz_check(a->peer_node == b->owner_node && b->peer_node == a->owner_node);
        /* any time up to 10^9 us (events after -end are legal: a warning
         * at setup), and the events of one spec in time order */
        fuzz_check(e->at_ps <= 1000000000ull * PS_PER_US);
        fuzz_check(i == 0 || e->at_ps >= s->link_events[i - 1].at_ps);
        if (e->kind == LC_RATE)
            fuzz_check(e->value >= 1 && e->value <= a->nominal_mbps && e->value <= b->nominal_mbps);
    }
    if (s->n_link_events == 0)
        return;
    const struct link_event *first = &s->link_events[0];
    if (!names_switch(spec)) {
        /* a link: both ports of that one link in every event */
        for (uint32_t i = 0; i < s->n_link_events; i++)
            fuzz_check(s->link_events[i].port_a == first->port_a && s->link_events[i].port_b == first->port_b);
        return;
    }
    /* a switch: every port from it and every port toward it changes */
    uint32_t x = s->ports[first->port_a].owner_node;
    fuzz_check(x >= s->n_hosts);
    for (uint32_t i = 0; i < s->n_link_events; i++) {
        fuzz_check(s->ports[s->link_events[i].port_a].owner_node == x);
        port_seen[s->link_events[i].port_a] = 1;
        port_seen[s->link_events[i].port_b] = 1;
    }
    for (uint32_t p = 0; p < s->n_ports; p++) {
        if (s->ports[p].owner_node == x || s->ports[p].peer_node == x)
            fuzz_check(port_seen[p]);
        port_seen[p] = 0;
    }
}

static void parse_one(struct sim *s, const char *spec)
{
    char err[512];
    err[0] = '\0';
    s->n_link_events = 0;
    if (failures_parse_spec(s, spec, err, sizeof err))
        check_events(s, spec);
    else
        fuzz_check(err[0] != '\0' && s->n_link_events == 0);
}

static void parse_everywhere(const char *spec)
{
    for (size_t i = 0; i < sizeof sims / sizeof sims[0]; i++)
        parse_one(&sims[i], spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool built;
    if (!built) {
        build(&sims[0], 16, NULL);
        build(&sims[1], 16, leaf_spine_16);
        build(&sims[2], 300, wide_300);
        uint32_t most = 0;
        for (size_t i = 0; i < sizeof sims / sizeof sims[0]; i++)
            most = sims[i].n_ports > most ? sims[i].n_ports : most;
        port_seen = calloc(most, 1);
        fuzz_check(port_seen != NULL);
        built = true;
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    parse_everywhere(text);

    struct conn_matrix cm;
    char err[256];
    if (cm_read_buffer(&cm, "fuzz.cm", text, err, sizeof err)) {
        for (uint32_t i = 0; i < cm.n_failures; i++)
            if (cm.failures[i].spec) /* NULL: htsim's "failure switch_type ...", not this grammar */
                parse_everywhere(cm.failures[i].spec);
    }
    cm_free(&cm);
    free(text);
    return 0;
}
