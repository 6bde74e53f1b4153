/* gen.h: built-in generators of the seeds' traffic patterns. Each builds a
 * struct conn_matrix in memory, the same struct the .cm reader fills, so
 * nothing after setup knows whether a workload was generated or read.
 *
 * A specification is "KIND:NAME=VALUE,NAME=VALUE,..." (the --workload
 * flag), for example
 *   incast:n=16,degree=15,size=2000000,dst=0
 *   perm:n=1024,size=2097152
 *   uneven:n=1024,size=2097152,factor=2
 *   parallel:n=128,size=2097152,count=4
 *   alltoall:n=128,size=1048576,window=4
 *   ring                    (seed 004's HSDP ring step: n=128, gpus=8)
 * README "Workload generators" lists every parameter. All randomness comes
 * from rng_seed(seed, RNG_STREAM_WORKLOAD, substream), with the run's seed
 * unless the specification gives seed=S, so the same specification and seed
 * give the same matrix.
 */
#ifndef SPRAYSIM_GEN_H
#define SPRAYSIM_GEN_H

#include "cm.h"

enum gen_kind {
    GEN_INCAST = 0,   /* degree senders -> one destination */
    GEN_PERM = 1,     /* a random derangement: every host sends one flow and receives one */
    GEN_UNEVEN = 2,   /* a permutation whose one random flow is factor times larger */
    GEN_PARALLEL = 3, /* count independent permutations at once */
    GEN_ALLTOALL = 4, /* every ordered pair once, at most window messages outstanding per sender */
    GEN_RING = 5,     /* seed 004's HSDP ring step: logical GPU i -> i + gpus (mod n) */
    GEN_KINDS = 6,
};

/* Substreams of RNG_STREAM_WORKLOAD: the generators draw from the first;
 * --random-failures from its own (it spells "failure" in ASCII), so the
 * failed links neither change with the workload nor repeat its draws. */
#define GEN_SUBSTREAM_MATRIX 0
#define GEN_SUBSTREAM_RANDOM_FAILURES 0x6661696c757265ULL

/* "random" for incast's dst */
#define GEN_RANDOM UINT32_MAX

/* Limits: hosts as the .cm reader allows; connections so that a matrix
 * stays within about a gigabyte of memory, as the reader's 1 GiB file cap
 * does; sizes to 1 TiB, so a size times an uneven factor cannot wrap. */
#define GEN_MAX_NODES (1u << 24)
#define GEN_MAX_CONNS (1u << 24)
#define GEN_MAX_SIZE_BYTES (1ull << 40)

struct gen_spec {
    uint32_t kind;            /* enum gen_kind */
    uint32_t nodes;           /* n */
    uint64_t size_bytes;      /* size: bytes of every flow (uneven: of all but the long one) */
    uint32_t degree;          /* incast: senders */
    uint32_t dst;             /* incast: destination host, or GEN_RANDOM */
    uint32_t factor;          /* uneven: the long flow carries factor x size bytes */
    uint32_t count;           /* parallel: permutations */
    uint32_t window;          /* alltoall: messages outstanding per sender (>= n-1: all at once) */
    bool order_random;        /* alltoall: each sender's destinations shuffled, else i+1, i+2, ... */
    uint32_t gpus;            /* ring: GPUs (hosts) per server */
    bool placement_host;      /* ring: each GPU on a random host, else each server on a random block */
    uint32_t podsize;         /* perm: hosts per pod; 0: any derangement, else every flow leaves its pod */
    bool has_seed;            /* seed=S given: the workload's own seed */
    uint64_t seed;
};

/* Parses and checks a specification. On error returns false with one line
 * in err, starting "--workload" and naming the parameter. */
bool gen_parse(struct gen_spec *g, const char *text, char *err, size_t errlen);
/* Kind k's name (NULL past the last kind) and, in *params, the parameters
 * it takes ("n, size, seed"), for the generated flag reference. */
const char *gen_kind_info(unsigned k, const char **params);
/* Builds the matrix of a checked specification; run_seed is used unless the
 * specification has its own seed. Connection ids are 1.. in matrix order,
 * every connection starts at 0 or on a trigger. */
void gen_build(struct conn_matrix *cm, const struct gen_spec *g, uint64_t run_seed);
/* Both at once. */
bool gen_workload(struct conn_matrix *cm, const char *text, uint64_t run_seed, char *err, size_t errlen);
/* The connections a checked specification makes. */
uint64_t gen_connections(const struct gen_spec *g);

#endif
