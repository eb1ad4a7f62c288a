/* sanitizer.h - UNDER_ASAN is defined when this file is compiled with
 * AddressSanitizer (clang says so through __has_feature, gcc through a macro).
 * Tests use it to leave out checks a sanitizer makes meaningless: speed bounds
 * (the instrumented build runs several times slower) and RSS bounds (freed
 * memory stays in quarantine). Any test may include it; it includes nothing. */
#ifndef MLSYSD_TEST_SANITIZER_H
#define MLSYSD_TEST_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#endif
