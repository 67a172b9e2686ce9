/* emulated.h — for the unit tests: is perf_event_open missing altogether?
 *
 * qemu-user answers it with ENOSYS (as does a kernel built without
 * CONFIG_PERF_EVENTS); under such an emulator timings mean nothing either,
 * so the tests skip, with this reason, what cannot work there.  Asked
 * directly with a software event, not through counters_open.c, so that a
 * test does not take the code under test at its word. */
#ifndef CB_TEST_EMULATED_H
#define CB_TEST_EMULATED_H

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CB_TEST_NO_PERF_WHY "perf_event_open: ENOSYS (an emulator?)"

static inline int cb_test_no_perf(void)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.disabled = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd >= 0)
        close((int)fd);
    return fd < 0 && errno == ENOSYS;
}

#endif
