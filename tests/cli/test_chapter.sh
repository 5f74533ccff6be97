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
SCALE_CHAPTERS_DIR=/nonexistent run "$SCALE" chapter 1
expect_rc 1 "no chapter programs"
expect_err "no chapter programs in /nonexistent" "the missing folder is named"
finish
