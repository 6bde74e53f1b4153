/* single.c: one path per flow. Every packet carries entropy 0, so the
 * switches' hash of (flow, entropy) pins the flow to one ECMP path for its
 * life: the classic per-flow ECMP baseline (-paths 1 behaves the same with
 * any balancer).
 */
#include "lb.h"

struct single_state {
    uint8_t unused;
};

static void single_init(void *state, const struct lb_params *p)
{
    (void)state;
    (void)p;
}

static uint16_t single_next(void *state, uint32_t seq, simtime_ps now)
{
    (void)state;
    (void)seq;
    (void)now;
    return 0;
}

static void single_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    (void)state;
    (void)ev;
    (void)sig;
    (void)now;
}

const struct lb_ops lb_single_ops = {
    .name = "single",
    .description = "one path per flow (per-flow ECMP)",
    .state_size = sizeof(struct single_state),
    .init = single_init,
    .next_entropy = single_next,
    .feedback = single_feedback,
};
