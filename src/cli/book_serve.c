/* book_serve.c — a minimal static HTTP/1.0 server for `scale book --serve PORT` (book_serve.h).
 *
 * For one reader on this machine: it listens on 127.0.0.1 only, answers GET and HEAD of the
 * site's files with their content type (the widgets' scripts, the module, SVG figures, KaTeX's
 * fonts), and refuses anything else with a status line: a request line over 8 kB, a path with
 * "..", a NUL, a backslash or an escape other than %XX, or a file that is not a plain file (a
 * missing /favicon.ico is 204 No Content, so a browser logs no error for it).
 * A path resolves beneath the site's root one component at a time, none of them a symbolic
 * link, and only a regular file is served (a FIFO is refused without blocking on it).
 * Each connection has a thread of its own (at most CLIENTS_MAX at once; one more is answered
 * 503) and deadlines for the whole request (REQUEST_S) and the whole answer (ANSWER_S), so a
 * client sending a byte every few seconds cannot hold the server, nor the others waiting.
 * Every answer carries a Content-Security-Policy that allows the site's own scripts, styles,
 * fonts and WebAssembly and nothing else.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book.h"
#include "book_serve.h"
#include "cli.h"

#define REQUEST_MAX 8192
#define CLIENTS_MAX 32
#define REQUEST_S 5.0 /* the whole request, first byte to blank line */
#define ANSWER_S 60.0 /* the whole answer: the largest file (the module) over a slow link */
#define CSP "Content-Security-Policy: " BOOK_CSP "; frame-ancestors 'none'\r\n"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until fd is ready for 'events' or the deadline passes; false at the deadline. */
static bool wait_ready(int fd, short events, double deadline) {
  for (;;) {
    double left = deadline - now_s();
    if (left <= 0.0) return false;
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, (int)(left * 1000.0) + 1);
    if (r > 0) return true;
    if (r == 0 || errno != EINTR) return false;
  }
}

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

static void send_all(int fd, const char *data, size_t n, double deadline) {
  while (n > 0) {
    if (!wait_ready(fd, POLLOUT, deadline)) return;
    ssize_t k = send(fd, data, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (k <= 0) return; /* the reader went away or stalled past the timeout */
    data += k, n -= (size_t)k;
  }
}

static void send_status(int fd, int code, const char *reason) {
  char head[768];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.0 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n" CSP
                   "Connection: close\r\n\r\n%s\n",
                   code, reason, strlen(reason) + 1, reason);
  send_all(fd, head, (size_t)n, now_s() + REQUEST_S);
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

/* Reads the request line (through the blank line ending the headers, or REQUEST_MAX) within
 * REQUEST_S of its start, however the client paces its bytes. */
static bool read_request(int fd, char *buf, size_t size) {
  size_t n = 0;
  double deadline = now_s() + REQUEST_S;
  while (n + 1 < size) {
    if (!wait_ready(fd, POLLIN, deadline)) return false;
    ssize_t k = recv(fd, buf + n, size - 1 - n, MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (k <= 0) return false;
    n += (size_t)k;
    buf[n] = '\0';
    if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n")) return true;
  }
  return false;
}

/* Opens site file 'path' ("/a/b.html") beneath 'root' a component at a time, refusing a
 * symbolic link anywhere on the way and anything but a regular file (a FIFO opens without
 * blocking and is refused); -1 when it cannot. */
static int open_beneath(const char *root, const char *path, struct stat *sb) {
  char rest[REQUEST_MAX];
  snprintf(rest, sizeof rest, "%s", path + 1);
  int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *save = NULL, *part = strtok_r(rest, "/", &save);
  while (dir >= 0 && part) {
    char *next = strtok_r(NULL, "/", &save);
    int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (next ? O_DIRECTORY : O_NONBLOCK);
    int fd = strcmp(part, ".") == 0 || strcmp(part, "..") == 0 ? -1 : openat(dir, part, flags);
    close(dir);
    dir = fd;
    if (!next) break;
    part = next;
  }
  if (dir < 0 || !part || fstat(dir, sb) != 0 || !S_ISREG(sb->st_mode) ||
      fcntl(dir, F_SETFL, 0) != 0) {
    if (dir >= 0) close(dir);
    return -1;
  }
  return dir;
}

/* Answers one request: the file, or a status line (400 malformed or outside the site, 404
 * missing or not a plain file, 405 another method). */
static void answer(int fd, const char *root) {
  char req[REQUEST_MAX], method[8], target[REQUEST_MAX], path[REQUEST_MAX];
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
  struct stat sb;
  double deadline = now_s() + ANSWER_S;
  int in = open_beneath(root, path, &sb);
  if (in < 0) {
    if (strcmp(path, "/favicon.ico") == 0) { /* browsers ask; the site has none */
      static const char none[] = "HTTP/1.0 204 No Content\r\nConnection: close\r\n\r\n";
      send_all(fd, none, sizeof none - 1, deadline);
    } else {
      send_status(fd, 404, "Not Found");
    }
    return;
  }
  char hdr[1024];
  int n = snprintf(hdr, sizeof hdr,
                   "HTTP/1.0 200 OK\r\nContent-Type: %s\r\nContent-Length: %lld\r\n" CSP
                   "X-Content-Type-Options: nosniff\r\n"
                   "Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
                   content_type(path), (long long)sb.st_size);
  send_all(fd, hdr, (size_t)n, deadline);
  char chunk[65536];
  ssize_t k;
  while (!head && now_s() < deadline && (k = read(in, chunk, sizeof chunk)) > 0)
    send_all(fd, chunk, (size_t)k, deadline);
  close(in);
}

static atomic_int clients;

typedef struct {
  int fd;
  const char *root;
} client;

static void *serve_client(void *arg) {
  client *c = arg;
  answer(c->fd, c->root);
  close(c->fd);
  free(c);
  atomic_fetch_sub(&clients, 1);
  return NULL;
}

/* Hands connection fd to a thread of its own; past CLIENTS_MAX (or without a thread) 503. */
static void dispatch(int fd, const char *root) {
  client *c = atomic_fetch_add(&clients, 1) < CLIENTS_MAX ? malloc(sizeof *c) : NULL;
  pthread_t t;
  pthread_attr_t attr;
  bool started = false;
  if (c && pthread_attr_init(&attr) == 0) {
    *c = (client){fd, root};
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&t, &attr, serve_client, c) == 0;
    pthread_attr_destroy(&attr);
  }
  if (started) return;
  free(c);
  atomic_fetch_sub(&clients, 1);
  static const char busy[] = "HTTP/1.0 503 Service Unavailable\r\nConnection: close\r\n\r\n";
  (void)!send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT); /* never waits */
  close(fd);
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
    dispatch(fd, root);
  }
}
