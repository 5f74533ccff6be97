/* site.c — the site around the chapters: discovery, values, pages, index, hardware page,
 * glossary and style sheet (book.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "book_internal.h"
#include "scale.h"

bool book_available(void) { return true; }

/* ---- chapters and their values -------------------------------------------------------------- */

static int cmp_chapter(const void *a, const void *b) {
  return strcmp(((const book_chapter *)a)->name, ((const book_chapter *)b)->name);
}

/** Finds chapters_dir/NN-slug/ folders holding slug.md, in book order. */
static bool discover(book_ctx *bx) {
  const char *dir = bx->opt->chapters_dir;
  DIR *d = opendir(dir);
  if (!d) {
    book_error(bx, dir, 0, "cannot read the chapters folder");
    return false;
  }
  struct dirent *e;
  size_t cap = 0;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    if (!(isdigit((unsigned char)n[0]) && isdigit((unsigned char)n[1]) && n[2] == '-' && n[3]))
      continue;
    if (strlen(n) >= 200) continue;
    book_chapter ch;
    memset(&ch, 0, sizeof ch);
    snprintf(ch.name, sizeof ch.name, "%s", n);
    snprintf(ch.slug, sizeof ch.slug, "%s", n + 3);
    snprintf(ch.dir, sizeof ch.dir, "%s/%s", dir, n);
    if (!dir_exists(ch.dir)) continue;
    if (snprintf(ch.md, sizeof ch.md, "%s/%s.md", ch.dir, ch.slug) >= (int)sizeof ch.md ||
        !file_exists(ch.md)) continue; /* a chapter still being written */
    bx->chapters = xgrow(bx->chapters, &cap, bx->n_chapters + 1, sizeof *bx->chapters);
    bx->chapters[bx->n_chapters++] = ch;
  }
  closedir(d);
  if (bx->n_chapters)
    qsort(bx->chapters, bx->n_chapters, sizeof *bx->chapters, cmp_chapter);
  return true;
}

/** Parses value lines "key\tvalue\tunit\tdisplay" of 'text' (from 'file') into ch. */
static bool parse_values(book_ctx *bx, book_chapter *ch, const char *file, char *text) {
  bool ok = true;
  int line = 0;
  for (char *p = text; p && *p;) {
    char *eol = strchr(p, '\n');
    if (eol) *eol = '\0';
    line++;
    if (*p) {
      char *f[4] = {p, NULL, NULL, NULL};
      int nf = 1;
      for (char *q = p; *q && nf < 4; q++)
        if (*q == '\t') *q = '\0', f[nf++] = q + 1;
      char *end = NULL;
      double v = nf == 4 ? strtod(f[1], &end) : 0.0;
      if (nf != 4 || !f[0][0] || end == f[1] || *end || !isfinite(v)) {
        book_error(bx, file, line, "malformed value line (want key TAB value TAB unit TAB "
                                   "display, with a finite value)");
        ok = false;
      } else if (book_find_value(ch, f[0])) {
        book_error(bx, file, line, "duplicate value key '%s'", f[0]);
        ok = false;
      } else {
        ch->values = xgrow(ch->values, &ch->cap_values, ch->n_values + 1, sizeof *ch->values);
        strmap_put(&ch->value_index, f[0], ch->n_values);
        ch->values[ch->n_values++] = (book_value){.key = xstrdup(f[0]),
                                                  .value = v,
                                                  .unit = xstrdup(f[2]),
                                                  .display = xstrdup(f[3])};
      }
    }
    p = eol ? eol + 1 : NULL;
  }
  return ok;
}

/** Runs 'prog' --values --figures OUT/NN-slug and parses what it prints. */
static bool run_program(book_ctx *bx, book_chapter *ch, const char *prog) {
  char figdir[BOOK_PATH_MAX * 2];
  snprintf(figdir, sizeof figdir, "%s/%s", bx->opt->out_dir, ch->name);
  if (!make_dirs(figdir)) {
    book_error(bx, figdir, 0, "cannot create the figures folder");
    return false;
  }
  strbuf cmd = {0}, out = {0};
  sb_add_shell_quoted(&cmd, prog);
  sb_add(&cmd, " --values --figures ");
  sb_add_shell_quoted(&cmd, figdir);
  fflush(NULL);
  FILE *p = popen(sb_str(&cmd), "r");
  bool ok = p != NULL;
  if (p) {
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) sb_addn(&out, chunk, n);
    int status = pclose(p);
    ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (!ok)
    book_error(bx, prog, 0, "the chapter program failed (run it with --values to see why)");
  else {
    sb_addn(&out, "", 0);
    ok = book_check_text(bx, prog, out.data, out.len) && parse_values(bx, ch, prog, out.data);
  }
  sb_free(&cmd), sb_free(&out);
  return ok;
}

static bool load_values(book_ctx *bx, book_chapter *ch) {
  char path[BOOK_PATH_MAX * 2];
  const book_options *opt = bx->opt;
  if (opt->values_dir) {
    snprintf(path, sizeof path, "%s/%s.tsv", opt->values_dir, ch->name);
    if (!file_exists(path)) return true;
  } else {
    char ident[256];
    snprintf(ident, sizeof ident, "%s", ch->name);
    for (char *q = ident; *q; q++)
      if (*q == '-') *q = '_';
    if (opt->bin_dir) {
      snprintf(path, sizeof path, "%s/chapter_%s", opt->bin_dir, ident);
      if (access(path, X_OK) == 0) {
        ch->has_values = true;
        return run_program(bx, ch, path);
      }
    }
    snprintf(path, sizeof path, "%s/%s.values", ch->dir, ch->slug);
    if (!file_exists(path)) return true;
  }
  size_t len = 0;
  char *text = read_file(path, &len);
  if (!text) {
    book_error(bx, path, 0, "cannot read the values");
    return false;
  }
  ch->has_values = true;
  bool ok = book_check_text(bx, path, text, len) && parse_values(bx, ch, path, text);
  free(text);
  return ok;
}

static void free_chapters(book_ctx *bx) {
  for (size_t i = 0; i < bx->n_chapters; i++) {
    book_chapter *ch = &bx->chapters[i];
    for (size_t j = 0; j < ch->n_values; j++) {
      free(ch->values[j].key);
      free(ch->values[j].unit);
      free(ch->values[j].display);
    }
    free(ch->values);
    strmap_free(&ch->value_index);
  }
  free(bx->chapters);
}

/** The first "# " heading of a chapter, read straight from its text (for neighbour links).
 * Reads only up to that line: a long neighbour is not read whole twice per page. */
static void quick_title(const book_chapter *ch, char *out, size_t size) {
  snprintf(out, size, "%s", ch->name);
  FILE *f = fopen(ch->md, "rb");
  if (!f) return;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0) {
    if (memchr(line, '\0', (size_t)n)) break; /* the page itself reports it */
    if (line[0] == '#' && line[1] == ' ') {
      line[strcspn(line, "\n")] = '\0';
      snprintf(out, size, "%s", line + 2);
      break;
    }
  }
  free(line);
  fclose(f);
}

/* ---- page frame ----------------------------------------------------------------------------- */

#define SITE_NAME "How to Scale Your Model — the executable companion"

static void page_head(book_ctx *bx, strbuf *out, const char *title) {
  sb_add(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"" BOOK_CSP "\">\n<title>");
  sb_add_html(out, title);
  sb_add(out, " · scale</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n");
  if (bx->katex) sb_add(out, "<link rel=\"stylesheet\" href=\"katex/katex.min.css\">\n");
  sb_add(out, "</head>\n<body>\n<header class=\"site\"><a href=\"index.html\">" SITE_NAME
              "</a></header>\n");
}

static void page_foot(strbuf *out, const char *source) {
  sb_add(out, "<footer>Generated by <code>scale book</code> " SCALE_VERSION_STRING);
  if (source) {
    sb_add(out, " from <code>");
    sb_add_html(out, source);
    sb_add(out, "</code>");
  }
  sb_add(out, ". Companion to the free online book <em>How to Scale Your Model</em>.</footer>\n"
              "</body>\n</html>\n");
}

static void pager(book_ctx *bx, size_t i, strbuf *out) {
  char title[512];
  sb_add(out, "<nav class=\"pager\" aria-label=\"Chapters\">\n");
  if (i > 0) {
    quick_title(&bx->chapters[i - 1], title, sizeof title);
    sb_printf(out, "<a class=\"prev\" rel=\"prev\" href=\"%s.html\">← ", bx->chapters[i - 1].name);
    sb_add_html(out, title);
    sb_add(out, "</a>\n");
  }
  sb_add(out, "<a class=\"up\" href=\"index.html\">Contents</a>\n");
  if (i + 1 < bx->n_chapters) {
    quick_title(&bx->chapters[i + 1], title, sizeof title);
    sb_printf(out, "<a class=\"next\" rel=\"next\" href=\"%s.html\">", bx->chapters[i + 1].name);
    sb_add_html(out, title);
    sb_add(out, " →</a>\n");
  }
  sb_add(out, "</nav>\n");
}

static bool write_page(book_ctx *bx, const char *name, const strbuf *page) {
  char path[BOOK_PATH_MAX * 2];
  snprintf(path, sizeof path, "%s/%s", bx->opt->out_dir, name);
  if (!write_file_atomic(path, sb_str(page), page->len)) {
    book_error(bx, path, 0, "cannot write the page");
    return false;
  }
  return true;
}

/* ---- live widgets (web/) --------------------------------------------------------------------- */

/** The built module's script, web_dir/scale-wasm.js, when there is one. */
static bool web_module(const book_ctx *bx, char *path, size_t size) {
  if (!bx->opt->web_dir) return false;
  snprintf(path, size, "%s/scale-wasm.js", bx->opt->web_dir);
  return file_exists(path);
}

/** The scripts of the widgets an article holds (div.widget data-widget="NAME"): the module,
 * the glue, one widget-NAME.js each. None without a module: the static figures stay. */
static void widget_scripts(book_ctx *bx, const char *article, strbuf *page) {
  static const char attr[] = "<div class=\"widget\" id=\"";
  char module[BOOK_PATH_MAX * 2];
  const char *p = str_find(article, attr);
  if (!p || !web_module(bx, module, sizeof module)) return;
  sb_add(page, "<script src=\"web/scale-wasm.js\"></script>\n"
               "<script src=\"web/glue.js\"></script>\n");
  strmap seen = {0};
  for (; p; p = str_find(p + 1, attr)) {
    const char *name = str_find(p, "data-widget=\"");
    if (!name) break;
    name += 13;
    char stem[64];
    size_t n = strcspn(name, "\"");
    snprintf(stem, sizeof stem, "%.*s", (int)(n < sizeof stem ? n : sizeof stem - 1), name);
    if (strmap_get(&seen, stem)) continue;
    strmap_put(&seen, stem, 1);
    sb_printf(page, "<script src=\"web/widget-%s.js\"></script>\n", stem);
  }
  strmap_free(&seen);
}

/** Copies the module and the .js and .css files of the source tree's web/ into OUT/web/
 * (nothing when there is no module: the pages then load no script). */
static bool copy_web_assets(book_ctx *bx) {
  char module[BOOK_PATH_MAX * 2], dir[BOOK_PATH_MAX * 2], to[BOOK_PATH_MAX * 3];
  if (!web_module(bx, module, sizeof module)) return true;
  snprintf(to, sizeof to, "%s/web", bx->opt->out_dir);
  bool ok = make_dirs(to);
  snprintf(to, sizeof to, "%s/web/scale-wasm.js", bx->opt->out_dir);
  ok = ok && copy_file(module, to);
  snprintf(dir, sizeof dir, "%s/web", bx->root);
  DIR *d = opendir(dir);
  struct dirent *e;
  while (ok && d && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    bool asset = (n > 3 && strcmp(e->d_name + n - 3, ".js") == 0) ||
                 (n > 4 && strcmp(e->d_name + n - 4, ".css") == 0);
    if (!asset || e->d_name[0] == '.') continue;
    char from[BOOK_PATH_MAX * 3];
    snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
    snprintf(to, sizeof to, "%s/web/%s", bx->opt->out_dir, e->d_name);
    ok = copy_file(from, to);
  }
  if (d) closedir(d);
  if (!ok) book_error(bx, to, 0, "cannot copy the widgets' scripts");
  return ok;
}

static bool render_chapter(book_ctx *bx, size_t i) {
  book_chapter *ch = &bx->chapters[i];
  if (!load_values(bx, ch)) return false;
  strbuf article = {0}, toc = {0}, page = {0};
  bool ok = book_weave(bx, i, false, &article, &toc);
  if (ok) {
    page_head(bx, &page, ch->title);
    pager(bx, i, &page);
    sb_add(&page, "<div class=\"layout\">\n");
    if (toc.len) {
      sb_add(&page, "<nav class=\"toc\" aria-label=\"On this page\">\n<p class=\"toc-title\">"
                    "On this page</p>\n");
      sb_add(&page, sb_str(&toc));
      sb_add(&page, "</nav>\n");
    }
    sb_add(&page, "<main>\n");
    sb_add(&page, sb_str(&article));
    sb_add(&page, "</main>\n</div>\n");
    pager(bx, i, &page);
    widget_scripts(bx, sb_str(&article), &page);
    sb_free(&article);
    char source[600];
    snprintf(source, sizeof source, "chapters/%s/%s.md", ch->name, ch->slug);
    page_foot(&page, source);
    char name[300];
    snprintf(name, sizeof name, "%s.html", ch->name);
    ok = write_page(bx, name, &page);
  }
  sb_free(&article), sb_free(&toc), sb_free(&page);
  return ok;
}

/* ---- index, hardware, glossary, style ------------------------------------------------------- */

static bool render_index(book_ctx *bx) {
  strbuf page = {0};
  page_head(bx, &page, "Contents");
  sb_add(&page, "<main>\n<h1>" SITE_NAME "</h1>\n"
                "<p>Every number on these pages is computed by a small C program on "
                "<code>libscale</code> when the site is built, so the text and the code cannot "
                "disagree. Each chapter ends with exercises you can check with "
                "<code>scale grade</code>.</p>\n<h2>Chapters</h2>\n<ol class=\"chapters\">\n");
  for (size_t i = 0; i < bx->n_chapters; i++) {
    const book_chapter *ch = &bx->chapters[i];
    sb_printf(&page, "<li value=\"%d\"><a href=\"%s.html\">", atoi(ch->name), ch->name);
    sb_add_html(&page, ch->title);
    sb_add(&page, "</a>");
    if (ch->summary[0]) {
      sb_add(&page, "<br><span class=\"summary\">");
      sb_add_html(&page, ch->summary);
      sb_add(&page, "</span>");
    }
    sb_add(&page, "</li>\n");
  }
  sb_add(&page, "</ol>\n<h2>Reference</h2>\n<ul>\n"
                "<li><a href=\"hardware.html\">Hardware</a>: every chip and system the chapters "
                "use, with derived ratios</li>\n"
                "<li><a href=\"glossary.html\">Glossary</a>: the book's symbols</li>\n</ul>\n"
                "</main>\n");
  page_foot(&page, NULL);
  bool ok = write_page(bx, "index.html", &page);
  sb_free(&page);
  return ok;
}

static void cell(strbuf *page, double v, const char *unit, scale_fmt style) {
  char buf[96];
  sb_add(page, "<td>");
  sb_add_html(page, isfinite(v) ? scale_format(buf, sizeof buf, v, unit, style) : "—");
  sb_add(page, "</td>");
}

static bool render_hardware(book_ctx *bx) {
  enum { CAP = 128 };
  static char names[CAP][SCALE_NAME_MAX];
  int n = scale_data_list("hardware", names, CAP);
  strbuf page = {0};
  page_head(bx, &page, "Hardware");
  sb_add(&page, "<main>\n<h1>Hardware</h1>\n<p>The chips and systems of <code>hardware/</code>, "
                "as the chapters see them. Rates are dense peaks per chip; bandwidths are "
                "one-way. The critical intensities (FLOP/byte) are derived here "
                "(<code>hardware.h</code>), not stored: a kernel whose arithmetic intensity is "
                "below a ratio is bound by that memory or link.</p>\n"
                "<div class=\"wide\"><table>\n<thead><tr>"
                "<th>name</th><th>chips</th><th>bf16 peak</th><th>int8 peak</th>"
                "<th>HBM</th><th>HBM bandwidth</th><th>C / W<sub>hbm</sub> (bf16)</th>"
                "<th>C / W<sub>ici</sub></th><th>C / W<sub>nvlink</sub></th>"
                "<th>C / W<sub>dcn</sub></th><th>price per chip-hour</th></tr></thead>\n"
                "<tbody>\n");
  bool ok = n >= 0;
  if (!ok) book_error(bx, scale_data_dir(), 0, "cannot list hardware/");
  for (int i = 0; i < n && i < CAP; i++) {
    scale_chip chip;
    scale_diag diag = {0};
    if (scale_chip_load(names[i], &chip, &diag) != SCALE_OK) {
      char msg[600];
      book_error(bx, scale_diag_format(&diag, msg, sizeof msg), 0, "hardware file rejected");
      ok = false;
      continue;
    }
    sb_add(&page, "<tr><th scope=\"row\">");
    sb_add_html(&page, chip.display_name);
    sb_add(&page, "<br><code>");
    sb_add_html(&page, chip.name);
    sb_add(&page, "</code></th>");
    cell(&page, chip.n_chips, "", SCALE_FMT_PLAIN);
    cell(&page, scale_chip_flops_per_s(&chip, SCALE_DTYPE_BF16), "FLOP/s", SCALE_FMT_SI);
    cell(&page, scale_chip_flops_per_s(&chip, SCALE_DTYPE_INT8), "OP/s", SCALE_FMT_SI);
    cell(&page, chip.hbm_bytes, "B", SCALE_FMT_SI);
    cell(&page, chip.hbm_bytes_per_s, "B/s", SCALE_FMT_SI);
    /* intensities in FLOP/byte, as the page's text says: the unit once, not in every cell */
    cell(&page, scale_chip_hbm_intensity(&chip, SCALE_DTYPE_BF16), "", SCALE_FMT_PLAIN);
    cell(&page, scale_chip_ici_intensity(&chip, SCALE_DTYPE_BF16), "", SCALE_FMT_PLAIN);
    cell(&page, scale_chip_nvlink_intensity(&chip, SCALE_DTYPE_BF16), "", SCALE_FMT_PLAIN);
    cell(&page, scale_chip_dcn_intensity(&chip, SCALE_DTYPE_BF16), "", SCALE_FMT_PLAIN);
    cell(&page, chip.usd_per_hour, "USD", SCALE_FMT_USD);
    sb_add(&page, "</tr>\n");
  }
  sb_add(&page, "</tbody>\n</table></div>\n</main>\n");
  page_foot(&page, "hardware/*.ini");
  ok = write_page(bx, "hardware.html", &page) && ok;
  sb_free(&page);
  return ok;
}

/** The book's letters (ch. 1, 3, 4 and 5 use them throughout). */
static const char *const glossary[][2] = {
    {"B", "batch: tokens processed together (sequences times their length, in training)"},
    {"T", "sequence length of the queries"},
    {"S", "sequence length of the keys and values (the context seen by attention)"},
    {"D", "model width: the size of the residual stream"},
    {"F", "hidden width of the feed-forward (MLP) block"},
    {"L", "number of layers"},
    {"N", "number of query heads"},
    {"K", "number of key/value heads (K = N: multi-head; K = 1: multi-query; between: "
          "grouped-query)"},
    {"H", "width of one attention head"},
    {"V", "vocabulary size"},
    {"E", "number of experts in a mixture-of-experts layer"},
    {"k", "experts each token is routed to"},
    {"C", "peak compute rate of one chip [FLOP/s]"},
    {"W", "a bandwidth [bytes/s]: W_hbm (memory), W_ici (chip-to-chip links), W_dcn (between "
          "pods)"},
    {"C / W", "critical (arithmetic) intensity: FLOPs per byte a computation needs to stay "
              "compute-bound"},
    {"T_math", "time to do the arithmetic at peak rate: FLOPs / C"},
    {"T_comms", "time to move the bytes: bytes / W"},
    {"X, Y, Z", "axes of the device mesh an array is sharded over"},
    {"M_X", "number of devices along mesh axis X"},
    {"A[I_X, J]", "sharding notation: dimension I of A is split over mesh axis X, J is "
                  "replicated"},
};

static bool render_glossary(book_ctx *bx) {
  strbuf page = {0};
  page_head(bx, &page, "Glossary");
  sb_add(&page, "<main>\n<h1>Glossary</h1>\n<p>The letters the book uses for sizes, rates and "
                "mesh axes. Code uses the same letters in lower case where it can "
                "(<code>b</code>, <code>d</code>, <code>f</code>) and SI units everywhere.</p>\n"
                "<table>\n<thead><tr><th>symbol</th><th>meaning</th></tr></thead>\n<tbody>\n");
  for (size_t i = 0; i < sizeof glossary / sizeof glossary[0]; i++) {
    sb_add(&page, "<tr><th scope=\"row\"><code>");
    sb_add_html(&page, glossary[i][0]);
    sb_add(&page, "</code></th><td>");
    sb_add_html(&page, glossary[i][1]);
    sb_add(&page, "</td></tr>\n");
  }
  sb_add(&page, "</tbody>\n</table>\n</main>\n");
  page_foot(&page, NULL);
  bool ok = write_page(bx, "glossary.html", &page);
  sb_free(&page);
  return ok;
}

static const char style_css[] =
    "/* style.css: one small sheet for screens, phones and print; no web fonts. */\n"
    ":root{--fg:#1a1a1a;--muted:#5a5a5a;--accent:#1f5fa8;--rule:#d9d9d9;--bg:#fff;"
    "--code:#f4f4f4}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0 auto;max-width:84rem;padding:0 1rem;color:var(--fg);background:var(--bg);"
    "font:1.0625rem/1.6 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}\n"
    "header.site{padding:.75rem 0;border-bottom:1px solid var(--rule);font-weight:600}\n"
    "header.site a{color:var(--fg);text-decoration:none}\n"
    "a{color:var(--accent)}\n"
    ".layout{display:flex;gap:2rem;align-items:flex-start}\n"
    /* Tables, listings and figures get a wide column; prose keeps a readable line. Pages
     * without a table of contents (index, hardware, glossary) use the whole width. */
    "main{flex:1;min-width:0;max-width:64rem}\n"
    "body>main{max-width:none}\n"
    "main p,main li,main h1,main h2,main h3,main h4{max-width:46rem}\n"
    "nav.toc{position:sticky;top:1rem;flex:0 0 14rem;font-size:.9rem;margin-top:1.5rem}\n"
    "nav.toc ul{list-style:none;padding:0;margin:0}\n"
    "nav.toc li.toc-h3{padding-left:1rem}\n"
    ".toc-title{font-weight:600;margin:0 0 .25rem}\n"
    "nav.pager{display:flex;justify-content:space-between;gap:1rem;padding:.75rem 0;"
    "font-size:.95rem}\n"
    "h1,h2,h3{line-height:1.25}\n"
    "a.anchor{visibility:hidden;text-decoration:none;color:var(--muted);font-weight:400}\n"
    "h1:hover a.anchor,h2:hover a.anchor,h3:hover a.anchor,h4:hover a.anchor{visibility:visible}\n"
    /* Without hover (a phone) the hidden anchor would still push a heading onto a new line. */
    "@media (hover:none){a.anchor{display:none}}\n"
    "code,pre{font-family:ui-monospace,\"DejaVu Sans Mono\",Menlo,Consolas,monospace;"
    "font-size:.9em}\n"
    "code{background:var(--code);padding:.05em .25em;border-radius:3px;"
    "overflow-wrap:anywhere}\n"
    "pre{background:var(--code);padding:.75rem;overflow-x:auto;border-radius:4px}\n"
    "pre code{padding:0;background:none}\n"
    /* A wide table scrolls inside itself instead of widening the page (on a phone). */
    "table{border-collapse:collapse;margin:1rem 0;font-size:.95rem;display:block;"
    "max-width:100%;overflow-x:auto}\n"
    "th,td{border:1px solid var(--rule);padding:.3rem .6rem;text-align:left;vertical-align:top}\n"
    "thead th{background:var(--code)}\n"
    ".wide{overflow-x:auto}\n"
    /* An identifier or a number with its unit never breaks inside; the table scrolls. */
    "th code,td code,.wide td{white-space:nowrap;overflow-wrap:normal}\n"
    "figure{margin:1.5rem 0}\n"
    "figure img{max-width:100%;height:auto;display:block}\n"
    /* On a phone a figure keeps its drawn size (its text at 9-12 px) and scrolls sideways
     * inside its own box, as wide tables do; a tap opens it alone. */
    "@media (max-width:40rem){figure{overflow-x:auto}figure img{max-width:none;"
    "width:max(100%,40rem)}}\n"
    "figcaption{color:var(--muted);font-size:.9rem;margin-top:.4rem}\n"
    ".value{font-variant-numeric:tabular-nums;border-bottom:1px dotted var(--muted);"
    "white-space:nowrap}\n"
    /* A text value (a reason, a layout) is a phrase: it wraps like the prose around it. */
    ".value.text{white-space:normal}\n"
    "code.math{background:none;font-style:italic}\n"
    ".math-display{display:block;text-align:center;margin:1rem 0;overflow-x:auto}\n"
    /* KaTeX hides its MathML copy with position:absolute; keep it inside the formula's box,
     * or a wide display formula widens the whole page on a phone. */
    ".math,.math-display{position:relative}\n"
    /* A contract's long lines wrap inside its box instead of being cut. */
    "section.exercise pre{white-space:break-spaces;overflow-wrap:anywhere}\n"
    "section.exercise{border-left:4px solid var(--accent);padding:.25rem 1rem;margin:1.5rem 0;"
    "background:#f7f9fc}\n"
    ".exercise-head{margin-top:.5rem}\n"
    "details.solution summary,details.contract summary,details.answer summary{cursor:pointer;"
    "color:var(--accent)}\n"
    "details.answer{border-left:4px solid var(--rule);padding:.25rem 1rem;margin:1rem 0}\n"
    ".summary{color:var(--muted)}\n"
    "footer{border-top:1px solid var(--rule);margin-top:2rem;padding:1rem 0;color:var(--muted);"
    "font-size:.85rem}\n"
    "@media (max-width:50rem){.layout{display:block}nav.toc{position:static}"
    "body{font-size:1rem}}\n"
    "@media print{header.site,nav.pager,nav.toc,a.anchor{display:none}"
    "body{max-width:none;font-size:11pt}a{color:inherit;text-decoration:none}"
    "table{display:table}pre,figure,table,section.exercise{break-inside:avoid}"
    "details.solution,details.answer{display:block}}\n";

static bool write_style(book_ctx *bx) {
  strbuf css = {0};
  sb_add(&css, style_css);
  bool ok = write_page(bx, "style.css", &css);
  sb_free(&css);
  return ok;
}

/** Copies KaTeX's style sheet and fonts next to the pages (best effort: math still renders
 * as HTML without them, only less prettily). */
static void copy_katex_assets(book_ctx *bx) {
  static const char *const roots[] = {"/usr/share/javascript/katex",
                                      "/usr/share/nodejs/katex/dist"};
  for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
    char css[BOOK_PATH_MAX], to[BOOK_PATH_MAX * 2], fonts[BOOK_PATH_MAX];
    snprintf(css, sizeof css, "%s/katex.min.css", roots[r]);
    if (!file_exists(css)) continue;
    snprintf(to, sizeof to, "%s/katex/fonts", bx->opt->out_dir);
    make_dirs(to);
    snprintf(to, sizeof to, "%s/katex/katex.min.css", bx->opt->out_dir);
    copy_file(css, to);
    snprintf(fonts, sizeof fonts, "%s/fonts", roots[r]);
    DIR *d = opendir(fonts);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char from[BOOK_PATH_MAX * 2];
      snprintf(from, sizeof from, "%s/%s", fonts, e->d_name);
      snprintf(to, sizeof to, "%s/katex/fonts/%s", bx->opt->out_dir, e->d_name);
      copy_file(from, to);
    }
    if (d) closedir(d);
    return;
  }
}

/** Whether 'cmd' renders a trivial formula (a broken install must not fail every page). */
static bool katex_works(const char *cmd) {
  strbuf sh = {0};
  sb_add(&sh, "echo x | ");
  sb_add_shell_quoted(&sh, cmd);
  sb_add(&sh, " >/dev/null 2>&1");
  int rc = system(sb_str(&sh));
  sb_free(&sh);
  return rc == 0;
}

/** The katex command: $SCALE_KATEX ("none" or "" disables), else `katex` on PATH; NULL when
 * there is none or it does not run, even with /usr/share/nodejs on NODE_PATH (then a note
 * says so and math is shown as TeX). */
static const char *find_katex(FILE *err) {
  const char *env = getenv("SCALE_KATEX");
  const char *cmd = NULL;
  static char found[BOOK_PATH_MAX];
  if (env) {
    if (!env[0] || strcmp(env, "none") == 0) return NULL;
    cmd = env;
  } else {
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p && !cmd;) {
      const char *colon = strchr(p, ':');
      size_t n = colon ? (size_t)(colon - p) : strlen(p);
      snprintf(found, sizeof found, "%.*s/katex", (int)n, p);
      if (n && access(found, X_OK) == 0) cmd = found;
      p += n + (colon ? 1 : 0);
    }
  }
  if (!cmd) return NULL;
  if (katex_works(cmd)) return cmd;
  /* Debian's katex script loads its modules (commander) from /usr/share/nodejs, which Debian's
   * own node searches; another node (nodesource's, say) does not. Try once more with that
   * folder on NODE_PATH, and keep it there (for the renderings to come) only if that works. */
  static const char debian_modules[] = "/usr/share/nodejs";
  const char *node_path = getenv("NODE_PATH");
  if (dir_exists(debian_modules) && !(node_path && strstr(node_path, debian_modules))) {
    char *old = node_path ? xstrdup(node_path) : NULL;
    strbuf np = {0};
    if (old && old[0]) sb_printf(&np, "%s:", old);
    sb_add(&np, debian_modules);
    setenv("NODE_PATH", sb_str(&np), 1);
    sb_free(&np);
    bool works = katex_works(cmd);
    if (!works) {
      if (old)
        setenv("NODE_PATH", old, 1);
      else
        unsetenv("NODE_PATH");
    }
    free(old);
    if (works) return cmd;
  }
  fprintf(err, "scale: note: '%s' does not run, so math is shown as TeX (set SCALE_KATEX to a "
               "working katex command, or to none)\n",
          cmd);
  return NULL;
}

/* ---- driver --------------------------------------------------------------------------------- */

int book_render(const book_options *opt, char *path, size_t size) {
  book_ctx bx = {.opt = opt, .err = opt->err ? opt->err : stderr};
  if (size) path[0] = '\0';
  if (!opt->chapters_dir || !opt->out_dir) {
    book_error(&bx, "scale book", 0, "no chapters folder or output folder given");
    return 1;
  }
  snprintf(bx.root, sizeof bx.root, "%s/..", opt->chapters_dir);
  bx.katex = find_katex(bx.err);
  bool full = !opt->only_chapter && !opt->site_only;
  char index[BOOK_PATH_MAX * 2];
  snprintf(index, sizeof index, "%s/index.html", opt->out_dir);
  if (full) remove(index); /* a failed build must not look complete */
  if (!make_dirs(opt->out_dir)) {
    book_error(&bx, opt->out_dir, 0, "cannot create the output folder");
    return 1;
  }
  bool ok = discover(&bx) && copy_web_assets(&bx);
  bool found = !opt->only_chapter;
  for (size_t i = 0; ok && i < bx.n_chapters; i++) {
    book_chapter *ch = &bx.chapters[i];
    if (opt->only_chapter && strcmp(opt->only_chapter, ch->name) != 0 &&
        strcmp(opt->only_chapter, ch->slug) != 0)
      continue;
    found = true;
    if (opt->site_only) {
      strbuf none = {0};
      ok = load_values(&bx, ch) && book_weave(&bx, i, true, &none, &none) && ok;
      sb_free(&none);
    } else {
      ok = render_chapter(&bx, i) && ok;
      if (opt->only_chapter)
        snprintf(path, size, "%s/%s.html", opt->out_dir, ch->name);
    }
  }
  if (ok && !found) {
    book_error(&bx, opt->chapters_dir, 0, "no chapter '%s' (want NN-slug or slug)",
               opt->only_chapter);
    ok = false;
  }
  if (ok && !opt->only_chapter) {
    if (bx.katex) copy_katex_assets(&bx);
    ok = write_style(&bx) && render_hardware(&bx) && render_glossary(&bx);
    if (ok && opt->strict && bx.n_warnings) {
      book_error(&bx, opt->chapters_dir, 0, "%d warning(s) and --strict", bx.n_warnings);
      ok = false;
    }
    ok = ok && render_index(&bx);
    if (ok) snprintf(path, size, "%s", index);
  } else if (ok && opt->strict && bx.n_warnings) {
    book_error(&bx, opt->chapters_dir, 0, "%d warning(s) and --strict", bx.n_warnings);
    ok = false;
  }
  free_chapters(&bx);
  book_sources_free(&bx);
  return ok && bx.n_errors == 0 ? 0 : 1;
}
