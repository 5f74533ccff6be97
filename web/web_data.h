/* web_data.h — the data files embedded in the WebAssembly module (web/embed.c writes the
 * table at build time from the .ini files of hardware/ and models/), and the stand-ins that let
 * libscale's unchanged loaders read them.
 *
 * The module has no file system. It is compiled with -Dfopen=web_data_fopen, so every fopen()
 * in libscale (inifile.c's ini_read() above all) opens an embedded text through fmemopen():
 * the command and the page parse the very same bytes with the same schema code.
 */
#ifndef SCALE_WEB_DATA_H
#define SCALE_WEB_DATA_H

#include <stddef.h>
#include <stdio.h>

/** One embedded file. */
typedef struct {
  const char *path; /**< relative to the source root: "hardware/tpu-v5p.ini" */
  size_t len;       /**< bytes of text */
  const char *text; /**< the file's bytes (NUL-terminated for convenience) */
} web_data_file;

extern const web_data_file web_data_files[];
extern const int web_data_n_files;

/** fopen() for the module: "r"/"rb" of an embedded path as a read-only memory stream; NULL
 * with errno ENOENT for any other path and EACCES for any other mode. */
FILE *web_data_fopen(const char *path, const char *mode);

/** The i-th embedded file under 'dir' ("hardware", "models") whose name ends ".ini", as its
 * stem ("tpu-v5p") in buf; false when there is no such file. Listed in table order (sorted). */
int web_data_stem(const char *dir, int i, char *buf, size_t size);

#endif
