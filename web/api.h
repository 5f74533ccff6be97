/* api.h — the plumbing every exported function of the WebAssembly module shares (api.c).
 *
 * A call from the page is one request and one answer, both text in the module's memory:
 *
 *   1. JS writes the request into the buffer at scale_web_in() as a query string of plain
 *      tokens, "hw=tpu-v5p&dtype=bf16&b=4096" (letters, digits, '.', '-', '_' and '+' only;
 *      the widget's state, as the URL hash holds it);
 *   2. JS calls the widget's export (scale_web_roofline(), ...), which reads the arguments
 *      with web_arg()/web_num(), evaluates with libscale and writes one JSON object with
 *      web_json_*(); it returns 0, or 2 after web_error() for bad input;
 *   3. JS reads scale_web_out_len() bytes at scale_web_out() and parses the JSON.
 *
 * Numbers go out twice: "KEY": the double in full (%.17g, as `scale ... --json` prints it;
 * null when not finite) and "KEY_text": scale_format()'s three-digit display, the text the
 * page shows, so page and command print the same digits. Nothing here allocates: request and
 * answer live in fixed static buffers; an answer too long for its buffer becomes an error.
 */
#ifndef SCALE_WEB_API_H
#define SCALE_WEB_API_H

#include <stdbool.h>
#include <stddef.h>

#include "scale.h"

/** Marks a function as an export of the module under 'name'. */
#define WEB_EXPORT(name) __attribute__((export_name(name)))

/* ---- the request ---------------------------------------------------------------------------- */

/** Splits the request into arguments; false (after web_error) when it is malformed. Every
 * export calls it first. */
bool web_request_parse(void);

/** The value of argument 'key', or NULL when the request has none. */
const char *web_arg(const char *key);

/** Argument 'key' as a number in [lo, hi] (SI suffixes k, M, G, T allowed), or 'dflt' when
 * absent. On a malformed or out-of-range value: web_error() naming it, returns NaN. */
double web_num(const char *key, double dflt, double lo, double hi);

/** Loads hardware file hardware/NAME.ini (NAME = argument 'key', or 'dflt' when absent) from
 * the embedded data. false after web_error() when unknown or invalid. */
bool web_chip(const char *key, const char *dflt, scale_chip *chip);

/** Loads models/NAME.ini likewise. */
bool web_model(const char *key, const char *dflt, scale_model *model);

/** Argument 'key' as a dtype ("bf16"), or 'dflt' when absent; false after web_error(). */
bool web_dtype(const char *key, scale_dtype dflt, scale_dtype *out);

/* ---- the answer ----------------------------------------------------------------------------- */

/** Starts the answer "{" (discarding anything written before). */
void web_json_begin(void);
/** Ends the answer "}"; returns 0, or 2 when it overflowed (the answer is then an error). */
int web_json_end(void);
/** Opens a nested '{' or '[' under "key" (key NULL inside an array); at most 7 levels. */
void web_json_open(const char *key, char bracket);
/** Closes it with '}' or ']'. */
void web_json_close(char bracket);
/** "key": number (null when not finite). */
void web_json_num(const char *key, double value);
/** "key": number and "key_text": its display in 'style' with 'unit'. */
void web_json_fmt(const char *key, double value, const char *unit, scale_fmt style);
/** "key": "text" (escaped). */
void web_json_str(const char *key, const char *text);
/** "key": raw JSON (an array or object the caller wrote as text). */
void web_json_raw(const char *key, const char *json, size_t len);
/** "key": the SVG document of 'plot' as a string; web_error() when it cannot be drawn. */
void web_json_svg(const char *key, const scale_plot *plot);

/** The answer becomes {"error": "message"}; returns 2 (the exports' return value for bad input). */
int web_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Whether web_error() was called since web_request_parse(). */
bool web_failed(void);

#endif
