/* shmguard.c — an SQLite VFS over the default one whose only change is that
 * a mapped region of the WAL index (the -shm file) is backed by disk blocks
 * before SQLite touches it, so that a full disk is an error, not SIGBUS.
 *
 * Why: on ext4 with 1 KiB blocks and 9-11 KiB free, every
 * command that opened an existing store died of SIGBUS in
 * sqlite3WalBeginReadTransaction.  SQLite grows the -shm by writing one byte
 * at the end of each 4 KiB page and then mmaps it: with blocks smaller than a
 * page that byte allocates one block, the rest of the page stays a hole, and
 * the first store into the hole through the mapping must allocate a block
 * the filesystem no longer has.  The kernel can only answer a failed page
 * fault with SIGBUS.  sqlite3's own shell dies the same way.
 *
 * The fix is at that mechanism: after the default xShmMap has mapped a
 * region, MADV_POPULATE_WRITE (Linux 5.14) faults its pages in for writing,
 * which makes the filesystem allocate (or reserve, with delayed allocation)
 * every block under them now, and returns an error where the fault would
 * have raised SIGBUS.  That region is then not handed to SQLite, and the
 * call fails with SQLITE_FULL, which the store reports as "disk full".  On
 * a kernel without it the region's worth of free space is asked of
 * statvfs(2) instead: racy, but the store's writers keep a reserve
 * (reserve.c) that a region fits in.  A SIGBUS handler was the other way:
 * it could only end the process (a longjmp out of SQLite leaves its locks
 * and caches in an unknown state), and it would hide real faults.
 *
 * Every other call goes to the default VFS unchanged; only main database
 * files are wrapped (only they have a -shm).  The VFS is registered once,
 * not as the default, and only the store's opens name it. */
#define _GNU_SOURCE
#include "store/store_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sqlite3.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

struct guard_file {
    sqlite3_file base;          /* its pMethods: guard_io */
    sqlite3_file *real;         /* the default VFS's file, GUARD_HDR bytes on */
    char *shm_dir;              /* where the -shm lives, for statvfs */
};
#define GUARD_HDR ((sizeof(struct guard_file) + 15) & ~(size_t)15)

/* The VFS is filled in and registered once (SQLite keeps a pointer to it
 * for the life of the process): the one static of this layer. */
static sqlite3_vfs guard_vfs;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guard_rc = SQLITE_ERROR;

static sqlite3_vfs *root(void) { return (sqlite3_vfs *)guard_vfs.pAppData; }
static sqlite3_file *R(sqlite3_file *f) { return ((struct guard_file *)f)->real; }

/* Back [p, p + len) with disk blocks: 0, or SQLITE_FULL. */
static int back_region(struct guard_file *g, volatile void *p, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
    size_t span = len + ((uintptr_t)p - start);
    if (madvise((void *)start, span, MADV_POPULATE_WRITE) == 0)
        return SQLITE_OK;
    if (errno == EFAULT || errno == ENOMEM || errno == ENOSPC)
        return SQLITE_FULL;
    /* EINVAL: a kernel before 5.14.  Ask how much is free instead. */
    struct statvfs vs;
    if (g->shm_dir && statvfs(g->shm_dir, &vs) == 0 &&
        (unsigned long long)vs.f_bavail * vs.f_frsize < len)
        return SQLITE_FULL;
    return SQLITE_OK;
}

static int g_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
    int rc = R(f)->pMethods->xShmMap(R(f), pg, pgsz, extend, pp);
    /* SQLITE_READONLY: a read-only mapping, never written, never faulting. */
    if (rc != SQLITE_OK || !*pp)
        return rc;
    rc = back_region((struct guard_file *)f, *pp, (size_t)pgsz);
    if (rc != SQLITE_OK)
        *pp = NULL;   /* SQLite caches what it is given: give it nothing */
    return rc;
}

static int g_close(sqlite3_file *f)
{
    struct guard_file *g = (struct guard_file *)f;
    int rc = g->real->pMethods ? g->real->pMethods->xClose(g->real) : SQLITE_OK;
    sqlite3_free(g->shm_dir);
    g->shm_dir = NULL;
    return rc;
}

static int g_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return R(f)->pMethods->xRead(R(f), b, n, o); }
static int g_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return R(f)->pMethods->xWrite(R(f), b, n, o); }
static int g_truncate(sqlite3_file *f, sqlite3_int64 n) { return R(f)->pMethods->xTruncate(R(f), n); }
static int g_sync(sqlite3_file *f, int fl) { return R(f)->pMethods->xSync(R(f), fl); }
static int g_size(sqlite3_file *f, sqlite3_int64 *n) { return R(f)->pMethods->xFileSize(R(f), n); }
static int g_lock(sqlite3_file *f, int l) { return R(f)->pMethods->xLock(R(f), l); }
static int g_unlock(sqlite3_file *f, int l) { return R(f)->pMethods->xUnlock(R(f), l); }
static int g_reserved(sqlite3_file *f, int *r) { return R(f)->pMethods->xCheckReservedLock(R(f), r); }
static int g_fcntl(sqlite3_file *f, int op, void *a) { return R(f)->pMethods->xFileControl(R(f), op, a); }
static int g_sector(sqlite3_file *f) { return R(f)->pMethods->xSectorSize(R(f)); }
static int g_devchar(sqlite3_file *f) { return R(f)->pMethods->xDeviceCharacteristics(R(f)); }
static int g_shm_lock(sqlite3_file *f, int o, int n, int fl) { return R(f)->pMethods->xShmLock(R(f), o, n, fl); }
static void g_shm_barrier(sqlite3_file *f) { R(f)->pMethods->xShmBarrier(R(f)); }
static int g_shm_unmap(sqlite3_file *f, int del) { return R(f)->pMethods->xShmUnmap(R(f), del); }
static int g_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) { return R(f)->pMethods->xFetch(R(f), o, n, pp); }
static int g_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { return R(f)->pMethods->xUnfetch(R(f), o, p); }

static const sqlite3_io_methods guard_io = {
    3, g_close, g_read, g_write, g_truncate, g_sync, g_size, g_lock, g_unlock, g_reserved,
    g_fcntl, g_sector, g_devchar, g_shm_map, g_shm_lock, g_shm_barrier, g_shm_unmap,
    g_fetch, g_unfetch,
};

/* The directory of a database file name, sqlite3_malloc'd. */
static char *dir_of(const char *name)
{
    const char *slash = name ? strrchr(name, '/') : NULL;
    if (!slash)
        return sqlite3_mprintf(".");
    return sqlite3_mprintf("%.*s", slash == name ? 1 : (int)(slash - name), name);
}

static int g_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    (void)vfs;
    /* Not a main database: no -shm, so the default VFS's file as it is. */
    if (!(flags & SQLITE_OPEN_MAIN_DB))
        return root()->xOpen(root(), name, f, flags, out);
    struct guard_file *g = (struct guard_file *)f;
    memset(g, 0, sizeof *g);
    g->real = (sqlite3_file *)((char *)g + GUARD_HDR);
    int rc = root()->xOpen(root(), name, g->real, flags, out);
    if (rc != SQLITE_OK)
        return rc;
    /* Every method but xShmMap is the default's: ours only where it has them. */
    if (!g->real->pMethods || g->real->pMethods->iVersion < 3) {
        g->real->pMethods->xClose(g->real);
        memset(g, 0, sizeof *g);
        return root()->xOpen(root(), name, f, flags, out);
    }
    g->shm_dir = dir_of(name);
    g->base.pMethods = &guard_io;
    return SQLITE_OK;
}

static void guard_register(void)
{
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    if (!base)
        return;
    guard_vfs = *base;
    guard_vfs.zName = CB_ST_VFS;
    guard_vfs.pNext = NULL;
    guard_vfs.pAppData = base;
    /* The default's file, with our two pointers in front (aligned as it). */
    guard_vfs.szOsFile = (int)GUARD_HDR + base->szOsFile;
    guard_vfs.xOpen = g_open;
    guard_rc = sqlite3_vfs_register(&guard_vfs, 0);
}

const char *cb_st_vfs(void)
{
    pthread_once(&guard_once, guard_register);
    return guard_rc == SQLITE_OK ? CB_ST_VFS : NULL;
}
