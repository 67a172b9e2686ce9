/* perfshim.c — an LD_PRELOAD shim that makes perf_event_open fail.
 *
 * badinput.test needs every way the kernel refuses counters (EACCES and
 * EPERM from perf_event_paranoid, ENOENT and EOPNOTSUPP for a missing PMU,
 * EMFILE) on any machine, VM or not.  cyclebudget opens counters through
 * glibc's syscall(), so interposing it is enough: with CB_FAKE_PERF_ERRNO
 * set to an errno name or number, syscall(SYS_perf_event_open, ...) fails
 * with it; every other system call passes through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fake_errno(void)
{
    static const struct {
        const char *name;
        int e;
    } names[] = {
        {"EACCES", EACCES}, {"EPERM", EPERM}, {"ENOENT", ENOENT}, {"EOPNOTSUPP", EOPNOTSUPP},
        {"EMFILE", EMFILE}, {"ENODEV", ENODEV}, {"EBUSY", EBUSY}, {"EINVAL", EINVAL},
    };
    const char *s = getenv("CB_FAKE_PERF_ERRNO");
    if (!s || !*s)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].e;
    return atoi(s);
}

long syscall(long nr, ...)
{
    va_list ap;
    long a[6];
    va_start(ap, nr);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (nr == SYS_perf_event_open) {
        int e = fake_errno();
        if (e > 0) {
            errno = e;
            return -1;
        }
    }
    static long (*real)(long, ...);
    if (!real)
        real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
