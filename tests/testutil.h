/* testutil.h: helpers shared by the cmocka unit tests: where the shared
 * scenario data lives, and writing a temporary input file. */
#ifndef SPRAYSIM_TESTUTIL_H
#define SPRAYSIM_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <cmocka.h>

/* The parent's side of a test that runs code in a forked child writing to
 * a pipe: reads what the child wrote into out (at most len - 1 bytes,
 * NUL-terminated), closes read_fd, waits for the child and returns its exit
 * status (-1 when it did not exit). */
static inline int child_output(int read_fd, pid_t pid, char *out, size_t len)
{
    size_t got = 0;
    ssize_t r;
    while (got + 1 < len && (r = read(read_fd, out + got, len - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = '\0';
    close(read_fd);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs fn in a forked child with its stderr captured into out (as
 * child_output); returns the child's exit status, 0 when fn returns. */
static inline int child_stderr(void (*fn)(void), char *out, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        fn();
        _exit(0);
    }
    close(fds[1]);
    return child_output(fds[0], pid, out, len);
}

/* Path of a file under ../shared/data (or $SHARED/data). */
static inline const char *shared_path(const char *rel)
{
    static char buf[4][1024];
    static int slot;
    const char *root = getenv("SHARED");
    char *b = buf[slot++ & 3];
    snprintf(b, sizeof buf[0], "%s/data/%s", root && *root ? root : "../shared", rel);
    return b;
}

/* The four temporary-file slots of temp_file (one per test program). */
static inline char (*temp_file_paths(void))[256]
{
    static char paths[4][256];
    return paths;
}

/* Names carry the creating process's id: a forked child that exits (a test
 * of a fatal error, say) must leave its parent's files alone. */
static inline void temp_files_remove(void)
{
    char own[32];
    snprintf(own, sizeof own, "/tmp/spraysim-test-%ld-", (long)getpid());
    for (int i = 0; i < 4; i++)
        if (!strncmp(temp_file_paths()[i], own, strlen(own)))
            unlink(temp_file_paths()[i]);
}

/* Writes text to a temporary file and returns its path. The path and the
 * file last until four more calls: each of four slots reuses its file, and
 * whatever the slots hold is removed when the test program exits, so a run
 * leaves nothing in /tmp however its tests end. */
static inline const char *temp_file(const char *text, const char *suffix)
{
    static int slot;
    if (slot == 0)
        atexit(temp_files_remove);
    char *b = temp_file_paths()[slot & 3];
    if (b[0])
        unlink(b); /* the slot's previous file, whatever its suffix */
    snprintf(b, sizeof temp_file_paths()[0], "/tmp/spraysim-test-%ld-%d%s", (long)getpid(), slot & 3, suffix);
    slot++;
    FILE *f = fopen(b, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
    return b;
}

#endif
