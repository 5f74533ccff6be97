/* util.h — the grader's small helpers: formatted and truncating copies into fixed buffers,
 * progress lines, diagnostics, reading and copying files, a log's tail. Shared by grade.c,
 * student.c and gradescope.c; they depend on nothing else of the grader. Not installed.
 */
#ifndef SCALE_GRADE_UTIL_H
#define SCALE_GRADE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "grade.h"

/** snprintf into a fixed buffer (a longer path is truncated and then not found). */
void grade_fmt(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** Copies string 'src' into 'dst' of 'size' bytes, cut to fit. */
void grade_copy(char *dst, size_t size, const char *src);

/** A progress line to options->log, if any. */
void grade_say(const scale_grade_options *options, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Chapter folder "01-rooflines" -> number "01" and slug "rooflines" (false if malformed). */
bool grade_split_chapter(const char *chapter, char *num, size_t num_size, char *slug,
                         size_t slug_size);

/** Reads a whole file into a NUL-terminated buffer (caller frees); NULL on failure. At most
 * 'limit' bytes are read; '*size' (if not NULL) gets the length. */
char *grade_read_all(const char *path, size_t limit, size_t *size);

/** Copies regular file 'name' of folder 'dir_fd' (AT_FDCWD: a path) to the new file 'dst' with
 * 'mode', never following a link in its last component and refusing anything that is not a
 * regular file of at most 'limit' bytes. False on any failure. */
bool grade_copy_file_at(int dir_fd, const char *name, const char *dst, mode_t mode, size_t limit);

/** Length of the well-formed UTF-8 sequence at 'text' (1 to 4 bytes, its code point to
 * '*code'), or 0 when the bytes there are none: a stray continuation byte, an overlong form, a
 * surrogate, a code point past U+10FFFF, or a sequence cut short. */
size_t grade_utf8_len(const char *text, unsigned *code);

/** Whether code point 'code' is a control character: C0, DEL or C1 (what a terminal obeys). */
bool grade_is_control(unsigned code);

/** Writes 'text' for a terminal: well-formed UTF-8 as it is; control characters as C escapes
 * ("\n", "\t", "\x1b", "\u009b") and each byte that is not UTF-8 as "\xNN", so that no student's
 * byte moves the cursor, recolours the screen or starts a line. */
void grade_put_escaped(FILE *out, const char *text);

/** grade_put_escaped() into the buffer 'dst' of 'size' bytes (cut to fit, never mid-escape). */
void grade_escape(char *dst, size_t size, const char *text);

/** Whether 'text' is well-formed UTF-8 without control characters. */
bool grade_is_clean(const char *text);

/** The grader's one reader of a number in text (rubric points, a checker's credit): the whole
 * of 'text' a finite decimal number, "[+-]digits[.digits][e[+-]digits]"; false for anything
 * else: hex ("0x1p3"), inf, nan, leading or trailing spaces, trailing junk, an empty string. */
bool grade_strict_number(const char *text, double *out);

/** Whether 'text' is a stem: a name of one path component that names no other place (ASCII
 * letters, digits, '-', '_', '.'; not starting with '.'; at most 127 bytes). Rubric ids and
 * chapter folders are stems: the grader joins them into paths. */
bool grade_is_stem(const char *text);

/** Whether exercise 'id' ("rooflines.t_math_s") is still the stub in the source 'text': the
 * body of ex_rooflines_t_math_s, comments and white space aside, only "(void)x;" lines and
 * "return NAN;" (or a decision's "T none = {0, ...}; return none;"). The stubs of exercises/
 * are written so; an answer that returns NaN on purpose has other code. */
bool grade_is_stub(const char *text, const char *id);

/** The last 'n_lines' lines of file 'path' joined by " | " into 'out' ("" if unreadable). */
void grade_log_tail(const char *path, int n_lines, char *out, size_t size);

#endif
