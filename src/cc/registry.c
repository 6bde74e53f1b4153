/* registry.c: the table of congestion-control algorithms selectable with
 * --cc. Adding an algorithm is one file with an ops table plus one line here.
 */
#include "cc.h"

#include <math.h>
#include <string.h>

double cc_opt(const struct cc_params *p, const char *name, double def)
{
    for (unsigned i = 0; i < p->n_opts; i++)
        if (!strcmp(p->opts[i].name, name))
            return p->opts[i].value;
    return def;
}

uint32_t cc_opt_uint(const struct cc_params *p, const char *name, uint32_t def, uint32_t lo, uint32_t hi)
{
    double v = cc_opt(p, name, def);
    if (!(v >= lo && v <= hi) || v != floor(v))
        die_input("--cc-opt %s=%.17g: must be a whole number from %u to %u", name, v, lo, hi);
    return (uint32_t)v;
}

static const struct cc_ops *const all_cc[] = {
    &cc_nscc_ops,
    &cc_mnscc_ops,
    &cc_swift_ops,
    &cc_swift_ref_ops,
    &cc_lswift_ops,
    &cc_mswift_ops,
    &cc_smartt_ops,
    &cc_dctcp_ops,
    &cc_uec_dctcp_ops,
    &cc_bbr_ops,
    &cc_mprdma_ops,
    &cc_newreno_ops,
    &cc_nscc_fixed_ops,
    &cc_smartt_fixed_ops,
    /* rate-based, RoCE's (--transport roce) */
    &cc_dcqcn_ops,
    &cc_timely_ops,
    &cc_hpcc_ops,
};

const struct cc_ops *cc_find(const char *name)
{
    for (size_t i = 0; i < sizeof all_cc / sizeof all_cc[0]; i++)
        if (!strcmp(all_cc[i]->name, name))
            return all_cc[i];
    return NULL;
}

const char *cc_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < sizeof all_cc / sizeof all_cc[0]; i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, all_cc[i]->name);
        }
    return names;
}

const struct cc_ops *const *cc_registry(size_t *n)
{
    *n = sizeof all_cc / sizeof all_cc[0];
    return all_cc;
}
