/* main.c: the command line. Accepts the reference simulator's single-dash
 * flags with that simulator's meanings and units (so existing experiment
 * scripts run unchanged) and native long flags. Every bad flag or value is
 * one line naming the flag, and exit status 2.
 */
#include "../cc/cc.h"
#include "../lb/lb.h"
#include "../metrics/report.h"
#include "../sim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: spraysim -tm FILE [options]\n"
            "\n"
            "Packet-level simulator of datacenter fabrics: Ultra Ethernet's NSCC and the\n"
            "congestion controls it is measured against, packet spraying (REPS, Bitmap,\n"
            "Mixed, oblivious), trimming, SLEEK, failures, on fat trees and leaf-spines.\n"
            "\n"
            "Reference-simulator flags (same meaning and units as htsim_uec):\n"
            "  -tm FILE              connection matrix (.cm)\n"
            "  -topo FILE            topology (.topo); default: k-ary fat tree sized by Nodes\n"
            "  -end US               simulated time limit, microseconds (default 1000)\n"
            "  -nodes N              must equal the matrix's Nodes (checked)\n"
            "  -tiers 2|3            tiers of the default fat tree (default 3)\n"
            "  -linkspeed MBPS       host link speed in Mb/s (default 100000 = 100 Gb/s);\n"
            "                        all links when no -topo\n"
            "  -mtu BYTES            data packet size on the wire (default 4150; payload = mtu-64)\n"
            "  -q PKTS               switch queue size in packets (default: 1 BDP, 5 BDP without trimming)\n"
            "  -ecn LOW HIGH         RED marking thresholds in packets (default 20%% and 80%% of 1 BDP)\n"
            "  -cwnd PKTS            initial window in packets (default: the algorithm's, e.g. NSCC 1.5 BDP)\n"
            "  -paths N              entropy values per flow (default 64; 1 = one path per flow)\n"
            "  -seed S               seed of every random stream (default 13)\n"
            "  -sender_cc_only       sender-based congestion control (the only mode; accepted)\n"
            "  -sender_cc_algo NAME  same as --cc\n"
            "  -load_balancing_algo NAME  same as --lb\n"
            "  -disable_trim         switches drop instead of trimming\n"
            "  -sleek                SLEEK loss recovery and probes (seed 002 Sec. 6)\n"
            "  -target_q_delay US    NSCC target queueing delay (default 0.75 base RTT, 1.0 without trimming)\n"
            "  -qa_gate N            Quick Adapt gate: fires when achieved < maxwnd >> N (default 3)\n"
            "  -hop_latency US       per-link latency without -topo (default 1)\n"
            "  -switch_latency US    per-switch latency without -topo (default 0)\n"
            "  -sack_threshold BYTES delayed-ACK threshold (default 16384)\n"
            "\n"
            "Native flags:\n"
            "  --cc NAME             congestion control: %s (default nscc)\n"
            "  --lb NAME             load balancer: %s (default mixed)\n"
            "  --out DIR             write flows.csv, queues.csv, summary.json into DIR\n"
            "  --seed S              same as -seed\n"
            "  --q3-pressure F       NSCC decrease per base RTT in the ECN/low-delay quadrant, 0..0.5 (default 0)\n"
            "  --cc-opt NAME=VALUE   an option of the selected algorithm (repeatable; README lists them)\n"
            "  --reps-buffer N       REPS recycled-entropy buffer entries, 1..256 (default 8)\n"
            "  --routing MODE        switch forwarding: ecmp (hash), ar (shortest queue), ev-mod (entropy mod ports)\n"
            "  --ar-quantum BYTES    adaptive routing compares queues in these units (default: one MTU)\n"
            "  --sched fifo|drr      switch data scheduling: one FIFO, or DRR between traffic classes 0 and 1\n"
            "  --drr-quantum BYTES   DRR quantum (default 4096)\n"
            "  -failed N             N links run at 25%% speed and queue (htsim's rule)\n"
            "  --fail SPEC           e.g. \"link tor0 agg1 down at 500 up at 900\", \"switch core2 down at 100\",\n"
            "                        \"link tor1 spine0 rate 200\", \"link tor0 spine3 delay 5\" (repeatable)\n"
            "  --detect-us US        failure detection delay before routing avoids a dead link (default 100000)\n"
            "  --reps-freeze / --no-reps-freeze  REPS freezes its cache for 10 ms after a timeout (default on)\n"
            "  --progress / --no-progress  progress line on stderr when it is a terminal (default on)\n"
            "  --quiet               no summary on stdout\n"
            "  --htsim-output        also print htsim's per-flow lines (\"Flow Uec_0_13 flowId 1 ... finished at T\")\n"
            "  --help                this text\n",
            cc_names(), lb_names());
}

static const char *need_value(int argc, char **argv, int *i, const char *flag)
{
    if (*i + 1 >= argc)
        die_input("%s needs a value", flag);
    return argv[++*i];
}

static uint64_t parse_uint(const char *flag, const char *v, uint64_t min, uint64_t max)
{
    if (!v || !isdigit((unsigned char)v[0]))
        die_input("%s: '%s' is not a non-negative integer", flag, v ? v : "");
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno)
        die_input("%s: '%s' is not a non-negative integer", flag, v);
    if (x < min || x > max)
        die_input("%s: %llu is out of range [%llu, %llu]", flag, x, (unsigned long long)min, (unsigned long long)max);
    return x;
}

static double parse_double(const char *flag, const char *v, double min, double max)
{
    if (!v || !*v)
        die_input("%s: empty value", flag);
    errno = 0;
    char *end;
    double x = strtod(v, &end);
    if (*end || errno || !isfinite(x))
        die_input("%s: '%s' is not a number", flag, v);
    if (x < min || x > max)
        die_input("%s: %g is out of range [%g, %g]", flag, x, min, max);
    return x;
}

static simtime_ps us_to_ps(double us)
{
    return (simtime_ps)llround(us * (double)PS_PER_US);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    struct config cfg;
    config_defaults(&cfg);
    cfg.progress = true;
    bool lb_set_by_flag = false;
    bool ar_quantum_set = false;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        /* --flag=value is accepted for the native long flags */
        char *eq = NULL;
        if (!strncmp(arg, "--", 2) && (eq = strchr(arg, '='))) {
            *eq = '\0';
        }
        bool value_used = false;
#define VALUE() (value_used = true, eq ? eq + 1 : need_value(argc, argv, &i, arg))
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help") || !strcmp(arg, "-help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "-tm")) {
            cfg.tm_path = VALUE();
        } else if (!strcmp(arg, "-topo")) {
            cfg.topo_path = VALUE();
        } else if (!strcmp(arg, "-end")) {
            cfg.end_ps = us_to_ps(parse_double(arg, VALUE(), 1e-6, 1e9));
        } else if (!strcmp(arg, "-nodes")) {
            cfg.nodes = (uint32_t)parse_uint(arg, VALUE(), 1, 1u << 24);
        } else if (!strcmp(arg, "-tiers")) {
            cfg.tiers = (uint32_t)parse_uint(arg, VALUE(), 2, 3);
        } else if (!strcmp(arg, "-linkspeed")) {
            cfg.linkspeed_mbps = (uint32_t)parse_uint(arg, VALUE(), 1, 4000000000u);
        } else if (!strcmp(arg, "-mtu")) {
            cfg.mtu_bytes = (uint32_t)parse_uint(arg, VALUE(), 256, 65535);
        } else if (!strcmp(arg, "-q")) {
            cfg.queue_pkts = (uint32_t)parse_uint(arg, VALUE(), 1, 1000000);
        } else if (!strcmp(arg, "-ecn")) {
            cfg.ecn_low_pkts = (uint32_t)parse_uint("-ecn (low)", need_value(argc, argv, &i, arg), 1, 1000000);
            cfg.ecn_high_pkts = (uint32_t)parse_uint("-ecn (high)", need_value(argc, argv, &i, arg), 1, 1000000);
        } else if (!strcmp(arg, "-cwnd")) {
            cfg.cwnd_pkts = (uint32_t)parse_uint(arg, VALUE(), 1, 1000000);
        } else if (!strcmp(arg, "-paths")) {
            cfg.paths = (uint32_t)parse_uint(arg, VALUE(), 1, 65536);
        } else if (!strcmp(arg, "-seed") || !strcmp(arg, "--seed")) {
            cfg.seed = parse_uint(arg, VALUE(), 0, UINT64_MAX);
        } else if (!strcmp(arg, "-sender_cc_only") || !strcmp(arg, "-sender_cc")) {
            /* sender-based CC is the only mode of this transport */
        } else if (!strcmp(arg, "-receiver_cc_only") || !strcmp(arg, "-receiver_cc")) {
            die_input("%s: receiver-based congestion control is not implemented; use sender-based NSCC", arg);
        } else if (!strcmp(arg, "-sender_cc_algo") || !strcmp(arg, "--cc")) {
            cfg.cc_name = VALUE();
            if (!cc_find(cfg.cc_name))
                die_input("%s: unknown algorithm '%s' (known: %s)", arg, cfg.cc_name, cc_names());
        } else if (!strcmp(arg, "-load_balancing_algo") || !strcmp(arg, "--lb")) {
            cfg.lb_name = VALUE();
            lb_set_by_flag = true;
            if (!lb_find(cfg.lb_name))
                die_input("%s: unknown or not yet implemented load balancer '%s' (known: %s)", arg, cfg.lb_name,
                          lb_names());
        } else if (!strcmp(arg, "-disable_trim")) {
            cfg.trimming = false;
        } else if (!strcmp(arg, "-sleek")) {
            cfg.sleek = true;
        } else if (!strcmp(arg, "-target_q_delay")) {
            cfg.target_qdelay_ps = us_to_ps(parse_double(arg, VALUE(), 0.001, 1e6));
        } else if (!strcmp(arg, "-qa_gate")) {
            cfg.qa_gate = (int)parse_uint(arg, VALUE(), 0, 30);
        } else if (!strcmp(arg, "-hop_latency")) {
            cfg.hop_latency_ps = us_to_ps(parse_double(arg, VALUE(), 0, 1e6));
        } else if (!strcmp(arg, "-switch_latency")) {
            cfg.switch_latency_ps = us_to_ps(parse_double(arg, VALUE(), 0, 1e6));
        } else if (!strcmp(arg, "-sack_threshold")) {
            cfg.ack_threshold_bytes = (uint32_t)parse_uint(arg, VALUE(), 1, 1u << 30);
        } else if (!strcmp(arg, "--out") || !strcmp(arg, "-out")) {
            cfg.out_dir = VALUE();
        } else if (!strcmp(arg, "--q3-pressure")) {
            cfg.q3_pressure = parse_double(arg, VALUE(), 0, 0.5);
        } else if (!strcmp(arg, "--cc-opt")) {
            const char *v = VALUE();
            const char *eqs = strchr(v, '=');
            if (!eqs || eqs == v)
                die_input("--cc-opt: '%s' is not name=value", v);
            if (cfg.n_cc_opts == sizeof cfg.cc_opts / sizeof cfg.cc_opts[0])
                die_input("--cc-opt: at most %zu options", sizeof cfg.cc_opts / sizeof cfg.cc_opts[0]);
            struct cc_option *o = &cfg.cc_opts[cfg.n_cc_opts++];
            o->name = strndup(v, (size_t)(eqs - v));
            o->value = parse_double("--cc-opt", eqs + 1, -1e18, 1e18);
        } else if (!strcmp(arg, "--routing")) {
            const char *v = VALUE();
            if (!strcmp(v, "ecmp"))
                cfg.routing = ROUTE_ECMP;
            else if (!strcmp(v, "ar"))
                cfg.routing = ROUTE_AR;
            else if (!strcmp(v, "ev-mod"))
                cfg.routing = ROUTE_EV_MOD;
            else
                die_input("--routing: '%s' is not ecmp, ar or ev-mod", v);
        } else if (!strcmp(arg, "--sched")) {
            const char *v = VALUE();
            if (!strcmp(v, "fifo"))
                cfg.drr = false;
            else if (!strcmp(v, "drr"))
                cfg.drr = true;
            else
                die_input("--sched: '%s' is not fifo or drr", v);
        } else if (!strcmp(arg, "--drr-quantum")) {
            cfg.drr_quantum_bytes = (uint32_t)parse_uint(arg, VALUE(), 64, 1u << 24);
        } else if (!strcmp(arg, "--ar-quantum")) {
            ar_quantum_set = true;
            cfg.ar_quantum_bytes = (uint32_t)parse_uint(arg, VALUE(), 1, 1u << 30);
        } else if (!strcmp(arg, "-failed")) {
            cfg.failed_links = (uint32_t)parse_uint(arg, VALUE(), 0, 1u << 20);
        } else if (!strcmp(arg, "--fail")) {
            if (cfg.n_fail_specs == sizeof cfg.fail_specs / sizeof cfg.fail_specs[0])
                die_input("--fail: at most %zu specifications", sizeof cfg.fail_specs / sizeof cfg.fail_specs[0]);
            cfg.fail_specs[cfg.n_fail_specs++] = VALUE();
        } else if (!strcmp(arg, "--detect-us")) {
            cfg.detect_ps = us_to_ps(parse_double(arg, VALUE(), 0, 1e9));
        } else if (!strcmp(arg, "--reps-freeze")) {
            cfg.reps_freeze = true;
        } else if (!strcmp(arg, "--no-reps-freeze")) {
            cfg.reps_freeze = false;
        } else if (!strcmp(arg, "--reps-buffer")) {
            cfg.reps_buffer = (uint32_t)parse_uint(arg, VALUE(), 1, 256);
        } else if (!strcmp(arg, "--progress")) {
            cfg.progress = true;
        } else if (!strcmp(arg, "--no-progress")) {
            cfg.progress = false;
        } else if (!strcmp(arg, "--quiet")) {
            cfg.quiet = true;
        } else if (!strcmp(arg, "--htsim-output")) {
            cfg.htsim_output = true;
        } else {
            die_input("unknown flag '%s' (see --help)", arg);
        }
        if (eq && !value_used)
            die_input("%s takes no value", arg);
#undef VALUE
    }
    (void)lb_set_by_flag;
    if (!ar_quantum_set)
        cfg.ar_quantum_bytes = cfg.mtu_bytes;
    if (!cfg.tm_path)
        die_input("no connection matrix: give -tm FILE (see --help)");
    if (cfg.mtu_bytes <= cfg.hdr_bytes)
        die_input("-mtu %u must exceed the %u-byte header", cfg.mtu_bytes, cfg.hdr_bytes);
    if (cfg.paths == 1 && strcmp(cfg.lb_name, "single") && strcmp(cfg.lb_name, "ecmp"))
        cfg.lb_name = "single"; /* one entropy value: every balancer degenerates to one path */

    static struct sim s;
    double t0 = now_seconds();
    sim_setup(&s, &cfg);
    sim_run(&s);
    double wall = now_seconds() - t0;
    struct run_stats r;
    report_collect(&s, wall, &r);
    if (!cfg.quiet)
        report_stdout(&s, &r);
    if (cfg.out_dir)
        report_write_files(&s, &r, cfg.out_dir);
    sim_free(&s);
    return 0;
}
