/* sird.h: what the SIRD transport (sird.c) exposes beyond its ops table:
 * its parameters, the pure rules the paper states as numbers (so tests can
 * check them against seed 001's own examples), and read access to the
 * receivers' and senders' credit state for invariant tests.
 */
#ifndef SPRAYSIM_SIRD_H
#define SPRAYSIM_SIRD_H

#include "../core/core.h"
#include "../net/packet.h"

/* SIRD's own packet flags (net/packet.h's bits for the transport) */
enum sird_pkt_flag {
    SIRD_PKTF_SCHED = PKTF_TP_0, /* data: sent on credit (returns its payload as credit) */
    SIRD_PKTF_CSN = PKTF_TP_1,   /* data: sender congestion notification (its unused credit >= SThr) */
};

/* SIRD's own packet types (transport.h: numbered from PKT_TP_FIRST) */
enum sird_pkt_type {
    SIRD_PKT_CREDIT = PKT_TP_FIRST, /* receiver credit for one data packet (bytes in recvd_bytes) */
    SIRD_PKT_CREDIT_REQ,            /* a message's scheduled bytes (pull_q), asked of the receiver */
    SIRD_PKT_RESEND,                /* receiver timeout, resend packets [seq, seq + recvd_bytes) */
    SIRD_PKT_BUSY,                  /* the sender has not sent what a RESEND asked for yet (Homa's BUSY) */
    SIRD_PKT_DONE,                  /* the receiver holds every byte; ts_ps = when it completed */
    SIRD_PKT_NEED_DONE,             /* sender to receiver: every packet sent, no DONE heard */
};

struct sim;
struct flow;

enum sird_rx_policy { SIRD_RX_SRPT = 0, SIRD_RX_RR = 1 };
enum sird_prio {
    SIRD_PRIO_NONE = 0,        /* one FIFO: everything in the data class */
    SIRD_PRIO_CTL = 1,         /* CREDIT and CREDITREQ high, all data low */
    SIRD_PRIO_CTL_UNSCHED = 2, /* and unscheduled prefixes high (the default, sird.md Sec. 1.7) */
};

/* Every SIRD parameter (sird.md Sec. 1.3 and 7); bytes are payload bytes
 * (sird.md A3), except nthr_bytes, a switch queue (wire bytes). */
struct sird_params {
    uint64_t bdp_bytes;       /* the SIRD unit "BDP" */
    uint64_t b_bytes;         /* B, the receiver's global credit bucket */
    uint64_t bkt_max_bytes;   /* per-sender bucket maximum (and start) */
    uint64_t bkt_min_bytes;   /* per-sender bucket floor */
    uint64_t unscht_bytes;    /* UnschT */
    uint64_t sthr_bytes;      /* SThr; UINT64_MAX = infinite (csn never set) */
    uint64_t nthr_bytes;      /* NThr, ECN step threshold on every switch port */
    double g;                 /* DCTCP gain of both AIMD loops */
    uint64_t ai_bytes;        /* additive increase per window */
    double alpha0;            /* initial alpha */
    bool pacing;              /* credits paced at the downlink's data rate */
    double pace_factor;       /* pacing rate = line rate x pace_factor */
    uint8_t rx_policy;        /* enum sird_rx_policy */
    double tx_fair_share;     /* share of scheduled uplink bytes sent round robin over receivers */
    uint8_t prio;             /* enum sird_prio */
    bool trimming;            /* switches trim SIRD data (off: the paper has no trimming) */
    double rx_timeout_rtts;   /* receiver timeout, in base RTTs */
    uint32_t max_timeouts;    /* a message is abandoned after this many timeouts in a row */
    double bkt_idle_reset_rtts; /* a pair silent this long (no credit out) restarts its buckets; 0 = never */
    uint32_t mss_bytes;
    uint32_t hdr_bytes;
};

/* sird.md Sec. 7 defaults for a run with `mss` payload bytes per packet. */
void sird_params_default(struct sird_params *p, uint32_t mss_bytes, uint32_t hdr_bytes);
/* Applies one "NAME=VALUE" (--sird-opt); false with a one-line reason in err. */
bool sird_params_apply(struct sird_params *p, const char *opt, uint64_t run_bdp_bytes, char *err, size_t errlen);

/* ---- the paper's rules, pure ---------------------------------------------------- */

/* Unscheduled prefix of a message (sird.md Sec. 1.4, P Sec. 3): min(BDP,
 * size) when size <= UnschT, else 0. */
uint64_t sird_unsched_bytes(uint64_t size_bytes, uint64_t unscht_bytes, uint64_t bdp_bytes);
/* The same rounded up to whole packets, as sird.c sends it. */
uint32_t sird_unsched_pkts(uint64_t size_bytes, const struct sird_params *p);
/* Alg. 1 ln 9-10: a credit of `credit` bytes may be issued to a sender
 * holding sb of a bucket `bkt` while the receiver has b of B out. */
bool sird_eligible(uint64_t b, uint64_t b_max, uint64_t sb, uint64_t bkt, uint64_t credit);
/* Alg. 2 ln 8: the csn bit for a sender holding C unused credit. */
bool sird_csn(uint64_t c_bytes, uint64_t sthr_bytes);

/* One AIMD loop (sird.md Sec. 1.5 step 3, DCTCP form). */
struct sird_aimd {
    double alpha;
    uint64_t bkt_bytes;
    uint64_t win_bytes;
    uint64_t win_marked_bytes;
};
void sird_aimd_init(struct sird_aimd *a, const struct sird_params *p);
void sird_aimd_update(struct sird_aimd *a, uint32_t payload_bytes, bool marked, const struct sird_params *p);

/* ---- state, for tests -------------------------------------------------------------- */

struct sird_rx_view {
    uint64_t b_bytes;          /* credit out and not returned */
    uint64_t sum_sb_bytes;     /* sum over senders of their outstanding credit */
    uint64_t credits_sent;
    uint64_t credit_bytes_total;
};
/* Receiver host h's credit state (zeros when it never received). */
struct sird_rx_view sird_rx_state(const struct sim *s, uint32_t h);
/* Receiver dst's view of sender src: outstanding credit and both buckets. */
bool sird_peer_state(const struct sim *s, uint32_t dst, uint32_t src, uint64_t *sb, uint64_t *sender_bkt,
                     uint64_t *net_bkt);
/* Sender host h's unused credit summed over its receivers (C). */
uint64_t sird_tx_credit(const struct sim *s, uint32_t h);
/* The run's parameters (NULL when SIRD is not set up). */
const struct sird_params *sird_params_of(const struct sim *s);
/* Payload bytes flow f's receiver holds (for goodput). */
uint64_t sird_received_payload(const struct flow *f);
/* Counters over the run: data packets with csn set, CE set, unscheduled. */
void sird_counts(const struct sim *s, uint64_t *csn_pkts, uint64_t *ce_pkts, uint64_t *unsched_pkts);

#endif
