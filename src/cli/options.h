/* options.h: the command line as a pure function: argv in, a filled
 * configuration (or one error line) out. main.c runs what it describes; the
 * option fuzz harness and the tests call it directly, because it never exits.
 */
#ifndef SPRAYSIM_OPTIONS_H
#define SPRAYSIM_OPTIONS_H

#include "../sim.h"

#include <stdio.h>

enum options_result {
    OPTIONS_RUN = 0,     /* cfg describes a run */
    OPTIONS_HELP = 1,    /* -h, -help, --help: print options_usage() */
    OPTIONS_VERSION = 2, /* --version */
    OPTIONS_ERROR = 3,   /* err holds one line naming the flag */
    OPTIONS_HELP_MARKDOWN = 4, /* --help-format=markdown: option_help(out, HELP_MARKDOWN) (docs/flags.md) */
    OPTIONS_HELP_MAN = 5,      /* --help-format=man: option_help(out, HELP_MAN) (man/spraysim.1) */
};

/* Fills cfg (starting from config_defaults) from argv[1..argc-1]. Strings in
 * cfg point into argv or into allocations that options_free() releases. */
enum options_result options_parse(struct config *cfg, int argc, char **argv, char *err, size_t errlen);
void options_free(struct config *cfg);
/* --help (option_table.c prints it from the option table) */
void options_usage(FILE *out);

#endif
