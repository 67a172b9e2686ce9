/* callgrind.c — read callgrind's dump files (see callgrind.h). */
#include "counters/callgrind.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const event_names[CB_CG_NEVENTS] = {
    "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

const char *cb_cg_event_name(enum cb_cg_event e)
{
    return (unsigned)e < CB_CG_NEVENTS ? event_names[e] : "?";
}

static int event_index(const char *name)
{
    for (int i = 0; i < CB_CG_NEVENTS; i++)
        if (strcmp(name, event_names[i]) == 0)
            return i;
    return -1;
}

/* "32768 B, 64 B, 8-way associative" / "direct-mapped" / "fully associative". */
static void parse_cache(const char *s, struct cb_cg_cache *c)
{
    char *end;
    c->size = strtol(s, &end, 10);
    const char *comma = strchr(end, ',');
    c->line = comma ? strtol(comma + 1, &end, 10) : 0;
    comma = comma ? strchr(end, ',') : NULL;
    if (!comma)
        c->ways = 0;
    else if (strstr(comma, "direct-mapped"))
        c->ways = 1;
    else if (strstr(comma, "fully"))
        c->ways = -1;
    else
        c->ways = strtol(comma + 1, NULL, 10);
}

struct parse_state {
    int slot[64];      /* events: position -> enum cb_cg_event, or -1 */
    int nslots;        /* -1 until the "events:" line */
    int have_summary;
};

static int parse_events(struct parse_state *ps, struct cb_cg_dump *d, char *list)
{
    ps->nslots = 0;
    for (char *save = NULL, *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (ps->nslots == 64)
            return -EINVAL;
        int e = event_index(t);
        ps->slot[ps->nslots++] = e;
        if (e >= 0)
            d->have |= 1u << e;
    }
    return ps->nslots ? 0 : -EINVAL;
}

/* The part's costs, in the order of "events:"; trailing zeros may be left out. */
static int parse_costs(const struct parse_state *ps, struct cb_cg_dump *d, char *list, const char **why)
{
    int n = 0;
    memset(d->ev, 0, sizeof d->ev);
    for (char *save = NULL, *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(t, &end, 10);
        if (*t == '-' || *end || errno) {
            *why = "a cost that is not a whole number";
            return -EINVAL;
        }
        if (n == ps->nslots) {
            *why = "more costs than events";
            return -EINVAL;
        }
        if (ps->slot[n] >= 0)
            d->ev[ps->slot[n]] = v;
        n++;
    }
    return 0;
}

/* One header line; "summary:" (the part's total) is what is kept, and a
 * "totals:" line only stands in when no summary was written. */
static int parse_line(struct parse_state *ps, struct cb_cg_dump *d, char *line, const char **why)
{
    char *v;
    if (strncmp(line, "part:", 5) == 0)
        d->part = atoi(line + 5);
    else if ((v = strstr(line, "Trigger: ")) && strncmp(line, "desc:", 5) == 0)
        snprintf(d->trigger, sizeof d->trigger, "%s", v + 9);
    else if (strncmp(line, "desc: I1 cache:", 15) == 0)
        parse_cache(line + 15, &d->i1);
    else if (strncmp(line, "desc: D1 cache:", 15) == 0)
        parse_cache(line + 15, &d->d1);
    else if (strncmp(line, "desc: LL cache:", 15) == 0)
        parse_cache(line + 15, &d->ll);
    else if (strncmp(line, "events:", 7) == 0) {
        if (parse_events(ps, d, line + 7) < 0) {
            *why = "an empty or overlong events: line";
            return -EINVAL;
        }
    } else if (strncmp(line, "summary:", 8) == 0 || (strncmp(line, "totals:", 7) == 0 && !ps->have_summary)) {
        if (ps->nslots < 0) {
            *why = "costs before any events: line";
            return -EINVAL;
        }
        ps->have_summary = line[0] == 's';
        return parse_costs(ps, d, line + (line[0] == 's' ? 8 : 7), why);
    }
    return 0;
}

int cb_cg_parse(FILE *in, struct cb_cg_dump *d, struct cb_sb *err)
{
    struct parse_state ps = {.nslots = -1};
    char line[4096];
    int lineno = 0, summary = 0;
    memset(d, 0, sizeof *d);
    while (fgets(line, sizeof line, in)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        const char *why = NULL;
        if (lineno == 1 && strcmp(line, "# callgrind format") != 0 && strncmp(line, "version:", 8) != 0)
            why = "not callgrind's format (it starts with '# callgrind format')";
        else if (parse_line(&ps, d, line, &why) == 0 && !why)
            summary |= strncmp(line, "summary:", 8) == 0 || strncmp(line, "totals:", 7) == 0;
        if (why) {
            cb_sb_setf(err, "line %d: %s", lineno, why);
            return -EINVAL;
        }
    }
    if (!summary) {
        cb_sb_setf(err, lineno ? (ps.nslots < 0 ? "no events: line" : "no summary: or totals: line")
                                     : "empty file");
        return -EINVAL;
    }
    return 0;
}

int cb_cg_parse_file(const char *path, struct cb_cg_dump *d, struct cb_sb *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        cb_sb_setf(err, "%s: %s", path, strerror(e));
        return -e;
    }
    struct cb_sb why = CB_SB_INIT;
    int rc = cb_cg_parse(f, d, &why);
    fclose(f);
    if (rc < 0)
        cb_sb_setf(err, "%s: %s", path, why.buf);
    cb_sb_release(&why);
    return rc;
}

const char *cb_cg_request(const struct cb_cg_dump *d)
{
    static const char prefix[] = "Client Request: ";
    return strncmp(d->trigger, prefix, sizeof prefix - 1) == 0 ? d->trigger + sizeof prefix - 1 : NULL;
}

double cb_cg_estimated_cycles(const struct cb_cg_dump *d)
{
    const unsigned need = (1u << CB_CG_NEVENTS) - 1 - (1u << CB_CG_BC) - (1u << CB_CG_BCM) -
                          (1u << CB_CG_BI) - (1u << CB_CG_BIM);
    if ((d->have & need) != need)
        return NAN;
    const uint64_t *e = d->ev;
    double accesses = (double)(e[CB_CG_IR] + e[CB_CG_DR] + e[CB_CG_DW]);
    double l1_miss = (double)(e[CB_CG_I1MR] + e[CB_CG_D1MR] + e[CB_CG_D1MW]);
    double ram = (double)(e[CB_CG_ILMR] + e[CB_CG_DLMR] + e[CB_CG_DLMW]);
    return (accesses - l1_miss) + 5 * (l1_miss - ram) + 35 * ram;
}
