/* tree.h — a made-up sysfs/procfs tree for the tests that read the machine
 * from files (fingerprint, meter): one file written under a root, with the
 * directories on the way made first. */
#ifndef CB_TEST_TREE_H
#define CB_TEST_TREE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Write text to root/rel. */
static void tree_put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

#endif
