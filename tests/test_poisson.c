/* test_poisson.c: open-loop Poisson workloads (src/workload/poisson.c) and
 * their metrics.
 *
 * The generator alone (no network, so it can draw hundreds of thousands of
 * messages quickly): the CDF files' means in both sampling modes as
 * specs/sird.md Sec. 2.2 computes them; achieved load within 3% and mean
 * size within 2% of the requested ones; seed 001's per-host message rates
 * at 50% load on 100 G hosts; destinations uniform (chi-square) and never
 * the sender; gaps exponential (Kolmogorov-Smirnov). The CDF reader and
 * the specification parser refuse bad input naming file:line or the
 * parameter. End to end on an 8-host tree at 30% load: flows appear only
 * during the run, more than the flow table's first capacity, none after
 * stop_us; every message after the warm-up is delivered and no slowdown is
 * below 1; with UET, EQDS and EQDS with a pull pacer per flow. Quiet
 * moments (every flow done, more to come) do not end a run; a run cut
 * short measures its unfinished messages without using them; goodput is
 * exactly the payload received within the window. The same seed gives
 * byte-identical flows.csv, another seed another.
 */
#include "testutil.h"

#include "metrics/flowstream.h"
#include "sim.h"
#include "simtest.h"
#include "transport/eqds.h"
#include "transport/transport.h"
#include "workload/poisson.h"

#include <math.h>

static struct sim S;

#define WKA "workloads/google_all_rpc.cdf"
#define WKB "workloads/facebook_hadoop.cdf"
#define WKC "workloads/websearch.cdf"

static void gen_init_ok(struct poisson_gen *g, const char *cdf_rel, double load, bool step, uint32_t hosts,
                        uint64_t seed)
{
    struct poisson_spec p = {.load = load, .step = step, .nodes = hosts, .stop_ps = SIMTIME_NEVER};
    snprintf(p.cdf_path, sizeof p.cdf_path, "%s", shared_path(cdf_rel));
    char err[512];
    if (!poisson_gen_init(g, &p, hosts, 100000, seed, err, sizeof err))
        fail_msg("%s: %s", cdf_rel, err);
}

static void assert_near(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: %.6g, want %.6g within %.2g%%", what, got, want, rel * 100);
}

/* ---- the CDF ------------------------------------------------------------------------ */

/* specs/sird.md Sec. 2.2's table: linear-interpolation and step means. */
static void test_cdf_means_of_the_shared_files(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double linear, step;
    } want[] = {
        {WKA, 864.2, 1001.3},
        {WKB, 134854, 194331},
        {WKC, 1711250, 2434900},
    };
    for (unsigned i = 0; i < 3; i++) {
        struct poisson_gen g;
        gen_init_ok(&g, want[i].file, 0.5, false, 2, 1);
        assert_near(cdf_mean_bytes(&g.cdf, false), want[i].linear, 1e-4, want[i].file);
        assert_near(cdf_mean_bytes(&g.cdf, true), want[i].step, 1e-4, want[i].file);
        poisson_gen_free(&g);
    }
}

/* Packets per message (the offered-load warning counts a header per
 * packet): by hand, for packets of 1000 payload bytes. */
static void test_cdf_mean_packets(void **state)
{
    (void)state;
    struct size_cdf c;
    char err[256];
    /* 100 B w.p. 0.2, then uniform 100..2500 (0.5), then 2500..2500 (0.3):
     * linear: 0.2 x 1 + 0.5 x (900 x 1 + 1000 x 2 + 500 x 3) / 2400 + 0.3 x 3
     * = 0.2 + 0.5 x 4400 / 2400 + 0.9; step: 0.2 x 1 + 0.5 x 3 + 0.3 x 3 */
    assert_true(cdf_parse_text(&c, "t", "100 0.2\n2500 0.7\n2500 1\n", err, sizeof err));
    assert_near(cdf_mean_packets(&c, false, 1000), 0.2 + 0.5 * 4400.0 / 2400 + 0.9, 1e-12, "linear packets");
    assert_near(cdf_mean_packets(&c, true, 1000), 2.6, 1e-12, "step packets");
    cdf_free(&c);
    /* every message is at least one packet: 5 bytes, or sizes from 0 */
    assert_true(cdf_parse_text(&c, "t", "5 1\n", err, sizeof err));
    assert_near(cdf_mean_packets(&c, false, 1000), 1, 1e-12, "a 5-byte message");
    cdf_free(&c);
    assert_true(cdf_parse_text(&c, "t", "0 0\n1000 1\n", err, sizeof err));
    assert_near(cdf_mean_packets(&c, false, 1000), 1, 1e-12, "uniform 0..1000");
    cdf_free(&c);
    /* the smallest CDF that can carry a byte: every message 1 byte (issue
     * 26: the "every size is 0" test moved to "below 2" survived) */
    assert_true(cdf_parse_text(&c, "t", "1 1\n", err, sizeof err));
    assert_near(cdf_mean_packets(&c, false, 1000), 1, 1e-12, "1-byte messages");
    cdf_free(&c);
}

static void test_sampling_linear_and_step(void **state)
{
    (void)state;
    struct size_cdf c;
    char err[256];
    assert_true(cdf_parse_text(&c, "t", "# comment\n100 0.2\n\n200 0.6\n1000 1\n", err, sizeof err));
    assert_int_equal(c.n, 3);
    /* below the first probability: the first size */
    assert_int_equal(cdf_sample(&c, 0.1, false), 100);
    assert_int_equal(cdf_sample(&c, 0.1, true), 100);
    /* within a segment: interpolated, or its upper size */
    assert_int_equal(cdf_sample(&c, 0.4, false), 150);
    assert_int_equal(cdf_sample(&c, 0.4, true), 200);
    assert_int_equal(cdf_sample(&c, 0.8, false), 600);
    assert_int_equal(cdf_sample(&c, 0.8, true), 1000);
    /* a point's own probability starts the next segment */
    assert_int_equal(cdf_sample(&c, 0.6, false), 200);
    assert_int_equal(cdf_sample(&c, 0.999999999, false), 1000);
    /* means: 0.2*100 + 0.4*150 + 0.4*600; step 0.2*100 + 0.4*200 + 0.4*1000 */
    assert_near(cdf_mean_bytes(&c, false), 320, 1e-12, "linear mean");
    assert_near(cdf_mean_bytes(&c, true), 500, 1e-12, "step mean");
    cdf_free(&c);
    /* a size of 0 draws 1 byte: a message carries at least one */
    assert_true(cdf_parse_text(&c, "t", "0 0\n10 1\n", err, sizeof err));
    assert_int_equal(cdf_sample(&c, 0.0, false), 1);
    cdf_free(&c);
}

static void test_cdf_errors_name_file_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"10 0.5\n5 1\n", "t:2: size 5 is below the previous line's 10"},
        {"10 0.5\n20 0.4\n30 1\n", "t:2: probability 0.4 is below"},
        {"10 0.5\n20 1.5\n", "t:2: probability '1.5' is not a number from 0 to 1"},
        {"# c\n10 0.5 7\n", "t:2: expected two fields"},
        {"10 0.5\n20 0.9\n", "t:2: the last probability is 0.9"},
        {"10 0.5\nabc 1\n", "t:2: size 'abc' is not a number"},
        {"-4 0.5\n", "t:1: size '-4'"},
        {"# only a comment\n", "t: no points"},
        {"0 0.5\n0 1\n", "every size is 0"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct size_cdf c;
        char err[256] = "";
        if (cdf_parse_text(&c, "t", bad[i].text, err, sizeof err))
            fail_msg("accepted '%s'", bad[i].text);
        if (!strstr(err, bad[i].want))
            fail_msg("'%s': error '%s' lacks '%s'", bad[i].text, err, bad[i].want);
    }
    /* from a file: its path and line */
    const char *path = temp_file("1 0.1\n2 x\n", ".cdf");
    struct size_cdf c;
    char err[512], want[400];
    assert_false(cdf_read_file(&c, path, err, sizeof err));
    snprintf(want, sizeof want, "%s:2: probability 'x'", path);
    if (strncmp(err, want, strlen(want)))
        fail_msg("error '%s', want '%s...'", err, want);
    assert_false(cdf_read_file(&c, "/nonexistent/x.cdf", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/x.cdf: cannot open"));
    /* a NUL byte: not a text file, named by line */
    char nul_path[64];
    snprintf(nul_path, sizeof nul_path, "/tmp/spraysim-test-%ld-nul.cdf", (long)getpid());
    FILE *nf = fopen(nul_path, "wb");
    assert_non_null(nf);
    fwrite("10 0.5\n2\0 1\n", 1, 13, nf);
    fclose(nf);
    assert_false(cdf_read_file(&c, nul_path, err, sizeof err));
    snprintf(want, sizeof want, "%s:2: contains a NUL byte; not a text file", nul_path);
    assert_string_equal(err, want);
    unlink(nul_path);
    /* short buffers: the message cut at errlen, nothing written past it */
    char big[64];
    memset(big, 'Z', sizeof big);
    assert_false(cdf_parse_text(&c, "t", "10 0.5\n5 1\n", big, 12));
    assert_string_equal(big, "t:2: size 5");
    for (size_t i = 12; i < sizeof big; i++)
        assert_int_equal(big[i], 'Z');
    memset(big, 'Z', sizeof big);
    assert_false(cdf_parse_text(&c, "t", "# only a comment\n", big, 6));
    assert_string_equal(big, "t: no");
    for (size_t i = 6; i < sizeof big; i++)
        assert_int_equal(big[i], 'Z');
    struct poisson_spec p;
    assert_false(poisson_parse(&p, "perm:n=4,size=10", err, sizeof err));
    assert_string_equal(err, "--workload poisson: not a poisson specification");
    /* the cdf path: up to 511 bytes */
    char spec[700];
    char path511[512];
    memset(path511, 'p', 511);
    path511[511] = 0;
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=0.5,n=8", path511);
    assert_true(poisson_parse(&p, spec, err, sizeof err));
    assert_string_equal(p.cdf_path, path511);
    snprintf(spec, sizeof spec, "poisson:cdf=%sq,load=0.5,n=8", path511);
    assert_false(poisson_parse(&p, spec, err, sizeof err));
    assert_string_equal(err, "--workload poisson: cdf path is longer than 511 bytes");
    memset(big, 'Z', sizeof big);
    assert_false(poisson_parse(&p, "poisson:cdf=a,load=0.5,n=1", big, 24));
    assert_string_equal(big, "--workload poisson: n '");
    for (size_t i = 24; i < sizeof big; i++)
        assert_int_equal(big[i], 'Z');
}

/* ---- the specification -------------------------------------------------------------- */

static void test_spec_parse(void **state)
{
    (void)state;
    struct poisson_spec p;
    char err[512];
    assert_true(poisson_parse(&p, "poisson:cdf=a.cdf,load=0.5,n=16", err, sizeof err));
    assert_string_equal(p.cdf_path, "a.cdf");
    assert_true(p.load == 0.5);
    assert_int_equal(p.nodes, 16);
    assert_false(p.step);
    assert_int_equal(p.warmup_ps, 0);
    assert_int_equal(p.stop_ps, SIMTIME_NEVER);
    assert_int_equal(p.bdp_bytes, 0);
    assert_false(p.has_seed);
    assert_true(poisson_parse(&p, "poisson:n=8,sampling=step,cdf=b,load=1,warmup_us=2.5,stop_us=10,bdp=100000,seed=7",
                              err, sizeof err));
    assert_true(p.step);
    assert_int_equal(p.warmup_ps, 2500000);
    assert_int_equal(p.stop_ps, 10 * PS_PER_US);
    assert_int_equal(p.bdp_bytes, 100000);
    assert_true(p.has_seed);
    assert_int_equal(p.seed, 7);
    assert_true(p.incast_share == 0);
    assert_int_equal(p.incast_senders, 30);
    assert_int_equal(p.incast_bytes, 500000);
    assert_true(poisson_parse(&p, "poisson:cdf=a,load=0.5,n=64,incast=0.07,incast_senders=31,incast_bytes=100",
                              err, sizeof err));
    assert_true(p.incast_share == 0.07);
    assert_int_equal(p.incast_senders, 31);
    assert_int_equal(p.incast_bytes, 100);
    /* incast_senders' upper end: every host but the receiver (n - 1), not n */
    assert_true(poisson_parse(&p, "poisson:cdf=a,load=0.5,n=8,incast=0.1,incast_senders=7", err, sizeof err));
    assert_int_equal(p.incast_senders, 7);
    assert_false(poisson_parse(&p, "poisson:cdf=a,load=0.5,n=8,incast=0.1,incast_senders=8", err, sizeof err));
    assert_non_null(strstr(err, "incast_senders 8 needs more hosts than n=8"));
    static const struct {
        const char *spec, *want;
    } bad[] = {
        {"poisson", "parameters cdf, load and n are required"},
        {"poisson:load=0.5,n=16", "parameter 'cdf' (the message-size CDF file) is required"},
        {"poisson:cdf=a,n=16", "parameter 'load' (payload rate / host link rate) is required"},
        {"poisson:cdf=a,load=0.5", "parameter 'n' (hosts) is required"},
        {"poisson:cdf=a,load=0,n=16", "load '0' is not a fraction"},
        {"poisson:cdf=a,load=1.01,n=16", "load '1.01' is not a fraction"},
        {"poisson:cdf=a,load=50%,n=16", "load '50%' is not a fraction"},
        {"poisson:cdf=a,load=0.5,n=1", "n '1' is not a number of hosts"},
        {"poisson:cdf=a,load=0.5,n=16,sampling=cubic", "sampling 'cubic' is not linear or step"},
        {"poisson:cdf=a,load=0.5,n=16,warmup_us=-1", "warmup_us '-1' is not a time"},
        {"poisson:cdf=a,load=0.5,n=16,stop_us=x", "stop_us 'x' is not a time"},
        {"poisson:cdf=a,load=0.5,n=16,warmup_us=10,stop_us=10", "stop_us 10 is not after warmup_us 10"},
        {"poisson:cdf=a,load=0.5,n=16,bdp=0", "bdp '0' is not a number of bytes"},
        {"poisson:cdf=a,load=0.5,n=16,seed=-3", "seed '-3' is not a whole number"},
        {"poisson:cdf=a,load=0.5,n=16,rate=3", "unknown parameter 'rate' (poisson takes cdf, load, n,"},
        {"poisson:cdf=a,load=0.5,load=0.6,n=16", "parameter 'load' given twice"},
        {"poisson:cdf=a,load=0.5,n=16,cdf=b", "parameter 'cdf' given twice"}, /* the first one seen, too */
        {"poisson:cdf=a,load=0.5,,n=16", "empty parameter"},
        {"poisson:cdf=a,load=0.5,n=16,incast=1", "incast '1' is not a share of the load from 0 to below 1"},
        {"poisson:cdf=a,load=0.5,n=16,incast=0.07", "incast_senders 30 needs more hosts than n=16"},
        {"poisson:cdf=a,load=0.5,n=16,incast=0.1,incast_senders=0", "incast_senders '0' is not a number of hosts"},
        {"poisson:cdf=a,load=0.5,n=16,incast_bytes=0", "incast_bytes '0' is not a number of bytes"},
        {"poisson:cdf=a,load=0.5,n=16,incast_senders=4", "incast_senders is for the incast overlay: give incast=F"},
        {"poisson:cdf=a,load=0.5,n=16,incast=0,incast_bytes=100", "incast_bytes is for the incast overlay"},
        {"poisson:cdf=a,load,n=16", "parameter 'load' has no value"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (poisson_parse(&p, bad[i].spec, err, sizeof err))
            fail_msg("accepted '%s'", bad[i].spec);
        if (strncmp(err, "--workload poisson: ", 20) || !strstr(err, bad[i].want))
            fail_msg("'%s': error '%s' lacks '%s'", bad[i].spec, err, bad[i].want);
    }
}

/* Every numeric parameter of the poisson workload at both ends of what it
 * takes: the end itself taken, the nearest value beyond it refused naming
 * the parameter (issue 26: a range test flipped at an end went unnoticed,
 * e.g. incast's >= 0). incast's upper end is open: 1 is refused and the
 * double below it taken. */
static void test_spec_ranges_at_both_ends(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double lo, hi;
        bool whole, hi_open;
        const char *range; /* as the refusal states it */
    } R[] = {
        {"load", POISSON_MIN_LOAD, POISSON_MAX_LOAD, false, false, "from 1e-06 to 1"},
        {"n", 2, 1u << 24, true, false, "from 2 to 16777216"},
        {"warmup_us", 0, 1e12, false, false, "from 0 to 1e12 microseconds"},
        {"bdp", 1, 1ull << 40, true, false, "from 1 to 1099511627776"},
        {"incast", 0, 1, false, true, "from 0 to below 1"},
        {"incast_senders", 1, (1u << 24) - 1, true, false, "from 1 to 16777215"},
        {"incast_bytes", 1, 1ull << 40, true, false, "from 1 to 1099511627776"},
        {"conns", 0, 4096, true, false, "from 0 to 4096"},
    };
    struct poisson_spec p;
    char spec[160], err[512];
    for (size_t i = 0; i < sizeof R / sizeof R[0]; i++) {
        /* the required parameters at ordinary values, less the one tested;
         * stop_us's lower end is warmup_us's (test_spec_parse) */
        const char *base = !strcmp(R[i].name, "n") ? "poisson:cdf=a,load=0.5" : "poisson:cdf=a,load=0.5,n=64";
        if (!strcmp(R[i].name, "load"))
            base = "poisson:cdf=a,n=64";
        /* the overlay's parameters need the overlay (incast=F), and its
         * largest sender count needs that many hosts and one more */
        if (!strcmp(R[i].name, "incast_senders"))
            base = "poisson:cdf=a,load=0.5,n=16777216,incast=0.1";
        if (!strcmp(R[i].name, "incast_bytes"))
            base = "poisson:cdf=a,load=0.5,n=64,incast=0.1";
        double in_hi = R[i].hi_open ? nextafter(R[i].hi, -INFINITY) : R[i].hi;
        double below = R[i].whole ? R[i].lo - 1 : nextafter(R[i].lo, -INFINITY);
        double above = R[i].hi_open ? R[i].hi : R[i].whole ? R[i].hi + 1 : nextafter(R[i].hi, INFINITY);
        const double take[2] = {R[i].lo, in_hi}, refuse[2] = {below, above};
        for (int k = 0; k < 2; k++) {
            snprintf(spec, sizeof spec, "%s,%s=%.17g", base, R[i].name, take[k]);
            if (!poisson_parse(&p, spec, err, sizeof err))
                fail_msg("'%s' refused: %s", spec, err);
            snprintf(spec, sizeof spec, "%s,%s=%.17g", base, R[i].name, refuse[k]);
            if (poisson_parse(&p, spec, err, sizeof err))
                fail_msg("'%s' taken", spec);
            if (!strstr(err, R[i].name) || !strstr(err, R[i].range))
                fail_msg("'%s': error '%s' does not name %s and its range '%s'", spec, err, R[i].name, R[i].range);
        }
    }
}

/* ---- the generator ------------------------------------------------------------------ */

/* Draws `per_host` messages from each of `hosts` hosts; returns the
 * achieved load (payload over hosts x elapsed time x 100 Gb/s) and the
 * mean size. */
static void draw(struct poisson_gen *g, uint32_t hosts, uint32_t per_host, double *load, double *mean)
{
    double bytes = 0, host_time_ps = 0;
    for (uint32_t h = 0; h < hosts; h++) {
        simtime_ps t = 0;
        for (uint32_t k = 0; k < per_host; k++) {
            struct poisson_msg m;
            poisson_next(g, h, &m);
            t += m.gap_ps;
            bytes += (double)m.size_bytes;
        }
        host_time_ps += (double)t;
    }
    *load = bytes * 8 / (host_time_ps / 1e12) / 100e9;
    *mean = bytes / ((double)hosts * per_host);
}

/* Coefficient of variation of cdf_sample's sizes (before rounding): the
 * second moment of each segment (uniform within it, or its upper size). */
static double cdf_cv(const struct size_cdf *c, bool step)
{
    double m = cdf_mean_bytes(c, step), m2 = c->prob[0] * c->size_bytes[0] * c->size_bytes[0];
    for (uint32_t i = 1; i < c->n; i++) {
        double a = c->size_bytes[i - 1], b = c->size_bytes[i], w = c->prob[i] - c->prob[i - 1];
        m2 += w * (step ? b * b : (a * a + a * b + b * b) / 3);
    }
    return sqrt(m2 - m * m) / m;
}

#define DRAWS_MAX 6400000u

/* Achieved load within 3% and mean within 2%, every file and mode, from
 * enough draws that 3 standard errors fit in those bounds: (3 CV / 0.02)^2
 * draws, 121k for web search, 715k-792k for Hadoop. Google's sizes reach
 * 12 MB with probability 2e-5 (CV 46-57): it needs 47-72 million draws,
 * too slow for the suite, so it gets DRAWS_MAX and a bound of 3 standard
 * errors (under 15%) instead. */
static void test_generator_load_and_mean(void **state)
{
    (void)state;
    const char *files[] = {WKA, WKB, WKC};
    for (unsigned i = 0; i < 3; i++)
        for (int step = 0; step < 2; step++) {
            struct poisson_gen g;
            gen_init_ok(&g, files[i], 0.37, step, 16, 11);
            double cv = cdf_cv(&g.cdf, step);
            double need = ceil(pow(3 * cv / 0.02, 2));
            uint32_t n = need < DRAWS_MAX ? (uint32_t)need : DRAWS_MAX;
            uint32_t per_host = n / 16 + 1;
            double se = 1 / sqrt(16.0 * per_host);
            /* load: the sizes' and the gaps' (CV 1) variation together */
            double tol_load = fmax(0.03, 3 * sqrt(cv * cv + 1) * se), tol_mean = fmax(0.02, 3 * cv * se);
            if (i != 0 && (tol_load > 0.03 || tol_mean > 0.02))
                fail_msg("%s: %u draws leave bounds %.3f / %.3f", files[i], n, tol_load, tol_mean);
            double load, mean;
            draw(&g, 16, per_host, &load, &mean);
            char what[128];
            snprintf(what, sizeof what, "%s %s: achieved load", files[i], step ? "step" : "linear");
            assert_near(load, 0.37, tol_load, what);
            snprintf(what, sizeof what, "%s %s: mean size", files[i], step ? "step" : "linear");
            assert_near(mean, g.mean_bytes, tol_mean, what);
            poisson_gen_free(&g);
        }
}

/* specs/sird.md Sec. 2.3: per-host rate at 50% load on 100 G hosts,
 * lambda = 0.5 x 100 Gb/s / (8 x linear mean): WKa 7.23 M/s, WKb 46.3 k/s,
 * WKc 3.65 k/s. The paper's own means (3 KB, 125 KB, 2.5 MB) would give
 * 2.08 M/s, 50 k/s, 2.5 k/s: the gap is the files' means, not the rate. */
static void test_message_rates_of_seed_001(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double per_s;
    } want[] = {{WKA, 7.23e6}, {WKB, 46.3e3}, {WKC, 3.65e3}};
    for (unsigned i = 0; i < 3; i++) {
        struct poisson_gen g;
        gen_init_ok(&g, want[i].file, 0.5, false, 4, 3);
        assert_near(1e12 / g.mean_gap_ps, want[i].per_s, 0.005, want[i].file);
        /* and the draws: messages over elapsed time */
        simtime_ps t = 0;
        uint32_t n = 200000;
        struct poisson_msg m;
        for (uint32_t k = 0; k < n; k++) {
            poisson_next(&g, 1, &m);
            t += m.gap_ps;
        }
        assert_near(n / ((double)t / 1e12), want[i].per_s, 0.01, want[i].file);
        poisson_gen_free(&g);
    }
}

/* Never the sender; uniform over the others: one chi-square over the 56
 * (source, destination) pairs of 8 hosts (df 55, 1% critical value 82.29). */
static void test_destinations_uniform_never_self(void **state)
{
    (void)state;
    struct poisson_gen g;
    gen_init_ok(&g, WKB, 0.5, false, 8, 5);
    uint32_t n = 35000;
    double chi2 = 0, e = n / 7.0;
    for (uint32_t src = 0; src < 8; src++) {
        uint32_t count[8] = {0};
        struct poisson_msg m;
        for (uint32_t k = 0; k < n; k++) {
            poisson_next(&g, src, &m);
            assert_true(m.dst < 8);
            count[m.dst]++;
        }
        assert_int_equal(count[src], 0);
        for (uint32_t d = 0; d < 8; d++)
            if (d != src)
                chi2 += (count[d] - e) * (count[d] - e) / e;
    }
    if (chi2 > 82.29)
        fail_msg("chi-square %.2f over 56 pairs exceeds 82.29", chi2);
    poisson_gen_free(&g);
}

/* Each host its own stream, and seed=S in the specification stands for the
 * run's seed. */
static void test_hosts_draw_apart_and_spec_seed(void **state)
{
    (void)state;
    struct poisson_gen g, h;
    gen_init_ok(&g, WKB, 0.5, false, 4, 5);
    struct poisson_msg a, b;
    unsigned same = 0;
    for (unsigned k = 0; k < 100; k++) {
        poisson_next(&g, 0, &a);
        poisson_next(&g, 1, &b);
        same += a.gap_ps == b.gap_ps;
    }
    if (same > 2)
        fail_msg("hosts 0 and 1 drew %u equal gaps of 100", same);
    poisson_gen_free(&g);
    struct poisson_spec p = {.load = 0.5, .nodes = 4, .stop_ps = SIMTIME_NEVER, .has_seed = true, .seed = 5};
    snprintf(p.cdf_path, sizeof p.cdf_path, "%s", shared_path(WKB));
    char err[256];
    assert_true(poisson_gen_init(&h, &p, 4, 100000, 999, err, sizeof err));
    gen_init_ok(&g, WKB, 0.5, false, 4, 5);
    for (unsigned k = 0; k < 100; k++) {
        poisson_next(&g, 2, &a);
        poisson_next(&h, 2, &b);
        assert_int_equal(a.gap_ps, b.gap_ps);
        assert_int_equal(a.dst, b.dst);
        assert_int_equal(a.size_bytes, b.size_bytes);
    }
    poisson_gen_free(&g);
    poisson_gen_free(&h);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Kolmogorov-Smirnov against the exponential with the generator's mean:
 * D below the 1% critical value 1.628 / sqrt(n). */
static void test_gaps_are_exponential(void **state)
{
    (void)state;
    struct poisson_gen g;
    gen_init_ok(&g, WKB, 0.3, false, 4, 9);
    uint32_t n = 20000;
    uint64_t *gap = malloc(n * sizeof *gap);
    struct poisson_msg m;
    for (uint32_t k = 0; k < n; k++) {
        poisson_next(&g, 2, &m);
        gap[k] = m.gap_ps;
    }
    qsort(gap, n, sizeof *gap, cmp_u64);
    double d = 0;
    for (uint32_t k = 0; k < n; k++) {
        double f = 1 - exp(-(double)gap[k] / g.mean_gap_ps);
        double lo = f - (double)k / n, hi = (double)(k + 1) / n - f;
        d = fmax(d, fmax(lo, hi));
    }
    free(gap);
    double crit = 1.628 / sqrt(n);
    if (d >= crit)
        fail_msg("KS statistic %.5f >= 1%% critical value %.5f", d, crit);
    poisson_gen_free(&g);
}

/* ---- in a run ----------------------------------------------------------------------- */

static char spec_buf[512];

/* An 8-host two-tier run at 30% load; pacer_per_flow: EQDS's
 * -sender_cc_only (no receiver credit, so a pull pacer per flow). */
static void setup_run(const char *cdf_rel, const char *extra, const char *transport, uint64_t seed, double end_us,
                      bool pacer_per_flow)
{
    snprintf(spec_buf, sizeof spec_buf, "poisson:cdf=%s,load=0.3,n=8%s", shared_path(cdf_rel), extra);
    struct config c;
    config_defaults(&c);
    c.workload_spec = spec_buf;
    c.tiers = 2;
    c.transport_name = transport;
    c.seed = seed;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.progress = false;
    if (pacer_per_flow) {
        c.receiver_cc = 0;
        c.sender_cc = 1;
    }
    sim_setup(&S, &c);
}

/* Every message created after the warm-up is delivered, no slowdown is
 * below 1, arrivals happen during the run (none at setup, none at or
 * after stop_us), and the table grows past its first 1024 flows. */
static void check_end_to_end(const char *transport, bool pacer_per_flow)
{
    setup_run(WKA, ",warmup_us=10,stop_us=80", transport, 21, 3000, pacer_per_flow);
    assert_int_equal(S.n_flows, 0);
    assert_non_null(S.poisson);
    assert_int_equal(S.poisson->pending, 8);
    sim_run(&S);
    if (S.n_flows <= 1024)
        fail_msg("%s: %u flows; the test wants the table to grow past 1024", transport, S.n_flows);
    /* every arrival drawn before stop_us happened (each host drew one beyond) */
    assert_int_equal(S.n_flows, S.poisson->gen.messages - 8);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_true(ps.measured > 0);
    if (pacer_per_flow) {
        /* every flow, the last one added during the run too, has its pacer */
        assert_non_null(eqds_pacer(&S, S.n_flows - 1));
    } else {
        assert_int_equal(ps.delivered, ps.measured);
    }
    for (uint32_t i = 0; i < S.n_flows; i++) {
        const struct flow *f = &S.flows[i];
        assert_true(f->start_ps < 80 * PS_PER_US);
        /* flows.csv's flow_id: messages numbered from 1 in arrival order
         * (no --stream here, so slot i holds the (i + 1)th message) */
        assert_int_equal(S.cm.conns[i].id, i + 1);
        if (f->start_ps < 10 * PS_PER_US)
            continue;
        if (!f->rcv_complete)
            fail_msg("%s flow %u (%llu B) started at %.3f us, not delivered", transport, i,
                     (unsigned long long)f->size_bytes, (double)f->start_ps / PS_PER_US);
        double sd = (double)(f->rcv_done_ps - f->start_ps) / (double)ideal_delivery_ps(&S, f);
        if (sd < 1)
            fail_msg("%s flow %u (%llu B): slowdown %.4f below 1", transport, i, (unsigned long long)f->size_bytes, sd);
    }
    assert_true(ps.all.slowdown_median >= 1);
    assert_true(ps.all.slowdown_p99 >= ps.all.slowdown_median);
    /* 70 us at 30% of 100 G on 8 hosts is a small sample, WKa's sizes vary
     * widely: the load is only roughly the requested one here */
    assert_near(ps.load_achieved, 0.3, 0.25, "achieved load");
    /* goodput counts what arrived within the window: no host's link
     * delivers more than its 100 Gb/s, and the hosts together about what
     * was offered */
    if (ps.goodput_gbps_max > 100 || ps.goodput_gbps_min < 0)
        fail_msg("%s: goodput per host from %.3f to %.3f Gb/s, outside [0, 100]", transport, ps.goodput_gbps_min,
                 ps.goodput_gbps_max);
    if (!pacer_per_flow)
        assert_near(ps.goodput_gbps_mean, 100 * ps.load_achieved, 0.2, "mean goodput against achieved load");
    check_packet_conservation(&S);
    sim_free(&S);
}

static void test_end_to_end_uet(void **state)
{
    (void)state;
    check_end_to_end("uet", false);
}

static void test_end_to_end_eqds(void **state)
{
    (void)state;
    check_end_to_end("eqds", false);
}

static void test_end_to_end_eqds_pacer_per_flow(void **state)
{
    (void)state;
    check_end_to_end("eqds", true);
}

/* Size groups: A < MSS <= B < BDP <= C < 8 BDP <= D. */
static void test_size_groups(void **state)
{
    (void)state;
    assert_int_equal(poisson_group_of(1435, 1436, 100000), 0);
    assert_int_equal(poisson_group_of(1436, 1436, 100000), 1);
    assert_int_equal(poisson_group_of(99999, 1436, 100000), 1);
    assert_int_equal(poisson_group_of(100000, 1436, 100000), 2);
    assert_int_equal(poisson_group_of(799999, 1436, 100000), 2);
    assert_int_equal(poisson_group_of(800000, 1436, 100000), 3);
}

/* Payload received by host h so far, from the receivers' bitmaps packet by
 * packet (UET runs). */
static double received_by(uint32_t h)
{
    uint32_t mss = S.cfg.mtu_bytes - S.cfg.hdr_bytes;
    double sum = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        const struct flow *f = &S.flows[i];
        if (f->dst != h || !uet_of(f)->rcv_win.words)
            continue;
        for (uint32_t q = 0; q < f->n_pkts; q++)
            if (rcv_window_has(&uet_of(f)->rcv_win, uet_of(f)->rcv_cum, q))
                sum += flow_pkt_payload(f, q, mss);
    }
    return sum;
}

/* A run cut short at -end 200 us: messages still under way are measured
 * but not delivered, and no statistic uses them; goodput is exactly the
 * payload the receivers hold (window [0, 200) us). With a warm-up, it lies
 * between what the messages wholly inside the window brought and what
 * every message overlapping it could have (its size, at most, and at most
 * line rate while inside). Also: quiet moments (every flow done,
 * more to come) do not end the run: every drawn arrival before stop_us
 * happens. */
static void test_cut_short_run_and_goodput(void **state)
{
    (void)state;
    setup_run(WKB, "", "uet", 8, 200, false);
    sim_run(&S);
    /* each host drew one message beyond the window: the rest all arrived */
    assert_int_equal(S.n_flows, S.poisson->gen.messages - 8);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    uint32_t done = 0;
    for (uint32_t i = 0; i < S.n_flows; i++)
        done += S.flows[i].rcv_complete;
    assert_int_equal(ps.measured, S.n_flows);
    assert_int_equal(ps.delivered, done);
    assert_true(done < S.n_flows);
    assert_true(ps.all.slowdown_p99 < 1000);
    double window_s = 200e-6, sum = 0, lo = INFINITY, hi = 0;
    for (uint32_t h = 0; h < 8; h++) {
        double gbps = received_by(h) * 8 / window_s / 1e9;
        sum += gbps;
        lo = fmin(lo, gbps);
        hi = fmax(hi, gbps);
    }
    assert_near(ps.goodput_gbps_mean, sum / 8, 1e-9, "goodput mean");
    assert_near(ps.goodput_gbps_min, lo, 1e-9, "goodput min");
    assert_near(ps.goodput_gbps_max, hi, 1e-9, "goodput max");
    sim_free(&S);

    /* a window after a long warm-up: what came before it is most of the payload */
    setup_run(WKB, ",warmup_us=300,stop_us=400", "uet", 8, 2000, false);
    sim_run(&S);
    assert_int_equal(S.n_flows, S.poisson->gen.messages - 8);
    poisson_collect(&S, &ps);
    double inside = 0, overlapping = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        const struct flow *f = &S.flows[i];
        simtime_ps done_ps = f->rcv_complete ? f->rcv_done_ps : SIMTIME_NEVER;
        if (f->start_ps >= 300 * PS_PER_US && done_ps <= 400 * PS_PER_US)
            inside += (double)f->size_bytes;
        /* a message delivers at most its size, and at most 100 Gb/s for
         * the part of its life inside the window */
        simtime_ps from = f->start_ps > 300 * PS_PER_US ? f->start_ps : 300 * PS_PER_US;
        simtime_ps to = done_ps < 400 * PS_PER_US ? done_ps : 400 * PS_PER_US;
        if (to > from)
            overlapping += fmin((double)f->size_bytes, (double)(to - from) / 1e12 * 100e9 / 8);
    }
    double bytes = ps.goodput_gbps_mean * 8 / 8 * 1e9 * 100e-6; /* 8 hosts, 8 bits a byte, 100 us */
    if (bytes < inside * (1 - 1e-9) || bytes > overlapping * (1 + 1e-9))
        fail_msg("goodput carries %.0f bytes, outside [%.0f, %.0f]", bytes, inside, overlapping);
    sim_free(&S);
}

/* At 5% load of 1-50 KB messages the network is often idle between
 * arrivals: every flow finished, more to come. That must not end the run,
 * with either transport: every arrival drawn before stop_us happens.
 * (Sizes below 100 KB: EQDS leaves a lone flow of 131-200 KB unfinished
 * on these trees, from a .cm file too, a known problem of its own.) */
static void test_quiet_moments_do_not_end_the_run(void **state)
{
    (void)state;
    const char *tps[] = {"uet", "eqds"};
    for (unsigned k = 0; k < 2; k++) {
        const char *cdf = temp_file("1000 0\n50000 1\n", ".cdf");
        snprintf(spec_buf, sizeof spec_buf, "poisson:cdf=%s,load=0.05,n=8,stop_us=1000", cdf);
        struct config c;
        config_defaults(&c);
        c.workload_spec = spec_buf;
        c.tiers = 2;
        c.transport_name = tps[k];
        c.end_ps = 3000 * PS_PER_US;
        c.progress = false;
        sim_setup(&S, &c);
        sim_run(&S);
        assert_true(S.n_flows > 20);
        assert_int_equal(S.n_flows, S.poisson->gen.messages - 8);
        assert_int_equal(S.flows_finished, S.n_flows);
        sim_free(&S);
    }
}

/* The overlay (specs/sird.md Sec. 2.4) at a scale that fits 8 hosts: every
 * period = 5 x 20000 x 8 bits / (0.3 x 0.3 x 8 x 100 Gb/s) = 11.111 us,
 * 5 distinct senders, none the receiver, send 20000 B each to one host;
 * the background carries 0.7 of the load; overlay messages count in the
 * load but not in the slowdowns or the mean size. */
static void test_incast_overlay(void **state)
{
    (void)state;
    setup_run(WKA, ",stop_us=100,incast=0.3,incast_senders=5,incast_bytes=20000", "uet", 4, 2000, false);
    assert_int_equal(S.poisson->incast_period_ps, 11111111);
    assert_near(1e12 / S.poisson->gen.mean_gap_ps, 0.3 * 0.7 * 100e9 / 8 / S.poisson->gen.mean_bytes, 1e-12,
                "background rate");
    sim_run(&S);
    /* events at k x period for k = 1..9 (the 10th, 111.1 us, is past stop) */
    uint32_t overlay = 0, in_event = 0, dst = 0;
    uint8_t sender_seen[8] = {0};
    uint32_t sent_by[8] = {0};
    simtime_ps event_ps = 0;
    double bytes = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        const struct flow *f = &S.flows[i];
        bytes += (double)f->size_bytes;
        if (!S.poisson->is_incast || i >= S.poisson->cap_is_incast || !S.poisson->is_incast[i])
            continue;
        if (in_event == 0) {
            event_ps = f->start_ps;
            dst = f->dst;
            memset(sender_seen, 0, sizeof sender_seen);
            assert_int_equal(event_ps, (overlay / 5 + 1) * 11111111ull);
        }
        assert_int_equal(f->start_ps, event_ps);
        assert_int_equal(f->dst, dst);
        assert_int_equal(f->size_bytes, 20000);
        assert_string_equal(poisson_group_label(&S, f), "incast");
        assert_true(f->src != dst);
        assert_int_equal(sender_seen[f->src]++, 0);
        sent_by[f->src]++;
        in_event = (in_event + 1) % 5;
        overlay++;
    }
    assert_int_equal(overlay, 45);
    /* senders are random: each host sends in some event (a host is left
     * out of one event with probability 1/8 + 7/8 x 2/7 = 3/8, of all 9
     * with (3/8)^9 < 1.5e-4) */
    for (uint32_t h = 0; h < 8; h++)
        if (!sent_by[h])
            fail_msg("host %u never sent in the overlay", h);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_int_equal(ps.incast_measured, 45);
    assert_int_equal(ps.incast_delivered, 45);
    assert_int_equal(ps.measured + ps.incast_measured, S.n_flows);
    assert_int_equal(ps.all.messages, ps.measured);
    /* load over every message; the mean over the background's */
    assert_near(ps.load_achieved, bytes / (8 * 100e-6 * 100e9 / 8), 1e-9, "load with the overlay");
    /* messages per second per host: the measured background messages over 8 hosts x 100 us */
    assert_near(ps.msgs_per_s_per_host, ps.measured / (8 * 100e-6), 1e-12, "message rate per host");
    assert_near(ps.mean_bytes_generated, (bytes - 45 * 20000.0) / ps.measured, 1e-9, "background mean");
    sim_free(&S);
}

/* An incast's senders are drawn from every host but the receiver, the
 * first candidate in host order included: with one sender per event among
 * 7 candidates, the lowest-numbered host other than the receiver is the
 * sender in about 1 event of 7, and in every one of dozens of events with
 * probability below 7^-20 (issue 26: a partial shuffle that began at its
 * second slot made that host a sender of every incast, unnoticed with 5
 * senders of 7). */
static void test_incast_sender_draw_includes_the_first_candidate(void **state)
{
    (void)state;
    setup_run(WKA, ",stop_us=100,incast=0.3,incast_senders=1,incast_bytes=20000", "uet", 4, 2000, false);
    sim_run(&S);
    uint32_t events = 0, first_sent = 0;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        const struct flow *f = &S.flows[i];
        if (!S.poisson->is_incast || i >= S.poisson->cap_is_incast || !S.poisson->is_incast[i])
            continue;
        events++;
        first_sent += f->src == (f->dst == 0 ? 1u : 0u);
    }
    print_message("%u incasts, %u sent by the first candidate\n", events, first_sent);
    assert_true(events >= 20);
    assert_true(first_sent < events);
    sim_free(&S);
}

/* The measured window is [warmup, stop): a message posted exactly at the
 * warm-up's end is measured (flows.csv gives its size group), one posted
 * 1 ps before is not, nor one posted exactly at stop (docs/workloads.md,
 * poisson_group_label against account()'s tests). */
static void test_group_label_at_the_window_edges(void **state)
{
    (void)state;
    setup_run(WKA, ",warmup_us=10,stop_us=80", "uet", 3, 200, false);
    sim_run(&S);
    assert_true(S.n_flows > 0);
    struct flow f = S.flows[S.n_flows - 1];
    assert_true(f.ordinal >= S.poisson->first_flow);
    f.posted_ps = 10 * PS_PER_US;
    assert_true(poisson_group_label(&S, &f)[0] != '\0');
    f.posted_ps = 10 * PS_PER_US - 1;
    assert_string_equal(poisson_group_label(&S, &f), "");
    f.posted_ps = 80 * PS_PER_US - 1;
    assert_true(poisson_group_label(&S, &f)[0] != '\0');
    f.posted_ps = 80 * PS_PER_US;
    assert_string_equal(poisson_group_label(&S, &f), "");
    sim_free(&S);
}

/* A 2-tier run of spec_buf's Poisson workload with --switch-stats, to
 * its end: the window tests' common setup. */
static void run_switch_stats(uint64_t seed, double end_us)
{
    struct config c;
    config_defaults(&c);
    c.workload_spec = spec_buf;
    c.tiers = 2;
    c.seed = seed;
    c.end_ps = (simtime_ps)(end_us * PS_PER_US);
    c.switch_stats = true;
    c.progress = false;
    sim_setup(&S, &c);
    sim_run(&S);
}

/* A run can end before its measured window does: its last message done
 * and no arrival left before stop_us. The switches then sit empty until the
 * window's end, and their time average over the window [warmup, stop)
 * counts that tail as empty (docs/workloads.md; goodput counts it the same
 * way), so the run's window mean times the window's length (100 us) is the
 * buffered byte-time up to the run's end: what the same run cut by -end at
 * that end averages over its own, shorter window. (RPC sizes at 0.1% load,
 * seed 7: 9 messages in the window, the last done at 298.6 us.) A run over
 * before its window began has nothing in it. */
static double window_mean_tor(double end_us, simtime_ps *ended_ps, bool *end_taken)
{
    snprintf(spec_buf, sizeof spec_buf, "poisson:cdf=%s,load=0.001,n=8,warmup_us=200,stop_us=300",
             shared_path("workloads/google_all_rpc.cdf"));
    run_switch_stats(7, end_us);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_true(ps.has_switch_window);
    *ended_ps = S.now;
    *end_taken = S.poisson->end_taken;
    double mean = ps.win_mean_bytes[0];
    sim_free(&S);
    return mean;
}

static void test_switch_window_after_the_run_ended(void **state)
{
    (void)state;
    simtime_ps ended_ps, cut_ps;
    bool taken, cut_taken;
    double early = window_mean_tor(400, &ended_ps, &taken);
    print_message("ended at %.6f us, window end %s\n", (double)ended_ps / PS_PER_US, taken ? "taken" : "not reached");
    assert_false(taken);
    assert_true(ended_ps > 200 * PS_PER_US && ended_ps < 300 * PS_PER_US);
    double cut = window_mean_tor((double)ended_ps / PS_PER_US, &cut_ps, &cut_taken);
    assert_true(cut_taken);
    assert_true(cut > 0);
    double want = cut * (double)(ended_ps - 200 * PS_PER_US) / (100.0 * PS_PER_US);
    print_message("window mean %.6f bytes, the cut run's %.6f over its window: want %.6f\n", early, cut, want);
    assert_true(fabs(early - want) <= 1e-9 * want);

    /* a run over before its window begins (Hadoop sizes at 0.5% load, seed
     * 1: done at 89 us, the window 200-220 us) saw nothing in the window:
     * no buffer, no goodput, no message, not what it did before */
    snprintf(spec_buf, sizeof spec_buf, "poisson:cdf=%s,load=0.005,n=8,warmup_us=200,stop_us=220",
             shared_path("workloads/facebook_hadoop.cdf"));
    run_switch_stats(1, 300);
    assert_true(S.n_flows > 0 && S.now < 200 * PS_PER_US);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_int_equal(ps.measured, 0);
    assert_true(ps.goodput_gbps_max == 0);
    for (int t = 0; t < 2; t++) {
        assert_int_equal(ps.win_peak_bytes[t], 0);
        assert_true(ps.win_mean_bytes[t] == 0);
    }
    sim_free(&S);
}

static char *flows_csv(void)
{
    struct strbuf b;
    sb_init(&b);
    report_flows_csv(&S, &b);
    sb_printf(&b, "%s", ""); /* a NUL-terminated text even when empty */
    return b.data;
}

static void test_same_seed_same_run_other_seed_other(void **state)
{
    (void)state;
    setup_run(WKB, ",stop_us=300", "uet", 5, 2000, false);
    sim_run(&S);
    char *a = flows_csv();
    sim_free(&S);
    setup_run(WKB, ",stop_us=300", "uet", 5, 2000, false);
    sim_run(&S);
    char *b = flows_csv();
    sim_free(&S);
    setup_run(WKB, ",stop_us=300", "uet", 6, 2000, false);
    sim_run(&S);
    char *c = flows_csv();
    sim_free(&S);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    free(a);
    free(b);
    free(c);
}

/* Overlay messages are told from background ones whatever their number:
 * the count of incast messages in the summary equals the messages of the
 * overlay's size (4001 bytes, no CDF point), also past the marks' first
 * 1024 (issue 26: growing the marks to exactly the index being marked
 * lost the mark of message 1024 at the next growth; it survived). */
static void test_incast_messages_counted_past_1024(void **state)
{
    (void)state;
    setup_run(WKA, ",incast=0.9,incast_senders=7,incast_bytes=4001,stop_us=250", "uet", 3, 300, false);
    sim_run(&S);
    uint32_t first = S.poisson->first_flow, of_size = 0;
    bool at_1024 = false;
    for (uint32_t i = 0; i < S.n_flows; i++) {
        const struct flow *f = &S.flows[i];
        if (f->ordinal < first || f->posted_ps >= 250 * PS_PER_US)
            continue;
        of_size += f->size_bytes == 4001;
        at_1024 |= f->ordinal - first == 1024 && f->size_bytes == 4001;
    }
    if (!at_1024)
        fail_msg("the test wants message 1024 (of %u) to be an overlay message", S.n_flows);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_int_equal(ps.incast_measured, of_size);
    sim_free(&S);
}

/* --stream recycles the slots of retired messages oldest first, also when
 * more than the free ring's first 1024 rest at once and it grows (issue 26:
 * a grown ring that started one slot late, losing the oldest slot and
 * handing out an unwritten one, survived). A bare struct sim: the ring
 * needs only the flow table, and each flow a transport that releases it. */
static void release_nothing(struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi;
}

static void test_stream_slots_recycled_oldest_first(void **st)
{
    (void)st;
    enum { N = 1500 };
    static struct sim sim;
    memset(&sim, 0, sizeof sim);
    struct transport_ops ops = {.name = "test", .flow_release = release_nothing};
    struct flow_stream fs;
    memset(&fs, 0, sizeof fs);
    sim.fstream = &fs;
    sim.flows = xcalloc(N, sizeof *sim.flows);
    sim.n_flows = N;
    for (uint32_t i = 0; i < N; i++) {
        sim.flows[i].tp = &ops;
        sim.flows[i].state = FLOW_DONE;
        sim.flows[i].streamed = true;
    }
    /* retire in a scrambled order (a stride prime to N) */
    uint32_t order[N];
    for (uint32_t k = 0; k < N; k++) {
        order[k] = (uint32_t)((k * 7ull + 3) % N);
        flowstream_retire(&sim, order[k], 0);
        assert_int_equal(sim.flows[order[k]].state, FLOW_FREE);
    }
    assert_int_equal(fs.free_len, N);
    for (uint32_t k = 0; k < N; k++)
        assert_int_equal(flowstream_take_slot(&sim), order[k]);
    assert_int_equal(flowstream_take_slot(&sim), UINT32_MAX);
    free(fs.free_slots);
    free(sim.flows);
}

/* What sim_setup writes on stderr for a Poisson spec (8 hosts, two tiers). */
static void setup_stderr(const char *spec, struct strbuf *err)
{
    struct config c;
    config_defaults(&c);
    c.workload_spec = spec;
    c.tiers = 2;
    c.end_ps = 10 * PS_PER_US;
    c.progress = false;
    char path[64];
    snprintf(path, sizeof path, "/tmp/spraysim-test-%ld-err", (long)getpid());
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), 2);
    fclose(f);
    sim_setup(&S, &c);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    sb_init(err);
    f = fopen(path, "r");
    char line[4096];
    while (fgets(line, sizeof line, f))
        sb_printf(err, "%s", line);
    fclose(f);
    unlink(path);
    sim_free(&S);
}

/* An offered load the host links cannot carry once each packet's header
 * counts is warned about, with the factor: every message 1,000 bytes, one
 * packet of 1,000 + 64 header bytes, so load L is L x 1064 / 1000 of the
 * links; with the incast overlay (share q of the load, B-byte messages of
 * ceil(B / MSS) packets) the overlay's part is L q (B + 64 ceil(B / MSS)) / B. */
static void test_overload_warning(void **state)
{
    (void)state;
    struct config c;
    config_defaults(&c);
    assert_int_equal(c.hdr_bytes, 64);
    const char *cdf = temp_file("1000 0\n1000 1\n", ".cdf");
    char spec[600], want[600];
    struct strbuf err;
    /* 0.95 x 1.064 = 1.0108: over */
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=0.95,n=8", cdf);
    setup_stderr(spec, &err);
    snprintf(want, sizeof want, "spraysim: warning: --workload poisson: load 0.95 (payload) is 1.01 times the host links' "
             "rate once each packet's 64-byte header counts (%s: mean 1000 bytes, 1 packets per message): the backlog "
             "grows all run\n", cdf);
    assert_string_equal(err.data, want);
    sb_free(&err);
    /* 0.9 x 1.064 = 0.9576: carried, no warning */
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=0.9,n=8", cdf);
    setup_stderr(spec, &err);
    assert_string_equal(err.data, "");
    sb_free(&err);
    /* background 0.5 x 1.064 = 0.532, overlay 0.5 x (100 + 64) / 100 = 0.82: 1.352 */
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=1,n=8,incast=0.5,incast_senders=2,incast_bytes=100", cdf);
    setup_stderr(spec, &err);
    assert_non_null(strstr(err.data, "load 1 (payload) is 1.35 times the host links' rate"));
    sb_free(&err);
    /* messages of 8,173 bytes: 3 packets of the 4,086-byte MSS (4150 - 64):
     * (8173 + 3 x 64) / 8173 = 1.0235 */
    cdf = temp_file("8173 0\n8173 1\n", ".cdf");
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=1,n=8", cdf);
    setup_stderr(spec, &err);
    assert_non_null(strstr(err.data, "load 1 (payload) is 1.02 times the host links' rate once each packet's 64-byte "
                                     "header counts"));
    assert_non_null(strstr(err.data, "mean 8173 bytes, 3 packets per message"));
    sb_free(&err);
}

/* All twelve parameters at once (spec_params lists 12), each set, and a
 * thirteenth, repeated, refused as twice (issue 26, found reviewing the
 * survivor poisson.c:332: the names seen were kept in room for 11, so the
 * twelfth was written past the array; make asan reports it). */
static void test_spec_every_parameter_at_once(void **state)
{
    (void)state;
    struct poisson_spec p;
    char err[512];
    const char *all = "poisson:cdf=a.cdf,load=0.5,n=8,sampling=step,warmup_us=1,stop_us=10,bdp=1000,seed=3,"
                      "incast=0.1,incast_senders=2,incast_bytes=100,conns=2";
    if (!poisson_parse(&p, all, err, sizeof err))
        fail_msg("refused: %s", err);
    assert_string_equal(p.cdf_path, "a.cdf");
    assert_true(p.load == 0.5);
    assert_int_equal(p.nodes, 8);
    assert_true(p.step);
    assert_int_equal(p.warmup_ps, 1 * PS_PER_US);
    assert_int_equal(p.stop_ps, 10 * PS_PER_US);
    assert_int_equal(p.bdp_bytes, 1000);
    assert_true(p.has_seed);
    assert_int_equal(p.seed, 3);
    assert_true(p.incast_share == 0.1);
    assert_int_equal(p.incast_senders, 2);
    assert_int_equal(p.incast_bytes, 100);
    assert_int_equal(p.pool_conns, 2);
    char again[600];
    snprintf(again, sizeof again, "%s,conns=3", all);
    assert_false(poisson_parse(&p, again, err, sizeof err));
    assert_string_equal(err, "--workload poisson: parameter 'conns' given twice");
    snprintf(again, sizeof again, "%s,cdf=b", all);
    assert_false(poisson_parse(&p, again, err, sizeof err));
    assert_string_equal(err, "--workload poisson: parameter 'cdf' given twice");
}

/* Each host's messages are its generator's draws, in order, posted at the
 * running sum of their gaps from t = 0 (the first at its first gap): a
 * fresh generator with the run's spec, rate and seed gives the same
 * sizes, destinations and times (issue 26: the first arrival scheduled
 * from 1 ps shifted every message of the run by 1 ps unnoticed). */
static void test_arrivals_are_the_draws(void **state)
{
    (void)state;
    setup_run(WKA, ",stop_us=40", "uet", 21, 100, false);
    sim_run(&S);
    struct poisson_spec p = {.load = 0.3, .nodes = 8, .stop_ps = SIMTIME_NEVER};
    snprintf(p.cdf_path, sizeof p.cdf_path, "%s", shared_path(WKA));
    struct poisson_gen g;
    char err[512];
    if (!poisson_gen_init(&g, &p, 8, S.topo.spec.tier[0].downlink_mbps, 21, err, sizeof err))
        fail_msg("%s", err);
    uint32_t checked = 0;
    for (uint32_t h = 0; h < 8; h++) {
        simtime_ps t = 0;
        for (uint32_t i = 0; i < S.n_flows; i++) {
            const struct flow *f = &S.flows[i];
            if (f->src != h)
                continue;
            struct poisson_msg m;
            poisson_next(&g, h, &m);
            t += m.gap_ps;
            assert_int_equal(f->posted_ps, t);
            assert_int_equal(f->dst, m.dst);
            assert_int_equal(f->size_bytes, m.size_bytes);
            checked++;
        }
        /* the next draw is past stop_us: it never became a message */
        struct poisson_msg m;
        poisson_next(&g, h, &m);
        assert_true(t + m.gap_ps >= 40 * PS_PER_US);
    }
    assert_int_equal(checked, S.n_flows);
    assert_true(checked > 20);
    poisson_gen_free(&g);
    sim_free(&S);
}

/* --switch-stats in a late, short window (200 to 220 us of a 300 us run):
 * each tier's mean buffered bytes over the window is at most its peak in
 * the window (a mean of occupancies cannot pass their largest), and the
 * ToRs, which every message crosses, hold some (issue 26: the window's
 * integral taken as end + start instead of end - start, 21 times the
 * mean here, went unnoticed: the CLI test's window starts at 0). */
static void test_switch_window_mean_within_peak(void **state)
{
    (void)state;
    snprintf(spec_buf, sizeof spec_buf, "poisson:cdf=%s,load=0.5,n=8,warmup_us=200,stop_us=220", shared_path(WKA));
    run_switch_stats(5, 300);
    struct poisson_stats ps;
    poisson_collect(&S, &ps);
    assert_true(ps.has_switch_window);
    assert_true(ps.win_mean_bytes[0] > 0);
    for (uint32_t t = 0; t < 2; t++) {
        if (!(ps.win_mean_bytes[t] >= 0 && ps.win_mean_bytes[t] <= (double)ps.win_peak_bytes[t]))
            fail_msg("tier %u: window mean %.1f bytes outside [0, peak %llu]", t, ps.win_mean_bytes[t],
                     (unsigned long long)ps.win_peak_bytes[t]);
    }
    sim_free(&S);
}

/* ---- mutmw (issue 26) ------------------------------------------------------------------------ */

/* The overlay's headers count per packet: incast messages of 8,173 bytes
 * are 3 packets of the 4,086-byte MSS, so with every background message
 * 1,000 bytes (1 packet) load 1 with half of it incast is
 * 0.5 x 1064 / 1000 + 0.5 x (8173 + 3 x 64) / 8173 = 0.532 + 0.51175 =
 * 1.0437 of the links (the overlay case above has 1-packet incasts, where
 * a header count per packet and per message agree). */
static void test_overload_warning_counts_incast_packets(void **state)
{
    (void)state;
    const char *cdf = temp_file("1000 0\n1000 1\n", ".cdf");
    char spec[600];
    struct strbuf err;
    snprintf(spec, sizeof spec, "poisson:cdf=%s,load=1,n=8,incast=0.5,incast_senders=2,incast_bytes=8173", cdf);
    setup_stderr(spec, &err);
    if (!strstr(err.data, "load 1 (payload) is 1.04 times the host links' rate"))
        fail_msg("want 'is 1.04 times': %s", err.data);
    sb_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overload_warning),
        cmocka_unit_test(test_overload_warning_counts_incast_packets),
        cmocka_unit_test(test_spec_every_parameter_at_once),
        cmocka_unit_test(test_arrivals_are_the_draws),
        cmocka_unit_test(test_switch_window_mean_within_peak),
        cmocka_unit_test(test_cdf_means_of_the_shared_files),
        cmocka_unit_test(test_sampling_linear_and_step),
        cmocka_unit_test(test_cdf_mean_packets),
        cmocka_unit_test(test_cdf_errors_name_file_and_line),
        cmocka_unit_test(test_spec_parse),
        cmocka_unit_test(test_spec_ranges_at_both_ends),
        cmocka_unit_test(test_generator_load_and_mean),
        cmocka_unit_test(test_message_rates_of_seed_001),
        cmocka_unit_test(test_destinations_uniform_never_self),
        cmocka_unit_test(test_gaps_are_exponential),
        cmocka_unit_test(test_hosts_draw_apart_and_spec_seed),
        cmocka_unit_test(test_size_groups),
        cmocka_unit_test(test_end_to_end_uet),
        cmocka_unit_test(test_end_to_end_eqds),
        cmocka_unit_test(test_end_to_end_eqds_pacer_per_flow),
        cmocka_unit_test(test_incast_overlay),
        cmocka_unit_test(test_incast_sender_draw_includes_the_first_candidate),
        cmocka_unit_test(test_switch_window_after_the_run_ended),
        cmocka_unit_test(test_group_label_at_the_window_edges),
        cmocka_unit_test(test_cut_short_run_and_goodput),
        cmocka_unit_test(test_quiet_moments_do_not_end_the_run),
        cmocka_unit_test(test_same_seed_same_run_other_seed_other),
        cmocka_unit_test(test_stream_slots_recycled_oldest_first),
        cmocka_unit_test(test_incast_messages_counted_past_1024),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
