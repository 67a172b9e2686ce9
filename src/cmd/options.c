/* options.c — a command's option table made into getopt's tables, its
 * values stored or handed on, and its --help (see options.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "options.h"

/* The most options one command has, its groups' included, with room. */
#define MAX_OPTIONS 64

/* One option of the flattened table: where its fields are, and who takes
 * it when it is a CALL. */
struct flat {
    const struct cb_option *o;
    int id;                     /* o->id, or one made up for a stored long-only option */
    size_t base;                /* of the struct its field offset is relative to */
    int (*option)(int id, const char *arg, void *ctx, char *err, size_t errlen);
};

static int has_short(const struct cb_option *o)
{
    return o->id > 0 && o->id < 128 && isalnum(o->id);
}

/* The table with its groups in place, in order: the count, or -E2BIG. */
static int flatten(const struct cb_option *t, size_t base,
                   int (*fn)(int, const char *, void *, char *, size_t), struct flat *out, int n)
{
    for (; t->kind != CB_OPTK_END; t++) {
        if (t->kind == CB_OPTK_GROUP) {
            n = flatten(t->group->options, base + t->off, t->group->option, out, n);
            if (n < 0)
                return n;
            continue;
        }
        if (n == MAX_OPTIONS)
            return -E2BIG;
        /* A stored option needs no id of its own: 0 takes one above any a
         * command names. */
        int id = t->id ? t->id : CB_OPT_LONG_ONLY + 1024 + n;
        out[n++] = (struct flat){t, id, base, fn};
    }
    return n;
}

/* getopt's short string and long table; -EEXIST when two options share an
 * id or a name (a table's mistake, said as such). */
static int getopt_tables(const struct flat *f, int n, char *shortopts, struct option *longopts,
                         char *err, size_t errlen)
{
    size_t s = 0;
    shortopts[s++] = ':';   /* a missing value is cb_option_error's to say */
    shortopts[s++] = 'h';
    int l = 0;
    for (int i = 0; i < n; i++) {
        const struct cb_option *o = f[i].o;
        for (int j = 0; j < i; j++)
            if (f[j].id == f[i].id || (o->name && f[j].o->name && strcmp(f[j].o->name, o->name) == 0)) {
                snprintf(err, errlen, "internal error: two options of one command are --%s",
                         o->name ? o->name : "?");
                return -EEXIST;
            }
        if (has_short(o)) {
            shortopts[s++] = (char)o->id;
            if (o->arg)
                shortopts[s++] = ':';
        }
        if (o->name)
            longopts[l++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, f[i].id};
    }
    shortopts[s] = '\0';
    longopts[l++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[l] = (struct option){NULL, 0, NULL, 0};
    return 0;
}

/* One option taken: 0, 1 not one of ours, or -EINVAL with err set. */
static int take(const struct flat *f, int n, const struct cb_cmd_parser *p, int id,
                const char *arg, void *ctx, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        if (f[i].id != id)
            continue;
        char *at = (char *)ctx + f[i].base;
        switch (f[i].o->kind) {
        case CB_OPTK_STRING: memcpy(at + f[i].o->off, &arg, sizeof arg); return 0;
        case CB_OPTK_FLAG: memcpy(at + f[i].o->off, &(int){1}, sizeof(int)); return 0;
        default: break;
        }
        if (f[i].option)
            return f[i].option(id, arg, at, err, errlen);
        return p->option ? p->option(id, arg, ctx, err, errlen) : 1;
    }
    return 1;
}

int cb_getopt(int argc, char **argv, const struct cb_cmd_parser *p, void *ctx, char *err,
              size_t errlen)
{
    struct flat f[MAX_OPTIONS];
    struct option longopts[MAX_OPTIONS + 2];
    char shortopts[3 * MAX_OPTIONS + 3];
    int n = flatten(p->options, 0, NULL, f, 0);
    if (n < 0) {
        snprintf(err, errlen, "internal error: %s has more than %d options", p->cmd, MAX_OPTIONS);
        return -EINVAL;
    }
    if (getopt_tables(f, n, shortopts, longopts, err, errlen) < 0)
        return -EINVAL;
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (ch == 'h') {
            cb_usage(p, stdout);
            return 1;
        }
        int r = 1;
        if (ch != '?' && ch != ':')
            r = take(f, n, p, ch, optarg, ctx, err, errlen);
        if (r < 0)
            return -EINVAL;
        if (r == 1) {
            cb_option_error(p->cmd, argv);
            return -ENOENT;
        }
    }
    return 0;
}

#define HELP_COLUMN 25
#define HELP_WIDTH 80

/* text from column col, wrapped at HELP_WIDTH with HELP_COLUMN's indent. A
 * line never starts with '-', so that what reads --help (the completion,
 * tests/manpage.test) never takes a word of the text for an option. */
static void wrap(FILE *out, const char *text, size_t col)
{
    const char *s = text;
    while (*s) {
        size_t room = HELP_WIDTH - col, len = strlen(s);
        if (len <= room) {
            fprintf(out, "%s\n", s);
            return;
        }
        size_t cut = room;
        while (cut > 0 && (s[cut] != ' ' || s[cut + 1] == '-'))
            cut--;
        if (cut == 0) {   /* one word wider than the room: let it overflow */
            cut = room;
            while (s[cut] && (s[cut] != ' ' || s[cut + 1] == '-'))
                cut++;
        }
        fprintf(out, "%.*s\n", (int)cut, s);
        s += cut;
        while (*s == ' ')
            s++;
        if (*s)
            fprintf(out, "%*s", HELP_COLUMN, "");
        col = HELP_COLUMN;
    }
}

void cb_usage(const struct cb_cmd_parser *p, FILE *out)
{
    struct flat f[MAX_OPTIONS];
    int n = flatten(p->options, 0, NULL, f, 0);
    fputs(p->synopsis, out);
    for (int i = 0; i < n; i++) {
        const struct cb_option *o = f[i].o;
        if (!o->help)
            continue;
        char left[96];
        int len;
        if (has_short(o) && o->name)
            len = snprintf(left, sizeof left, "  -%c, --%s", o->id, o->name);
        else if (has_short(o))
            len = snprintf(left, sizeof left, "  -%c", o->id);
        else
            len = snprintf(left, sizeof left, "      --%s", o->name);
        if (o->arg)
            len += snprintf(left + len, sizeof left - (size_t)len, " %s", o->arg);
        if (len + 2 > HELP_COLUMN)
            fprintf(out, "%s\n%*s", left, HELP_COLUMN, "");
        else
            fprintf(out, "%-*s", HELP_COLUMN, left);
        wrap(out, o->help, HELP_COLUMN);
    }
    if (p->footer)
        fputs(p->footer, out);
}
