/* main.c: the spraysim command: parse the flags (options.c), prepare the
 * output directory before any simulated time is spent, build the
 * simulation (and write its workload with --write-cm), run it, print the
 * summary and write the output set; with --check, only build it (every
 * flag and input file checked as a run would) and exit.
 */
#include "../metrics/report.h"
#include "../metrics/flowstream.h"
#include "../sim.h"
#include "option_table.h"
#include "options.h"
#ifdef SPRAYSIM_MPI
#include "../mpi/pdes.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --write-cm: the matrix as simulated (generated or read, random failures
 * added) and the --fail specifications, written before any simulated time
 * is spent; a comment line records where it came from. */
static void write_workload(const struct sim *s, const struct config *cfg)
{
    char comment[1024], failed[96] = "", err[1200];
    if (cfg->random_failure_p > 0)
        snprintf(failed, sizeof failed, ", --random-failures %g (%u link%s)", cfg->random_failure_p,
                 s->random_failed_links, s->random_failed_links == 1 ? "" : "s");
    snprintf(comment, sizeof comment, "written by spraysim %s --write-cm from %s %s with seed %llu%s%s",
             spraysim_version, cfg->tm_path ? "-tm" : "--workload", cfg->tm_path ? cfg->tm_path : cfg->workload_spec,
             (unsigned long long)cfg->seed, failed, cfg->n_fail_specs ? " and its --fail specifications" : "");
    if (!cm_write_file(&s->cm, cfg->write_cm_path, comment, cfg->fail_specs, cfg->n_fail_specs, err, sizeof err))
        die_input("--write-cm: %s", err);
}

int main(int argc, char **argv)
{
    struct config cfg;
    char err[1024];
#ifdef SPRAYSIM_MPI
    /* bin/spraysim-mpi (README "Parallel runs (MPI)"): rank 0 prints and writes */
    pdes_init(&argc, &argv);
    bool root = pdes_is_root();
#else
    bool root = true;
#endif
    /* the option table's own rules (option_table.h), before it is used */
    if (!option_table_check(err, sizeof err))
        die_internal("%s", err);
    enum options_result parsed = options_parse(&cfg, argc, argv, err, sizeof err);
    switch (parsed) {
    case OPTIONS_HELP:
    case OPTIONS_HELP_MARKDOWN:
    case OPTIONS_HELP_MAN:
        if (root)
            option_help(stdout, parsed == OPTIONS_HELP ? HELP_TEXT : parsed == OPTIONS_HELP_MAN ? HELP_MAN : HELP_MARKDOWN);
#ifdef SPRAYSIM_MPI
        pdes_finalize();
#endif
        return 0;
    case OPTIONS_VERSION:
        if (root)
            printf("spraysim %s (commit %s)\n", spraysim_version, spraysim_commit);
#ifdef SPRAYSIM_MPI
        pdes_finalize();
#endif
        return 0;
    case OPTIONS_ERROR:
#ifdef SPRAYSIM_MPI
        pdes_refuse(err);
#endif
        die_input("%s", err);
    case OPTIONS_RUN:
        break;
    }
    static struct sim s;
    if (cfg.check_only) {
        /* --check (tools/sweep, before it runs anything): the setup reads
         * every input file and refuses what a run would refuse, with the
         * same line and exit status 2 (die_input); nothing is written */
        sim_setup(&s, &cfg);
        sim_free(&s);
        options_free(&cfg);
#ifdef SPRAYSIM_MPI
        pdes_finalize();
#endif
        return 0;
    }
    /* An unusable --out is found now, not after the run it would lose. */
    struct report_out *out = cfg.out_dir && root ? report_out_prepare(cfg.out_dir) : NULL;

    double t0 = now_seconds();
    sim_setup(&s, &cfg);
    if (cfg.write_cm_path && root)
        write_workload(&s, &cfg);
    /* --stream (default: for open-loop workloads) */
    if (cfg.stream == 1 || (cfg.stream < 0 && (s.poisson || s.goal)))
        flowstream_setup(&s, out ? report_out_path(out, "flows.csv") : NULL);
    if (out)
        report_out_attach_ts(out, &s); /* time series stream into the output set during the run */
#ifdef SPRAYSIM_MPI
    pdes_attach(&s);
    pdes_run(&s);
#else
    sim_run(&s);
#endif
    if (s.fstream && !flowstream_close(&s))
        die_internal("cannot write %s: %s", s.fstream->path, strerror(errno));
    if (!ts_finish(&s, err, sizeof err))
        die_internal("%s", err);
    double wall = now_seconds() - t0;
    struct run_stats r;
#ifdef SPRAYSIM_MPI
    pdes_collect(&s, wall, &r);
#else
    report_collect(&s, wall, &r);
#endif
    if (!cfg.quiet && root)
        report_stdout(&s, &r);
    if (out)
        report_out_commit(out, &s, &r);
    sim_free(&s);
    options_free(&cfg);
#ifdef SPRAYSIM_MPI
    pdes_finalize();
#endif
    return 0;
}
