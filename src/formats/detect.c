/* detect.c - format detection by magic bytes and a little structure.
 * Protobufs have no magic, so XSpace vs HloProto falls back on the file name. */
#include "detect.h"

#include <string.h>

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && memcmp(s + a - b, suf, b) == 0;
}

detected detect_format(const char *path, const uint8_t *d, size_t n)
{
    if (n == 0)
        return DETECT_EMPTY;
    if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b)
        return DETECT_GZIP;
    if (n >= 6 && memcmp(d,
                         "\xfd"
                         "7zXZ\0",
                         6) == 0)
        return DETECT_XZ;
    if (n >= 4 && memcmp(d, "\x28\xb5\x2f\xfd", 4) == 0)
        return DETECT_ZSTD;
    if (n >= 4 && memcmp(d, "PK\x03\x04", 4) == 0)
        return DETECT_ZIP;
    if (n >= 16 && memcmp(d, "SQLite format 3\0", 16) == 0)
        return DETECT_SQLITE;
    /* spec/nsys-jax.md 3: "NVIDIA Tegra Profiler Report <version>\n", then binary. */
    if (n >= 28 && memcmp(d, "NVIDIA Tegra Profiler Report", 28) == 0)
        return DETECT_NSYS_REP;
    size_t i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
        i++;
    if (i < n && (d[i] == '{' || d[i] == '['))
        return DETECT_JSON;
    if (ends_with(path, ".hlo_proto.pb") || ends_with(path, ".hlo.pb"))
        return DETECT_HLO_PROTO;
    /* Printable ASCII in the first bytes is text, never an XSpace (which opens with a
     * length-delimited field 1..4, a control byte 0x0a..0x22). */
    size_t probe = n < 64 ? n : 64, printable = 0;
    for (size_t k = 0; k < probe; k++)
        printable += (d[k] >= 0x20 && d[k] < 0x7f) || d[k] == '\n' || d[k] == '\t' || d[k] == 0x1b;
    if (printable == probe && probe >= 8)
        return DETECT_TEXT;
    return DETECT_XSPACE;
}

const char *detected_name(detected d)
{
    switch (d) {
    case DETECT_EMPTY:
        return "an empty file";
    case DETECT_XSPACE:
        return "an XSpace protobuf";
    case DETECT_HLO_PROTO:
        return "an HloProto";
    case DETECT_JSON:
        return "JSON text";
    case DETECT_GZIP:
        return "gzip-compressed data";
    case DETECT_XZ:
        return "xz-compressed data";
    case DETECT_ZSTD:
        return "zstd-compressed data";
    case DETECT_ZIP:
        return "a zip archive";
    case DETECT_SQLITE:
        return "an SQLite database";
    case DETECT_TEXT:
        return "plain text";
    case DETECT_NSYS_REP:
        return "an Nsight Systems report (.nsys-rep)";
    }
    return "unknown data";
}
