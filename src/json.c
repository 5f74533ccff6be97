/* json.c — a strict, bounded JSON reader (json.h). */
#include "scale/json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An object with more members than this is refused: the duplicate check is quadratic. */
#define MEMBERS_MAX 4096
#define NODES_MAX (1u << 20)

typedef struct {
  scale_json_type type;
  size_t key, str; /* offsets into the pool; SIZE_MAX for none */
  double number;
  bool boolean;
  long child, next; /* node indexes; -1 for none */
} node;

struct scale_json {
  scale_json_value *values;
  char *pool;
};

typedef struct {
  const char *s;
  size_t len, pos;
  int line, depth;
  node *nodes;
  size_t n, cap;
  char *pool;
  size_t pool_n;
  scale_status st;
  scale_diag *diag;
} parser;

static long fail(parser *p, scale_status st, const char *what) {
  if (!p->st) p->st = scale_diag_set(p->diag, st, "", p->line, "%s", what);
  return -1;
}

static void skip_ws(parser *p) {
  while (p->pos < p->len) {
    char c = p->s[p->pos];
    if (c == '\n')
      p->line++;
    else if (c != ' ' && c != '\t' && c != '\r')
      return;
    p->pos++;
  }
}

static long new_node(parser *p, scale_json_type type) {
  if (p->n == NODES_MAX) return fail(p, SCALE_ERR_RANGE, "too many values (more than 2^20)");
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    node *grown = realloc(p->nodes, cap * sizeof *grown);
    if (!grown) return fail(p, SCALE_ERR_NOMEM, "out of memory");
    p->nodes = grown, p->cap = cap;
  }
  p->nodes[p->n] = (node){type, SIZE_MAX, SIZE_MAX, 0, false, -1, -1};
  return (long)p->n++;
}

static int hex4(const char *s) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

static void put_utf8(parser *p, unsigned cp) {
  char *o = p->pool + p->pool_n;
  if (cp < 0x80)
    o[0] = (char)cp, p->pool_n += 1;
  else if (cp < 0x800)
    o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F)), p->pool_n += 2;
  else if (cp < 0x10000)
    o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
    o[2] = (char)(0x80 | (cp & 0x3F)), p->pool_n += 3;
  else
    o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F)), p->pool_n += 4;
}

/** A \u escape of four hex digits (and a surrogate pair) at p->pos, just after the 'u';
 * false on a bad escape. */
static bool unicode_escape(parser *p) {
  if (p->pos + 4 > p->len) return false;
  int cp = hex4(p->s + p->pos);
  p->pos += 4;
  if (cp < 0) return false;
  if (cp >= 0xD800 && cp < 0xDC00) {
    if (p->pos + 6 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') return false;
    int lo = hex4(p->s + p->pos + 2);
    if (lo < 0xDC00 || lo >= 0xE000) return false;
    p->pos += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
  } else if ((cp >= 0xDC00 && cp < 0xE000) || cp == 0) {
    return false; /* a lone low surrogate, or a NUL that would cut the string */
  }
  put_utf8(p, (unsigned)cp);
  return true;
}

/** A string at p->pos (on its '"') into the pool; its offset, or SIZE_MAX on error. */
static size_t parse_string(parser *p) {
  size_t start = p->pool_n;
  p->pos++;
  while (p->pos < p->len) {
    unsigned char c = (unsigned char)p->s[p->pos++];
    if (c == '"') {
      p->pool[p->pool_n++] = '\0';
      return start;
    }
    if (c < 0x20) return fail(p, SCALE_ERR_PARSE, "a control character inside a string"), SIZE_MAX;
    if (c != '\\') {
      p->pool[p->pool_n++] = (char)c;
      continue;
    }
    if (p->pos == p->len) break;
    char e = p->s[p->pos++];
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *k = e ? strchr(from, e) : NULL;
    if (k)
      p->pool[p->pool_n++] = to[k - from];
    else if (e != 'u' || !unicode_escape(p))
      return fail(p, SCALE_ERR_PARSE, "a bad escape inside a string"), SIZE_MAX;
  }
  return fail(p, SCALE_ERR_PARSE, "a string without its closing '\"'"), SIZE_MAX;
}

static size_t digits(const parser *p, size_t i) {
  while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
    i++;
  return i;
}

/** A number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static long parse_number(parser *p) {
  size_t i = p->pos;
  if (i < p->len && p->s[i] == '-') i++;
  size_t int_end = digits(p, i);
  bool ok = int_end > i && !(p->s[i] == '0' && int_end > i + 1);
  if (ok && int_end < p->len && p->s[int_end] == '.') {
    size_t frac_end = digits(p, int_end + 1);
    ok = frac_end > int_end + 1;
    int_end = frac_end;
  }
  if (ok && int_end < p->len && (p->s[int_end] == 'e' || p->s[int_end] == 'E')) {
    size_t e = int_end + 1;
    if (e < p->len && (p->s[e] == '+' || p->s[e] == '-')) e++;
    size_t exp_end = digits(p, e);
    ok = exp_end > e;
    int_end = exp_end;
  }
  if (!ok) return fail(p, SCALE_ERR_PARSE, "a malformed number");
  char buf[400];
  size_t n = int_end - p->pos;
  if (n >= sizeof buf) return fail(p, SCALE_ERR_RANGE, "a number of more than 399 characters");
  memcpy(buf, p->s + p->pos, n);
  buf[n] = '\0';
  double v = strtod(buf, NULL);
  if (!isfinite(v)) return fail(p, SCALE_ERR_RANGE, "a number too large for a double");
  long k = new_node(p, SCALE_JSON_NUMBER);
  if (k >= 0) p->nodes[k].number = v;
  p->pos = int_end;
  return k;
}

static long parse_value(parser *p);

/** Whether the members of object 'obj' before 'k' already use k's name. */
static bool duplicate(const parser *p, long obj, long k) {
  for (long c = p->nodes[obj].child; c >= 0 && c != k; c = p->nodes[c].next)
    if (strcmp(p->pool + p->nodes[c].key, p->pool + p->nodes[k].key) == 0) return true;
  return false;
}

/** The elements of an array or the members of an object, after its opening bracket. */
static long parse_container(parser *p, bool object) {
  long self = new_node(p, object ? SCALE_JSON_OBJECT : SCALE_JSON_ARRAY), last = -1;
  char close = object ? '}' : ']';
  if (self < 0) return -1;
  skip_ws(p);
  if (p->pos < p->len && p->s[p->pos] == close) return p->pos++, self;
  for (int count = 0;; count++) {
    size_t key = SIZE_MAX;
    if (object) {
      if (count == MEMBERS_MAX) return fail(p, SCALE_ERR_RANGE, "an object of over 4096 members");
      skip_ws(p);
      if (p->pos >= p->len || p->s[p->pos] != '"')
        return fail(p, SCALE_ERR_PARSE, "expected a member name in double quotes");
      if ((key = parse_string(p)) == SIZE_MAX) return -1;
      skip_ws(p);
      if (p->pos >= p->len || p->s[p->pos++] != ':')
        return fail(p, SCALE_ERR_PARSE, "expected ':' after a member name");
    }
    long k = parse_value(p);
    if (k < 0) return -1;
    p->nodes[k].key = key;
    if (last < 0)
      p->nodes[self].child = k;
    else
      p->nodes[last].next = k;
    last = k;
    if (object && duplicate(p, self, k)) {
      p->st = scale_diag_set(p->diag, SCALE_ERR_DUPLICATE_KEY, "", p->line,
                             "member '%.60s' given twice", p->pool + key);
      return -1;
    }
    skip_ws(p);
    char c = p->pos < p->len ? p->s[p->pos++] : '\0';
    if (c == close) return self;
    if (c != ',')
      return fail(p, SCALE_ERR_PARSE,
                  object ? "expected ',' or '}' after a member"
                         : "expected ',' or ']' after an element");
  }
}

static long parse_literal(parser *p, const char *word, scale_json_type type, bool value) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
    return fail(p, SCALE_ERR_PARSE, "expected a value");
  p->pos += n;
  long k = new_node(p, type);
  if (k >= 0) p->nodes[k].boolean = value;
  return k;
}

static long parse_value(parser *p) {
  skip_ws(p);
  if (p->pos >= p->len) return fail(p, SCALE_ERR_PARSE, "expected a value, found the end");
  char c = p->s[p->pos];
  if (c == '{' || c == '[') {
    if (++p->depth > SCALE_JSON_DEPTH_MAX)
      return fail(p, SCALE_ERR_RANGE, "nested more than 64 levels deep");
    p->pos++;
    long k = parse_container(p, c == '{');
    p->depth--;
    return k;
  }
  if (c == '"') {
    size_t str = parse_string(p);
    long k = str == SIZE_MAX ? -1 : new_node(p, SCALE_JSON_STRING);
    if (k >= 0) p->nodes[k].str = str;
    return k;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p);
  if (c == 't') return parse_literal(p, "true", SCALE_JSON_BOOL, true);
  if (c == 'f') return parse_literal(p, "false", SCALE_JSON_BOOL, false);
  if (c == 'n') return parse_literal(p, "null", SCALE_JSON_NULL, false);
  return fail(p, SCALE_ERR_PARSE, "expected a value");
}

/** The parsed nodes as linked values (their final addresses). */
static scale_json *link_values(parser *p) {
  scale_json *j = calloc(1, sizeof *j);
  scale_json_value *v = j ? calloc(p->n, sizeof *v) : NULL;
  if (!v) {
    free(j);
    return NULL;
  }
  for (size_t i = 0; i < p->n; i++) {
    const node *n = &p->nodes[i];
    v[i] = (scale_json_value){n->type,
                              n->key == SIZE_MAX ? NULL : p->pool + n->key,
                              n->str == SIZE_MAX ? NULL : p->pool + n->str,
                              n->number,
                              n->boolean,
                              n->child < 0 ? NULL : &v[n->child],
                              n->next < 0 ? NULL : &v[n->next]};
  }
  j->values = v;
  j->pool = p->pool;
  return j;
}

scale_status scale_json_parse(const char *text, size_t len, scale_json **out, scale_diag *diag) {
  if (!out) return SCALE_ERR_INVALID;
  *out = NULL;
  if (!text) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "no text");
  if (len > SCALE_JSON_BYTES_MAX)
    return scale_diag_set(diag, SCALE_ERR_RANGE, "", 0, "more than %u bytes", SCALE_JSON_BYTES_MAX);
  parser p = {text, len, 0, 1, 0, NULL, 0, 0, malloc(len + 1), 0, SCALE_OK, diag};
  if (!p.pool) return scale_diag_set(diag, SCALE_ERR_NOMEM, "", 0, "out of memory");
  long root = parse_value(&p);
  skip_ws(&p);
  if (root >= 0 && p.pos < len) fail(&p, SCALE_ERR_PARSE, "text after the value");
  if (!p.st && !(*out = link_values(&p))) fail(&p, SCALE_ERR_NOMEM, "out of memory");
  free(p.nodes);
  if (p.st) free(p.pool);
  return p.st;
}

const scale_json_value *scale_json_root(const scale_json *json) {
  return json ? &json->values[0] : NULL;
}

const scale_json_value *scale_json_member(const scale_json_value *object, const char *key) {
  if (!object || object->type != SCALE_JSON_OBJECT || !key) return NULL;
  for (const scale_json_value *c = object->child; c; c = c->next)
    if (strcmp(c->key, key) == 0) return c;
  return NULL;
}

void scale_json_free(scale_json *json) {
  if (!json) return;
  free(json->values);
  free(json->pool);
  free(json);
}
