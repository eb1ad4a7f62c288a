/* request_id.c - request ids (contract in request_id.h). */
#include "server/request_id.h"

#include <ctype.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A client's X-Request-ID is echoed if it is 1..64 characters of
 * [A-Za-z0-9._:-]; otherwise we make one. */
bool valid_request_id(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)id[i]) && !strchr("._:-", id[i]))
            return false;
    return true;
}

/* The process id, read once: glibc asks the kernel for it on every call. */
static unsigned long long process_id(void)
{
    static _Atomic unsigned long long pid;
    unsigned long long p = atomic_load_explicit(&pid, memory_order_relaxed);
    if (!p) {
        p = (unsigned long long)getpid();
        atomic_store_explicit(&pid, p, memory_order_relaxed);
    }
    return p;
}

static void put_hex(char *out, unsigned long long x, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--, x >>= 4)
        out[i] = hex[x & 15];
}

void new_request_id(char *buf, size_t n)
{
    static _Atomic unsigned long long counter;
    unsigned long long c = atomic_fetch_add(&counter, 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long x = ((unsigned long long)ts.tv_sec * 1000000007ULL) ^ (unsigned long long)ts.tv_nsec ^
                           (c * 0x9E3779B97F4A7C15ULL) ^ (process_id() << 32);
    /* splitmix64 finaliser: ids look random and never repeat within a process */
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    char id[20];
    put_hex(id, x, 16);
    put_hex(id + 16, c & 0xffff, 4);
    if (!n)
        return;
    size_t k = n - 1 < sizeof id ? n - 1 : sizeof id;
    memcpy(buf, id, k);
    buf[k] = '\0';
}
