/* weave.c — one chapter's Markdown + values + sources -> article HTML (book_internal.h).
 *
 * 1. protect_math(): TeX between $...$ / $$...$$ is replaced by placeholders SCALEMATHnnnnnnnnnnZ
 *    (letters and digits, which Markdown leaves alone) with as many newlines as the TeX held,
 *    so cmark's line numbers stay those of slug.md.
 * 2. cmark-gfm parses the text (GFM tables); the tree is rewritten: `=key` code spans become
 *    value spans, {listing} / {exercise} / {widget} fences become HTML blocks, figures get
 *    their path.
 * 3. The HTML is post-processed: heading ids and anchors, then placeholders -> math.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include "book_internal.h"

#define PH_PREFIX "SCALEMATH"
#define PH_DIGITS 10 /* never runs out (6 did: formula 1000000 was left as its placeholder) */
#define PH_LEN (9 + PH_DIGITS + 1) /* "SCALEMATH" + digits + "Z" */

typedef struct {
  char *tex;
  bool display;
  int line;
  char *html; /**< KaTeX's HTML from katex_batch(), or NULL (then katex_render() runs) */
} math_span;

typedef struct {
  math_span *v;
  size_t n;
  size_t cap;
} math_list;

typedef struct {
  int level;
  char *text; /**< plain text */
  char id[200];
} heading;

typedef struct {
  heading *v;
  size_t n;
  size_t cap;
  strmap ids;      /**< every id given so far */
  strmap next_dup; /**< base id -> the first suffix not yet tried for it (see unique_id) */
} heading_list;

/** Everything one weave of one chapter needs. */
typedef struct {
  book_ctx *bx;
  book_chapter *ch;
  bool scan_only;
  math_list math;
  heading_list heads;
  bool have_summary;
  bool in_answer; /**< weaving the inside of an {answer} block */
} weave;

/* ---- 1. math protection --------------------------------------------------------------------- */

static void add_placeholder(strbuf *out, math_list *m, const char *tex, size_t n, bool display,
                            int line) {
  m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof *m->v);
  math_span *s = &m->v[m->n];
  size_t a = 0, b = n; /* stored trimmed; the newlines still count below */
  while (a < b && isspace((unsigned char)tex[a]))
    a++;
  while (b > a && isspace((unsigned char)tex[b - 1]))
    b--;
  s->tex = xmalloc(b - a + 1);
  memcpy(s->tex, tex + a, b - a);
  s->tex[b - a] = '\0';
  s->display = display;
  s->line = line;
  s->html = NULL;
  sb_printf(out, PH_PREFIX "%0*zuZ", PH_DIGITS, m->n);
  m->n++;
  for (size_t i = 0; i < n; i++)
    if (tex[i] == '\n') sb_add(out, "\n");
}

/** Whether text[i..] starts a blank line (the end of a paragraph). */
static bool at_blank_line(const char *t, size_t i) {
  if (t[i] != '\n') return false;
  i++;
  while (t[i] == ' ' || t[i] == '\t')
    i++;
  return t[i] == '\n' || t[i] == '\0';
}

/** What protect_math() remembers while it scans, so that no scan is repeated. */
typedef struct {
  size_t *open;      /**< by backtick run length k: no closing run of k before open[k] */
  size_t cap;        /**< entries of open (0: not known) */
  size_t blank;      /**< the next blank line's start found so far (see next_blank) */
  size_t closer[3];  /**< the next "?>", "]]>", ">" found so far (see html_scan_cost) */
  size_t html_scans; /**< bytes cmark-gfm will scan for the ends of inline HTML openers */
} span_memo;

/** The end of the code span opened by the backtick run at text[i] (after its closing run of
 * the same length, within the paragraph), or the end of the opening run when there is none.
 * A failed search scanned every run up to the paragraph's end, and a later opener of the same
 * length there can only see a subset of those runs: the memo skips its search, so a paragraph
 * of unmatched backticks costs O(n), not O(n^2). */
static size_t code_span_end(const char *text, size_t n, size_t i, span_memo *memo) {
  size_t k = 0;
  while (text[i + k] == '`')
    k++;
  if (k < memo->cap && i < memo->open[k]) return i + k;
  size_t j = i + k;
  while (j < n && !at_blank_line(text, j)) {
    if (text[j] != '`') {
      j++;
      continue;
    }
    size_t r = 0;
    while (text[j + r] == '`')
      r++;
    if (r == k) return j + r;
    j += r;
  }
  size_t old = memo->cap;
  memo->open = xgrow(memo->open, &memo->cap, k + 1, sizeof *memo->open);
  memset(memo->open + old, 0, (memo->cap - old) * sizeof *memo->open);
  memo->open[k] = j;
  return i + k;
}

/** The start of the first blank line at or after i (n when none), remembered in memo. */
static size_t next_blank(const char *text, size_t n, size_t i, span_memo *memo) {
  if (memo->blank >= i && memo->blank != 0) return memo->blank;
  size_t j = i;
  while (j < n && !(text[j] == '\n' && at_blank_line(text, j)))
    j++;
  return memo->blank = j;
}

/* cmark-gfm 0.29.0.gfm.6 (Debian's) looks for the end of a processing instruction, a
 * declaration or a CDATA section from every opener to the end of the paragraph, and does not
 * remember a failure: 600 KB of "<!A " took 48 s. Upstream fixed this in 0.29.0.gfm.7; here
 * the bytes those scans will read are counted, and a chapter over the budget is refused. */
#define HTML_SCAN_BUDGET(n) (((size_t)1 << 27) + 16 * (n))

/** The bytes cmark-gfm scans for the end of the inline HTML opener at text[i] (none for other
 * text, and for an opener starting a line, which starts an HTML block instead, scanned once):
 * up to its end or the next blank line, whichever is first, which bounds the paragraph's end. */
static size_t html_scan_cost(const char *text, size_t n, size_t i, size_t line_begin,
                             span_memo *memo) {
  static const char *const ends[3] = {"?>", "]]>", ">"};
  const char *p = text + i;
  int kind = p[1] == '?'                                   ? 0
             : strncmp(p + 1, "![CDATA[", 8) == 0          ? 1
             : p[1] == '!' && isalpha((unsigned char)p[2]) ? 2
                                                           : -1;
  if (kind < 0) return 0;
  size_t spaces = 0, k = line_begin;
  for (; k < i && (text[k] == ' ' || text[k] == '>') && i - line_begin <= 16; k++)
    spaces += text[k] == ' ';
  if (k == i && spaces <= 3) return 0;
  size_t from = i + 2, *end = &memo->closer[kind];
  if (*end < from || *end == 0) {
    const char *e = str_find(text + from, ends[kind]);
    *end = e ? (size_t)(e - text) : n;
  }
  size_t stop = next_blank(text, n, i, memo);
  return (*end < stop ? *end : stop) - i;
}

/* Where protect_math_spans stands in the chapter's text. */
typedef struct {
  const char *text;
  size_t n, i, line_begin; /* length; position; start of the current line */
  int line;                /* 1-based line of text[i] */
  bool line_start;         /* text[i] starts a line */
  bool in_fence;           /* inside a fenced block */
  bool fence_code;         /* that block is code ({exercise} and {widget} blocks hold prose) */
  char fence_char;         /* its fence: '`' or '~', at least fence_len of them */
  size_t fence_len;
} math_scan;

/* At a line's start: copies the line whole when it opens or closes a fence or lies in a code
 * block, and returns whether it did. */
static bool copy_fence_line(math_scan *sc, strbuf *out) {
  const char *text = sc->text;
  size_t i = sc->i;
  sc->line_start = false;
  sc->line_begin = i;
  size_t j = i, sp = 0;
  while (text[j] == ' ' && sp < 3)
    j++, sp++;
  char c = text[j];
  size_t run = 0;
  while ((c == '`' || c == '~') && text[j + run] == c)
    run++;
  const char *eol = strchr(text + i, '\n');
  size_t line_len = eol ? (size_t)(eol - (text + i)) + 1 : sc->n - i;
  bool fence = run >= 3, whole = false;
  if (fence && !sc->in_fence) {
    sc->in_fence = true;
    sc->fence_char = c, sc->fence_len = run;
    const char *info = text + j + run;
    while (*info == ' ')
      info++;
    sc->fence_code = strncmp(info, "{exercise}", 10) != 0 && strncmp(info, "{widget}", 8) != 0 &&
                     strncmp(info, "{answer}", 8) != 0;
    whole = true;
  } else if (fence && sc->in_fence && c == sc->fence_char && run >= sc->fence_len) {
    const char *rest = text + j + run;
    while (*rest == ' ' || *rest == '\t')
      rest++;
    if (*rest == '\n' || *rest == '\0') {
      sc->in_fence = false;
      whole = true;
    }
  }
  if (!whole && !(sc->in_fence && sc->fence_code)) return false;
  sb_addn(out, text + i, line_len);
  sc->i += line_len, sc->line++, sc->line_start = true;
  return true;
}

/* Display math at text[i] = "$$": a placeholder for its TeX; false after reporting that it
 * has no closing "$$". */
static bool take_display_math(weave *w, math_scan *sc, strbuf *out) {
  const char *text = sc->text;
  const char *close = str_find(text + sc->i + 2, "$$");
  if (!close) {
    book_error(w->bx, w->ch->md, sc->line, "unterminated display math: '$$' has no closing '$$'");
    return false;
  }
  size_t len = (size_t)(close - (text + sc->i + 2));
  add_placeholder(out, &w->math, text + sc->i + 2, len, true, sc->line);
  for (size_t q = 0; q < len; q++)
    if (text[sc->i + 2 + q] == '\n') sc->line++;
  sc->i += len + 4;
  return true;
}

/* Inline math at text[i] = '$' (not a lone dollar): a placeholder for its TeX up to the closing
 * '$' of the paragraph; false after reporting that there is none. */
static bool take_inline_math(weave *w, math_scan *sc, strbuf *out) {
  const char *text = sc->text;
  size_t i = sc->i, j = i + 1;
  bool closed = false;
  while (j < sc->n && !at_blank_line(text, j)) {
    if (text[j] == '\\' && text[j + 1]) {
      j += 2;
      continue;
    }
    if (text[j] == '$' && text[j - 1] != ' ' && !isdigit((unsigned char)text[j + 1])) {
      closed = true;
      break;
    }
    j++;
  }
  if (!closed) {
    book_error(w->bx, w->ch->md, sc->line,
               "unterminated math: '$' has no closing '$' in its paragraph "
               "(write \\$ for a dollar sign)");
    return false;
  }
  size_t len = j - i - 1;
  add_placeholder(out, &w->math, text + i + 1, len, false, sc->line);
  for (size_t q = 0; q < len; q++)
    if (text[i + 1 + q] == '\n') sc->line++;
  sc->i = j + 1;
  return true;
}

/* Copies the character (or escape, or code span) at text[i] that is not math; false after
 * reporting raw HTML whose end cmark-gfm would search for too often. */
static bool copy_other(weave *w, math_scan *sc, strbuf *out, span_memo *spans) {
  const char *text = sc->text;
  const size_t i = sc->i;
  char c = text[i];
  if (c == '\n') {
    sb_add(out, "\n");
    sc->i++, sc->line++, sc->line_start = true;
  } else if (c == '\\' && text[i + 1] && text[i + 1] != '\n') {
    sb_addn(out, text + i, 2);
    sc->i += 2;
  } else if (c == '`') { /* a code span: copy through its closing run of the same length */
    size_t end = code_span_end(text, sc->n, i, spans);
    for (size_t q = i; q < end; q++)
      if (text[q] == '\n') sc->line++;
    sb_addn(out, text + i, end - i);
    sc->i = end;
  } else {
    if (c == '<') {
      spans->html_scans += html_scan_cost(text, sc->n, i, sc->line_begin, spans);
      if (spans->html_scans > HTML_SCAN_BUDGET(sc->n)) {
        book_error(w->bx, w->ch->md, sc->line,
                   "too many '<?', '<!X' or '<![CDATA[' without their end: cmark-gfm would "
                   "search from each to the end of its paragraph (write &lt; for '<')");
        return false;
      }
    }
    sb_addn(out, &text[i], 1);
    sc->i++;
  }
  return true;
}

static bool protect_math_spans(weave *w, const char *text, strbuf *out, span_memo *spans) {
  math_scan sc = {.text = text, .n = strlen(text), .line = 1, .line_start = true};
  while (sc.i < sc.n) {
    if (sc.line_start && copy_fence_line(&sc, out)) continue;
    const char *p = text + sc.i;
    if (p[0] != '$') {
      if (!copy_other(w, &sc, out, spans)) return false;
    } else if (p[1] == '$') { /* display math */
      if (!take_display_math(w, &sc, out)) return false;
    } else if (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\0') { /* a lone dollar */
      sb_add(out, "$");
      sc.i++;
    } else if (!take_inline_math(w, &sc, out)) {
      return false;
    }
  }
  return true;
}

static bool protect_math(weave *w, const char *text, strbuf *out) {
  span_memo spans = {0};
  bool ok = protect_math_spans(w, text, out, &spans);
  free(spans.open);
  return ok;
}

/* ---- sparse tables -------------------------------------------------------------------------- */

/* GFM pads every row of a table to the columns of its delimiter row, so a delimiter row of k
 * columns over n one-character rows makes k * n cells from O(k + n) bytes: 64 KB of text took
 * over a minute and a few MB would exhaust memory inside cmark-gfm. Such a table is refused
 * before parsing; no table that writes its cells comes near the bound. */
#define TABLE_CELLS_PER_BYTE 8
#define TABLE_CELLS_FREE 100000
/* It also splits each row in time quadratic in its cells (20000 cells: 2.5 s a row). */
#define TABLE_COLUMNS_MAX 256

/** The number of cells of a GFM delimiter row ("| --- | :-: |"), or 0 when 'p' (one line,
 * containers' '>' and indentation skipped) is not one. */
static size_t delimiter_cells(const char *p, const char *eol) {
  while (p < eol && (*p == ' ' || *p == '\t' || *p == '>'))
    p++;
  size_t cells = 0, pipes = 0;
  while (p < eol) {
    while (p < eol && (*p == ' ' || *p == '\t'))
      p++;
    if (p < eol && *p == '|') p++, pipes++;
    while (p < eol && (*p == ' ' || *p == '\t'))
      p++;
    if (p == eol) break;
    if (*p == ':') p++;
    const char *dashes = p;
    while (p < eol && *p == '-')
      p++;
    if (p == dashes) return 0;
    if (p < eol && *p == ':') p++;
    cells++;
  }
  return pipes ? cells : 0;
}

/** The cells a table row (up to eol) separates with unescaped '|'. */
static size_t row_pipes(const char *p, const char *eol) {
  size_t pipes = 0;
  for (const char *q = p; q < eol; q++)
    pipes += *q == '|' && (q == p || q[-1] != '\\');
  return pipes;
}

/** Whether a line (up to eol) is blank. */
static bool blank_line(const char *p, const char *eol) {
  while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
    p++;
  return p == eol;
}

/** Refuses (with slug.md:LINE of its header) a table whose padded cells would far outnumber
 * its bytes. */
static bool tables_ok(weave *w, const char *text) {
  size_t columns = 0, rows = 0, bytes = 0, prev_pipes = 0;
  int line = 1, table_line = 0;
  for (const char *p = text; *p; line++) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    size_t k = delimiter_cells(p, eol);
    if (blank_line(p, eol) || k) { /* a table ends; a delimiter row starts one */
      columns = k, rows = 0, bytes = (size_t)(eol - p), table_line = line;
      if (columns > TABLE_COLUMNS_MAX) {
        book_error(w->bx, w->ch->md, line > 1 ? line - 1 : 1, "a table of %zu columns (at most %d)",
                   columns, TABLE_COLUMNS_MAX);
        return false;
      }
      if (k && prev_pipes > TABLE_COLUMNS_MAX + 1) { /* split even when it is no header */
        book_error(w->bx, w->ch->md, line - 1, "a table header of more than %d cells",
                   TABLE_COLUMNS_MAX);
        return false;
      }
    } else if (columns) {
      rows++, bytes += (size_t)(eol - p) + 1;
      if (row_pipes(p, eol) > TABLE_COLUMNS_MAX + 1) {
        book_error(w->bx, w->ch->md, line, "a table row of more than %d cells", TABLE_COLUMNS_MAX);
        return false;
      }
      if (columns * rows > TABLE_CELLS_FREE && columns * rows / TABLE_CELLS_PER_BYTE > bytes) {
        book_error(w->bx, w->ch->md, table_line > 1 ? table_line - 1 : 1, /* its header */
                   "a table of %zu columns over rows of a few bytes (every row is padded to "
                   "every column): write the cells, or split the table",
                   columns);
        return false;
      }
    }
    prev_pipes = row_pipes(p, eol);
    p = *eol ? eol + 1 : eol;
  }
  return true;
}

/** Parses a placeholder at p; returns its index or -1. */
static long placeholder_at(const char *p) {
  if (strncmp(p, PH_PREFIX, 9) != 0) return -1;
  long v = 0;
  for (int k = 0; k < PH_DIGITS; k++) {
    if (!isdigit((unsigned char)p[9 + k])) return -1;
    v = v * 10 + (p[9 + k] - '0');
  }
  return p[PH_LEN - 1] == 'Z' ? v : -1;
}

/** Copies 's' replacing placeholders by their TeX source (plain-text contexts). */
static void expand_plain(const weave *w, const char *s, strbuf *out) {
  for (const char *p = s; *p;) {
    const char *ph = str_find(p, PH_PREFIX); /* copy whole runs: one append per char is slow */
    if (!ph) {
      sb_add(out, p);
      return;
    }
    sb_addn(out, p, (size_t)(ph - p));
    long k = placeholder_at(ph);
    if (k >= 0 && (size_t)k < w->math.n) {
      sb_add(out, w->math.v[k].tex);
      p = ph + PH_LEN;
    } else {
      sb_addn(out, ph, 1);
      p = ph + 1;
    }
  }
}

/* ---- math rendering ------------------------------------------------------------------------- */

static bool braces_balanced(const char *tex) {
  int depth = 0;
  for (const char *p = tex; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      continue;
    }
    if (*p == '{') depth++;
    if (*p == '}' && --depth < 0) return false;
  }
  return depth == 0;
}

/* Starting node once per formula costs about a quarter of a second, minutes for the book. When
 * the katex command is the KaTeX package's own cli.js (Debian's /usr/bin/katex links to it), one
 * node process renders every formula of the chapter with the module beside that script, in
 * the same modes, and katex_render() is left for the formulas it rejects (to report them) and
 * for any other katex command. Input and output: one formula per NUL-terminated record, the
 * first byte 'd' (display) or 'i' on input, 'o' (HTML follows) or 'e' (rejected) on output. */
static const char katex_batch_js[] =
    "const katex=require(process.argv[1]);const chunks=[];"
    "process.stdin.on('data',c=>chunks.push(c));"
    "process.stdin.on('end',()=>{const items=Buffer.concat(chunks).toString('utf8')"
    ".split('\\0');items.pop();"
    "process.stdout.write(items.map(s=>{try{return 'o'+katex.renderToString(s.slice(1),"
    "{displayMode:s[0]==='d',macros:{}})}catch(e){return 'e'}}).join('\\0')+'\\0')});";

/** Fills m->html of every formula of the chapter in one node process, when it can (see
 * above); on any trouble it leaves them NULL, so each formula goes through the katex command. */
static void katex_batch(weave *w) {
  char *cli = realpath(w->bx->katex, NULL);
  size_t cl = cli ? strlen(cli) : 0;
  if (!cli || cl < 7 || strcmp(cli + cl - 7, "/cli.js") != 0 || w->math.n == 0) {
    free(cli);
    return;
  }
  cli[cl - 7] = '\0'; /* the katex module's folder */
  char pkg[BOOK_PATH_MAX];
  snprintf(pkg, sizeof pkg, "%s/package.json", cli);
  char in[] = "/tmp/scale-katex-batch-XXXXXX";
  int fd = file_exists(pkg) ? mkstemp(in) : -1;
  if (fd < 0) {
    free(cli);
    return;
  }
  strbuf data = {0};
  for (size_t i = 0; i < w->math.n; i++) {
    sb_add(&data, w->math.v[i].display ? "d" : "i");
    sb_addn(&data, w->math.v[i].tex, strlen(w->math.v[i].tex) + 1); /* with its NUL */
  }
  bool ok = write(fd, data.data, data.len) == (ssize_t)data.len;
  close(fd);
  sb_free(&data);
  char outp[sizeof in + 4];
  snprintf(outp, sizeof outp, "%s.out", in);
  strbuf cmd = {0};
  sb_add(&cmd, "node -e ");
  sb_add_shell_quoted(&cmd, katex_batch_js);
  sb_add(&cmd, " ");
  sb_add_shell_quoted(&cmd, cli);
  sb_add(&cmd, " < ");
  sb_add_shell_quoted(&cmd, in);
  sb_add(&cmd, " > ");
  sb_add_shell_quoted(&cmd, outp);
  sb_add(&cmd, " 2>/dev/null");
  ok = ok && system(sb_str(&cmd)) == 0;
  sb_free(&cmd);
  size_t len = 0;
  char *out = ok ? read_file(outp, &len) : NULL;
  /* Exactly one record per formula, or nothing is used. */
  size_t records = 0;
  for (size_t i = 0; out && i < len; i++)
    records += out[i] == '\0';
  if (out && records == w->math.n && len && out[len - 1] == '\0') {
    const char *p = out;
    for (size_t i = 0; i < w->math.n; i++) {
      size_t n = strlen(p);
      if (p[0] == 'o') w->math.v[i].html = xstrdup(p + 1);
      p += n + 1;
    }
  }
  free(out);
  free(cli);
  remove(in);
  remove(outp);
}

/** Renders one span with KaTeX; false (error reported) when KaTeX rejects it. */
static bool katex_render(weave *w, const math_span *m, strbuf *out) {
  char in[] = "/tmp/scale-katex-in-XXXXXX";
  int fd = mkstemp(in);
  if (fd < 0) {
    book_error(w->bx, w->ch->md, m->line, "cannot create a temporary file for KaTeX");
    return false;
  }
  size_t len = strlen(m->tex);
  bool ok = write(fd, m->tex, len) == (ssize_t)len;
  close(fd);
  char outp[sizeof in + 4], errp[sizeof in + 4];
  snprintf(outp, sizeof outp, "%s.out", in);
  snprintf(errp, sizeof errp, "%s.err", in);
  strbuf cmd = {0};
  sb_add_shell_quoted(&cmd, w->bx->katex);
  sb_add(&cmd, m->display ? " --display-mode < " : " < ");
  sb_add_shell_quoted(&cmd, in);
  sb_add(&cmd, " > ");
  sb_add_shell_quoted(&cmd, outp);
  sb_add(&cmd, " 2> ");
  sb_add_shell_quoted(&cmd, errp);
  int rc = ok ? system(sb_str(&cmd)) : -1;
  sb_free(&cmd);
  char *html = read_file(outp, NULL);
  if (rc == 0 && html) {
    size_t hl = strlen(html);
    while (hl && (html[hl - 1] == '\n' || html[hl - 1] == '\r'))
      hl--;
    sb_addn(out, html, hl);
  } else {
    char *err = read_file(errp, NULL);
    char *first = err ? err : NULL;
    if (first) {
      /* The most useful line of KaTeX's report names the parse error. */
      for (char *pe = strstr(first, "KaTeX parse error"); pe;
           pe = strstr(pe + 1, "KaTeX parse error"))
        first = pe; /* the last one: earlier ones may be KaTeX's own source in a trace */
      char *eol = strchr(first, '\n');
      if (eol) *eol = '\0';
      if (strlen(first) > 200) strcpy(first + 197, "...");
    }
    book_error(w->bx, w->ch->md, m->line, "TeX error in '%s': %s", m->tex,
               first && *first ? first : "katex failed");
    free(err);
    ok = false;
  }
  free(html);
  remove(in);
  remove(outp);
  remove(errp);
  return ok && rc == 0;
}

static bool render_math(weave *w, const math_span *m, bool alone, strbuf *out) {
  if (!braces_balanced(m->tex)) {
    book_error(w->bx, w->ch->md, m->line, "TeX error in '%s': unbalanced braces", m->tex);
    return false;
  }
  const char *open = m->display ? (alone ? "<div class=\"math-display\">"
                                         : "<span "
                                           "class=\"math-display\">")
                                : "<span class=\"math\">";
  const char *close = m->display && alone ? "</div>" : "</span>";
  sb_add(out, open);
  if (w->bx->katex && m->html) {
    sb_add(out, m->html);
  } else if (w->bx->katex) {
    if (!katex_render(w, m, out)) return false;
  } else {
    sb_add(out, "<code class=\"math\">");
    sb_add_html(out, m->tex);
    sb_add(out, "</code>");
  }
  sb_add(out, close);
  return true;
}

/** Replaces every placeholder in html by rendered math; a display placeholder alone in its
 * paragraph replaces the paragraph. */
static bool substitute_math(weave *w, const char *html, strbuf *out) {
  bool ok = true;
  for (const char *p = html; *p;) {
    const char *ph = str_find(p, PH_PREFIX); /* copy the text between placeholders in one go */
    if (!ph) {
      sb_add(out, p);
      break;
    }
    long k = placeholder_at(ph);
    bool known = k >= 0 && (size_t)k < w->math.n;
    if (known && w->math.v[k].display && ph - p >= 3 && strncmp(ph - 3, "<p>", 3) == 0 &&
        strncmp(ph + PH_LEN, "</p>", 4) == 0) {
      sb_addn(out, p, (size_t)(ph - 3 - p));
      ok = render_math(w, &w->math.v[k], true, out) && ok;
      p = ph + PH_LEN + 4;
      continue;
    }
    sb_addn(out, p, (size_t)(ph - p));
    if (known) {
      ok = render_math(w, &w->math.v[k], false, out) && ok;
      p = ph + PH_LEN;
    } else {
      sb_addn(out, ph, 1);
      p = ph + 1;
    }
  }
  return ok;
}

/* ---- 2. the tree ---------------------------------------------------------------------------- */

/** Appends the plain text of node's inline content (values by display, math as TeX). */
static void plain_text(const weave *w, cmark_node *node, strbuf *out) {
  for (cmark_node *c = cmark_node_first_child(node); c; c = cmark_node_next(c)) {
    switch (cmark_node_get_type(c)) {
    case CMARK_NODE_TEXT:
    case CMARK_NODE_CODE:
      expand_plain(w, cmark_node_get_literal(c), out);
      break;
    case CMARK_NODE_HTML_INLINE: {
      const char *display = cmark_node_get_user_data(c);
      if (display) sb_add(out, display);
      break;
    }
    case CMARK_NODE_SOFTBREAK:
    case CMARK_NODE_LINEBREAK:
      sb_add(out, " ");
      break;
    default:
      plain_text(w, c, out);
      break;
    }
  }
}

/** Collects the nodes of 'root' of the given type, in document order. */
static cmark_node **collect(cmark_node *root, cmark_node_type type, size_t *n) {
  cmark_node **v = NULL;
  size_t cap = 0;
  *n = 0;
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *node = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(node) == type) {
      v = xgrow(v, &cap, *n + 1, sizeof *v);
      v[(*n)++] = node;
    }
  }
  cmark_iter_free(it);
  return v;
}

static void replace_with_html(cmark_node *old, const char *html, bool block) {
  cmark_node *node = cmark_node_new(block ? CMARK_NODE_HTML_BLOCK : CMARK_NODE_HTML_INLINE);
  cmark_node_set_literal(node, html);
  cmark_node_replace(old, node);
  cmark_node_free(old);
}

/* The last word of 'display' ("tokens" of "32768 tokens") into word[size]; "" if none. */
static void last_word(const char *display, char *word, size_t size) {
  size_t n = strlen(display), end = n;
  while (end > 0 && isalpha((unsigned char)display[end - 1]))
    end--;
  size_t len = n - end < size ? n - end : size - 1;
  memcpy(word, display + end, len);
  word[len] = '\0';
}

/* Whether words a and b are one word, singular or plural ("token", "tokens"). */
static bool same_word(const char *a, size_t na, const char *b, size_t nb) {
  if (na && a[na - 1] == 's') na--;
  if (nb && b[nb - 1] == 's') nb--;
  return na >= 2 && na == nb && strncasecmp(a, b, na) == 0;
}

/* A value's unit repeated by the prose after it ("32768 tokens-token", "1024 sequences
 * sequences"): a warning, so --strict fails the book. */
static void check_doubled_unit(weave *w, cmark_node *code, const book_value *v, int line) {
  cmark_node *next = cmark_node_next(code);
  const char *t =
      next && cmark_node_get_type(next) == CMARK_NODE_TEXT ? cmark_node_get_literal(next) : NULL;
  char unit[64];
  last_word(v->display, unit, sizeof unit);
  if (!t || !unit[0] || (*t != ' ' && *t != '-')) return;
  t++;
  size_t n = 0;
  while (isalpha((unsigned char)t[n]))
    n++;
  if (same_word(unit, strlen(unit), t, n))
    book_warn(w->bx, w->ch->md, line, "doubled unit: `=%s` shows '%s' and the text goes on '%.*s'",
              v->key, v->display, (int)n, t);
}

static bool cite_values(weave *w, cmark_node *root, int line_offset) {
  size_t n;
  cmark_node **codes = collect(root, CMARK_NODE_CODE, &n);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    const char *lit = cmark_node_get_literal(codes[i]);
    if (!lit || lit[0] != '=') continue;
    const char *key = lit + 1;
    int line = line_offset + cmark_node_get_start_line(codes[i]);
    book_value *v = book_find_value(w->ch, key);
    if (!v && w->scan_only) continue; /* titles and summaries only: the page reports it */
    if (!v) {
      if (w->ch->has_values)
        book_error(w->bx, w->ch->md, line, "unknown value key '%s'", key);
      else {
        char ident[256];
        snprintf(ident, sizeof ident, "%s", w->ch->name);
        for (char *p = ident; *p; p++)
          if (*p == '-') *p = '_';
        book_error(w->bx, w->ch->md, line,
                   "unknown value key '%s' (no values for %s: build chapter_%s or pass --bin)", key,
                   w->ch->name, ident);
      }
      ok = false;
      continue;
    }
    v->cited = true;
    int *first = w->in_answer ? &v->line_answer : &v->line_shown;
    if (!w->scan_only && (!*first || line < *first)) *first = line;
    if (!w->scan_only) check_doubled_unit(w, codes[i], v, line);
    strbuf html = {0};
    /* a text value (unit "1": a reason, a layout) may wrap; a number with its unit may not */
    bool text = strcmp(v->unit, "1") == 0;
    sb_add(&html, text ? "<span class=\"value text\" title=\"" : "<span class=\"value\" title=\"");
    sb_add_html(&html, v->key);
    char num[64];
    snprintf(num, sizeof num, " = %.17g ", v->value);
    sb_add(&html, num);
    sb_add_html(&html, v->unit);
    sb_add(&html, "\">");
    sb_add_html(&html, v->display);
    sb_add(&html, "</span>");
    cmark_node *node = cmark_node_new(CMARK_NODE_HTML_INLINE);
    cmark_node_set_literal(node, sb_str(&html));
    cmark_node_set_user_data(node, v->display);
    cmark_node_replace(codes[i], node);
    cmark_node_free(codes[i]);
    sb_free(&html);
  }
  free(codes);
  return ok;
}

/* Whether 'text' holds what runs script in a page: a script, iframe, object or embed tag, an
 * event-handler attribute (on...=), or a javascript:, vbscript: or data: URL
 * (case-insensitive); what it found, else NULL. */
static const char *active_content(const char *text) {
  static const char *const tags[] = {"<script",     "<iframe",   "<object", "<embed",
                                     "javascript:", "vbscript:", "data:"};
  for (const char *p = text; *p; p++) {
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
      if (strncasecmp(p, tags[i], strlen(tags[i])) == 0) return tags[i];
    bool gap = *p == ' ' || *p == '\t' || *p == '\n' || *p == '/';
    if (gap && strncasecmp(p + 1, "on", 2) == 0) {
      const char *q = p + 3;
      while (isalpha((unsigned char)*q))
        q++;
      while (*q == ' ' || *q == '\t')
        q++;
      if (q > p + 3 && *q == '=') return "an on...= event handler";
    }
  }
  return NULL;
}

/* Refuses raw HTML and link targets in a chapter's own text that could run script (the site's
 * Content-Security-Policy would block them; the renderer says where they are instead). The
 * renderer's own directives insert their HTML after this check. */
static bool no_active_content(weave *w, cmark_node *root, int line_offset) {
  bool ok = true;
  cmark_iter *it = cmark_iter_new(root);
  for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    cmark_node *n = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(n);
    const char *text = NULL;
    if (t == CMARK_NODE_HTML_BLOCK || t == CMARK_NODE_HTML_INLINE)
      text = cmark_node_get_literal(n);
    else if (t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE)
      text = cmark_node_get_url(n);
    const char *what = ev == CMARK_EVENT_ENTER && text ? active_content(text) : NULL;
    if (what) {
      book_error(w->bx, w->ch->md, line_offset + cmark_node_get_start_line(n),
                 "raw HTML or a link that could run script (%s): not allowed in a chapter", what);
      ok = false;
    }
  }
  cmark_iter_free(it);
  return ok;
}

static bool weave_text(weave *w, const char *text, int line_offset, bool nested, strbuf *html);

/** Appends, escaped, the declaration of a contract: the text after its last comment, its
 * lines joined by single spaces ("double ex_f(double a, double b);"). */
static void add_signature(strbuf *out, const char *contract) {
  const char *p = contract, *c;
  while ((c = strstr(p, "*/")) != NULL)
    p = c + 2;
  strbuf sig = {0};
  bool space = false;
  for (; *p; p++) {
    if (isspace((unsigned char)*p)) {
      space = sig.len > 0;
      continue;
    }
    if (space) sb_add(&sig, " ");
    space = false;
    sb_addn(&sig, p, 1);
  }
  sb_add_html(out, sig.len ? sb_str(&sig) : contract);
  sb_free(&sig);
}

/** An {answer} block: the worked answer to the exercise above it, folded behind "Check your
 * answer" so the reader tries first. Its values must not be shown earlier on the page. */
static bool answer_block(weave *w, cmark_node *node, int line) {
  strbuf inner = {0}, out = {0};
  w->in_answer = true;
  bool ok = weave_text(w, cmark_node_get_literal(node), line, true, &inner);
  w->in_answer = false;
  if (ok) {
    sb_add(&out, "<details class=\"answer\">\n<summary>Check your answer</summary>\n");
    sb_add(&out, sb_str(&inner));
    sb_add(&out, "</details>\n");
    replace_with_html(node, sb_str(&out), true);
  }
  sb_free(&inner), sb_free(&out);
  return ok;
}

/** Warns where a value an {answer} block reveals is cited earlier on the page, outside any
 * answer: the page would give the answer away before the reader tries. */
static void check_answers_hidden(book_ctx *bx, book_chapter *ch) {
  for (size_t i = 0; i < ch->n_values; i++) {
    const book_value *v = &ch->values[i];
    if (v->line_answer && v->line_shown && v->line_shown < v->line_answer)
      book_warn(bx, ch->md, v->line_shown,
                "`=%s` is the answer folded at line %d but is shown here, before it", v->key,
                v->line_answer);
  }
}

static bool exercise_block(weave *w, cmark_node *node, const char *id, int line) {
  book_ctx *bx = w->bx;
  book_chapter *ch = w->ch;
  if (!id[0]) {
    book_error(bx, ch->md, line, "{exercise} needs an id: ```{exercise} %s.NAME", ch->slug);
    return false;
  }
  strbuf contract = {0}, question = {0}, title = {0}, points = {0}, sol = {0}, out = {0};
  bool ok = book_find_exercise(bx, ch, id, &contract);
  if (!ok) {
    char stem[200];
    book_error(bx, ch->md, line, "unknown exercise '%s' (not declared in exercises/%s/%s_ex.h)", id,
               ch->name, book_ex_stem(ch, stem, sizeof stem));
    goto done;
  }
  ok = weave_text(w, cmark_node_get_literal(node), line, true, &question);
  if (!ok) goto done;
  book_rubric(bx, id, &title, &points);
  char anchor[320]; /* "exercise-" and an id of at most 299 characters */
  snprintf(anchor, sizeof anchor, "exercise-%s", id);
  for (char *p = anchor; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') *p = '-';
  sb_printf(&out,
            "<section class=\"exercise\" id=\"%s\">\n<p class=\"exercise-head\">"
            "<strong>Exercise</strong> <code>",
            anchor);
  sb_add_html(&out, id);
  sb_add(&out, "</code>");
  if (title.len) {
    sb_add(&out, " — ");
    sb_add_html(&out, sb_str(&title));
  }
  if (points.len) {
    /* The rubric's "V+D": V for the value checks, D for the domain checks (NaN outside it). */
    char *end = NULL;
    double value = strtod(sb_str(&points), &end), domain = 0.0;
    if (end && *end == '+') domain = strtod(end + 1, NULL);
    double total = value + domain;
    sb_printf(&out, " (%g point%s", total, total == 1.0 ? "" : "s");
    if (domain > 0.0)
      sb_printf(&out, ": %g for the value, %g for NaN outside the domain", value, domain);
    sb_add(&out, ")");
  }
  sb_add(&out, "</p>\n");
  sb_add(&out, sb_str(&question));
  char stem[200];
  sb_printf(&out,
            "<p>Write this function in <code>exercises/%s/%s_ex.c</code>:</p>\n"
            "<pre class=\"signature\"><code class=\"language-c\">",
            ch->name, book_ex_stem(ch, stem, sizeof stem));
  add_signature(&out, sb_str(&contract));
  sb_add(&out, "</code></pre>\n<details class=\"contract\">\n<summary>Its full contract "
               "(units, domain, source)</summary>\n<pre><code class=\"language-c\">");
  sb_add_html(&out, sb_str(&contract));
  sb_add(&out, "</code></pre>\n</details>\n<p class=\"exercise-check\">Check it with "
               "<code>build/scale grade ");
  sb_add_html(&out, id);
  sb_add(&out, "</code>.</p>\n");
  if (bx->opt->solutions) {
    if (book_find_solution(bx, ch, id, &sol)) {
      sb_add(&out, "<details class=\"solution\">\n<summary>Reference solution</summary>\n"
                   "<pre><code class=\"language-c\">");
      sb_add_html(&out, sb_str(&sol));
      sb_add(&out, "</code></pre>\n</details>\n");
    } else if (!w->scan_only) {
      book_warn(bx, ch->md, line, "no reference for '%s' in solutions/%s/%s_ex.c", id, ch->name,
                book_ex_stem(ch, stem, sizeof stem));
    }
  }
  sb_add(&out, "</section>\n");
  replace_with_html(node, sb_str(&out), true);
done:
  sb_free(&contract), sb_free(&question), sb_free(&title), sb_free(&points);
  sb_free(&sol), sb_free(&out);
  return ok;
}

static bool listing_block(weave *w, cmark_node *node, const char *name, int line) {
  strbuf code = {0}, from = {0}, out = {0};
  bool ok = name[0] && book_find_listing(w->bx, w->ch, name, &code, &from);
  if (!ok) {
    book_error(w->bx, w->ch->md, line,
               "unknown listing tag '%s' (no [listing:%s] ... [/listing:%s] markers in "
               "chapters/%s/%s.c, src/ or include/scale/)",
               name, name, name, w->ch->name, w->ch->slug);
  } else {
    sb_add(&out, "<figure class=\"listing\">\n<pre><code class=\"language-c\">");
    sb_add_html(&out, sb_str(&code));
    sb_add(&out, "</code></pre>\n<figcaption>");
    const char *caption = cmark_node_get_literal(node);
    size_t cl = caption ? strlen(caption) : 0;
    while (cl && isspace((unsigned char)caption[cl - 1]))
      cl--;
    if (cl) {
      sb_add_htmln(&out, caption, cl);
      sb_add(&out, " — ");
    } else /* "from gpus.c" alone does not say what the code is for */
      book_warn(w->bx, w->ch->md, line,
                "listing '%s' has no caption (the line after ```{listing} %s says what it shows)",
                name, name);
    sb_add(&out, "from <code>");
    sb_add_html(&out, sb_str(&from));
    sb_add(&out, "</code></figcaption>\n</figure>\n");
    replace_with_html(node, sb_str(&out), true);
  }
  sb_free(&code), sb_free(&from), sb_free(&out);
  return ok;
}

static void unique_id(heading_list *hl, char *id, size_t size);

/* Whether 'text' is a widget state: KEY=VALUE pairs joined by '&', in the plain tokens the
 * module accepts (web/api.h), so the attribute and the URL hash need no escaping. */
static bool widget_state_ok(const char *text) {
  for (const char *p = text; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr(".-_+=&", *p)) return false;
  return true;
}

/* ```{widget} NAME [STATE]: a live figure that web/glue.js and web/widget-NAME.js build in
 * the browser (web/README.md); the block's Markdown (the static figure) is its fallback, shown
 * without script and in print. */
static bool widget_block(weave *w, cmark_node *node, const char *arg, int line) {
  book_ctx *bx = w->bx;
  char name[64] = "", state[256] = "", script[BOOK_PATH_MAX * 2];
  size_t nl = strcspn(arg, " ");
  const char *st = arg + nl;
  while (*st == ' ')
    st++;
  bool ok = nl > 0 && nl < sizeof name && strlen(st) < sizeof state;
  if (ok) {
    memcpy(name, arg, nl), name[nl] = '\0';
    snprintf(state, sizeof state, "%s", st);
    for (const char *p = name; *p; p++)
      if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-') ok = false;
  }
  if (!ok) {
    book_error(bx, w->ch->md, line, "{widget} needs a name of a-z, 0-9, '-': ```{widget} NAME");
    return false;
  }
  snprintf(script, sizeof script, "%s/web/widget-%s.js", bx->root, name);
  if (!file_exists(script)) {
    book_error(bx, w->ch->md, line, "unknown widget '%s' (no web/widget-%s.js)", name, name);
    return false;
  }
  if (!widget_state_ok(state)) {
    book_error(bx, w->ch->md, line,
               "widget state '%s' must be KEY=VALUE pairs joined by '&' (letters, digits, '.', "
               "'-', '_', '+')",
               state);
    return false;
  }
  strbuf fallback = {0}, out = {0};
  ok = weave_text(w, cmark_node_get_literal(node), line, true, &fallback);
  if (ok) {
    char id[300];
    snprintf(id, sizeof id, "widget-%s", name);
    unique_id(&w->heads, id, sizeof id);
    sb_printf(&out, "<div class=\"widget\" id=\"%s\" data-widget=\"%s\" data-state=\"", id, name);
    sb_add_html(&out, state);
    sb_add(&out, "\">\n<div class=\"widget-fallback\">\n");
    sb_add(&out, sb_str(&fallback));
    sb_add(&out, "</div>\n</div>\n");
    replace_with_html(node, sb_str(&out), true);
  }
  sb_free(&fallback), sb_free(&out);
  return ok;
}

static bool directives(weave *w, cmark_node *root, int line_offset) {
  size_t n;
  cmark_node **blocks = collect(root, CMARK_NODE_CODE_BLOCK, &n);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    const char *info = cmark_node_get_fence_info(blocks[i]);
    if (!info || info[0] != '{') continue;
    int line = line_offset + cmark_node_get_start_line(blocks[i]);
    const char *close = strchr(info, '}');
    size_t dl = close ? (size_t)(close - info) + 1 : strlen(info);
    char arg[300];
    const char *a = info + dl;
    while (*a == ' ')
      a++;
    snprintf(arg, sizeof arg, "%s", a);
    for (size_t k = strlen(arg); k && isspace((unsigned char)arg[k - 1]); k--)
      arg[k - 1] = '\0';
    if (dl == 10 && strncmp(info, "{exercise}", 10) == 0)
      ok = exercise_block(w, blocks[i], arg, line) && ok;
    else if (dl == 9 && strncmp(info, "{listing}", 9) == 0)
      ok = listing_block(w, blocks[i], arg, line) && ok;
    else if (dl == 8 && strncmp(info, "{widget}", 8) == 0)
      ok = widget_block(w, blocks[i], arg, line) && ok;
    else if (dl == 8 && strncmp(info, "{answer}", 8) == 0)
      ok = answer_block(w, blocks[i], line) && ok;
    else {
      book_error(w->bx, w->ch->md, line,
                 "unknown directive '%.*s' (known: {answer}, {exercise}, {listing}, {widget})",
                 (int)dl, info);
      ok = false;
    }
  }
  free(blocks);
  return ok;
}

static bool figures(weave *w, cmark_node *root, int line_offset) {
  book_ctx *bx = w->bx;
  book_chapter *ch = w->ch;
  size_t n;
  cmark_node **images = collect(root, CMARK_NODE_IMAGE, &n);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    cmark_node *img = images[i];
    int line = line_offset + cmark_node_get_start_line(img);
    const char *url = cmark_node_get_url(img);
    size_t ul = url ? strlen(url) : 0;
    if (!url || !ul || strstr(url, "://") || url[0] == '/' || strstr(url, "..")) {
      book_error(bx, ch->md, line, "figure '%s' must be a file name beside the chapter",
                 url ? url : "");
      ok = false;
      continue;
    }
    if (ul < 5 || strcmp(url + ul - 4, ".svg") != 0) {
      book_error(bx, ch->md, line, "figure '%s' is not an SVG (no raster figures)", url);
      ok = false;
      continue;
    }
    char built[BOOK_PATH_MAX * 2], beside[BOOK_PATH_MAX * 2], src[BOOK_PATH_MAX];
    snprintf(built, sizeof built, "%s/%s/%s", bx->opt->out_dir, ch->name, url);
    snprintf(beside, sizeof beside, "%s/%s", ch->dir, url);
    snprintf(src, sizeof src, "%s/%s", ch->name, url);
    if (!w->scan_only && !file_exists(built)) {
      char outdir[BOOK_PATH_MAX * 2];
      snprintf(outdir, sizeof outdir, "%s/%s", bx->opt->out_dir, ch->name);
      if (!file_exists(beside) || !make_dirs(outdir) || !copy_file(beside, built)) {
        book_error(bx, ch->md, line,
                   "missing figure '%s' (neither written by the chapter program into %s/ nor "
                   "beside %s.md)",
                   url, outdir, ch->slug);
        ok = false;
        continue;
      }
    }
    strbuf alt = {0}, html = {0};
    plain_text(w, img, &alt);
    if (alt.len == 0) {
      book_error(bx, ch->md, line, "figure '%s' has no alt text: ![what it shows](%s)", url, url);
      ok = false;
      sb_free(&alt);
      continue;
    }
    const char *title = cmark_node_get_title(img);
    cmark_node *para = cmark_node_parent(img);
    bool alone = para && cmark_node_get_type(para) == CMARK_NODE_PARAGRAPH &&
                 cmark_node_first_child(para) == img && cmark_node_next(img) == NULL;
    if (alone) {
      /* A tap opens the figure at full size: on a phone the page shrinks it. */
      sb_add(&html, "<figure>\n<a class=\"full-size\" href=\"");
      sb_add_html(&html, src);
      sb_add(&html, "\"><img src=\"");
      sb_add_html(&html, src);
      sb_add(&html, "\" alt=\"");
      sb_add_html(&html, sb_str(&alt));
      sb_add(&html, "\"></a>\n<figcaption>");
      sb_add_html(&html, title && title[0] ? title : sb_str(&alt));
      sb_add(&html, "</figcaption>\n</figure>\n");
      replace_with_html(para, sb_str(&html), true);
    } else {
      cmark_node_set_url(img, src);
    }
    sb_free(&alt), sb_free(&html);
  }
  free(images);
  return ok;
}

/** Makes id[] unique among the ids given so far: a taken id gets the first free suffix of
 * -2, -3, ... Ids are only ever added, so a suffix found taken stays taken: next_dup lets the
 * search for a base resume where it stopped, and n identical headings cost O(n) lookups in
 * all instead of O(n^2) candidates each compared with every earlier id. */
static void unique_id(heading_list *hl, char *id, size_t size) {
  if (strmap_get(&hl->ids, id)) {
    char base[256];
    snprintf(base, sizeof base, "%s", id);
    size_t *next = strmap_get(&hl->next_dup, base);
    size_t dup = next ? *next : 2;
    for (;; dup++) {
      snprintf(id, size, "%.180s-%zu", base, dup);
      if (!strmap_get(&hl->ids, id)) break;
    }
    strmap_put(&hl->next_dup, base, dup + 1);
  }
  strmap_put(&hl->ids, id, 0);
}

/** Records headings (top level only); nested blocks may not hold any. */
static bool headings(weave *w, cmark_node *root, int line_offset, bool nested) {
  size_t n;
  cmark_node **hs = collect(root, CMARK_NODE_HEADING, &n);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    if (nested) {
      book_error(w->bx, w->ch->md, line_offset + cmark_node_get_start_line(hs[i]),
                 "no headings inside an {exercise} block");
      ok = false;
      continue;
    }
    strbuf text = {0};
    plain_text(w, hs[i], &text);
    heading *h;
    w->heads.v = xgrow(w->heads.v, &w->heads.cap, w->heads.n + 1, sizeof *w->heads.v);
    h = &w->heads.v[w->heads.n++];
    h->level = cmark_node_get_heading_level(hs[i]);
    h->text = xstrdup(sb_str(&text));
    /* id: lowercase letters and digits, other runs -> '-'; duplicates get -2, -3, ... */
    size_t k = 0;
    bool dash = false;
    for (const char *p = h->text; *p && k + 8 < sizeof h->id; p++) {
      if (isalnum((unsigned char)*p)) {
        if (dash && k) h->id[k++] = '-';
        h->id[k++] = (char)tolower((unsigned char)*p);
        dash = false;
      } else {
        dash = true;
      }
    }
    h->id[k] = '\0';
    if (!k) snprintf(h->id, sizeof h->id, "section");
    unique_id(&w->heads, h->id, sizeof h->id);
    if (h->level == 1 && !w->ch->title[0])
      snprintf(w->ch->title, sizeof w->ch->title, "%s", h->text);
    sb_free(&text);
  }
  free(hs);
  return ok;
}

/* The chapter's own blurb for the index, "<!-- summary: ONE SENTENCE -->" at the top level of
 * slug.md (invisible on the page); false when the chapter has none. */
static bool summary_comment(weave *w, cmark_node *root) {
  static const char tag[] = "<!-- summary:";
  for (cmark_node *c = cmark_node_first_child(root); c; c = cmark_node_next(c)) {
    const char *lit =
        cmark_node_get_type(c) == CMARK_NODE_HTML_BLOCK ? cmark_node_get_literal(c) : NULL;
    if (!lit || strncmp(lit, tag, sizeof tag - 1) != 0) continue;
    const char *s = lit + sizeof tag - 1, *end = strstr(s, "-->");
    while (*s == ' ')
      s++;
    size_t n = end ? (size_t)(end - s) : strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
      n--;
    if (n >= sizeof w->ch->summary) n = sizeof w->ch->summary - 1;
    memcpy(w->ch->summary, s, n);
    w->ch->summary[n] = '\0';
    return n > 0;
  }
  return false;
}

static void summary(weave *w, cmark_node *root) {
  if (w->have_summary) return;
  if ((w->have_summary = summary_comment(w, root))) return;
  for (cmark_node *c = cmark_node_first_child(root); c; c = cmark_node_next(c)) {
    if (cmark_node_get_type(c) != CMARK_NODE_PARAGRAPH) continue;
    strbuf text = {0};
    plain_text(w, c, &text);
    const char *s = sb_str(&text);
    size_t cut = strlen(s);
    for (size_t i = 20; i + 1 < cut; i++)
      if ((s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i + 1] == ' ') {
        cut = i + 1;
        break;
      }
    if (cut >= sizeof w->ch->summary) cut = sizeof w->ch->summary - 1;
    memcpy(w->ch->summary, s, cut);
    w->ch->summary[cut] = '\0';
    sb_free(&text);
    w->have_summary = true;
    return;
  }
}

static bool weave_text(weave *w, const char *text, int line_offset, bool nested, strbuf *html) {
  cmark_gfm_core_extensions_ensure_registered();
  cmark_parser *parser = cmark_parser_new(CMARK_OPT_UNSAFE);
  static const char *const exts[] = {"table", "strikethrough"};
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
    cmark_syntax_extension *e = cmark_find_syntax_extension(exts[i]);
    if (e) cmark_parser_attach_syntax_extension(parser, e);
  }
  cmark_parser_feed(parser, text, strlen(text));
  cmark_node *doc = cmark_parser_finish(parser);
  bool ok = no_active_content(w, doc, line_offset);
  ok = cite_values(w, doc, line_offset) && ok;
  ok = directives(w, doc, line_offset) && ok;
  ok = figures(w, doc, line_offset) && ok;
  ok = headings(w, doc, line_offset, nested) && ok;
  if (!nested) summary(w, doc);
  char *out =
      ok ? cmark_render_html(doc, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser))
         : NULL;
  cmark_node_free(doc); /* before the copy: a long chapter's tree is most of the memory */
  cmark_parser_free(parser);
  if (out) {
    sb_add(html, out);
    cmark_get_default_mem_allocator()->free(out);
  }
  return ok;
}

/* ---- 3. post-processing --------------------------------------------------------------------- */

/** Gives the k-th <hN> of html the id of heading k and a self-link. */
static void anchor_headings(const weave *w, const char *html, strbuf *out) {
  size_t k = 0;
  bool unclosed[7] = {false}; /* no </hN> after some point: none after any later one either */
  for (const char *p = html; *p;) {
    const char *tag = k < w->heads.n ? str_find(p, "<h") : NULL;
    if (!tag) {
      sb_add(out, p);
      return;
    }
    sb_addn(out, p, (size_t)(tag - p));
    p = tag;
    if (p[2] >= '1' && p[2] <= '6' && p[3] == '>') {
      const heading *h = &w->heads.v[k++];
      char close[6] = {'<', '/', 'h', p[2], '>', '\0'};
      const char *end = unclosed[p[2] - '0'] ? NULL : str_find(p + 4, close);
      if (!end) unclosed[p[2] - '0'] = true;
      if (end) {
        sb_printf(out, "<h%c id=\"%s\">", p[2], h->id);
        sb_addn(out, p + 4, (size_t)(end - (p + 4)));
        sb_printf(out,
                  " <a class=\"anchor\" href=\"#%s\" aria-label=\"Link to this section\">"
                  "#</a></h%c>",
                  h->id, p[2]);
        p = end + 5;
        continue;
      }
    }
    sb_addn(out, p, 1);
    p++;
  }
}

bool book_weave(book_ctx *bx, size_t index, bool scan_only, strbuf *article, strbuf *toc) {
  book_chapter *ch = &bx->chapters[index];
  weave w = {.bx = bx, .ch = ch, .scan_only = scan_only};
  size_t len = 0;
  char *text = read_file(ch->md, &len);
  if (!text) {
    book_error(bx, ch->md, 0, "cannot read the chapter text");
    return false;
  }
  if (!book_check_text(bx, ch->md, text, len)) {
    free(text);
    return false;
  }
  ch->title[0] = '\0';
  ch->summary[0] = '\0';
  for (size_t i = 0; i < ch->n_values; i++)
    ch->values[i].cited = false;
  strbuf prot = {0}, html = {0}, anchored = {0};
  bool ok = tables_ok(&w, text) && protect_math(&w, text, &prot) &&
            weave_text(&w, sb_str(&prot), 0, false, &html);
  sb_free(&prot); /* each stage's input is freed once it is used: a long chapter needs less */
  free(text);
  text = NULL;
  if (!ch->title[0]) snprintf(ch->title, sizeof ch->title, "%s", ch->name);
  if (ok && !scan_only) {
    anchor_headings(&w, sb_str(&html), &anchored);
    sb_free(&html);
    if (bx->katex) katex_batch(&w);
    ok = substitute_math(&w, sb_str(&anchored), article);
    /* Contents: the h2 and h3 headings. */
    bool any = false;
    for (size_t i = 0; i < w.heads.n; i++) {
      const heading *h = &w.heads.v[i];
      if (h->level < 2 || h->level > 3) continue;
      if (!any) sb_add(toc, "<ul>\n");
      any = true;
      sb_printf(toc, "<li class=\"toc-h%d\"><a href=\"#%s\">", h->level, h->id);
      sb_add_html(toc, h->text);
      sb_add(toc, "</a></li>\n");
    }
    if (any) sb_add(toc, "</ul>\n");
    check_answers_hidden(bx, ch);
    for (size_t i = 0; i < ch->n_values; i++)
      if (!ch->values[i].cited)
        book_warn(bx, ch->md, 0, "value '%s' is emitted by the chapter program but never cited",
                  ch->values[i].key);
  }
  for (size_t i = 0; i < w.math.n; i++)
    free(w.math.v[i].tex), free(w.math.v[i].html);
  free(w.math.v);
  for (size_t i = 0; i < w.heads.n; i++)
    free(w.heads.v[i].text);
  free(w.heads.v);
  strmap_free(&w.heads.ids);
  strmap_free(&w.heads.next_dup);
  sb_free(&prot), sb_free(&html), sb_free(&anchored);
  free(text);
  return ok;
}
