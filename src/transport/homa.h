/* homa.h: Homa (--transport homa), the receiver-driven baseline of seed 001
 * as specs/sird.md Sec. 4 describes it. The pieces that need no network
 * (options, priority cutoffs, the receiver's grant scheduler) are declared
 * here so tests can drive them directly; homa.c has the algorithm's
 * description.
 */
#ifndef SPRAYSIM_HOMA_H
#define SPRAYSIM_HOMA_H

#include "../core/core.h"
#include "../net/packet.h"

struct size_cdf;

/* sird.md Sec. 4 [HomaSim]: 8 priority levels. A level is a switch class:
 * level 0 (the highest) is spraysim's control class, which grants and
 * resends share with the highest unscheduled level, as HomaSim sends grants
 * at the highest priority. */
#define HOMA_MAX_LEVELS 8

/* Homa's own packet types (transport.h: numbered from PKT_TP_FIRST) */
enum homa_pkt_type {
    HOMA_PKT_GRANT = PKT_TP_FIRST, /* seq = cumulative packets granted, ref_seq = their priority level */
    HOMA_PKT_RESEND,               /* send packets [seq, ref_seq) again */
    HOMA_PKT_DONE,                 /* the receiver holds every byte; ts_ps = when it completed */
    HOMA_PKT_NEED_DONE,            /* sender to receiver: every packet sent, no DONE heard */
};

struct homa_params {
    uint32_t levels;          /* priority levels = switch classes used (2..8) */
    uint32_t k;               /* overcommitment: messages granted at once per receiver */
    uint32_t unsched_levels;  /* levels 0 .. unsched_levels-1 carry unscheduled data */
    uint64_t rtt_bytes;       /* RTTbytes: grant window and (by default) unscheduled prefix */
    uint64_t unsched_bytes;   /* unscheduled prefix of every message */
    bool cutoffs_given;       /* cutoffs=A:B:... on the command line; else derived */
    uint64_t cutoff_bytes[HOMA_MAX_LEVELS - 1]; /* size <= cutoff[i] -> unscheduled level <= i */
    double timeout_us;        /* resend timeout (0: no timeouts) */
    uint32_t mss_bytes;
};

/* The defaults with their sources (README "Transport: Homa"). */
void homa_params_default(struct homa_params *p, uint32_t mss_bytes);
/* Applies --homa-opt NAME=VALUE strings in order (a later NAME replaces an
 * earlier one) and checks the result. On error false, with one line naming
 * the option in err. */
bool homa_params_parse(struct homa_params *p, const char *const *opts, unsigned n_opts, char *err, size_t errlen);

/* Packets sent without a grant: those covering the first min(size,
 * unsched_bytes) bytes (whole packets, so a message of at most
 * unsched_bytes is entirely unscheduled). */
uint32_t homa_unsched_pkts(const struct homa_params *p, uint64_t size_bytes, uint32_t n_pkts);
/* Priority level of a message's unscheduled packets: 0 for sizes up to the
 * first cutoff, then one lower per cutoff passed. */
uint32_t homa_unsched_level(const struct homa_params *p, uint64_t size_bytes);
/* Level of a grant to the message ranked `rank` (0 = fewest bytes left)
 * among n_active granted messages: the shortest gets the highest scheduled
 * level; with fewer than the scheduled levels active, the lowest are used. */
uint32_t homa_sched_level(const struct homa_params *p, uint32_t rank, uint32_t n_active);

/* HomaSim's STATIC_CBF_GRADUATED cutoffs (sird.md Sec. 4): each unscheduled
 * level carries an equal share of the unscheduled bytes, min(size,
 * unsched_bytes), under the size distribution. From a CDF file's
 * distribution (linear or step sampling, as the Poisson generator reads it)
 * or from a list of sizes (a connection matrix). Writes unsched_levels - 1
 * cutoffs. */
void homa_cutoffs_from_cdf(struct homa_params *p, const struct size_cdf *c, bool step);
void homa_cutoffs_from_sizes(struct homa_params *p, const uint64_t *sizes, uint32_t n);

struct sim;
/* Payload bytes flow fi's receiver holds (ops.rcv_payload_bytes). */
uint64_t homa_rcv_payload_bytes(const struct sim *s, uint32_t fi);

/* ---- the receiver's grant scheduler (SRPT with overcommitment k) ---------------- */

#define HOMA_NOT_SCHEDULED UINT32_MAX

/* What a receiver knows of one incoming message. */
struct homa_rx_msg {
    uint64_t size_bytes;
    uint32_t n_pkts;
    uint32_t sender;          /* host */
    uint32_t id;              /* flow index: back-reference */
    uint32_t order;           /* the message's ordinal (flow.ordinal): SRPT ties, the same with --stream's recycled slots */
    uint32_t rcvd_pkts;       /* distinct packets received */
    uint32_t granted_pkts;    /* packets [0, granted) the sender may send */
    uint32_t sched_pos;       /* index in the scheduler's array, or HOMA_NOT_SCHEDULED */
};

/* A receiver's messages still needing grants, sorted by bytes left to
 * grant (then id). */
struct homa_rx_sched {
    struct homa_rx_msg **msgs;
    uint32_t n, cap;
};

struct homa_grant {
    struct homa_rx_msg *m;
    uint32_t granted_pkts;    /* the new cumulative grant */
    uint32_t level;
};

/* Adds a message in SRPT order (granted_pkts already set to its
 * unscheduled packets); one that needs no grant is not added. */
void homa_sched_add(struct homa_rx_sched *r, struct homa_rx_msg *m, uint32_t mss_bytes);
void homa_sched_remove(struct homa_rx_sched *r, struct homa_rx_msg *m);
/* One grant decision: the k messages with the fewest bytes left to grant,
 * at most one per sender, each granted up to received + RTTbytes (never
 * beyond its size). Writes the grants that advanced into out[] (room for
 * k) and returns their number; fully granted messages leave the scheduler
 * and the decision is taken again so the next message moves up
 * (`more` grants then go to the caller's next call: *again is set). */
uint32_t homa_sched_decide(struct homa_rx_sched *r, const struct homa_params *p, struct homa_grant *out, bool *again);
void homa_sched_free(struct homa_rx_sched *r);

#endif
