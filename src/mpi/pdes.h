/* pdes.h: parallel runs over MPI (pdes.c; bin/spraysim-mpi only). */
#ifndef SPRAYSIM_PDES_H
#define SPRAYSIM_PDES_H

#include <stdbool.h>

struct sim;
struct run_stats;

/* MPI_Init and this process's rank; before the flags are parsed. */
void pdes_init(int *argc, char ***argv);
/* Rank 0: the process that prints and writes the outputs. */
bool pdes_is_root(void);
/* After sim_setup: refuses what cannot run partitioned, partitions the
 * nodes and hooks the export of packets into the simulation. */
void pdes_attach(struct sim *s);
/* The windowed loop in place of sim_run. */
void pdes_run(struct sim *s);
/* report_collect over every process: rank 0's sim and *r then hold the
 * whole run's records (flows, ports, counters). Every process calls it. */
void pdes_collect(struct sim *s, double wall_s, struct run_stats *r);
void pdes_finalize(void);
/* Bad input every process found alike: rank 0 prints "spraysim: msg" on one
 * line, and every process leaves MPI and exits 2. */
_Noreturn void pdes_refuse(const char *msg);

#endif
