/*
 * fc_input.h - the one way fabcert opens a file it is given to read: a
 * profile, a host list or rack map, a topology, a signing or public key,
 * a certificate and its signature, a run's results.jsonl and run.json
 * (for `report`, `compare`, `baseline`, a resume or a rerun), the
 * launcher's logs. A file is read only when it is a regular file no
 * larger than the cap for its kind; anything else (a directory; a device
 * such as /dev/zero, which never ends; a sparse file of gigabytes) gets
 * one error on stderr naming the file and what is wrong with it, and
 * FC_ERR_INVALID, which the commands turn into exit status 2. Nothing is
 * read before the checks, and the open never blocks (O_NONBLOCK until the
 * file is known to be a regular one). A text (fc_input_read) may also
 * come from a pipe a command writes (`--hosts <(scontrol show hostnames)`),
 * read to the same cap, each wait for its writer bounded; a FIFO that no
 * one has opened for writing would block a reader forever, and is
 * refused at once. Files that are read again or locked (results.jsonl)
 * must be regular.
 *
 * MPI-free: the profile loader, the inventory, the reports and the fuzz
 * target use it.
 */
#ifndef FC_INPUT_H
#define FC_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "fc_status.h"

/* The caps, by kind of file: far above any real one (a profile is a few
 * KiB, a host list of 100,000 nodes 2 MiB, a soak's results.jsonl of a
 * week tens of MiB), far below what would stall a reader. */
#define FC_INPUT_PROFILE_MAX ((size_t)16 << 20)
#define FC_INPUT_INVENTORY_MAX ((size_t)64 << 20)
#define FC_INPUT_KEY_MAX ((size_t)64 << 10)
#define FC_INPUT_DOC_MAX ((size_t)256 << 20)    /* certificates, run.json, logs */
#define FC_INPUT_RESULTS_MAX ((size_t)1 << 30)  /* results.jsonl */

/* A descriptor open for reading on path, a regular file of at most max
 * bytes (its size in *size_p when not NULL); `what` names the kind in the
 * error ("profile", "host list"). */
fc_status_t fc_input_open(const char *path, const char *what, size_t max, int *fd_p,
                          size_t *size_p);
/* The same as a stream; NULL after the error was said. */
FILE *fc_input_fopen(const char *path, const char *what, size_t max);
/* The whole file, NUL-terminated (its length in *len_p when not NULL),
 * or a pipe's text; more than max bytes read (it grew) is an error too. */
fc_status_t fc_input_read(const char *path, const char *what, size_t max, char **text_p,
                          size_t *len_p);

/* The same from a descriptor already open (fd; path names it in errors):
 * standard input given as "-", a pipe the user chose; size, what is
 * expected (0 if not known). Never more than max bytes. */
fc_status_t fc_input_read_fd(int fd, const char *path, const char *what, size_t max,
                             size_t size, char **text_p, size_t *len_p);

/* A plain text (a host list, a rack map, a topology) made fit to parse as
 * a C string, in place: a leading UTF-8 byte order mark (an editor's
 * mark of the encoding, not content) is dropped, *len_p shortened; a NUL
 * byte (which would end the text there and drop every line after it
 * unsaid) is an error naming path, its line and column, and `what`. */
fc_status_t fc_input_plain_text(const char *path, const char *what, char *text, size_t *len_p);
/* fc_input_read, then fc_input_plain_text: the way a host list, a rack
 * map or a topology file is read. */
fc_status_t fc_input_read_plain(const char *path, const char *what, size_t max, char **text_p);

/* Where a text stops being UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF) or holds a NUL: the byte's offset,
 * its line and column from 1 in *line_p, *col_p; len when it is all
 * UTF-8. YAML is UTF-8, and libfyaml 0.7 (Debian 12's) never returns from
 * a directive line ("%...") with a byte that is not: a YAML text is checked
 * before it is parsed. */
size_t fc_input_utf8_end(const char *text, size_t len, int *line_p, int *col_p);

#endif
