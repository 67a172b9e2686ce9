/* replay.c — run a fuzz target over files, without libFuzzer.
 *
 * Lets make check exercise every target on its committed corpus with the
 * ordinary compiler (gcc, or the sanitizer build), so a parser change that
 * breaks an invariant fails the suite even where clang's libFuzzer is
 * missing.  Arguments are files or directories (one level). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b)
                free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (argv[i][0] == '-')
            continue; /* libFuzzer's options (-runs=0): the same command line works for both */
        if (stat(argv[i], &sb) != 0) {
            perror(argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad += run_file(argv[i]) < 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            bad += run_file(path) < 0;
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("%d inputs replayed, %d unreadable\n", files, bad);
    return bad || !files;
}
