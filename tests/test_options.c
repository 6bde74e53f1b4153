/* test_options.c: the command-line parser (src/cli/options.c) called
 * directly, for what the binary's own tests (cli_test.sh, option_bounds.sh)
 * cannot show: that it reads only argv[0..argc-1] (main's argv ends in a
 * NULL, so reading one past argc looks like a missing value there, but not
 * for a caller whose array goes on), and the configuration a flag leaves
 * behind where two spellings must agree. Issue 26: mutants of these lines
 * survived every other test.
 */
#include "testutil.h"
#include "malloc_check.h"

#include <malloc.h>

#include "cc/cc.h"
#include "cli/option_table.h"
#include "cli/options.h"
#include "lb/lb.h"
#include "sim.h"
#include "transport/transport.h"

/* Parses argc entries of argv into *cfg; returns the result, err filled. */
static enum options_result parse(struct config *cfg, int argc, const char **argv, char *err, size_t errlen)
{
    err[0] = '\0';
    return options_parse(cfg, argc, (char **)argv, err, errlen);
}

/* A flag that is the last of argc entries has no value, whatever the
 * caller's array holds after it: "-end" with "42" beyond argc is an error,
 * and the same array with argc 5 takes 42. (The matrix is named, not read.) */
static void test_value_beyond_argc_is_not_read(void **state)
{
    (void)state;
    const char *argv[] = {"spraysim", "-tm", "x.cm", "-end", "42"};
    char err[256];
    struct config cfg;
    assert_int_equal(parse(&cfg, 4, argv, err, sizeof err), OPTIONS_ERROR);
    assert_non_null(strstr(err, "-end needs a value"));
    options_free(&cfg);
    assert_int_equal(parse(&cfg, 5, argv, err, sizeof err), OPTIONS_RUN);
    options_free(&cfg);
}

/* -sender_cc_algo NAME is htsim's "-sender_cc --cc NAME": the same sender
 * window setting as -sender_cc (EQDS turns its window on only for that
 * value), and the same algorithm. */
static void test_sender_cc_algo_is_sender_cc_and_cc(void **state)
{
    (void)state;
    const char *algo[] = {"spraysim", "-tm", "x.cm", "-sender_cc_algo", "nscc"};
    const char *both[] = {"spraysim", "-tm", "x.cm", "-sender_cc", "--cc", "nscc"};
    char err[256];
    struct config a, b;
    assert_int_equal(parse(&a, 5, algo, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(parse(&b, 6, both, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(a.sender_cc, b.sender_cc);
    assert_string_equal(a.cc_name, b.cc_name);
    assert_true(a.cc_given && b.cc_given);
    options_free(&a);
    options_free(&b);
}

/* The option table obeys its own rules (every start-up checks them too). */
static void test_option_table_passes_its_rules(void **state)
{
    (void)state;
    char err[256] = "";
    assert_true(option_table_check(err, sizeof err));
    assert_string_equal(err, "");
}

/* The rules refuse each kind of broken entry, naming the flag: empty or
 * missing help, a name twice, values without their syntax, a name a
 * transport owns, a --ts-* flag timeseries.c does not parse. */
static void test_option_table_check_refuses_broken_entries(void **state)
{
    (void)state;
    static const struct {
        struct option_spec entry[2];
        const char *says;
    } cases[] = {
        {{{OPT_QUIET, {"--quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "", 0}}, "--quiet has no help"},
        {{{OPT_QUIET, {"--quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, NULL, 0}}, "--quiet has no help"},
        {{{OPT_END, {"-end"}, 1, NULL, OPT_GROUP_HTSIM, NULL, NULL, "time", 0}}, "-end takes 1 values"},
        {{{OPT_QUIET, {"--quiet"}, 0, "X", OPT_GROUP_RUN, NULL, NULL, "quiet", 0}}, "--quiet takes 0 values"},
        {{{OPT_QUIET, {"--quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0},
          {OPT_CHECK, {"--check", "--quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "check", 0}},
         "--quiet has two entries"},
        {{{OPT_QUIET, {"--quiet", "--quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0}},
         "--quiet is named twice"},
        {{{OPT_QUIET, {"quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0}}, "'quiet' is no flag name"},
        {{{OPT_QUIET, {"-dcqcn"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0}}, "-dcqcn is also a transport's"},
        {{{OPT_TS, {"--ts-nothing"}, 1, "X", OPT_GROUP_OUTPUT, NULL, NULL, "series", 0}}, "--ts-nothing and src/metrics"},
        {{{OPT_QUIET, {"--ts-flows"}, 1, "X", OPT_GROUP_OUTPUT, NULL, NULL, "series", 0}}, "--ts-flows and src/metrics"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char err[256] = "";
        size_t n = cases[c].entry[1].names[0] ? 2 : 1;
        assert_false(option_table_check_entries(cases[c].entry, n, err, sizeof err));
        if (!strstr(err, cases[c].says))
            fail_msg("case %zu: '%s' lacks '%s'", c, err, cases[c].says);
    }
}

/* Every name of every entry reaches its code in options_parse: none is
 * "unknown" and none falls through to the parser's internal-error branch
 * (an entry whose id has no case there). */
static void test_every_table_name_is_parsed(void **state)
{
    (void)state;
    size_t n;
    const struct option_spec *t = option_table(&n);
    assert_true(n > 50);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < OPT_MAX_NAMES && t[i].names[k]; k++) {
            const char *argv[] = {"spraysim", "-tm", "x.cm", t[i].names[k], "1", "1"};
            char err[256];
            struct config cfg;
            parse(&cfg, 4 + (int)t[i].n_args, argv, err, sizeof err);
            if (strstr(err, "unknown flag") || strstr(err, "internal error"))
                fail_msg("%s: %s", t[i].names[k], err);
            options_free(&cfg);
        }
}

/* Every flag that takes no value refuses "--flag=VALUE" (--goal-ops=1 was
 * once accepted, its value dropped, because the list of such flags was
 * kept apart from the parser). */
static void test_every_switch_refuses_a_value(void **state)
{
    (void)state;
    size_t n;
    const struct option_spec *t = option_table(&n);
    unsigned checked = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < OPT_MAX_NAMES && t[i].names[k]; k++) {
            if (t[i].n_args || strncmp(t[i].names[k], "--", 2))
                continue;
            char flag[80], want[96];
            snprintf(flag, sizeof flag, "%s=1", t[i].names[k]);
            snprintf(want, sizeof want, "%s takes no value", t[i].names[k]);
            const char *argv[] = {"spraysim", "-tm", "x.cm", flag};
            char err[256];
            struct config cfg;
            assert_int_equal(parse(&cfg, 4, argv, err, sizeof err), OPTIONS_ERROR);
            if (!strstr(err, want))
                fail_msg("%s: '%s'", flag, err);
            options_free(&cfg);
            checked++;
        }
    assert_true(checked >= 10);
}

/* Every entry takes as many values as its syntax names: "LOW HIGH" is two,
 * "FILE" or "PKTS|inf" one, none without a syntax. The start-up rules only
 * ask that a syntax be there when values are; --help, docs/flags.md and the
 * man page print the syntax, so a count that disagrees with it would parse
 * differently from what they say (issue 26: --lb's count 1 made 2
 * survived). */
static void test_every_entry_takes_the_values_its_syntax_names(void **state)
{
    (void)state;
    size_t n;
    const struct option_spec *t = option_table(&n);
    for (size_t i = 0; i < n; i++) {
        unsigned words = 0;
        for (const char *p = t[i].args; p && *p; p++)
            words += *p != ' ' && (p == t[i].args || p[-1] == ' ');
        if (words != t[i].n_args)
            fail_msg("%s: takes %u values, its syntax '%s' names %u", t[i].names[0], t[i].n_args,
                     t[i].args ? t[i].args : "", words);
    }
}

/* A registry list as --help prints it after an entry's help. */
static const char *list_text(enum opt_list l)
{
    switch (l) {
    case OPT_LIST_TRANSPORTS:
        return transport_names();
    case OPT_LIST_CCS:
        return cc_names();
    case OPT_LIST_LBS:
        return lb_names();
    case OPT_LIST_NONE:
        break;
    }
    return NULL;
}

/* --help's layout, entry by entry in its order (group by group): two
 * spaces, the names joined by ", " and the values' syntax (the head), then
 * the help from column 24 (a head of 22 characters or more: two spaces
 * after it), each later line of the help indented to column 24, the
 * registry list after the last line, then "(default D)": at the end of
 * that line when it ends by column 100 (or a list precedes it), on a line
 * of its own at column 24 when it would end past column 100; after the
 * last group, the transports' and balancers' own flags. */
static void test_help_text_layout(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    option_help(out, HELP_TEXT);
    assert_int_equal(fclose(out), 0);
    /* the lines, in place */
    char *lines[1024];
    size_t nl = 0;
    for (char *p = text; *p && nl < 1024;) {
        lines[nl++] = p;
        char *e = strchr(p, '\n');
        if (!e)
            break;
        *e = '\0';
        p = e + 1;
    }
    assert_true(nl > 100 && nl < 1024);
    const size_t col = 24, width = 100;
    size_t n, at = 0, entries = 0, own_line = 0, same_line = 0;
    const struct option_spec *t = option_table(&n);
    for (int g = 0; g < OPT_GROUP_COUNT; g++)
        for (size_t i = 0; i < n; i++) {
            if ((int)t[i].group != g)
                continue;
            char head[128] = "";
            size_t hl = 0;
            for (unsigned k = 0; k < OPT_MAX_NAMES && t[i].names[k]; k++)
                hl += (size_t)snprintf(head + hl, sizeof head - hl, "%s%s", k ? ", " : "", t[i].names[k]);
            if (t[i].n_args)
                hl += (size_t)snprintf(head + hl, sizeof head - hl, " %s", t[i].args);
            /* the entry's first line: the next one that starts with its head */
            while (at < nl && !(!strncmp(lines[at], "  ", 2) && !strncmp(lines[at] + 2, head, hl) &&
                                lines[at][2 + hl] == ' '))
                at++;
            if (at == nl)
                fail_msg("%s: no line '  %s' in --help's order", t[i].names[0], head);
            const char *l = lines[at];
            size_t help_at = hl < col - 2 ? col : 2 + hl + 2;
            for (size_t c = 2 + hl; c < help_at; c++)
                if (l[c] != ' ')
                    fail_msg("%s: '%s': the help does not start at column %zu", head, l, help_at);
            /* the help, line by line */
            const char *h = t[i].help;
            const char *p = l + help_at;
            for (;;) {
                const char *e = strchr(h, '\n');
                size_t pl = e ? (size_t)(e - h) : strlen(h);
                if (strncmp(p, h, pl))
                    fail_msg("%s: '%s' is not its help's line '%.*s' at column %zu", head, lines[at], (int)pl, h,
                             (size_t)(p - lines[at]));
                p += pl;
                if (!e)
                    break;
                if (*p)
                    fail_msg("%s: '%s' goes on past its help's line", head, lines[at]);
                h = e + 1;
                if (++at == nl)
                    fail_msg("%s: --help ends inside its help", head);
                for (size_t c = 0; c < col; c++)
                    if (lines[at][c] != ' ')
                        fail_msg("%s: '%s' is not indented to column %zu", head, lines[at], col);
                p = lines[at] + col;
            }
            const char *list = list_text(t[i].list);
            if (list) {
                if (p[0] != ' ' || strncmp(p + 1, list, strlen(list)))
                    fail_msg("%s: '%s' lacks the list '%s' after its help", head, lines[at], list);
                p += 1 + strlen(list);
            }
            if (t[i].dflt) {
                char d[256];
                snprintf(d, sizeof d, "(default %s)", t[i].dflt);
                if (*p) { /* on the help's last line */
                    if (p[0] != ' ' || strcmp(p + 1, d))
                        fail_msg("%s: '%s' does not end in ' %s'", head, lines[at], d);
                    if (!list && strlen(lines[at]) > width)
                        fail_msg("%s: '%s' ends past column %zu: its default belongs on a line of its own", head,
                                 lines[at], width);
                    same_line++;
                } else { /* on a line of its own */
                    if (list || strlen(lines[at]) + 1 + strlen(d) <= width)
                        fail_msg("%s: its default is on a line of its own, but '%s %s' ends by column %zu", head,
                                 lines[at], d, width);
                    if (at + 1 == nl || strncmp(lines[at + 1], "                        ", col) ||
                        strcmp(lines[at + 1] + col, d))
                        fail_msg("%s: no line '%s' at column %zu after its help", head, d, col);
                    at++;
                    own_line++;
                }
            } else if (*p) {
                fail_msg("%s: '%s' goes on past its help", head, lines[at]);
            }
            at++;
            entries++;
        }
    assert_int_equal(entries, n);
    /* after the last group's last entry: the transports' and balancers'
     * own flags (transport_flags_usage), no further section */
    if (at < nl && (lines[at][0] || at + 1 == nl || strncmp(lines[at + 1], "Flags of ", 9)))
        fail_msg("after the option table's last entry: '%s' / '%s', not the first 'Flags of' section", lines[at],
                 at + 1 < nl ? lines[at + 1] : "");
    /* both placements of a default occur, so both rules were tried */
    assert_true(own_line > 0 && same_line > 0);
    free(text);
}

/* htsim's logging period sets the time series' interval: -logtime in
 * milliseconds, -logtime_us in microseconds (0.005 ms = 5 us =
 * 5,000,000 ps); an explicit --ts-interval wins over either, whichever
 * comes first. */
static void test_logtime_sets_the_interval(void **state)
{
    (void)state;
    static struct {
        int argc;
        const char *argv[8];
        unsigned long long want_ps;
    } cases[] = {
        {6, {"spraysim", "-tm", "x.cm", "-logtime", "0.005", "--no-progress"}, 5000000},
        {6, {"spraysim", "-tm", "x.cm", "-logtime_us", "5", "--no-progress"}, 5000000},
        {6, {"spraysim", "-tm", "x.cm", "-logtime", "1e-6", "--no-progress"}, 1000},
        {7, {"spraysim", "-tm", "x.cm", "--ts-interval", "2", "-logtime", "0.005"}, 2000000},
        {7, {"spraysim", "-tm", "x.cm", "-logtime_us", "5", "--ts-interval", "2"}, 2000000},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char err[256];
        struct config cfg;
        assert_int_equal(parse(&cfg, cases[k].argc, cases[k].argv, err, sizeof err), OPTIONS_RUN);
        if (cfg.ts.interval_ps != cases[k].want_ps)
            fail_msg("case %zu: interval %llu ps, want %llu", k, (unsigned long long)cfg.ts.interval_ps,
                     cases[k].want_ps);
        options_free(&cfg);
    }
}

/* An entry may have three names (OPT_MAX_NAMES) and take a value: the
 * rules read exactly its three names, never past them (the table's one
 * three-name entry, --help's, takes none, so what lies after its names
 * reads as no name). */
static void test_three_names_and_a_value_pass_the_rules(void **state)
{
    (void)state;
    static const struct option_spec t[] = {
        {OPT_SEED, {"-s", "-seed", "--seed"}, 1, "S", OPT_GROUP_HTSIM, NULL, NULL, "seed", 0},
        {OPT_QUIET, {"--quiet"}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0},
    };
    char err[256] = "";
    assert_true(option_table_check_entries(t, 2, err, sizeof err));
    assert_string_equal(err, "");
}

/* ---- mut6wk (issue 26): options_free gives back what options_parse took ---- */

/* A parse with three --cc-opt names (each strndup'd), then
 * options_free: the heap's bytes in use are what they were
 * before (glibc's mallinfo2; a first round warms up whatever is allocated
 * once). A name left behind, the first or any, shows as a difference.
 * (Under AddressSanitizer, whose allocator glibc's counters do not see,
 * both readings are equal and LeakSanitizer checks instead.) */
static void test_free_returns_every_allocation(void **state)
{
    (void)state;
    const char *argv[] = {"spraysim", "-tm", "x.cm", "--cc-opt", "alpha=1", "--cc-opt", "beta_long_name=2",
                          "--cc-opt", "alpha=3", "--cc-opt", "gamma=4"};
    const int argc = (int)(sizeof argv / sizeof argv[0]);
    char err[256];
    struct config cfg;
    assert_int_equal(parse(&cfg, argc, argv, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(cfg.n_cc_opts, 3); /* alpha's second value replaces its first */
    options_free(&cfg);
    for (int round = 0; round < 2; round++) {
        size_t before = mallinfo2().uordblks;
        assert_int_equal(parse(&cfg, argc, argv, err, sizeof err), OPTIONS_RUN);
        assert_string_equal(cfg.cc_opts[0].name, "alpha");
        assert_true(cfg.cc_opts[0].value == 3);
        assert_string_equal(cfg.cc_opts[1].name, "beta_long_name");
        assert_string_equal(cfg.cc_opts[2].name, "gamma");
        options_free(&cfg);
        assert_int_equal(cfg.n_cc_opts, 0);
        size_t after = mallinfo2().uordblks;
        if (after != before)
            fail_msg("round %d: %zu bytes in use before the parse, %zu after options_free", round, before, after);
    }
}

/* options_free frees the first n_cc_opts names and nothing past them: an
 * entry past the count is not the config's (here a string literal, which
 * free() would abort on). */
static void test_free_stops_at_the_count(void **state)
{
    (void)state;
    const char *argv[] = {"spraysim", "-tm", "x.cm", "--cc-opt", "alpha=1"};
    char err[256];
    struct config cfg;
    assert_int_equal(parse(&cfg, 5, argv, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(cfg.n_cc_opts, 1);
    cfg.cc_opts[1].name = "not the config's";
    options_free(&cfg);
    assert_int_equal(cfg.n_cc_opts, 0);
}

/* --class-opt K:NAME=VALUE refused, each with its exact message: no name
 * between ':' and '=', no '=', no class number before ':', a class number
 * of 16 characters (the 16-byte buffer holds at most 15 and the NUL), one
 * of 15 digits read as a number and refused by its range (2 to 7). */
static void class_opt_refused(const char *v, const char *want)
{
    const char *argv[] = {"spraysim", "-tm", "x.cm", "--classes", "3", "--class-opt", v};
    char err[256];
    struct config cfg;
    assert_int_equal(parse(&cfg, 7, argv, err, sizeof err), OPTIONS_ERROR);
    if (strcmp(err, want))
        fail_msg("--class-opt %s: '%s', expected '%s'", v, err, want);
    options_free(&cfg);
}

static void test_class_opt_malformed(void **state)
{
    (void)state;
    class_opt_refused("2:=5", "--class-opt: '2:=5' is not K:NAME=VALUE");
    class_opt_refused("2:trim", "--class-opt: '2:trim' is not K:NAME=VALUE");
    class_opt_refused("2trim=1", "--class-opt: '2trim=1' is not K:NAME=VALUE");
    class_opt_refused(":trim=1", "--class-opt: ':trim=1' does not start with a class number");
    class_opt_refused("1234567890123456:trim=1",
                      "--class-opt: '1234567890123456:trim=1' does not start with a class number");
    class_opt_refused("123456789012345:trim=1", "--class-opt (class): '123456789012345' is out of range (2 to 7)");
    class_opt_refused("2:trimx=1", "--class-opt: '2:trimx=1' names no class option (queue_bytes, ecn_kmin_bytes, "
                                   "ecn_kmax_bytes, trim, ecn, lossless)");
}

/* The parse's stderr (its warnings), captured in a temporary file. */
static void parse_warnings(int argc, const char **argv, char *out, size_t len)
{
    char path[64], err[256];
    snprintf(path, sizeof path, "/tmp/spraysim-test-%ld-warn", (long)getpid());
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), 2);
    fclose(f);
    struct config cfg;
    enum options_result r = parse(&cfg, argc, argv, err, sizeof err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_int_equal(r, OPTIONS_RUN);
    options_free(&cfg);
    f = fopen(path, "r");
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
    unlink(path);
}

/* -disable_fd warns that it does nothing unless the algorithm is SMaRTT:
 * smartt and smartt-fixed (both have a Fair Decrease) take it silently,
 * nscc gets the warning. */
static void test_disable_fd_warns_outside_smartt(void **state)
{
    (void)state;
    char out[1024];
    const char *smartt[] = {"spraysim", "-tm", "x.cm", "--cc", "smartt", "-disable_fd"};
    parse_warnings(6, smartt, out, sizeof out);
    assert_string_equal(out, "");
    const char *fixed[] = {"spraysim", "-tm", "x.cm", "--cc", "smartt-fixed", "-disable_fd"};
    parse_warnings(6, fixed, out, sizeof out);
    assert_string_equal(out, "");
    const char *nscc[] = {"spraysim", "-tm", "x.cm", "--cc", "nscc", "-disable_fd"};
    parse_warnings(6, nscc, out, sizeof out);
    assert_string_equal(out, "spraysim: warning: -disable_fd has no effect with --cc nscc: only SMaRTT has a Fair "
                             "Decrease (htsim_uec 40ccb05's NSCC has none)\n");
}

/* A flag name is a dash and at least one more character, without '=' or
 * a blank, of at most 63 characters (normalise_flag's 64-byte buffers):
 * 63 passes the rules, 64 does not, nor "-", "--a=b", "--a b". */
static void test_option_table_name_rules(void **state)
{
    (void)state;
    char n63[64], n64[65];
    memset(n63, 'q', sizeof n63);
    n63[0] = n63[1] = '-';
    n63[63] = '\0';
    memset(n64, 'q', sizeof n64);
    n64[0] = n64[1] = '-';
    n64[64] = '\0';
    const char *good[] = {n63, "-q"};
    for (size_t c = 0; c < sizeof good / sizeof good[0]; c++) {
        struct option_spec e[1] = {{OPT_QUIET, {good[c]}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0}};
        char err[256] = "";
        if (!option_table_check_entries(e, 1, err, sizeof err))
            fail_msg("'%s' refused: %s", good[c], err);
    }
    const char *badname[] = {n64, "-", "--a=b", "--a b"};
    for (size_t c = 0; c < sizeof badname / sizeof badname[0]; c++) {
        struct option_spec e[1] = {{OPT_QUIET, {badname[c]}, 0, NULL, OPT_GROUP_RUN, NULL, NULL, "quiet", 0}};
        char err[256] = "", want[256];
        assert_false(option_table_check_entries(e, 1, err, sizeof err));
        snprintf(want, sizeof want, "option table: '%s' is no flag name", badname[c]);
        assert_string_equal(err, want);
    }
}

/* -tm, --workload and --goal each give the workload: any two (or all
 * three) together are refused, naming two of them. */
static void test_two_workloads_refused(void **state)
{
    (void)state;
    static const struct {
        int argc;
        const char *argv[7];
        const char *want;
    } cases[] = {
        {5, {"spraysim", "-tm", "x.cm", "--workload", "perm:n=16,size=1000"},
         "-tm and --workload both give the workload: give one of them"},
        {5, {"spraysim", "-tm", "x.cm", "--goal", "x.goal"}, "-tm and --goal both give the workload: give one of them"},
        {5, {"spraysim", "--workload", "perm:n=16,size=1000", "--goal", "x.goal"},
         "--workload and --goal both give the workload: give one of them"},
        {7, {"spraysim", "-tm", "x.cm", "--workload", "perm:n=16,size=1000", "--goal", "x.goal"},
         "-tm and --goal both give the workload: give one of them"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char err[256];
        struct config cfg;
        const char *argv[7];
        memcpy(argv, cases[c].argv, sizeof argv);
        assert_int_equal(parse(&cfg, cases[c].argc, argv, err, sizeof err), OPTIONS_ERROR);
        if (strcmp(err, cases[c].want))
            fail_msg("case %zu: '%s', expected '%s'", c, err, cases[c].want);
        options_free(&cfg);
    }
}

/* -ar_method pause|pq reads PFC's pauses under adaptive routing: without
 * adaptive routing it warns of no effect, with it and PFC off it warns
 * that nothing is paused, with both (RoCE is lossless) it is silent. */
static void test_ar_method_warnings(void **state)
{
    (void)state;
    char out[1024];
    const char *no_ar[] = {"spraysim", "-tm", "x.cm", "-ar_method", "pause"};
    parse_warnings(5, no_ar, out, sizeof out);
    assert_string_equal(out, "spraysim: warning: -ar_method: has no effect without adaptive routing (-strat ecmp_ar "
                             "or --routing ar)\n");
    const char *no_pfc[] = {"spraysim", "-tm", "x.cm", "--routing", "ar", "-ar_method", "pause"};
    parse_warnings(7, no_pfc, out, sizeof out);
    assert_string_equal(out, "spraysim: warning: -ar_method pause: PFC is off in this run, so no port is ever paused "
                             "(on with --transport roce, --pfc on or --class-opt K:lossless=1)\n");
    const char *both[] = {"spraysim", "-tm", "x.cm", "--routing", "ar", "--transport", "roce", "-ar_method", "pq"};
    parse_warnings(9, both, out, sizeof out);
    assert_string_equal(out, "");
}

/* --goal-send-done match|path: match is 0 (the default), path non-zero,
 * and the last of two wins, so "path match" is match again. */
static void test_goal_send_done_values(void **state)
{
    (void)state;
    char err[256];
    struct config cfg;
    const char *none[] = {"spraysim", "--goal", "x.goal"};
    assert_int_equal(parse(&cfg, 3, none, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(cfg.goal_send_done, 0);
    options_free(&cfg);
    const char *path[] = {"spraysim", "--goal", "x.goal", "--goal-send-done", "path"};
    assert_int_equal(parse(&cfg, 5, path, err, sizeof err), OPTIONS_RUN);
    assert_true(cfg.goal_send_done != 0);
    options_free(&cfg);
    const char *back[] = {"spraysim", "--goal", "x.goal", "--goal-send-done", "path", "--goal-send-done", "match"};
    assert_int_equal(parse(&cfg, 7, back, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(cfg.goal_send_done, 0);
    options_free(&cfg);
}

/* A transport's flag given twice keeps one entry, the later, at the
 * later's place in the command-line order: the entries after the earlier
 * one move up by one. */
static void test_repeated_owned_flag_moves_to_the_end(void **state)
{
    (void)state;
    const char *argv[] = {"spraysim", "-tm", "x.cm", "-recv_oversub_cc", "-out_of_order", "-oversubscribed_cc",
                          "-recv_oversub_cc"};
    char err[256];
    struct config cfg;
    assert_int_equal(parse(&cfg, 7, argv, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(cfg.n_tp_flags, 3);
    assert_string_equal(cfg.tp_flags[0].name, "-out_of_order");
    assert_string_equal(cfg.tp_flags[1].name, "-oversubscribed_cc");
    assert_string_equal(cfg.tp_flags[2].name, "-recv_oversub_cc");
    options_free(&cfg);
}

int main(int argc, char **argv)
{
    (void)argc;
    malloc_check_reexec(argv); /* tests/malloc_check.h: heap overruns fail here too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_beyond_argc_is_not_read),
        cmocka_unit_test(test_free_returns_every_allocation),
        cmocka_unit_test(test_free_stops_at_the_count),
        cmocka_unit_test(test_class_opt_malformed),
        cmocka_unit_test(test_disable_fd_warns_outside_smartt),
        cmocka_unit_test(test_option_table_name_rules),
        cmocka_unit_test(test_two_workloads_refused),
        cmocka_unit_test(test_ar_method_warnings),
        cmocka_unit_test(test_goal_send_done_values),
        cmocka_unit_test(test_repeated_owned_flag_moves_to_the_end),
        cmocka_unit_test(test_sender_cc_algo_is_sender_cc_and_cc),
        cmocka_unit_test(test_option_table_passes_its_rules),
        cmocka_unit_test(test_option_table_check_refuses_broken_entries),
        cmocka_unit_test(test_three_names_and_a_value_pass_the_rules),
        cmocka_unit_test(test_every_table_name_is_parsed),
        cmocka_unit_test(test_every_switch_refuses_a_value),
        cmocka_unit_test(test_every_entry_takes_the_values_its_syntax_names),
        cmocka_unit_test(test_help_text_layout),
        cmocka_unit_test(test_logtime_sets_the_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
