/* cc_fixed.h: the NIC-style integer variants of NSCC and SMaRTT
 * (nscc_fixed.c, smartt_fixed.c). The transport sees them through their ops
 * in cc.h; tests and bench/cc_cost.c read the sizes of the state a NIC would
 * keep: per flow, and once per host ("global").
 */
#ifndef SPRAYSIM_CC_FIXED_H
#define SPRAYSIM_CC_FIXED_H

#include <stddef.h>

void nscc_fixed_sizes(size_t *flow_bytes, size_t *global_bytes);
void smartt_fixed_sizes(size_t *flow_bytes, size_t *global_bytes);

#endif
