/* util.c — strings, files, diagnostics and source cutting for the renderer (book_internal.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book_internal.h"
#include "scale/file.h"

/* ---- memory and strings --------------------------------------------------------------------- */

void *xmalloc(size_t n) { return xrealloc(NULL, n); }

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("scale: out of memory\n", stderr);
    abort();
  }
  return q;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  *cap = c;
  return xrealloc(p, c * size);
}

char *xstrdup(const char *s) {
  size_t n = strlen(s);
  char *d = xmalloc(n + 1);
  memcpy(d, s, n + 1);
  return d;
}

void sb_addn(strbuf *sb, const char *s, size_t n) {
  if (sb->len + n + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + n + 1) cap *= 2;
    sb->data = xrealloc(sb->data, cap);
    sb->cap = cap;
  }
  if (n) memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_add(strbuf *sb, const char *s) { sb_addn(sb, s, strlen(s)); }

const char *str_find(const char *s, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = strchr(s, needle[0]); p; p = strchr(p + 1, needle[0]))
    if (strncmp(p, needle, n) == 0) return p;
  return NULL;
}

void sb_printf(strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    sb_addn(sb, "", 0); /* allocates when empty */
    if (sb->len + (size_t)n + 1 > sb->cap) {
      size_t cap = sb->cap;
      while (cap < sb->len + (size_t)n + 1) cap *= 2;
      sb->data = xrealloc(sb->data, cap);
      sb->cap = cap;
    }
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

void sb_add_htmln(strbuf *sb, const char *s, size_t n) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    const char *rep = NULL;
    switch (s[i]) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    default: break;
    }
    if (!rep) continue;
    sb_addn(sb, s + start, i - start);
    sb_add(sb, rep);
    start = i + 1;
  }
  sb_addn(sb, s + start, n - start);
}

void sb_add_html(strbuf *sb, const char *s) { sb_add_htmln(sb, s, strlen(s)); }

const char *sb_str(const strbuf *sb) { return sb->data ? sb->data : ""; }

void sb_free(strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void sb_add_shell_quoted(strbuf *sb, const char *s) {
  sb_add(sb, "'");
  for (const char *p = s; *p; p++) {
    if (*p == '\'')
      sb_add(sb, "'\\''");
    else
      sb_addn(sb, p, 1);
  }
  sb_add(sb, "'");
}

/* ---- string-keyed hash table ---------------------------------------------------------------- */

/* FNV-1a over the key, started from the table's seed, then a 64-bit finaliser (MurmurHash3's
 * fmix64) so that the low bits used as the slot depend on every byte. */
static uint64_t hash_str(uint64_t seed, const char *s) {
  uint64_t h = 14695981039346656037ULL ^ seed;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

/** The slot holding 'key', or the empty slot where it would go (cap > 0). */
static size_t strmap_slot(const strmap *m, const char *key) {
  size_t mask = m->cap - 1, i = (size_t)hash_str(m->seed, key) & mask;
  while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & mask;
  return i;
}

size_t *strmap_get(const strmap *m, const char *key) {
  if (!m->cap) return NULL;
  size_t i = strmap_slot(m, key);
  return m->keys[i] ? &m->vals[i] : NULL;
}

/** Doubles the table (or creates it) and reinserts every key. */
static void strmap_grow(strmap *m) {
  strmap bigger = {.cap = m->cap ? m->cap * 2 : 64, .n = m->n, .seed = m->seed};
  if (!m->cap) { /* the address and the clock: differs between runs, no global state */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    bigger.seed = (uint64_t)(uintptr_t)m ^ ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec;
  }
  bigger.keys = xmalloc(bigger.cap * sizeof *bigger.keys);
  memset(bigger.keys, 0, bigger.cap * sizeof *bigger.keys);
  bigger.vals = xmalloc(bigger.cap * sizeof *bigger.vals);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = strmap_slot(&bigger, m->keys[i]);
    bigger.keys[j] = m->keys[i];
    bigger.vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  *m = bigger;
}

void strmap_put(strmap *m, const char *key, size_t val) {
  if (2 * (m->n + 1) > m->cap) strmap_grow(m);
  size_t i = strmap_slot(m, key);
  if (!m->keys[i]) {
    m->keys[i] = xstrdup(key);
    m->n++;
  }
  m->vals[i] = val;
}

void strmap_free(strmap *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->keys[i]);
  free(m->keys);
  free(m->vals);
  *m = (strmap){0};
}

/* ---- files ---------------------------------------------------------------------------------- */

char *read_file(const char *path, size_t *len) {
  char *text = NULL;
  return scale_file_read(path, &text, len, NULL) == SCALE_OK ? text : NULL;
}

bool write_file_atomic(const char *path, const char *data, size_t len) {
  char tmp[BOOK_PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()); /* parallel builds: own name */
  FILE *f = fopen(tmp, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, len, f) == len;
  if (fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) remove(tmp);
  return ok;
}

bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool make_dirs(const char *path) {
  char buf[BOOK_PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
    *p = '/';
  }
  return (mkdir(buf, 0777) == 0 || errno == EEXIST) && dir_exists(buf);
}

bool copy_file(const char *from, const char *to) {
  size_t len = 0;
  char *data = read_file(from, &len);
  if (!data) return false;
  bool ok = write_file_atomic(to, data, len);
  free(data);
  return ok;
}

/* ---- diagnostics ---------------------------------------------------------------------------- */

static void report(book_ctx *bx, const char *kind, const char *file, int line, const char *fmt,
                   va_list ap) {
  FILE *err = bx->err ? bx->err : stderr;
  if (line > 0)
    fprintf(err, "%s:%d: %s", file, line, kind);
  else
    fprintf(err, "%s: %s", file, kind);
  vfprintf(err, fmt, ap);
  fputc('\n', err);
}

void book_error(book_ctx *bx, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(bx, "", file, line, fmt, ap);
  va_end(ap);
  bx->n_errors++;
}

void book_warn(book_ctx *bx, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(bx, "warning: ", file, line, fmt, ap);
  va_end(ap);
  bx->n_warnings++;
}

bool book_check_text(book_ctx *bx, const char *file, const char *text, size_t len) {
  const char *nul = memchr(text, '\0', len);
  if (!nul) return true;
  int line = 1;
  for (const char *p = text; p < nul; p++) line += *p == '\n';
  book_error(bx, file, line, "NUL byte at byte offset %zu (a text file has none; the rest would "
                             "be silently lost)",
             (size_t)(nul - text));
  return false;
}

book_value *book_find_value(book_chapter *ch, const char *key) {
  const size_t *i = strmap_get(&ch->value_index, key);
  return i ? &ch->values[*i] : NULL;
}

/* ---- listings ------------------------------------------------------------------------------- */

/** The comment the open marker's line starts and leaves open ("/" "* [listing:NAME] The time
 * of ..." continued by " * ..." lines), as "/" "* The time of ..." with the marker's indentation;
 * empty when the line holds the marker alone or a whole comment. Without it the listing would
 * start in the middle of a comment. */
static void opened_comment(const char *line, const char *marker, size_t marker_len,
                           const char *eol, strbuf *out) {
  const char *lead = line, *text = marker + marker_len;
  while (lead < marker && *lead == ' ') lead++;
  if (marker - lead < 2 || strncmp(lead, "/*", 2) != 0) return;
  for (const char *p = lead + 2; p < marker; p++)
    if (*p != ' ') return; /* code before the marker: not a comment's first line */
  while (text < eol && *text == ' ') text++;
  if (text == eol || memmem(text, (size_t)(eol - text), "*/", 2)) return;
  sb_addn(out, line, (size_t)(lead - line));
  sb_add(out, "/* ");
  sb_addn(out, text, (size_t)(eol - text));
  sb_add(out, "\n");
}

/** Appends the lines of 'text' strictly between the open and close markers of NAME, dropping
 * lines that hold other markers, with their common indentation removed; a comment that the open
 * marker's line begins is kept (opened_comment). */
static bool cut_listing(const char *text, const char *name, strbuf *code) {
  char open[300], close[300];
  snprintf(open, sizeof open, "[listing:%s]", name);
  snprintf(close, sizeof close, "[/listing:%s]", name);
  const char *open_at = strstr(text, open);
  if (!open_at) return false;
  const char *start = strchr(open_at, '\n');
  if (!start) return false;
  const char *line = open_at;
  while (line > text && line[-1] != '\n') line--;
  strbuf first = {0};
  opened_comment(line, open_at, strlen(open), start, &first);
  start++;
  const char *end = strstr(start, close);
  if (!end) return false;
  while (end > start && end[-1] != '\n') end--; /* back to the start of the marker line */
  /* Common indentation of the non-blank kept lines. */
  size_t indent = (size_t)-1;
  for (const char *p = start; p < end;) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    size_t n = (size_t)(eol - p), sp = 0;
    while (sp < n && p[sp] == ' ') sp++;
    bool marker = memmem(p, n, "[listing:", 9) || memmem(p, n, "[/listing:", 10);
    if (sp < n && !marker && sp < indent) indent = sp;
    p = eol + 1;
  }
  if (first.len) { /* the kept comment line counts for the common indentation too */
    size_t sp = 0;
    while (sp < first.len && sb_str(&first)[sp] == ' ') sp++;
    if (sp < indent) indent = sp;
    sb_add(code, sb_str(&first) + indent);
  }
  sb_free(&first);
  if (indent == (size_t)-1) indent = 0;
  for (const char *p = start; p < end;) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    size_t n = (size_t)(eol - p);
    if (!(memmem(p, n, "[listing:", 9) || memmem(p, n, "[/listing:", 10))) {
      if (n > indent) sb_addn(code, p + indent, n - indent);
      sb_add(code, "\n");
    }
    p = eol + 1;
  }
  return true;
}

/* ---- cached sources ------------------------------------------------------------------------ */

/* A chapter may cite one listing or exercise any number of times, or names that exist nowhere.
 * Each source file is read and indexed once per run, each answer is computed once (memo), and
 * a name that no file holds is refused by an index lookup, not by reading the tree again: the
 * cost of a chapter stays linear in its length whatever it cites. */

/** One file of the tree, read once. */
typedef struct {
  char *text;   /**< contents, NULL when unreadable */
  strmap words; /**< "(NAME": identifier NAME followed by spaces and '('; "[NAME": a
                     [listing:NAME] marker */
} source_file;

/** A memoised answer: what the lookup appends, or not found. */
typedef struct {
  char *first;  /**< code or contract or title (NULL: nothing) */
  char *second; /**< where the listing came from, or the points (NULL: nothing) */
  bool found;
} source_answer;

/** A file of the listing search path: its path from the root and its index in files. */
typedef struct {
  char *rel;
  size_t file;
} tree_file;

struct book_sources {
  strmap paths;          /**< path -> index into files */
  source_file *files;
  size_t n_files, cap_files;
  strmap memo;           /**< kind, chapter and name -> index into answers */
  source_answer *answers;
  size_t n_answers, cap_answers;
  tree_file *tree;       /**< src/ *.c, src/{book,cli,grade}/ *.c, include/scale/ *.h, in order */
  size_t n_tree, cap_tree;
  bool tree_listed;
  strmap tree_marks;     /**< listing names marked anywhere in tree */
  bool rubric_loaded;
};

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/** Fills f->words from f->text (see source_file). Marker names longer than a fence's argument
 * can hold are skipped, so a stray "[listing:" costs a bounded look-ahead. */
static void index_words(source_file *f) {
  const char *t = f->text;
  strbuf w = {0};
  for (const char *p = t; *p;) {
    if (!is_ident_char(*p) || (p > t && is_ident_char(p[-1]))) {
      p++;
      continue;
    }
    const char *q = p;
    while (is_ident_char(*q)) q++;
    const char *r = q;
    while (*r == ' ') r++;
    if (*r == '(') {
      w.len = 0;
      sb_add(&w, "(");
      sb_addn(&w, p, (size_t)(q - p));
      strmap_put(&f->words, sb_str(&w), 0);
    }
    p = q;
  }
  for (const char *p = str_find(t, "[listing:"); p; p = str_find(p + 9, "[listing:")) {
    const char *close = memchr(p + 9, ']', strnlen(p + 9, 300));
    if (!close) continue;
    w.len = 0;
    sb_add(&w, "[");
    sb_addn(&w, p + 9, (size_t)(close - (p + 9)));
    strmap_put(&f->words, sb_str(&w), 0);
  }
  sb_free(&w);
}

static struct book_sources *sources(book_ctx *bx) {
  if (!bx->sources) {
    bx->sources = xmalloc(sizeof *bx->sources);
    memset(bx->sources, 0, sizeof *bx->sources);
  }
  return bx->sources;
}

/** The file at 'path', read and indexed on first use. */
static const source_file *source(book_ctx *bx, const char *path) {
  struct book_sources *s = sources(bx);
  const size_t *i = strmap_get(&s->paths, path);
  if (i) return &s->files[*i];
  s->files = xgrow(s->files, &s->cap_files, s->n_files + 1, sizeof *s->files);
  source_file *f = &s->files[s->n_files];
  *f = (source_file){.text = read_file(path, NULL)};
  if (f->text) index_words(f);
  strmap_put(&s->paths, path, s->n_files);
  return &s->files[s->n_files++];
}

/** Whether 'f' holds "(name" or "[name" (kind '(' or '['). */
static bool has_word(const source_file *f, char kind, const char *name) {
  strbuf w = {0};
  sb_addn(&w, &kind, 1);
  sb_add(&w, name);
  bool has = f->text && strmap_get(&f->words, sb_str(&w));
  sb_free(&w);
  return has;
}

/** The memoised answer for KIND/CHAPTER/NAME, or NULL; 'key' receives the memo key. */
static source_answer *answer_get(book_ctx *bx, char kind, const char *chapter, const char *name,
                                 strbuf *key) {
  sb_addn(key, &kind, 1);
  sb_add(key, chapter);
  sb_add(key, "\n");
  sb_add(key, name);
  const size_t *i = strmap_get(&sources(bx)->memo, sb_str(key));
  return i ? &sources(bx)->answers[*i] : NULL;
}

/** Memoises an answer under 'key' (taking the strings' contents) and returns it. */
static source_answer *answer_put(book_ctx *bx, const strbuf *key, bool found, strbuf *first,
                                 strbuf *second) {
  struct book_sources *s = sources(bx);
  s->answers = xgrow(s->answers, &s->cap_answers, s->n_answers + 1, sizeof *s->answers);
  source_answer *a = &s->answers[s->n_answers];
  *a = (source_answer){.first = first->data, .second = second ? second->data : NULL,
                       .found = found};
  *first = (strbuf){0};
  if (second) *second = (strbuf){0};
  strmap_put(&s->memo, sb_str(key), s->n_answers++);
  return a;
}

void book_sources_free(book_ctx *bx) {
  struct book_sources *s = bx->sources;
  if (!s) return;
  for (size_t i = 0; i < s->n_files; i++) {
    free(s->files[i].text);
    strmap_free(&s->files[i].words);
  }
  for (size_t i = 0; i < s->n_answers; i++) free(s->answers[i].first), free(s->answers[i].second);
  for (size_t i = 0; i < s->n_tree; i++) free(s->tree[i].rel);
  free(s->files), free(s->answers), free(s->tree);
  strmap_free(&s->paths), strmap_free(&s->memo), strmap_free(&s->tree_marks);
  free(s);
  bx->sources = NULL;
}

/* ---- listings (search) ---------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/** Appends the files of root/sub ending with 'ext', sorted by name, to the search path. */
static void list_tree_dir(book_ctx *bx, const char *sub, const char *ext) {
  struct book_sources *s = sources(bx);
  char dir[BOOK_PATH_MAX];
  if (snprintf(dir, sizeof dir, "%s/%s", bx->root, sub) >= (int)sizeof dir) return;
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name), el = strlen(ext);
    if (len > el && strcmp(e->d_name + len - el, ext) == 0) {
      names = xgrow(names, &cap, n + 1, sizeof *names);
      names[n++] = xstrdup(e->d_name);
    }
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    char path[BOOK_PATH_MAX * 2], rel[BOOK_PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    snprintf(rel, sizeof rel, "%s/%s", sub, names[i]);
    const source_file *f = source(bx, path);
    s->tree = xgrow(s->tree, &s->cap_tree, s->n_tree + 1, sizeof *s->tree);
    s->tree[s->n_tree++] = (tree_file){.rel = xstrdup(rel), .file = (size_t)(f - s->files)};
    for (size_t k = 0; f->text && k < f->words.cap; k++)
      if (f->words.keys[k] && f->words.keys[k][0] == '[')
        strmap_put(&s->tree_marks, f->words.keys[k] + 1, 0);
    free(names[i]);
  }
  free(names);
}

/** The listing search path after the chapter's own program, listed on first use. */
static const struct book_sources *listing_tree(book_ctx *bx) {
  struct book_sources *s = sources(bx);
  if (!s->tree_listed) {
    s->tree_listed = true;
    list_tree_dir(bx, "src", ".c");
    static const char *const subdirs[] = {"src/book", "src/cli", "src/grade", "src/mesh"};
    for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
      list_tree_dir(bx, subdirs[i], ".c");
    list_tree_dir(bx, "include/scale", ".h");
  }
  return s;
}

/** The first file of the search path whose markers of NAME cut (see book.h). A name holding
 * ']' can be no marker's. */
static bool search_listing(book_ctx *bx, const book_chapter *ch, const char *name, strbuf *code,
                           strbuf *from) {
  char path[BOOK_PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/%s.c", ch->dir, ch->slug);
  const source_file *own = source(bx, path);
  if (has_word(own, '[', name) && cut_listing(own->text, name, code)) {
    sb_printf(from, "chapters/%s/%s.c", ch->name, ch->slug);
    return true;
  }
  const struct book_sources *s = listing_tree(bx);
  if (!strmap_get(&s->tree_marks, name)) return false;
  for (size_t i = 0; i < s->n_tree; i++) {
    const source_file *f = &s->files[s->tree[i].file];
    if (has_word(f, '[', name) && cut_listing(f->text, name, code)) {
      sb_add(from, s->tree[i].rel);
      return true;
    }
  }
  return false;
}

bool book_find_listing(book_ctx *bx, const book_chapter *ch, const char *name, strbuf *code,
                       strbuf *from) {
  strbuf key = {0}, c = {0}, f = {0};
  const source_answer *a = answer_get(bx, 'L', ch->name, name, &key);
  if (!a) {
    bool found = search_listing(bx, ch, name, &c, &f);
    a = answer_put(bx, &key, found, &c, &f);
  }
  if (a->found) sb_add(code, a->first ? a->first : ""), sb_add(from, a->second ? a->second : "");
  sb_free(&key), sb_free(&c), sb_free(&f);
  return a->found;
}

/* ---- exercises ------------------------------------------------------------------------------ */

/** The C function name of exercise ID ("rooflines.critical_batch" -> ex_rooflines_critical_
 * batch); '-' becomes '_'. */
static void exercise_function(const char *id, char *out, size_t size) {
  snprintf(out, size, "ex_%s", id);
  for (char *p = out; *p; p++)
    if (*p == '.' || *p == '-') *p = '_';
}

/** Finds identifier 'fn' followed by optional spaces and '(' in text; returns its position. */
static const char *find_call(const char *text, const char *fn) {
  size_t n = strlen(fn);
  for (const char *p = str_find(text, fn); p; p = str_find(p + 1, fn)) {
    bool left = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    const char *q = p + n;
    while (*q == ' ') q++;
    if (left && *q == '(') return p;
  }
  return NULL;
}

static const char *line_start(const char *text, const char *p) {
  while (p > text && p[-1] != '\n') p--;
  return p;
}

const char *book_ex_stem(const book_chapter *ch, char *buf, size_t size) {
  snprintf(buf, size, "%s", ch->slug);
  for (char *p = buf; *p; p++)
    if (*p == '-') *p = '_';
  return buf;
}

/** Whether 'id' can name an exercise function (letters, digits, '_', '.', '-'): nothing else
 * can be part of a C identifier, so nothing else is searched for. */
static bool exercise_id_ok(const char *id) {
  if (!id[0]) return false;
  for (const char *p = id; *p; p++)
    if (!is_ident_char(*p) && *p != '.' && *p != '-') return false;
  return true;
}

/** The prototype of exercise 'fn' and the doc comment right above it. */
static bool search_exercise(book_ctx *bx, const book_chapter *ch, const char *id,
                            strbuf *contract) {
  char path[BOOK_PATH_MAX * 4], fn[300], stem[BOOK_PATH_MAX];
  snprintf(path, sizeof path, "%s/exercises/%s/%s_ex.h", bx->root, ch->name,
           book_ex_stem(ch, stem, sizeof stem));
  exercise_function(id, fn, sizeof fn);
  const source_file *f = source(bx, path);
  if (!exercise_id_ok(id) || !has_word(f, '(', fn)) return false;
  const char *text = f->text;
  const char *p = find_call(text, fn);
  if (!p) return false;
  const char *start = line_start(text, p);
  const char *semi = strchr(p, ';');
  const char *end = semi ? semi + 1 : p + strlen(p);
  /* The doc comment ending right above the prototype (only blank space between). */
  const char *q = start;
  while (q > text && (q[-1] == '\n' || q[-1] == ' ')) q--;
  if (q - text >= 2 && q[-1] == '/' && q[-2] == '*') {
    const char *c = q - 2;
    while (c > text && !(c[0] == '/' && c[1] == '*')) c--;
    if (c[0] == '/' && c[1] == '*') start = line_start(text, c);
  }
  sb_addn(contract, start, (size_t)(end - start));
  sb_add(contract, "\n");
  return true;
}

bool book_find_exercise(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *contract) {
  strbuf key = {0}, c = {0};
  const source_answer *a = answer_get(bx, 'E', ch->name, id, &key);
  if (!a) {
    bool found = search_exercise(bx, ch, id, &c);
    a = answer_put(bx, &key, found, &c, NULL);
  }
  if (a->found) sb_add(contract, a->first ? a->first : "");
  sb_free(&key), sb_free(&c);
  return a->found;
}

/** The definition of exercise ID: a match whose first '{' comes before any ';'. */
static bool search_solution(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *code) {
  char path[BOOK_PATH_MAX * 4], fn[300], stem[BOOK_PATH_MAX];
  snprintf(path, sizeof path, "%s/solutions/%s/%s_ex.c", bx->root, ch->name,
           book_ex_stem(ch, stem, sizeof stem));
  exercise_function(id, fn, sizeof fn);
  const source_file *f = source(bx, path);
  if (!exercise_id_ok(id) || !has_word(f, '(', fn)) return false;
  const char *text = f->text;
  for (const char *p = find_call(text, fn); p; p = find_call(p + 1, fn)) {
    const char *brace = strchr(p, '{'), *semi = strchr(p, ';');
    if (!brace || (semi && semi < brace)) continue;
    int depth = 0;
    const char *q = brace;
    for (; *q; q++) {
      if (*q == '{') depth++;
      if (*q == '}' && --depth == 0) break;
    }
    if (!*q) break;
    const char *start = line_start(text, p);
    sb_addn(code, start, (size_t)(q + 1 - start));
    sb_add(code, "\n");
    return true;
  }
  return false;
}

bool book_find_solution(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *code) {
  strbuf key = {0}, c = {0};
  const source_answer *a = answer_get(bx, 'S', ch->name, id, &key);
  if (!a) {
    bool found = search_solution(bx, ch, id, &c);
    a = answer_put(bx, &key, found, &c, NULL);
  }
  if (a->found) sb_add(code, a->first ? a->first : "");
  sb_free(&key), sb_free(&c);
  return a->found;
}

/** Memoises every row of tests/rubric.tsv (id TAB chapter TAB points TAB title) under 'R', the
 * first row of an id winning, so that each later lookup is one hash probe. */
static void load_rubric(book_ctx *bx) {
  char path[BOOK_PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/tests/rubric.tsv", bx->root);
  const source_file *file = source(bx, path);
  if (!file->text) return;
  char *text = xstrdup(file->text);
  for (char *line = text; line && *line;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    char *f[4] = {line, NULL, NULL, NULL};
    for (int i = 1; i < 4 && f[i - 1]; i++) {
      char *t = strchr(f[i - 1], '\t');
      if (t) *t = '\0', f[i] = t + 1;
    }
    strbuf key = {0}, title = {0}, points = {0};
    if (f[1] && !answer_get(bx, 'R', "", f[0], &key)) {
      if (f[3]) sb_add(&title, f[3]);
      if (f[2]) sb_add(&points, f[2]);
      answer_put(bx, &key, true, &title, &points);
    }
    sb_free(&key), sb_free(&title), sb_free(&points);
    line = eol ? eol + 1 : NULL;
  }
  free(text);
}

bool book_rubric(book_ctx *bx, const char *id, strbuf *title, strbuf *points) {
  strbuf key = {0};
  if (!sources(bx)->rubric_loaded) {
    sources(bx)->rubric_loaded = true;
    load_rubric(bx);
  }
  const source_answer *a = answer_get(bx, 'R', "", id, &key);
  sb_free(&key);
  if (!a) return false;
  if (a->first) sb_add(title, a->first);
  if (a->second) sb_add(points, a->second);
  return true;
}
