/* cmd_list.c — `cyclebudget list`: what can run on this machine. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "counters/counters.h"
#include "host/cpu.h"
#include "counters/events.h"
#include "harness/plugin.h"
#include "harness/probe.h"
#include "report/report.h"
#include "counters/tsc.h"

/* Built-in families, then what --plugin added (cb_probe_at). */
static void list_probes(void)
{
    for (size_t i = 0; i < cb_probe_count(); i++) {
        const struct cb_probe *p = cb_probe_at(i);
        size_t nv = 0;
        for (size_t j = 0; j < p->nvariants; j++)
            nv += !(p->variants[j].flags & CB_VARIANT_TESTONLY);
        printf("%-12s %3zu variants  %s\n", p->name, nv, p->desc);
        printf("%-12s default sizes:", "");
        for (const size_t *s = p->sizes; *s; s++) {
            char b[32];
            printf(" %s", cb_fmt_size(*s, p->unit, b, sizeof b));
        }
        printf("\n");
    }
}

static void list_variants(unsigned feats)
{
    for (size_t i = 0; i < cb_probe_count(); i++) {
        const struct cb_probe *p = cb_probe_at(i);
        printf("%s:\n", p->name);
        for (size_t j = 0; j < p->nvariants; j++) {
            const struct cb_variant *v = &p->variants[j];
            if (v->flags & CB_VARIANT_TESTONLY)
                continue;
            char need[128] = "";
            if (v->needs)
                cb_cpu_feature_names(v->needs, need, sizeof need);
            const char *state = cb_variant_runnable(v, feats) ? "" : "  [this CPU lacks: ";
            char lack[128] = "";
            if (*state)
                cb_cpu_feature_names(v->needs & ~feats, lack, sizeof lack);
            printf("  %-20s %s%s%s%s%s\n", v->name, v->desc, *need ? " (needs " : "", need,
                   *need ? ")" : "", *state ? state : "");
            if (*state)
                printf("  %-20s %s]\n", "", lack);
        }
    }
}

static void list_events(void)
{
    cb_events_init();
    printf("PMU as libpfm4 sees it: %s\n", cb_events_pmu());
    printf("%-16s %-10s %-6s %s\n", "alias", "source", "opens", "resolution");
    double tsc = cb_tsc_ghz(NULL);
    for (const char *const *a = cb_event_aliases; *a; a++) {
        struct cb_event_spec s[CB_EVENT_MAX_PARTS];
        size_t n = 0;
        int rc = cb_events_resolve(*a, s, CB_EVENT_MAX_PARTS, &n);
        if (rc < 0 || n == 0) {
            printf("%-16s %-10s %-6s %s\n", *a, "-", "no", s[0].why);
            continue;
        }
        /* Each part says whether it opens and, if not, why: an alias of two
         * parts (prefetch-drops on Intel) can have one that opens and one
         * that does not, and run stores each part's reason on its own. */
        struct cb_counters cs;
        int orc = cb_counters_open(&cs, s, (int)n, tsc, 0);
        for (size_t k = 0; k < n; k++) {
            int opens = orc == 0 && cs.c[k].supported;
            printf("%-16s %-10s %-6s %s  [%s]\n", k ? "" : *a, cb_source_name(s[k].source),
                   opens ? "yes" : "no", s[k].fstr[0] ? s[k].fstr : s[k].pfm, s[k].encoding);
            if (orc < 0)
                printf("%-16s %-10s %-6s %s: cannot open: %s\n", "", "", "why", *a, strerror(-orc));
            else if (!opens && cs.c[k].why[0])
                printf("%-16s %-10s %-6s %s\n", "", "", "why", cs.c[k].why);
        }
        if (orc == 0)
            cb_counters_close(&cs);
        const char *def = cb_event_alias_definition(*a);
        if (def && *def)
            printf("%-16s %s\n", "", def);
    }
#if defined(__aarch64__)
    /* The generic timer has the TSC's role (and its name here, so -e tsc
     * means the same on both arches); it ticks far slower than the core. */
    printf("%-16s %-10s %-6s %s\n", "tsc", "tsc", "yes",
           "CNTVCT_EL0: the generic timer's count at CNTFRQ_EL0 Hz, in the TSC's role (always)");
    printf("%-16s %-10s %-6s %s\n", "cycles-est", "estimate", "yes",
           "CNTVCT_EL0 ticks x core/timer clock ratio from a dependent add chain (always)");
#else
    printf("%-16s %-10s %-6s %s\n", "tsc", "tsc", "yes", "rdtsc/rdtscp: reference cycles (always)");
    printf("%-16s %-10s %-6s %s\n", "cycles-est", "estimate", "yes",
           "TSC ticks x core/TSC clock ratio from a dependent add (or imul) chain (always)");
#endif
    printf("Any libpfm4 event string also works with -e, e.g. perf::PERF_COUNT_SW_PAGE_FAULTS.\n");
}

enum { OPT_PLUGIN = CB_OPT_LONG_ONLY };

/* --plugin: loaded at once, so that what follows lists what it adds. */
static int list_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct cb_plugin_info info;
    (void)id;
    (void)ctx;
    return cb_plugin_load(arg, &info, err) < 0 ? -EINVAL : 0;
}

int cmd_list(int argc, char **argv)
{
    static const struct cb_option options[] = {
        CB_OPT_CALL(OPT_PLUGIN, "plugin", "PATH",
                    "load a variant plugin first, as 'run --plugin', so that its families and "
                    "variants are listed too (repeatable)"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "list",
        .synopsis = "usage: cyclebudget list [probes|variants|events] [--plugin PATH]...\n"
                    "  what can run here: families and their default sizes, variants (those this CPU\n"
                    "  lacks marked), or event aliases with their libpfm4 resolution\n",
        .options = options,
        .option = list_option,
    };
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_parsed(cb_getopt(argc, argv, &parser, NULL, &err), &err, CB_EXIT_USAGE);
    if (rc != CB_GO_ON)
        return rc;
    if (argc - optind > 1) {
        cb_error("list takes one of probes, variants, events and --plugin PATH; unexpected '%s'",
                   argv[optind + 1]);
        return CB_EXIT_USAGE;
    }
    const char *what = optind < argc ? argv[optind] : NULL;
    if (!what || strcmp(what, "probes") == 0)
        list_probes();
    else if (strcmp(what, "variants") == 0)
        list_variants(cb_cpu_features());
    else if (strcmp(what, "events") == 0)
        list_events();
    else {
        cb_error("list: unknown kind '%s': give probes, variants or events", what);
        return CB_EXIT_USAGE;
    }
    return 0;
}
