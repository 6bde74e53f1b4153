/* option_table.h: every flag of the command line, once. The parser
 * (options.c) looks each argument up here, so a flag without an entry
 * cannot be parsed; --help, the generated flag reference (docs/flags.md,
 * `spraysim --help-format=markdown`) and the man page (man/spraysim.1,
 * `--help-format=man`) are all printed from the same entries, so none of
 * them can drift from what the parser accepts. Flags a transport or a load
 * balancer owns stay in its own table (transport.h struct transport_flag)
 * and are printed from the registries next to these.
 *
 * Adding a flag: one enum value below (what the parser switches on), one
 * entry in option_table.c's table, and its case in options.c. An entry with
 * empty help, a name twice or a name a transport also owns fails
 * option_table_check(), which every start-up runs.
 */
#ifndef SPRAYSIM_OPTION_TABLE_H
#define SPRAYSIM_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What the parser does with a flag: one value per behaviour (aliases such
 * as -seed and --seed share one). */
enum opt_id {
    OPT_HELP,
    OPT_HELP_FORMAT,
    OPT_VERSION,
    OPT_TM,
    OPT_TOPO,
    OPT_END,
    OPT_NODES,
    OPT_TIERS,
    OPT_LINKSPEED,
    OPT_MTU,
    OPT_Q,
    OPT_ECN,
    OPT_CWND,
    OPT_PATHS,
    OPT_SEED,
    OPT_SENDER_CC_ONLY,
    OPT_SENDER_CC,
    OPT_RECEIVER_CC_ONLY,
    OPT_RECEIVER_CC,
    OPT_SENDER_CC_ALGO,
    OPT_USE_REPS,
    OPT_LB,
    OPT_DISABLE_TRIM,
    OPT_SLEEK,
    OPT_FAILED,
    OPT_TARGET_Q_DELAY,
    OPT_QA_GATE,
    OPT_HOP_LATENCY,
    OPT_SWITCH_LATENCY,
    OPT_SACK_THRESHOLD,
    OPT_PFC_THRESHOLDS,
    OPT_OUT,
    OPT_CONN_REUSE,
    /* htsim_uec flags with an equivalent, a warning or a "not modelled"
     * refusal: every id from OPT_HTSIM_FIRST to OPT_HTSIM_LAST is parsed by
     * options.c parse_htsim_flag (its value, if any, already taken); a new
     * one goes between them */
    OPT_TRIMSIZE,
    OPT_HTSIM_FIRST = OPT_TRIMSIZE,
    OPT_STRAT,
    OPT_LOG,
    OPT_LOGTIME,
    OPT_LOGTIME_US,
    OPT_O,
    OPT_QUEUE_TYPE,
    OPT_HOST_QUEUE_TYPE,
    OPT_PLANES,
    OPT_AR_METHOD,
    OPT_AR_GRANULARITY,
    OPT_AR_STICKY_DELTA,
    OPT_CONNS,
    OPT_PCIE,
    OPT_DISABLE_FD,
    OPT_ENABLE_QA_GATE,
    OPT_DEBUG,
    OPT_HTSIM_LAST = OPT_DEBUG,
    /* native flags */
    OPT_WORKLOAD,
    OPT_GOAL,
    OPT_GOAL_MAP,
    OPT_GOAL_OPS,
    OPT_WRITE_CM,
    OPT_RANDOM_FAILURES,
    OPT_TRANSPORT,
    OPT_CC,
    OPT_CC_OPT,
    OPT_Q3_PRESSURE,
    OPT_ROUTING,
    OPT_AR_QUANTUM,
    OPT_SCHED,
    OPT_DRR_QUANTUM,
    OPT_FAIL,
    OPT_DETECT_US,
    OPT_MIN_RTO_US,
    OPT_AGGRESSIVE_RTO,
    OPT_REROUTE,
    OPT_HTSIM_OUTPUT,
    OPT_SWITCH_STATS,
    OPT_LOSS_DETECT,
    OPT_CLASSES,
    OPT_CLASS_OPT,
    OPT_MSG_CC,
    OPT_TRIGGER_DELAY,
    OPT_GOAL_SEND_DONE,
    OPT_QUANTILES,
    OPT_STREAM,
    OPT_PFC,
    OPT_PFC_DEADLOCK_US,
    OPT_TS, /* --ts-*: parsed by src/metrics/timeseries.c */
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_PROGRESS_EVERY,
    OPT_QUIET,
    OPT_CHECK,
};

/* Where a flag is listed (--help's sections, in this order). */
enum opt_group {
    OPT_GROUP_HTSIM,    /* the reference simulator's flags, same meaning and units */
    OPT_GROUP_HTSIM_COMPAT, /* the rest of htsim_uec's: an equivalent, a warning, or "not modelled" */
    OPT_GROUP_WORKLOAD, /* what runs */
    OPT_GROUP_MODEL,    /* transports, congestion control, balancers, switches, failures */
    OPT_GROUP_OUTPUT,   /* what is written */
    OPT_GROUP_RUN,      /* how the run reports itself */
    OPT_GROUP_COUNT,
};

/* A registry list printed after an entry's help (the names as the registry
 * holds them, so a new transport, algorithm or balancer is listed without
 * touching the table). */
enum opt_list {
    OPT_LIST_NONE,
    OPT_LIST_TRANSPORTS,
    OPT_LIST_CCS,
    OPT_LIST_LBS,
};

#define OPT_MAX_NAMES 3

struct option_spec {
    enum opt_id id;
    const char *names[OPT_MAX_NAMES]; /* as typed; the first is the main one, the rest aliases (unused: NULL) */
    unsigned n_args;                  /* values that follow: 0, 1 or 2 */
    const char *args;                 /* their syntax, e.g. "FILE", "LOW HIGH" (NULL when n_args is 0) */
    enum opt_group group;
    const char *units;                /* of the value, e.g. "us", "packets" (NULL: none or in the syntax) */
    const char *dflt;                 /* the default, printed as "(default DFLT)" (NULL: none) */
    const char *help;                 /* one line or more ('\n' breaks --help's lines; the docs join them) */
    enum opt_list list;               /* a registry list printed after help */
};

/* The table, in --help's order within each group. */
const struct option_spec *option_table(size_t *n);
/* The entry with name `name` (any alias), or NULL. */
const struct option_spec *option_find(const char *name);
/* The table's own rules: names start with '-', none twice, none a
 * transport's or balancer's flag too, help never empty, args given iff
 * values are. false with one line in err. */
bool option_table_check(char *err, size_t errlen);
/* The same rules for any table (the tests give it broken ones). */
bool option_table_check_entries(const struct option_spec *t, size_t n, char *err, size_t errlen);

/* The three renderings of the table and the registries. */
enum help_format {
    HELP_TEXT,     /* --help */
    HELP_MARKDOWN, /* docs/flags.md */
    HELP_MAN,      /* man/spraysim.1 */
};
void option_help(FILE *out, enum help_format fmt);

#endif
