/* xplane_bmi2.c - the XSpace reader compiled a second time for x86-64 CPUs with BMI2, so
 * that multi-byte varints are gathered with one PEXT instead of three mask-and-shift
 * steps (16% fewer instructions on the benchmark XSpace). xplane_read() in xplane.c picks
 * this build at run time when the CPU has fast PEXT. Nothing else differs. */
#include "xplane.h"

#if XPLANE_HAVE_BMI2
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("bmi2"))), apply_to = function)
#else
#pragma GCC target("bmi2")
#endif
#define PB_USE_PEXT      1
#define XPLANE_READ_NAME xplane_read_bmi2
#include "xplane.c"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#else
typedef int xplane_bmi2_unused; /* ISO C wants a translation unit to declare something */
#endif
