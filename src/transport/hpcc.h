/* hpcc.h: HPCC (Li et al., "HPCC: High Precision Congestion Control",
 * SIGCOMM 2019) as the RoCE transport's window and rate control
 * (`--transport roce -hpcc`), and the in-band network telemetry (INT) it
 * runs on.
 *
 * INT. Every egress port, when it finishes sending a data packet, appends
 * one record to the packet: the bytes queued at the port (the departing
 * packet included), the port's cumulative transmitted bytes, the time and
 * the link rate (paper Sec. 3.2, Fig. 4). The packet structure is one cache
 * line, so the records live in a side table indexed by packet index,
 * allocated only when HPCC is on; the receiver copies the data packet's
 * records into its ACK's row of the table (paper Sec. 3.2: "the receiver
 * copies the INT information to the ACK").
 *
 * Sender (paper Algorithm 1):
 *   MeasureInflight(ack): for each hop i,
 *       txRate = (ack.L[i].txBytes - L[i].txBytes) / (ack.L[i].ts - L[i].ts)
 *       u'     = min(ack.L[i].qlen, L[i].qlen) / (ack.L[i].B * T) + txRate / ack.L[i].B
 *     (a hop whose two records come from different ports, as on another
 *     path of a sprayed flow, gives no u' this time: the paper assumes one
 *     path, and two ports' txBytes do not subtract),
 *     u = the largest u', tau = that hop's ts difference, tau = min(tau, T);
 *     U = (1 - tau/T) U + (tau/T) u.  Then L = ack.L.
 *   ComputeWind(U, updateWc):
 *     U >= eta or incStage >= maxStage: W = Wc / (U/eta) + W_AI;
 *                                       if updateWc: incStage = 0, Wc = W
 *     otherwise:                        W = Wc + W_AI;
 *                                       if updateWc: incStage++, Wc = W
 *   NewAck(ack): ack.seq > lastUpdateSeq: W = ComputeWind(U, true) and
 *     lastUpdateSeq = snd_nxt (so Wc moves once per RTT); otherwise
 *     W = ComputeWind(U, false) (W tracks every ACK). Rate R = W / T.
 *   The first ACK, or one whose hop count differs from the stored one
 *   (new path), only stores its records.
 *
 * The sender keeps at most W bytes unacknowledged and paces at R (never
 * above the line rate, which its NIC cannot exceed).
 *
 * Where this departs from the reference's hpcc.cpp (read for its
 * parameters; see docs/models.md "Lossless RoCEv2"): htsim keeps the first ACK's
 * records for the whole flow rather than replacing them each ACK, takes
 * tau/T in integer picoseconds (0 until tau reaches T) and uses its window
 * as Wc. Here the paper's algorithm is followed.
 */
#ifndef SPRAYSIM_HPCC_H
#define SPRAYSIM_HPCC_H

#include "../core/core.h"

#define HPCC_ETA 0.95          /* target utilization eta (paper Sec. 5.1; htsim hpcc.cpp _eta) */
#define HPCC_MAX_STAGE 5u      /* additive-increase stages maxStage (paper Sec. 5.1; htsim hpcc.cpp _max_stages) */
#define HPCC_T_US 12.0         /* base RTT T (htsim hpcc.cpp _T = 12 us) */
#define HPCC_MAX_HOPS 8u       /* INT records a packet can carry (a 3-tier tree's path has 6 egresses) */

/* One hop's telemetry (paper Fig. 4: qLen, txBytes, ts, B). */
struct hpcc_int {
    uint64_t tx_bytes;   /* the port's transmitted bytes before this packet */
    simtime_ps ts_ps;    /* when the packet left */
    uint32_t qlen_bytes; /* bytes queued at the port, this packet included */
    uint32_t rate_mbps;  /* link rate B */
    uint32_t port;       /* the egress port that stamped it: only two samples of one port give a rate */
};

/* The side table: per packet index, a hop count and up to max_hops records. */
struct hpcc_int_table {
    uint32_t capacity;   /* packet indices covered */
    uint32_t max_hops;
    uint8_t *hops;
    struct hpcc_int *rec; /* rec[idx * max_hops + h] */
    uint32_t saved_n;     /* the receiver's copy of the data packet it is answering */
    struct hpcc_int saved[HPCC_MAX_HOPS];
};

struct hpcc_state {
    double U;              /* normalized inflight bytes (starts at eta: htsim hpcc.cpp) */
    double w_bytes;        /* W: the current window */
    double wc_bytes;       /* Wc: the reference window, updated once per RTT */
    double w_ai_bytes;     /* W_AI */
    double line_mbps;
    simtime_ps T_ps;
    uint32_t inc_stage;
    uint32_t last_update_seq; /* in packets: the snd_nxt at the last Wc update */
    uint32_t n_hops;       /* records in L; 0 before the first ACK */
    struct hpcc_int L[HPCC_MAX_HOPS];
    uint64_t wc_updates;
};

/* W = Wc = B*T (paper Sec. 3.3: W_init = B*T), W_AI = one MTU (htsim
 * hpcc.cpp: _Wai = _mss), U = eta. */
void hpcc_init(struct hpcc_state *h, double line_mbps, simtime_ps T_ps, uint32_t mtu_bytes);
/* MeasureInflight: folds one ACK's records into U and stores them as L. */
double hpcc_measure_inflight(struct hpcc_state *h, const struct hpcc_int *ack, uint32_t n);
/* ComputeWind. */
double hpcc_compute_wind(struct hpcc_state *h, double U, bool update_wc);
/* NewAck: ack_seq and snd_nxt in packets. Returns W. */
double hpcc_on_ack(struct hpcc_state *h, uint32_t ack_seq, uint32_t snd_nxt, const struct hpcc_int *ack,
                   uint32_t n);
/* R = W / T, capped at the line rate. */
double hpcc_rate_mbps(const struct hpcc_state *h);

struct sim;
/* The side table (HPCC on only; RoCE's per-run state holds it), first
 * covering packet indices below pool_capacity. */
struct hpcc_int_table *hpcc_int_new(uint32_t pool_capacity);
void hpcc_int_delete(struct hpcc_int_table *t);
/* An egress finished sending packet `idx`: append its record (data packets only). */
void hpcc_int_stamp(struct sim *s, struct hpcc_int_table *t, uint32_t port_idx, uint32_t idx, uint32_t qlen_bytes);
/* A new data packet starts with no records. */
void hpcc_int_clear(struct hpcc_int_table *t, uint32_t idx);
/* Records of packet idx (NULL and *n = 0 when it has none). */
const struct hpcc_int *hpcc_int_of(const struct hpcc_int_table *t, uint32_t idx, uint32_t *n);
/* Copies n records into packet idx's row (the receiver's ACK). */
void hpcc_int_put(struct hpcc_int_table *t, uint32_t idx, const struct hpcc_int *rec, uint32_t n);

/* ---- the RoCE transport's hooks (roce.c); the algorithm is the CC module
 * cc_hpcc_ops (cc.h), fed the ACK's records ---- */
/* The receiver is handling data packet `idx` (about to be released): keep
 * its records for the ACK it will send. */
void hpcc_int_save(struct hpcc_int_table *t, uint32_t idx);
/* The ACK `idx` was just built: give it the saved records. */
void hpcc_int_echo(struct hpcc_int_table *t, uint32_t idx);

#endif
