/* test_shell.c — the quoting of appended arguments, judged by the shell
 * itself: every word must come back from sh exactly as given. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/shell.h"
#include "tap.h"

static void roundtrip(const char *const *args, size_t n, const char *what)
{
    char path[] = "/tmp/cb-shell-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        ok(0, "%s: mkstemp", what);
        return;
    }
    close(fd);
    char *words = cb_shell_join("printf '%s\\n'", args, n);
    char *cmd = NULL;
    ok(words && asprintf(&cmd, "%s > '%s'", words, path) > 0, "%s: joined", what);
    is_int(cb_shell_run(cmd), 0, "%s: sh ran it", what);
    FILE *f = fopen(path, "r");
    char line[512];
    size_t got = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (got < n)
            is_str(line, args[got], "%s: word %zu comes back as given", what, got);
        got++;
    }
    is_int(got, n, "%s: as many words as given", what);
    if (f)
        fclose(f);
    unlink(path);
    free(words);
    free(cmd);
}

int main(void)
{
    const char *plain[] = {"--cases", "csum/adc-2chain/1500/warm,synthetic/chain/250/warm"};
    roundtrip(plain, 2, "case names");
    const char *nasty[] = {"it's", "$(touch /tmp/cb-pwned)", "a b\tc", "`id`", "\\", "''", "*",
                           "; exit 7", "\"q\""};
    roundtrip(nasty, sizeof nasty / sizeof nasty[0], "shell syntax stays text");
    ok(access("/tmp/cb-pwned", F_OK) != 0, "no command substitution ran");
    const char *empty[] = {""};
    roundtrip(empty, 1, "an empty word");

    char *j = cb_shell_join("run", NULL, 0);
    is_str(j, "run", "no arguments: the prefix alone");
    free(j);
    is_int(cb_shell_run("true"), 0, "exit 0");
    is_int(cb_shell_run("exit 3"), 3, "exit 3");
    is_int(cb_shell_run("kill -TERM $$"), 128 + 15, "killed by SIGTERM: 128 + 15");
    is_int(cb_shell_run("/nonexistent/cyclebudget run"), 127, "no such command: sh's 127");
    printf("1..%d\n", tap_n);
    return tap_failed != 0;
}
