/* pfc.h: Priority Flow Control (IEEE 802.1Qbb) on the data class, as the
 * reference simulator's lossless queues model it (htsim LosslessInputQueue,
 * main_roce.cpp; reference-simulator.md "RoCEv2 with PFC").
 *
 * Every switch counts, per ingress link and data class (1 .. 7), the data
 * bytes of that class that arrived on it and are still buffered anywhere in
 * the switch (from port_enqueue until their serialisation ends). Above the
 * high threshold it sends a PAUSE for that class to the upstream end of the
 * link, below the low threshold a RESUME; each takes the link's latency to
 * act. A paused switch port finishes the packet on the wire and starts no
 * new packet of a paused class (other classes and control still go); a host
 * NIC, which cannot tell the class of the packet its transport would give
 * it, starts no data at all while any class is paused. The switch queues of
 * a PFC run have no limit, so nothing is dropped or trimmed.
 *
 * Mixed fabric (--class-opt K:lossless=1): PFC counts, pauses and resumes
 * only the classes marked lossless (class_mask); only those have no limit.
 * The other data classes keep their limits, trimming and drops, and are
 * never paused at a switch port (a host NIC still stops all its data while
 * any class is paused, as above).
 *
 * All state lives in struct pfc_run (s->pfc, NULL when PFC is off), so runs
 * without PFC pay one predictable branch per data packet per hop.
 *
 * Deadlock: a cycle of paused ports, each waiting on a switch whose own
 * paused egress holds data, and no PAUSE or RESUME anywhere for
 * --pfc-deadlock-us, is reported on stderr and in summary.json and ends the
 * run (rather than running to -end with nothing moving).
 */
#ifndef SPRAYSIM_PFC_H
#define SPRAYSIM_PFC_H

#include "../core/core.h"

struct sim;

struct pfc_port_stats {
    uint64_t pauses_sent;      /* PAUSE frames this port's switch sent out of it (upstream) */
    uint64_t pauses_received;  /* PAUSE frames that stopped this port */
    simtime_ps paused_ps;      /* total time this port was paused */
};

/* Per (port, class) arrays are indexed port * PFC_CLASSES + class. */
#define PFC_CLASSES 8

struct pfc_run {
    uint32_t low_bytes, high_bytes;
    uint32_t class_mask;       /* bit c: data class c is lossless (counted, paused); all data classes unless a
                                * mixed fabric marks some (--class-opt K:lossless=1) */
    uint32_t *ingress_bytes;   /* [upstream port, class]: bytes that crossed the link, still in the downstream switch */
    uint8_t *pause_sent;       /* [upstream port, class]: the downstream switch has paused it (XOFF state) */
    uint8_t *paused_mask;      /* [port]: bit c set = class c is paused (PORTF_PAUSED = any bit) */
    uint32_t *reverse_port;    /* [port]: the port of the same link in the other direction */
    simtime_ps *paused_since;  /* [port]: when the current pause began */
    struct pfc_port_stats *st; /* [port] */
    uint64_t pauses_by_class[PFC_CLASSES]; /* PAUSE frames sent, by class */
    uint32_t n_paused;         /* ports paused now */
    simtime_ps last_change_ps; /* last PAUSE or RESUME that acted */
    simtime_ps deadlock_ps;
    bool check_pending;
    bool deadlock;             /* a deadlock was found (the run stopped) */
    simtime_ps deadlock_at_ps;
    uint32_t deadlock_cycle_ports; /* ports in the cycle found */
    uint32_t *deadlock_cycle;  /* [deadlock_cycle_ports]: its ports, each waiting on the next (the last on the first) */
};

/* "spine0->tor2": a port named by its two ends, as --fail names nodes. */
void pfc_port_name(const struct sim *s, uint32_t port, char *buf, size_t len);

/* Enables PFC on the built fabric when s->cfg.pfc (no-op otherwise). */
void pfc_setup(struct sim *s);
void pfc_free(struct sim *s);
/* A data packet of class `cls` that arrived over the link from
 * `ingress_port` was queued at a switch. */
void pfc_on_enqueue(struct sim *s, uint32_t ingress_port, uint32_t cls, uint32_t bytes);
/* A data packet of class `cls` that arrived over the link from
 * `ingress_port` left its switch (serialised, or dropped by a failure). */
void pfc_on_dequeue(struct sim *s, uint32_t ingress_port, uint32_t cls, uint32_t bytes);
/* The EV_PFC event: aux = kind + 4 x class: a PAUSE or RESUME of that
 * class reaches port `id`, or the deadlock check. */
void pfc_event(struct sim *s, uint32_t id, uint32_t aux);
/* Brings the paused-time counters up to now (before reading stats). */
void pfc_close_stats(struct sim *s);

/* Whether PFC acts on data class cls (s->pfc must be set). */
#define pfc_class_on(s, cls) (((s)->pfc->class_mask >> (cls)) & 1u)

enum pfc_event_kind { PFC_RESUME = 0, PFC_PAUSE = 1, PFC_CHECK = 2 };
/* The EV_PFC aux of a PAUSE or RESUME of class cls. */
#define PFC_AUX(kind, cls) ((uint32_t)(kind) + 4u * (cls))

#endif
