/* sides_host.c — the machines of a side's runs, and keeping those of one
 * machine (sides.h). */
#define _GNU_SOURCE
#include "analysis/sides.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/lookup.h"

static int fill_machine(const struct cb_store_host *h, void *ctx)
{
    struct cb_machine *m = ctx;
    snprintf(m->hostname, sizeof m->hostname, "%s", h->hostname);
    snprintf(m->model_name, sizeof m->model_name, "%s", h->model_name);
    cb_machine_id(m->hostname, h->vendor, h->family, h->model, h->stepping, m->model_name, m->id);
    return 0;
}

int cb_run_machine(struct cb_store *st, int64_t run_id, struct cb_machine *m)
{
    return cb_store_run_host(st, run_id, fill_machine, m);
}

int cb_side_machines(struct cb_store *st, const struct cb_side *s, struct cb_machine **out,
                     size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        struct cb_machine m;
        int rc = cb_run_machine(st, s->runs[i], &m);
        if (rc < 0) {
            free(*out);
            *out = NULL;
            *n = 0;
            return rc;
        }
        size_t j = 0;
        while (j < *n && strcmp((*out)[j].id, m.id) != 0)
            j++;
        if (j < *n)
            continue;
        struct cb_machine *grown = realloc(*out, (*n + 1) * sizeof *grown);
        if (!grown) {
            free(*out);
            *out = NULL;
            *n = 0;
            return -ENOMEM;
        }
        *out = grown;
        (*out)[(*n)++] = m;
    }
    return 0;
}

int cb_side_keep_host(struct cb_store *st, struct cb_side *s, const char *spec)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        struct cb_machine m;
        int rc = cb_run_machine(st, s->runs[i], &m);
        if (rc < 0)
            return rc;
        if (cb_machine_match(spec, m.id, m.hostname))
            s->runs[kept++] = s->runs[i];
    }
    s->nruns = kept;
    return (int)kept;
}

void cb_machines_list(const struct cb_machine *m, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s [%s]", i ? ", " : "", m[i].hostname, m[i].id);
}
