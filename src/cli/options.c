/* options.c — a command's option table made into getopt's tables, its
 * values stored or handed on, and its --help (see options.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/options.h"
#include "cli/parse.h"
#include "util/strbuf.h"

/* The most options one command has, its groups' included, with room. */
#define MAX_OPTIONS 64

/* One option of the flattened table: where its fields are, and who takes
 * it when it is a CALL. */
struct flat {
    const struct cb_option *o;
    int id;                     /* o->id, or one made up for a stored long-only option */
    size_t base;                /* of the struct its field offset is relative to */
    int (*option)(int id, const char *arg, void *ctx, struct cb_sb *err);
};

static int has_short(const struct cb_option *o)
{
    return o->id > 0 && o->id < 128 && isalnum(o->id);
}

/* The table with its groups in place, in order: the count, or -E2BIG. */
static int flatten(const struct cb_option *t, size_t base,
                   int (*fn)(int, const char *, void *, struct cb_sb *), struct flat *out, int n)
{
    for (; t->kind != CB_OPTK_END; t++) {
        if (t->kind == CB_OPTK_GROUP) {
            n = flatten(t->group->options, base + t->off, t->group->option, out, n);
            if (n < 0)
                return n;
            /* The group's note, where --help prints it: after its options. */
            if (t->help) {
                if (n == MAX_OPTIONS)
                    return -E2BIG;
                out[n++] = (struct flat){t, -1, base, NULL};
            }
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
                         struct cb_sb *err)
{
    size_t s = 0;
    shortopts[s++] = ':';   /* a missing value is cb_option_error's to say */
    shortopts[s++] = 'h';
    int l = 0;
    for (int i = 0; i < n; i++) {
        const struct cb_option *o = f[i].o;
        if (o->kind == CB_OPTK_GROUP)
            continue;
        for (int j = 0; j < i; j++)
            if (f[j].id == f[i].id || (o->name && f[j].o->name && strcmp(f[j].o->name, o->name) == 0)) {
                cb_sb_setf(err, "internal error: two options of one command are --%s",
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

/* --NAME's value, one of o's choices, into the int at. */
static int take_choice(const struct cb_option *o, const char *arg, char *at, struct cb_sb *err)
{
    const struct cb_opt_choice *c;
    for (c = o->choices; c->name; c++)
        if (strcmp(c->name, arg) == 0) {
            memcpy(at, &c->value, sizeof c->value);
            return 0;
        }
    /* The first spelling of each value, "a, b or c". */
    const char *names[32];
    size_t n = 0;
    for (c = o->choices; c->name && n < sizeof names / sizeof names[0]; c++) {
        const struct cb_opt_choice *d = o->choices;
        while (d->value != c->value)
            d++;
        if (d == c)
            names[n++] = c->name;
    }
    struct cb_sb sb = CB_SB_INIT;
    cb_sb_addf(&sb, "--%s '%s': give ", o->name ? o->name : "?", arg);
    if (n > 1) {
        cb_sb_join(&sb, names, n - 1, ", ");
        cb_sb_adds(&sb, " or ");
    }
    cb_sb_adds(&sb, n ? names[n - 1] : "?");
    cb_sb_setf(err, "%s", sb.buf);
    cb_sb_release(&sb);
    return -EINVAL;
}

/* A stored option's value into its field: 0, or -EINVAL with err set. */
static int take_value(const struct cb_option *o, const char *arg, char *at, struct cb_sb *err)
{
    char what[80];
    snprintf(what, sizeof what, "--%s", o->name ? o->name : "?");
    long v;
    switch (o->kind) {
    case CB_OPTK_STRING: memcpy(at, &arg, sizeof arg); return 0;
    case CB_OPTK_FLAG: memcpy(at, &(int){1}, sizeof(int)); return 0;
    case CB_OPTK_CHOICE: return take_choice(o, arg, at, err);
    case CB_OPTK_INT:
    case CB_OPTK_LONG:
        if (cb_parse_long(arg, o->min, o->max, what, &v, err) < 0)
            return -EINVAL;
        if (o->kind == CB_OPTK_INT)
            memcpy(at, &(int){(int)v}, sizeof(int));
        else
            memcpy(at, &v, sizeof v);
        return 0;
    default: return 1;
    }
}

/* One option taken: 0, 1 not one of ours, or -EINVAL with err set. */
static int take(const struct flat *f, int n, const struct cb_cmd_parser *p, int id,
                const char *arg, void *ctx, struct cb_sb *err)
{
    for (int i = 0; i < n; i++) {
        if (f[i].id != id)
            continue;
        char *at = (char *)ctx + f[i].base;
        if (f[i].o->kind != CB_OPTK_CALL)
            return take_value(f[i].o, arg, at + f[i].o->off, err);
        if (f[i].option)
            return f[i].option(id, arg, at, err);
        return p->option ? p->option(id, arg, ctx, err) : 1;
    }
    return 1;
}

int cb_getopt(int argc, char **argv, const struct cb_cmd_parser *p, void *ctx, struct cb_sb *err)
{
    struct flat f[MAX_OPTIONS];
    struct option longopts[MAX_OPTIONS + 2];
    char shortopts[3 * MAX_OPTIONS + 3];
    int n = flatten(p->options, 0, NULL, f, 0);
    if (n < 0) {
        cb_sb_setf(err, "internal error: %s has more than %d options", p->cmd, MAX_OPTIONS);
        return -EINVAL;
    }
    if (getopt_tables(f, n, shortopts, longopts, err) < 0)
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
            r = take(f, n, p, ch, optarg, ctx, err);
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
        if (o->kind == CB_OPTK_GROUP) {
            fprintf(out, "%*s", HELP_COLUMN, "");
            wrap(out, o->help, HELP_COLUMN);
            continue;
        }
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

/* The group's help says what each option is; its defaults, which differ
 * from command to command, are the including command's note. */
static const struct cb_option select_options[] = {
    CB_OPT_STR('p', "probes", struct cb_select, probes, "LIST",
               "probe families, comma-separated (see 'cyclebudget list probes')"),
    CB_OPT_STR('V', "variants", struct cb_select, variants, "GLOBS",
               "variant name globs, comma-separated, e.g. 'avx2,adc-*'"),
    CB_OPT_STR('s', "sizes", struct cb_select, sizes, "LIST",
               "sizes in bytes, comma-separated, e.g. 64,1500,4K,4M"),
    CB_OPT_STR('m', "mode", struct cb_select, modes, "MODE", "warm, cold, or warm,cold"),
    CB_OPT_END,
};

const struct cb_opt_group cb_select_options = {select_options, NULL};
