/* test_events.c — alias resolution per PMU, suggestions, the list parser.
 *
 * libpfm4 reads LIBPFM_FORCE_PMU once per process, so each PMU scenario
 * runs in a forked child that sets it before cb_events_init().  A child
 * writes its results down a pipe ("1 text", "0 text", "# note") and the
 * parent turns them into TAP points, so the output stays one stream.
 *
 * The references are independent of events.c: the expected libpfm4 string
 * is written here and encoded directly with pfm_get_os_event_encoding(),
 * and the low 16 bits of the raw config are checked against the event
 * select and unit mask the vendors document (AMD PPR, Intel SDM). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* events.h brings <linux/perf_event.h>; it must come before libpfm4's
 * header, which then skips its own copy of the definitions */
#include "counters/events.h"
#include "tap.h"

#include <perfmon/pfmlib_perf_event.h>

/* ---- child side ---- */

static FILE *res; /* the pipe to the parent, in the child only */

static void cok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cok(int cond, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    fprintf(res, "%d %s\n", cond ? 1 : 0, buf);
}

static void cnote(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cnote(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    fprintf(res, "# %s\n", buf);
}

/* What libpfm4 itself makes of str, at the same privilege levels. */
static int reference_encoding(const char *str, struct perf_event_attr *attr)
{
    pfm_perf_encode_arg_t arg;
    memset(attr, 0, sizeof(*attr));
    memset(&arg, 0, sizeof(arg));
    arg.attr = attr;
    arg.size = sizeof(arg);
    return pfm_get_os_event_encoding(str, PFM_PLM3 | PFM_PLM0, PFM_OS_PERF_EVENT_EXT, &arg);
}

struct expect {
    const char *alias;
    const char *event[2];    /* expected libpfm4 strings, per part */
    unsigned code[2];        /* documented event select | umask << 8 */
};

static void check_raw_alias(const char *pmu, const struct expect *e)
{
    struct cb_event_spec s[CB_EVENT_MAX_PARTS];
    size_t n = 99;
    int nexp = e->event[1] ? 2 : 1;
    int rc = cb_events_resolve(e->alias, s, CB_EVENT_MAX_PARTS, &n);

    cok(rc == 0 && (int)n == nexp, "%s %s: resolves to %d part(s) (rc %d, n %zu)", pmu, e->alias, nexp,
        rc, n);
    if (rc != 0 || (int)n != nexp) {
        if (n >= 1)
            cnote("why: %s", s[0].why);
        return;
    }
    for (int k = 0; k < nexp; k++) {
        const struct cb_event_spec *p = &s[k];
        char evname[128];
        snprintf(evname, sizeof(evname), "%.*s", (int)strcspn(e->event[k], ":"), e->event[k]);
        cok(p->status == 0 && !strcmp(p->name, e->alias), "%s %s[%d]: status 0, name kept", pmu,
            e->alias, k);
        cok(strstr(p->fstr, evname) != NULL && strstr(p->pfm, evname) != NULL,
            "%s %s[%d]: pfm \"%s\" / fstr name %s", pmu, e->alias, k, p->pfm, evname);
        cok(!strcmp(p->pmu, pmu), "%s %s[%d]: encoded by PMU %s", pmu, e->alias, k, p->pmu);
        cok(p->attr.type == PERF_TYPE_RAW && p->source == CB_SRC_PMU,
            "%s %s[%d]: attr.type %u == PERF_TYPE_RAW, source pmu", pmu, e->alias, k, p->attr.type);
        struct perf_event_attr ref;
        int r = reference_encoding(e->event[k], &ref);
        cok(r == PFM_SUCCESS && ref.config == p->attr.config && ref.config1 == p->attr.config1,
            "%s %s[%d]: config 0x%llx == libpfm4's own encoding of %s (0x%llx)", pmu, e->alias, k,
            (unsigned long long)p->attr.config, e->event[k], (unsigned long long)ref.config);
        cok((p->attr.config & 0xffff) == e->code[k], "%s %s[%d]: event|umask 0x%llx is the documented 0x%x",
            pmu, e->alias, k, (unsigned long long)(p->attr.config & 0xffff), e->code[k]);
        char want[64];
        snprintf(want, sizeof(want), "type=4 config=0x%llx", (unsigned long long)p->attr.config);
        cok(!strncmp(p->encoding, want, strlen(want)), "%s %s[%d]: encoding \"%s\"", pmu, e->alias, k,
            p->encoding);
    }
    if (nexp == 2)
        cok(strcmp(s[0].part, s[1].part) != 0 && strcmp(s[0].part, e->alias) != 0,
            "%s %s: parts labelled apart (%s, %s)", pmu, e->alias, s[0].part, s[1].part);
    else
        cok(!strcmp(s[0].part, e->alias), "%s %s: single part labelled by its name", pmu, e->alias);
}

/* task-clock and page-faults are kernel software events on every PMU. */
static void check_software(const char *pmu)
{
    static const struct { const char *alias; unsigned long long config; } sw[] = {
        { "task-clock", PERF_COUNT_SW_TASK_CLOCK },
        { "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
    };
    for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
        struct cb_event_spec s[CB_EVENT_MAX_PARTS];
        size_t n = 0;
        int rc = cb_events_resolve(sw[i].alias, s, CB_EVENT_MAX_PARTS, &n);
        cok(rc == 0 && n == 1 && s[0].attr.type == PERF_TYPE_SOFTWARE &&
                s[0].attr.config == sw[i].config && s[0].source == CB_SRC_SOFTWARE,
            "%s %s: software type %u config %llu", pmu, sw[i].alias, s[0].attr.type,
            (unsigned long long)s[0].attr.config);
    }
}

static void check_unknown(const char *pmu)
{
    struct cb_event_spec s[CB_EVENT_MAX_PARTS];
    size_t n = 0;
    int rc = cb_events_resolve("cylces", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == -ENOENT && n == 1 && s[0].status == -ENOENT, "%s cylces: -ENOENT (rc %d)", pmu, rc);
    cok(strstr(s[0].why, "cylces") && strstr(s[0].why, "cycles"), "%s cylces: why \"%s\" suggests cycles",
        pmu, s[0].why);
    char buf[256];
    cb_events_suggest("cylces", buf, sizeof(buf));
    cok(!strncmp(buf, "cycles", 6), "%s suggest(cylces) starts with cycles: \"%s\"", pmu, buf);
    cb_events_suggest("prefetch-drop", buf, sizeof(buf));
    cok(strstr(buf, "prefetch-drops") != NULL, "%s suggest(prefetch-drop): \"%s\"", pmu, buf);
    cb_events_suggest("zzzzzzzzzzzzzzzzzzzzzzzz", buf, sizeof(buf));
    cok(buf[0] == '\0', "%s nothing close to zzz...: \"%s\"", pmu, buf);
}

static void scenario_zen4(void)
{
    const char *pmu = "amd64_fam19h_zen4";
    static const struct expect ex[] = {
        { "cycles", { "CYCLES_NOT_IN_HALT" }, { 0x0076 } },
        { "instructions", { "RETIRED_INSTRUCTIONS" }, { 0x00c0 } },
        { "cache-misses", { "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS" }, { 0x0964 } },
        { "l1d-misses", { "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:"
                          "FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR" }, { 0xdf44 } },
        { "llc-misses", { "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR" }, { 0xc844 } },
        { "prefetch-drops", { "INEFFECTIVE_SOFTWARE_PREFETCH:DATA_PIPE_SW_PF_DC_HIT:MAB_MCH_CNT" }, { 0x0352 } },
    };
    cok(!strcmp(cb_events_pmu(), pmu), "forced PMU is %s (got %s)", pmu, cb_events_pmu());
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias(pmu, &ex[i]);
    check_software(pmu);
    check_unknown(pmu);

    /* any libpfm4 string passes through, qualified or not */
    struct cb_event_spec s[CB_EVENT_MAX_PARTS];
    size_t n = 0;
    struct perf_event_attr ref;
    int rc = cb_events_resolve("INEFFECTIVE_SOFTWARE_PREFETCH:MAB_MCH_CNT", s, CB_EVENT_MAX_PARTS, &n);
    reference_encoding("INEFFECTIVE_SOFTWARE_PREFETCH:MAB_MCH_CNT", &ref);
    cok(rc == 0 && n == 1 && !strcmp(s[0].part, s[0].name) && s[0].attr.config == ref.config &&
            (ref.config & 0xffff) == 0x0252,
        "raw libpfm4 string resolves as itself (config 0x%llx)", (unsigned long long)s[0].attr.config);
    rc = cb_events_resolve("amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == 0 && (s[0].attr.config & 0xffff) == 0xc0, "PMU-qualified string resolves");
    rc = cb_events_resolve("INEFFECTIVE_SOFTWARE_PREFETCH:NO_SUCH_UMASK", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc < 0 && rc != -ENOENT && s[0].status == rc && s[0].why[0], "bad umask: %d, why \"%s\"", rc,
        s[0].why);
    cb_events_suggest("INEFECTIVE_SOFTWARE_PREFETCH", s[0].why, sizeof(s[0].why));
    cok(strstr(s[0].why, "INEFFECTIVE_SOFTWARE_PREFETCH") != NULL,
        "suggest draws on the PMU's own event names: \"%s\"", s[0].why);
    const char *def = cb_event_alias_definition("prefetch-drops");
    cok(def && strstr(def, "INEFFECTIVE_SOFTWARE_PREFETCH"), "prefetch-drops definition names the event: %s",
        def ? def : "(null)");
}

static void scenario_zen3(void)
{
    static const struct expect ex[] = {
        { "cycles", { "CYCLES_NOT_IN_HALT" }, { 0x0076 } },
        { "prefetch-drops", { "INEFFECTIVE_SOFTWARE_PREFETCH:DATA_PIPE_SW_PF_DC_HIT:MAB_MCH_CNT" }, { 0x0352 } },
        { "llc-misses", { "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL:MEM_IO_RMT" }, { 0x4844 } },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias("amd64_fam19h_zen3", &ex[i]);
}

static void scenario_zen2(void)
{
    static const struct expect ex[] = {
        { "cycles", { "CYCLES_NOT_IN_HALT" }, { 0x0076 } },
        { "prefetch-drops", { "INEFFECTIVE_SOFTWARE_PREFETCH:DATA_PIPE_SW_PF_DC_HIT:MAB_MCH_CNT" }, { 0x0352 } },
        { "l1d-misses", { "DATA_CACHE_REFILLS_FROM_SYSTEM:MABRESP_LCL_L2:LS_MABRESP_LCL_CACHE:"
                          "LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_CACHE:LS_MABRESP_RMT_DRAM" }, { 0x5b43 } },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias("amd64_fam17h_zen2", &ex[i]);
}

static void scenario_icl(void)
{
    const char *pmu = "icl";
    static const struct expect ex[] = {
        { "cycles", { "UNHALTED_CORE_CYCLES" }, { 0x003c } },
        { "instructions", { "INSTRUCTION_RETIRED" }, { 0x00c0 } },
        { "cache-misses", { "LONGEST_LAT_CACHE:MISS" }, { 0x412e } },
        { "l1d-misses", { "L1D:REPLACEMENT" }, { 0x0151 } },
        { "llc-misses", { "MEM_LOAD_RETIRED:L3_MISS" }, { 0x20d1 } },
        { "prefetch-drops", { "LOAD_HIT_PREFETCH:SWPF", "L1D_PEND_MISS:FB_FULL" }, { 0x014c, 0x0248 } },
    };
    cok(!strcmp(cb_events_pmu(), pmu), "forced PMU is %s (got %s)", pmu, cb_events_pmu());
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias(pmu, &ex[i]);
    check_software(pmu);
    check_unknown(pmu);

    struct cb_event_spec s[1];
    size_t n = 0;
    int rc = cb_events_resolve("prefetch-drops", s, 1, &n);
    cok(rc == -ENOSPC, "two-part alias into room for one: -ENOSPC (got %d)", rc);
    const char *def = cb_event_alias_definition("prefetch-drops");
    cok(def && strstr(def, "LOAD_HIT_PREFETCH") && strstr(def, "FB_FULL"),
        "prefetch-drops definition names both events: %s", def ? def : "(null)");
}

static void scenario_skl(void)
{
    const char *pmu = "skl";
    static const struct expect ex[] = {
        { "cycles", { "UNHALTED_CORE_CYCLES" }, { 0x003c } },
        { "instructions", { "INSTRUCTION_RETIRED" }, { 0x00c0 } },
        { "cache-misses", { "LONGEST_LAT_CACHE:MISS" }, { 0x412e } },
        { "l1d-misses", { "L1D:REPLACEMENT" }, { 0x0151 } },
        { "llc-misses", { "MEM_LOAD_RETIRED:L3_MISS" }, { 0x20d1 } },
        { "prefetch-drops", { "LOAD_HIT_PRE:SW_PF", "L1D_PEND_MISS:FB_FULL" }, { 0x014c, 0x0248 } },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias(pmu, &ex[i]);
    check_software(pmu);
}

static void scenario_spr(void)
{
    static const struct expect ex[] = {
        { "cycles", { "UNHALTED_CORE_CYCLES" }, { 0x003c } },
        { "prefetch-drops", { "LOAD_HIT_PREFETCH:SWPF", "L1D_PEND_MISS:FB_FULL" }, { 0x014c, 0x0248 } },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias("spr", &ex[i]);
}

/* The generic perf PMU: what a VM shows. */
static void scenario_perf(void)
{
    struct cb_event_spec s[CB_EVENT_MAX_PARTS];
    size_t n = 0;
    cok(!strcmp(cb_events_pmu(), "perf"), "PMU is perf (got %s)", cb_events_pmu());

    int rc = cb_events_resolve("prefetch-drops", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == -EOPNOTSUPP && n == 1 && s[0].status == -EOPNOTSUPP, "perf prefetch-drops: -EOPNOTSUPP (%d)",
        rc);
    cok(strstr(s[0].why, "prefetch-drops") && strstr(s[0].why, "perf"),
        "perf prefetch-drops: why names alias and PMU: \"%s\"", s[0].why);
    cok(!strcmp(s[0].name, "prefetch-drops"), "unsupported spec still carries its name");

    rc = cb_events_resolve("cycles", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == 0 && s[0].attr.type == PERF_TYPE_HARDWARE && s[0].attr.config == PERF_COUNT_HW_CPU_CYCLES &&
            s[0].source == CB_SRC_PMU,
        "perf cycles: generic PERF_COUNT_HW_CPU_CYCLES (type %u config %llu)", s[0].attr.type,
        (unsigned long long)s[0].attr.config);
    rc = cb_events_resolve("instructions", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == 0 && s[0].attr.type == PERF_TYPE_HARDWARE && s[0].attr.config == PERF_COUNT_HW_INSTRUCTIONS,
        "perf instructions: generic");
    rc = cb_events_resolve("l1d-misses", s, CB_EVENT_MAX_PARTS, &n);
    unsigned long long want = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                              ((unsigned long long)PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
    cok(rc == 0 && s[0].attr.type == PERF_TYPE_HW_CACHE && s[0].attr.config == want,
        "perf l1d-misses: HW_CACHE L1D read miss (config 0x%llx)", (unsigned long long)s[0].attr.config);
    rc = cb_events_resolve("llc-misses", s, CB_EVENT_MAX_PARTS, &n);
    want = PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
           ((unsigned long long)PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
    cok(rc == 0 && s[0].attr.type == PERF_TYPE_HW_CACHE && s[0].attr.config == want,
        "perf llc-misses: HW_CACHE LL read miss");
    check_software("perf");
    check_unknown("perf");
    rc = cb_events_resolve("perf::PERF_COUNT_SW_PAGE_FAULTS", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == 0 && s[0].attr.type == PERF_TYPE_SOFTWARE && s[0].attr.config == PERF_COUNT_SW_PAGE_FAULTS,
        "perf:: string passes through");
}

/* ---- Arm PMUs: only in libpfm4's arm64 build (under qemu in CI) ----
 * The codes are the PMUv3 common event numbers of the Arm ARM (D17.11):
 * CPU_CYCLES 0x11, INST_RETIRED 0x08, L1D_CACHE_REFILL 0x03,
 * L2D_CACHE_REFILL 0x17, LL_CACHE_MISS_RD 0x37; the raw config is the
 * event number alone. */

static void check_arm_no_prefetch_drops(const char *pmu)
{
    struct cb_event_spec s[CB_EVENT_MAX_PARTS];
    size_t n = 0;
    int rc = cb_events_resolve("prefetch-drops", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == -EOPNOTSUPP && n == 1 && s[0].status == -EOPNOTSUPP && !strcmp(s[0].pmu, pmu),
        "%s prefetch-drops: -EOPNOTSUPP (rc %d)", pmu, rc);
    cok(strstr(s[0].why, "Arm PMUs have no dropped-software-prefetch event") != NULL,
        "%s prefetch-drops: why says so: \"%s\"", pmu, s[0].why);
}

/* The Neoverse PMUs (n1, v2): every alias on a PMUv3 common event, and
 * llc-misses on LL_CACHE_MISS_RD. */
static void check_arm_neoverse(const char *pmu)
{
    static const struct expect ex[] = {
        { "cycles", { "CPU_CYCLES" }, { 0x11 } },
        { "instructions", { "INST_RETIRED" }, { 0x08 } },
        { "cache-misses", { "L1D_CACHE_REFILL" }, { 0x03 } },
        { "l1d-misses", { "L1D_CACHE_REFILL" }, { 0x03 } },
        { "llc-misses", { "LL_CACHE_MISS_RD" }, { 0x37 } },
    };
    cok(!strcmp(cb_events_pmu(), pmu), "forced PMU is %s (got %s)", pmu, cb_events_pmu());
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias(pmu, &ex[i]);
    check_arm_no_prefetch_drops(pmu);
    check_software(pmu);
}

static void scenario_arm_n1(void)
{
    const char *pmu = "arm_n1";
    check_arm_neoverse(pmu);
    check_unknown(pmu);
    struct cb_event_spec s[CB_EVENT_MAX_PARTS];
    size_t n = 0;
    int rc = cb_events_resolve("cycles", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == 0 && !strcmp(s[0].encoding, "type=4 config=0x11 config1=0x0"),
        "arm_n1 cycles: encoding \"%s\" exactly", s[0].encoding);
    rc = cb_events_resolve("STALL_BACKEND", s, CB_EVENT_MAX_PARTS, &n);
    cok(rc == 0 && s[0].attr.config == 0x24, "a raw Arm event passes through (config 0x%llx)",
        (unsigned long long)s[0].attr.config);
    const char *def = cb_event_alias_definition("llc-misses");
    cok(def && strstr(def, "LL_CACHE_MISS_RD"), "llc-misses definition names the event: %s",
        def ? def : "(null)");
}

static void scenario_arm_v2(void)
{
    check_arm_neoverse("arm_v2");
}

/* The L2 is an A57 cluster's last level: llc-misses are its refills. */
static void scenario_arm_ac57(void)
{
    static const struct expect ex[] = {
        { "cycles", { "CPU_CYCLES" }, { 0x11 } },
        { "llc-misses", { "L2D_CACHE_REFILL" }, { 0x17 } },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
        check_raw_alias("arm_ac57", &ex[i]);
    check_arm_no_prefetch_drops("arm_ac57");
}

/* ---- parent side ---- */

static void run_child(const char *pmu, void (*fn)(void))
{
    int fds[2];
    if (pipe(fds) < 0) {
        ok(0, "pipe for %s", pmu);
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        ok(0, "fork for %s", pmu);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        res = fdopen(fds[1], "w");
        if (!res)
            _exit(3);
        if (setenv("LIBPFM_FORCE_PMU", pmu, 1) < 0)
            _exit(4);
        int rc = cb_events_init();
        cok(rc == 0, "%s: cb_events_init (%d)", pmu, rc);
        if (rc == 0)
            fn();
        fclose(res);
        _exit(0);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[1024];
    int points = 0;
    while (in && fgets(line, sizeof(line), in)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#') {
            printf("%s\n", line);
        } else if ((line[0] == '0' || line[0] == '1') && line[1] == ' ') {
            ok(line[0] == '1', "%s", line + 2);
            points++;
        }
    }
    if (in)
        fclose(in);
    int st = 0;
    waitpid(pid, &st, 0);
    ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && points > 0, "%s child ran to the end (%d points)", pmu,
       points);
}

int main(void)
{
    /* libpfm4 builds the tables of its own architecture only. */
#if defined(__x86_64__)
    run_child("amd64_fam19h_zen4", scenario_zen4);
    run_child("amd64_fam19h_zen3", scenario_zen3);
    run_child("amd64_fam17h_zen2", scenario_zen2);
    run_child("icl", scenario_icl);
    run_child("skl", scenario_skl);
    run_child("spr", scenario_spr);
    ok(1, "Arm PMUs arm_n1, arm_v2, arm_ac57 # SKIP libpfm4's x86 build has no Arm tables "
          "(checked in the arm64 build: make check-unit under qemu)");
#else
    (void)scenario_zen4, (void)scenario_zen3, (void)scenario_zen2;
    (void)scenario_icl, (void)scenario_skl, (void)scenario_spr;
    ok(1, "AMD and Intel PMUs # SKIP libpfm4's non-x86 builds have no x86 tables");
#endif
#if defined(__aarch64__)
    run_child("arm_n1", scenario_arm_n1);
    run_child("arm_v2", scenario_arm_v2);
    run_child("arm_ac57", scenario_arm_ac57);
#else
    (void)scenario_arm_n1, (void)scenario_arm_v2, (void)scenario_arm_ac57;
#endif
    run_child("perf", scenario_perf);

    /* the list parser needs no PMU */
    char names[8][CB_EVENT_NAME_MAX];
    int n = cb_events_split("cycles,instructions, prefetch-drops", names, 8);
    is_int(n, 3, "split: three names");
    if (n == 3) {
        is_str(names[0], "cycles", "split: first");
        is_str(names[2], "prefetch-drops", "split: spaces trimmed");
    }
    is_int(cb_events_split("", names, 8), -EINVAL, "split: empty list");
    is_int(cb_events_split("cycles,,instructions", names, 8), -EINVAL, "split: empty name");
    is_int(cb_events_split("cycles,", names, 8), -EINVAL, "split: trailing comma");
    n = cb_events_split("amd64_fam19h_zen4::INEFFECTIVE_SOFTWARE_PREFETCH:MAB_MCH_CNT", names, 8);
    is_int(n, 1, "split: a libpfm4 string with colons stays whole");
    ok(n < 0 || cb_events_split("a,b,c", names, 2) < 0, "split: more names than room is an error");

    is_str(cb_source_name(CB_SRC_PMU), "pmu", "source name pmu");
    is_str(cb_source_name(CB_SRC_ESTIMATE), "estimate", "source name estimate");
    int na = 0;
    while (cb_event_aliases[na])
        na++;
    ok(na >= 8, "at least 8 aliases (%d)", na);
    return tap_done();
}
