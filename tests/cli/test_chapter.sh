#!/bin/sh
# test_chapter.sh /path/to/scale — `scale chapter NN` runs the chapter programs the book names.
SCALE=${1:?usage: sh test_chapter.sh /path/to/scale}
. "$(dirname "$0")/lib.sh"

run "$SCALE" chapter --help
expect_rc 0 "chapter --help"
run "$SCALE" chapter list
expect_rc 0 "chapter list"
expect_out "^01  chapter_01_rooflines$" "chapter list names the programs"
# The same program whichever way the chapter is named; arguments pass through.
for name in 1 01 01-rooflines rooflines; do
  run "$SCALE" chapter "$name"
  expect_out "^Chapter 1: All About Rooflines" "chapter $name runs chapter 1"
done
run "$SCALE" chapter rooflines --chip nvidia-h100-sxm
expect_out "Example chip: NVIDIA H100 SXM" "options reach the program"
run "$SCALE" chapter 01 --values
expect_out "^example.flops	1000000000000	FLOP" "--values reaches the program"
expect_usage_error "no chapter named" "$SCALE" chapter
expect_usage_error "unknown chapter" "$SCALE" chapter 42
expect_err "no chapter '42'" "the unknown chapter is named"
# A program's errors are relayed as ours: one "scale: " line each, control characters
# replaced; a usage error keeps its exit status 2.
expect_usage_error "a chapter's unknown option" "$SCALE" chapter 01 --bogus
expect_err "^scale: 01-rooflines: unknown option '--bogus'" "the chapter's message, prefixed once"
# A program that crashes, and one that writes terminal escapes and a line without its end.
mkdir "$TMP/progs"
printf '#!/bin/sh\nkill -SEGV $$\n' > "$TMP/progs/chapter_98_crash"
printf '#!/bin/sh\nprintf "bad \\033[31mred\\nscale: once\\nno end" >&2\nexit 1\n' > "$TMP/progs/chapter_99_noisy"
chmod +x "$TMP/progs/chapter_98_crash" "$TMP/progs/chapter_99_noisy"
SCALE_CHAPTERS_DIR="$TMP/progs" run "$SCALE" chapter 98
expect_rc 1 "a crashing chapter program"
expect_err "^scale: chapter: chapter_98_crash died of signal 11 " "the crash in one line"
n=$(wc -l < "$TMP/err"); [ "$n" -eq 1 ] && pass || fail "one line for the crash, got $n"
SCALE_CHAPTERS_DIR="$TMP/progs" run "$SCALE" chapter 99
expect_rc 1 "a noisy chapter program"
if grep -q "$(printf '\033')" "$TMP/err"; then fail "an escape reached the terminal"; else pass; fi
n=$(grep -c '^scale: ' "$TMP/err"); [ "$n" -eq 3 ] && [ "$(wc -l < "$TMP/err")" -eq 3 ] && pass ||
  fail "three 'scale: ' lines: $(cat "$TMP/err")"
expect_err '^scale: once$' "a 'scale: ' line keeps one prefix"
SCALE_CHAPTERS_DIR=/nonexistent run "$SCALE" chapter 1
expect_rc 1 "no chapter programs"
expect_err "no chapter programs in /nonexistent" "the missing folder is named"
finish
