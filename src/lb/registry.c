/* registry.c: the table of sender load balancers selectable with --lb or
 * the reference flag -load_balancing_algo.
 */
#include "lb.h"

#include <string.h>

static const struct lb_ops *const all_lb[] = {
    &lb_single_ops,
    &lb_oblivious_ops,
    &lb_random_ops,
    &lb_plb_ops,
    &lb_reps_ops,
    &lb_reps_alg4_ops,
    &lb_bitmap_ops,
    &lb_mixed_ops,
};

const struct lb_ops *lb_find(const char *name)
{
    if (!strcmp(name, "ecmp"))
        return &lb_single_ops;
    for (size_t i = 0; i < sizeof all_lb / sizeof all_lb[0]; i++)
        if (!strcmp(all_lb[i]->name, name))
            return all_lb[i];
    return NULL;
}

const struct lb_ops *const *lb_registry(size_t *n)
{
    *n = sizeof all_lb / sizeof all_lb[0];
    return all_lb;
}

const char *lb_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < sizeof all_lb / sizeof all_lb[0]; i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, all_lb[i]->name);
            if (all_lb[i] == &lb_single_ops)
                strcat(names, " (alias ecmp)");
        }
    return names;
}
