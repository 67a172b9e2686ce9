/* events.c — user event names and portable aliases to perf_event_attr.
 *
 * libpfm4 does the encoding; this file adds the alias table (one row per
 * alias and PMU family), the "no such event on this PMU" answers, and the
 * "did you mean" suggestions.  The only state is libpfm4's own. */
#define _GNU_SOURCE
#include "counters/events.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <perfmon/pfmlib_perf_event.h>

const char *cb_source_name(enum cb_source s)
{
    switch (s) {
    case CB_SRC_PMU:      return "pmu";
    case CB_SRC_SOFTWARE: return "software";
    case CB_SRC_TSC:      return "tsc";
    case CB_SRC_ESTIMATE: return "estimate";
    case CB_SRC_SIMULATED: return "simulated";
    }
    return "?";
}

const char *const cb_event_aliases[] = {
    "cycles", "instructions", "cache-misses", "l1d-misses", "llc-misses",
    "prefetch-drops", "task-clock", "page-faults", NULL,
};

/* One alias on one PMU family.  pmus is a space-separated list of libpfm4
 * PMU names ("*" = any PMU: kernel software events).  events[] are libpfm4
 * strings, without the PMU prefix for core PMUs (the present PMU's name is
 * put in front, so a name shared with the generic perf PMU cannot pick the
 * wrong one); perf:: rows carry their prefix.  A row with no events says
 * the PMU has no such event, and def says why.  sw_config >= 0 is the
 * PERF_TYPE_SOFTWARE config used when libpfm4 cannot encode the perf::
 * name: under LIBPFM_FORCE_PMU the perf PMU is hidden, but kernel software
 * events exist whatever the hardware.
 *
 * Every row was checked to encode under LIBPFM_FORCE_PMU=<pmu> with libpfm4
 * 4.13 (tests/test_events.c re-checks the main families; the Arm rows in
 * the arm64 build, under qemu). */
struct alias_row {
    const char *alias;
    const char *pmus;
    const char *events[CB_EVENT_MAX_PARTS];
    const char *labels[CB_EVENT_MAX_PARTS];
    const char *def;
    int sw_config;
};

#define ZEN_ALL "amd64_fam17h_zen1 amd64_fam17h_zen2 amd64_fam19h_zen3 amd64_fam19h_zen4"
#define INTEL_SKL "skl skx clx"
#define INTEL_ICL "icl icx spr"
#define INTEL_HSW "hsw bdw"
#define INTEL_CORE INTEL_HSW " " INTEL_SKL " " INTEL_ICL
/* The ARMv8 core PMUs of Debian's libpfm4 4.13 (arm64 build only; the x86
 * build has no Arm tables), and which of them have LL_CACHE_MISS_RD or
 * have the L2 as their last level. */
#define ARM_LLC_RD "arm_n1 arm_n2 arm_v1 arm_v2 arm_kunpeng"
#define ARM_L2_LAST "arm_ac57 arm_ac53 arm_a64fx"
#define ARM_V8 ARM_LLC_RD " " ARM_L2_LAST " arm_thunderx2 arm_xgene"

/* One Zen family's l1d-misses and llc-misses rows: the same fill event,
 * with all its sources (all) or only those from memory (mem). */
#define ZEN_FILLS(pmu, ev, all, all_what, mem, mem_what)                                 \
    { "l1d-misses", pmu, { ev ":" all }, { 0 },                                          \
      "l1d-misses = " ev " (all sources): " all_what, -1 },                              \
    { "llc-misses", pmu, { ev ":" mem }, { 0 }, "llc-misses = " ev " " mem_what, -1 }

static const struct alias_row alias_table[] = {
    /* ---- AMD Zen (family 17h, 19h) ---- */
    { "cycles", ZEN_ALL, { "CYCLES_NOT_IN_HALT" }, { 0 },
      "cycles = CYCLES_NOT_IN_HALT: core clock cycles while not halted", -1 },
    { "instructions", ZEN_ALL, { "RETIRED_INSTRUCTIONS" }, { 0 },
      "instructions = RETIRED_INSTRUCTIONS", -1 },
    /* The same L2-miss encoding (0x0964) the kernel uses for cache-misses
     * on Zen: data reads and instruction fills that missed L2. */
    { "cache-misses", ZEN_ALL,
      { "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS" }, { 0 },
      "cache-misses = CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS (LS_RD_BLK_C + IC_FILL_MISS): L2 misses", -1 },
    /* Neither vendor has a "dropped prefetch" event; on Zen the nearest is
     * a software prefetch that did nothing: the line was already in L1
     * (DC hit) or already being fetched (MAB match). */
    { "prefetch-drops", ZEN_ALL,
      { "INEFFECTIVE_SOFTWARE_PREFETCH:DATA_PIPE_SW_PF_DC_HIT:MAB_MCH_CNT" }, { 0 },
      "prefetch-drops = INEFFECTIVE_SOFTWARE_PREFETCH (DC hit + MAB match): ineffective software prefetches", -1 },
    /* L1D fills by where they came from: l1d-misses counts every source,
     * llc-misses those from DRAM or I/O (L3 is an uncore PMU on Zen, so
     * from the core an L3 miss is such a fill).  Zen 3/4 renamed the fill
     * sources; Zen 2 has the older event. */
    ZEN_FILLS("amd64_fam19h_zen3", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM",
              "LCL_L2:INT_CACHE:EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT",
              "L1D fills, demand and prefetch",
              "MEM_IO_LCL:MEM_IO_RMT", "(MEM_IO_LCL + MEM_IO_RMT): L1D fills from DRAM/IO"),
    ZEN_FILLS("amd64_fam19h_zen4", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM",
              "LCL_L2:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:"
              "ALT_MEM_NEAR_FAR",
              "L1D fills, demand and prefetch",
              "DRAM_IO_NEAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR",
              "(DRAM_IO_NEAR + DRAM_IO_FAR + ALT_MEM): L1D fills from memory"),
    ZEN_FILLS("amd64_fam17h_zen2", "DATA_CACHE_REFILLS_FROM_SYSTEM",
              "MABRESP_LCL_L2:LS_MABRESP_LCL_CACHE:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_CACHE:"
              "LS_MABRESP_RMT_DRAM",
              "L1D refills",
              "LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_DRAM", "(local + remote DRAM): L1D refills from memory"),

    /* ---- Intel cores ---- */
    { "cycles", INTEL_CORE " ix86arch", { "UNHALTED_CORE_CYCLES" }, { 0 },
      "cycles = UNHALTED_CORE_CYCLES", -1 },
    { "instructions", INTEL_CORE " ix86arch", { "INSTRUCTION_RETIRED" }, { 0 },
      "instructions = INSTRUCTION_RETIRED", -1 },
    /* What perf uses for cache-misses on Intel: every LLC miss, demand,
     * prefetch and code. */
    { "cache-misses", INTEL_CORE, { "LONGEST_LAT_CACHE:MISS" }, { 0 },
      "cache-misses = LONGEST_LAT_CACHE:MISS: last-level cache misses (all requests)", -1 },
    { "cache-misses", "ix86arch", { "LLC_MISSES" }, { 0 },
      "cache-misses = LLC_MISSES: last-level cache misses (architectural event)", -1 },
    { "l1d-misses", INTEL_CORE, { "L1D:REPLACEMENT" }, { 0 },
      "l1d-misses = L1D:REPLACEMENT: lines brought into L1D", -1 },
    { "llc-misses", INTEL_SKL " " INTEL_ICL, { "MEM_LOAD_RETIRED:L3_MISS" }, { 0 },
      "llc-misses = MEM_LOAD_RETIRED:L3_MISS: retired demand loads that missed L3", -1 },
    { "llc-misses", INTEL_HSW, { "MEM_LOAD_UOPS_RETIRED:L3_MISS" }, { 0 },
      "llc-misses = MEM_LOAD_UOPS_RETIRED:L3_MISS: retired demand loads that missed L3", -1 },
    { "llc-misses", "ix86arch", { "LLC_MISSES" }, { 0 },
      "llc-misses = LLC_MISSES: last-level cache misses (architectural event)", -1 },
    /* Intel counts no dropped prefetches either: a demand load that hit a
     * fill buffer still busy with a software prefetch means the prefetch
     * came late; FB_FULL counts requests that found no free fill buffer,
     * which is where a prefetch is lost.  Two counters, stored apart. */
    { "prefetch-drops", INTEL_HSW " " INTEL_SKL,
      { "LOAD_HIT_PRE:SW_PF", "L1D_PEND_MISS:FB_FULL" },
      { "prefetch-drops.late", "prefetch-drops.fb-full" },
      "prefetch-drops = LOAD_HIT_PRE:SW_PF (late software prefetches) + L1D_PEND_MISS:FB_FULL (no free fill buffer)", -1 },
    { "prefetch-drops", INTEL_ICL,
      { "LOAD_HIT_PREFETCH:SWPF", "L1D_PEND_MISS:FB_FULL" },
      { "prefetch-drops.late", "prefetch-drops.fb-full" },
      "prefetch-drops = LOAD_HIT_PREFETCH:SWPF (late software prefetches) + L1D_PEND_MISS:FB_FULL (no free fill buffer)", -1 },
    { "prefetch-drops", "ix86arch", { 0 }, { 0 },
      "prefetch-drops: no such event on the architectural Intel PMU (needs a model-specific core PMU)", -1 },

    /* ---- Arm cores (PMUv3) ----
     * CPU_CYCLES (0x11), INST_RETIRED (0x08) and L1D_CACHE_REFILL (0x03)
     * are common architectural events: every ARMv8 PMU has them at the same
     * numbers.  Debian's libpfm4 4.13 has no A72 or A76 table (newer
     * libpfm4 calls them arm_ac72, arm_ac76): on those cores the aliases
     * fall back to the generic perf rows, which the kernel maps to the same
     * events. */
    { "cycles", ARM_V8, { "CPU_CYCLES" }, { 0 },
      "cycles = CPU_CYCLES (0x11): core clock cycles", -1 },
    { "instructions", ARM_V8, { "INST_RETIRED" }, { 0 },
      "instructions = INST_RETIRED (0x08): instructions architecturally executed", -1 },
    /* What the arm64 kernel counts for cache-misses (armv8_pmuv3_perf_map):
     * the L1D, since no core event sees the last level on every system. */
    { "cache-misses", ARM_V8, { "L1D_CACHE_REFILL" }, { 0 },
      "cache-misses = L1D_CACHE_REFILL (0x03): L1D refills (what the arm64 kernel counts for cache-misses)", -1 },
    { "l1d-misses", ARM_V8, { "L1D_CACHE_REFILL" }, { 0 },
      "l1d-misses = L1D_CACHE_REFILL (0x03): L1D refills, demand reads and writes", -1 },
    /* The last level is outside these cores (a mesh's system cache): the
     * core learns of a miss there only when the interconnect says so
     * (CMN-600/700 do); without that the count stays 0. */
    { "llc-misses", ARM_LLC_RD, { "LL_CACHE_MISS_RD" }, { 0 },
      "llc-misses = LL_CACHE_MISS_RD (0x37): reads that missed the last-level cache (as the interconnect "
      "reports it; 0 where it does not)", -1 },
    /* The L2 is the last level of an A57/A53 cluster and of an A64FX CMG. */
    { "llc-misses", ARM_L2_LAST, { "L2D_CACHE_REFILL" }, { 0 },
      "llc-misses = L2D_CACHE_REFILL (0x17): L2 refills (the L2 is these cores' last level; a system "
      "cache beyond it is not seen)", -1 },
    /* PMUv3 has no event for a software prefetch that was dropped or did
     * nothing.  The nearest, A64FX's L2D_CACHE_MIBMCH_PRF, mixes in the
     * hardware prefetcher, so it would not mean the same thing. */
    { "prefetch-drops", ARM_V8, { 0 }, { 0 },
      "prefetch-drops: Arm PMUs have no dropped-software-prefetch event; none in libpfm4's tables counts "
      "prfm that was dropped or did nothing (needs an AMD Zen or Intel core PMU)", -1 },

    /* ---- the generic perf PMU: also the fallback for any other PMU ---- */
    { "cycles", "perf", { "perf::PERF_COUNT_HW_CPU_CYCLES" }, { 0 },
      "cycles = PERF_COUNT_HW_CPU_CYCLES (the kernel's generic cycles)", -1 },
    { "instructions", "perf", { "perf::PERF_COUNT_HW_INSTRUCTIONS" }, { 0 },
      "instructions = PERF_COUNT_HW_INSTRUCTIONS (generic)", -1 },
    { "cache-misses", "perf", { "perf::PERF_COUNT_HW_CACHE_MISSES" }, { 0 },
      "cache-misses = PERF_COUNT_HW_CACHE_MISSES (generic; the kernel picks the event)", -1 },
    { "l1d-misses", "perf", { "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS" }, { 0 },
      "l1d-misses = PERF_COUNT_HW_CACHE_L1D:READ:MISS (generic cache event)", -1 },
    { "llc-misses", "perf", { "perf::PERF_COUNT_HW_CACHE_LL:READ:MISS" }, { 0 },
      "llc-misses = PERF_COUNT_HW_CACHE_LL:READ:MISS (generic cache event)", -1 },
    { "prefetch-drops", "perf", { 0 }, { 0 },
      "prefetch-drops: no such event on PMU perf (the generic perf PMU has no software-prefetch events; "
      "it needs an AMD Zen or Intel core PMU)", -1 },

    /* ---- kernel software events: any PMU ---- */
    { "task-clock", "*", { "perf::PERF_COUNT_SW_TASK_CLOCK" }, { 0 },
      "task-clock = PERF_COUNT_SW_TASK_CLOCK: ns on this task's CPU (software)",
      PERF_COUNT_SW_TASK_CLOCK },
    { "page-faults", "*", { "perf::PERF_COUNT_SW_PAGE_FAULTS" }, { 0 },
      "page-faults = PERF_COUNT_SW_PAGE_FAULTS (software)", PERF_COUNT_SW_PAGE_FAULTS },
};

#define NROWS (sizeof(alias_table) / sizeof(alias_table[0]))

int cb_events_init(void)
{
    int r = pfm_initialize();
    if (r != PFM_SUCCESS)
        return r == PFM_ERR_NOMEM ? -ENOMEM : -ENODEV;
    return 0;
}

/* The present core PMU, or "perf".  Recomputed each time: libpfm4 keeps the
 * PMU list, so there is nothing to cache here. */
static int current_pmu(pfm_pmu_info_t *out)
{
    int best = -1;
    pfm_pmu_info_t pi;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present)
            continue;
        if (pi.type == PFM_PMU_TYPE_CORE) {
            /* hybrid parts show two core PMUs; prefer libpfm4's default */
            if (best < 0 || pi.is_dfl) {
                best = p;
                *out = pi;
            }
        }
    }
    if (best >= 0)
        return best;
    memset(out, 0, sizeof(*out));
    out->size = sizeof(*out);
    if (pfm_get_pmu_info(PFM_PMU_PERF_EVENT, out) == PFM_SUCCESS && out->is_present)
        return PFM_PMU_PERF_EVENT;
    return -1;
}

const char *cb_events_pmu(void)
{
    pfm_pmu_info_t pi;
    if (current_pmu(&pi) < 0)
        return "perf";
    return pi.name;
}

static int pmu_in_list(const char *list, const char *pmu)
{
    size_t n = strlen(pmu);
    for (const char *s = list; *s;) {
        while (*s == ' ')
            s++;
        size_t w = strcspn(s, " ");
        if (w == n && strncmp(s, pmu, n) == 0)
            return 1;
        s += w;
    }
    return 0;
}

static int is_alias(const char *name)
{
    for (size_t i = 0; cb_event_aliases[i]; i++)
        if (strcmp(cb_event_aliases[i], name) == 0)
            return 1;
    return 0;
}

/* The row for alias on pmu: that PMU's own row, else one for any PMU (the
 * software events), else the generic perf row (the kernel maps it onto
 * whatever core PMU it drives). */
static const struct alias_row *find_row(const char *alias, const char *pmu)
{
    const struct alias_row *any = NULL, *generic = NULL;
    for (size_t i = 0; i < NROWS; i++) {
        const struct alias_row *r = &alias_table[i];
        if (strcmp(r->alias, alias) != 0)
            continue;
        if (pmu_in_list(r->pmus, pmu))
            return r;
        if (strcmp(r->pmus, "*") == 0 && !any)
            any = r;
        if (strcmp(r->pmus, "perf") == 0 && !generic)
            generic = r;
    }
    return any ? any : generic;
}

const char *cb_event_alias_definition(const char *alias)
{
    const struct alias_row *r = find_row(alias, cb_events_pmu());
    return r ? r->def : NULL;
}

static void set_encoding(struct cb_event_spec *s)
{
    snprintf(s->encoding, sizeof(s->encoding), "type=%u config=0x%llx config1=0x%llx",
             s->attr.type, (unsigned long long)s->attr.config,
             (unsigned long long)s->attr.config1);
    s->source = (s->attr.type == PERF_TYPE_SOFTWARE) ? CB_SRC_SOFTWARE : CB_SRC_PMU;
}

/* Encode one libpfm4 string into s (pfm, fstr, pmu, attr).  Returns the
 * libpfm4 error code. */
static int pfm_encode(const char *str, struct cb_event_spec *s)
{
    struct perf_event_attr attr;
    pfm_perf_encode_arg_t arg;
    char *fstr = NULL;
    int idx;

    memset(&attr, 0, sizeof(attr));
    memset(&arg, 0, sizeof(arg));
    arg.attr = &attr;
    arg.fstr = &fstr;
    arg.size = sizeof(arg);
    snprintf(s->pfm, sizeof(s->pfm), "%s", str);
    /* User and kernel levels by default; the user's own :u/:k modifiers
     * win.  counters.c drops the kernel level where perf_event_paranoid
     * forbids it. */
    int r = pfm_get_os_event_encoding(str, PFM_PLM3 | PFM_PLM0, PFM_OS_PERF_EVENT_EXT, &arg);
    if (r != PFM_SUCCESS)
        return r;
    attr.size = sizeof(attr);
    s->attr = attr;
    snprintf(s->fstr, sizeof(s->fstr), "%s", fstr ? fstr : "");
    free(fstr);
    idx = arg.idx;
    pfm_event_info_t ei;
    memset(&ei, 0, sizeof(ei));
    ei.size = sizeof(ei);
    pfm_pmu_info_t pi;
    memset(&pi, 0, sizeof(pi));
    pi.size = sizeof(pi);
    if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS &&
        pfm_get_pmu_info(ei.pmu, &pi) == PFM_SUCCESS)
        snprintf(s->pmu, sizeof(s->pmu), "%s", pi.name);
    set_encoding(s);
    return PFM_SUCCESS;
}

static void spec_init(struct cb_event_spec *s, const char *name, const char *part)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->part, sizeof(s->part), "%s", part ? part : name);
}

static int resolve_alias(const char *name, struct cb_event_spec *out, size_t max, size_t *n)
{
    const char *pmu = cb_events_pmu();
    const struct alias_row *r = find_row(name, pmu);
    size_t k;

    if (!r || !r->events[0]) {
        spec_init(&out[0], name, NULL);
        snprintf(out[0].pmu, sizeof(out[0].pmu), "%s", pmu);
        out[0].status = -EOPNOTSUPP;
        if (r && pmu_in_list(r->pmus, pmu))
            snprintf(out[0].why, sizeof(out[0].why), "%s", r->def);
        else
            snprintf(out[0].why, sizeof(out[0].why), "%.60s: no such event on PMU %.60s", name, pmu);
        *n = 1;
        return -EOPNOTSUPP;
    }

    size_t nparts = 0;
    while (nparts < CB_EVENT_MAX_PARTS && r->events[nparts])
        nparts++;
    if (nparts > max)
        return -ENOSPC;
    int rc = 0;
    for (k = 0; k < nparts; k++) {
        struct cb_event_spec *s = &out[k];
        char str[CB_EVENT_STR_MAX];
        spec_init(s, name, r->labels[k]);
        /* core PMU rows are qualified with the present PMU so that the
         * generic perf PMU cannot answer for them */
        if (strstr(r->events[k], "::"))
            snprintf(str, sizeof(str), "%s", r->events[k]);
        else
            snprintf(str, sizeof(str), "%s::%s", pmu, r->events[k]);
        int e = pfm_encode(str, s);
        if (e == PFM_SUCCESS)
            continue;
        if (r->sw_config >= 0) {
            /* libpfm4 hides the perf PMU under LIBPFM_FORCE_PMU; the kernel's
             * software events do not depend on the PMU, so encode directly */
            s->attr.size = sizeof(s->attr);
            s->attr.type = PERF_TYPE_SOFTWARE;
            s->attr.config = (unsigned long long)r->sw_config;
            snprintf(s->pmu, sizeof(s->pmu), "perf");
            set_encoding(s);
            continue;
        }
        s->status = -EOPNOTSUPP;
        snprintf(s->pmu, sizeof(s->pmu), "%s", pmu);
        snprintf(s->why, sizeof(s->why), "%.50s: %.110s does not encode on PMU %.30s: %.30s", name, str, pmu,
                 pfm_strerror(e));
        rc = -EOPNOTSUPP;
    }
    *n = k;
    return rc;
}

int cb_events_resolve(const char *name, struct cb_event_spec *out, size_t max, size_t *n)
{
    if (!name || !out || !n || max == 0)
        return -EINVAL;
    *n = 0;
    if (!*name || strlen(name) >= CB_EVENT_STR_MAX)
        return -EINVAL;
    if (is_alias(name))
        return resolve_alias(name, out, max, n);

    /* any libpfm4 string */
    spec_init(&out[0], name, NULL);
    *n = 1;
    int e = pfm_encode(name, &out[0]);
    if (e == PFM_SUCCESS)
        return 0;
    char sugg[160];
    snprintf(out[0].pmu, sizeof(out[0].pmu), "%s", cb_events_pmu());
    if (e == PFM_ERR_NOTFOUND) {
        cb_events_suggest(name, sugg, sizeof(sugg));
        out[0].status = -ENOENT;
        if (sugg[0])
            snprintf(out[0].why, sizeof(out[0].why), "%.70s: unknown event on PMU %.40s (did you mean: %.100s?)",
                     name, out[0].pmu, sugg);
        else
            snprintf(out[0].why, sizeof(out[0].why), "%.120s: unknown event on PMU %.60s", name, out[0].pmu);
        return -ENOENT;
    }
    /* known event, bad modifier or umask */
    out[0].status = -EINVAL;
    snprintf(out[0].why, sizeof(out[0].why), "%.110s: libpfm4 cannot encode it on PMU %.40s: %.60s", name,
             out[0].pmu, pfm_strerror(e));
    return -EINVAL;
}

int cb_events_split(const char *csv, char names[][CB_EVENT_NAME_MAX], size_t max)
{
    size_t count = 0;
    if (!csv || !*csv)
        return -EINVAL;
    const char *s = csv;
    for (;;) {
        size_t w = strcspn(s, ",");
        const char *b = s, *e = s + w;
        while (b < e && isspace((unsigned char)*b))
            b++;
        while (e > b && isspace((unsigned char)e[-1]))
            e--;
        if (e == b)
            return -EINVAL;
        if ((size_t)(e - b) >= CB_EVENT_NAME_MAX)
            return -ENAMETOOLONG;
        if (count >= max)
            return -E2BIG;
        memcpy(names[count], b, (size_t)(e - b));
        names[count][e - b] = '\0';
        count++;
        if (!s[w])
            break;
        s += w + 1;
    }
    return (int)count;
}

/* Optimal string alignment distance, case-insensitive: a swap of two
 * neighbours ("cylces") counts as one edit, as people type. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAXL = 64 };
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la >= MAXL || lb >= MAXL)
        return 1000;
    int d[MAXL + 1][MAXL + 1];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++) {
        for (int j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int cost = ca != cb;
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

#define NSUGG 3

struct best {
    const char *name[NSUGG];
    int dist[NSUGG];
};

static void consider(struct best *b, const char *cand, int dist)
{
    for (int i = 0; i < NSUGG; i++) {
        if (b->name[i] && strcasecmp(b->name[i], cand) == 0)
            return;
    }
    for (int i = 0; i < NSUGG; i++) {
        if (!b->name[i] || dist < b->dist[i]) {
            for (int j = NSUGG - 1; j > i; j--) {
                b->name[j] = b->name[j - 1];
                b->dist[j] = b->dist[j - 1];
            }
            b->name[i] = cand;
            b->dist[i] = dist;
            return;
        }
    }
}

void cb_events_suggest(const char *bad, char *buf, size_t len)
{
    struct best b;
    char key[CB_EVENT_NAME_MAX];
    pfm_pmu_info_t pi;

    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (!bad || !*bad)
        return;
    /* compare the event part only: drop "pmu::" and ":umask..." */
    const char *s = strstr(bad, "::");
    s = s ? s + 2 : bad;
    snprintf(key, sizeof(key), "%.*s", (int)strcspn(s, ":"), s);
    memset(&b, 0, sizeof(b));

    for (size_t i = 0; cb_event_aliases[i]; i++)
        consider(&b, cb_event_aliases[i], edit_distance(key, cb_event_aliases[i]));
    int p = current_pmu(&pi);
    if (p >= 0) {
        for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
            pfm_event_info_t ei;
            memset(&ei, 0, sizeof(ei));
            ei.size = sizeof(ei);
            if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
                continue;
            consider(&b, ei.name, edit_distance(key, ei.name));
        }
    }
    /* only names close enough to be a typo of this one */
    int limit = (int)strlen(key) / 3;
    if (limit < 2)
        limit = 2;
    size_t off = 0;
    for (int i = 0; i < NSUGG && b.name[i]; i++) {
        if (b.dist[i] > limit)
            break;
        int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", b.name[i]);
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
}
