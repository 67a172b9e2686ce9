/* cmd_compare.c — placeholder until regression tracking lands. */
#include "cmd.h"

static int later(const char *what)
{
    cb_die_msg("'%s' is not built yet", what);
    return 1;
}
int cmd_compare(int argc, char **argv) { (void)argc; (void)argv; return later("compare"); }
int cmd_history(int argc, char **argv) { (void)argc; (void)argv; return later("history"); }
int cmd_ack(int argc, char **argv) { (void)argc; (void)argv; return later("ack"); }
int cmd_bisect_check(int argc, char **argv) { (void)argc; (void)argv; return later("bisect-check"); }
