/* fuzz.h — what the fuzz targets of fuzz/ share (fuzz/README.md is the manual).
 *
 * Each fuzz/fuzz_TARGET.c defines the two libFuzzer entry points below and is linked either
 * with libFuzzer (clang -fsanitize=fuzzer, the `fuzz` preset) or with replay.c, a plain main()
 * that feeds it every file of fuzz/corpus/TARGET and fuzz/regressions/TARGET (any compiler; the
 * CTest fuzz.replay.TARGET of the default and asan presets). A target reports a broken
 * invariant of the code under test with fuzz_fail(), which aborts: libFuzzer keeps the input as
 * a crash, the replay fails.
 */
#ifndef SCALE_FUZZ_H
#define SCALE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "scale/status.h"

/* ---- libFuzzer's entry points (defined by every target) ------------------------------------- */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- helpers (fuzz_common.c) ---------------------------------------------------------------- */

/** A NUL-terminated copy of data[0..size), cut at its first NUL byte (what a C-string API is
 * given). Owns: the caller frees it. Aborts on out-of-memory. */
char *fuzz_cstr(const uint8_t *data, size_t size);

/** Prints "fuzz: invariant violated: MESSAGE" on stderr and aborts (a finding). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/** Fails unless 'diag' keeps status.h's contract: NUL-terminated fields and a message of one
 * line (no newline). 'what' names the call in the report. */
void fuzz_check_diag(const scale_diag *diag, const char *what);

/** Whether text[0..len) holds a control character (< 0x20 or 0x7f) other than those in
 * 'allowed' (e.g. "\n"). */
int fuzz_has_control(const char *text, size_t len, const char *allowed);

/** Creates a private temporary folder, removed with everything in it when the process exits
 * normally, and writes its path into dir[0..size). Aborts on failure. */
void fuzz_tmpdir(char *dir, size_t size);

/** Creates folder 'path' and its missing parents. Aborts on failure. */
void fuzz_mkdirs(const char *path);

/** Writes data[0..size) to 'path', replacing it. Aborts on failure. */
void fuzz_write_file(const char *path, const void *data, size_t size);

/** Copies every regular file of folder 'from' whose name ends with 'suffix' into folder 'to';
 * with 'recursive', sub-folders too. Aborts on failure. */
void fuzz_copy_tree(const char *from, const char *to, const char *suffix, int recursive);

/** Makes sure file descriptors 0, 1 and 2 are open (on /dev/null when libFuzzer's
 * -close_fd_mask closed them), so that files the target opens never take their numbers. */
void fuzz_std_fds(void);

/** Sends sanitizer reports to a copy of the current stderr, so that they survive a target
 * pointing descriptor 2 elsewhere while the code under test runs. No-op without sanitizers. */
void fuzz_keep_reports(void);

#endif
