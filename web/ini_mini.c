/* ini_mini.c — ini_parse_stream() for the WebAssembly module, where Debian's libinih has no
 * build. libscale's inifile.c does all of the schema work (keys, units, ranges, duplicates)
 * and only asks this function to split lines into sections, names and values; this is a
 * fresh implementation of that contract with the options Debian's libinih is built with
 * (/usr/include/ini.h): ';' and '#' start a comment line, ';' after a space starts an inline
 * comment (in a value, counted from the '='), '=' or ':' separates name from value, an
 * indented line continues the previous value (the handler sees the name again, with the whole
 * line), a UTF-8 byte-order mark is skipped, errors do not stop the parse and the first
 * error's line is returned.
 *
 * web/test_ini_mini.c (CTest web.ini_mini) runs this and libinih side by side over every data
 * file and edge cases and requires the same calls.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include <ini.h>

#define LINE_MAX_CHARS 200 /* INI_MAX_LINE of Debian's build */

static char *rstrip(char *s) {
  char *p = s + strlen(s);
  while (p > s && isspace((unsigned char)p[-1]))
    *--p = '\0';
  return s;
}

static char *lskip(char *s) {
  while (*s && isspace((unsigned char)*s))
    s++;
  return s;
}

/* Cuts an inline comment: ';' after whitespace (a value may start with ';'). */
static void cut_comment(char *s) {
  for (char *p = s; *p; p++)
    if (*p == ';' && p > s && isspace((unsigned char)p[-1])) {
      *p = '\0';
      return;
    }
}

int ini_parse_stream(ini_reader reader, void *stream, ini_handler handler, void *user) {
  char line[LINE_MAX_CHARS], section[LINE_MAX_CHARS] = "", prev[LINE_MAX_CHARS] = "";
  int lineno = 0, error = 0;
  while (reader(line, (int)sizeof line, stream)) {
    lineno++;
    char *start = line;
    if (lineno == 1 && (unsigned char)start[0] == 0xEF && (unsigned char)start[1] == 0xBB &&
        (unsigned char)start[2] == 0xBF)
      start += 3;
    bool indented = start[0] && isspace((unsigned char)start[0]);
    start = lskip(rstrip(start));
    if (*start == ';' || *start == '#' || !*start) continue;
    if (indented && prev[0]) { /* continuation of the previous value (no inline comment, as
                                  libinih: web.ini_mini checks) */
      if (!handler(user, section, prev, start) && !error) error = lineno;
    } else if (*start == '[') {
      cut_comment(start + 1); /* "[s ; x]" is a comment before the ']': an error */
      char *end = strchr(start + 1, ']');
      if (end) {
        *end = '\0';
        strcpy(section, start + 1);
        prev[0] = '\0';
      } else if (!error) {
        error = lineno;
      }
    } else {
      char *eq = start + strcspn(start, "=:");
      if (!*eq) {
        if (!error) error = lineno;
        continue;
      }
      *eq = '\0';
      char *value = eq + 1;
      cut_comment(value); /* before skipping blanks: in "k = ;x" the ';' follows a space */
      value = lskip(value);
      rstrip(value);
      strcpy(prev, rstrip(start));
      if (!handler(user, section, prev, value) && !error) error = lineno;
    }
  }
  return error;
}
