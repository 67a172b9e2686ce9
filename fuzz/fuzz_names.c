/* fuzz_names.c — name lists and variant globs (--probes, --variants,
 * --mode, CB_CPU_MASK names): cb_parse_name_list, then every name looked up
 * the ways the run command does (probe, variant, glob, mode, feature).  A
 * success must split into non-empty names whose count is the commas + 1. */
#include <fnmatch.h>

#include "host/cpu.h"
#include "fuzz.h"
#include "cli/parse.h"
#include "harness/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = cb_fuzz_str(data, size);
    char **names, *store;
    struct cb_sb err = CB_SB_INIT;
    int n = cb_parse_name_list(s, "--fuzz", &names, &store, &err);
    if (n < 0) {
        cb_fuzz_check_msg(&err);
        if (names || store)
            cb_fuzz_fail("refusal left allocations behind");
        free(s);
        cb_sb_release(&err);
        return 0;
    }
    int commas = 0;
    for (const char *p = s; *p; p++)
        commas += *p == ',';
    if (n != commas + 1)
        cb_fuzz_fail("%d names from %d commas", n, commas);
    for (int i = 0; i < n; i++) {
        if (!names[i] || !*names[i])
            cb_fuzz_fail("empty name %d accepted", i);
        const struct cb_probe *p = cb_probe_find(names[i]);
        if (p && strcmp(p->name, names[i]) != 0)
            cb_fuzz_fail("probe lookup of '%s' found %s", names[i], p->name);
        for (size_t k = 0; k < cb_nprobes; k++) {
            const struct cb_variant *v = cb_variant_find(cb_probes[k], names[i]);
            if (v && strcmp(v->name, names[i]) != 0)
                cb_fuzz_fail("variant lookup of '%s' found %s", names[i], v->name);
            for (size_t j = 0; j < cb_probes[k]->nvariants; j++)
                (void)fnmatch(names[i], cb_probes[k]->variants[j].name, 0);
        }
        (void)cb_mode_parse(names[i]);
        (void)cb_cpu_feature_by_name(names[i]);
        (void)cb_edit_distance(names[i], s);
    }
    if (names[n])
        cb_fuzz_fail("list not NULL-terminated");
    free(names);
    free(store);
    free(s);
    cb_sb_release(&err);
    return 0;
}
