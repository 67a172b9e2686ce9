/* fuzz_events.c — event lists (--events): cb_events_split, then every name
 * through cb_events_resolve (aliases and raw libpfm4 strings), as the
 * collector resolves them.  A resolved part must carry an encoding; an
 * unresolved one must say why. */
#include "counters/events.h"
#include "counters/counters.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (cb_events_init() < 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = cb_fuzz_str(data, size);
    char names[CB_MAX_COUNTERS][CB_EVENT_NAME_MAX];
    int n = cb_events_split(s, names, CB_MAX_COUNTERS);
    if (n == 0 || n > CB_MAX_COUNTERS)
        cb_fuzz_fail("split gave %d names", n);
    for (int i = 0; i < n; i++) {
        size_t len = strnlen(names[i], CB_EVENT_NAME_MAX);
        if (len == 0 || len == CB_EVENT_NAME_MAX)
            cb_fuzz_fail("name %d empty or unterminated", i);
        struct cb_event_spec part[CB_EVENT_MAX_PARTS];
        size_t got = 0;
        int rc = cb_events_resolve(names[i], part, CB_EVENT_MAX_PARTS, &got);
        if (got > CB_EVENT_MAX_PARTS)
            cb_fuzz_fail("%zu parts", got);
        if (rc == 0) {
            for (size_t k = 0; k < got; k++)
                if (part[k].status < 0)
                    cb_fuzz_fail("'%s' resolved with a failed part", names[i]);
        } else if (rc == -ENOENT || (rc == -EINVAL && got)) {
            if (!part[0].why[0] || strnlen(part[0].why, sizeof part[0].why) == sizeof part[0].why)
                cb_fuzz_fail("'%s' refused without a reason", names[i]);
        }
        char sugg[256];
        cb_events_suggest(names[i], sugg, sizeof sugg);
    }
    free(s);
    return 0;
}
