/* outdir.h: an output directory replaced as a whole. A run's files are a
 * set (flows.csv, queues.csv, summary.json): a reader must never find new
 * flows next to old queues, or a half-written file that looks complete. So
 * the files are written into a fresh staging directory beside the target,
 * created before the run starts (which proves the target is writable), and
 * the staging directory then takes the target's place in one rename.
 */
#ifndef SPRAYSIM_OUTDIR_H
#define SPRAYSIM_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

struct outdir;

/* Checks that `dir` can receive the set: its parent is created if missing
 * (like mkdir -p); `dir` itself must be absent, or a directory holding
 * nothing but files named in `names` (NULL-terminated), so a re-run replaces
 * its own earlier output and nothing else. Creates the staging directory and
 * arranges for it to be removed if the process is interrupted (SIGINT,
 * SIGTERM, SIGHUP) or exits before the commit (bad input found later, exit 2).
 * NULL with one line in err when it cannot. */
struct outdir *outdir_prepare(const char *dir, const char *const *names, char *err, size_t errlen);
/* Writes one file of the set into the staging directory. */
bool outdir_write(struct outdir *o, const char *name, const char *data, size_t len, char *err, size_t errlen);
/* The staging path of file `name` of the set (NULL if it is not one). */
const char *outdir_file_path(struct outdir *o, const char *name);
/* Puts the staging directory in the target's place (atomically exchanged
 * with an existing one where the kernel supports it), removes the old set,
 * and frees o. On failure the old set is untouched. */
bool outdir_commit(struct outdir *o, char *err, size_t errlen);
/* Removes the staging directory and frees o. */
void outdir_abort(struct outdir *o);

#endif
