/* uet_internal.h: what the parts of the UET transport share (uet.c
 * lifecycle and dispatch, uet_send.c the sender's sending side,
 * uet_receive.c the receiver, uet_ack.c the sender's handling of ACKs and
 * NACKs, uet_recovery.c SLEEK, probes and the retransmission timeout). Not
 * for use outside src/transport/uet*.c.
 */
#ifndef SPRAYSIM_UET_INTERNAL_H
#define SPRAYSIM_UET_INTERNAL_H

#include "../lb/lb.h"
#include "../sim.h"
#include "flow.h"
#include "pull_pacer.h"
#include "transport.h"
#include "uet.h"

/* UET's per-run state (transport_run_state): the receiver credit's, NULL
 * when receiver credit is off. */
static inline struct uet_credit_run *uet_credit_run(const struct sim *s)
{
    return transport_run_state(s, &transport_uet_ops);
}

static inline uint32_t mss_bytes(const struct sim *s)
{
    return s->cfg.mtu_bytes - s->cfg.hdr_bytes;
}

uint32_t uet_span_payload(const struct uet_flow *u, uint32_t seq, uint32_t mss);
/* The span (index into u->spans) that packet seq belongs to (spans set). */
uint32_t uet_span_of(const struct uet_flow *u, uint32_t seq);

static inline uint32_t pkt_wire_bytes(const struct sim *s, const struct flow *f, uint32_t seq)
{
    if (__builtin_expect(uet_of(f)->spans != NULL, 0)) /* several messages, each with its own last packet */
        return uet_span_payload(uet_of(f), seq, mss_bytes(s)) + s->cfg.hdr_bytes;
    return flow_pkt_payload(f, seq, mss_bytes(s)) + s->cfg.hdr_bytes;
}

/* Whether the flow's sender still runs: active, or carrying the later
 * messages of its connection after its own finished (uet_msg_pipeline). */
static inline bool uet_live(const struct flow *f)
{
    return f->state == FLOW_ACTIVE || uet_of(f)->carrying;
}

static inline bool rcv_has(const struct flow *f, uint32_t seq)
{
    return rcv_window_has(&uet_of(f)->rcv_win, uet_of(f)->rcv_cum, seq);
}

/* Flags every packet of the flow carries: a flow pinned to one path (an
 * ECMP elephant, "lb ecmp") says so, and its acknowledgements echo it, so
 * adaptive routing keeps them on their hash without looking at the flow. */
static inline uint16_t uet_flow_pkt_flags(const struct flow *f)
{
    return f->lb == &lb_single_ops ? PKTF_PINNED : 0;
}

/* The in-flight invariant stated in uet.c; O(packets outstanding). */
#ifdef SPRAYSIM_CHECKS
void uet_check_in_flight(const struct sim *s, uint32_t fi);
#else
static inline void uet_check_in_flight(const struct sim *s, uint32_t fi)
{
    (void)s;
    (void)fi;
}
#endif

/* uet.c */
void uet_flow_finish(struct sim *s, uint32_t fi);
bool uet_sender_progress(struct sim *s, uint32_t fi);
uint64_t uet_unsent_wire_bytes(const struct sim *s, uint32_t fi);

/* uet_send.c */
void uet_rtx_push(struct flow *f, uint32_t seq);
void uet_sender_wake(struct sim *s, uint32_t fi);
void uet_pace_timer(struct sim *s, uint32_t fi);
uint32_t uet_nic_pull(struct sim *s, uint32_t fi);
void uet_send_header_packet(struct sim *s, uint32_t fi, uint8_t type);

/* uet_receive.c */
void uet_receiver_on_data(struct sim *s, struct flow *f, struct packet *p);
void uet_send_state_ack(struct sim *s, struct flow *f, const struct packet *req);

/* uet_ack.c */
void uet_declare_lost(struct sim *s, struct flow *f, uint32_t seq, bool tell_cc);
void uet_sender_on_ack(struct sim *s, uint32_t fi, const struct packet *a);
void uet_sender_on_nack(struct sim *s, uint32_t fi, const struct packet *n);
void uet_sender_on_state_ack(struct sim *s, uint32_t fi, const struct packet *a);

/* uet_credit.c: receiver credit (htsim -receiver_cc, -receiver_cc_only).
 * A flow has this state (uet_of(f)->credit) exactly when the run's receiver
 * credit is on; otherwise it is NULL and none of this runs. */
struct uet_credit {
    struct pull_client rcv;  /* receiver side; first, where pull_pacer.c finds it */
    int64_t credit_bytes;    /* sender: may send while positive; a packet costs its wire size */
    int64_t pull_q;          /* the highest pull number heard */
    int64_t target_q;        /* the pull target last stamped on a packet */
    bool speculating;        /* nothing heard from the receiver yet */
};

/* The run's receiver credit, or NULL when it is off. */
struct uet_credit_run {
    struct pull_pacer_cfg cfg;
    struct pull_pacer *pacers; /* one per receiving host */
    bool window;               /* the sender's window applies too (-sender_cc) */
    int64_t maxwnd_bytes;      /* initial (speculative) credit and the most a sender holds */
};

/* Whether the sender's congestion window (and its CC's reactions) apply to
 * flow f: always without receiver credit, with it only under -sender_cc. */
static inline bool uet_window_on(const struct sim *s, const struct flow *f)
{
    return !uet_of(f)->credit || uet_credit_run(s)->window;
}

void uet_credit_setup(struct sim *s, bool window);
void uet_credit_free(struct sim *s);
void uet_credit_flow_start(struct sim *s, uint32_t fi);
/* A packet of `size` wire bytes is being sent: spends the credit and
 * stamps the pull target on it. */
void uet_credit_on_send(struct sim *s, uint32_t fi, struct packet *p, uint32_t size);
/* Wire bytes of the flow's packets waiting for retransmission. */
int64_t uet_credit_rtx_bytes(const struct sim *s, const struct flow *f);
/* The first ACK, NACK or PULL ends speculation: unspent initial credit goes. */
void uet_credit_stop_speculating(struct flow *f);
/* An ACK or NACK reached a receiver-credit sender: its CC (-sender_cc)
 * hears of it, and speculation ends. */
struct cc_ack;
struct cc_nack;
void uet_credit_on_ack(struct sim *s, struct flow *f, const struct cc_ack *ev);
void uet_credit_on_nack(struct sim *s, struct flow *f, const struct cc_nack *ev);
void uet_credit_on_pull(struct sim *s, uint32_t fi, const struct packet *p);
/* Receiver: a data packet (whole or trimmed) or an RTS of flow f arrived. */
void uet_credit_on_arrival(struct sim *s, struct flow *f, const struct packet *p);
/* Whether a timeout should ask for credit with an RTS (had_queue: packets
 * were already waiting for retransmission). */
bool uet_credit_rto_wants_rts(struct sim *s, uint32_t fi, bool had_queue, uint32_t size);
void uet_credit_timer(struct sim *s, uint32_t fi, uint32_t kind);

/* uet_recovery.c */
void uet_arm_probe(struct sim *s, uint32_t fi);
void uet_probe_timer(struct sim *s, uint32_t fi);
void uet_rto_timer(struct sim *s, uint32_t fi);

#endif
