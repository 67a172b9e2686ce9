/* bpf.c — `cyclebudget bpf run`: measure inside the running kernel through
 * BPF, where no module loads (clouds, CI VMs, lockdown).
 *
 * It loads BPF programs with libbpf and times them with BPF_PROG_TEST_RUN,
 * each beside the empty program of the same mode: the kernel's own
 * csum_partial through bpf_csum_diff at the sizes the helper takes, and the
 * user's XDP program (--xdp FILE.o) on Ethernet/IPv4/UDP or TCP frames
 * the tool builds, in the default mode and with live frames (page_pool,
 * XDP_TX/REDIRECT/DROP as the program returns).  The run is stored as any
 * run (source "bpf", the kernel's release and config as its build, each
 * program's tag as its case's code), so that report sets csum beside the
 * user-space models and charges each case by the one budget rule, and
 * compare, history and race read it as any other.
 *
 * Refusals come before anything is written, one line each, exit 2: no
 * libbpf in this build, no CAP_BPF/CAP_SYS_ADMIN, bpf() refused, a program
 * the verifier rejects (the end of its log). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/cmd.h"
#include "cli/parse.h"
#include "config.h"
#include "harness/bpf_store.h"
#include "harness/bpfmeasure.h"
#include "harness/harness.h"
#include "harness/pktframe.h"
#include "host/sha256.h"
#include "probes/csum.h"
#include "store/store.h"
#include "util/strbuf.h"

#define CB_BPF_CASES_MAX 64
#define CB_BPF_SIZES_MAX 16

struct bpf_plan {
    const char *probes_arg, *sizes_arg, *frames_arg, *mode_arg, *xdp, *prog, *db, *tag;
    int quiet, cpu, pinned, expect, want_csum, want_xdp, want_default, want_live;
    enum cb_frame_proto proto;
    struct cb_harness_opts harness;
    struct cb_sb cmdline;
    uint64_t sizes[CB_BPF_SIZES_MAX], frames[CB_BPF_SIZES_MAX];
    int nsizes, nframes;
    /* Loaded: the tool's object (empty programs, csum) and the user's. */
    struct cb_bpf_obj *tool, *user;
    int empty_pass, empty_drop, csum_fd, xdp_fd;
    const char *xdp_name;
    char tool_sha[65], user_sha[65], config_sha[65], release[128];
    char csum_tag[17], xdp_tag[17], empty_tag[17], empty_drop_tag[17];
    int csum_addr, xdp_addr, empty_addr, empty_drop_addr;   /* JIT address mod 4096; -1 */
    struct cb_bpf_case cases[CB_BPF_CASES_MAX];
    char names[CB_BPF_CASES_MAX][80];
    unsigned char frames_buf[CB_BPF_CASES_MAX][CB_FRAME_MAX];
    size_t ncases;
};

enum { OPT_REPS = CB_OPT_LONG_ONLY, OPT_CPU, OPT_MAX_TIME, OPT_PROTO, OPT_EXPECT };

static int bpf_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct bpf_plan *b = ctx;
    static const char *const acts[] = {"drop", "pass", "tx", "redirect"};
    switch (id) {
    case OPT_REPS: return cb_parse_int(arg, 1, 100000, "--reps", &b->harness.reps, err);
    case OPT_CPU: return cb_parse_int(arg, 0, 65535, "--cpu", &b->cpu, err);
    case OPT_MAX_TIME:
        return cb_parse_seconds(arg, "--max-time", &b->harness.case_seconds, err);
    case OPT_PROTO:
        if (strcmp(arg, "udp") == 0 || strcmp(arg, "tcp") == 0) {
            b->proto = arg[0] == 't' ? CB_FRAME_TCP : CB_FRAME_UDP;
            return 0;
        }
        cb_sb_setf(err, "--proto '%s': give udp or tcp", arg);
        return -EINVAL;
    case OPT_EXPECT:
        for (int i = 0; i < 4; i++)
            if (strcasecmp(arg, acts[i]) == 0 ||
                (strncasecmp(arg, "XDP_", 4) == 0 && strcasecmp(arg + 4, acts[i]) == 0)) {
                b->expect = i + 1;
                return 0;
            }
        cb_sb_setf(err, "--expect '%s': give drop, pass, tx or redirect", arg);
        return -EINVAL;
    default:
        return 1;
    }
}

static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; p && (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return 1;
    return 0;
}

/* Every word of list one of words[]; else the message names them. */
static int only_words(const char *list, const char *opt, const char *const *words, size_t n,
                      const char *say, struct cb_sb *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < n && strcmp(words[i], t) != 0)
            i++;
        if (i == n) {
            cb_sb_setf(err, "%s '%s': give %s", opt, t, say);
            return -EINVAL;
        }
    }
    return 0;
}

/* -p, -s, --frame, -m checked and expanded. */
static int plan_check(struct bpf_plan *b, struct cb_sb *err)
{
    const char *const fams[] = {cb_probe_csum.name, "xdp"};
    static const char *const modes[] = {"default", "live"};
    char say[64];
    snprintf(say, sizeof say, "%s, xdp or %s,xdp", fams[0], fams[0]);
    if (b->probes_arg && only_words(b->probes_arg, "-p", fams, 2, say, err))
        return -EINVAL;
    if (b->mode_arg && only_words(b->mode_arg, "-m", modes, 2, "default, live or default,live", err))
        return -EINVAL;
    b->want_csum = !b->probes_arg || has_word(b->probes_arg, cb_probe_csum.name);
    b->want_xdp = b->probes_arg ? has_word(b->probes_arg, "xdp") : b->xdp != NULL;
    if (b->want_xdp && !b->xdp) {
        cb_sb_setf(err, "-p xdp times your XDP program: give it with --xdp FILE.o "
                        "(examples/xdp/ has two)");
        return -EINVAL;
    }
    b->want_default = !b->mode_arg || has_word(b->mode_arg, "default");
    b->want_live = !b->mode_arg || has_word(b->mode_arg, "live");
    int n = cb_parse_size_list(b->sizes_arg ? b->sizes_arg : "64,256,512", b->sizes,
                               CB_BPF_SIZES_MAX, err);
    if (n < 0)
        return -EINVAL;
    b->nsizes = n;
    for (int i = 0; i < n; i++)
        if (b->sizes[i] == 0 || b->sizes[i] > CB_BPF_CSUM_MAX || b->sizes[i] % 4) {
            cb_sb_setf(err, "-s %llu: bpf_csum_diff takes 4 to %d bytes in multiples of 4",
                       (unsigned long long)b->sizes[i], CB_BPF_CSUM_MAX);
            return -EINVAL;
        }
    n = cb_parse_size_list(b->frames_arg ? b->frames_arg : "64,1518", b->frames, CB_BPF_SIZES_MAX,
                           err);
    if (n < 0)
        return -EINVAL;
    b->nframes = n;
    for (int i = 0; i < n; i++)
        if (b->frames[i] < CB_FRAME_MIN || b->frames[i] > CB_FRAME_MAX) {
            cb_sb_setf(err, "--frame %llu: give frames of %d to %d bytes on the wire (FCS "
                            "included: 1518 carries a 1500-byte MTU)",
                       (unsigned long long)b->frames[i], CB_FRAME_MIN, CB_FRAME_MAX);
            return -EINVAL;
        }
    return 0;
}

static int bpf_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct bpf_plan *b = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR('p', "probes", struct bpf_plan, probes_arg, "LIST",
                   "csum (the kernel's csum_partial through bpf_csum_diff), xdp (--xdp's "
                   "program) (default: csum, and xdp with --xdp)"),
        CB_OPT_STR('s', "sizes", struct bpf_plan, sizes_arg, "LIST",
                   "csum sizes in bytes, 4 to 512 in multiples of 4 (default: 64,256,512)"),
        CB_OPT_STR(0, "xdp", struct bpf_plan, xdp, "FILE.o",
                   "time this XDP program (an object built with clang -O2 -g -target bpf)"),
        CB_OPT_STR(0, "prog", struct bpf_plan, prog, "NAME",
                   "the program of --xdp's object to time (default: its only XDP program)"),
        CB_OPT_STR(0, "frame", struct bpf_plan, frames_arg, "LIST",
                   "frames given to --xdp's program, bytes on the wire with the FCS, 64 to 1518 "
                   "(default: 64,1518)"),
        CB_OPT_CALL(OPT_PROTO, "proto", "P", "udp or tcp inside the frames (default: udp)"),
        CB_OPT_STR('m', "mode", struct bpf_plan, mode_arg, "MODE",
                   "default, live (BPF_F_TEST_XDP_LIVE_FRAMES: page_pool, and the action "
                   "carried out), or default,live (default: default,live)"),
        CB_OPT_CALL(OPT_EXPECT, "expect", "ACTION",
                    "the action --xdp's program must return: drop, pass, tx, redirect "
                    "(default: any but XDP_ABORTED)"),
        CB_OPT_CALL(OPT_REPS, "reps", "N",
                    "exactly N samples per case (default: until the median's 95% CI is within "
                    "+-1%, or --max-time)"),
        CB_OPT_CALL(OPT_MAX_TIME, "max-time", "SEC", "time cap per case when adaptive (default: 0.1)"),
        CB_OPT_STR(0, "db", struct bpf_plan, db, "PATH",
                   "database (default: $CB_DB, else ./" CB_DEFAULT_DB ")"),
        CB_OPT_STR(0, "tag", struct bpf_plan, tag, "TAG", "label the run"),
        CB_OPT_CALL(OPT_CPU, "cpu", "N", "pin to CPU N (default: the last CPU this process may use)"),
        CB_OPT_BOOL('q', "quiet", struct bpf_plan, quiet, "no progress lines"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "bpf",
        .option = bpf_option,
        .synopsis =
            "usage: cyclebudget bpf run [-p LIST] [-s LIST] [--xdp FILE.o [--prog NAME]] [--frame LIST]\n"
            "  Measure inside the running kernel through BPF, with no module: load programs\n"
            "  with libbpf and time them with BPF_PROG_TEST_RUN, each beside the empty\n"
            "  program of the same mode (its cost is stored and subtracted).  csum is the\n"
            "  kernel's own csum_partial through bpf_csum_diff, verified against the tool's\n"
            "  reference; --xdp times your XDP program on frames the tool builds, in the\n"
            "  default mode and with live frames.  The run is stored with every sample\n"
            "  (source \"bpf\"); 'report' sets csum beside its user-space models.  Needs\n"
            "  CAP_BPF with CAP_NET_ADMIN, or root: it says so otherwise (exit 2).\n",
        .options = options,
    };
    b->db = cb_default_db();
    b->cpu = CB_CPU_DEFAULT;
    b->expect = -1;
    cb_harness_defaults(&b->harness);
    if (argc < 2 || strcmp(argv[1], "run") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            cb_usage(&parser, stdout);
            return 1;
        }
        cb_sb_setf(err, "bpf takes one action, 'run' (cyclebudget bpf run --help)");
        return -EINVAL;
    }
    int rc = cb_getopt(argc - 1, argv + 1, &parser, b, err);
    if (rc != 0)
        return rc;
    if (optind < argc - 1) {
        cb_sb_setf(err, "bpf run takes options only ('%s')", argv[optind + 1]);
        return -EINVAL;
    }
    if (b->prog && !b->xdp) {
        cb_sb_setf(err, "--prog names a program of --xdp's object: give --xdp FILE.o");
        return -EINVAL;
    }
    return plan_check(b, err);
}

/* The sha256 of the running kernel's config, or "unknown". */
static void config_sha(struct bpf_plan *b)
{
    char path[300];
    snprintf(path, sizeof path, "/boot/config-%s", b->release);
    if (cb_sha256_file(path, b->config_sha) == 0 ||
        cb_sha256_file("/proc/config.gz", b->config_sha) == 0)
        return;
    snprintf(b->config_sha, sizeof b->config_sha, "unknown");
}

/* Every program into the XDP dispatcher for the run; where it cannot be,
 * each call pays two dispatcher updates, which the empty program's
 * measured beside it takes away on average but not their noise. */
static void pin_all(struct bpf_plan *b)
{
    struct cb_sb why = CB_SB_INIT;
    int fds[] = {b->empty_pass, b->empty_drop, b->csum_fd, b->xdp ? b->xdp_fd : -1};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            rc = cb_bpf_pin(fds[i], &why);
    if (rc < 0 && !b->quiet)
        fprintf(stderr, "cyclebudget: bpf run: the programs cannot be kept in the XDP dispatcher "
                        "(%s): each call pays two dispatcher updates (milliseconds), and the "
                        "figures are noisier\n", why.buf);
    cb_sb_release(&why);
}

/* The tool's programs, then the user's: every refusal said in why. */
static int load(struct bpf_plan *b, struct cb_sb *why)
{
    const char *name;
    int rc = cb_bpf_available() ? cb_bpf_check_caps(NULL, why) : -ENOSYS;
    if (rc == -ENOSYS)
        return cb_bpf_open(NULL, NULL, 0, "cb_bpf", &b->tool, why);
    if (rc == 0)
        rc = cb_bpf_open(NULL, cb_bpf_obj, cb_bpf_obj_len, "cb_bpf", &b->tool, why);
    if (rc == 0 && (rc = b->empty_pass = cb_bpf_prog(b->tool, "empty_pass", &name, why)) >= 0 &&
        (rc = b->empty_drop = cb_bpf_prog(b->tool, "empty_drop", &name, why)) >= 0)
        rc = b->csum_fd = cb_bpf_prog(b->tool, "csum_diff", &name, why);
    if (rc >= 0 && b->xdp) {
        if ((rc = cb_bpf_open(b->xdp, NULL, 0, NULL, &b->user, why)) == 0)
            rc = b->xdp_fd = cb_bpf_prog(b->user, b->prog, &b->xdp_name, why);
        if (rc >= 0 && (rc = cb_sha256_file(b->xdp, b->user_sha)) < 0)
            cb_sb_addf(why, "%s cannot be read: %s", b->xdp, strerror(-rc));
    }
    if (rc < 0)
        return rc;
    pin_all(b);
    struct cb_sha256 s;
    cb_sha256_init(&s);
    cb_sha256_update(&s, cb_bpf_obj, cb_bpf_obj_len);
    cb_sha256_hex(&s, b->tool_sha);
    if (cb_bpf_prog_tag(b->csum_fd, b->csum_tag, &b->csum_addr) < 0 ||
        cb_bpf_prog_tag(b->empty_pass, b->empty_tag, &b->empty_addr) < 0 ||
        cb_bpf_prog_tag(b->empty_drop, b->empty_drop_tag, &b->empty_drop_addr) < 0 ||
        (b->xdp && cb_bpf_prog_tag(b->xdp_fd, b->xdp_tag, &b->xdp_addr) < 0)) {
        cb_sb_addf(why, "the kernel gave no program tag (BPF_OBJ_GET_INFO_BY_FD): %s",
                   strerror(errno));
        return -EIO;
    }
    return 0;
}

static struct cb_bpf_case *add_case(struct bpf_plan *b, const char *probe, const char *variant,
                                    int live, uint32_t size, unsigned frame)
{
    if (b->ncases == CB_BPF_CASES_MAX)
        return NULL;
    size_t i = b->ncases++;
    snprintf(b->names[i], sizeof b->names[i], "%s%s", variant, live ? "+live" : "");
    int len = cb_frame_build(b->frames_buf[i], sizeof b->frames_buf[i], frame, b->proto);
    b->cases[i] = (struct cb_bpf_case){
        .probe = probe, .variant = b->names[i], .size = size, .live = live,
        .empty_fd = live ? b->empty_drop : b->empty_pass, .frame = b->frames_buf[i],
        .frame_len = len > 0 ? (uint32_t)len : 0, .expect = -1};
    return &b->cases[i];
}

/* csum at each size on a minimum frame, then the program at each frame
 * in each mode. */
static int plan_cases(struct bpf_plan *b)
{
    struct cb_bpf_case *c;
    for (int i = 0; b->want_csum && i < b->nsizes; i++) {
        if (!(c = add_case(b, cb_probe_csum.name, "bpf_csum_diff", 0, (uint32_t)b->sizes[i],
                           CB_FRAME_MIN)))
            return -E2BIG;
        c->prog_fd = b->csum_fd;
        c->obj = b->tool;
    }
    for (int i = 0; b->want_xdp && i < b->nframes; i++)
        for (int live = 0; live < 2; live++) {
            if (!(live ? b->want_live : b->want_default))
                continue;
            unsigned f = (unsigned)b->frames[i];
            if (!(c = add_case(b, "xdp", b->xdp_name, live, f, f)))
                return -E2BIG;
            c->prog_fd = b->xdp_fd;
            c->expect = b->expect;
            c->xdp = 1;
        }
    return 0;
}

/* Open the store, begin the run, verify and time every case, finish:
 * the exit status (0; 1 when a case was BAD or the run failed). */
static int bpf_collect(struct bpf_plan *b)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    int rc = cb_store_open(b->db, CB_STORE_WRITE, 0, &st, &err);
    if (rc < 0) {
        cb_error("bpf run: %s", err.buf);
        cb_sb_release(&err);
        return rc == -EPROTO || rc == -EINVAL || rc == -EISDIR || rc == -EACCES ? CB_EXIT_USAGE : 1;
    }
    struct cb_bpf_run r = {
        .cases = b->cases, .ncases = b->ncases, .harness = &b->harness, .xdp = b->xdp,
        .tool_sha = b->tool_sha, .user_sha = b->user_sha, .config_sha = b->config_sha,
        .release = b->release, .csum = {b->csum_tag, b->csum_addr}, .prog = {b->xdp_tag, b->xdp_addr},
        .empty = {b->empty_tag, b->empty_addr}, .empty_drop = {b->empty_drop_tag, b->empty_drop_addr},
        .cmdline = b->cmdline.buf, .tag = b->tag, .pinned = b->pinned, .quiet = b->quiet};
    if ((rc = cb_bpf_run_begin(&r, st)) < 0) {
        cb_error("bpf run: cannot record the run in %s: %s", b->db, strerror(-rc));
        cb_store_close(st);
        cb_sb_release(&err);
        return 1;
    }
    if (!b->quiet)
        fprintf(stderr, "cyclebudget: in the kernel %s through BPF_PROG_TEST_RUN, CPU %d: %zu cases, "
                "each beside the empty program\n", b->release, b->pinned, b->ncases);
    cb_sb_reset(&err);
    rc = cb_bpf_run_cases(&r, cb_stop_flag(), &err);
    cb_store_close(st);
    if (rc < 0 && rc != -EINTR && err.len)
        cb_error("bpf run: %s", err.buf);
    cb_sb_release(&err);
    if (rc == -EINTR) {
        cb_error("bpf run: stopped; run %" PRId64 " is stored as aborted", r.run_id);
        return 130;
    }
    if (rc < 0)
        return 1;
    if (!b->quiet)
        printf("run %" PRId64 " (bpf): %d cases verified and measured, %d BAD, %d skipped "
               "(the kernel would not run them); 'cyclebudget report %" PRId64 "' sets them "
               "beside the user-space models\n", r.run_id, r.nmeasured, r.nbad, r.nskipped,
               r.run_id);
    return r.nbad ? 1 : 0;
}

static int bpf_body(void *ctx, struct cb_store *unused)
{
    (void)unused;
    struct bpf_plan *b = ctx;
    struct cb_sb why = CB_SB_INIT;
    struct utsname u;
    snprintf(b->release, sizeof b->release, "%s", uname(&u) == 0 ? u.release : "unknown");
    int pinned, rc = load(b, &why);
    if (rc == 0 && (rc = cb_pin_cpu(b->cpu, &pinned, &why)) == 0)
        b->pinned = pinned;
    if (rc == 0 && plan_cases(b) < 0) {
        cb_sb_setf(&why, "too many cases (at most %d): give fewer sizes or frames", CB_BPF_CASES_MAX);
        rc = -E2BIG;
    }
    if (rc < 0) {
        cb_error("bpf run: %s", why.buf);
        cb_sb_release(&why);
        cb_bpf_unpin_all();
        cb_bpf_close(b->user);
        cb_bpf_close(b->tool);
        return CB_EXIT_USAGE;
    }
    cb_sb_release(&why);
    config_sha(b);
    cb_catch_stop_signals(1);
    int st = bpf_collect(b);
    cb_bpf_unpin_all();
    cb_bpf_close(b->user);
    cb_bpf_close(b->tool);
    return st;
}

int cmd_bpf(int argc, char **argv)
{
    static const struct cb_cmd cmd = {bpf_parse, CB_EXIT_USAGE, NULL, 1, bpf_body};
    struct bpf_plan *b = calloc(1, sizeof *b);
    if (!b) {
        cb_error("bpf run: out of memory");
        return 1;
    }
    cb_sb_init(&b->cmdline);
    cb_quote_cmdline(argc, argv, &b->cmdline);
    int st = cb_cmd_main(&cmd, argc, argv, b);
    cb_sb_release(&b->cmdline);
    free(b);
    return st;
}
