/* flowstream.h: bounded memory for long message workloads (--stream).
 *
 * A finished message's flows.csv row is written as soon as every message
 * before it (in creation order) is written too, so the file is the same,
 * byte for byte, as the one written from memory at the end; what the
 * summary needs of it (its FCT, and the open-loop statistics) is kept as a
 * few numbers. Its slot in the flow table is then recycled for the next
 * message created during the run, when its transport can release a flow
 * (transport_ops.flow_release), so memory follows the active messages, not
 * the whole workload. Packets and timers still addressed to a recycled slot
 * carry its old generation and are discarded on arrival (transport.c).
 */
#ifndef SPRAYSIM_FLOWSTREAM_H
#define SPRAYSIM_FLOWSTREAM_H

#include "../core/core.h"
#include "vcollect.h"

#include <stdio.h>

struct sim;

struct flow_stream {
    FILE *out;            /* flows.csv in the output's staging directory; NULL without --out */
    char *path;
    bool recycle;         /* open-loop flows' slots are reused (every transport in use can release them) */
    /* reorder buffer: rows of finished messages not written yet, by
     * ordinal: rows[(ordinal) & (cap - 1)] for ordinals next_ordinal .. */
    char **rows;
    uint32_t cap;
    uint32_t next_ordinal;   /* the first message whose row is not written */
    uint64_t rows_pending;   /* rows held (finished, waiting for an earlier message) */
    /* recycled slots, oldest first (a slot rests as long as possible before reuse) */
    uint32_t *free_slots;
    uint32_t free_head, free_len, free_cap;
    /* what the summary needs of retired messages */
    struct vcollect fct_us;  /* FCTs of retired messages (exact, or a sketch with --quantiles sketch) */
    unsigned __int128 fct_sum_ps; /* their sum: an exact mean whatever the order */
    uint64_t retired;        /* messages retired */
    uint64_t recycled;       /* slots reused */
    uint64_t stale_timers;
    uint64_t retire_deferred; /* retire events that found a packet made since, or the slot gone */   /* timers of a recycled slot's earlier message, ignored */
};

/* Starts streaming for the run (after transport_setup): path is flows.csv in
 * the staging directory, or NULL to keep no rows. */
void flowstream_setup(struct sim *s, const char *path);
/* Message fi is finished at both ends: its row and statistics are kept, and
 * its slot is recycled at the next event (never under a transport's feet). */
void flowstream_finished(struct sim *s, uint32_t fi);
/* A streamed message's last packet left the network: its slot is recycled
 * at the next event (when the transport can release it). */
void flowstream_quiet(struct sim *s, uint32_t fi);
/* The retire event (gen_then: the slot's generation when it was queued):
 * releases the slot unless the message made a packet since. */
void flowstream_retire(struct sim *s, uint32_t fi, uint32_t gen_then);
/* A free slot for a new open-loop message, or UINT32_MAX. */
uint32_t flowstream_take_slot(struct sim *s);
/* At the end: writes the rows of the messages still active and closes the
 * file (false with errno set when writing failed). */
bool flowstream_close(struct sim *s);
void flowstream_free(struct sim *s);

#endif
