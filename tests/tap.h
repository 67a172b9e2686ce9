/* tap.h — a tiny TAP producer for the unit tests.
 *
 * Each check is one TAP test point, so `make check` (automake's tap-driver)
 * counts individual assertions, not just programs.  Checks compare against an
 * independent reference computed in the test, never against a copy of the
 * code under test. */
#ifndef CB_TAP_H
#define CB_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    if (!cond)
        tap_failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#define is_int(got, want, ...)                                              \
    do {                                                                    \
        long long g_ = (long long)(got), w_ = (long long)(want);            \
        if (!tap_ok(g_ == w_, __VA_ARGS__))                                 \
            printf("#   got %lld, want %lld\n", g_, w_);                    \
    } while (0)

#define is_uint(got, want, ...)                                             \
    do {                                                                    \
        unsigned long long g_ = (got), w_ = (want);                         \
        if (!tap_ok(g_ == w_, __VA_ARGS__))                                 \
            printf("#   got 0x%llx, want 0x%llx\n", g_, w_);                \
    } while (0)

#define is_str(got, want, ...)                                              \
    do {                                                                    \
        const char *g_ = (got), *w_ = (want);                               \
        if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))          \
            printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)",     \
                   w_ ? w_ : "(null)");                                     \
    } while (0)

/* |got - want| <= tol */
#define is_near(got, want, tol, ...)                                        \
    do {                                                                    \
        double g_ = (got), w_ = (want), t_ = (tol);                         \
        if (!tap_ok(g_ - w_ <= t_ && w_ - g_ <= t_, __VA_ARGS__))           \
            printf("#   got %.9g, want %.9g (tolerance %.3g)\n", g_, w_, t_);\
    } while (0)

static inline void tap_skip(const char *why)
{
    printf("1..0 # SKIP %s\n", why);
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif
