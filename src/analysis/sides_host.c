/* sides_host.c — the machines of a side's runs, and keeping those of one
 * machine (sides.h). */
#define _GNU_SOURCE
#include "analysis/sides.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"

static int sql_err(int rc)
{
    return rc == -ENOMEM || rc == -EBUSY ? rc : -EIO;
}

int cb_run_machine(struct cb_store *st, int64_t run_id, struct cb_machine *m)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st),
                                "SELECT h.hostname, h.vendor, h.family, h.model, h.stepping,"
                                " h.model_name FROM runs r JOIN hosts h ON h.id = r.host_id"
                                " WHERE r.id = ?1", &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_int64(q, 1, run_id);
    rc = cb_db_step(q);
    if (rc != CB_DB_ROW) {
        cb_db_finalize(q);
        return rc == CB_DB_DONE ? -ENOENT : sql_err(rc);
    }
    const char *host = (const char *)cb_db_column_text(q, 0);
    const char *model = (const char *)cb_db_column_text(q, 5);
    snprintf(m->hostname, sizeof m->hostname, "%s", host ? host : "");
    snprintf(m->model_name, sizeof m->model_name, "%s", model ? model : "");
    cb_machine_id(m->hostname, (const char *)cb_db_column_text(q, 1), cb_db_column_int(q, 2),
                  cb_db_column_int(q, 3), cb_db_column_int(q, 4), m->model_name, m->id);
    cb_db_finalize(q);
    return 0;
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
