/* status.h — status codes and diagnostics shared by every fallible function of libscale. */
#ifndef SCALE_STATUS_H
#define SCALE_STATUS_H

/** Result of a fallible function; SCALE_OK is zero so `if (st)` tests for failure. */
typedef enum {
  SCALE_OK = 0,
  SCALE_ERR_IO,            /**< a file could not be opened or read */
  SCALE_ERR_PARSE,         /**< malformed text: bad line, bad number, junk after a value */
  SCALE_ERR_UNKNOWN_KEY,   /**< a key (or section) the schema does not know */
  SCALE_ERR_DUPLICATE_KEY, /**< the same key given twice */
  SCALE_ERR_MISSING_KEY,   /**< a required key is absent */
  SCALE_ERR_RANGE,         /**< a number out of its domain (negative size, overflow to inf) */
  SCALE_ERR_INVALID,       /**< an argument that makes no sense (empty name, bad dtype, ...) */
  SCALE_ERR_NOT_FOUND,     /**< a named hardware or model file does not exist */
  SCALE_ERR_NOMEM,         /**< allocation failed */
  SCALE_STATUS_COUNT
} scale_status;

/** Where and why a fallible function failed. Filled only on failure; caller-owned. */
typedef struct {
  char file[256];    /**< file being read, or "" when the input was not a file */
  int line;          /**< 1-based line of the offending text, 0 when not line-specific */
  char message[256]; /**< one line, no trailing newline, no "file:line:" prefix */
} scale_diag;

/** Static, human-readable name of a status ("unknown key"). Never NULL. */
const char *scale_status_str(scale_status status);

/** Formats 'diag' as "file:line: message" (or "file: message", or "message") into buf.
 *
 * Returns: buf, always NUL-terminated when size > 0.
 */
char *scale_diag_format(const scale_diag *diag, char *buf, unsigned long size);

/** Fills 'diag' (if non-NULL) with 'file', 'line' and the printf-formatted message, and
 * returns 'status': the one diagnostic setter of the library (and of programs that report
 * in the same "file:line: message" form). */
scale_status scale_diag_set(scale_diag *diag, scale_status status, const char *file, int line,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
