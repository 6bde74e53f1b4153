/* outdir.c: an output directory replaced as a whole (see outdir.h). */
#define _GNU_SOURCE /* renameat2 and RENAME_EXCHANGE */
#include "outdir.h"

#include "../core/core.h"
#include "../core/parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTDIR_MAX_FILES 8

struct outdir {
    char *dir;      /* the target, as given (trailing slashes removed) */
    char *staging;  /* PARENT/.NAME.spraysim-XXXXXX */
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

static bool is_output_name(const char *const *names, const char *n)
{
    for (; *names; names++)
        if (!strcmp(*names, n))
            return true;
    return false;
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

static void remove_set(const char *dir, const char *const *names)
{
    for (const char *const *n = names; *n; n++) {
        size_t len = strlen(dir) + strlen(*n) + 2;
        char *p = xmalloc(len);
        snprintf(p, len, "%s/%s", dir, *n);
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
    char *target = xmalloc(len + 1);
    memcpy(target, dir, len);
    target[len] = '\0';
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        set_err(err, errlen, "--out %s: name a directory of its own (the output set replaces it as a whole)", dir);
        free(target);
        return NULL;
    }
    /* the parent: created if missing */
    char *parent = xmalloc(len + 2);
    if (slash == target)
        strcpy(parent, "/");
    else if (slash)
        snprintf(parent, len + 2, "%.*s", (int)(slash - target), target);
    else
        strcpy(parent, ".");
    if (strcmp(parent, ".") && strcmp(parent, "/") && !make_dirs(parent, dir, err, errlen)) {
        free(parent);
        free(target);
        return NULL;
    }
    /* the target: absent, or a directory of spraysim's outputs only */
    struct stat st;
    if (stat(target, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            set_err(err, errlen, "--out %s: exists and is not a directory", dir);
            goto fail;
        }
        DIR *d = opendir(target);
        if (!d) {
            set_err(err, errlen, "--out %s: cannot read the directory: %s", dir, strerror(errno));
            goto fail;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_output_name(names, e->d_name))
                continue;
            char b[SHOWN_BUF];
            set_err(err, errlen,
                    "--out %s: the directory holds '%s', which is not a spraysim output; give a new or empty "
                    "directory (the output set replaces the directory as a whole)", dir, shown(e->d_name, b));
            closedir(d);
            goto fail;
        }
        closedir(d);
    } else if (errno != ENOENT) {
        set_err(err, errlen, "--out %s: %s", dir, strerror(errno));
        goto fail;
    }
    struct outdir *o = xcalloc(1, sizeof *o);
    o->dir = target;
    o->names = names;
    size_t slen = strlen(parent) + strlen(base) + 32;
    o->staging = xmalloc(slen);
    snprintf(o->staging, slen, "%s/.%s.spraysim-XXXXXX", parent, base);
    free(parent);
    if (!mkdtemp(o->staging)) {
        set_err(err, errlen, "--out %s: cannot write beside it: %s", dir, strerror(errno));
        free(o->staging);
        o->staging = NULL;
        free(o->dir);
        free(o);
        return NULL;
    }
    for (const char *const *n = names; *n && o->n_files < OUTDIR_MAX_FILES; n++) {
        size_t flen = strlen(o->staging) + strlen(*n) + 2;
        o->files[o->n_files] = xmalloc(flen);
        snprintf(o->files[o->n_files++], flen, "%s/%s", o->staging, *n);
    }
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
    return o;
fail:
    free(parent);
    free(target);
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

bool outdir_commit(struct outdir *o, char *err, size_t errlen)
{
    bool ok = true;
    struct stat st;
    if (stat(o->dir, &st) == 0) {
#ifdef RENAME_EXCHANGE
        if (renameat2(AT_FDCWD, o->staging, AT_FDCWD, o->dir, RENAME_EXCHANGE) == 0) {
            remove_set(o->staging, o->names); /* now the old set */
            outdir_free(o);
            return true;
        }
#endif
        /* no exchange here: move the old set aside, then the new one in */
        size_t n = strlen(o->staging) + 8;
        char *old = xmalloc(n);
        snprintf(old, n, "%s.old", o->staging);
        if (rename(o->dir, old) != 0) {
            set_err(err, errlen, "cannot replace %s: %s", o->dir, strerror(errno));
            ok = false;
        } else if (rename(o->staging, o->dir) != 0) {
            set_err(err, errlen, "cannot move the new output into %s: %s", o->dir, strerror(errno));
            (void)rename(old, o->dir);
            ok = false;
        } else {
            remove_set(old, o->names);
        }
        free(old);
    } else if (rename(o->staging, o->dir) != 0) {
        set_err(err, errlen, "cannot move the output into %s: %s", o->dir, strerror(errno));
        ok = false;
    }
    if (!ok)
        remove_set(o->staging, o->names);
    outdir_free(o);
    return ok;
}

void outdir_abort(struct outdir *o)
{
    remove_set(o->staging, o->names);
    outdir_free(o);
}
