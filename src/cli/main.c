/* main.c — `scale SUBCOMMAND [options]`: dispatch to the subcommands of src/cli/.
 *
 * Exit status: 0 success, 1 failure, 2 usage error (DESIGN.md "The command").
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
  const char *name;                  /**< first argument selecting the subcommand */
  int (*run)(int argc, char **argv); /**< argv[0] is the subcommand name */
  const char *summary;               /**< one line for `scale --help` */
} command;

static const command commands[] = {
    {"hw", cli_cmd_hw, "chips and systems: list, show NAME"},
    {"model", cli_cmd_model, "model architectures: list, show NAME, import CONFIG"},
    {"train", cli_cmd_train, "a training layout: step time, MFU, memory per chip, run cost"},
    {"infer", cli_cmd_infer, "serving: memory, prefill, decode step, throughput, cost"},
    {"roofline", cli_cmd_roofline, "T_math, T_comms and bounds of an operation or a matmul"},
    {"collective", cli_cmd_collective, "time of a collective on a group of chips"},
    {"plan", cli_cmd_plan, "search every layout for training (train) or serving (infer)"},
    {"validate", cli_cmd_validate, "step model vs published runs: errors, LOGO"},
    {"calibrate", cli_cmd_calibrate, "fit the step model's parameters to measurements/"},
    {"book", cli_cmd_book, "render the chapters to an HTML site"},
    {"grade", cli_cmd_grade, "grade a folder of exercises: OK/FAIL/CRASH/TIMEOUT/BUILD, score"},
    {"measure", cli_cmd_measure, "this machine's roofline (OpenBLAS GEMM, STREAM) as hardware"},
    {"chapter", cli_cmd_chapter, "run a chapter's program: walk-through, --values, --figures"},
};

static const size_t n_commands = sizeof commands / sizeof commands[0];

static void print_help(FILE *out) {
  fprintf(out, "usage: scale [--help] [--version] SUBCOMMAND [options]\n\n"
               "The executable companion to \"How to Scale Your Model\".\n\n"
               "subcommands:\n");
  for (size_t i = 0; i < n_commands; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nRun `scale SUBCOMMAND --help` for its options. Numbers accept SI suffixes\n"
               "(4M, 2.8T, 96G) and exponents (15e12). --json prints SI base units.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) return cli_usage("missing subcommand (try: scale --help)");
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
    print_help(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0) {
    printf("scale %s\n", SCALE_VERSION_STRING);
    return CLI_EXIT_OK;
  }
  for (size_t i = 0; i < n_commands; i++)
    if (strcmp(name, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  return cli_usage("unknown subcommand '%s' (try: scale --help)", name);
}
