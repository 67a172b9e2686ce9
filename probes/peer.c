/* peer.c — the second thread of a cross-CPU family (peer.h). */
#define _GNU_SOURCE
#include "probes/peer.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

static void *peer_main(void *v)
{
    struct cb_peer *p = v;
    p->loop(p, p->arg);
    return NULL;
}

int cb_peer_start(struct cb_peer *p, int cpu, void (*loop)(struct cb_peer *, void *), void *arg)
{
    p->started = 0;
    atomic_store(&p->stop, 0);
    p->loop = loop;
    p->arg = arg;
    pthread_attr_t at;
    if (pthread_attr_init(&at))
        return -ENOMEM;
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (pthread_attr_setaffinity_np(&at, sizeof one, &one)) {
            pthread_attr_destroy(&at);
            return -EINVAL;
        }
    }
    int rc = pthread_create(&p->thread, &at, peer_main, p);
    pthread_attr_destroy(&at);
    if (rc)
        return rc == EINVAL ? -EINVAL : -rc;
    p->started = 1;
    return 0;
}

void cb_peer_stop(struct cb_peer *p)
{
    if (!p->started)
        return;
    atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
    p->started = 0;
}

void cb_spin_yield(void)
{
    sched_yield();
}
