/* hog.c — for the PMU stage (tests/pmu/run.sh), inside the VM: run a
 * command with a second group of hardware events in its own context, so
 * that cyclebudget's group has to take turns on the counters with it and
 * is multiplexed.
 *
 * The group (N events, cycles and instructions alternately, user space
 * only, not pinned) is opened on this process with inherit set, then the
 * command is exec'd: every thread it starts carries a copy, in the same
 * per-task context as the group cyclebudget opens there.  The kernel
 * rotates the flexible groups of a context that do not all fit, so each is
 * on the counters part of the time, and time_running falls below
 * time_enabled.  (A CPU-wide group would not do: the kernel rotates only
 * the context whose group failed to go on, and cyclebudget's would then
 * never run; one group of more events than counters is refused at open,
 * since it could never be scheduled.)
 *   usage: hog N COMMAND [ARG...] */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hog N COMMAND [ARG...]\n");
        return 2;
    }
    int n = atoi(argv[1]), leader = -1;
    for (int i = 0; i < n; i++) {
        struct perf_event_attr at;
        memset(&at, 0, sizeof at);
        at.size = sizeof at;
        at.type = PERF_TYPE_HARDWARE;
        at.config = i % 2 ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES;
        at.inherit = 1;
        at.exclude_kernel = 1;
        at.exclude_hv = 1;
        int fd = (int)syscall(SYS_perf_event_open, &at, 0, -1, leader, 0);
        if (fd < 0) {
            perror("hog: perf_event_open");
            return 1;
        }
        if (leader < 0)
            leader = fd;
    }
    fprintf(stderr, "hog: a group of %d hardware events beside %s\n", n, argv[2]);
    execvp(argv[2], argv + 2);
    perror("hog: exec");
    return 127;
}
