/* cmp_common.c — the options compare and bisect-check share
 * (cmp_common.h); analysis/verdict.c decides, report/verdict_text.c
 * prints. */
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

#include "host/fingerprint.h"
#include "counters/meter.h"
#include "cli/parse.h"
#include "report/report.h"
#include "counters/tsc.h"
#include "store/lookup.h"
#include "store/store.h"
#include "cli/cmp_common.h"

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
    CB_OPT_STR(0, "db", struct cmp_common, db, "PATH",
               "database (default: ./" CB_DEFAULT_DB ", or $CB_DB when set; bisect-check "
               "--against-plugin: $XDG_DATA_HOME/cyclebudget/" CB_DEFAULT_DB ", or $CB_DB)"),
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
void cmp_common_defaults(struct cmp_common *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->db = cb_default_db();
    c->o.alpha = 0.01;
    c->o.threshold = 0.02;
    c->o.run_q = CB_RUN_QUANTILE_DEFAULT;
    c->o.trim = CB_RUNS_TRIM;
    c->o.corr = CORR_HOLM;
    c->fmt = CB_FMT_TEXT;
    cb_sb_init(&c->cmdline);
    cb_quote_cmdline(argc, argv, &c->cmdline);
}
void cmp_common_release(struct cmp_common *c)
{
    cb_sb_release(&c->cmdline);
}
