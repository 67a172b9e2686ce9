/* path.c — a path file read, and composed from a run's cases (path.h). */
#define _GNU_SOURCE
#include "report/path.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/assets.h"
#include "harness/probe.h"
#include "report/rank.h"

/* Every NAME.path compiled in from reports/paths/ (mk/report.am), in the
 * order of its asset list: a shipped path is a file there and nothing else. */
const char *const *cb_path_shipped(void)
{
    static char names[CB_PATH_MAX_SHIPPED][64];
    static const char *list[CB_PATH_MAX_SHIPPED + 1];
    if (list[0])
        return list;
    size_t n = 0;
    for (size_t i = 0; i < cb_nassets && n < CB_PATH_MAX_SHIPPED; i++) {
        size_t len = strlen(cb_assets[i].name);
        if (len > 5 && len - 5 < sizeof names[0] && strcmp(cb_assets[i].name + len - 5, ".path") == 0) {
            snprintf(names[n], sizeof names[n], "%.*s", (int)(len - 5), cb_assets[i].name);
            list[n] = names[n];
            n++;
        }
    }
    return list;
}
const double cb_path_links[CB_PATH_NLINKS] = {10, 25, 40, 100};

/* A size as a path file writes it: digits with an optional K, KiB, M or
 * MiB (powers of two), or S for the packet's bytes (0). */
static int parse_size(const char *s, uint64_t *out)
{
    if (strcmp(s, "S") == 0) {
        *out = 0;
        return 0;
    }
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *s == '-')
        return -EINVAL;
    if (*end == 'K' && (!end[1] || !strcmp(end + 1, "iB")))
        v <<= 10;
    else if (*end == 'M' && (!end[1] || !strcmp(end + 1, "iB")))
        v <<= 20;
    else if (*end)
        return -EINVAL;
    if (v == 0 || v > (1ull << 32))
        return -EINVAL;
    *out = v;
    return 0;
}

static void copy_field(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
}

/* "step LABEL FAMILY VARIANTS SIZE MODE [COUNT]" */
static int parse_step(char **f, int nf, struct cb_path *p, const char *where, int line,
                      struct cb_sb *err)
{
    if (nf < 6 || nf > 7) {
        cb_sb_addf(err, "%s:%d: a step is 'step LABEL FAMILY VARIANTS SIZE MODE [COUNT]' (%d "
                   "fields given)", where, line, nf);
        return -EINVAL;
    }
    if (p->nsteps == CB_PATH_MAX_STEPS) {
        cb_sb_addf(err, "%s:%d: at most %d steps in a path", where, line, CB_PATH_MAX_STEPS);
        return -EINVAL;
    }
    struct cb_path_step *s = &p->steps[p->nsteps];
    if (strlen(f[1]) >= sizeof s->label || strlen(f[2]) >= sizeof s->family ||
        strlen(f[3]) >= sizeof s->variants) {
        cb_sb_addf(err, "%s:%d: a label, family or variant list is too long", where, line);
        return -EINVAL;
    }
    if (parse_size(f[4], &s->size) < 0) {
        cb_sb_addf(err, "%s:%d: size '%s': give bytes (1500, 4K, 64KiB) or S for the packet's "
                   "size", where, line, f[4]);
        return -EINVAL;
    }
    if (strcmp(f[5], "warm") && strcmp(f[5], "cold")) {
        cb_sb_addf(err, "%s:%d: mode '%s': give warm or cold", where, line, f[5]);
        return -EINVAL;
    }
    s->count = 1;
    if (nf == 7) {
        char *end;
        s->count = strtod(f[6], &end);
        if (end == f[6] || *end || !(s->count > 0 && s->count <= 1e6)) {
            cb_sb_addf(err, "%s:%d: count '%s': give how many times per packet (e.g. 2, 0.25)",
                       where, line, f[6]);
            return -EINVAL;
        }
    }
    copy_field(s->label, sizeof s->label, f[1]);
    copy_field(s->family, sizeof s->family, f[2]);
    copy_field(s->variants, sizeof s->variants, strcmp(f[3], "best") == 0 ? "*" : f[3]);
    copy_field(s->mode, sizeof s->mode, f[5]);
    p->nsteps++;
    return 0;
}

/* One line, split at blanks (the title keeps its spaces). */
static int parse_line(char *ln, struct cb_path *p, const char *where, int line, struct cb_sb *err)
{
    char *hash = strchr(ln, '#');
    if (hash)
        *hash = 0;
    char *f[8];
    int nf = 0;
    char *key = strtok(ln, " \t\r");
    if (!key)
        return 0;
    if (strcmp(key, "title") == 0) {
        char *rest = strtok(NULL, "");
        copy_field(p->title, sizeof p->title, rest ? rest + strspn(rest, " \t") : "");
        p->title[strcspn(p->title, "\r")] = 0;
        return 0;
    }
    f[nf++] = key;
    while (nf < 8 && (f[nf] = strtok(NULL, " \t\r")))
        nf++;
    if (strcmp(key, "path") == 0 && nf == 2 && strlen(f[1]) < sizeof p->name) {
        copy_field(p->name, sizeof p->name, f[1]);
        return 0;
    }
    if (strcmp(key, "step") == 0)
        return parse_step(f, nf, p, where, line, err);
    cb_sb_addf(err, "%s:%d: '%s': a path file has 'path NAME', 'title TEXT' and 'step LABEL "
               "FAMILY VARIANTS SIZE MODE [COUNT]' lines (docs/budget.md)", where, line, key);
    return -EINVAL;
}

int cb_path_parse(const char *text, const char *where, struct cb_path *p, struct cb_sb *err)
{
    memset(p, 0, sizeof *p);
    char *copy = strdup(text);
    if (!copy)
        return -ENOMEM;
    int line = 0, rc = 0;
    for (char *ln = copy, *nl; ln && rc == 0; ln = nl) {
        nl = strchr(ln, '\n');
        if (nl)
            *nl++ = 0;
        line++;
        rc = parse_line(ln, p, where, line, err);
    }
    free(copy);
    if (rc == 0 && p->nsteps == 0) {
        cb_sb_addf(err, "%s: no 'step' line: a path needs at least one step", where);
        rc = -EINVAL;
    }
    if (rc == 0 && !p->name[0])
        copy_field(p->name, sizeof p->name, where);
    return rc;
}

/* Read a path file whole: a regular file of text, opened without
 * blocking (a FIFO or a device never holds the command), at most 16383
 * bytes, no NUL byte.  0, or a negative errno with what was wrong in err. */
static int read_path_file(const char *spec, char *buf, size_t len, struct cb_sb *err)
{
    int fd = open(spec, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        cb_sb_addf(err, "--path '%s': %s: give a shipped path (", spec, strerror(e));
        size_t ns = 0;
        while (cb_path_shipped()[ns])
            ns++;
        cb_sb_join(err, cb_path_shipped(), ns, ", ");
        cb_sb_adds(err, ") or a path file (docs/budget.md)");
        return e == ENOENT ? -ENOENT : -EINVAL;
    }
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        cb_sb_addf(err, "--path '%s' is %s, not a path file: give a file of 'path', 'title' and "
                   "'step' lines (docs/budget.md)", spec,
                   S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO"
                   : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : "not a regular file");
        close(fd);
        return -EINVAL;
    }
    size_t n = 0;
    ssize_t got = 1;
    while (n < len && (got = read(fd, buf + n, len - n)) > 0)
        n += (size_t)got;
    int e = got < 0 ? errno : 0;
    close(fd);
    if (e) {
        cb_sb_addf(err, "--path '%s': %s", spec, strerror(e));
        return -EINVAL;
    }
    if (n == len) {
        cb_sb_addf(err, "%s: a path file is at most %zu bytes", spec, len - 1);
        return -EINVAL;
    }
    if (memchr(buf, 0, n)) {
        cb_sb_addf(err, "%s: a NUL byte at offset %zu: a path file is text (docs/budget.md)", spec,
                   (size_t)((char *)memchr(buf, 0, n) - buf));
        return -EINVAL;
    }
    buf[n] = 0;
    return 0;
}

int cb_path_is_shipped(const char *spec)
{
    for (size_t i = 0; cb_path_shipped()[i]; i++)
        if (strcmp(spec, cb_path_shipped()[i]) == 0)
            return 1;
    return 0;
}

int cb_path_load(const char *spec, struct cb_path *p, struct cb_sb *err)
{
    /* A shipped name is always the shipped path: a file of that name in
     * the current directory is read only as ./NAME. */
    if (cb_path_is_shipped(spec)) {
        char name[96];
        snprintf(name, sizeof name, "%s.path", spec);
        const char *text = cb_asset_find(name);
        if (!text) {
            cb_sb_addf(err, "--path '%s': the shipped path is missing from this build", spec);
            return -ENOENT;
        }
        return cb_path_parse(text, spec, p, err);
    }
    char buf[16384];
    int rc = read_path_file(spec, buf, sizeof buf, err);
    return rc < 0 ? rc : cb_path_parse(buf, spec, p, err);
}

static int matches(const char *globs, const char *variant)
{
    char buf[sizeof ((struct cb_path_step *)0)->variants];
    snprintf(buf, sizeof buf, "%s", globs);
    for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save))
        if (fnmatch(g, variant, 0) == 0)
            return 1;
    return 0;
}

/* The step's case: of the measured cases of its family, size and mode
 * whose variant matches, the best in r's context. */
static const struct cb_report_case *step_case(const struct cb_report *r, const struct cb_path_step *s,
                                              uint64_t size)
{
    const struct cb_report_case *v[128];
    size_t n = 0;
    for (size_t i = 0; i < r->ncases && n < 128; i++) {
        const struct cb_report_case *c = &r->cases[i];
        if (c->measured && c->info.size == size && !strcmp(c->info.probe, s->family) &&
            !strcmp(c->info.mode, s->mode) && matches(s->variants, c->info.variant))
            v[n++] = c;
    }
    if (n == 0)
        return NULL;
    if (r->context == CB_CONTEXT_KERNEL)
        return cb_report_kernel_pick(r, v, n);
    return cb_rank_group(r, v, n, NULL) ? v[0] : NULL;
}

void cb_path_compose(const struct cb_report *r, const struct cb_path *p, uint64_t size,
                     struct cb_path_result *res)
{
    memset(res, 0, sizeof *res);
    res->size = size;
    /* One packet of size bytes, as every output charges a packet's data. */
    cb_budget_charge_as(CB_CHARGE_BY_BYTES, "B", size, r->budget.frame ? r->budget.frame : CB_MIN_FRAME, &res->charge);
    double var = 0;
    for (size_t k = 0; k < p->nsteps; k++) {
        const struct cb_path_step *s = &p->steps[k];
        struct cb_path_part *pt = &res->parts[res->nparts++];
        pt->step = s;
        pt->size = s->size ? s->size : size;
        pt->c = step_case(r, s, pt->size);
        pt->cyc = pt->lo = pt->hi = pt->ns = NAN;
        if (!pt->c) {
            res->missing++;
            continue;
        }
        double m = cb_report_context_cycles(r, pt->c), med = pt->c->cyc.median;
        /* The context's charge is a constant: the median's interval moves with it. */
        pt->cyc = m * s->count;
        pt->lo = (pt->c->cyc.ci_lo + (m - med)) * s->count;
        pt->hi = (pt->c->cyc.ci_hi + (m - med)) * s->count;
        pt->ns = pt->c->ns_per_op * (med > 0 ? m / med : 1.0) * s->count;
        res->cyc += pt->cyc;
        res->ns += pt->ns;
        double half = isfinite(pt->lo) && isfinite(pt->hi) ? (pt->hi - pt->lo) / 2 : 0;
        var += half * half;
    }
    res->lo = res->cyc - sqrt(var);
    res->hi = res->cyc + sqrt(var);
}

double cb_path_budget_cycles(const struct cb_report *r, const struct cb_path_result *res, double gbps)
{
    return r->core_ghz > 0 ? cb_budget_charge_ns(&res->charge, gbps) * r->core_ghz : NAN;
}
