/* registry.c: the table of congestion-control algorithms selectable with
 * --cc. Adding an algorithm is one file with an ops table plus one line here.
 */
#include "cc.h"

#include <string.h>

static const struct cc_ops *const all_cc[] = {
    &cc_nscc_ops,
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
    return "nscc";
}
