/* fuzz_options.c: fuzz harness for the command-line option parser
 * (options_parse, src/cli/options.c). Each input is split at newlines into
 * at most 64 arguments (argv[0] is "spraysim"). Besides what the sanitizers
 * catch (options_free must release every name --cc-opt copied), it checks
 * that a rejection is one line starting with a flag or naming one, without
 * control bytes (values are quoted through shown()), that an accepted
 * configuration stays inside the ranges the parser promises, and that a
 * repeated --cc-opt name is stored once.
 */
#include "harness.h"

#include "cli/options.h"
#include "transport/transport.h"

#include <string.h>

#define MAX_ARGS 64

static void check_config(const struct config *c)
{
    fuzz_check((c->tm_path != NULL) != (c->workload_spec != NULL)); /* one workload, read or generated */
    fuzz_check(c->random_failure_p >= 0 && c->random_failure_p <= 1);
    fuzz_check(c->mtu_bytes > c->hdr_bytes && c->mtu_bytes <= 65535);
    fuzz_check(c->paths >= 1 && c->paths <= 65536);
    fuzz_check(c->tiers == 2 || c->tiers == 3);
    fuzz_check(c->linkspeed_mbps >= 1 && c->linkspeed_mbps <= 100000000u);
    fuzz_check(c->end_ps >= 1 && c->end_ps <= 1000000000ull * PS_PER_US);
    fuzz_check(c->qa_gate >= -1 && c->qa_gate <= 30);
    fuzz_check(c->routing <= ROUTE_EV_MOD);
    fuzz_check(c->n_fail_specs <= sizeof c->fail_specs / sizeof c->fail_specs[0]);
    fuzz_check(c->n_cc_opts <= sizeof c->cc_opts / sizeof c->cc_opts[0]);
    for (unsigned i = 0; i < c->n_cc_opts; i++) {
        fuzz_check(c->cc_opts[i].name && c->cc_opts[i].name[0]);
        fuzz_check(c->cc_opts[i].value >= -1e18 && c->cc_opts[i].value <= 1e18);
        for (unsigned j = 0; j < i; j++)
            fuzz_check(strcmp(c->cc_opts[i].name, c->cc_opts[j].name) != 0);
    }
    fuzz_check(!c->queue_infinite || c->queue_pkts == 0);
    /* flags transports and balancers own: stored as their tables say */
    fuzz_check(c->n_tp_flags <= CONFIG_MAX_TP_FLAGS);
    for (unsigned i = 0; i < c->n_tp_flags; i++) {
        const struct transport_flag *fl = transport_flag_find(c->tp_flags[i].name);
        fuzz_check(fl && fl->name == c->tp_flags[i].name);
        for (unsigned k = 0; k < 2; k++)
            fuzz_check((c->tp_flags[i].args[k] != NULL) == (k < fl->n_args));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "spraysim";
    char *p = buf;
    while (argc <= MAX_ARGS) {
        argv[argc++] = p;
        char *nl = memchr(p, '\n', (size_t)(buf + size - p));
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    struct config cfg;
    char err[1024];
    err[0] = '\0';
    enum options_result r = options_parse(&cfg, argc, argv, err, sizeof err);
    if (r == OPTIONS_ERROR) {
        fuzz_check(err[0] != '\0');
        for (const char *c = err; *c; c++)
            fuzz_check((unsigned char)*c >= 0x20 && *c != 0x7f);
    } else if (r == OPTIONS_RUN) {
        check_config(&cfg);
    } else {
        fuzz_check(r == OPTIONS_HELP || r == OPTIONS_VERSION);
    }
    options_free(&cfg);
    free(buf);
    return 0;
}
