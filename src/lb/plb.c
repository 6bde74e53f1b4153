/* plb.c: PLB, Protective Load Balancing (Qureshi et al., SIGCOMM 2022; Linux
 * net/ipv4/tcp_plb.c), the repathing scheme seed 003 compares REPS against
 * (Swift+PLB, seeds-figures.md Sec. 1.5): a flow keeps one path (one entropy)
 * and moves to a fresh random one after `rehash_rounds` consecutive
 * congested rounds, a round being one base RTT and congested when at least
 * `cong_thresh` of its ACKs carried ECN. A timeout moves the flow at once,
 * then congestion-based moves pause for `suspend_us` (Linux's
 * plb_suspend_rto_sec, which is about not chasing a failed link back and
 * forth). Linux's defaults: 12 rounds, a threshold of 128/256 = 50%, a
 * 60 s suspension. Usable with any congestion control: it only decides the
 * entropy. With -paths 1 every balancer is one path, PLB too.
 */
#include "lb.h"

/* Linux net/ipv4/sysctl_net_ipv4.c defaults: tcp_plb_rehash_rounds = 12,
 * tcp_plb_cong_thresh = 128 (of 256), tcp_plb_suspend_rto_sec = 60. */
#define PLB_REHASH_ROUNDS 12
#define PLB_CONG_THRESH 0.5
#define PLB_SUSPEND_PS (60 * PS_PER_S)

struct plb_state {
    struct rng rng;
    uint32_t paths;
    uint16_t ev;              /* the path in use */
    simtime_ps round_ps;      /* one base RTT */
    simtime_ps round_end_ps;  /* end of the current round; 0 before the first ACK */
    uint32_t acks, marked;    /* in the current round */
    uint32_t congested_rounds;
    simtime_ps suspended_until_ps;
    uint32_t repaths;
};

static uint16_t fresh_ev(struct plb_state *p)
{
    if (p->paths < 2)
        return 0;
    /* any path but the one in use */
    uint16_t ev = (uint16_t)rng_below(&p->rng, p->paths - 1);
    return ev >= p->ev ? (uint16_t)(ev + 1) : ev;
}

static void plb_init(void *state, const struct lb_params *lp)
{
    struct plb_state *p = state;
    rng_seed(&p->rng, lp->seed, RNG_STREAM_LB, lp->flow_index);
    p->paths = lp->paths ? lp->paths : 1;
    p->ev = (uint16_t)rng_below(&p->rng, p->paths);
    p->round_ps = lp->base_rtt_ps ? lp->base_rtt_ps : 10 * PS_PER_US;
}

static uint16_t plb_next(void *state, uint32_t seq, simtime_ps now)
{
    struct plb_state *p = state;
    (void)seq;
    (void)now;
    return p->ev;
}

static void repath(struct plb_state *p)
{
    p->ev = fresh_ev(p);
    p->congested_rounds = 0;
    p->repaths++;
}

static void plb_feedback(void *state, uint16_t ev, enum lb_signal sig, simtime_ps now)
{
    struct plb_state *p = state;
    (void)ev;
    if (sig == LB_TIMEOUT) {
        /* Linux tcp_plb_update_state_upon_rto: move now, then hold still */
        repath(p);
        p->suspended_until_ps = now + PLB_SUSPEND_PS;
        return;
    }
    if (p->round_end_ps == 0)
        p->round_end_ps = now + p->round_ps;
    if (now >= p->round_end_ps) {
        /* a round ended: was it congested? */
        bool congested = p->acks && (double)p->marked >= PLB_CONG_THRESH * (double)p->acks;
        p->congested_rounds = congested ? p->congested_rounds + 1 : 0;
        p->acks = p->marked = 0;
        p->round_end_ps = now + p->round_ps;
        if (p->congested_rounds >= PLB_REHASH_ROUNDS && now >= p->suspended_until_ps)
            repath(p);
    }
    p->acks++;
    p->marked += sig == LB_ECN || sig == LB_NACK;
}

const struct lb_ops lb_plb_ops = {
    .name = "plb",
    .description = "PLB: one path per flow, repathed after 12 consecutive congested rounds (Linux defaults)",
    .state_size = sizeof(struct plb_state),
    .init = plb_init,
    .next_entropy = plb_next,
    .feedback = plb_feedback,
};

uint32_t lb_plb_repaths(const void *plb_state)
{
    return ((const struct plb_state *)plb_state)->repaths;
}
