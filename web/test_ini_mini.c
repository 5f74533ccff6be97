/* test_ini_mini.c — CTest web.ini_mini: the module's ini_parse_stream() (ini_mini.c) splits
 * every data file exactly as Debian's libinih does, so the page and the command read the same
 * keys and values.
 *
 * Both parsers run over every .ini file of hardware/ and models/ given on the command line, as
 * shipped and with comment lines emptied (what web/embed.c embeds), and over edge cases
 * (inline comments, a value starting ';', a continuation line, a byte-order mark, malformed
 * lines); the handler records each (section, name, value) call and the return value, and the
 * two records must be equal. ini_mini.c is compiled into this file under another name, beside
 * the real libinih. Usage: test_ini_mini FILE... ; exit 0 when all match, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#define ini_parse_stream web_ini_parse_stream
int web_ini_parse_stream(ini_reader reader, void *stream, ini_handler handler, void *user);
#include "ini_mini.c"
#undef ini_parse_stream

typedef struct {
  char text[1 << 16]; /* "section|name|value\n" per handler call */
  size_t len;
} record;

static int on_entry(void *user, const char *section, const char *name, const char *value) {
  record *r = user;
  int n = snprintf(r->text + r->len, sizeof r->text - r->len, "%s|%s|%s\n", section, name, value);
  if (n > 0) r->len += (size_t)n;
  return strcmp(name, "reject") != 0; /* a handler error, for the error-line case */
}

typedef struct {
  const char *p;
} cursor;

static char *read_mem(char *str, int num, void *stream) { /* fgets over a string */
  cursor *c = stream;
  if (!*c->p) return NULL;
  int n = 0;
  while (*c->p && n < num - 1) {
    str[n++] = *c->p;
    if (*c->p++ == '\n') break;
  }
  str[n] = '\0';
  return str;
}

static int compare(const char *label, const char *text) {
  static record a, b;
  a.len = b.len = 0;
  a.text[0] = b.text[0] = '\0';
  cursor ca = {text}, cb = {text};
  int ra = ini_parse_stream(read_mem, &ca, on_entry, &a);
  int rb = web_ini_parse_stream(read_mem, &cb, on_entry, &b);
  if (ra == rb && a.len == b.len && memcmp(a.text, b.text, a.len) == 0) return 0;
  printf("FAIL: %s: libinih returned %d after\n%s-- ini_mini returned %d after\n%s", label, ra,
         a.text, rb, b.text);
  return 1;
}

/* Empties comment lines, as web/embed.c does. */
static void drop_comments(char *text) {
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    size_t lead = strspn(line, " \t");
    if (lead < n && (line[lead] == ';' || line[lead] == '#')) {
      memmove(line, line + n, strlen(line + n) + 1);
      end = line;
    }
    line = end ? end + 1 : line + strlen(line);
  }
}

int main(int argc, char **argv) {
  static const char *const cases[] = {
      "[a]\nx = 1 ; unit\ny=2;not a comment\nz = ;starts with semicolon\n",
      "\xEF\xBB\xBF[bom]\nk = v\n",
      "[s]\nk = first\n  continued\n# comment\n; comment\n\n[t]\n  k2 : v2  \n",
      "[s]\nno equals sign\nk = v\n[unclosed\nj = w\n",
      "[s]\nreject = 1\nk = 2\nreject = 3\n",
      "k = outside\n[s] ; c\nk = v\n[t ; x]\nj = w\n",
      "[s]\na =\nb=;x\nc = v ;x ; y\n  ;cont\n  more ; c\n",
  };
  int bad = 0, n = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, n++) {
    char label[32];
    snprintf(label, sizeof label, "case %zu", i);
    bad += compare(label, cases[i]);
  }
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    static char text[1 << 17];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (!f || len == sizeof text - 1) {
      printf("FAIL: cannot read %s\n", argv[i]);
      bad++;
      if (f) fclose(f);
      continue;
    }
    fclose(f);
    text[len] = '\0';
    bad += compare(argv[i], text);
    drop_comments(text);
    bad += compare(argv[i], text);
    n += 2;
  }
  printf("%d comparisons, %d differ\n", n, bad);
  return bad ? 1 : 0;
}
