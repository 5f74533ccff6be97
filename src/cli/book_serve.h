/* book_serve.h — `scale book --serve PORT`: the rendered site over HTTP on the loopback
 * interface, for local reading (book_serve.c). */
#ifndef SCALE_CLI_BOOK_SERVE_H
#define SCALE_CLI_BOOK_SERVE_H

/** Serves the files under 'root' at http://127.0.0.1:PORT/ until the process is stopped:
 * GET and HEAD of plain files only ("/" is index.html), nothing outside 'root', one request
 * per connection. Returns only on failure to listen: CLI_EXIT_FAIL after one line on stderr. */
int book_serve(const char *root, int port);

#endif
