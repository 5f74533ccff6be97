/* file.h — the library's one file reader (a whole file into memory) and its one writer of an
 * INI file's sections.
 *
 * Every module that reads a file whole (calibration and the serving fit rewriting a hardware
 * file, the book's renderer) reads it through scale_file_read(), and both fits rewrite their
 * sections of a hardware file through scale_file_rewrite_sections(), so the error handling
 * (cannot open, out of memory, a read or write error) and the rule of where a section goes are
 * written once.
 */
#ifndef SCALE_FILE_H
#define SCALE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "scale/status.h"

/** Reads all of 'path' into *text, NUL-terminated, and its length (without the NUL) into *len
 * (may be NULL). The file may hold NUL bytes; *len counts them.
 * Owns: *text is allocated; the caller frees it with free(). On error *text is NULL.
 * Errors: SCALE_ERR_IO (cannot open, read failed), SCALE_ERR_NOMEM; 'diag' names the file.
 */
scale_status scale_file_read(const char *path, char **text, size_t *len, scale_diag *diag);

/** Writes a section's text at the position scale_file_rewrite_sections() chose. */
typedef scale_status (*scale_file_emit)(FILE *fp, void *ctx);

/** Copies INI file 'src' to 'dst' without the sections named in drop[0..n_drop) (a section
 * runs from its "[name]" line, leading blanks allowed, to the next section's line), with what
 * 'emit' writes put where the first dropped section stood when a kept section follows it; else
 * before section 'before' (NULL: none) when the file has one; else at the end. Trailing blank
 * lines are dropped, one blank line separates the emitted text from its neighbours, and the
 * file ends with one newline. 'src' and 'dst' may be the same path.
 *
 * Errors: SCALE_ERR_IO (cannot read src, cannot write dst), SCALE_ERR_NOMEM, or emit's error;
 *         'diag' names the file.
 */
scale_status scale_file_rewrite_sections(const char *src, const char *dst,
                                         const char *const *drop, int n_drop,
                                         const char *before, scale_file_emit emit, void *ctx,
                                         scale_diag *diag);

#endif
