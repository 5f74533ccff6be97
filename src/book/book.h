/* book.h — the book renderer: chapters/NN-slug/slug.md + chapter values -> HTML site.
 *
 * Not part of libscale (it links cmark-gfm and runs programs); used by `scale book` and by the
 * `book` target of chapters/CMakeLists.txt. DESIGN.md "Chapters" is the specification:
 *
 *   `=KEY`                    an inline code span citing a value the chapter program emits;
 *                             replaced by its display string
 *   ```{listing} NAME         a listing cut from compiled code between the markers
 *   ```                       /\* [listing:NAME] *\/ ... /\* [/listing:NAME] *\/ in the chapter's
 *                             .c, then src/ *.c, src/ * / *.c, include/scale/ *.h
 *   ```{exercise} ID          an exercise: the block's Markdown is the question; the contract
 *   question ...              (doc comment + prototype) comes from exercises/NN-slug/slug_ex.h,
 *   ```                       the reference (--solutions) from solutions/NN-slug/slug_ex.c
 *   ```{widget} NAME [STATE]  a live figure (web/README.md): web/glue.js and web/widget-NAME.js
 *   ![alt](fig.svg ...)       run it on the WebAssembly module; the block's Markdown (the static
 *   ```                       figure) stays as the fallback without script and in print; STATE
 *                             is its initial k=v&k=v
 *   ![alt](fig.svg "caption") a figure the program wrote with --figures, or an SVG beside the md
 *   $...$, $$...$$            TeX, kept away from Markdown; rendered with KaTeX when the
 *                             `katex` command exists ($SCALE_KATEX names another command, or
 *                             "none"), else shown as readable TeX in <code class="math">;
 *                             write \$ for a literal dollar sign
 *
 * Errors in a chapter are reported as "PATH/slug.md:LINE: message" and fail the build;
 * values emitted but never cited are warnings ("PATH/slug.md: warning: ...").
 *
 * Rendering takes time linear in the chapter's length. Input that cmark-gfm 0.29.0.gfm.6 would
 * take quadratic time or memory over is refused with its line: a table of more than 256
 * columns or a row of more than 256 cells, a table whose short rows would be padded to far
 * more cells than it has bytes, and many '<?', '<!X' or '<![CDATA[' openers without their end.
 * A NUL byte in a chapter or values file is an error naming its byte offset.
 *
 * Values of a chapter come from, in order: VALUES_DIR/NN-slug.tsv (when values_dir is set; its
 * figures are then expected in OUT/NN-slug/ already), else the program BIN_DIR/chapter_NN_slug
 * run with --values --figures OUT/NN-slug, else a static NN-slug/slug.values file, else none.
 */
#ifndef SCALE_BOOK_H
#define SCALE_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** The pages' Content-Security-Policy: the site's own scripts (the WebAssembly module compiled,
 * never eval'd text), styles (inline style attributes included), images and fonts; no inline
 * script, plugin, base or form target. The layout explorer's search runs in a worker its own
 * script builds from a data: URL (file:// pages cannot start a worker from a file), so workers
 * may come from data: too; only the site's scripts can create one. Pages carry it in a meta element, so that it holds from
 * file:// too; `scale book --serve` sends it as a header, adding frame-ancestors (which a meta
 * element cannot carry). */
#define BOOK_CSP                                                                                 \
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' data:; "          \
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; object-src 'none'; "  \
  "base-uri 'none'; form-action 'none'"

/** What to render and from where. Zero-initialise and fill. */
typedef struct {
  const char *chapters_dir; /**< folder of NN-slug/ chapter folders (required); its parent is
                                 the project root holding exercises/, solutions/, src/ */
  const char *out_dir;      /**< site folder, created when missing (required) */
  const char *values_dir;   /**< prebuilt values (see above), or NULL */
  const char *bin_dir;      /**< folder of chapter programs, or NULL */
  const char *web_dir;      /**< folder of the built WebAssembly module (scale-wasm.js) for
                                 the live widgets, or NULL: widgets show their static figure */
  const char *only_chapter; /**< render only this page ("01-rooflines"), or NULL for all */
  bool site_only;           /**< render only index.html, hardware.html, glossary.html, CSS */
  bool solutions;           /**< add reference solutions in collapsed blocks */
  bool strict;              /**< treat warnings as errors */
  FILE *err;                /**< where errors and warnings go (stderr when NULL) */
} book_options;

/** Renders the site described by 'opt'. Writes the path of index.html (or of the only page
 * rendered) into path[0..size). Returns 0 on success, 1 on failure (errors printed to
 * opt->err). On failure of a full build no index.html is left behind; pages are written to a
 * temporary file first, so no page is ever half-written.
 */
int book_render(const book_options *opt, char *path, size_t size);

/** Whether this build of the renderer has cmark-gfm (false: book_render always fails). */
bool book_available(void);

#endif
