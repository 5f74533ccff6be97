/* json.h — a strict, bounded JSON reader (RFC 8259) for the configs scale imports.
 *
 * The whole text is parsed into one tree owned by a scale_json; values are read through
 * const pointers that stay valid until scale_json_free(). Strict: one value, no comments, no
 * trailing commas, no leading zeros, no NaN or infinity, a member name at most once per
 * object, valid UTF-8 escapes; at most SCALE_JSON_DEPTH_MAX levels of nesting and
 * SCALE_JSON_BYTES_MAX bytes, so hostile input costs bounded time and memory.
 *
 * Errors name the line and what was expected: "line 3: expected ',' or '}' after a member".
 */
#ifndef SCALE_JSON_H
#define SCALE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "scale/status.h"

#define SCALE_JSON_DEPTH_MAX 64
#define SCALE_JSON_BYTES_MAX (16u << 20)

typedef enum {
  SCALE_JSON_NULL = 0,
  SCALE_JSON_BOOL,
  SCALE_JSON_NUMBER,
  SCALE_JSON_STRING,
  SCALE_JSON_ARRAY,
  SCALE_JSON_OBJECT
} scale_json_type;

/** One value of the tree. */
typedef struct scale_json_value {
  scale_json_type type;
  const char *key; /**< its member name inside an object (NUL-terminated), else NULL */
  const char *str; /**< a string's text, NUL-terminated (an embedded \u0000 is refused) */
  double number;   /**< a number's value (finite) */
  bool boolean;    /**< a bool's value */
  const struct scale_json_value *child; /**< an array's or object's first element */
  const struct scale_json_value *next;  /**< the next element of its parent */
} scale_json_value;

typedef struct scale_json scale_json;

/** Parses text[0..len) into *out (free it with scale_json_free()).
 *
 * Errors: SCALE_ERR_PARSE for malformed text, naming the line in 'diag' (file left ""; the
 *         caller names it); SCALE_ERR_RANGE for too deep or too long input or a number that
 *         overflows; SCALE_ERR_DUPLICATE_KEY for a member given twice; SCALE_ERR_NOMEM.
 *         *out is NULL on failure.
 */
scale_status scale_json_parse(const char *text, size_t len, scale_json **out, scale_diag *diag);

/** The top-level value. */
const scale_json_value *scale_json_root(const scale_json *json);

/** The member 'key' of an object, or NULL (also for a non-object). */
const scale_json_value *scale_json_member(const scale_json_value *object, const char *key);

void scale_json_free(scale_json *json);

#endif
