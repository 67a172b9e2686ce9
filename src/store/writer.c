/* writer.c — who is writing a run (host, boot, process and its start
 * time, stored with the run), and reaping the runs whose writer died
 * without ending them (see store.h). */
#include "store/store_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- who is writing ----------------------------------------------------- */

/* Start time of pid in clock ticks after boot (field 22 of its main
 * thread's stat), or -1 unknown.  A pid that is alive but started at
 * another time is a reused pid.  Read through /proc/PID/task/PID/stat, not
 * /proc/PID/stat: qemu-user answers a process's own /proc/self/stat and
 * /proc/PID/stat itself, with the start of the qemu it was forked from
 * (a child of a fork read its parent's start, 14 s before its own), while
 * every other process reads the kernel's figure; so test_store's two
 * concurrent writers under qemu reaped each other's live runs and lost
 * their cases (3 in 60).  The task's file is the kernel's for everyone. */
long long cb_st_proc_start(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        f = fopen(path, "re");
    }
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* comm may contain spaces and ')': fields restart after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    /* After ')' come field 3 (state) ... field 22 (starttime). */
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    long long v = strtoll(p + 1, NULL, 10);
    return v > 0 ? v : -1;
}

void cb_st_boot_id(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

void cb_st_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

static void read_real(struct cb_db_stmt *s, void *v)
{
    *(double *)v = cb_db_column_double(s, 0);
}

int cb_store_boot_tsc(struct cb_store *st, double *ghz)
{
    char host[256], boot[64];
    cb_st_hostname(host, sizeof host);
    cb_st_boot_id(boot, sizeof boot);
    *ghz = 0;
    if (!boot[0])
        return -ENOENT;
    const char *const key[] = {host, boot};
    int rc = cb_st_row_once(st,
                            "SELECT r.tsc_ghz FROM runs r JOIN hosts h ON h.id = r.host_id"
                            " WHERE h.hostname = ?1 AND r.boot_id = ?2"
                            "   AND h.tsc_source = 'calibrated' AND r.tsc_ghz > 0"
                            " ORDER BY r.id DESC LIMIT 1",
                            key, 2, read_real, ghz);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT : -EIO;
}

/* ---- reaping ------------------------------------------------------------ */

struct reap_ctx {
    int n;
};

int cb_st_dead_runs(struct cb_store *st, int64_t *dead, int max)
{
    char host[256], boot[64];
    int rc, ndead = 0;
    cb_st_hostname(host, sizeof host);
    cb_st_boot_id(boot, sizeof boot);
    struct cb_db_stmt *s = cb_st_stmt(st, Q_REAP_SEL, &rc);
    if (!s)
        return cb_st_errno_or_eio(rc);
    cb_st_bind_str(s, 1, host);
    while ((rc = cb_db_step(s)) == CB_DB_ROW && ndead < max) {
        int64_t id = cb_db_column_int64(s, 0);
        pid_t pid = (pid_t)cb_db_column_int64(s, 1);
        int known_start = cb_db_column_type(s, 2) != CB_DB_NULL;
        long long start = cb_db_column_int64(s, 2);
        const char *rboot = (const char *)cb_db_column_text(s, 3);
        int is_dead;
        /* Same hostname is taken to mean this machine.  Another boot: every
         * process of that boot is gone, whatever its pid is now. */
        if (*boot && rboot && *rboot && strcmp(boot, rboot) != 0)
            is_dead = 1;
        else if (kill(pid, 0) != 0 && errno == ESRCH)
            is_dead = 1;
        else if (known_start) {
            /* Alive, but is it the same process, or a reused pid? */
            long long now = cb_st_proc_start(pid);
            is_dead = now >= 0 && now != start;
        } else
            is_dead = 0;
        if (is_dead)
            dead[ndead++] = id;
    }
    cb_db_reset(s);
    if (rc != CB_DB_DONE && rc != CB_DB_ROW)
        return cb_st_errno_or_eio(rc);
    return ndead;
}

static int reap_fn(struct cb_store *st, void *vctx)
{
    struct reap_ctx *c = vctx;
    int rc;
    c->n = 0;
    /* Collect first, update after: the update must not run while the
     * SELECT over the same table is still stepping. */
    int64_t dead[256];
    int ndead = cb_st_dead_runs(st, dead, (int)(sizeof dead / sizeof dead[0]));
    if (ndead < 0)
        return ndead;
    struct cb_db_stmt *s;
    for (int i = 0; i < ndead; i++) {
        s = cb_st_stmt(st, Q_REAP_UPD, &rc);
        if (!s)
            return rc;
        cb_db_bind_int64(s, 1, dead[i]);
        rc = cb_st_step_done(s);
        if (rc != CB_DB_OK)
            return rc;
        c->n += cb_db_changes(st->db);
    }
    return CB_DB_OK;
}

int cb_store_reap_aborted(struct cb_store *st)
{
    if (!st)
        return -EINVAL;
    struct reap_ctx c = {0};
    int r = cb_st_tx(st, reap_fn, &c);
    if (r < 0)
        return r;
    return c.n;
}
