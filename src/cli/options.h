/* options.h — a command's options as one table, git's parse-options as the
 * model: each entry says its short and long name, the name of its value,
 * where a value that is only stored goes, and its line of --help.  The
 * getopt tables and the whole --help are made from it, so that an option
 * cannot be parsed without being documented, nor documented without being
 * parsed (tests/manpage.test then holds the man page to --help).
 *
 * Options two commands share are declared once, as a group (git's
 * OPT_PARENT): run and race include cb_session_options (cli/session.c),
 * compare and bisect-check cmp_common_options (cmd/verdict.c).  A group has
 * its own option function, and its fields are relative to its own struct,
 * which the including command says where to find in its context. */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdio.h>

enum cb_opt_kind {
    CB_OPTK_END = 0,    /* ends a table */
    CB_OPTK_STRING,     /* stores the value as typed (a const char *) */
    CB_OPTK_FLAG,       /* stores 1 (an int) */
    CB_OPTK_CALL,       /* handed to the command's (or group's) option function */
    CB_OPTK_GROUP,      /* includes a shared group's options */
    CB_OPTK_INT,        /* a whole number from min to max, stored as an int */
    CB_OPTK_LONG,       /* the same, stored as a long */
    CB_OPTK_CHOICE,     /* one of a table's names, stored as its value (an int) */
};

/* One name a CHOICE option takes; a table ends with {NULL, 0}.  Two names
 * with one value are spellings of one choice ("markdown", "md"): the
 * message for a wrong name lists the first only. */
struct cb_opt_choice {
    const char *name;
    int value;
};

struct cb_opt_group;

struct cb_option {
    enum cb_opt_kind kind;
    /* The short option's letter (-p), or a number from CB_OPT_LONG_ONLY up
     * for an option with no short form: what an option function is given.
     * 0 for a STRING or FLAG option with no short form. */
    int id;
    const char *name;           /* the long name, without "--" */
    const char *arg;            /* the value's name in --help ("LIST"); NULL: takes none */
    const char *help;           /* one paragraph, wrapped by --help; NULL: not listed */
    size_t off;                 /* STRING, FLAG, INT, LONG, CHOICE: the field; GROUP: the group's struct */
    const struct cb_opt_group *group;
    long min, max;              /* INT, LONG: the bounds, both taken */
    const struct cb_opt_choice *choices;  /* CHOICE */
};

/* A number macro in a help string: "at most " CB_OPT_NUM(CB_PLUGIN_MAX). */
#define CB_OPT_NUM_(x) #x
#define CB_OPT_NUM(x) CB_OPT_NUM_(x)

/* The first id of an option without a short form. */
#define CB_OPT_LONG_ONLY 256

struct cb_opt_group {
    const struct cb_option *options;
    /* Its CALL options (may be NULL): 0 taken, 1 not one of them, -EINVAL
     * with err set.
     * ctx is the group's struct. */
    int (*option)(int id, const char *arg, void *ctx, struct cb_sb *err);
};

/* The field's size is checked at compile time (an array of negative size
 * otherwise), so that a string option cannot name an int field. */
#define CB_OPT_SIZED_(type, field, want)                                                         \
    (offsetof(type, field) + 0 * sizeof(char[sizeof(((type *)0)->field) == (want) ? 1 : -1]))
#define CB_OPT_STR(id, name, type, field, arg, help)                                             \
    {CB_OPTK_STRING, id, name, arg, help, CB_OPT_SIZED_(type, field, sizeof(const char *)), NULL, 0, 0, NULL}
#define CB_OPT_BOOL(id, name, type, field, help)                                                 \
    {CB_OPTK_FLAG, id, name, NULL, help, CB_OPT_SIZED_(type, field, sizeof(int)), NULL, 0, 0, NULL}
#define CB_OPT_CALL(id, name, arg, help) {CB_OPTK_CALL, id, name, arg, help, 0, NULL, 0, 0, NULL}
/* A number from lo to hi; anything else is refused with the bounds named
 * (cb_parse_long's message), so a command parses no number by hand. */
#define CB_OPT_INT(id, name, type, field, arg, lo, hi, help)                                     \
    {CB_OPTK_INT, id, name, arg, help, CB_OPT_SIZED_(type, field, sizeof(int)), NULL, lo, hi, NULL}
#define CB_OPT_LONG(id, name, type, field, arg, lo, hi, help)                                    \
    {CB_OPTK_LONG, id, name, arg, help, CB_OPT_SIZED_(type, field, sizeof(long)), NULL, lo, hi, NULL}
/* One of the names in table (struct cb_opt_choice[]), into an int or enum. */
#define CB_OPT_CHOICE(id, name, type, field, arg, table, help)                                   \
    {CB_OPTK_CHOICE, id, name, arg, help, CB_OPT_SIZED_(type, field, sizeof(int)), NULL, 0, 0, table}
/* --format F: every command that prints in more than one format takes it
 * this one way, so that the names and the message for a wrong one agree. */
#define CB_OPT_FORMAT(type, field, table, help) CB_OPT_CHOICE(0, "format", type, field, "F", table, help)
/* The options of group g, whose struct is the member field of type. */
#define CB_OPT_GROUP(g, type, field)                                                             \
    {CB_OPTK_GROUP, 0, NULL, NULL, NULL, offsetof(type, field), &(g), 0, 0, NULL}
/* The same, with a paragraph --help prints after the group's options: what
 * they default to, or mean, in this command. */
#define CB_OPT_GROUP_NOTE(g, type, field, note)                                                  \
    {CB_OPTK_GROUP, 0, NULL, NULL, note, offsetof(type, field), &(g), 0, 0, NULL}
#define CB_OPT_END {CB_OPTK_END, 0, NULL, NULL, NULL, 0, NULL, 0, 0, NULL}

/* The cases a measuring command picks, as typed (NULL: the command's
 * default): -p/--probes, -V/--variants, -s/--sizes, -m/--mode, one group
 * (cb_select_options) so that run, race, ab and bisect-check take them
 * under the same letters and names (bisect-check took --mode but
 * not -m).  Each command says its defaults in CB_OPT_GROUP_NOTE. */
struct cb_select {
    const char *probes, *variants, *sizes, *modes;
};
extern const struct cb_opt_group cb_select_options;

/* A command's options, parsed the one way every command parses them. */
struct cb_cmd_parser {
    const char *cmd;                    /* names it in messages */
    /* The command's own CALL options (may be NULL): 0 taken, 1 not one of
     * its options, -EINVAL with err set. */
    int (*option)(int id, const char *arg, void *ctx, struct cb_sb *err);
    /* --help: synopsis (the usage lines and what the operands are), then
     * the options made from the table, then footer (may be NULL). */
    const char *synopsis;
    const struct cb_option *options;
    const char *footer;
};

/* getopt_long over argv, every option but -h/--help as the table says.
 * 0 when all were taken (optind at the first operand), 1 after --help,
 * -EINVAL with err set, -ENOENT after an unknown option was named. */
int cb_getopt(int argc, char **argv, const struct cb_cmd_parser *p, void *ctx, struct cb_sb *err);

/* The whole --help of p: synopsis, the option list (each option's help
 * wrapped at 80 columns, from column 25), footer. */
void cb_usage(const struct cb_cmd_parser *p, FILE *out);

#endif
