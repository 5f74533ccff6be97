/* file.h — the library's one file reader: a whole file into memory.
 *
 * Every module that reads a file whole (calibration and the serving fit rewriting a hardware
 * file) reads it through scale_file_read(), so the error handling (cannot open, out of memory,
 * a read error) is written once.
 */
#ifndef SCALE_FILE_H
#define SCALE_FILE_H

#include <stddef.h>

#include "scale/status.h"

/** Reads all of 'path' into *text, NUL-terminated, and its length (without the NUL) into *len
 * (may be NULL). The file may hold NUL bytes; *len counts them.
 * Owns: *text is allocated; the caller frees it with free(). On error *text is NULL.
 * Errors: SCALE_ERR_IO (cannot open, read failed), SCALE_ERR_NOMEM; 'diag' names the file.
 */
scale_status scale_file_read(const char *path, char **text, size_t *len, scale_diag *diag);

#endif
