/* golden_files.c - the vendored golden files, plus the shared ones not vendored
 * (contract in golden_files.h). */
#include "golden_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *golden_vendored_dir(void) { return MLSYSD_GOLDEN_DIR; }
const char *golden_shared_dir(void) { return MLSYSD_SHARED_DIR "/golden"; }

static bool ends_with(const char *s, const char *suffix)
{
    size_t l = strlen(s), k = strlen(suffix);
    return l > k && !strcmp(s + l - k, suffix);
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* Same bytes; false also when either cannot be read. */
static bool same_content(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        char ba[8192], bb[8192];
        size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
        if (na != nb || memcmp(ba, bb, na))
            same = false;
        else if (na == 0)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static int find(const golden_file *f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i].name, name))
            return i;
    return -1;
}

/* Adds the files of dir ending in suffix that are not listed yet; for a name
 * already listed, notes on stderr when this copy differs. */
static int add_dir(const char *dir, bool vendored, const char *suffix, golden_file *out, int n, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return n;
    for (struct dirent *e; (e = readdir(d));) {
        if (!ends_with(e->d_name, suffix) || strlen(e->d_name) >= sizeof out[0].name)
            continue;
        char path[sizeof out[0].path];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int have = find(out, n, e->d_name);
        if (have >= 0) {
            if (!same_content(out[have].path, path))
                fprintf(stderr, "golden: %s differs from %s; the tests read the vendored copy "
                                "(tests/golden/PROVENANCE.md says how to refresh it)\n",
                        out[have].path, path);
            continue;
        }
        if (n >= max)
            break;
        snprintf(out[n].name, sizeof out[n].name, "%s", e->d_name);
        snprintf(out[n].path, sizeof out[n].path, "%s", path);
        out[n].vendored = vendored;
        n++;
    }
    closedir(d);
    return n;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const golden_file *)a)->name, ((const golden_file *)b)->name);
}

int golden_files(const char *suffix, golden_file *out, int max)
{
    int n = add_dir(golden_vendored_dir(), true, suffix, out, 0, max);
    n = add_dir(golden_shared_dir(), false, suffix, out, n, max);
    qsort(out, (size_t)n, sizeof out[0], by_name);
    return n;
}

bool golden_path(const char *name, char *buf, size_t n)
{
    char shared[1024];
    snprintf(shared, sizeof shared, "%s/%s", golden_shared_dir(), name);
    snprintf(buf, n, "%s/%s", golden_vendored_dir(), name);
    if (exists(buf)) {
        if (exists(shared) && !same_content(buf, shared))
            fprintf(stderr, "golden: %s differs from %s; the tests read the vendored copy "
                            "(tests/golden/PROVENANCE.md says how to refresh it)\n",
                    buf, shared);
        return true;
    }
    snprintf(buf, n, "%s", shared);
    return exists(buf);
}
