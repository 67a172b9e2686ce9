/* cpuinfo.c — one field of /proc/cpuinfo (cpu_arch.h), as the kernel read
 * the CPU: what the arch files compare with the CPU's own answer. */
#include <stdio.h>
#include <string.h>

#include "host/cpu_arch.h"

void cb_cpuinfo_field(const char *key, char *out, size_t len)
{
    FILE *fp = fopen("/proc/cpuinfo", "r");
    char line[1024];
    size_t klen = strlen(key);
    out[0] = '\0';
    if (!fp)
        return;
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, key, klen) != 0)
            continue;
        char *p = line + klen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ')
            p++;
        p[strcspn(p, "\n")] = '\0';
        snprintf(out, len, "%s", p);
        break;
    }
    fclose(fp);
}
