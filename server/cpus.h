/* cpus.h - how many CPUs this process may use: the CPUs its affinity allows,
 * capped by its cgroup's CPU quota (a container's CPU limit), so that the
 * thread defaults (--threads, --sweep-threads) follow a container's limit and
 * not the host's CPU count. main.c and app.c call it for those defaults. */
#ifndef MLSYSD_CPUS_H
#define MLSYSD_CPUS_H

/* At least 1, at most `cap`. */
int cpus_available(int cap);

/* The CPUs a cgroup v2 cpu.max line allows ("150000 100000": 1.5), or 0 when
 * it sets no quota ("max 100000") or cannot be read. For tests. */
double cpus_from_cpu_max(const char *text);

#endif
