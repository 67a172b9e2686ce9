/* test_options.c — an option table (src/cli/options.h): values land in the
 * fields it names, a group's in its own struct, a CALL option reaches the
 * function of its table, unknown options and tables with a clash are
 * refused, and --help is made from the table: every option once, its
 * value's name, wrapped at 80 columns, no line of help text taken for an
 * option. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "tap.h"

struct shared {
    const char *db;
    int quiet;
    int cpu;
};

struct args {
    const char *probes;
    int sim;
    struct shared s;            /* not the first member: the group's offset counts */
    long reps;
    int calls;
};

enum { OPT_CPU = CB_OPT_LONG_ONLY + 100, OPT_REPS = CB_OPT_LONG_ONLY };

static int shared_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct shared *s = ctx;
    if (id != OPT_CPU)
        return 1;
    s->cpu = atoi(arg);
    if (s->cpu < 0) {
        cb_sb_setf(err, "--cpu '%s': not a CPU", arg);
        return -EINVAL;
    }
    return 0;
}

static const struct cb_option shared_table[] = {
    CB_OPT_STR(0, "db", struct shared, db, "PATH", "database"),
    CB_OPT_CALL(OPT_CPU, "cpu", "N", "pin to CPU N"),
    CB_OPT_BOOL('q', "quiet", struct shared, quiet, "no progress"),
    CB_OPT_END,
};
static const struct cb_opt_group shared_group = {shared_table, shared_option};

static int args_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct args *a = ctx;
    (void)err;
    if (id != OPT_REPS)
        return 1;
    a->reps = atol(arg);
    a->calls++;
    return 0;
}

static const struct cb_option table[] = {
    CB_OPT_STR('p', "probes", struct args, probes, "LIST",
               "families to run, at all their sizes (default: the quick suite of every family; "
               "a long help that must wrap, and whose words --like-this never start a line)"),
    CB_OPT_BOOL(0, "sim", struct args, sim, "count instead of timing"),
    CB_OPT_GROUP(shared_group, struct args, s),
    CB_OPT_CALL(OPT_REPS, "reps", "N", "exactly N samples"),
    CB_OPT_STR(0, "hidden", struct args, probes, "X", NULL),
    CB_OPT_END,
};
static const struct cb_cmd_parser parser = {
    .cmd = "t",
    .synopsis = "usage: t [options]\n",
    .options = table,
    .footer = "the end\n",
    .option = args_option,
};

static int parse(struct args *a, char **argv, struct cb_sb *err)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(a, 0, sizeof *a);
    return cb_getopt(argc, argv, &parser, a, err);
}

static void test_values(void)
{
    struct args a;
    struct cb_sb err = CB_SB_INIT;
    char *v1[] = {"t", "-p", "csum", "--sim", "--db", "x.db", "--cpu", "3", "-q", "--reps", "7",
                  "operand", NULL};
    is_int(parse(&a, v1, &err), 0, "a good command line parses");
    is_str(a.probes, "csum", "-p's value lands in its field");
    is_int(a.sim, 1, "--sim sets its flag");
    is_str(a.s.db, "x.db", "a group's string lands in the group's struct");
    is_int(a.s.quiet, 1, "a group's short flag -q lands in the group's struct");
    is_int(a.s.cpu, 3, "a group's CALL option reaches the group's function");
    ok(a.reps == 7 && a.calls == 1, "the command's CALL option reaches the command's function");
    is_int(optind, 11, "optind is at the first operand");

    char *v2[] = {"t", "--probes=copy", "--hidden", "memset", NULL};
    is_int(parse(&a, v2, &err), 0, "--name=value and an unlisted option parse");
    is_str(a.probes, "memset", "the last of two options on one field wins");

    char *v3[] = {"t", "--cpu", "-1", NULL};
    is_int(parse(&a, v3, &err), -EINVAL, "a bad value is -EINVAL");
    is_str(err.buf, "--cpu '-1': not a CPU", "with the function's message");

    FILE *keep = stderr;
    stderr = fopen("/dev/null", "w");
    char *v4[] = {"t", "--nope", NULL};
    int r4 = parse(&a, v4, &err);
    char *v5[] = {"t", "--reps", NULL};
    int r5 = parse(&a, v5, &err);
    fclose(stderr);
    stderr = keep;
    is_int(r4, -ENOENT, "an unknown option is -ENOENT (said by cb_option_error)");
    is_int(r5, -ENOENT, "an option missing its value is -ENOENT");
    cb_sb_release(&err);
}

static void test_clash(void)
{
    static const struct cb_option twice[] = {
        CB_OPT_STR('p', "probes", struct args, probes, "LIST", "one"),
        CB_OPT_GROUP(shared_group, struct args, s),
        CB_OPT_STR(0, "db", struct args, probes, "PATH", "the group's --db again"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser bad = {.cmd = "t", .synopsis = "", .options = twice};
    struct args a = {0};
    struct cb_sb err = CB_SB_INIT;
    char *v[] = {"t", NULL};
    is_int(cb_getopt(1, v, &bad, &a, &err), -EINVAL, "two options named --db: refused");
    ok(strstr(err.buf, "--db") != NULL, "the message names the option: %s", err.buf);
    cb_sb_release(&err);
}

static void test_help(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cb_usage(&parser, f);
    fclose(f);
    ok(strncmp(text, "usage: t [options]\n", 19) == 0, "help starts with the synopsis");
    ok(len > 9 && strcmp(text + len - 8, "the end\n") == 0, "and ends with the footer");
    ok(strstr(text, "\n  -p, --probes LIST      families to run") != NULL,
       "a short and long option with its value, help from column 25");
    ok(strstr(text, "\n      --db PATH          database\n") != NULL, "a group's option, long only");
    ok(strstr(text, "\n  -q, --quiet            no progress\n") != NULL, "a group's flag");
    ok(strstr(text, "\n      --reps N           exactly N samples\n") != NULL, "a CALL option");
    ok(strstr(text, "--hidden") == NULL, "an option with no help is not listed");
    int lines = 0, wide = 0, dash = 0, options = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        wide += strlen(line) > 80;
        size_t sp = strspn(line, " ");
        if (line[sp] == '-') {
            options++;
            dash += sp != 2 && sp != 6;
        }
    }
    is_int(wide, 0, "no line wider than 80 columns (%d lines)", lines);
    is_int(options, 6, "six option lines: the listed options, each once");
    is_int(dash, 0, "no wrapped line of help starts with '-'");
    free(text);
}

/* The kinds that check their value: a number within bounds, one of a
 * table's names; and the -p/-V/-s/-m group every measuring command shares. */
struct typed {
    int rounds;
    long frame;
    int fmt;
    struct cb_select sel;
};

static const struct cb_opt_choice fmts[] = {
    {"text", 0}, {"markdown", 2}, {"md", 2}, {"json", 3}, {NULL, 0},
};

static const struct cb_option typed_table[] = {
    CB_OPT_INT(0, "rounds", struct typed, rounds, "N", 2, 1000, "rounds"),
    CB_OPT_LONG(0, "frame", struct typed, frame, "BYTES", 64, 16384, "frame"),
    CB_OPT_FORMAT(struct typed, fmt, fmts, "text, markdown or json"),
    CB_OPT_GROUP_NOTE(cb_select_options, struct typed, sel, "default: every family"),
    CB_OPT_END,
};
static const struct cb_cmd_parser typed_parser = {.cmd = "t", .synopsis = "", .options = typed_table};

static int parse_typed(struct typed *t, char **argv, struct cb_sb *err)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(t, 0, sizeof *t);
    return cb_getopt(argc, argv, &typed_parser, t, err);
}

static void test_typed(void)
{
    struct typed t;
    struct cb_sb err = CB_SB_INIT;
    char *v1[] = {"t", "--rounds", "12", "--frame", "1500", "--format", "md", "-p", "csum",
                  "-V", "avx2", "--sizes", "64", "-m", "warm", NULL};
    is_int(parse_typed(&t, v1, &err), 0, "numbers, a format and the group parse");
    is_int(t.rounds, 12, "--rounds 12 into an int");
    ok(t.frame == 1500, "--frame 1500 into a long");
    is_int(t.fmt, 2, "--format md: the value of markdown, its other spelling");
    ok(t.sel.probes && strcmp(t.sel.probes, "csum") == 0 && t.sel.variants &&
       strcmp(t.sel.variants, "avx2") == 0 && t.sel.sizes && strcmp(t.sel.sizes, "64") == 0 &&
       t.sel.modes && strcmp(t.sel.modes, "warm") == 0, "-p -V --sizes -m land in cb_select");

    char *v2[] = {"t", "--rounds", "1", NULL};
    is_int(parse_typed(&t, v2, &err), -EINVAL, "--rounds below its bound: refused");
    is_str(err.buf, "--rounds: 1 is out of range: give 2 to 1000", "the message names the bounds");
    is_int(t.rounds, 0, "and the field is left alone");
    char *v3[] = {"t", "--frame", "12x", NULL};
    is_int(parse_typed(&t, v3, &err), -EINVAL, "--frame 12x: refused");
    char *v4[] = {"t", "--format", "pdf", NULL};
    is_int(parse_typed(&t, v4, &err), -EINVAL, "--format pdf: refused");
    is_str(err.buf, "--format 'pdf': give text, markdown or json",
           "the message lists each choice once, in the table's order");

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cb_usage(&typed_parser, f);
    fclose(f);
    const char *m = strstr(text, "\n  -m, --mode MODE        warm, cold, or warm,cold\n");
    ok(m != NULL, "the group's -m is listed");
    ok(m && strncmp(strchr(m + 1, '\n') + 1, "                         default: every family\n",
                    47) == 0, "the command's note follows the group's options, at column 25");
    free(text);
    cb_sb_release(&err);
}

int main(void)
{
    test_values();
    test_clash();
    test_help();
    test_typed();
    return tap_done();
}
