/* machine.h — which machine a run ran on, as a short name for people.
 *
 * A store that holds runs of many hosts (`cyclebudget merge`) must not pool
 * them: history and compare group runs by machine and select one with
 * --host.  The machine is the hostname and the CPU's identity (vendor,
 * family, model, stepping, model name): a kernel or microcode update makes a
 * new hosts row but not a new machine (history shows the step there), while
 * two CI runners that are both called "localhost" on different CPUs are two.
 * Its id is 8 hex digits of a hash of those fields, the same wherever the
 * runs are copied, which --host accepts beside a hostname glob. */
#ifndef CB_MACHINE_H
#define CB_MACHINE_H

#include <stddef.h>

#define CB_MACHINE_ID_LEN 8

/* The machine id into out[CB_MACHINE_ID_LEN + 1]. */
void cb_machine_id(const char *hostname, const char *vendor, int family, int model, int stepping,
                   const char *model_name, char *out);

/* 1 when spec names the machine: its id, or a prefix of it of 4+ hex digits;
 * or an fnmatch(3) glob over its hostname. */
int cb_machine_match(const char *spec, const char *id, const char *hostname);

#endif
