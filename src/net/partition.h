/* partition.h: nodes to processes for parallel runs (partition.c). */
#ifndef SPRAYSIM_PARTITION_H
#define SPRAYSIM_PARTITION_H

#include <stdint.h>

struct sim;

/* The process (0 .. nparts-1) of every node, hosts first then switches, as
 * a new array; *n_pods (when not NULL) gets the number of pods found. */
uint32_t *partition_by_pods(const struct sim *s, uint32_t nparts, uint32_t *n_pods);

#endif
