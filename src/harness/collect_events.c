/* collect_events.c — a session's event list resolved (collect.h:
 * cb_collect_resolve_events), each name through libpfm4 or a perf generic
 * event, an alias this PMU lacks kept as unsupported. */
#include "harness/collect.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "counters/events.h"

int cb_collect_resolve_events(const char *csv, struct cb_event_spec *specs, int max, int *n,
                              struct cb_sb *err)
{
    int rc = cb_events_init();
    if (rc < 0) {
        cb_sb_setf(err, "libpfm4 failed to initialise (%s): check the libpfm4 installation",
                 strerror(-rc));
        return rc;
    }
    char names[CB_MAX_COUNTERS][CB_EVENT_NAME_MAX];
    int ne = cb_events_split(csv ? csv : CB_DEFAULT_EVENTS, names, CB_MAX_COUNTERS);
    if (ne < 0) {
        cb_sb_setf(err, "--events: '%s' is not a comma-separated list of event names", csv);
        return -EINVAL;
    }
    *n = 0;
    for (int i = 0; i < ne; i++) {
        struct cb_event_spec part[CB_EVENT_MAX_PARTS];
        size_t got = 0;
        if (strcmp(names[i], "tsc") == 0 || strcmp(names[i], "cycles-est") == 0)
            continue;
        rc = cb_events_resolve(names[i], part, CB_EVENT_MAX_PARTS, &got);
        if (rc == -ENOENT) {
            cb_sb_setf(err, "unknown event '%.60s': %.400s", names[i], part[0].why);
            return rc;
        }
        if (rc < 0 && rc != -EOPNOTSUPP) {
            cb_sb_setf(err, "event '%.60s' does not resolve: %.400s", names[i], part[0].why);
            return -EINVAL;
        }
        if (got == 0)
            got = 1; /* an alias this PMU lacks: kept as unsupported */
        for (size_t k = 0; k < got; k++) {
            if (*n >= max) {
                cb_sb_setf(err, "--events: too many events (at most %d)", max);
                return -E2BIG;
            }
            specs[(*n)++] = part[k];
        }
    }
    return 0;
}
