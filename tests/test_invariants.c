/* test_invariants.c: the run-time invariant checks (invariant() in
 * src/core/core.h, compiled in with SPRAYSIM_CHECKS) fire when the state
 * they guard is corrupted on purpose, with a message naming what broke, and
 * stay quiet on clean runs. Each test points the failure hook at a recorder
 * instead of abort(), breaks one thing, and looks for the message. Only
 * builds with the checks have them (make asan, make debug); in the others
 * every test here is skipped, which cmocka does not count as passed.
 */
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>

#include "sim.h"
#include "transport/flow.h"
#include "transport/transport.h"

/* Every test, in order; each is defined below, or skipped without checks. */
#define INVARIANT_TESTS(X)                                                                                             \
    X(test_default_hook_prints_one_line_and_aborts)

#ifdef SPRAYSIM_CHECKS

/* ---- the recording hook ---------------------------------------------------------- */

#define MAX_FIRED 64
static struct sim S;
static struct {
    unsigned n; /* failures seen (only the first MAX_FIRED are kept) */
    simtime_ps sim_now[MAX_FIRED]; /* S.now when it fired */
    char file[MAX_FIRED][128];
    char message[MAX_FIRED][256];
} fired;

static void record_failure(const char *file, int line, const char *message)
{
    (void)line;
    if (fired.n < MAX_FIRED) {
        fired.sim_now[fired.n] = S.now;
        snprintf(fired.file[fired.n], sizeof fired.file[0], "%s", file);
        snprintf(fired.message[fired.n], sizeof fired.message[0], "%s", message);
    }
    fired.n++;
}

static int hook_on(void **st)
{
    (void)st;
    memset(&fired, 0, sizeof fired);
    invariant_hook = record_failure;
    return 0;
}

static int hook_off(void **st)
{
    (void)st;
    invariant_hook = invariant_hook_default;
    return 0;
}

static void test_default_hook_prints_one_line_and_aborts(void **st)
{
    (void)st;
    /* In a child: stderr into a pipe, the default hook, a false invariant. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int line = __LINE__ + 8;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        invariant_hook = invariant_hook_default;
        int answer = 41;
        invariant(answer == 42, "answer %d, want %d", answer, 42);
        _exit(0); /* not reached when the hook aborts */
    }
    close(fds[1]);
    char text[256] = {0};
    size_t got = 0;
    ssize_t n;
    while (got < sizeof text - 1 && (n = read(fds[0], text + got, sizeof text - 1 - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    char want[256];
    snprintf(want, sizeof want, "spraysim: invariant failed at %s:%d: answer 41, want 42\n", __FILE__, line);
    assert_string_equal(text, want);
}

#else /* no checks compiled in: every test is skipped */

#define SKIPPED_TEST(name)                                                                                             \
    static void name(void **st)                                                                                        \
    {                                                                                                                  \
        (void)st;                                                                                                      \
        skip();                                                                                                        \
    }
INVARIANT_TESTS(SKIPPED_TEST)

static int hook_on(void **st)
{
    (void)st;
    return 0;
}

static int hook_off(void **st)
{
    (void)st;
    return 0;
}

#endif

int main(void)
{
#define TEST_ENTRY(name) cmocka_unit_test_setup_teardown(name, hook_on, hook_off),
    const struct CMUnitTest tests[] = {INVARIANT_TESTS(TEST_ENTRY)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
