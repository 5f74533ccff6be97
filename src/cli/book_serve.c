/* book_serve.c — a minimal static HTTP/1.0 server for `scale book --serve PORT` (book_serve.h).
 *
 * For one reader on this machine: it listens on 127.0.0.1 only, answers GET and HEAD of the
 * site's files with their content type (the widgets' scripts, the module, SVG figures, KaTeX's
 * fonts), and refuses anything else with a status line: a request line over 8 kB, a path with
 * "..", a NUL, a backslash or an escape other than %XX, or a file that is not a plain file (a
 * missing /favicon.ico is 204 No Content, so a browser logs no error for it).
 * One connection at a time, closed after its answer, with 5-second read and write timeouts, so
 * a stalled client cannot hold the server for long.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "book_serve.h"
#include "cli.h"

#define REQUEST_MAX 8192

static const char *content_type(const char *path) {
  static const struct {
    const char *ext, *type;
  } types[] = {{".html", "text/html; charset=utf-8"},
               {".css", "text/css; charset=utf-8"},
               {".js", "text/javascript; charset=utf-8"},
               {".svg", "image/svg+xml"},
               {".wasm", "application/wasm"},
               {".woff2", "font/woff2"},
               {".woff", "font/woff"},
               {".ttf", "font/ttf"},
               {".png", "image/png"},
               {".json", "application/json"}};
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
    if (strcmp(dot, types[i].ext) == 0) return types[i].type;
  return "application/octet-stream";
}

static void send_all(int fd, const char *data, size_t n) {
  while (n > 0) {
    ssize_t k = send(fd, data, n, MSG_NOSIGNAL);
    if (k <= 0) return; /* the reader went away or stalled past the timeout */
    data += k, n -= (size_t)k;
  }
}

static void send_status(int fd, int code, const char *reason) {
  char head[256];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.0 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n%s\n",
                   code, reason, strlen(reason) + 1, reason);
  send_all(fd, head, (size_t)n);
}

/* Decodes the URL path 'in' (up to '?' or '#') into out[size]: %XX escapes, and "/" ->
 * "/index.html". false for anything that could leave the site. */
static bool decode_path(const char *in, char *out, size_t size) {
  size_t n = 0;
  for (const char *p = in; *p && *p != '?' && *p != '#'; p++) {
    char c = *p;
    if (c == '%') {
      unsigned v;
      if (sscanf(p + 1, "%2x", &v) != 1 || !p[1] || !p[2]) return false;
      c = (char)v;
      p += 2;
    }
    if (c == '\0' || c == '\\' || n + 12 >= size) return false;
    out[n++] = c;
  }
  out[n] = '\0';
  if (out[0] != '/' || strstr(out, "/..") || strstr(out, "//")) return false;
  if (out[n - 1] == '/') snprintf(out + n, size - n, "index.html");
  return true;
}

/* Reads the request line (through the blank line ending the headers, or REQUEST_MAX). */
static bool read_request(int fd, char *buf, size_t size) {
  size_t n = 0;
  while (n + 1 < size) {
    ssize_t k = recv(fd, buf + n, size - 1 - n, 0);
    if (k <= 0) return false;
    n += (size_t)k;
    buf[n] = '\0';
    if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n")) return true;
  }
  return false;
}

/* Answers one request: the file, or a status line (400 malformed or outside the site, 404
 * missing or not a plain file, 405 another method). */
static void answer(int fd, const char *root) {
  char req[REQUEST_MAX], method[8], target[REQUEST_MAX], path[REQUEST_MAX], file[REQUEST_MAX * 2];
  if (!read_request(fd, req, sizeof req) || sscanf(req, "%7s %8191s", method, target) != 2) {
    send_status(fd, 400, "Bad Request");
    return;
  }
  bool head = strcmp(method, "HEAD") == 0;
  if (!head && strcmp(method, "GET") != 0) {
    send_status(fd, 405, "Method Not Allowed");
    return;
  }
  if (!decode_path(target, path, sizeof path)) {
    send_status(fd, 400, "Bad Request");
    return;
  }
  snprintf(file, sizeof file, "%s%s", root, path);
  int in = open(file, O_RDONLY | O_NOFOLLOW);
  struct stat sb;
  if (in < 0 || fstat(in, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    if (in >= 0) close(in);
    if (strcmp(path, "/favicon.ico") == 0) { /* browsers ask; the site has none */
      static const char none[] = "HTTP/1.0 204 No Content\r\nConnection: close\r\n\r\n";
      send_all(fd, none, sizeof none - 1);
    } else {
      send_status(fd, 404, "Not Found");
    }
    return;
  }
  char hdr[512];
  int n = snprintf(hdr, sizeof hdr,
                   "HTTP/1.0 200 OK\r\nContent-Type: %s\r\nContent-Length: %lld\r\n"
                   "Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
                   content_type(path), (long long)sb.st_size);
  send_all(fd, hdr, (size_t)n);
  char chunk[65536];
  ssize_t k;
  while (!head && (k = read(in, chunk, sizeof chunk)) > 0)
    send_all(fd, chunk, (size_t)k);
  close(in);
}

int book_serve(const char *root, int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(s, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s, 16) != 0) {
    int e = errno;
    if (s >= 0) close(s);
    return cli_fail("book: --serve: cannot listen on 127.0.0.1:%d: %s", port, strerror(e));
  }
  printf("serving %s at http://127.0.0.1:%d/ (Ctrl-C stops)\n", root, port);
  fflush(stdout);
  signal(SIGPIPE, SIG_IGN);
  for (;;) {
    int fd = accept(s, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      int e = errno;
      close(s);
      return cli_fail("book: --serve: accept: %s", strerror(e));
    }
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    answer(fd, root);
    close(fd);
  }
}
