/* replay_main.c: a main for the fuzz harnesses without libFuzzer, so the
 * regular test suite (built with gcc, plain or under the sanitizers) runs
 * every saved input: the committed corpus and every crash ever found.
 *
 *   fuzz_NAME [-q] PATH...
 *
 * Each PATH is a file, or a directory whose files (not subdirectories) are
 * replayed in name order; a missing PATH counts as empty, so a harness
 * without crashes/ needs no placeholder. Before each input its path goes to
 * stderr, so when one crashes the last such line names it (-q only prints
 * the totals). Prints "replayed N inputs" and exits 0 when every input
 * returned; a bug aborts the process, as it would under libFuzzer.
 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static bool quiet;
static unsigned long n_replayed;

static void replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            uint8_t *grown = realloc(buf, cap);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    if (!buf || ferror(f)) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(1);
    }
    fclose(f);
    if (!quiet)
        fprintf(stderr, "replay: %s\n", path);
    /* an exact-size copy, so the sanitizers catch a read past the end as
     * they would under libFuzzer */
    uint8_t *input = malloc(len ? len : 1);
    if (!input)
        exit(1);
    memcpy(input, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(input, len);
    free(input);
    n_replayed++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open: %s\n", dir, strerror(errno));
        exit(1);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                exit(1);
            names = grown;
        }
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        names[n] = malloc(len);
        if (!names[n])
            exit(1);
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            replay_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-q")) {
            quiet = true;
            continue;
        }
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            if (errno == ENOENT)
                continue;
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (S_ISDIR(st.st_mode))
            replay_dir(argv[i]);
        else
            replay_file(argv[i]);
    }
    printf("replayed %lu inputs\n", n_replayed);
    return 0;
}
