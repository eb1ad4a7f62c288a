/* golden_files.h - where the parity tests find the reference numbers.
 *
 * The golden files are vendored in tests/golden/ (copied unchanged from the
 * shared folder, see tests/golden/PROVENANCE.md), so a plain clone checks
 * parity. When ../shared/golden/ sits beside the checkout, a file there that
 * has no vendored copy is read too; a file present in both is read from
 * tests/golden/, with a note on stderr when the two copies differ. Used by
 * the API tests (test_golden.c) and the unit tests (test_solve_writer.c,
 * test_catalog.c); plain C, no Criterion. */
#ifndef MLSYSD_TEST_GOLDEN_FILES_H
#define MLSYSD_TEST_GOLDEN_FILES_H

#include <stdbool.h>
#include <stddef.h>

#define GOLDEN_MAX_FILES 64

typedef struct {
    char name[256];  /* "reference_cases.jsonl" */
    char path[1024]; /* where it is read from */
    bool vendored;   /* from tests/golden/ (else ../shared/golden/) */
} golden_file;

/* Every golden file whose name ends in `suffix` (".jsonl"), sorted by name,
 * at most `max`: the vendored ones, then those only ../shared/golden/ has.
 * Returns how many. */
int golden_files(const char *suffix, golden_file *out, int max);

/* The path of the golden file `name` (vendored copy first) in buf; false
 * when neither folder has it. */
bool golden_path(const char *name, char *buf, size_t n);

/* The two folders, for messages: tests/golden/ and ../shared/golden/. */
const char *golden_vendored_dir(void);
const char *golden_shared_dir(void);

#endif
