/* cc_fixed.h: the NIC-style integer variants of NSCC and SMaRTT
 * (nscc_fixed.c, smartt_fixed.c). The transport sees them through their ops
 * in cc.h; tests and bench/cc_cost.c read the sizes of the state a NIC would
 * keep: per flow, and once per host ("global").
 */
#ifndef SPRAYSIM_CC_FIXED_H
#define SPRAYSIM_CC_FIXED_H

#include <stddef.h>
#include <stdint.h>

void nscc_fixed_sizes(size_t *flow_bytes, size_t *global_bytes);
void smartt_fixed_sizes(size_t *flow_bytes, size_t *global_bytes);

/* smartt-fixed's wait-to-decrease keep factor for an ACK of n >= 1
 * packets: keep^n in Q24 (keep_q24 at most 2^24), by squaring. */
uint64_t smartt_fixed_pow_q24(uint64_t keep_q24, uint32_t n);

#endif
