/* text_toc.c — see text_toc.h. */
#include "report/text_toc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

#define MAX_SECTIONS 64

struct section {
    char name[100];         /* a family, or "FAMILY@2" for run 2's */
    size_t line;            /* 0-based, in the rendered text */
    size_t at, end;         /* byte offsets of its first line and of the next section */
};

/* A line's text with any colour escapes ("\033[...m") skipped. */
static const char *plain(const char *s, const char *end, char *buf, size_t n)
{
    size_t k = 0;
    while (s < end && *s != '\n' && k + 1 < n) {
        if (*s == '\033') {
            while (s < end && *s != 'm' && *s != '\n')
                s++;
            if (s < end && *s == 'm')
                s++;
            continue;
        }
        buf[k++] = *s++;
    }
    buf[k] = '\0';
    return buf;
}

/* The section a line begins, into name, or 0.  fam: the families seen so
 * far, each named once (its first table opens it). */
static int starts(const char *l, struct cb_sb *fams, char *name, size_t n)
{
    static const struct {
        const char *prefix, *name;
    } fixed[] = {
        {"cyc/op = ", "legend"},          {"in the kernel, ", "kernel"},
        {"crossover: ", "crossover"},
        {"per packet ", "packet"},        {"race ", "race"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strncmp(l, fixed[i].prefix, strlen(fixed[i].prefix)) == 0)
            return snprintf(name, n, "%s", fixed[i].name), 1;
    /* A fused family's table: "F against A alone and B alone (median ...)". */
    if (strstr(l, " alone and ") && strstr(l, " alone (median "))
        return snprintf(name, n, "fusion"), 1;
    if (strstr(l, ": bytes per ns (") && !strstr(fams->buf, "\nthroughput\n"))
        return cb_sb_adds(fams, "throughput\n"), snprintf(name, n, "throughput"), 1;
    /* A family's case table: "csum  20 B  warm  (per call)". */
    const char *sp = strstr(l, "  ");
    if (!sp || sp == l || !strstr(l, "(per "))
        return 0;
    for (const char *p = l; p < sp; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return 0;
    char want[80];
    snprintf(want, sizeof want, "\n%.*s\n", (int)(sp - l), l);
    if (strstr(fams->buf, want))
        return 0;
    cb_sb_adds(fams, want + 1);
    return snprintf(name, n, "%.*s", (int)(sp - l), l), 1;
}

/* The sections of text, in order; each run's header is "run N". */
static size_t find(const char *text, size_t len, struct section *sec)
{
    struct cb_sb fams = CB_SB_INIT;
    cb_sb_addc(&fams, '\n');
    size_t ns = 0, line = 0, runs = 0;
    char run[32] = "";
    for (const char *s = text, *end = text + len; s < end; line++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        char buf[256], name[64];
        const char *l = plain(s, end, buf, sizeof buf);
        int hit = 0;
        if (strncmp(l, "cyclebudget run ", 16) == 0) {
            snprintf(run, sizeof run, "%.*s", (int)strcspn(l + 16, " "), l + 16);
            snprintf(name, sizeof name, "run %s", run);
            cb_sb_reset(&fams);
            cb_sb_addc(&fams, '\n');
            runs++;
            hit = 1;
        } else {
            hit = starts(l, &fams, name, sizeof name);
        }
        if (hit && ns < MAX_SECTIONS) {
            if (ns)
                sec[ns - 1].end = (size_t)(s - text);
            sec[ns] = (struct section){"", line, (size_t)(s - text), len};
            /* With several runs, a section says whose it is. */
            if (runs > 1 && strncmp(name, "run ", 4) != 0)
                snprintf(sec[ns].name, sizeof sec[ns].name, "%s@%s", name, run);
            else
                snprintf(sec[ns].name, sizeof sec[ns].name, "%s", name);
            ns++;
        }
        s = nl ? nl + 1 : end;
    }
    cb_sb_release(&fams);
    return ns;
}

int cb_text_toc(const char *text, size_t len, const char *section, FILE *out, struct cb_sb *err)
{
    struct section *sec = calloc(MAX_SECTIONS, sizeof *sec);
    if (!sec)
        return -ENOMEM;
    size_t ns = find(text, len, sec);
    int rc = 0;
    if (section) {
        size_t i = 0;
        while (i < ns && strcmp(sec[i].name, section) != 0)
            i++;
        if (i == ns) {
            cb_sb_addf(err, "no section '%s' in this report; there are:", section);
            for (size_t k = 0; k < ns; k++)
                cb_sb_addf(err, " %s", sec[k].name);
            rc = -ENOENT;
        } else {
            fwrite(text + sec[i].at, 1, sec[i].end - sec[i].at, out);
        }
    } else if (ns < 3) {
        fwrite(text, 1, len, out);           /* too short to need one */
    } else {
        /* After the first run's header: before the next section. */
        size_t cut = sec[1].at, extra = ns + 2;
        fwrite(text, 1, cut, out);
        fprintf(out, "contents (line numbers; 'report --section NAME' prints one section):\n");
        for (size_t k = 0; k < ns; k++)
            fprintf(out, "  %-24s %6zu\n", sec[k].name, sec[k].line + 1 + (k ? extra : 0));
        fputc('\n', out);
        fwrite(text + cut, 1, len - cut, out);
    }
    free(sec);
    return rc == 0 && ferror(out) ? -EIO : rc;
}
