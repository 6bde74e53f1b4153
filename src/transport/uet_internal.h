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
#include "transport.h"
#include "uet.h"

static inline uint32_t mss_bytes(const struct sim *s)
{
    return s->cfg.mtu_bytes - s->cfg.hdr_bytes;
}

static inline uint32_t pkt_wire_bytes(const struct sim *s, const struct flow *f, uint32_t seq)
{
    return flow_pkt_payload(f, seq, mss_bytes(s)) + s->cfg.hdr_bytes;
}

static inline bool rcv_has(const struct flow *f, uint32_t seq)
{
    return (uet_of(f)->rcv_bits[seq >> 6] >> (seq & 63)) & 1;
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

/* uet_recovery.c */
void uet_arm_probe(struct sim *s, uint32_t fi);
void uet_probe_timer(struct sim *s, uint32_t fi);
void uet_rto_timer(struct sim *s, uint32_t fi);

#endif
