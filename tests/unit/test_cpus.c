/* test_cpus.c - the CPUs the thread defaults follow: a cgroup v2 cpu.max line
 * read as a quota, and the affinity mask honoured (each Criterion test runs in
 * its own process, so narrowing the mask here changes no other test). */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include <sched.h>

#include "server/cpus.h"

Test(cpus, cpu_max_lines)
{
    cr_expect_eq(cpus_from_cpu_max("max 100000\n"), 0.0, "no quota");
    cr_expect_eq(cpus_from_cpu_max("200000 100000\n"), 2.0);
    cr_expect_eq(cpus_from_cpu_max("150000 100000"), 1.5);
    cr_expect_eq(cpus_from_cpu_max("50000 100000"), 0.5);
    cr_expect_eq(cpus_from_cpu_max(""), 0.0, "unreadable");
    cr_expect_eq(cpus_from_cpu_max("garbage"), 0.0);
    cr_expect_eq(cpus_from_cpu_max(NULL), 0.0);
}

Test(cpus, affinity_and_cap)
{
    int all = cpus_available(1024);
    cr_assert_geq(all, 1);
    cr_expect_eq(cpus_available(1), 1, "the cap wins");
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    cr_expect_eq(cpus_available(64), 1, "a process pinned to one CPU gets one thread");
}
