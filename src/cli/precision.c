/* precision.c — the --precision option shared by `scale train` and `scale plan train`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "scale/precision.h"

enum { MAX_HW = 64 };

/* The hardware files whose chip has the recipe's matmul format, comma-separated into buf. */
static void chips_with(const scale_precision_recipe *r, char *buf, size_t size) {
  static char names[MAX_HW][SCALE_NAME_MAX];
  int n = scale_data_list("hardware", names, MAX_HW);
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && i < MAX_HW; i++) {
    scale_chip chip;
    scale_diag diag;
    if (scale_chip_load(names[i], &chip, &diag) || !scale_precision_chip_has(r, &chip)) continue;
    int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i]);
    if (w < 0 || (size_t)w >= size - used) break;
    used += (size_t)w;
  }
  if (used == 0) snprintf(buf, size, "none");
}

/* Every recipe's name, comma-separated into buf (from the table, so it cannot drift). */
static void recipe_names(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; scale_precision_at(i) && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                             scale_precision_at(i)->name);
}

int cli_precision_resolve(const char *name, const scale_chip *chip,
                          const scale_precision_recipe **out) {
  const scale_precision_recipe *r = scale_precision_find(name);
  if (r == NULL) {
    char names[256];
    recipe_names(names, sizeof names);
    return cli_usage("unknown precision '%s' (one of %s)", name, names);
  }
  if (!scale_precision_chip_has(r, chip)) {
    char have[1024];
    chips_with(r, have, sizeof have);
    return cli_usage("%s has no %s matmuls (%s); hardware with them: %s", chip->name, name,
                     scale_dtype_name(r->matmul_dtype), have);
  }
  *out = r;
  return CLI_EXIT_OK;
}
