#!/bin/sh
# book_site.sh SCALE DIR — the real book, rendered once per test run (the CTest fixture
# book.site) for the tests that read it (SCALE_BOOK_SITE=DIR; tests/cli/lib.sh's book_site):
# `SCALE book --out DIR --strict`, its stdout and stderr kept beside it as DIR.out and DIR.err.
# Exits with the render's status, so a book that does not render --strict fails here once and
# the tests that need it are not run.
scale=${1:?usage: sh book_site.sh SCALE DIR}
dir=${2:?usage: sh book_site.sh SCALE DIR}
rm -rf "$dir" "$dir.out" "$dir.err"
t0=$(date +%s)
"$scale" book --out "$dir" --strict >"$dir.out" 2>"$dir.err"
rc=$?
echo "book.site: 'scale book --out $dir --strict': exit $rc after $(($(date +%s) - t0)) s"
[ "$rc" -eq 0 ] || cat "$dir.err"
exit "$rc"
