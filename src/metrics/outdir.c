/* outdir.c: an output directory replaced as a whole (see outdir.h). The
 * target is resolved through symbolic links before the run, so the set
 * lands in the link's target and the link stays. A target that a rename
 * cannot replace (a mount point) is written into in place, file by file,
 * summary.json last. Staging directories carry the host and the process id,
 * so one left by a killed run is recognised and removed by the next run into
 * the same place; files spraysim did not write are never deleted or moved
 * away.
 */
#define _GNU_SOURCE /* renameat2 and RENAME_EXCHANGE */
#include "outdir.h"

#include "../core/core.h"
#include "../core/parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTDIR_MAX_FILES 12
/* the part of a staging name after "spraysim-": HOST-PID-XXXXXX (mkdtemp's six) */
#define STAGING_TAG "spraysim-"
#define STAGING_RANDOM_CHARS 6
/* a host name in a staging name is cut to this many bytes */
#define STAGING_HOST_BYTES 64

struct outdir {
    char *dir;      /* the target, resolved through symbolic links */
    char *shown;    /* the target as given, for messages */
    char *staging;  /* PARENT/.NAME.spraysim-HOST-PID-XXXXXX, or DIR/.spraysim-HOST-PID-XXXXXX in place */
    bool in_place;  /* the target is a mount point: its files are replaced one by one */
    const char *const *names;
    /* full staging paths, precomputed so a signal handler can unlink them */
    char *files[OUTDIR_MAX_FILES];
    unsigned n_files;
};

/* The one staging directory of this process, for the signal handler. */
static struct outdir *volatile interrupted_cleanup;

static void on_signal(int sig)
{
    struct outdir *o = interrupted_cleanup;
    if (o) {
        for (unsigned i = 0; i < o->n_files; i++)
            unlink(o->files[i]); /* async-signal-safe */
        rmdir(o->staging);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A run that exits early (bad input found during setup, exit 2; an internal
 * failure, exit 1) removes its staging directory too. */
static void on_exit_cleanup(void)
{
    struct outdir *o = interrupted_cleanup;
    if (o) {
        for (unsigned i = 0; i < o->n_files; i++)
            unlink(o->files[i]);
        rmdir(o->staging);
    }
}

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* the first n bytes of s (all of s if shorter), malloc'd */
static char *dup_n(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = xmalloc(len + 1);
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

static char *path_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = xmalloc(len);
    snprintf(p, len, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
    return p;
}

static bool is_output_name(const char *const *names, const char *n)
{
    for (; *names; names++)
        if (!strcmp(*names, n))
            return true;
    return false;
}

/* An output name's temporary file (write_file_atomic's NAME.tmp.PID, the
 * copy's .NAME.spraysim-tmp.PID): what a killed run may leave in staging. */
static bool is_output_temp(const char *const *names, const char *n)
{
    for (; *names; names++) {
        size_t l = strlen(*names);
        if (!strncmp(n, *names, l) && !strncmp(n + l, ".tmp.", 5))
            return true;
        if (n[0] == '.' && !strncmp(n + 1, *names, l) && !strncmp(n + 1 + l, ".spraysim-tmp.", 14))
            return true;
    }
    return false;
}

/* This machine's name as it appears in staging names: [A-Za-z0-9.] kept,
 * anything else '_', so the name stays one path component. */
static void host_tag(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0)
        snprintf(buf, len, "host");
    buf[len - 1] = '\0';
    for (char *c = buf; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.'))
            *c = '_';
}

/* Whether `name` is a staging directory name PREFIX + "spraysim-HOST-PID-XXXXXX"
 * (optionally + ".old") of this host whose process is gone: one a killed run
 * left behind. A process of another host (a shared file system) or one still
 * alive keeps its staging. */
static bool is_stale_staging(const char *name, const char *prefix, const char *host)
{
    size_t pl = strlen(prefix), tl = strlen(STAGING_TAG), hl = strlen(host);
    if (strncmp(name, prefix, pl) || strncmp(name + pl, STAGING_TAG, tl))
        return false;
    const char *h = name + pl + tl;
    if (strncmp(h, host, hl) || h[hl] != '-')
        return false;
    const char *p = h + hl + 1, *q = p;
    long pid = 0;
    while (*q >= '0' && *q <= '9' && pid < INT_MAX / 10)
        pid = pid * 10 + (*q++ - '0');
    if (q == p || *q != '-' || strlen(q + 1) < STAGING_RANDOM_CHARS)
        return false;
    const char *rest = q + 1 + STAGING_RANDOM_CHARS;
    if (*rest && strcmp(rest, ".old"))
        return false;
    return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes stale staging directories (is_stale_staging) in `parent`: only
 * spraysim's own files in them, then the directory; one that holds
 * anything else stays, with a warning. */
static void remove_stale(const char *parent, const char *prefix, const char *const *names, const char *shown_dir)
{
    char host[STAGING_HOST_BYTES + 1];
    host_tag(host, sizeof host);
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_stale_staging(e->d_name, prefix, host))
            continue;
        char *sp = path_join(parent, e->d_name);
        DIR *sd = opendir(sp);
        if (sd) {
            struct dirent *f;
            while ((f = readdir(sd)))
                if (is_output_name(names, f->d_name) || is_output_temp(names, f->d_name)) {
                    char *fp = path_join(sp, f->d_name);
                    unlink(fp);
                    free(fp);
                }
            closedir(sd);
            if (rmdir(sp) != 0) {
                char b[SHOWN_BUF];
                warn_input("--out %s: a killed run's staging directory %s holds files spraysim did not write; "
                           "left as it is", shown_dir, shown(e->d_name, b));
            }
        }
        free(sp);
    }
    closedir(d);
}

/* like mkdir -p */
static bool make_dirs(char *path, const char *shown_dir, char *err, size_t errlen)
{
    for (char *c = path + 1;; c++) {
        if (*c == '/' || *c == '\0') {
            char saved = *c;
            *c = '\0';
            struct stat st;
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                set_err(err, errlen, "--out %s: cannot create directory %s: %s", shown_dir, path, strerror(errno));
                *c = saved;
                return false;
            }
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
                set_err(err, errlen, "--out %s: %s is not a directory", shown_dir, path);
                *c = saved;
                return false;
            }
            *c = saved;
            if (!saved)
                return true;
        }
    }
}

/* Whether `path` (resolved) is listed as a mount point in
 * /proc/self/mountinfo (its fifth field, with spaces and the like written
 * as \ooo): a bind mount of the same file system has its parent's st_dev,
 * yet a rename cannot replace it. */
static bool listed_mount_point(const char *path)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        const char *c = line;
        for (int field = 0; field < 4 && c; field++) {
            c = strchr(c, ' ');
            if (c)
                c++;
        }
        if (!c)
            continue;
        char mp[4096];
        size_t n = 0;
        while (*c && *c != ' ' && *c != '\n' && n + 1 < sizeof mp) {
            if (c[0] == '\\' && c[1] >= '0' && c[1] <= '3' && c[2] >= '0' && c[2] <= '7' && c[3] >= '0' &&
                c[3] <= '7') {
                mp[n++] = (char)((c[1] - '0') * 64 + (c[2] - '0') * 8 + (c[3] - '0'));
                c += 4;
            } else {
                mp[n++] = *c++;
            }
        }
        mp[n] = '\0';
        found = !strcmp(mp, path);
    }
    fclose(f);
    return found;
}

/* A directory a rename cannot replace: on another device than its parent,
 * its own parent (/), or listed as a mount point. */
static bool is_mount_point(const char *dir, const char *parent)
{
    struct stat sd, sp;
    if (stat(dir, &sd) != 0 || stat(parent, &sp) != 0)
        return false;
    return sd.st_dev != sp.st_dev || sd.st_ino == sp.st_ino || listed_mount_point(dir);
}

/* The first entry of `dir` that is neither an output nor a staging
 * directory of a run of spraysim (NULL if none); malloc'd. */
static char *foreign_entry(const char *dir, const char *const *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !is_output_name(names, e->d_name))
            found = dup_n(e->d_name, strlen(e->d_name));
    closedir(d);
    return found;
}

static void remove_set(const char *dir, const char *const *names)
{
    for (const char *const *n = names; *n; n++) {
        char *p = path_join(dir, *n);
        unlink(p);
        free(p);
    }
    rmdir(dir);
}

static void outdir_free(struct outdir *o)
{
    if (interrupted_cleanup == o)
        interrupted_cleanup = NULL;
    for (unsigned i = 0; i < o->n_files; i++)
        free(o->files[i]);
    free(o->dir);
    free(o->shown);
    free(o->staging);
    free(o);
}

struct outdir *outdir_prepare(const char *dir, const char *const *names, char *err, size_t errlen)
{
    if (!dir || !*dir) {
        set_err(err, errlen, "--out: empty directory name");
        return NULL;
    }
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    char *given = xmalloc(len + 1);
    memcpy(given, dir, len);
    given[len] = '\0';
    const char *slash = strrchr(given, '/');
    const char *base = slash ? slash + 1 : given;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        set_err(err, errlen, "--out %s: name a directory of its own (the output set replaces it as a whole)", dir);
        free(given);
        return NULL;
    }
    char *target = NULL, *parent = NULL;
    struct stat st;
    if (lstat(given, &st) == 0) {
        /* exists (a symbolic link is followed: the set goes into its target) */
        char *real = realpath(given, NULL);
        if (!real) {
            set_err(err, errlen, "--out %s: %s", dir,
                    S_ISLNK(st.st_mode) && errno == ENOENT ? "a symbolic link to nothing" : strerror(errno));
            goto fail;
        }
        if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
            set_err(err, errlen, "--out %s: exists and is not a directory", dir);
            free(real);
            goto fail;
        }
        target = real;
        if (!strcmp(target, "/")) {
            parent = dup_n("/", 1);
        } else {
            const char *s = strrchr(target, '/');
            parent = s == target ? dup_n("/", 1) : dup_n(target, (size_t)(s - target));
        }
    } else if (errno == ENOENT) {
        /* absent: the parent is created if missing, then resolved */
        char *p = xmalloc(len + 2);
        if (slash == given)
            strcpy(p, "/");
        else if (slash)
            snprintf(p, len + 2, "%.*s", (int)(slash - given), given);
        else
            strcpy(p, ".");
        if (strcmp(p, ".") && strcmp(p, "/") && !make_dirs(p, dir, err, errlen)) {
            free(p);
            goto fail;
        }
        parent = realpath(p, NULL);
        free(p);
        if (!parent) {
            set_err(err, errlen, "--out %s: %s", dir, strerror(errno));
            goto fail;
        }
        target = path_join(parent, base);
    } else {
        set_err(err, errlen, "--out %s: %s", dir, strerror(errno));
        goto fail;
    }
    const char *tbase = strcmp(target, "/") ? strrchr(target, '/') + 1 : "";
    size_t plen = strlen(tbase) + 3;
    char *prefix = xmalloc(plen); /* the staging names' start beside the target */
    snprintf(prefix, plen, ".%s.", tbase);
    remove_stale(parent, prefix, names, dir);
    bool exists = stat(target, &st) == 0;
    bool in_place = exists && is_mount_point(target, parent);
    if (exists) {
        remove_stale(target, ".", names, dir);
        /* a directory of spraysim's outputs only, unless written in place
         * (then what else is there stays where it is) */
        char *f = in_place ? NULL : foreign_entry(target, names);
        if (f) {
            char b[SHOWN_BUF];
            set_err(err, errlen,
                    "--out %s: the directory holds '%s', which is not a spraysim output; give a new or empty "
                    "directory (the output set replaces the directory as a whole)", dir, shown(f, b));
            free(f);
            free(prefix);
            goto fail;
        }
    }
    struct outdir *o = xcalloc(1, sizeof *o);
    o->dir = target;
    o->shown = given;
    o->names = names;
    char host[STAGING_HOST_BYTES + 1];
    host_tag(host, sizeof host);
    size_t slen = strlen(target) + strlen(prefix) + strlen(host) + 64;
    o->staging = xmalloc(slen);
    /* a SIGTERM between mkdtemp and the handler's installation below left
     * the staging directory behind (tests/cli_test.sh's killed run, under
     * load): the three signals wait until the handler knows the directory */
    sigset_t stop_signals, old_mask;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop_signals, &old_mask);
    int made = -1;
    if (!in_place) {
        snprintf(o->staging, slen, "%s%s%s" STAGING_TAG "%s-%ld-XXXXXX", parent, strcmp(parent, "/") ? "/" : "",
                 prefix, host, (long)getpid());
        made = mkdtemp(o->staging) ? 0 : errno;
        /* a parent that cannot be written (read-only, not ours) while the
         * target can: written in place */
        if (made && exists && (made == EACCES || made == EPERM || made == EROFS))
            in_place = true;
    }
    if (in_place) {
        snprintf(o->staging, slen, "%s%s." STAGING_TAG "%s-%ld-XXXXXX", target, strcmp(target, "/") ? "/" : "", host,
                 (long)getpid());
        made = mkdtemp(o->staging) ? 0 : errno;
    }
    free(prefix);
    free(parent);
    o->in_place = in_place;
    if (made) {
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        set_err(err, errlen, "--out %s: cannot write %s: %s", dir, in_place ? "into it" : "beside it", strerror(made));
        free(o->staging);
        free(o->dir);
        free(o->shown);
        free(o);
        return NULL;
    }
    for (const char *const *n = names; *n && o->n_files < OUTDIR_MAX_FILES; n++)
        o->files[o->n_files++] = path_join(o->staging, *n);
    interrupted_cleanup = o;
    static bool exit_hook;
    if (!exit_hook) {
        atexit(on_exit_cleanup);
        exit_hook = true;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL); /* one that came meanwhile now finds the handler */
    return o;
fail:
    free(parent);
    free(target);
    free(given);
    return NULL;
}

bool outdir_write(struct outdir *o, const char *name, const char *data, size_t len, char *err, size_t errlen)
{
    for (unsigned i = 0; i < o->n_files; i++) {
        const char *slash = strrchr(o->files[i], '/');
        if (strcmp(slash + 1, name))
            continue;
        if (write_file_atomic(o->files[i], data, len))
            return true;
        set_err(err, errlen, "cannot write %s: %s", o->files[i], strerror(errno));
        return false;
    }
    set_err(err, errlen, "%s is not one of the output files", name);
    return false;
}

const char *outdir_file_path(struct outdir *o, const char *name)
{
    for (unsigned i = 0; i < o->n_files; i++)
        if (!strcmp(strrchr(o->files[i], '/') + 1, name))
            return o->files[i];
    return NULL;
}

/* Copies `from` to `to` through a temporary file beside `to` and a rename:
 * a move across file systems. */
static bool copy_file(const char *from, const char *to, const char *name)
{
    int in = open(from, O_RDONLY);
    if (in < 0)
        return false;
    char *dir = dup_n(to, (size_t)(strrchr(to, '/') - to));
    size_t tlen = strlen(dir) + strlen(name) + 48;
    char *tmp = xmalloc(tlen);
    snprintf(tmp, tlen, "%s/.%s.spraysim-tmp.%ld", dir, name, (long)getpid());
    free(dir);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = out >= 0;
    static char buf[1 << 16];
    while (ok) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ok = r == 0;
            break;
        }
        for (ssize_t off = 0; ok && off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR)
                continue;
            ok = w > 0;
            off += ok ? w : 0;
        }
    }
    int e = errno;
    close(in);
    if (out >= 0) {
        ok = fsync(out) == 0 && ok;
        ok = close(out) == 0 && ok;
    }
    if (ok && rename(tmp, to) != 0)
        ok = false;
    e = ok ? 0 : (errno ? errno : e);
    if (!ok && out >= 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return ok;
}

/* Moves file `name` of the set from `from` (a staging directory) into the
 * target: a rename, or a copy where the two are on different file systems. */
static bool move_file(const char *from, const char *to_dir, const char *name)
{
    char *src = path_join(from, name), *dst = path_join(to_dir, name);
    bool ok = rename(src, dst) == 0 || (errno == EXDEV && copy_file(src, dst, name) && unlink(src) == 0);
    int e = errno;
    free(src);
    free(dst);
    errno = e;
    return ok;
}

static bool exists_in(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    struct stat st;
    bool e = lstat(p, &st) == 0;
    free(p);
    return e;
}

/* Syncs a directory's entries (the renames into it); errors ignored, as
 * some file systems refuse fsync on a directory. */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* In place: the target's summary.json goes first (a directory without it
 * is not a complete run), then every new file but summary.json moves in,
 * old outputs this run did not write are removed, and summary.json comes
 * last. Other files in the target are not touched. */
static bool commit_in_place(struct outdir *o, const char *from, char *err, size_t errlen)
{
    const char *last = "summary.json";
    char *p = path_join(o->dir, last);
    if (unlink(p) != 0 && errno != ENOENT) {
        set_err(err, errlen, "cannot replace %s: %s", p, strerror(errno));
        free(p);
        return false;
    }
    free(p);
    for (const char *const *n = o->names; *n; n++) {
        if (!strcmp(*n, last))
            continue;
        if (exists_in(from, *n)) {
            if (!move_file(from, o->dir, *n)) {
                set_err(err, errlen, "cannot move %s into %s: %s", *n, o->shown, strerror(errno));
                return false;
            }
        } else {
            p = path_join(o->dir, *n); /* an older run's file that this run did not write */
            unlink(p);
            free(p);
        }
    }
    if (exists_in(from, last) && !move_file(from, o->dir, last)) {
        set_err(err, errlen, "cannot move %s into %s: %s", last, o->shown, strerror(errno));
        return false;
    }
    sync_dir(o->dir);
    return true;
}

/* After the exchange, `old` holds the target's earlier contents: anything
 * there that spraysim did not write (put in during the run, after the
 * check before the exchange) moves back into the target. */
static void return_foreign(struct outdir *o, const char *old)
{
    DIR *d = opendir(old);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_output_name(o->names, e->d_name))
            continue;
        char *src = path_join(old, e->d_name), *dst = path_join(o->dir, e->d_name);
        char b[SHOWN_BUF];
        if (rename(src, dst) != 0)
            warn_input("--out %s: '%s', put there during the run, could not be moved back (%s); it is in %s",
                       o->shown, shown(e->d_name, b), strerror(errno), old);
        free(src);
        free(dst);
    }
    closedir(d);
}

/* The run's files stay where they are when the commit fails: the staging
 * directory gets a name the next run does not clean up. */
static void keep_staging(struct outdir *o, char *err, size_t errlen)
{
    size_t n = strlen(o->staging) + 8;
    char *kept = xmalloc(n);
    snprintf(kept, n, "%s.kept", o->staging);
    const char *where = rename(o->staging, kept) == 0 ? kept : o->staging;
    size_t used = strlen(err);
    if (used < errlen)
        snprintf(err + used, errlen - used, "; this run's outputs are kept in %s", where);
    free(kept);
}

bool outdir_commit(struct outdir *o, char *err, size_t errlen)
{
    bool ok = true;
    if (o->in_place) {
        ok = commit_in_place(o, o->staging, err, errlen);
        if (ok)
            rmdir(o->staging);
        else
            keep_staging(o, err, errlen);
        outdir_free(o);
        return ok;
    }
    struct stat st;
    if (stat(o->dir, &st) != 0) {
        if (rename(o->staging, o->dir) != 0) {
            set_err(err, errlen, "cannot move the output into %s: %s", o->shown, strerror(errno));
            keep_staging(o, err, errlen);
            ok = false;
        }
        outdir_free(o);
        return ok;
    }
    /* files put into the target during the run stay there: written in place */
    char *f = foreign_entry(o->dir, o->names);
    if (f) {
        char b[SHOWN_BUF];
        warn_input("--out %s: '%s' was put there during the run; it stays, and the outputs are written into the "
                   "directory file by file", o->shown, shown(f, b));
        free(f);
    } else {
#ifdef RENAME_EXCHANGE
        if (renameat2(AT_FDCWD, o->staging, AT_FDCWD, o->dir, RENAME_EXCHANGE) == 0) {
            return_foreign(o, o->staging); /* now the old set */
            remove_set(o->staging, o->names);
            outdir_free(o);
            return true;
        }
#endif
        /* no exchange here: move the old set aside, then the new one in */
        size_t n = strlen(o->staging) + 8;
        char *old = xmalloc(n);
        snprintf(old, n, "%s.old", o->staging);
        bool moved = false;
        if (rename(o->dir, old) == 0) {
            if (rename(o->staging, o->dir) == 0) {
                moved = true;
                return_foreign(o, old);
                remove_set(old, o->names);
            } else {
                (void)rename(old, o->dir);
            }
        }
        free(old);
        if (moved) {
            outdir_free(o);
            return true;
        }
        /* the directory cannot be replaced (a mount point found only now,
         * a file system without directory renames): written in place */
    }
    ok = commit_in_place(o, o->staging, err, errlen);
    if (ok)
        remove_set(o->staging, o->names);
    else
        keep_staging(o, err, errlen);
    outdir_free(o);
    return ok;
}

void outdir_abort(struct outdir *o)
{
    remove_set(o->staging, o->names);
    outdir_free(o);
}
