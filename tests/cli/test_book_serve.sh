#!/bin/sh
# test_book_serve.sh — `scale book --serve PORT` (src/cli/book_serve.c): bad ports are usage
# errors; the server answers the site's files with their types over HTTP on 127.0.0.1, and
# refuses paths that leave the site, other methods and missing files with a status line.
# The HTTP part needs python3 (skipped without it); the widgets over HTTP are checked by
# tests/browser/test_widgets.sh.
SCALE=$1
. "$(dirname "$0")/lib.sh"
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

expect_usage_error "--serve 0" "$SCALE" book --site --out "$TMP/s0" --serve 0
expect_usage_error "--serve 70000" "$SCALE" book --site --out "$TMP/s0" --serve 70000
expect_usage_error "--serve abc" "$SCALE" book --site --out "$TMP/s0" --serve abc
expect_usage_error "--serve 80.5" "$SCALE" book --site --out "$TMP/s0" --serve 80.5
expect_usage_error "--serve --site" "$SCALE" book --out "$TMP/s0" --serve --site

if command -v python3 >/dev/null 2>&1; then
  . "$(dirname "$0")/../support/serve.sh"
  if serve_book "$SCALE" "$SRC/chapters" "$TMP/site" "$TMP/serve" &&
      grep -q "^serving .* at http://127.0.0.1:$port/" "$TMP/serve.out"; then pass; else
    fail "the server did not start: $(cat "$TMP/serve.err")"
  fi
  # Hostile entries in the site folder: a symbolic link to a folder outside it, one to a file
  # outside it, and a FIFO (opening one for reading blocks until a writer comes).
  mkdir -p "$TMP/outside" && echo secret >"$TMP/outside/secret.txt"
  ln -s "$TMP/outside" "$TMP/site/outlink"
  ln -s "$TMP/outside/secret.txt" "$TMP/site/filelink.txt"
  mkfifo "$TMP/site/fifo.html" 2>/dev/null || true
  # Each probe: raw request -> the status code and content type of the answer.
  python3 - "$port" >"$TMP/probes" 2>&1 <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])
def ask(raw):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(raw)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    ctype = [l.split(": ", 1)[1] for l in lines[1:] if l.lower().startswith("content-type")]
    return lines[0].split()[1], (ctype or [""])[0], body
for name, raw in [("index", b"GET / HTTP/1.0\r\n\r\n"),
                  ("css", b"GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n"),
                  ("head", b"HEAD /index.html HTTP/1.0\r\n\r\n"),
                  ("dotdot", b"GET /../CMakeLists.txt HTTP/1.0\r\n\r\n"),
                  ("escaped", b"GET /%2e%2e/CMakeLists.txt HTTP/1.0\r\n\r\n"),
                  ("post", b"POST /index.html HTTP/1.0\r\n\r\n"),
                  ("missing", b"GET /no-such-page.html HTTP/1.0\r\n\r\n"),
                  ("garbage", b"\x01\x02\r\n\r\n")]:
    code, ctype, body = ask(raw)
    print(name, code, ctype.split(";")[0], len(body))
for name, raw in [("dirlink", b"GET /outlink/secret.txt HTTP/1.0\r\n\r\n"),
                  ("filelink", b"GET /filelink.txt HTTP/1.0\r\n\r\n"),
                  ("fifo", b"GET /fifo.html HTTP/1.0\r\n\r\n")]:
    t0 = time.time()
    code, ctype, body = ask(raw)
    print(name, code, "fast" if time.time() - t0 < 3 else "slow", b"secret" in body)
# A client that sends a byte a second (each recv within any per-read timeout) must neither
# hold the server nor outlive the whole-request deadline; the others are answered meanwhile.
slow_answer = []
def slowloris():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    t0 = time.time()
    try:
        for ch in b"GET /index.html HTTP/1.0\r\nX-Pad: " + b"a" * 40:
            s.sendall(bytes([ch]))
            time.sleep(1.0)
    except OSError:
        pass
    try:
        data = s.recv(100)
    except OSError:
        data = b""
    slow_answer.append((time.time() - t0, data[:12]))
t = threading.Thread(target=slowloris)
t.start()
time.sleep(1.5)
t0 = time.time()
code, ctype, body = ask(b"GET /style.css HTTP/1.0\r\n\r\n")
print("beside-slow", code, "fast" if time.time() - t0 < 2 else "slow")
t.join()
print("slowloris", "cut" if slow_answer[0][0] < 12 else "held", slow_answer[0][1])
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
head = s.recv(4096).decode("latin-1")
s.close()
print("csp", "yes" if "content-security-policy: default-src 'self'" in head.lower() else "no")
PY
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  for want in "index 200 text/html" "css 200 text/css" "head 200 text/html 0" \
      "dotdot 400" "escaped 400" "post 405" "missing 404" "garbage 400" \
      "dirlink 404 fast False" "filelink 404 fast False" "fifo 404 fast False" \
      "beside-slow 200 fast" "slowloris cut" "csp yes"; do
    if grep -q "^$want" "$TMP/probes"; then pass; else
      fail "HTTP probe '$want': got $(grep "^${want%% *} " "$TMP/probes" || head -c 300 "$TMP/probes")"
    fi
  done
  if grep -q '^index 200 text/html [1-9]' "$TMP/probes"; then pass; else fail "index has no body"; fi
fi
finish
