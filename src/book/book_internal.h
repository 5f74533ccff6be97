/* book_internal.h — shared internals of the renderer (src/book/); never installed. */
#ifndef SCALE_BOOK_INTERNAL_H
#define SCALE_BOOK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "book.h"

#define BOOK_PATH_MAX 1024

/* ---- growable strings (abort on out-of-memory: the renderer is a program, not libscale) ---- */

typedef struct {
  char *data; /**< NUL-terminated (after the first append), owned */
  size_t len;
  size_t cap;
} strbuf;

void sb_addn(strbuf *sb, const char *s, size_t n);
void sb_add(strbuf *sb, const char *s);
/** strstr(s, needle) for a short needle, in time proportional to the distance to the match:
 * sanitizers' strstr measures the whole rest of 's' on every call, which made each loop over a
 * long page quadratic under the asan preset. */
const char *str_find(const char *s, const char *needle);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Appends 's' with &, <, >, " escaped for HTML text and attributes. */
void sb_add_html(strbuf *sb, const char *s);
void sb_add_htmln(strbuf *sb, const char *s, size_t n);
/** Returns the contents (never NULL; "" when empty). */
const char *sb_str(const strbuf *sb);
void sb_free(strbuf *sb);

/* ---- string-keyed hash table ---------------------------------------------------------------- */

/** Maps strings to size_t in expected O(1) per operation (open addressing, load <= 1/2), so
 * lookups per citation or heading keep a chapter's render linear. Zero-initialise; keys are
 * copied. The hash is seeded per table, so crafted keys cannot make every probe collide. */
typedef struct {
  char **keys;   /**< owned copies; NULL marks an empty slot */
  size_t *vals;  /**< the value of keys[i] */
  size_t cap;    /**< slots: 0 or a power of two */
  size_t n;      /**< keys stored */
  uint64_t seed; /**< mixed into every hash; chosen on first insert */
} strmap;

/** The value stored under 'key', or NULL when absent (valid until the next strmap_put). */
size_t *strmap_get(const strmap *m, const char *key);
/** Stores 'val' under 'key', replacing any value there. */
void strmap_put(strmap *m, const char *key, size_t val);
/** Frees the table; a zeroed or freed table is empty. */
void strmap_free(strmap *m);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
/** Grows array 'p' of elements of 'size' bytes to hold at least 'need', doubling *cap, so n
 * appends cost O(n) copies in all (not O(n^2) as with one realloc per element). */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);

/* ---- files ---------------------------------------------------------------------------------- */

/** Reads a whole file; NULL when it cannot be read. Owned by the caller. */
char *read_file(const char *path, size_t *len);
/** Writes a whole file through PATH.tmp and rename(). Returns false on failure. */
bool write_file_atomic(const char *path, const char *data, size_t len);
bool file_exists(const char *path);
bool dir_exists(const char *path);
/** mkdir -p. */
bool make_dirs(const char *path);
bool copy_file(const char *from, const char *to);
/** Single-quotes 's' for /bin/sh into sb. */
void sb_add_shell_quoted(strbuf *sb, const char *s);

/* ---- chapters ------------------------------------------------------------------------------- */

typedef struct {
  char *key;
  double value;
  char *unit;
  char *display;
  bool cited;
  int line_shown;  /**< first line citing it outside an {answer} block; 0 if none */
  int line_answer; /**< first line citing it inside one; 0 if none */
} book_value;

typedef struct {
  char name[256];          /**< "01-rooflines" */
  char slug[256];          /**< "rooflines" */
  char dir[BOOK_PATH_MAX]; /**< chapters_dir/NN-slug */
  char md[BOOK_PATH_MAX];  /**< dir/slug.md */
  char title[512];         /**< first heading's text, or the name */
  char summary[512];       /**< its "<!-- summary: -->" line, else its first sentence */
  book_value *values;
  size_t n_values;
  size_t cap_values;       /**< allocated entries of values */
  strmap value_index;      /**< key -> index into values */
  bool has_values;         /**< a values source was found */
} book_chapter;

/** Source files read for listings and exercises, and the answers found there (util.c). */
struct book_sources;

/** Context of a whole run. */
typedef struct {
  const book_options *opt;
  FILE *err;
  char root[BOOK_PATH_MAX]; /**< parent of chapters_dir */
  book_chapter *chapters;
  size_t n_chapters;
  const char *katex;        /**< katex command, or NULL */
  int n_errors;
  int n_warnings;
  struct book_sources *sources; /**< created on first use; book_sources_free() */
} book_ctx;

/** Reports "FILE:LINE: message" (LINE 0: "FILE: message") and counts an error. */
void book_error(book_ctx *bx, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** Reports "FILE:LINE: warning: message" and counts a warning. */
void book_warn(book_ctx *bx, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Whether text[0..len) holds no NUL byte; otherwise reports "FILE:LINE: NUL byte at byte
 * offset N" (C strings would end there, silently dropping the rest) and returns false. */
bool book_check_text(book_ctx *bx, const char *file, const char *text, size_t len);

/** Looks up a value of the chapter; NULL when absent. */
book_value *book_find_value(book_chapter *ch, const char *key);

/* ---- sources: listings, exercise contracts and references --------------------------------- */

/* Each lookup below reads a file once per run and answers a repeated name from memory. */

/** Frees bx->sources (the files read and the answers kept). */
void book_sources_free(book_ctx *bx);

/** Cuts listing NAME: appends its dedented lines to 'code' and the path it came from (relative
 * to the root) to 'from'. Returns false when no file holds the tag. */
bool book_find_listing(book_ctx *bx, const book_chapter *ch, const char *name, strbuf *code,
                       strbuf *from);

/** Finds the doc comment and prototype of exercise ID in exercises/NN-slug/slug_ex.h;
 * appends them to 'contract'. Returns false when not declared there. */
/** The file stem of a chapter's exercise files: its slug with '-' written '_'
 * (06-applied-training -> applied_training_ex.h), the grader's convention. Returns buf. */
const char *book_ex_stem(const book_chapter *ch, char *buf, size_t size);

bool book_find_exercise(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *contract);

/** Finds the definition of exercise ID in solutions/NN-slug/slug_ex.c. */
bool book_find_solution(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *code);

/** Title and points of exercise ID from tests/rubric.tsv (root), if present. */
bool book_rubric(book_ctx *bx, const char *id, strbuf *title, strbuf *points);

/* ---- weaving one chapter -------------------------------------------------------------------- */

/** Renders chapter 'index' into the article HTML and its table of contents. With 'scan_only'
 * it only fills the chapter's title and summary (no math rendering, no warnings). Returns
 * false after reporting errors. */
bool book_weave(book_ctx *bx, size_t index, bool scan_only, strbuf *article, strbuf *toc);

#endif
