# serve.sh — `scale book --serve` on a free port of 127.0.0.1, for the tests that talk to it
# (tests/cli/test_book_serve.sh, tests/browser/test_widgets.sh); sourced, needs python3.
#
# serve_book SCALE CHAPTERS OUT LOG: renders CHAPTERS as a site into OUT and serves it, stdout
# and stderr in LOG.out and LOG.err; sets $port and $server (its pid) and returns 0 once it
# listens, else 1. The port is one the kernel handed out free; one taken again before the
# server binds it (another test's, beside this one) is picked anew, three times at most.
serve_book() {
  for serve_try in 1 2 3; do
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$1" book --chapters "$2" --site --out "$3" --serve "$port" >"$4.out" 2>"$4.err" &
    server=$!
    # up to ~8 minutes: --site runs every chapter program (minutes under sanitizers: chapter
    # 14 refits the step model per group)
    for _ in $(seq 5000); do
      if grep -q '^serving' "$4.out"; then return 0; fi
      kill -0 "$server" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$server" 2>/dev/null; then return 1; fi
    grep -q 'cannot listen' "$4.err" || return 1
    echo "serve_book: port $port was taken (try $serve_try of 3)"
  done
  return 1
}
