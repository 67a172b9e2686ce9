/* cmd_race.c — `cyclebudget race`: race the variants per size bucket, store
 * the race, print its table, and emit the winners as JSON or a C header.
 *
 * As with run, everything typed is checked before the database is opened, so
 * a typo writes nothing.  The race is a run (marked complete only after its
 * race rows are in); SIGINT/SIGTERM finish the current sample and mark it
 * aborted, with no race rows and nothing emitted. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "collect.h"
#include "parse.h"
#include "probe.h"
#include "race.h"
#include "race_report.h"
#include "report.h"
#include "tsc.h"
#include "workset.h"

#define RACE_DEFAULT_PROBES "csum,copy,csum_copy,memset"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    stop_flag = sig;
}

static void race_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget race [options]\n"
            "  -p, --probes LIST      families to race (default: " RACE_DEFAULT_PROBES ")\n"
            "  -s, --sizes LIST       one bucket per size, each up to that size, the last one\n"
            "                         open-ended (default: small <=64 @40, packets <=1500 @1500,\n"
            "                         pages <=4K @4K, large <=64K @64K, streaming beyond @2x LLC)\n"
            "      --mode MODE        warm or cold (default: warm)\n"
            "      --alpha A          rank-test level for a confident winner (default: 0.01)\n"
            "      --min-margin PCT   a confident winner is at least this much faster, at the\n"
            "                         low end of its CI (default: 2)\n"
            "      --rounds N         shuffled rounds per variant, the units of the test (default: 8)\n"
            "      --reps N           samples per variant per round; their median counts (default: 3)\n"
            "      --seed N           seed of the shuffle (default: from the clock)\n"
            "      --emit FORMAT      json or c-header, to -o or stdout\n"
            "  -o, --output FILE      where to emit (the format follows a .json or .h name)\n"
            "      --db PATH          database (default: ./" CB_DEFAULT_DB ")\n"
            "      --tag TAG          label the race's run\n"
            "  -e, --events LIST      events to count besides the ranked one (default: cycles)\n"
            "      --cpu N            pin to CPU N (default: the current one)\n"
            "      --cold-bytes SIZE  cold-mode working set, and the streaming bucket's size\n"
            "                         (default: 2x LLC, 64M..128M)\n"
            "  -q, --quiet            no progress and no table\n"
            "\n"
            "Variants are verified first (a BAD one never runs), then run in rounds in a\n"
            "shuffled order.  A winner is confident only when it beats every other variant\n"
            "(Mann-Whitney at --alpha, and by --min-margin); otherwise the variants it did\n"
            "not beat tie, and the one needing the fewest CPU features wins (then the\n"
            "family's reference, then the earlier in its table).\n");
}

static void quote_cmdline(int argc, char **argv, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "cyclebudget");
    for (int i = 0; i < argc && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, " %s", argv[i]);
}

struct progress {
    int on;
};

static void show_progress(void *arg, size_t done, size_t total, const struct cb_probe *p,
                          const struct cb_variant *v, uint64_t size, int round)
{
    struct progress *pg = arg;
    if (!pg->on)
        return;
    char szbuf[32];
    fprintf(stderr, "\r\033[K[%zu/%zu] round %d: %s %s %s", done, total, round, p->name, v->name,
            cb_fmt_size(size, p->unit, szbuf, sizeof szbuf));
}

/* A positive fraction in (0, 1) for --alpha. */
static int parse_alpha(const char *s, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0 && v < 0.5)) {
        snprintf(err, errlen, "--alpha '%s': give a level between 0 and 0.5, e.g. 0.01", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/* "2" or "2%" -> 0.02; 0 allowed, at most 100. */
static int parse_pct(const char *s, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s && *end == '%')
        end++;
    if (errno || end == s || *end || !(v >= 0 && v <= 100)) {
        snprintf(err, errlen, "--min-margin '%s': give a percentage from 0 to 100, e.g. 2", s);
        return -EINVAL;
    }
    *out = v / 100;
    return 0;
}

static int parse_seed(const char *s, uint64_t *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '+' || !*s)
        goto bad;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > INT64_MAX)
        goto bad;
    *out = v;
    return 0;
bad:
    snprintf(err, errlen, "--seed '%s': give a decimal number from 0 to %lld", s, (long long)INT64_MAX);
    return -EINVAL;
}

int cmd_race(int argc, char **argv)
{
    static const struct option opts[] = {
        {"probes", required_argument, 0, 'p'},    {"sizes", required_argument, 0, 's'},
        {"mode", required_argument, 0, 'm'},      {"alpha", required_argument, 0, 1},
        {"min-margin", required_argument, 0, 2},  {"rounds", required_argument, 0, 3},
        {"reps", required_argument, 0, 4},        {"seed", required_argument, 0, 5},
        {"emit", required_argument, 0, 6},        {"output", required_argument, 0, 'o'},
        {"db", required_argument, 0, 7},          {"tag", required_argument, 0, 8},
        {"events", required_argument, 0, 'e'},    {"cpu", required_argument, 0, 9},
        {"cold-bytes", required_argument, 0, 10}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
    };
    const char *probes_arg = RACE_DEFAULT_PROBES, *sizes_arg = NULL, *mode_arg = "warm";
    const char *emit = NULL, *outpath = NULL, *db = CB_DEFAULT_DB, *tag = NULL;
    const char *events_arg = "cycles";
    double alpha = 0.01, min_margin = 0.02;
    int rounds = 8, quiet = 0, cpu = -1, have_seed = 0;
    uint64_t seed = 0, u64;
    long lv;
    char err[512];
    struct cb_harness_opts hopt;
    cb_harness_defaults(&hopt);
    hopt.reps = 3;
    char cmdline[2048];
    quote_cmdline(argc, argv, cmdline, sizeof cmdline);

    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "p:s:m:o:e:qh", opts, NULL)) != -1) {
        switch (ch) {
        case 'p': probes_arg = optarg; break;
        case 's': sizes_arg = optarg; break;
        case 'm': mode_arg = optarg; break;
        case 1:
            if (parse_alpha(optarg, &alpha, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 2:
            if (parse_pct(optarg, &min_margin, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 3:
            if (cb_parse_long(optarg, 1, 1000, "--rounds", &lv, err, sizeof err) < 0)
                goto usage_err;
            rounds = (int)lv;
            break;
        case 4:
            if (cb_parse_long(optarg, 1, 10000, "--reps", &lv, err, sizeof err) < 0)
                goto usage_err;
            hopt.reps = (int)lv;
            break;
        case 5:
            if (parse_seed(optarg, &seed, err, sizeof err) < 0)
                goto usage_err;
            have_seed = 1;
            break;
        case 6: emit = optarg; break;
        case 'o': outpath = optarg; break;
        case 7: db = optarg; break;
        case 8: tag = optarg; break;
        case 'e': events_arg = optarg; break;
        case 9:
            if (cb_parse_long(optarg, 0, 65535, "--cpu", &lv, err, sizeof err) < 0)
                goto usage_err;
            cpu = (int)lv;
            break;
        case 10:
            if (cb_parse_cold_bytes(optarg, &u64, err, sizeof err) < 0)
                goto usage_err;
            hopt.cold_bytes = u64;
            break;
        case 'q': quiet = 1; break;
        case 'h': race_usage(stdout); return 0;
        default: return cb_option_error("race", argv);
        }
    }
    if (optind < argc) {
        snprintf(err, sizeof err, "unexpected argument '%s' (options only; see 'cyclebudget race --help')", argv[optind]);
        goto usage_err;
    }

    /* ---- validate everything before touching the database ---- */
    int m = cb_mode_parse(mode_arg);
    if (m < 0) {
        snprintf(err, sizeof err, "--mode '%s': a race runs in one mode: give warm or cold", mode_arg);
        goto usage_err;
    }
    if (!emit && outpath) {
        size_t len = strlen(outpath);
        if (len > 2 && strcmp(outpath + len - 2, ".h") == 0)
            emit = "c-header";
        else if (len > 5 && strcmp(outpath + len - 5, ".json") == 0)
            emit = "json";
        else {
            snprintf(err, sizeof err, "-o %s: say what to write with --emit json or --emit c-header", outpath);
            goto usage_err;
        }
    }
    if (emit && strcmp(emit, "json") != 0 && strcmp(emit, "c-header") != 0) {
        snprintf(err, sizeof err, "--emit '%s': give json or c-header", emit);
        goto usage_err;
    }
    if (outpath) {
        /* Refuse now an output that cannot be written, rather than after a
         * long race; the file itself is written only at the end. */
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", outpath);
        char *slash = strrchr(dir, '/');
        if (slash == dir)
            dir[1] = '\0';
        else if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        if (access(dir, W_OK) < 0) {
            snprintf(err, sizeof err, "-o %.200s: cannot write into %.200s (%s): choose another file", outpath, dir,
                     strerror(errno));
            goto usage_err;
        }
    }
    /* Each round is one value per variant: below 6 a rank test can never
     * reach alpha 0.01, and every bucket would be a tie. */
    if (rounds < 6) {
        snprintf(err, sizeof err, "--rounds %d: each round is one value for the rank test, which needs at least 6", rounds);
        goto usage_err;
    }

    char **pnames = NULL, *pstore = NULL;
    int np = cb_parse_name_list(probes_arg, "--probes", &pnames, &pstore, err, sizeof err);
    if (np < 0)
        goto usage_err;
    const struct cb_probe *probes[32];
    if (np > 32) {
        snprintf(err, sizeof err, "--probes: too many names");
        goto usage_err_free;
    }
    for (int i = 0; i < np; i++) {
        probes[i] = cb_probe_find(pnames[i]);
        if (!probes[i]) {
            char near[256];
            cb_suggest_probes(pnames[i], near, sizeof near);
            snprintf(err, sizeof err, "unknown probe '%s': did you mean %s? ('cyclebudget list probes' shows all)", pnames[i], near);
            goto usage_err_free;
        }
        /* The buckets are byte sizes; a family whose size counts something
         * else (descriptors in a ring) has no byte thresholds to pick. */
        if (!probes[i]->unit || strcmp(probes[i]->unit, "B") != 0) {
            snprintf(err, sizeof err, "%s's size counts %s, not bytes: the race's byte-size buckets do not apply (race csum, copy, csum_copy, memset or slab)",
                     probes[i]->name, probes[i]->unit ? probes[i]->unit : "no unit");
            goto usage_err_free;
        }
        for (int j = 0; j < i; j++)
            if (probes[j] == probes[i]) {
                snprintf(err, sizeof err, "--probes: %s is named twice", probes[i]->name);
                goto usage_err_free;
            }
    }
    struct cb_race_bucket buckets[CB_RACE_MAX_BUCKETS];
    int nb;
    if (sizes_arg) {
        uint64_t sizes[CB_RACE_MAX_BUCKETS + 1];
        int ns = cb_parse_size_list(sizes_arg, sizes, CB_RACE_MAX_BUCKETS + 1, err, sizeof err);
        if (ns < 0)
            goto usage_err_free;
        nb = cb_race_buckets_from_sizes(sizes, (size_t)ns, buckets);
        if (nb < 0) {
            snprintf(err, sizeof err, "--sizes: give 1 to %d sizes", CB_RACE_MAX_BUCKETS);
            goto usage_err_free;
        }
    } else {
        /* Beyond the last-level cache: the cold working set's size is this
         * project's measure of "no cache holds it". */
        nb = (int)cb_race_default_buckets(buckets, hopt.cold_bytes ? hopt.cold_bytes
                                                                   : cb_workset_cold_bytes());
    }
    if (!have_seed)
        seed = (cb_tsc_begin() ^ ((uint64_t)getpid() << 32)) & INT64_MAX;

    /* ---- open the session: events, CPU, git, database (last) ---- */
    struct cb_collect_opts co = {
        .db = db, .events = events_arg, .tag = tag, .cmdline = cmdline, .cpu = cpu,
        .quiet = quiet, .harness = hopt,
    };
    struct cb_collector col;
    int usage = 0;
    int rc = cb_collector_open(&col, &co, err, sizeof err, &usage);
    if (rc < 0) {
        if (usage)
            goto usage_err_free;
        cb_die_msg("%s", err);
        rc = 1;
        goto out;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct progress pg = {.on = !quiet && isatty(2)};
    struct cb_race_opts ro = {
        .probes = probes, .nprobes = (size_t)np, .buckets = buckets, .nbuckets = (size_t)nb,
        .mode = (enum cb_mode)m, .rounds = rounds, .alpha = alpha, .min_margin = min_margin,
        .seed = seed, .stop = &stop_flag, .progress = show_progress, .progress_arg = &pg,
    };
    struct cb_race race;
    rc = cb_race_run(&col, &ro, &race);
    if (pg.on)
        fprintf(stderr, "\r\033[K");
    int64_t run_id = col.run_id;
    if (rc == -EINTR || stop_flag) {
        cb_collector_finish(&col, "aborted");
        cb_die_msg("interrupted: race run %lld marked aborted (nothing emitted)", (long long)run_id);
        rc = 130;
        goto out_race;
    }
    if (rc == 0)
        rc = cb_race_store(&col, &race);
    if (rc < 0) {
        cb_collector_finish(&col, "aborted");
        cb_die_msg("the race failed: %s; run %lld marked aborted", strerror(-rc), (long long)run_id);
        rc = 1;
        goto out_race;
    }
    struct cb_host host = col.host;
    if ((rc = cb_collector_finish(&col, "complete")) < 0) {
        cb_die_msg("cannot mark run %lld complete: %s", (long long)run_id, strerror(-rc));
        rc = 1;
        goto out_race;
    }
    rc = 0;
    /* The table is read back from the store, as a later report reads it.
     * It goes to stderr when the emitted file takes stdout. */
    FILE *tab = emit && !outpath ? stderr : stdout;
    if (!quiet) {
        struct cb_store *st;
        if (cb_store_open(db, CB_STORE_READ, 0, &st, err, sizeof err) == 0) {
            cb_race_print(st, race.race_id, tab);
            cb_store_close(st);
        }
    }
    if (emit) {
        FILE *f = stdout;
        char tmp[1100];
        if (outpath) {
            snprintf(tmp, sizeof tmp, "%s.tmp", outpath);
            if (!(f = fopen(tmp, "w"))) {
                cb_die_msg("cannot write %s: %s (the race is stored as run %lld)", tmp, strerror(errno),
                           (long long)run_id);
                rc = 1;
                goto out_race;
            }
        }
        int erc = strcmp(emit, "json") == 0 ? cb_race_emit_json(&race, &host, f)
                                            : cb_race_emit_header(&race, &host, f);
        if (outpath) {
            if (fclose(f) != 0 && erc == 0)
                erc = -EIO;
            if (erc == 0 && rename(tmp, outpath) < 0)
                erc = -errno;
            if (erc < 0)
                unlink(tmp);
        } else if (fflush(stdout) != 0 && erc == 0) {
            erc = -EIO;
        }
        if (erc < 0) {
            cb_die_msg("cannot write %s: %s (the race is stored as run %lld)",
                       outpath ? outpath : "stdout", strerror(-erc), (long long)run_id);
            rc = 1;
            goto out_race;
        }
        if (outpath && !quiet)
            fprintf(tab, "wrote %s (%s)\n", outpath, emit);
    }
    if (!quiet)
        fprintf(tab, "stored as race %lld, run %lld in %s\n", (long long)race.race_id,
                (long long)run_id, db);
out_race:
    cb_race_free(&race);
out:
    free(pnames);
    free(pstore);
    return rc;

usage_err_free:
    free(pnames);
    free(pstore);
usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
