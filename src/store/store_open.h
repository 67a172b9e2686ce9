/* store_open.h — the steps of opening an SQLite store file, shared by
 * store.c (the order of the steps), precheck.c (what stat(2) and the
 * 100-byte header decide before SQLite opens the file) and integrity.c
 * (when the whole file is checked, and how).  Inside src/store/ only. */
#ifndef CB_STORE_OPEN_H
#define CB_STORE_OPEN_H

#include "util/strbuf.h"

#include <limits.h>
#include <sys/types.h>

#include "store/store_internal.h"

/* PRAGMA application_id: 'CyBu'.  Lets us tell our database from another
 * program's SQLite file before touching it. */
#define CB_APP_ID 0x43794275

/* A writer waits this long for another writer's transaction; the collectors
 * write one case at a time, so a wait longer than this means a stuck writer. */
#define CB_BUSY_MS 10000

/* What cb_store_open has found out so far, passed along its steps. */
struct cb_st_open {
    const char *path;
    enum cb_store_mode mode;
    int latest, target;         /* the schema we know; the one to migrate to */
    char dir[PATH_MAX];         /* where the -wal and -shm files go */
    char wal[PATH_MAX + 8];     /* PATH-wal */
    int fresh;                  /* missing or empty: SQLite will make it a database */
    int writable;               /* we may write it */
    off_t size;                 /* of an existing database, else 0 */
    int wal_frames;             /* its -wal file had frames when we came */
    long uv, app, nobj, hasruns;  /* what the database says of itself, once open */
    struct cb_sb *err;
};

/* Everything decidable without SQLite: sets o->fresh, o->writable, o->size;
 * 0 or a negative errno with o->err said. */
int cb_st_precheck(struct cb_st_open *o);
/* "PATH was written by a newer cyclebudget ...": -EPROTO. */
int cb_st_newer_msg(const char *path, long have, int latest, struct cb_sb *err);

/* Whether this open must read the whole file first (integrity.c says
 * when, and why): 1 or 0. */
int cb_st_needs_check(struct cb_store *st, const struct cb_st_open *o);
/* The first row of every table read, at a cost that does not grow with
 * the file: 1 when a page on the way is damaged. */
int cb_st_roots_damaged(struct cb_store *st);
/* PRAGMA quick_check (full: PRAGMA integrity_check): 0, or -EINVAL with
 * err saying the file is damaged and what to do, or another errno. */
int cb_st_quick_check(struct cb_store *st, const char *path, int full, struct cb_sb *err);
#define CB_DISK_FULL_BYTES (256u << 10)   /* cb_st_disk_full's threshold */
/* "PATH: WHAT: disk full ..." or "PATH: WHAT: the database's message" into
 * o->err; the errno of rc (-ENOSPC when the disk is full). */
int cb_st_open_fail(struct cb_store *st, const struct cb_st_open *o, int rc, const char *what);

#endif
