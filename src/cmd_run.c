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
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "budget.h"
#include "cmd.h"
#include "counters.h"
#include "cpu.h"
#include "events.h"
#include "gitinfo.h"
#include "harness.h"
#include "parse.h"
#include "probe.h"
#include "report.h"
#include "store.h"
#include "tsc.h"

#define MAX_SIZES 64
#define MAX_EVENTS_ASKED 12
#define DEFAULT_EVENTS "cycles,instructions,cache-misses,task-clock"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    stop_flag = sig;
}

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget run [options]\n"
            "  -p, --probes LIST      families to run (default: csum); see 'cyclebudget list'\n"
            "  -V, --variants GLOBS   variant name globs, comma-separated (default: all)\n"
            "  -s, --sizes LIST       sizes in bytes, e.g. 64,1500,4K,4M (default: each family's)\n"
            "  -e, --events LIST      events: aliases or libpfm4 names\n"
            "                         (default: " DEFAULT_EVENTS ")\n"
            "  -m, --mode MODE        warm, cold, or warm,cold (default: warm,cold)\n"
            "      --db PATH          database (default: ./" CB_DEFAULT_DB ")\n"
            "      --tag TAG          label the run, for report/compare\n"
            "      --commit REV       the measured commit (default: HEAD of --repo)\n"
            "      --repo DIR         the measured git tree (default: the current directory)\n"
            "      --reps N           exactly N samples per case (default: until the median's\n"
            "                         95%% CI is within +-1%%, or --max-time)\n"
            "      --max-time SEC     time cap per case when adaptive (default: 0.25)\n"
            "      --cpu N            pin to CPU N (default: the current one)\n"
            "      --cold-bytes SIZE  cold-mode working set (default: 2x LLC, 64M..128M)\n"
            "      --budget B         budget for the summary: 10G, 40G, 100G or cycles (default 10G)\n"
            "  -q, --quiet            no progress and no summary\n");
}

struct verdict_cache {
    const struct cb_variant *v;
    struct cb_verdict verdict;
};

static int glob_match_any(char **globs, const char *name)
{
    if (!globs)
        return 1;
    for (char **g = globs; *g; g++)
        if (fnmatch(*g, name, 0) == 0)
            return 1;
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
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *probes_arg = "csum", *variants_arg = NULL, *sizes_arg = NULL;
    const char *events_arg = DEFAULT_EVENTS, *mode_arg = "warm,cold", *db = CB_DEFAULT_DB;
    const char *tag = NULL, *commit = NULL, *repo = NULL, *budget_arg = "10G";
    int quiet = 0, cpu = -1;
    char err[512];
    struct cb_harness_opts hopt;
    cb_harness_defaults(&hopt);
    long lv;
    uint64_t u64;
    char cmdline[2048];
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
            if (cb_parse_size(optarg, &u64, err, sizeof err) < 0)
                goto usage_err;
            if (u64 < (1u << 20)) {
                snprintf(err, sizeof err, "--cold-bytes %s is too small to be out of cache: give at least 1M", optarg);
                goto usage_err;
            }
            hopt.cold_bytes = u64;
            break;
        case 9: budget_arg = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': run_usage(stdout); return 0;
        default: run_usage(stderr); return CB_EXIT_USAGE;
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

    char **pnames = NULL, *pstore = NULL, **vglobs = NULL, *vstore = NULL, **mnames = NULL, *mstore = NULL;
    int np = cb_parse_name_list(probes_arg, "--probes", &pnames, &pstore, err, sizeof err);
    if (np < 0)
        goto usage_err;
    const struct cb_probe *probes[32];
    if (np > 32) {
        snprintf(err, sizeof err, "--probes: too many names");
        goto usage_err;
    }
    for (int i = 0; i < np; i++) {
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
                snprintf(err, sizeof err, "no variant of %s matches '%s': did you mean %s? ('cyclebudget list variants')", probes_arg, *g, near);
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

    /* Events: every name must be known somewhere; an alias this PMU lacks is
     * kept and stored as unsupported. */
    int rc = cb_events_init();
    if (rc < 0) {
        cb_die_msg("libpfm4 failed to initialise (%s): check the libpfm4 installation", strerror(-rc));
        return 1;
    }
    char enames[MAX_EVENTS_ASKED][CB_EVENT_NAME_MAX];
    int ne = cb_events_split(events_arg, enames, MAX_EVENTS_ASKED);
    if (ne < 0) {
        snprintf(err, sizeof err, "--events: '%s' is not a comma-separated list of event names", events_arg);
        goto usage_err;
    }
    struct cb_event_spec specs[CB_MAX_COUNTERS];
    int nspec = 0;
    for (int i = 0; i < ne; i++) {
        struct cb_event_spec part[CB_EVENT_MAX_PARTS];
        size_t got = 0;
        /* The TSC and the estimate are always recorded; naming them is fine. */
        if (strcmp(enames[i], "tsc") == 0 || strcmp(enames[i], "cycles-est") == 0)
            continue;
        rc = cb_events_resolve(enames[i], part, CB_EVENT_MAX_PARTS, &got);
        if (rc == -ENOENT) {
            snprintf(err, sizeof err, "unknown event '%.60s': %.400s", enames[i], part[0].why);
            goto usage_err;
        }
        if (rc < 0 && rc != -EOPNOTSUPP) {
            snprintf(err, sizeof err, "event '%.60s' does not resolve: %.400s", enames[i], part[0].why);
            goto usage_err;
        }
        if (got == 0)
            got = 1; /* unsupported alias: keep its one row, status < 0 */
        for (size_t k = 0; k < got; k++) {
            if (nspec >= CB_MAX_COUNTERS - 2) {
                snprintf(err, sizeof err, "--events: too many events (at most %d counters)", CB_MAX_COUNTERS - 2);
                goto usage_err;
            }
            specs[nspec++] = part[k];
        }
    }

    /* ---- set up the machine side ---- */
    struct verdict_cache *vc = NULL;
    int pinned;
    if (cb_pin_cpu(cpu, &pinned, err, sizeof err) < 0)
        goto usage_err;
    struct cb_host host;
    cb_host_probe(&host);
    unsigned feats = host.features;
    struct cb_clocks clk;
    cb_clocks_measure(&clk);
    struct cb_counters cs;
    rc = cb_counters_open(&cs, specs, nspec, clk.tsc_ghz, clk.core_ghz);
    if (rc < 0) {
        cb_die_msg("cannot set up counters: %s", strerror(-rc));
        return 1;
    }
    const char *core_src = "estimate";
    double core_ghz = clk.core_ghz, core_spread = clk.core_spread;
    int cyc = cb_counters_find(&cs, "cycles");
    if (cyc >= 0 && cs.c[cyc].supported && cs.c[cyc].spec.source == CB_SRC_PMU) {
        /* With real core cycles, measure the clock instead of estimating it. */
        struct cb_reading r0, r1;
        struct cb_delta d;
        cb_counters_read(&cs, &r0);
        uint64_t t0 = cb_tsc_begin();
        while (cb_tsc_end() - t0 < (uint64_t)(20e6 * clk.tsc_ghz))
            ;
        cb_counters_read(&cs, &r1);
        cb_counters_delta(&cs, &r0, &r1, &d);
        int t = cb_counters_find(&cs, "tsc");
        if (t >= 0 && d.value[t] > 0 && d.value[cyc] > 0) {
            core_ghz = d.value[cyc] / d.value[t] * clk.tsc_ghz;
            core_spread = 0;
            core_src = "pmu";
        }
    }
    if (!quiet && cs.notice[0])
        fprintf(stderr, "cyclebudget: %s\n", cs.notice);

    struct cb_gitinfo git;
    rc = cb_gitinfo_read(repo, commit, &git);
    if (rc == -EINVAL) {
        snprintf(err, sizeof err, "--commit %s does not name a commit in %s", commit, repo ? repo : "the current git tree");
        cb_counters_close(&cs);
        goto usage_err;
    }
    if (rc == -ENOENT && repo) {
        snprintf(err, sizeof err, "--repo %s is not a git work tree with commits", repo);
        cb_counters_close(&cs);
        goto usage_err;
    }

    struct cb_store *st;
    rc = cb_store_open(db, CB_STORE_WRITE, 0, &st, err, sizeof err);
    if (rc < 0) {
        cb_die_msg("%s", err);
        cb_counters_close(&cs);
        return rc == -EPROTO || rc == -EINVAL || rc == -EISDIR || rc == -EACCES ? CB_EXIT_USAGE : 1;
    }

    struct cb_harness h;
    rc = cb_harness_init(&h, &cs, &hopt);
    if (rc < 0) {
        cb_die_msg("cannot calibrate the harness: %s", strerror(-rc));
        cb_store_close(st);
        cb_counters_close(&cs);
        return 1;
    }
    h.stop = &stop_flag;

    char feat_s[256];
    cb_cpu_feature_names(host.features, feat_s, sizeof feat_s);
    struct cb_run_meta meta = {
        .host = &host, .tsc_ghz = clk.tsc_ghz, .tsc_source = clk.tsc_source,
        .core_ghz = core_ghz, .core_ghz_spread = core_spread, .core_ghz_source = core_src,
        .pmu = cb_events_pmu(), .version = PACKAGE_VERSION, .compiler = CB_CC_VERSION,
        .cflags = CB_CFLAGS, .commit = git.commit, .subject = git.subject,
        .commit_date = git.date, .dirty = git.dirty, .cmdline = cmdline, .tag = tag,
        .cpu = pinned,
    };
    int64_t run_id, event_ids[CB_MAX_COUNTERS];
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if ((rc = cb_store_run_begin(st, &meta, &run_id)) < 0) {
        cb_die_msg("cannot record the run in %s: %s", db, strerror(-rc));
        goto fail_store;
    }
    for (int i = 0; i < cs.n; i++) {
        const struct cb_counter *c = &cs.c[i];
        struct cb_event_row row = {
            .name = c->spec.name, .part = c->spec.part, .pfm = c->spec.pfm,
            .encoding = c->spec.encoding, .source = cb_source_name(c->spec.source),
            .read_method = cb_read_method_name(c->method), .supported = c->supported,
            .why = c->supported ? "" : c->why,
        };
        if ((rc = cb_store_event_add(st, run_id, &row, &event_ids[i])) < 0) {
            cb_die_msg("cannot record events in %s: %s", db, strerror(-rc));
            goto fail_run;
        }
    }

    /* ---- the cases ---- */
    size_t nvc = 0, total = 0, done = 0;
    for (int i = 0; i < np; i++) {
        size_t ns = 0;
        if (nsizes)
            ns = (size_t)nsizes;
        else
            while (probes[i]->sizes[ns])
                ns++;
        for (size_t j = 0; j < probes[i]->nvariants; j++)
            if (!(probes[i]->variants[j].flags & CB_VARIANT_TESTONLY) &&
                glob_match_any(vglobs, probes[i]->variants[j].name))
                total += (probes[i]->variants[j].only_size ? 1 : ns) * (size_t)nm;
    }
    vc = calloc(total ? total : 1, sizeof *vc);
    int interactive = !quiet && isatty(2);
    int interrupted = 0;
    for (int i = 0; i < np && !interrupted; i++) {
        const struct cb_probe *p = probes[i];
        size_t ns = 0;
        const uint64_t *szs = sizes;
        uint64_t defsz[MAX_SIZES];
        if (nsizes)
            ns = (size_t)nsizes;
        else {
            while (p->sizes[ns] && ns < MAX_SIZES) {
                defsz[ns] = p->sizes[ns];
                ns++;
            }
            szs = defsz;
        }
        for (size_t si = 0; si < ns && !interrupted; si++) {
            for (int mi = 0; mi < nm && !interrupted; mi++) {
                for (size_t j = 0; j < p->nvariants && !interrupted; j++) {
                    const struct cb_variant *v = &p->variants[j];
                    if ((v->flags & CB_VARIANT_TESTONLY) || !glob_match_any(vglobs, v->name))
                        continue;
                    /* A fixed-size variant (memset's struct192) belongs only
                     * to its own size: at others there is no case at all. */
                    if (v->only_size && v->only_size != szs[si])
                        continue;
                    done++;
                    char szbuf[32];
                    cb_fmt_size(szs[si], p->unit, szbuf, sizeof szbuf);
                    if (interactive)
                        fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s %s", done, total, p->name,
                                v->name, szbuf, cb_mode_name(modes[mi]));
                    struct cb_case_row row = {
                        .probe = p->name, .variant = v->name, .size = szs[si], .unit = p->unit,
                        .op = p->op, .mode = cb_mode_name(modes[mi]), .bytes_per_op = 0,
                        .verdict = "ok", .detail = "",
                    };
                    char detail[300];
                    int64_t case_id;
                    if (!cb_variant_runnable(v, feats)) {
                        char need[128], lack[128];
                        cb_cpu_feature_names(v->needs, need, sizeof need);
                        cb_cpu_feature_names(v->needs & ~feats, lack, sizeof lack);
                        snprintf(detail, sizeof detail, "needs %s; this CPU lacks %s", need, lack);
                        row.verdict = "skipped";
                        row.detail = detail;
                        if ((rc = cb_store_case_add(st, run_id, &row, NULL, 0, &case_id)) < 0)
                            goto fail_cases;
                        continue;
                    }
                    /* Verify once per variant, before it is ever timed. */
                    struct verdict_cache *cv = NULL;
                    for (size_t k = 0; k < nvc; k++)
                        if (vc[k].v == v)
                            cv = &vc[k];
                    if (!cv) {
                        cv = &vc[nvc++];
                        cv->v = v;
                        rc = p->verify(v, &cv->verdict);
                        if (rc < 0) {
                            cv->verdict.ok = 0;
                            snprintf(cv->verdict.detail, sizeof cv->verdict.detail,
                                     "verification could not run: %s", strerror(-rc));
                        }
                        if (!cv->verdict.ok && !quiet)
                            fprintf(stderr, "%sBAD %s %s: %s (not timed)\n", interactive ? "\r\033[K" : "",
                                    p->name, v->name, cv->verdict.detail);
                    }
                    if (!cv->verdict.ok) {
                        row.verdict = "bad";
                        row.detail = cv->verdict.detail;
                        if ((rc = cb_store_case_add(st, run_id, &row, NULL, 0, &case_id)) < 0)
                            goto fail_cases;
                        continue;
                    }
                    struct cb_case c = {
                        .probe = p, .variant = v, .size = szs[si], .mode = modes[mi],
                        .cold_bytes = hopt.cold_bytes,
                    };
                    struct cb_measurement m;
                    rc = cb_harness_measure(&h, &c, &m);
                    if (rc == -EINTR) {
                        interrupted = 1;
                        cb_measurement_free(&m);
                        break;
                    }
                    if (rc < 0) {
                        snprintf(detail, sizeof detail, "setup failed: %s", strerror(-rc));
                        row.verdict = "skipped";
                        row.detail = detail;
                        cb_measurement_free(&m);
                        if ((rc = cb_store_case_add(st, run_id, &row, NULL, 0, &case_id)) < 0)
                            goto fail_cases;
                        continue;
                    }
                    row.bytes_per_op = c.bytes_per_op;
                    size_t nrows = m.n * (size_t)cs.n;
                    struct cb_sample_row *rows = malloc((nrows ? nrows : 1) * sizeof *rows);
                    if (!rows) {
                        cb_measurement_free(&m);
                        rc = -ENOMEM;
                        goto fail_cases;
                    }
                    size_t r = 0;
                    for (size_t k = 0; k < m.n; k++)
                        for (int e = 0; e < cs.n; e++)
                            rows[r++] = (struct cb_sample_row){
                                .seq = (int)k, .iters = m.iters, .event_id = event_ids[e],
                                .value = m.d[k].value[e], .overhead = m.overhead[e],
                                .enabled = m.d[k].enabled[e], .running = m.d[k].running[e],
                                .scaled = m.d[k].scaled[e],
                            };
                    rc = cb_store_case_add(st, run_id, &row, rows, nrows, &case_id);
                    free(rows);
                    cb_measurement_free(&m);
                    if (rc < 0)
                        goto fail_cases;
                }
            }
        }
    }
    if (interactive)
        fprintf(stderr, "\r\033[K");
    if (interrupted || stop_flag) {
        cb_store_run_finish(st, run_id, "aborted");
        cb_die_msg("interrupted: run %lld marked aborted (it will not appear in reports)", (long long)run_id);
        rc = 130;
        goto out;
    }
    if ((rc = cb_store_run_finish(st, run_id, "complete")) < 0) {
        cb_die_msg("cannot mark run %lld complete: %s", (long long)run_id, strerror(-rc));
        rc = 1;
        goto out;
    }
    rc = 0;
    if (!quiet) {
        struct cb_report rep;
        if (cb_report_load(st, run_id, &rep) == 0) {
            struct cb_text_opts to = {.budget = &budget, .color = isatty(1) && !getenv("NO_COLOR")};
            cb_report_summary(&rep, &to, stdout);
            cb_report_free(&rep);
        }
        printf("\nstored as run %lld in %s; 'cyclebudget report %lld%s%s' shows every variant\n",
               (long long)run_id, db, (long long)run_id, strcmp(db, CB_DEFAULT_DB) ? " --db " : "",
               strcmp(db, CB_DEFAULT_DB) ? db : "");
    }
    goto out;

fail_cases:
    cb_die_msg("cannot store a case in %s: %s; run %lld marked aborted", db, strerror(-rc), (long long)run_id);
fail_run:
    cb_store_run_finish(st, run_id, "aborted");
fail_store:
    rc = 1;
out:
    free(vc);
    cb_store_close(st);
    cb_counters_close(&cs);
    free(pnames);
    free(pstore);
    free(vglobs);
    free(vstore);
    free(mnames);
    free(mstore);
    return rc;

usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
