/* progress.c — see progress.h. */
#include <stdarg.h>
#include <time.h>

#include "cli/progress.h"

double cb_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *cb_progress_hms(double s, char *buf, size_t len)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

void cb_progress(FILE *out, size_t done, size_t total, double t0, const char *fmt, ...)
{
    char label[128], el[24], left[24], line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(label, sizeof label, fmt, ap);
    va_end(ap);
    double spent = cb_progress_now() - t0;
    size_t finished = done ? done - 1 : 0;
    if (finished > 0 && total >= finished) {
        cb_progress_hms(spent / (double)finished * (double)(total - finished), left, sizeof left);
        snprintf(line, sizeof line, "[%zu/%zu %s, ~%s left] %s", done, total,
                 cb_progress_hms(spent, el, sizeof el), left, label);
    } else {
        snprintf(line, sizeof line, "[%zu/%zu %s, estimating] %s", done, total,
                 cb_progress_hms(spent, el, sizeof el), label);
    }
    fprintf(out, "\r\033[K%.100s", line);
    fflush(out);
}
