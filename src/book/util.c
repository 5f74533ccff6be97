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
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  strbuf sb = {0};
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_addn(&sb, chunk, n);
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    sb_free(&sb);
    return NULL;
  }
  sb_addn(&sb, "", 0);
  if (len) *len = sb.len;
  return sb.data;
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

/** Appends the lines of 'text' strictly between the open and close markers of NAME, dropping
 * lines that hold other markers, with their common indentation removed. */
static bool cut_listing(const char *text, const char *name, strbuf *code) {
  char open[300], close[300];
  snprintf(open, sizeof open, "[listing:%s]", name);
  snprintf(close, sizeof close, "[/listing:%s]", name);
  const char *start = strstr(text, open);
  if (!start) return false;
  start = strchr(start, '\n');
  if (!start) return false;
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

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/** Tries every file of root/sub ending with 'ext', sorted by name. */
static bool listing_in_dir(book_ctx *bx, const char *sub, const char *ext, const char *name,
                           strbuf *code, strbuf *from) {
  char dir[BOOK_PATH_MAX];
  if (snprintf(dir, sizeof dir, "%s/%s", bx->root, sub) >= (int)sizeof dir) return false;
  DIR *d = opendir(dir);
  if (!d) return false;
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
  qsort(names, n, sizeof *names, cmp_str);
  bool found = false;
  for (size_t i = 0; i < n; i++) {
    if (!found) {
      char path[BOOK_PATH_MAX * 2];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]);
      char *text = read_file(path, NULL);
      if (text && cut_listing(text, name, code)) {
        sb_printf(from, "%s/%s", sub, names[i]);
        found = true;
      }
      free(text);
    }
    free(names[i]);
  }
  free(names);
  return found;
}

bool book_find_listing(book_ctx *bx, const book_chapter *ch, const char *name, strbuf *code,
                       strbuf *from) {
  char path[BOOK_PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/%s.c", ch->dir, ch->slug);
  char *text = read_file(path, NULL);
  bool found = text && cut_listing(text, name, code);
  free(text);
  if (found) {
    sb_printf(from, "chapters/%s/%s.c", ch->name, ch->slug);
    return true;
  }
  if (listing_in_dir(bx, "src", ".c", name, code, from)) return true;
  static const char *const subdirs[] = {"src/book", "src/cli", "src/grade"};
  for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
    if (listing_in_dir(bx, subdirs[i], ".c", name, code, from)) return true;
  return listing_in_dir(bx, "include/scale", ".h", name, code, from);
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
  for (const char *p = strstr(text, fn); p; p = strstr(p + 1, fn)) {
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

bool book_find_exercise(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *contract) {
  char path[BOOK_PATH_MAX * 4], fn[300], stem[BOOK_PATH_MAX];
  snprintf(path, sizeof path, "%s/exercises/%s/%s_ex.h", bx->root, ch->name,
           book_ex_stem(ch, stem, sizeof stem));
  exercise_function(id, fn, sizeof fn);
  char *text = read_file(path, NULL);
  if (!text) return false;
  const char *p = find_call(text, fn);
  if (!p) {
    free(text);
    return false;
  }
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
  free(text);
  return true;
}

bool book_find_solution(book_ctx *bx, const book_chapter *ch, const char *id, strbuf *code) {
  char path[BOOK_PATH_MAX * 4], fn[300], stem[BOOK_PATH_MAX];
  snprintf(path, sizeof path, "%s/solutions/%s/%s_ex.c", bx->root, ch->name,
           book_ex_stem(ch, stem, sizeof stem));
  exercise_function(id, fn, sizeof fn);
  char *text = read_file(path, NULL);
  if (!text) return false;
  /* The definition: a match whose first '{' comes before any ';'. */
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
    free(text);
    return true;
  }
  free(text);
  return false;
}

bool book_rubric(book_ctx *bx, const char *id, strbuf *title, strbuf *points) {
  char path[BOOK_PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/tests/rubric.tsv", bx->root);
  char *text = read_file(path, NULL);
  if (!text) return false;
  bool found = false;
  size_t n = strlen(id);
  for (char *line = text; line && *line && !found;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    /* id TAB chapter TAB points TAB title */
    if (strncmp(line, id, n) == 0 && line[n] == '\t') {
      char *f[4] = {line, NULL, NULL, NULL};
      for (int i = 1; i < 4 && f[i - 1]; i++) {
        char *t = strchr(f[i - 1], '\t');
        if (t) *t = '\0', f[i] = t + 1;
      }
      if (f[2]) sb_add(points, f[2]);
      if (f[3]) sb_add(title, f[3]);
      found = true;
    }
    line = eol ? eol + 1 : NULL;
  }
  free(text);
  return found;
}
