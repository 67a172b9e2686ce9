/* db_internal.h — what db.c shares with its backends (db_sqlite.c,
 * db_pg.c): the vtable behind struct cb_db and the parts every backend's
 * handle and statement begin with.  Included only by those three files. */
#ifndef CB_DB_INTERNAL_H
#define CB_DB_INTERNAL_H

#include "util/strbuf.h"

#include "store/db.h"
#include "store/store.h"

struct cb_db_ops {
    const char *name;
    enum cb_db_kind kind;
    void (*close)(struct cb_db *);
    int (*prepare)(struct cb_db *, const char *sql, struct cb_db_stmt **);
    int (*bind_int64)(struct cb_db_stmt *, int, int64_t);
    int (*bind_double)(struct cb_db_stmt *, int, double);
    int (*bind_text)(struct cb_db_stmt *, int, const char *);
    int (*bind_null)(struct cb_db_stmt *, int);
    int (*clear_bindings)(struct cb_db_stmt *);
    int (*step)(struct cb_db_stmt *);
    int (*reset)(struct cb_db_stmt *);
    void (*finalize)(struct cb_db_stmt *);
    int (*column_count)(struct cb_db_stmt *);
    enum cb_db_type (*column_type)(struct cb_db_stmt *, int);
    const char *(*column_name)(struct cb_db_stmt *, int);
    int64_t (*column_int64)(struct cb_db_stmt *, int);
    double (*column_double)(struct cb_db_stmt *, int);
    const char *(*column_text)(struct cb_db_stmt *, int);
    int (*exec)(struct cb_db *, const char *sql);
    int64_t (*changes)(struct cb_db *);
    int64_t (*last_insert_id)(struct cb_db *);
    int (*begin)(struct cb_db *);
    int (*in_tx)(struct cb_db *);
    int (*schema_version)(struct cb_db *);
    /* Apply migration m inside the write transaction cb_db_migrate opened,
     * after checking again (under the lock) that it is still missing. */
    int (*apply)(struct cb_db *, const struct cb_migration *m);
};

/* Every backend's handle starts with this. */
struct cb_db {
    const struct cb_db_ops *ops;
    char errmsg[512];
};

/* Every backend's statement starts with this. */
struct cb_db_stmt {
    struct cb_db *db;
};

/* One line into err (may be NULL), and a copy into db->errmsg when db. */
void cb_db_msg(struct cb_db *db, struct cb_sb *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int cb_db_sqlite_open(const char *path, int flags, struct cb_db **out, struct cb_sb *err);
int cb_db_pg_open(const char *url, int flags, struct cb_db **out, struct cb_sb *err);

/* The migrations for PostgreSQL, db/pg/ (db_pg_sql.c, generated). */
extern const struct cb_migration cb_pg_migrations[];
extern const size_t cb_pg_nmigrations;

/* 'CyBu': SQLite's PRAGMA application_id, and the key of the advisory lock
 * every PostgreSQL writer takes. */
#define CB_DB_APP_ID 0x43794275

#endif
