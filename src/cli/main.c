/* main.c: the spraysim command: parse the flags (options.c), prepare the
 * output directory before any simulated time is spent, build and run the
 * simulation, print the summary and write the output set.
 */
#include "../metrics/report.h"
#include "../sim.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    struct config cfg;
    char err[1024];
    switch (options_parse(&cfg, argc, argv, err, sizeof err)) {
    case OPTIONS_HELP:
        options_usage(stdout);
        return 0;
    case OPTIONS_VERSION:
        printf("spraysim %s (commit %s)\n", spraysim_version, spraysim_commit);
        return 0;
    case OPTIONS_ERROR:
        die_input("%s", err);
    case OPTIONS_RUN:
        break;
    }
    /* An unusable --out is found now, not after the run it would lose. */
    struct report_out *out = cfg.out_dir ? report_out_prepare(cfg.out_dir) : NULL;

    static struct sim s;
    double t0 = now_seconds();
    sim_setup(&s, &cfg);
    sim_run(&s);
    double wall = now_seconds() - t0;
    struct run_stats r;
    report_collect(&s, wall, &r);
    if (!cfg.quiet)
        report_stdout(&s, &r);
    if (out)
        report_out_commit(out, &s, &r);
    sim_free(&s);
    options_free(&cfg);
    return 0;
}
