/* verdict.c — what compare and bisect-check share around the verdict
 * (verdict.h): the shared options, the side's host and environment checks;
 * analysis/judge.c decides, verdict_print.c prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fingerprint.h"
#include "meter.h"
#include "parse.h"
#include "report.h"
#include "tsc.h"
#include "lookup.h"
#include "store.h"
#include "verdict.h"

int cmp_parse_pct(const char *s, const char *what, double *out, struct cb_sb *err)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        goto bad;
    memcpy(buf, s, n + 1);
    if (buf[n - 1] == '%')
        buf[--n] = '\0';
    if (n == 0 || strspn(buf, "0123456789.") != n)
        goto bad;
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v) || v < 0 || v > 100)
        goto bad;
    *out = v / 100.0;
    return 0;
bad:
    cb_sb_setf(err, "%s '%s': give a percentage between 0 and 100, e.g. 2 or 2%%", what, s);
    return -EINVAL;
}

/* 1 when the comma list holds word. */
static int cb_list_has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

/* s as a plain decimal (digits and at most the point strtod takes: no sign,
 * exponent, "inf" or hex) into *v; 0 when it parses whole, else -EINVAL. */
static int plain_decimal(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return *s && !*end && strspn(s, "0123456789.") == strlen(s) ? 0 : -EINVAL;
}

static int parse_run_quantile(const char *s, double *out, struct cb_sb *err)
{
    double v;
    if (plain_decimal(s, &v) < 0 || !(v >= 0 && v <= 0.5)) {
        cb_sb_setf(err,
                 "--run-quantile '%s': give a quantile from 0 (each run's fastest sample) to 0.5 "
                 "(its median), e.g. 0.1", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_trim(const char *s, double *out, struct cb_sb *err)
{
    double v;
    if (plain_decimal(s, &v) < 0 || !(v >= 0 && v <= 0.4)) {
        cb_sb_setf(err, "--trim '%s': give the share of runs to trim from each end, 0 to 0.4, e.g. 0.2", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_alpha(const char *s, double *out, struct cb_sb *err)
{
    double v;
    if (plain_decimal(s, &v) < 0 || !(v > 0 && v < 1)) {
        cb_sb_setf(err, "--alpha '%s': give a probability strictly between 0 and 1, e.g. 0.01", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

void cmp_describe_side(struct cb_store *st, const struct cb_side *s, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "%s = run%s ", s->spec, s->nruns > 1 ? "s" : "");
    for (size_t i = 0; i < s->nruns && off < len; i++) {
        if (i == 8) {
            off += (size_t)snprintf(buf + off, len - off, ",...");
            break;
        }
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "", (long long)s->runs[i]);
    }
    (void)st;
    if (s->ncommits == 1 && off < len)
        snprintf(buf + off, len - off, " (commit %.12s)", s->commits[0]);
    else if (s->ncommits > 1 && off < len)
        snprintf(buf + off, len - off, " (%zu commits)", s->ncommits);
}

int cmp_exit_of(const struct cmp_result *res, int unsure_exit)
{
    for (size_t i = 0; i < res->n; i++)
        if (cmp_row_fails(&res->rows[i]))
            return 1;
    return res->count[CB_CMP_UNSURE] > 0 ? unsure_exit : 0;
}

/* code_what's environment (codeid.h: "exe build-id H; LD_PRELOAD P H;
 * CB_X=V") as a shell prefix, "LD_PRELOAD=P CB_X=V ", which the stored
 * command line does not show. */
static void env_prefix(const char *what, struct cb_sb *out)
{
    struct cb_sb pre = CB_SB_INIT;
    for (const char *p = strchr(what, ';'); p; p = strchr(p + 1, ';')) {
        const char *item = p + 2, *end = strchr(item, ';');
        int n = end ? (int)(end - item) : (int)strlen(item);
        if (strncmp(item, "LD_PRELOAD ", 11) == 0) {
            const char *path = item + 11, *sp = memchr(path, ' ', (size_t)(n - 11));
            cb_sb_addf(&pre, "%s%.*s", pre.len ? ":" : "", sp ? (int)(sp - path) : n - 11, path);
        } else
            cb_sb_addf(out, "%.*s ", n, item);
    }
    if (pre.len)
        cb_sb_addf(out, "LD_PRELOAD=%s ", pre.buf);
    cb_sb_release(&pre);
}

/* The base's command line with its --tag (if any) left out and "--tag
 * floor" added: the runs it records must not join a side selected by the
 * base's tag, or they would be compared rather than teach the floor. */
static void floor_tag(const char *cmdline, struct cb_sb *out)
{
    const char *p = cmdline;
    for (;;) {
        const char *t = strstr(p, " --tag");
        if (!t || (t[6] != ' ' && t[6] != '=')) {
            cb_sb_adds(out, p);
            break;
        }
        cb_sb_add(out, p, (size_t)(t - p));
        const char *v = t + 7, *end = v;
        /* the value: up to a blank, or a quoted word as cb_quote_cmdline writes it */
        if (*v == '\'') {
            end = strchr(v + 1, '\'');
            end = end ? end + 1 : v + strlen(v);
        } else
            end = v + strcspn(v, " ");
        p = end;
    }
    cb_sb_adds(out, " --tag floor");
}

void cmp_record_hint(struct cb_store *st, const struct cb_side *A, const struct cmp_result *res,
                     char *buf, size_t len)
{
    buf[0] = '\0';
    if (!res->by_test[CMP_TEST_NOFLOOR] || !A->nruns)
        return;
    struct cb_sb cmdline = CB_SB_INIT, what = CB_SB_INIT;
    if (cb_store_run_cmdline(st, A->runs[0], &cmdline, &what) == 0) {
        struct cb_sb env = CB_SB_INIT;
        env_prefix(what.buf, &env);
        struct cb_sb cmd = CB_SB_INIT;
        floor_tag(cmdline.buf, &cmd);
        snprintf(buf, len, "%s%s", env.buf, cmd.buf);
        cb_sb_release(&cmd);
        cb_sb_release(&env);
    }
    cb_sb_release(&cmdline);
    cb_sb_release(&what);
}

enum { OPT_ALPHA = CMP_OPT_FIRST, OPT_THRESHOLD, OPT_CORRECTION, OPT_RUN_QUANTILE, OPT_TRIM, OPT_HOST };

/* One of the shared options that parse a value: 0 taken, 1 not one of
 * them, or -EINVAL with the message in err. */
static int cmp_common_opt(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct cmp_common *c = ctx;
    switch (id) {
    case OPT_ALPHA: return parse_alpha(arg, &c->o.alpha, err);
    case OPT_THRESHOLD:
        c->o.threshold_set = 1;
        return cmp_parse_pct(arg, "--threshold", &c->o.threshold, err);
    case OPT_CORRECTION:
        if (strcmp(arg, "holm") == 0)
            c->o.corr = CORR_HOLM;
        else if (strcmp(arg, "bh") == 0)
            c->o.corr = CORR_BH;
        else {
            cb_sb_setf(err, "--correction '%s': give holm or bh", arg);
            return -EINVAL;
        }
        return 0;
    case OPT_RUN_QUANTILE: return parse_run_quantile(arg, &c->o.run_q, err);
    case OPT_TRIM: return parse_trim(arg, &c->o.trim, err);
    case OPT_HOST:
        if (!*arg) {
            cb_sb_setf(err, "--host needs a machine id or a hostname glob");
            return -EINVAL;
        }
        c->host = arg;
        return 0;
    }
    return 1;
}

static const struct cb_option cmp_common_table[] = {
    CB_OPT_STR(0, "db", struct cmp_common, db, "PATH", "database (default ./" CB_DEFAULT_DB ")"),
    CB_OPT_CALL(OPT_ALPHA, "alpha", "P", "significance after correction (default 0.01)"),
    CB_OPT_CALL(OPT_THRESHOLD, "threshold", "PCT",
                "a change must exceed this over the whole 95% CI (default 2%)"),
    CB_OPT_CALL(OPT_CORRECTION, "correction", "C",
                "holm (default: no false alarm in the family) or bh (false discovery rate)"),
    CB_OPT_STR(0, "cases", struct cmp_common, o.glob, "GLOB",
               "only cases whose name probe/variant/size/mode matches"),
    CB_OPT_CALL(OPT_RUN_QUANTILE, "run-quantile", "Q",
                "each run counts as its Q-quantile sample (default 0.1: "
                "robust to a shared host; 0.5 is the median)"),
    CB_OPT_CALL(OPT_TRIM, "trim", "T",
                "with 3+ runs a side, trim this share of runs from each end (Yuen's test; "
                "default 0: Welch's)"),
    CB_OPT_BOOL(0, "placement-fails", struct cmp_common, o.placement_fails,
                "a change whose code is the same on both sides (labelled placement: where the code "
                "sat moved, not what it does) fails the gate too; by default it is shown and passes"),
    CB_OPT_BOOL(0, "keep-contended", struct cmp_common, o.keep_contended,
                "keep samples taken on a shared core (by default left out while 2+ runs a side "
                "keep 5+ quiet samples)"),
    CB_OPT_CALL(OPT_HOST, "host", "H",
                "only runs of the machine H: its id (as report shows it) or a hostname glob; "
                "needed when a side's runs come from several hosts (a merged store)"),
    CB_OPT_STR(0, "metric", struct cmp_common, o.want, "EVENT",
               "decide on this PMU count per op instead of time: instructions (exact, the "
               "threshold alone; every run must have counted it: run -e instructions)"),
    CB_OPT_BOOL(0, "force", struct cmp_common, force,
                "compare runs from different environments (the output says so)"),
    CB_OPT_BOOL(0, "include-aborted", struct cmp_common, include_aborted,
                "let aborted and running runs count"),
    CB_OPT_STR(0, "repo", struct cmp_common, repo, "DIR",
               "git tree for resolving revisions such as HEAD~1 (default .)"),
    CB_OPT_END,
};

const struct cb_opt_group cmp_common_options = {cmp_common_table, cmp_common_opt};

int cmp_select_host(struct cb_store *st, struct cb_side *s, const char *host, struct cb_sb *err)
{
    struct cb_machine *m;
    size_t n;
    char list[768];
    int rc = cb_side_machines(st, s, &m, &n);
    if (rc < 0) {
        cb_sb_setf(err, "cannot read the hosts of '%s': %s", s->spec, strerror(-rc));
        return rc;
    }
    cb_machines_list(m, n, list, sizeof list);
    free(m);
    if (host) {
        if ((rc = cb_side_keep_host(st, s, host)) < 0) {
            cb_sb_setf(err, "cannot read the hosts of '%s': %s", s->spec, strerror(-rc));
            return rc;
        }
        if (rc == 0) {
            cb_sb_setf(err, "--host %s: no run of '%s' is from a machine it names (they "
                     "are from %s)", host, s->spec, list);
            return -ENOENT;
        }
        return cmp_select_host(st, s, NULL, err);
    }
    if (n > 1) {
        cb_sb_setf(err, "the runs of '%s' come from %zu machines (%s): one side is one "
                 "machine; choose it with --host", s->spec, n, list);
        return -EXDEV;
    }
    return 0;
}

void cmp_common_defaults(struct cmp_common *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->db = cb_default_db();
    c->o.alpha = 0.01;
    c->o.threshold = 0.02;
    c->o.run_q = CB_RUN_QUANTILE_DEFAULT;
    c->o.trim = CB_RUNS_TRIM;
    c->o.corr = CORR_HOLM;
    c->fmt = FMT_TEXT;
    cb_sb_init(&c->cmdline);
    cb_quote_cmdline(argc, argv, &c->cmdline);
}

/* Check the fingerprints: within each side and across.  Returns 0, or
 * -EXDEV with the message in err when refused. */
int cmp_check_env(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                  int force, struct cb_sb *crosses, struct cb_sb *err)
{
    char fa[2048], fb[2048];
    struct cb_sb why = CB_SB_INIT;
    cb_sb_reset(crosses);
    int rc = cb_side_fingerprint(st, A, fa, sizeof fa, &why);
    if (rc == -EXDEV)
        cb_sb_setf(crosses, "%s", why.buf);
    else if (rc < 0)
        return cb_sb_release(&why), rc;
    rc = cb_side_fingerprint(st, B, fb, sizeof fb, &why);
    if (rc == -EXDEV && !crosses->len)
        cb_sb_setf(crosses, "%s", why.buf);
    else if (rc < 0 && rc != -EXDEV)
        return cb_sb_release(&why), rc;
    if (!crosses->len && cb_fingerprint_diff(fa, fb, &why))
        cb_sb_setf(crosses, "base vs head: %s", why.buf);
    cb_sb_release(&why);
    if (crosses->len && !force) {
        cb_sb_setf(err, "refusing to compare across environments (%.900s): measure both sides on the same "
                 "machine, kernel and build, on CPUs of one class (run --cpu N), or pass --force", crosses->buf);
        return -EXDEV;
    }
    return 0;
}

void cmp_common_release(struct cmp_common *c)
{
    cb_sb_release(&c->cmdline);
}

/* The distinct CPUs a side's runs were pinned to: "1" or "0,1". */
static void side_cpus(struct cb_store *st, const struct cb_side *s, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nruns && off < len; i++) {
        int cpu = cb_store_run_cpu(st, s->runs[i]);
        if (cpu < 0)
            continue;
        char one[16];
        snprintf(one, sizeof one, "%d", cpu);
        if (!cb_list_has_word(buf, one))
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", one);
    }
}

void cmp_cpu_note(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, char *buf,
                  size_t len)
{
    char a[128], b[128];
    side_cpus(st, A, a, sizeof a);
    side_cpus(st, B, b, sizeof b);
    buf[0] = '\0';
    if (strcmp(a, b) != 0 || strchr(a, ','))
        snprintf(buf, len, "pinned cpu %s (base) vs %s (head): CPUs of one class (core type, SMT "
                 "sibling, isolcpus, nohz_full, NUMA node), so compared", a, b);
}
