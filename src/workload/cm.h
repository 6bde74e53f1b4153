/* cm.h: connection matrices in the reference simulator's .cm format.
 *
 *   Nodes 16
 *   Connections 2
 *   Triggers 1
 *   0->13 id 1 start 0 size 2000000 send_done_trigger 1
 *   13->0 id 2 trigger 1 size 250000
 *   trigger id 1 oneshot
 *
 * Header lines (Nodes, Connections, Triggers, Failures) come first; then
 * connection lines "SRC->DST key value ...", trigger lines and failure
 * lines. Keys: start (microseconds, may be fractional), size (bytes),
 * id, trigger, send_done_trigger, recv_done_trigger, prio, msg, and
 * spraysim's lb NAME (per-connection load balancer, e.g. "lb ecmp" for an
 * ECMP flow among sprayed ones), transport NAME (per-connection transport)
 * and class 0|1 (switch traffic class). Lines that share an explicit id
 * are the messages of one connection (htsim's -conn_reuse), in file order
 * (UET pipelines them, the others start one after another: docs/workloads.md
 * "Messages over connections"). Counts in the header must match the body.
 * Every error names file:line.
 */
#ifndef SPRAYSIM_CM_H
#define SPRAYSIM_CM_H

#include "../core/core.h"

#define CM_NO_TRIGGER UINT32_MAX
#define CM_NO_MSG UINT32_MAX

enum trigger_type {
    TRIGGER_ONESHOT = 0,   /* fires all its waiting connections on the first activation */
    TRIGGER_MULTISHOT = 1, /* each activation starts the next waiting connection, in file order */
    TRIGGER_BARRIER = 2,   /* fires all waiting connections after `count` activations */
};

struct cm_trigger {
    uint32_t id;
    uint32_t type;         /* enum trigger_type */
    uint32_t count;        /* barrier: activations needed */
    unsigned line;
};

enum failure_target {
    FAILURE_TOR = 0,
    FAILURE_AGG = 1,
    FAILURE_CORE = 2,
};

/* "failure switch_type AGG switch_id S link_id L" in the reference format.
 * Parsed and validated here; applied by the failure model. */
struct cm_failure {
    uint32_t switch_type;  /* enum failure_target */
    uint32_t switch_id;
    uint32_t link_id;
    unsigned line;
    /* spraysim's own grammar ("failure link tor0 agg1 down at 500", see
     * docs/models.md "Failures"): the words after "failure", parsed against the
     * topology by src/topo/failures.c. NULL for the reference form above. */
    char *spec;
};

struct cm_conn {
    uint32_t src, dst;
    uint32_t id;               /* from the file, or 1-based position when absent */
    bool has_id;
    uint64_t size_bytes;
    simtime_ps start_ps;       /* SIMTIME_NEVER when started by a trigger */
    uint32_t start_trigger;    /* trigger id, or CM_NO_TRIGGER */
    uint32_t send_done_trigger;/* trigger id, or CM_NO_TRIGGER */
    uint32_t recv_done_trigger;/* trigger id, or CM_NO_TRIGGER */
    int64_t prio;              /* parsed, recorded, not used by the transport */
    uint32_t msg;              /* "msg M": the message's own number; 0 when absent or bare ("msg" alone) */
    /* Lines sharing an explicit id are the messages of one connection, in
     * file order: the previous and next message's index (CM_NO_MSG: none),
     * and this one's 1-based position on its connection. */
    uint32_t msg_prev, msg_next;
    uint32_t msg_index;
    char lb[16];               /* "lb NAME": this connection's load balancer ("" = the run's) */
    char transport[16];        /* "transport NAME": this connection's transport ("" = the run's) */
    uint8_t tclass;            /* "class 0|1": switch traffic class for DRR; CM_CLASS_AUTO when absent */
    uint8_t prio_class;        /* "priority K": the switch class of its data packets (1 = data, the default) */
    unsigned line;
};
#define CM_CLASS_AUTO 0xff

struct conn_matrix {
    uint32_t nodes;
    uint32_t n_conns;
    struct cm_conn *conns;
    uint32_t n_triggers;
    struct cm_trigger *triggers;
    uint32_t n_failures;
    struct cm_failure *failures;
};

/* Reads and validates a .cm file. On error returns false and writes one
 * line "path:line: message" (or "path: message") into err. */
bool cm_read_file(struct conn_matrix *cm, const char *path, char *err, size_t errlen);
/* Same, from a memory buffer; `name` is used in messages. */
bool cm_read_buffer(struct conn_matrix *cm, const char *name, const char *text, char *err, size_t errlen);
void cm_free(struct conn_matrix *cm);
/* Index of the trigger with this id, or UINT32_MAX. */
uint32_t cm_trigger_index(const struct conn_matrix *cm, uint32_t trigger_id);

struct strbuf;
/* The matrix as .cm text in the reference simulator's format (cm_write.c):
 * a "# comment" line when comment is not NULL, the headers, connections,
 * triggers, the matrix's failure lines, then "failure SPEC" for each of
 * the n_extra extra_failures (spraysim's --fail specifications). Reading
 * it back gives the same matrix, line numbers aside. */
void cm_format(const struct conn_matrix *cm, const char *comment, const char *const *extra_failures, unsigned n_extra,
               struct strbuf *out);
/* The same, written atomically to path; false with the reason in err. */
bool cm_write_file(const struct conn_matrix *cm, const char *path, const char *comment,
                   const char *const *extra_failures, unsigned n_extra, char *err, size_t errlen);

#endif
