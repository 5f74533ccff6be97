/* stub.c — the renderer of a build without cmark-gfm: it explains and fails (book.h). */
#include <stdio.h>

#include "book.h"

bool book_available(void) { return false; }

int book_render(const book_options *opt, char *path, size_t size) {
  if (size) path[0] = '\0';
  fputs("scale: this build has no cmark-gfm, so it cannot render the book "
        "(apt-get install libcmark-gfm-dev libcmark-gfm-extensions-dev, then reconfigure)\n",
        opt && opt->err ? opt->err : stderr);
  return 1;
}
