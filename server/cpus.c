/* cpus.c - how many CPUs this process may use (contract in cpus.h). */
#define _GNU_SOURCE
#include "server/cpus.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double cpus_from_cpu_max(const char *text)
{
    if (!text || strncmp(text, "max", 3) == 0)
        return 0;
    char *end;
    double quota = strtod(text, &end);
    double period = end != text ? strtod(end, NULL) : 0;
    return quota > 0 && period > 0 ? quota / period : 0;
}

/* The first line of a small file, or "" when it cannot be read. */
static void read_line(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)n, f))
        buf[0] = '\0';
    fclose(f);
}

/* This process's path in the hierarchy whose controllers include `controller`
 * ("" for the cgroup v2 unified one), from /proc/self/cgroup; false if none. */
static int cgroup_path(const char *controller, char *path, size_t n)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *list = c1 + 1;
        if (controller[0] == '\0') {
            found = list[0] == '\0';
        } else {
            for (const char *p = list; *p && !found;) { /* "cpu,cpuacct" */
                size_t len = strcspn(p, ",");
                found = len == strlen(controller) && strncmp(p, controller, len) == 0;
                p += len + (p[len] == ',');
            }
        }
        if (found) {
            snprintf(path, n, "%s", c2 + 1);
            path[strcspn(path, "\n")] = '\0';
        }
    }
    fclose(f);
    return found;
}

/* The CPU quota of this process's cgroup, in CPUs; 0 if none is set. A
 * container usually sees its own cgroup at the mount's root. */
static double cgroup_quota(void)
{
    char path[512], file[1100], line[128];
    if (cgroup_path("", path, sizeof path)) { /* v2 */
        snprintf(file, sizeof file, "/sys/fs/cgroup%s/cpu.max", strcmp(path, "/") ? path : "");
        read_line(file, line, sizeof line);
        if (!line[0])
            read_line("/sys/fs/cgroup/cpu.max", line, sizeof line);
        double q = cpus_from_cpu_max(line);
        if (q > 0)
            return q;
    }
    if (cgroup_path("cpu", path, sizeof path)) { /* v1 */
        static const char *const ROOTS[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"};
        for (size_t r = 0; r < sizeof ROOTS / sizeof ROOTS[0]; r++)
            for (int own = 1; own >= 0; own--) {
                char q[128], p[128];
                snprintf(file, sizeof file, "%s%s/cpu.cfs_quota_us", ROOTS[r], own ? path : "");
                read_line(file, q, sizeof q);
                snprintf(file, sizeof file, "%s%s/cpu.cfs_period_us", ROOTS[r], own ? path : "");
                read_line(file, p, sizeof p);
                if (q[0] && p[0]) {
                    double quota = strtod(q, NULL), period = strtod(p, NULL);
                    return quota > 0 && period > 0 ? quota / period : 0;
                }
            }
    }
    return 0;
}

int cpus_available(int cap)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);
    double quota = cgroup_quota();
    if (quota > 0 && ceil(quota) < (double)n)
        n = (long)ceil(quota);
    if (n < 1)
        n = 1;
    return n > cap ? cap : (int)n;
}
