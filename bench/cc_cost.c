/* cc_cost.c: what each congestion-control module costs per ACK, the way a
 * NIC designer would measure it (seeds-figures.md Sec. 4.2; seed 000 Sec.
 * III-H claims 59-94 instructions per packet and 19 bytes per flow for
 * SMaRTT). For nscc-fixed and smartt-fixed it also prints the NIC state:
 * bytes per flow and bytes per host (global). The module is driven outside the simulator: init once, then a
 * pre-generated stream of ACK/NACK events (generated before the measured
 * part, so generation is not counted), at 800 Gb/s, 4 KiB MTU, base RTT
 * 12 us, one ACK every 41 ns.
 *
 *   cc_cost NAME STREAM CALLS RUN   makes CALLS events of STREAM and, when
 *                                   RUN is 1, feeds them to NAME
 *
 * bench/cc_cost.sh runs it under valgrind's instruction counter with RUN 1
 * and RUN 0 and divides the difference by CALLS: instructions per call
 * (with the few of the loop that hands each event over), exact and stable
 * on a noisy machine. Streams: core-fd, core-md, core-fi,
 * core-mi (each pins one of the four ECN x delay cases: ECN low delay, ECN
 * high delay, no ECN high delay, no ECN low delay; delays keep FastIncrease
 * off), core-mix (delay uniform over 1.1-2.5 base RTTs, ECN with
 * probability 1/2), fast-inc (RTT at the base RTT, no ECN), nack (trims).
 */
#include "cc/cc.h"
#include "cc/cc_fixed.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MTU 4160u
#define RTT_PS (12 * PS_PER_US)
#define GAP_PS 41000u /* one 4 KiB packet at 800 Gb/s */

struct ev {
    bool nack;
    bool ecn;
    simtime_ps rtt_ps;
};

static void make_stream(const char *name, struct ev *e, uint32_t n)
{
    struct rng r;
    rng_seed(&r, 1, RNG_STREAM_TEST, 0);
    for (uint32_t i = 0; i < n; i++) {
        struct ev x = {false, false, RTT_PS};
        double low = 1.1 * RTT_PS, high = 2.5 * RTT_PS;
        if (!strcmp(name, "core-fd"))
            x = (struct ev){false, true, (simtime_ps)low};
        else if (!strcmp(name, "core-md"))
            x = (struct ev){false, true, (simtime_ps)high};
        else if (!strcmp(name, "core-fi"))
            x = (struct ev){false, false, (simtime_ps)high};
        else if (!strcmp(name, "core-mi"))
            x = (struct ev){false, false, (simtime_ps)low};
        else if (!strcmp(name, "core-mix"))
            x = (struct ev){false, rng_below(&r, 2) == 1, (simtime_ps)(low + rng_uniform(&r) * (high - low))};
        else if (!strcmp(name, "fast-inc"))
            x = (struct ev){false, false, RTT_PS};
        else if (!strcmp(name, "nack"))
            x = (struct ev){true, false, (simtime_ps)high};
        else {
            fprintf(stderr, "cc_cost: unknown stream '%s'\n", name);
            exit(2);
        }
        e[i] = x;
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: cc_cost NAME STREAM CALLS RUN\n");
        return 2;
    }
    const struct cc_ops *ops = cc_find(argv[1]);
    if (!ops) {
        fprintf(stderr, "cc_cost: unknown algorithm '%s'\n", argv[1]);
        return 2;
    }
    uint32_t n = (uint32_t)strtoul(argv[3], NULL, 10);
    struct ev *e = malloc(((size_t)n + 1) * sizeof *e);
    make_stream(argv[2], e, n);
    void *st = calloc(1, ops->state_size);
    struct cc_params p = {
        .mtu_bytes = MTU,
        .mss_bytes = MTU - 64,
        .base_rtt_ps = RTT_PS,
        .network_rtt_ps = RTT_PS,
        .linkspeed_mbps = 800000,
        .qa_gate = -1,
        .trimming = true,
        .path_hops = 6,
    };
    ops->init(st, &p);
    simtime_ps now = 0;
    uint32_t run = argv[4][0] == '1' ? n : 0;
    for (uint32_t i = 0; i < run; i++) {
        now += GAP_PS;
        if (e[i].nack) {
            struct cc_nack k = {.now = now, .pkt_bytes = MTU, .raw_rtt_ps = e[i].rtt_ps, .in_flight_bytes = 500000};
            ops->on_nack(st, &k);
        } else {
            struct cc_ack a = {.now = now, .newly_acked_bytes = MTU, .rtt_valid = true, .raw_rtt_ps = e[i].rtt_ps,
                               .ecn = e[i].ecn, .in_flight_bytes = 500000};
            ops->on_ack(st, &a);
        }
    }
    /* the window, so the calls cannot be optimised away */
    printf("%s %s %u calls: cwnd %llu, state %zu bytes", argv[1], argv[2], n,
           (unsigned long long)cc_cwnd(st), ops->state_size);
    /* the integer variants: what a NIC keeps per flow and per host, without
     * the simulator's 64-bit window mirror and per-flow copy of the globals */
    size_t nic_flow = 0, nic_global = 0;
    if (!strcmp(argv[1], "nscc-fixed"))
        nscc_fixed_sizes(&nic_flow, &nic_global);
    else if (!strcmp(argv[1], "smartt-fixed"))
        smartt_fixed_sizes(&nic_flow, &nic_global);
    if (nic_flow)
        printf(", nic %zu per flow %zu global", nic_flow, nic_global);
    printf("\n");
    free(st);
    free(e);
    return 0;
}
