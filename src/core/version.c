/* version.c: which spraysim this is. The Makefile passes the git commit;
 * only this file is rebuilt when it changes. */
#include "core.h"

#ifndef SPRAYSIM_COMMIT
#define SPRAYSIM_COMMIT "unknown"
#endif

const char spraysim_version[] = "0.4.0";
const char spraysim_commit[] = SPRAYSIM_COMMIT;
