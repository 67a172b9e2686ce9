/* cmd_run.c — `cyclebudget run`: validate, measure, store, summarise.
 *
 * Everything the user typed is checked before the database is opened for
 * writing, so a typo never leaves a half-made run behind.  A run is marked
 * complete only after its last case; SIGINT/SIGTERM finish the current
 * sample and mark it aborted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "collect.h"
#include "cmd.h"
#include "parse.h"
#include "probe.h"
#include "report.h"
#include "sides.h"

#define MAX_SIZES 64

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    stop_flag = sig;
}

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget run [options]\n"
            "  -p, --probes LIST      families to run, at all their sizes (default: the quick\n"
            "                         suite of every family; see 'cyclebudget list probes')\n"
            "  -V, --variants GLOBS   variant name globs, comma-separated (default: all)\n"
            "  -s, --sizes LIST       sizes in bytes, e.g. 64,1500,4K,4M (default: each family's)\n"
            "  -e, --events LIST      events: aliases or libpfm4 names\n"
            "                         (default: " CB_DEFAULT_EVENTS ")\n"
            "  -m, --mode MODE        warm, cold, or warm,cold (default: warm,cold)\n"
            "      --cases LIST       exactly these cases, named probe/variant/size/mode as\n"
            "                         compare prints them, comma-separated (not with -p/-V/-s/-m)\n"
            "      --db PATH          database (default: ./" CB_DEFAULT_DB ")\n"
            "      --tag TAG          label the run, for report/compare\n"
            "      --commit REV       the measured commit (default: HEAD of --repo)\n"
            "      --repo DIR         the measured git tree (default: the current directory)\n"
            "      --reps N           exactly N samples per case (default: until the median's\n"
            "                         95%% CI is within +-1%%, or --max-time)\n"
            "      --max-time SEC     time cap per case when adaptive (default: 0.1)\n"
            "      --rounds N         measure each case in N rounds, each set up anew, with an\n"
            "                         idle pause between them; --reps and --max-time are split\n"
            "                         over the rounds (default: 1; 5 for compare, see README)\n"
            "      --round-pause MS   that pause, in milliseconds (default: 20)\n"
            "      --cpu N            pin to CPU N (default: the current one)\n"
            "      --cold-bytes SIZE  cold-mode working set (default: 2x LLC, 64M..128M)\n"
            "      --budget B         budget for the summary: 10G, 40G, 100G or cycles (default 10G)\n"
            "  -q, --quiet            no progress and no summary\n");
}

static int glob_match_any(char **globs, const char *name)
{
    if (!globs)
        return 1;
    for (char **g = globs; *g; g++)
        if (fnmatch(*g, name, 0) == 0)
            return 1;
    return 0;
}

/* Is v of p selected: by -V globs when given, else by the quick suite's
 * globs when running the quick suite, else every variant. */
static int selected(const struct cb_probe *p, const struct cb_variant *v, char **vglobs, int suite)
{
    if (v->flags & CB_VARIANT_TESTONLY)
        return 0;
    if (vglobs)
        return glob_match_any(vglobs, v->name);
    if (!suite || !p->suite_variants)
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", p->suite_variants);
    for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save))
        if (fnmatch(g, v->name, 0) == 0)
            return 1;
    return 0;
}

/* The sizes of p in this run: -s, else the quick suite's, else all. */
static size_t sizes_of(const struct cb_probe *p, int suite, const uint64_t *given, int ngiven,
                       uint64_t *out, size_t max)
{
    if (ngiven) {
        for (int i = 0; i < ngiven; i++)
            out[i] = given[i];
        return (size_t)ngiven;
    }
    const size_t *src = suite && p->suite_sizes ? p->suite_sizes : p->sizes;
    size_t n = 0;
    while (n < max && src[n]) {
        out[n] = src[n];
        n++;
    }
    return n;
}

/* One case named as compare, history and ack name it. */
struct named_case {
    const struct cb_probe *p;
    const struct cb_variant *v;
    uint64_t size;
    enum cb_mode mode;
};

/* --cases: every name must be a case this binary can measure, so that
 * compare --rerun, which writes these lists, fails loudly when BASE's
 * binary lacks a case rather than recording a run without it. */
static int parse_cases(char **names, int n, struct named_case *out, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        char buf[CB_CASE_KEY_MAX], *f[4], *save = NULL;
        int nf = 0;
        snprintf(buf, sizeof buf, "%s", names[i]);
        for (char *t = strtok_r(buf, "/", &save); t && nf < 4; t = strtok_r(NULL, "/", &save))
            f[nf++] = t;
        if (nf != 4 || strtok_r(NULL, "/", &save)) {
            snprintf(err, errlen, "--cases: '%s' is not a case name: give probe/variant/size/mode, "
                     "e.g. csum/adc-2chain/1500/warm", names[i]);
            return -EINVAL;
        }
        out[i].p = cb_probe_find(f[0]);
        out[i].v = out[i].p ? cb_variant_find(out[i].p, f[1]) : NULL;
        if (!out[i].v || (out[i].v->flags & CB_VARIANT_TESTONLY)) {
            char near[256];
            if (out[i].p)
                cb_suggest_variants(f[1], near, sizeof near);
            else
                cb_suggest_probes(f[0], near, sizeof near);
            snprintf(err, errlen, "--cases: '%s': no %s '%s' here: did you mean %s?", names[i],
                     out[i].p ? "variant" : "probe", out[i].p ? f[1] : f[0], near);
            return -ENOENT;
        }
        int m = cb_mode_parse(f[3]);
        char why[256];
        if (cb_parse_size(f[2], &out[i].size, why, sizeof why) < 0) {
            snprintf(err, errlen, "--cases: '%s': %s", names[i], why);
            return -EINVAL;
        }
        if (m < 0 || out[i].size == 0 || (out[i].v->only_size && out[i].v->only_size != out[i].size)) {
            snprintf(err, errlen, "--cases: '%s': %s", names[i],
                     m < 0 ? "the mode must be warm or cold" : "not a size this variant measures");
            return -EINVAL;
        }
        out[i].mode = (enum cb_mode)m;
        for (int j = 0; j < i; j++)
            if (out[j].v == out[i].v && out[j].size == out[i].size && out[j].mode == out[i].mode) {
                snprintf(err, errlen, "--cases: '%s' is named twice: a run measures a case once",
                         names[i]);
                return -EINVAL;
            }
    }
    return 0;
}

/* Measure one case into the run.  0 to go on (*interrupted set on a
 * signal); 1 when the store failed: the run is then marked aborted. */
static int measure_one(struct cb_collector *col, const struct cb_probe *p, const struct cb_variant *v,
                       uint64_t size, enum cb_mode mode, const char *db, int *interrupted)
{
    int rc = cb_collector_case(col, p, v, size, mode, &stop_flag, NULL, NULL);
    if (rc == -EINTR) {
        *interrupted = 1;
    } else if (rc < 0) {
        cb_die_msg("cannot store a case in %s: %s; run %lld marked aborted", db, strerror(-rc),
                   (long long)col->run_id);
        cb_collector_finish(col, "aborted");
        return 1;
    }
    return 0;
}

static void quote_cmdline(int argc, char **argv, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "cyclebudget");
    for (int i = 0; i < argc && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, " %s", argv[i]);
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"probes", required_argument, 0, 'p'},   {"variants", required_argument, 0, 'V'},
        {"sizes", required_argument, 0, 's'},    {"events", required_argument, 0, 'e'},
        {"mode", required_argument, 0, 'm'},     {"db", required_argument, 0, 1},
        {"tag", required_argument, 0, 2},        {"commit", required_argument, 0, 3},
        {"repo", required_argument, 0, 4},       {"reps", required_argument, 0, 5},
        {"max-time", required_argument, 0, 6},   {"cpu", required_argument, 0, 7},
        {"cold-bytes", required_argument, 0, 8}, {"budget", required_argument, 0, 9},
        {"rounds", required_argument, 0, 10},    {"round-pause", required_argument, 0, 11},
        {"cases", required_argument, 0, 12},     {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0},
    };
    const char *probes_arg = NULL, *variants_arg = NULL, *sizes_arg = NULL, *cases_arg = NULL;
    const char *events_arg = CB_DEFAULT_EVENTS, *mode_arg = NULL, *db = CB_DEFAULT_DB;
    const char *tag = NULL, *commit = NULL, *repo = NULL, *budget_arg = "10G";
    int quiet = 0, cpu = -1;
    char err[512];
    struct cb_harness_opts hopt;
    cb_harness_defaults(&hopt);
    long lv;
    uint64_t u64;
    char cmdline[2048];
    /* Declared before the first goto usage_err, which frees them. */
    char **pnames = NULL, *pstore = NULL, **vglobs = NULL, *vstore = NULL, **mnames = NULL, *mstore = NULL;
    char **cnames = NULL, *cstore = NULL;
    int rc;
    struct named_case *named = NULL;
    int nnamed = 0;
    quote_cmdline(argc, argv, cmdline, sizeof cmdline);

    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "p:V:s:e:m:qh", opts, NULL)) != -1) {
        switch (ch) {
        case 'p': probes_arg = optarg; break;
        case 'V': variants_arg = optarg; break;
        case 's': sizes_arg = optarg; break;
        case 'e': events_arg = optarg; break;
        case 'm': mode_arg = optarg; break;
        case 1: db = optarg; break;
        case 2: tag = optarg; break;
        case 3: commit = optarg; break;
        case 4: repo = optarg; break;
        case 5:
            if (cb_parse_long(optarg, 1, 1000000, "--reps", &lv, err, sizeof err) < 0)
                goto usage_err;
            hopt.reps = (int)lv;
            break;
        case 6:
            if (cb_parse_seconds(optarg, "--max-time", &hopt.case_seconds, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 7:
            if (cb_parse_long(optarg, 0, 65535, "--cpu", &lv, err, sizeof err) < 0)
                goto usage_err;
            cpu = (int)lv;
            break;
        case 8:
            if (cb_parse_cold_bytes(optarg, &u64, err, sizeof err) < 0)
                goto usage_err;
            hopt.cold_bytes = u64;
            break;
        case 9: budget_arg = optarg; break;
        case 10:
            if (cb_parse_long(optarg, 1, CB_MAX_ROUNDS, "--rounds", &lv, err, sizeof err) < 0)
                goto usage_err;
            hopt.rounds = (int)lv;
            break;
        case 11:
            if (cb_parse_long(optarg, 0, 10000, "--round-pause", &lv, err, sizeof err) < 0)
                goto usage_err;
            hopt.pause_ms = (double)lv;
            break;
        case 12: cases_arg = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': run_usage(stdout); return 0;
        default: return cb_option_error("run", argv);
        }
    }
    if (optind < argc) {
        snprintf(err, sizeof err, "unexpected argument '%s' (options only; see 'cyclebudget run --help')", argv[optind]);
        goto usage_err;
    }

    /* ---- validate everything before touching the database ---- */
    struct cb_budget budget;
    if (cb_budget_parse(budget_arg, CB_MIN_FRAME, &budget, err, sizeof err) < 0)
        goto usage_err;
    if (cases_arg) {
        if (probes_arg || variants_arg || sizes_arg || mode_arg) {
            snprintf(err, sizeof err, "--cases names whole cases: leave out -p, -V, -s and -m");
            goto usage_err;
        }
        if ((nnamed = cb_parse_name_list(cases_arg, "--cases", &cnames, &cstore, err, sizeof err)) < 0)
            goto usage_err;
        if (!(named = calloc((size_t)nnamed, sizeof *named))) {
            snprintf(err, sizeof err, "out of memory");
            goto usage_err;
        }
        if (parse_cases(cnames, nnamed, named, err, sizeof err) < 0)
            goto usage_err;
    }
    if (!mode_arg)
        mode_arg = "warm,cold";

    const struct cb_probe *probes[32];
    int suite = probes_arg == NULL && !cases_arg, np = 0;
    if (cases_arg) {
        /* the named cases only: no family loop below */
    } else if (suite) {
        for (size_t i = 0; i < cb_nprobes && np < 32; i++)
            if (cb_probes[i]->suite_sizes)
                probes[np++] = cb_probes[i];
    } else if ((np = cb_parse_name_list(probes_arg, "--probes", &pnames, &pstore, err, sizeof err)) < 0) {
        goto usage_err;
    }
    if (np > 32) {
        snprintf(err, sizeof err, "--probes: too many names");
        goto usage_err;
    }
    for (int i = 0; i < np && !suite; i++) {
        probes[i] = cb_probe_find(pnames[i]);
        if (!probes[i]) {
            char near[256];
            cb_suggest_probes(pnames[i], near, sizeof near);
            snprintf(err, sizeof err, "unknown probe '%s': did you mean %s? ('cyclebudget list probes' shows all)", pnames[i], near);
            goto usage_err;
        }
    }
    if (variants_arg) {
        if (cb_parse_name_list(variants_arg, "--variants", &vglobs, &vstore, err, sizeof err) < 0)
            goto usage_err;
        for (char **g = vglobs; *g; g++) {
            int hit = 0;
            for (int i = 0; i < np && !hit; i++)
                for (size_t j = 0; j < probes[i]->nvariants && !hit; j++)
                    hit = !(probes[i]->variants[j].flags & CB_VARIANT_TESTONLY) &&
                          fnmatch(*g, probes[i]->variants[j].name, 0) == 0;
            if (!hit) {
                char near[256];
                cb_suggest_variants(*g, near, sizeof near);
                snprintf(err, sizeof err, "no variant of %s matches '%s': did you mean %s? ('cyclebudget list variants')", suite ? "the quick suite's families" : probes_arg, *g, near);
                goto usage_err;
            }
        }
    }
    int nm = cb_parse_name_list(mode_arg, "--mode", &mnames, &mstore, err, sizeof err);
    if (nm < 0)
        goto usage_err;
    enum cb_mode modes[2];
    if (nm > 2) {
        snprintf(err, sizeof err, "--mode: give warm, cold or warm,cold");
        goto usage_err;
    }
    for (int i = 0; i < nm; i++) {
        int m = cb_mode_parse(mnames[i]);
        if (m < 0) {
            snprintf(err, sizeof err, "--mode: unknown mode '%s': give warm, cold or warm,cold", mnames[i]);
            goto usage_err;
        }
        modes[i] = (enum cb_mode)m;
    }
    uint64_t sizes[MAX_SIZES];
    int nsizes = 0;
    if (sizes_arg && (nsizes = cb_parse_size_list(sizes_arg, sizes, MAX_SIZES, err, sizeof err)) < 0)
        goto usage_err;

    /* ---- open the session: events, CPU, git, database (last) ---- */
    struct cb_collect_opts co = {
        .db = db, .events = events_arg, .tag = tag, .commit = commit, .repo = repo,
        .cmdline = cmdline, .cpu = cpu, .quiet = quiet, .harness = hopt,
    };
    struct cb_collector col;
    int usage = 0;
    /* Caught from before the run is begun, so no window leaves it
     * 'running'; a second signal kills at once (SA_RESETHAND), and the
     * next open reaps the run as aborted. */
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rc = cb_collector_open(&col, &co, err, sizeof err, &usage);
    if (rc < 0) {
        if (usage)
            goto usage_err;
        cb_die_msg("%s", err);
        return 1;
    }

    /* ---- the cases: per probe, size, mode, every matching variant ---- */
    size_t total = 0, done = 0;
    for (int i = 0; i < np; i++) {
        uint64_t szs[MAX_SIZES];
        size_t ns = sizes_of(probes[i], suite, sizes, nsizes, szs, MAX_SIZES);
        for (size_t j = 0; j < probes[i]->nvariants; j++)
            if (selected(probes[i], &probes[i]->variants[j], vglobs, suite))
                for (size_t si = 0; si < ns; si++)
                    total += (!probes[i]->variants[j].only_size ||
                              probes[i]->variants[j].only_size == szs[si]) * (size_t)nm;
    }
    total += (size_t)nnamed;
    int interactive = !quiet && isatty(2);
    int interrupted = stop_flag != 0;
    for (int i = 0; i < nnamed && !interrupted; i++) {
        done++;
        if (interactive)
            fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, cnames[i]);
        if ((rc = measure_one(&col, named[i].p, named[i].v, named[i].size, named[i].mode, db,
                              &interrupted)) != 0)
            goto out;
    }
    for (int i = 0; i < np && !interrupted; i++) {
        const struct cb_probe *p = probes[i];
        uint64_t szs[MAX_SIZES];
        size_t ns = sizes_of(p, suite, sizes, nsizes, szs, MAX_SIZES);
        for (size_t si = 0; si < ns && !interrupted; si++) {
            for (int mi = 0; mi < nm && !interrupted; mi++) {
                for (size_t j = 0; j < p->nvariants && !interrupted; j++) {
                    const struct cb_variant *v = &p->variants[j];
                    if (!selected(p, v, vglobs, suite))
                        continue;
                    /* A fixed-size variant (memset's struct192) belongs only
                     * to its own size: at others there is no case at all. */
                    if (v->only_size && v->only_size != szs[si])
                        continue;
                    done++;
                    if (interactive) {
                        char szbuf[32];
                        fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s %s", done, total, p->name,
                                v->name, cb_fmt_size(szs[si], p->unit, szbuf, sizeof szbuf),
                                cb_mode_name(modes[mi]));
                    }
                    if ((rc = measure_one(&col, p, v, szs[si], modes[mi], db, &interrupted)) != 0)
                        goto out;
                }
            }
        }
    }
    if (interactive)
        fprintf(stderr, "\r\033[K");
    int64_t run_id = col.run_id;
    if (interrupted || stop_flag) {
        cb_collector_finish(&col, "aborted");
        cb_die_msg("interrupted: run %lld marked aborted (it will not appear in reports)", (long long)run_id);
        rc = 130;
        goto out;
    }
    if ((rc = cb_collector_finish(&col, "complete")) < 0) {
        cb_die_msg("cannot mark run %lld complete: %s", (long long)run_id, strerror(-rc));
        rc = 1;
        goto out;
    }
    rc = 0;
    if (!quiet) {
        /* The summary is read back from the store, as any later report is. */
        struct cb_store *st;
        struct cb_report rep;
        if (cb_store_open(db, CB_STORE_READ, 0, &st, err, sizeof err) == 0) {
            if (cb_report_load(st, run_id, &rep) == 0) {
                struct cb_text_opts to = {.budget = &budget, .color = isatty(1) && !getenv("NO_COLOR")};
                cb_report_summary(&rep, &to, stdout);
                cb_report_free(&rep);
            }
            cb_store_close(st);
        }
        printf("\nstored as run %lld in %s; 'cyclebudget report %lld%s%s' shows every variant\n",
               (long long)run_id, db, (long long)run_id, strcmp(db, CB_DEFAULT_DB) ? " --db " : "",
               strcmp(db, CB_DEFAULT_DB) ? db : "");
    }
out:
    free(pnames);
    free(pstore);
    free(vglobs);
    free(vstore);
    free(mnames);
    free(mstore);
    free(cnames);
    free(cstore);
    free(named);
    return rc;

usage_err:
    cb_die_msg("%s", err);
    rc = CB_EXIT_USAGE;
    goto out;
}
