/* proc_status.h - a figure of a running process from /proc/PID/status
 * (VmRSS, VmHWM, Threads, ...), for the tests and benchmarks that watch the
 * daemon's memory: test_faults.c, test_sweep.c, bench/bench_startup.c.
 * Plain C, no Criterion. */
#ifndef MLSYSD_TEST_PROC_STATUS_H
#define MLSYSD_TEST_PROC_STATUS_H

#include <sys/types.h>

/* The number after "field:" (kB for the Vm* fields); -1 when the process or
 * the field is not there. */
long proc_status_kib(pid_t pid, const char *field);

#endif
