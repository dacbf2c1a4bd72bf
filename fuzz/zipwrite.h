/* zipwrite.h - a minimal zip writer for the fuzz targets that put their input into an
 * archive (fuzz_nsysjax.c, fuzz_nsyshlo.c): stored members, then the central directory and
 * the end record, so that mutations reach the reader behind the zip rather than the zip
 * checks (fuzz_zip covers those). Header-only: each target is one translation unit. */
#ifndef PQ_FUZZ_ZIPWRITE_H
#define PQ_FUZZ_ZIPWRITE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

static size_t le(uint8_t *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return (size_t)n;
}

/* Appends a stored member (local header + data at Z+O, central entry at CD+*CO). */
static size_t member(uint8_t *z, size_t o, const char *name, const uint8_t *d, size_t n,
                     uint8_t *cd, size_t *co)
{
    uint32_t crc = (uint32_t)crc32(0, d, (uInt)n);
    size_t nl = strlen(name), at = o, c = *co;
    o += le(z + o, 0x04034b50, 4) + le(z + o + 4, 20, 2) + le(z + o + 6, 0, 4) +
         le(z + o + 10, 0, 4) + le(z + o + 14, crc, 4) + le(z + o + 18, (uint32_t)n, 4) +
         le(z + o + 22, (uint32_t)n, 4) + le(z + o + 26, (uint32_t)nl, 2) + le(z + o + 28, 0, 2);
    memcpy(z + o, name, nl);
    memcpy(z + o + nl, d, n);
    c += le(cd + c, 0x02014b50, 4) + le(cd + c + 4, 20, 2) + le(cd + c + 6, 20, 2) +
         le(cd + c + 8, 0, 4) + le(cd + c + 12, 0, 4) + le(cd + c + 16, crc, 4) +
         le(cd + c + 20, (uint32_t)n, 4) + le(cd + c + 24, (uint32_t)n, 4) +
         le(cd + c + 28, (uint32_t)nl, 2) + le(cd + c + 30, 0, 4) + le(cd + c + 34, 0, 4) +
         le(cd + c + 38, 0, 4) + le(cd + c + 42, (uint32_t)at, 4);
    memcpy(cd + c, name, nl);
    *co = c + nl;
    return o + nl + n;
}

/* Appends the central directory CD[0..CO) of NMEMBERS members at Z+O and the end record;
 * returns the archive's size. */
static size_t zip_finish(uint8_t *z, size_t o, const uint8_t *cd, size_t co, uint32_t nmembers)
{
    size_t cdo = o;
    memcpy(z + o, cd, co);
    o += co;
    o += le(z + o, 0x06054b50, 4) + le(z + o + 4, 0, 4) + le(z + o + 8, nmembers, 2) +
         le(z + o + 10, nmembers, 2) + le(z + o + 12, (uint32_t)co, 4) +
         le(z + o + 16, (uint32_t)cdo, 4) + le(z + o + 20, 0, 2);
    return o;
}

#endif
