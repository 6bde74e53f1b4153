/* failures.h: links and switches that go down, come back, slow down or get
 * longer during a run, and the delay before routing learns of it. */
#ifndef SPRAYSIM_FAILURES_H
#define SPRAYSIM_FAILURES_H

#include "../core/core.h"

struct sim;

enum link_change {
    LC_DOWN = 0,  /* the link drops everything that reaches it */
    LC_UP = 1,
    LC_RATE = 2,  /* runs at `value` Mb/s */
    LC_DELAY = 3, /* `value` ps of extra propagation delay */
    LC_MARK = 4,  /* `value` 1: ECN-mark every data packet sent ("mark"), 0: RED again ("unmark") */
};

/* One change to one direction-pair of a link (both ports). */
struct link_event {
    simtime_ps at_ps;
    uint32_t kind;     /* enum link_change */
    uint32_t port_a, port_b;
    uint64_t value;
};

/* Reads every failure from the matrix and the command line, checks it
 * against the built fabric (exit 2 with file:line or the flag on error) and
 * schedules the events. Applies -failed N at once. */
void failures_setup(struct sim *s);
/* Event handlers. */
void failures_apply(struct sim *s, uint32_t event_index);
void failures_learn(struct sim *s, uint32_t event_index);
void failures_free(struct sim *s);

/* Parses one specification ("link tor0 agg1 down at 500 up at 800",
 * "switch core3 down at 100", "link tor1 spine0 rate 200") into events
 * appended to s; returns false with a message in err. Exposed for tests. */
bool failures_parse_spec(struct sim *s, const char *spec, char *err, size_t errlen);

#endif
