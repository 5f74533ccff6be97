/* fuzz_book.c — fuzz target: the book renderer's value/citation weaver, through its public
 * entry point book_render() (src/book/book.h) on one chapter.
 *
 * Input: "VALUES\n%%%%\nMARKDOWN": the chapter's values (key TAB value TAB unit TAB display
 * lines, as a chapter program prints them with --values) and its Markdown. Without the
 * separator line the whole input is the Markdown and the chapter has no values. The chapter
 * is 01-fixture of a copy of tests/data/book (its listing source fixture.c, its figure
 * ridge.svg, its exercise contract, reference solution and rubric), rendered with
 * --solutions, KaTeX off (SCALE_KATEX=none), into a temporary folder.
 * Invariants: book_render() returns 0 or 1; on 1 it said why on its error stream; on 0 the page
 * exists; no leak, no crash, no undefined behaviour.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "book.h"
#include "fuzz.h"

#ifndef FUZZ_SOURCE_DIR
#error "FUZZ_SOURCE_DIR must name the source tree (fuzz/CMakeLists.txt defines it)"
#endif

static char chapters[512], md_path[1024], values_dir[512], values_path[1024], out_dir[512];
static char page_path[1024];
static FILE *err;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("SCALE_KATEX", "none", 1);
  char root[256];
  fuzz_tmpdir(root, sizeof root);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/data/book", FUZZ_SOURCE_DIR);
  fuzz_copy_tree(path, root, "", 1);
  snprintf(chapters, sizeof chapters, "%s/chapters", root);
  snprintf(md_path, sizeof md_path, "%s/01-fixture/fixture.md", chapters);
  snprintf(values_dir, sizeof values_dir, "%s/values", root);
  snprintf(values_path, sizeof values_path, "%s/01-fixture.tsv", values_dir);
  snprintf(out_dir, sizeof out_dir, "%s/site", root);
  snprintf(page_path, sizeof page_path, "%s/01-fixture.html", out_dir);
  fuzz_mkdirs(values_dir);
  /* The second chapter would only slow every run down. */
  snprintf(path, sizeof path, "%s/02-second/second.md", chapters);
  remove(path);
  err = tmpfile();
  if (!err) fuzz_fail("cannot create a temporary file");
  return 0;
}

static const char separator[] = "\n%%%%\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  const uint8_t *md = data;
  size_t md_size = size;
  remove(values_path);
  for (size_t i = 0; i + sizeof separator - 1 <= size; i++)
    if (memcmp(data + i, separator, sizeof separator - 1) == 0) {
      fuzz_write_file(values_path, data, i + 1); /* the values end with their newline */
      md = data + i + sizeof separator - 1;
      md_size = size - i - (sizeof separator - 1);
      break;
    }
  fuzz_write_file(md_path, md, md_size);
  remove(page_path);
  rewind(err);
  book_options opt;
  memset(&opt, 0, sizeof opt);
  opt.chapters_dir = chapters;
  opt.out_dir = out_dir;
  opt.values_dir = values_dir;
  opt.only_chapter = "01-fixture";
  opt.solutions = true;
  opt.err = err;
  char path[1024];
  int rc = book_render(&opt, path, sizeof path);
  long said = ftell(err);
  struct stat st;
  if (rc != 0 && rc != 1) fuzz_fail("book_render returned %d", rc);
  if (rc == 1 && said <= 0) fuzz_fail("book_render failed without a message");
  if (rc == 0 && (stat(page_path, &st) != 0 || strcmp(path, page_path) != 0))
    fuzz_fail("book_render succeeded without writing %s (path '%s')", page_path, path);
  return 0;
}
