/* cmd_race.c — placeholder until the race lands. */
#include "cmd.h"

int cmd_race(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cb_die_msg("'race' is not built yet");
    return 1;
}
