/* outdir.h: an output directory replaced as a whole. A run's files are a
 * set (flows.csv, queues.csv, summary.json): a reader must never find new
 * flows next to old queues, or a half-written file that looks complete. So
 * the files are written into a fresh staging directory beside the target,
 * created before the run starts (which proves the target is writable), and
 * the staging directory then takes the target's place in one rename. A
 * target a rename cannot replace (a mount point) gets its files one by one,
 * summary.json last; files in it that spraysim did not write stay.
 */
#ifndef SPRAYSIM_OUTDIR_H
#define SPRAYSIM_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

struct outdir;

/* Checks that `dir` can receive the set: a symbolic link is followed (the
 * set goes into its target, the link stays); its parent is created if
 * missing (like mkdir -p); `dir` itself must be absent, or a directory
 * holding nothing but files named in `names` (NULL-terminated), so a re-run
 * replaces its own earlier output and nothing else (a mount point may hold
 * more: it is written into in place). Removes staging directories that
 * killed runs of this host left there. Creates the staging directory
 * (named with the host and process id) and arranges for it to be removed
 * if the process is interrupted (SIGINT, SIGTERM, SIGHUP) or exits before
 * the commit (bad input found later, exit 2). NULL with one line in err
 * when it cannot. */
struct outdir *outdir_prepare(const char *dir, const char *const *names, char *err, size_t errlen);
/* Writes one file of the set into the staging directory. */
bool outdir_write(struct outdir *o, const char *name, const char *data, size_t len, char *err, size_t errlen);
/* The staging path of file `name` of the set (NULL if it is not one). */
const char *outdir_file_path(struct outdir *o, const char *name);
/* Puts the staging directory in the target's place (atomically exchanged
 * with an existing one where the kernel supports it), removes the old set,
 * and frees o. Where the directory cannot be replaced (a mount point, files
 * put into it during the run: a warning), its files are replaced one by
 * one, summary.json last, and nothing else in it is touched. On failure the
 * run's files stay in the staging directory, renamed *.kept and named in
 * err. */
bool outdir_commit(struct outdir *o, char *err, size_t errlen);
/* Removes the staging directory and frees o. */
void outdir_abort(struct outdir *o);

#endif
