/* book.c — `scale book`: render the chapters to a self-contained HTML site (src/book/book.h).
 *
 * Prints the path of index.html (or of the one page asked for with --chapter). By default the
 * chapter programs are found beside this executable (BUILD/chapters/chapter_NN_slug) and run
 * with --values and --figures; the `book` build target passes --values-dir instead.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book.h"
#include "book_serve.h"
#include "cli.h"

static void usage(FILE *out) {
  fprintf(out, "usage: scale book [--out DIR] [--solutions] [--chapters DIR] [--chapter NN-slug]\n"
               "                  [--site] [--values-dir DIR] [--bin DIR] [--web DIR] [--strict]\n"
               "                  [--serve PORT]\n\n"
               "Renders chapters/NN-slug/slug.md with the values and figures of each chapter\n"
               "program into an HTML site that works from file:// and prints index.html's path.\n\n"
               "  --out DIR         site folder (default: book)\n"
               "  --solutions       add the reference solution of each exercise (collapsed)\n"
               "  --chapters DIR    chapters folder (default: chapters/ of the data folder)\n"
               "  --chapter NAME    render only this chapter's page (NN-slug or slug)\n"
               "  --site            render only index, hardware, glossary and style sheet\n"
               "  --values-dir DIR  read values from DIR/NN-slug.tsv (figures already in --out)\n"
               "  --bin DIR         folder of the chapter_NN_slug programs (default: chapters/\n"
               "                    beside this executable)\n"
               "  --web DIR         folder of the built WebAssembly module, scale-wasm.js, for\n"
               "                    the live widgets (default: web/ beside this executable;\n"
               "                    without one the widgets show their static figures)\n"
               "  --strict          treat warnings (values never cited) as errors\n"
               "  --serve PORT      then serve the site at http://127.0.0.1:PORT/ until stopped\n"
               "                    (the live widgets also work from file://)\n\n"
               "Math is rendered with KaTeX when the `katex` command exists (SCALE_KATEX=none\n"
               "turns it off); otherwise TeX is shown as code.\n");
}

/** BUILD/SUB beside the running executable, when it exists. */
static const char *beside_exe(const char *sub, char *buf, size_t size) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return NULL;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return NULL;
  *slash = '\0';
  if (snprintf(buf, size, "%s/%s", exe, sub) >= (int)size) return NULL;
  return access(buf, X_OK) == 0 ? buf : NULL;
}

/** The long name of option 'val' in 'options'. */
static const char *option_name(const struct option *options, int val) {
  for (; options->name; options++)
    if (options->val == val) return options->name;
  return "?";
}

enum {
  O_SOLUTIONS = 1000,
  O_CHAPTERS,
  O_CHAPTER,
  O_SITE,
  O_VALUES_DIR,
  O_BIN,
  O_WEB,
  O_STRICT,
  O_SERVE
};
static const struct option options[] = {{"out", required_argument, NULL, 'o'},
                                        {"solutions", no_argument, NULL, O_SOLUTIONS},
                                        {"chapters", required_argument, NULL, O_CHAPTERS},
                                        {"chapter", required_argument, NULL, O_CHAPTER},
                                        {"site", no_argument, NULL, O_SITE},
                                        {"values-dir", required_argument, NULL, O_VALUES_DIR},
                                        {"bin", required_argument, NULL, O_BIN},
                                        {"web", required_argument, NULL, O_WEB},
                                        {"serve", required_argument, NULL, O_SERVE},
                                        {"strict", no_argument, NULL, O_STRICT},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};

/* The options of `scale book` beyond the renderer's own. */
typedef struct {
  book_options opt; /* what book_render takes */
  bool bin_given;   /* --bin (else the chapter programs beside this executable) */
  double port;      /* --serve PORT, 0: none */
  bool help;        /* --help: usage printed, exit 0 */
} book_args;

/* Takes one getopt_long result 'c' into 'a': 0 or a usage error. */
static int take(int c, const char *arg, book_args *a, char **argv) {
  book_options *opt = &a->opt;
  /* getopt takes the word after --out as its value even when it is an option: `--out
   * --site` would render into a folder named --site. A path starting '-' is written ./-x. */
  bool takes_value = c == 'o' || c == O_CHAPTERS || c == O_CHAPTER || c == O_VALUES_DIR ||
                     c == O_BIN || c == O_WEB || c == O_SERVE;
  if (takes_value && arg[0] == '-' && arg[1])
    return cli_usage("book: --%s needs a value, not the option '%s' (write ./%s for a path "
                     "that starts with '-')",
                     option_name(options, c), arg, arg);
  switch (c) {
  case 'o': opt->out_dir = arg; break;
  case O_SOLUTIONS: opt->solutions = true; break;
  case O_CHAPTERS: opt->chapters_dir = arg; break;
  case O_CHAPTER: opt->only_chapter = arg; break;
  case O_SITE: opt->site_only = true; break;
  case O_VALUES_DIR: opt->values_dir = arg; break;
  case O_BIN:
    opt->bin_dir = arg;
    a->bin_given = true;
    break;
  case O_WEB: opt->web_dir = arg; break;
  case O_STRICT: opt->strict = true; break;
  case O_SERVE:
    if (!cli_parse_number("serve", arg, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &a->port))
      return CLI_EXIT_USAGE;
    if (a->port > 65535) return cli_usage("book: --serve: port %s is above 65535", arg);
    break;
  case 'h': a->help = true; break;
  default: return cli_bad_option("book", argv);
  }
  return CLI_EXIT_OK;
}

/* Reads the command line into 'a' and checks it: 0 or a usage error. */
static int parse(int argc, char **argv, book_args *a) {
  memset(a, 0, sizeof *a);
  a->opt.out_dir = "book";
  a->opt.err = stderr;
  cli_getopt_reset();
  int c;
  while ((c = getopt_long(argc, argv, "+ho:", options, NULL)) != -1) {
    int rc = take(c, optarg, a, argv);
    if (rc || a->help) return rc;
  }
  if (optind < argc) return cli_usage("book: unexpected argument '%s'", argv[optind]);
  if (a->opt.site_only && a->opt.only_chapter)
    return cli_usage("book: --site and --chapter exclude each other");
  if (!a->opt.out_dir[0]) return cli_usage("book: --out needs a folder");
  return CLI_EXIT_OK;
}

int cli_cmd_book(int argc, char **argv) {
  book_args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc;
  if (a.help) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  book_options *opt = &a.opt;
  if (!book_available())
    return cli_fail("book: this build has no cmark-gfm (install libcmark-gfm-dev "
                    "libcmark-gfm-extensions-dev and reconfigure)");
  char chapters[PATH_MAX], bin[PATH_MAX], web[PATH_MAX];
  if (!opt->chapters_dir) {
    snprintf(chapters, sizeof chapters, "%s/chapters", scale_data_dir());
    opt->chapters_dir = chapters;
  }
  if (!a.bin_given && !opt->values_dir) opt->bin_dir = beside_exe("chapters", bin, sizeof bin);
  if (!opt->web_dir) opt->web_dir = beside_exe("web", web, sizeof web);
  char path[PATH_MAX * 2];
  if (book_render(opt, path, sizeof path) != 0)
    return cli_fail("book: rendering failed (see the errors above)");
  char *abs = realpath(path, NULL);
  printf("%s\n", abs ? abs : path);
  free(abs);
  if (a.port > 0) return book_serve(opt->out_dir, (int)a.port);
  return CLI_EXIT_OK;
}
