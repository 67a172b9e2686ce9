/* cmd.c — what every subcommand shares: one-line messages, unknown options,
 * and "did you mean" suggestions (see cmd.h). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"
#include "probe.h"

void cb_die_msg(const char *fmt, ...)
{
    va_list ap;
    fputs("cyclebudget: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cb_option_error(const char *cmd, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (optopt && optopt < 256 && arg[0] == '-' && arg[1] != '-')
        cb_die_msg("%s: option -%c is unknown or needs a value; see 'cyclebudget %s --help'", cmd,
                   optopt, cmd);
    else
        cb_die_msg("%s: option '%s' is unknown or needs a value; see 'cyclebudget %s --help'", cmd,
                   arg, cmd);
    return CB_EXIT_USAGE;
}

void cb_suggest_nearest(const char *bad, const char *const *names, size_t n, char *buf, size_t len)
{
    size_t best = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = cb_edit_distance(bad, names[i]);
        if (d < best)
            best = d;
    }
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && off + 2 < len; i++)
        if (cb_edit_distance(bad, names[i]) <= best + 1)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", names[i]);
}

void cb_suggest_probes(const char *bad, char *buf, size_t len)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < cb_nprobes && n < 64; i++)
        names[n++] = cb_probes[i]->name;
    cb_suggest_nearest(bad, names, n, buf, len);
}

void cb_suggest_variants(const char *bad, char *buf, size_t len)
{
    const char *names[512];
    size_t n = 0;
    for (size_t i = 0; i < cb_nprobes; i++)
        for (size_t j = 0; j < cb_probes[i]->nvariants && n < 512; j++)
            if (!(cb_probes[i]->variants[j].flags & CB_VARIANT_TESTONLY))
                names[n++] = cb_probes[i]->variants[j].name;
    cb_suggest_nearest(bad, names, n, buf, len);
}
