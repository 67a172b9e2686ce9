/* test_events_arm.c — `cyclebudget list events` under a forced Arm PMU
 * (issue 36): every alias resolves to the Arm event it should, with the
 * exact raw encoding, and prefetch-drops says why it has none.
 *
 * libpfm4 builds only its own architecture's tables, so this runs in the
 * arm64 build (make check-unit under qemu-user in CI) and skips on x86.
 * Resolution must not depend on opening: under qemu perf_event_open is
 * ENOSYS, and the list still shows what each alias resolves to.  The
 * expected event numbers are the PMUv3 common events of the Arm ARM
 * (CPU_CYCLES 0x11, INST_RETIRED 0x08, L1D_CACHE_REFILL 0x03,
 * L2D_CACHE_REFILL 0x17, LL_CACHE_MISS_RD 0x37), written here, not taken
 * from events.c.  tests/test_events.c checks the same rows through the
 * library. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#if defined(__aarch64__)

struct want {
    const char *alias;
    const char *event;    /* without the PMU prefix */
    unsigned config;
};

/* The output of list events under LIBPFM_FORCE_PMU=pmu, or NULL. */
static char *list_events(const char *pmu)
{
    const char *cb = getenv("CB");
    char cmd[512];
    /* $CB_EXEC runs an aarch64 binary where binfmt_misc does not */
    snprintf(cmd, sizeof cmd, "LIBPFM_FORCE_PMU=%s ${CB_EXEC:-} %s list events 2>&1", pmu,
             cb && *cb ? cb : "./cyclebudget");
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    size_t k;
    while (out && len < cap - 1 && (k = fread(out + len, 1, cap - 1 - len, f)) > 0)
        len += k;
    int st = pclose(f);
    if (!out)
        return NULL;
    out[len] = 0;
    if (st != 0) {
        printf("# %s exited %d:\n%s", cmd, st, out);
        free(out);
        return NULL;
    }
    return out;
}

/* The resolution line of alias: it starts with the alias, then source,
 * opens and the fully qualified event. */
static const char *alias_line(const char *out, const char *alias, char *line, size_t len)
{
    size_t n = strlen(alias);
    for (const char *s = out; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
        if (strncmp(s, alias, n) == 0 && s[n] == ' ') {
            snprintf(line, len, "%.*s", (int)strcspn(s, "\n"), s);
            return line;
        }
    }
    return NULL;
}

static void check_pmu(const char *pmu, const struct want *w, size_t nw)
{
    char *out = list_events(pmu);
    ok(out != NULL, "LIBPFM_FORCE_PMU=%s cyclebudget list events runs", pmu);
    if (!out)
        return;
    char head[96], line[512], ev[96], enc[96];
    snprintf(head, sizeof head, "PMU as libpfm4 sees it: %s\n", pmu);
    ok(strstr(out, head) != NULL, "%s: the forced PMU is the one listed", pmu);
    for (size_t i = 0; i < nw; i++) {
        const char *l = alias_line(out, w[i].alias, line, sizeof line);
        snprintf(ev, sizeof ev, " %s::%s:", pmu, w[i].event);
        snprintf(enc, sizeof enc, "[type=4 config=0x%x config1=0x0]", w[i].config);
        ok(l && strstr(l, " pmu ") && strstr(l, ev) && strstr(l, enc), "%s %s = %s %s: \"%s\"", pmu,
           w[i].alias, w[i].event, enc, l ? l : "(no line)");
    }
    const char *l = alias_line(out, "prefetch-drops", line, sizeof line);
    ok(l && strstr(l, "Arm PMUs have no dropped-software-prefetch event"),
       "%s prefetch-drops: unsupported, with the reason: \"%s\"", pmu, l ? l : "(no line)");
    free(out);
}

int main(void)
{
    static const struct want n1[] = {
        {"cycles", "CPU_CYCLES", 0x11},
        {"instructions", "INST_RETIRED", 0x08},
        {"cache-misses", "L1D_CACHE_REFILL", 0x03},
        {"l1d-misses", "L1D_CACHE_REFILL", 0x03},
        {"llc-misses", "LL_CACHE_MISS_RD", 0x37},
    };
    check_pmu("arm_n1", n1, sizeof n1 / sizeof n1[0]);
    check_pmu("arm_v1", n1, sizeof n1 / sizeof n1[0]);
    /* An A57 cluster's last level is its L2. */
    static const struct want a57[] = {
        {"cycles", "CPU_CYCLES", 0x11},
        {"instructions", "INST_RETIRED", 0x08},
        {"l1d-misses", "L1D_CACHE_REFILL", 0x03},
        {"llc-misses", "L2D_CACHE_REFILL", 0x17},
    };
    check_pmu("arm_ac57", a57, sizeof a57 / sizeof a57[0]);
    return tap_done();
}

#else

int main(void)
{
    tap_skip("libpfm4's x86 build has no Arm tables: this test runs in the arm64 build "
             "(make check-unit under qemu-user)");
    return 0;
}

#endif
