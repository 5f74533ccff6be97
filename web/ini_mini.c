/* ini_mini.c — ini_parse_stream() for the WebAssembly module, where Debian's libinih has no
 * build. libscale's inifile.c does all of the schema work (keys, units, ranges, duplicates)
 * and only asks this function to split lines into sections, names and values; this is a
 * fresh implementation of that contract with the options Debian's libinih is built with
 * (/usr/include/ini.h): ';' and '#' start a comment line, ';' after a space starts an inline
 * comment, '=' or ':' separates name from value, an indented line continues the previous
 * value (the handler sees the name again), a UTF-8 byte-order mark is skipped, errors do not
 * stop the parse and the first error's line is returned.
 *
 * The browser tests compare the page's numbers with the command's for the same files, so a
 * difference in splitting would show there.
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
    if (indented && prev[0]) { /* continuation of the previous value */
      cut_comment(start);
      rstrip(start);
      if (!handler(user, section, prev, start) && !error) error = lineno;
    } else if (*start == '[') {
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
      char *value = lskip(eq + 1);
      cut_comment(value);
      rstrip(value);
      strcpy(prev, rstrip(start));
      if (!handler(user, section, prev, value) && !error) error = lineno;
    }
  }
  return error;
}
