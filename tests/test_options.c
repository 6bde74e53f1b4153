/* test_options.c: the command-line parser (src/cli/options.c) called
 * directly, for what the binary's own tests (cli_test.sh, option_bounds.sh)
 * cannot show: that it reads only argv[0..argc-1] (main's argv ends in a
 * NULL, so reading one past argc looks like a missing value there, but not
 * for a caller whose array goes on), and the configuration a flag leaves
 * behind where two spellings must agree. Issue 26: mutants of these lines
 * survived every other test.
 */
#include "testutil.h"

#include "cli/options.h"
#include "sim.h"

/* Parses argc entries of argv into *cfg; returns the result, err filled. */
static enum options_result parse(struct config *cfg, int argc, const char **argv, char *err, size_t errlen)
{
    err[0] = '\0';
    return options_parse(cfg, argc, (char **)argv, err, errlen);
}

/* A flag that is the last of argc entries has no value, whatever the
 * caller's array holds after it: "-end" with "42" beyond argc is an error,
 * and the same array with argc 5 takes 42. (The matrix is named, not read.) */
static void test_value_beyond_argc_is_not_read(void **state)
{
    (void)state;
    const char *argv[] = {"spraysim", "-tm", "x.cm", "-end", "42"};
    char err[256];
    struct config cfg;
    assert_int_equal(parse(&cfg, 4, argv, err, sizeof err), OPTIONS_ERROR);
    assert_non_null(strstr(err, "-end needs a value"));
    options_free(&cfg);
    assert_int_equal(parse(&cfg, 5, argv, err, sizeof err), OPTIONS_RUN);
    options_free(&cfg);
}

/* -sender_cc_algo NAME is htsim's "-sender_cc --cc NAME": the same sender
 * window setting as -sender_cc (EQDS turns its window on only for that
 * value), and the same algorithm. */
static void test_sender_cc_algo_is_sender_cc_and_cc(void **state)
{
    (void)state;
    const char *algo[] = {"spraysim", "-tm", "x.cm", "-sender_cc_algo", "nscc"};
    const char *both[] = {"spraysim", "-tm", "x.cm", "-sender_cc", "--cc", "nscc"};
    char err[256];
    struct config a, b;
    assert_int_equal(parse(&a, 5, algo, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(parse(&b, 6, both, err, sizeof err), OPTIONS_RUN);
    assert_int_equal(a.sender_cc, b.sender_cc);
    assert_string_equal(a.cc_name, b.cc_name);
    assert_true(a.cc_given && b.cc_given);
    options_free(&a);
    options_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_beyond_argc_is_not_read),
        cmocka_unit_test(test_sender_cc_algo_is_sender_cc_and_cc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
