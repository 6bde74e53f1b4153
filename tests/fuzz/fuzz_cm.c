/* fuzz_cm.c: fuzz harness for the connection-matrix reader (.cm,
 * src/workload/cm.c). Each input is read as the text of a .cm file. Besides
 * what the sanitizers catch, it checks what cm.h promises: an accepted
 * matrix is consistent (endpoints in range and distinct, every trigger
 * reference declared, each connection started one way), and a rejected one
 * comes with exactly one line of message naming the file.
 */
#include "harness.h"

#include "workload/cm.h"

#include <string.h>

static void check_accepted(const struct conn_matrix *cm)
{
    fuzz_check(cm->nodes >= 1);
    for (uint32_t i = 0; i < cm->n_conns; i++) {
        const struct cm_conn *c = &cm->conns[i];
        fuzz_check(c->src < cm->nodes && c->dst < cm->nodes && c->src != c->dst);
        fuzz_check(c->size_bytes >= 1);
        fuzz_check((c->start_ps == SIMTIME_NEVER) != (c->start_trigger == CM_NO_TRIGGER));
        const uint32_t refs[3] = {c->start_trigger, c->send_done_trigger, c->recv_done_trigger};
        for (int j = 0; j < 3; j++)
            fuzz_check(refs[j] == CM_NO_TRIGGER || cm_trigger_index(cm, refs[j]) != UINT32_MAX);
        fuzz_check(memchr(c->lb, '\0', sizeof c->lb) != NULL);
        fuzz_check(c->tclass <= 1 || c->tclass == CM_CLASS_AUTO);
    }
    for (uint32_t i = 0; i < cm->n_triggers; i++)
        fuzz_check(cm->triggers[i].type <= TRIGGER_BARRIER);
    for (uint32_t i = 0; i < cm->n_failures; i++)
        fuzz_check(cm->failures[i].spec != NULL || cm->failures[i].switch_type <= FAILURE_CORE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* cm_read_buffer takes a C string: an embedded NUL simply ends it */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct conn_matrix cm;
    char err[256];
    if (cm_read_buffer(&cm, "fuzz.cm", text, err, sizeof err)) {
        check_accepted(&cm);
    } else {
        /* "fuzz.cm:LINE: message" or "fuzz.cm: message", one line */
        fuzz_check(strncmp(err, "fuzz.cm:", 8) == 0 && strchr(err, '\n') == NULL);
    }
    cm_free(&cm);
    free(text);
    return 0;
}
