/* reserve.c — disk space kept back so that a run can always be ended.
 *
 * A collector that meets a full disk must still mark its run 'aborted',
 * and that is a write too: with 160 KB free on ext4 the case failed, the
 * UPDATE that ends the run failed after it, and the run stayed 'running'
 * until the next writer reaped it.  So a writer holds
 * CB_RESERVE_BYTES allocated on the store's filesystem in a file that has
 * no name (O_TMPFILE, or a temporary file unlinked at once): nothing is
 * left beside the store, and the kernel frees the space whenever the
 * process ends, killed or not.  On a full disk the store lets it go and
 * ends the run in the space it gave back. */
#define _GNU_SOURCE
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Ending a run writes a few WAL frames (4 KiB pages) and perhaps grows the
 * -shm by one 32 KiB region: 256 KiB is several times that. */
#define CB_RESERVE_BYTES (256 << 10)

static int nameless_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
#endif
    char path[4096];
    snprintf(path, sizeof path, "%s/.cyclebudget-reserve-XXXXXX", dir);
    int tmp = mkostemp(path, O_CLOEXEC);
    if (tmp >= 0)
        unlink(path);
    return tmp;
}

int cb_st_reserve_take(struct cb_store *st, const char *dir)
{
    if (st->has_reserve)
        return 0;
    int fd = nameless_file(dir);
    if (fd < 0)
        return errno == ENOSPC || errno == EDQUOT ? -ENOSPC : 0;   /* no reserve, no harm */
    int e = posix_fallocate(fd, 0, CB_RESERVE_BYTES);
    if (e != 0) {
        close(fd);
        return e == ENOSPC || e == EDQUOT ? -ENOSPC : 0;
    }
    st->reserve_fd = fd;
    st->has_reserve = 1;
    return 0;
}

int cb_st_reserve_release(struct cb_store *st)
{
    if (!st->has_reserve)
        return 0;
    close(st->reserve_fd);
    st->has_reserve = 0;
    return 1;
}
