/* goal.h: GOAL schedules (LogGOPSim's "Group Operation Assembly Language",
 * as Schedgen and ATLAHS write them) run on the simulated fabric.
 *
 * A schedule lists, for each of num_ranks ranks, operations: send SIZE
 * bytes to a peer with a tag, recv SIZE bytes from a peer (or any, -1) with
 * a tag (or any, -1), calc for a time (nanoseconds, as ATLAHS's htsim
 * backend reads it), each on a CPU and a NIC of its rank; and dependencies
 * between a rank's operations: "a requires b" (a starts after b finished),
 * "a irequires b" (a starts after b started). The text form is Schedgen's
 * .goal; the binary form is LogGOPSim txt2bin's (Parser.hpp's layout: a
 * magic number 4223, a jump table of every rank's extent, then each rank's
 * records and their dependants). docs/goal.md describes both and the
 * execution model; the reading here is ours, written from that description.
 *
 * Execution (goal.c): an operation whose dependencies are met waits for its
 * CPU (a calc holds it for its length; sends and receives take no CPU time,
 * LogGOPSim with o = 0); a send starts a message on the run's transport from
 * the rank's host to the peer's; a message that reached its receiver is
 * matched with a posted receive of the same source and tag (MPI order:
 * receives in the order posted, messages in the order they arrived, as
 * LogGOPSim's matching queues), and the send and the receive both complete
 * then, as in ATLAHS's htsim backend (which counts a message arrived at the
 * sender's last ACK; here, when the receiver has every byte). Under
 * --goal-send-done path the send completes later, when a control packet
 * from the receiver's host could reach the sender's (the minimum one-way
 * latency), which gives parallel runs their lookahead (pdes.c). A schedule
 * that can make no more progress is reported as deadlocked, with its stuck
 * ranks.
 */
#ifndef SPRAYSIM_GOAL_H
#define SPRAYSIM_GOAL_H

#include "../core/core.h"

struct sim;
struct strbuf;

/* The binary format's operation codes (LogGOPSim Parser.hpp OPTYPE_*). */
enum goal_op_type {
    GOAL_SEND = 1,
    GOAL_RECV = 2,
    GOAL_CALC = 3,
};

/* MPI_ANY_SOURCE and MPI_ANY_TAG: "-1" in the text, UINT32_MAX in the binary. */
#define GOAL_ANY UINT32_MAX

/* Triggers at or above this id are the schedule's messages (id - base =
 * the message's connection): a transport's "receiver has every byte"
 * trigger reaches goal_delivered through sim_trigger_activate. */
#define GOAL_TRIGGER_BASE 0x80000000u

struct goal_op {
    uint64_t size;         /* bytes (send, recv) or nanoseconds (calc) */
    uint32_t rank;
    uint32_t peer;         /* send: destination rank; recv: source rank or GOAL_ANY */
    uint32_t tag;          /* or GOAL_ANY */
    uint32_t n_deps;       /* requires + irequires naming this op as the waiting one */
    uint32_t done_first;   /* succ[done_first .. +n_done): ops that require this one */
    uint32_t n_done;
    uint32_t start_first;  /* succ[start_first .. +n_start): ops that irequire this one */
    uint32_t n_start;
    uint32_t line;         /* text: its line; binary: its record number within its rank */
    uint8_t type;          /* enum goal_op_type */
    uint8_t cpu, nic;
};

struct goal_sched {
    char *name;            /* the file, for messages */
    bool binary;
    uint32_t n_ranks;
    uint32_t n_cpus, n_nics; /* largest cpu and nic used, plus one */
    uint32_t n_ops;
    struct goal_op *ops;   /* rank by rank, each rank's in file (record) order */
    uint32_t *rank_first;  /* [n_ranks + 1]: rank r's ops are rank_first[r] .. rank_first[r+1]-1 */
    uint32_t n_succ;
    uint32_t *succ;        /* dependants (global op indices) */
    uint32_t n_sends, n_recvs, n_calcs;
    bool has_wildcards;    /* some recv has source or tag -1 (or a send tag -1) */
};

/* Reads a schedule, text or binary (told apart by the magic number), and
 * checks it: ranks, peers and labels in range, no dependency cycle, every
 * receive and send able to find a partner (counts per source and tag). On
 * error returns false with one line "path:line: message" (text) or
 * "path: rank R, record K: message" (binary) in err. */
bool goal_read_file(struct goal_sched *g, const char *path, char *err, size_t errlen);
/* Same, from memory; `name` is used in messages. */
bool goal_read_buffer(struct goal_sched *g, const char *name, const unsigned char *data, size_t len, char *err,
                      size_t errlen);
void goal_sched_free(struct goal_sched *g);

/* --goal-map FILE: lines "RANK HOST [HOST ...]" (one host per NIC of the
 * schedule), '#' comments; every rank exactly once. hosts[rank * n_nics +
 * nic]. Without a map: host = rank * n_nics + nic (ATLAHS's htsim backend). */
bool goal_read_map(const struct goal_sched *g, const char *path, uint32_t *hosts, char *err, size_t errlen);

/* ---- in a run (sim.c, report.c) ---------------------------------------------------------- */

/* sim_setup with cfg.goal_path: reads the schedule and the map (exit 2 on
 * bad input) and builds s->cm: one connection per send between two hosts,
 * started by the schedule, never by time. Returns the hosts it needs. */
uint32_t goal_build_matrix(struct sim *s);
/* After the transports exist: schedules the start at t = 0. */
void goal_start(struct sim *s);
/* EV_GOAL: id = a calc that ends now, or the start. */
void goal_event(struct sim *s, uint32_t id);
/* The receiver of the schedule's connection `conn` has every byte. */
void goal_delivered(struct sim *s, uint32_t conn);
/* ---- parallel runs (src/mpi/pdes.c; --goal-send-done path) -------------------------------------- */

/* Whether every rank's hosts (one per NIC) are on one process of the
 * partition `part` (node to process); false with one line in err naming
 * the rank, its hosts and their processes. */
bool goal_check_partition(const struct sim *s, const uint32_t *part, char *err, size_t errlen);
/* From now on this process runs only its own ranks' events, and the
 * schedule's end and deadlock are decided at window ends. */
void goal_partition(struct sim *s);
/* This process's counts at a window's end: v[0] ops done here, v[1] what
 * is pending because of this process (calcs running, messages sent less
 * messages arrived, notes sent less notes heard, less ranks started),
 * v[2] the last pump here, v[3] the last op completed here (ps). */
void goal_window_counts(const struct sim *s, int64_t v[4]);
/* Every process's counts, v[0..1] summed and v[2..3] the largest: decides
 * the schedule's completion (every op done: at the last completion) or
 * deadlock (ops left, nothing pending: at the last pump, where the plain
 * run's check fires) as the plain run does within that window. */
void goal_window_end(struct sim *s, const int64_t v[4]);
/* The state the report reads, for rank 0 to sum over the processes:
 * goal_state_words() int64 values; export writes this process's ranks'
 * values and zeros for the others' (node_remote: pdes.c's), import takes
 * the sums. */
size_t goal_state_words(const struct sim *s);
void goal_state_export(const struct sim *s, const uint8_t *node_remote, int64_t *v);
void goal_state_import(struct sim *s, const int64_t *v);

/* Outputs: stdout lines, summary.json's "goal" member (with its trailing
 * ",\n"), ranks.csv and, with --goal-ops, goal_ops.csv. */
void goal_stdout(const struct sim *s);
void goal_json(const struct sim *s, struct strbuf *b);
void goal_ranks_csv(const struct sim *s, struct strbuf *b);
void goal_ops_csv(const struct sim *s, struct strbuf *b);
/* The schedule's completion time, SIMTIME_NEVER when it did not complete. */
simtime_ps goal_completion_ps(const struct sim *s);
void goal_free(struct sim *s);

#endif
