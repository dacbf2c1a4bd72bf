/* hlo_cost_profile.c - the per-opcode tables of the GPU HLO cost analysis: the elementwise
 * opcodes (HloInstruction::IsElementwise) and the default GPU elementwise profile, the
 * clock cycles per element XLA charges as FLOPs. Not here: the rules per opcode family
 * and the visitor over a module (hlo_cost.c). */
#include "analysis/hlo_cost.h"

#include "model/model.h"

#include <stddef.h>

/* ---- the default GPU elementwise profile (XLA hlo_op_profiles_data.h, "sm_86", which
 * GpuHloCostAnalysis uses when no device description is given, as in XProf): clock cycles
 * per element, charged as FLOPs. ---- */

enum { T_S8 = 2, T_S16, T_S32, T_S64, T_U8, T_U16, T_U32, T_U64, T_F16, T_F32, T_F64 };
enum { T_C64 = 15, T_C128 = 18 };

static const struct {
    const char *op;
    int8_t type;
    int32_t cycles;
} PROFILE[] = {
    {"divide", T_S8, 370},
    {"power", T_S8, 392},
    {"divide", T_S16, 367},
    {"power", T_S16, 396},
    {"divide", T_S32, 306},
    {"divide", T_S64, 918},
    {"power", T_S64, 601},
    {"divide", T_U8, 306},
    {"power", T_U8, 388},
    {"divide", T_U16, 302},
    {"power", T_U16, 399},
    {"divide", T_U32, 115},
    {"divide", T_U64, 838},
    {"power", T_U64, 604},
    {"cbrt", T_F16, 925},
    {"cosine", T_F16, 691},
    {"exponential", T_F16, 108},
    {"exponential-minus-one", T_F16, 396},
    {"log", T_F16, 266},
    {"log-plus-one", T_F16, 284},
    {"logistic", T_F16, 226},
    {"rsqrt", T_F16, 97},
    {"sqrt", T_F16, 97},
    {"tanh", T_F16, 212},
    {"atan2", T_F16, 482},
    {"power", T_F16, 975},
    {"cbrt", T_F32, 867},
    {"cosine", T_F32, 662},
    {"exponential", T_F32, 86},
    {"exponential-minus-one", T_F32, 381},
    {"log", T_F32, 244},
    {"log-plus-one", T_F32, 262},
    {"logistic", T_F32, 176},
    {"rsqrt", T_F32, 75},
    {"sine", T_F32, 662},
    {"sqrt", T_F32, 75},
    {"tanh", T_F32, 190},
    {"atan2", T_F32, 486},
    {"power", T_F32, 925},
    {"cbrt", T_F64, 6339},
    {"cosine", T_F64, 1717},
    {"exponential", T_F64, 1652},
    {"exponential-minus-one", T_F64, 1900},
    {"log", T_F64, 608},
    {"log-plus-one", T_F64, 2073},
    {"logistic", T_F64, 2412},
    {"rsqrt", T_F64, 698},
    {"sine", T_F64, 1789},
    {"sqrt", T_F64, 986},
    {"tanh", T_F64, 1609},
    {"add", T_F64, 97},
    {"atan2", T_F64, 3747},
    {"divide", T_F64, 2016},
    {"multiply", T_F64, 97},
    {"power", T_F64, 5511},
    {"subtract", T_F64, 97},
    {"exponential", T_C64, 1360},
    {"exponential-minus-one", T_C64, 1400},
    {"log", T_C64, 950},
    {"log-plus-one", T_C64, 842},
    {"rsqrt", T_C64, 2383},
    {"sqrt", T_C64, 3193},
    {"atan2", T_C64, 5353},
    {"divide", T_C64, 687},
    {"power", T_C64, 3351},
    {"cosine", T_C128, 6613},
    {"exponential", T_C128, 4028},
    {"exponential-minus-one", T_C128, 4161},
    {"log", T_C128, 7599},
    {"log-plus-one", T_C128, 6962},
    {"rsqrt", T_C128, 11318},
    {"sine", T_C128, 5878},
    {"sqrt", T_C128, 15606},
    {"tanh", T_C128, 9939},
    {"add", T_C128, 97},
    {"atan2", T_C128, 39027},
    {"divide", T_C128, 7941},
    {"multiply", T_C128, 270},
    {"power", T_C128, 18205},
    {"subtract", T_C128, 97},
};

int64_t hlo_cost_elementwise_flops(pq_str opcode, int32_t element_type)
{
    for (size_t i = 0; i < sizeof PROFILE / sizeof PROFILE[0]; i++)
        if (PROFILE[i].type == element_type && pq_str_eq(opcode, PROFILE[i].op))
            return PROFILE[i].cycles;
    return 3; /* "elementwise instructions typically take at least a few clock cycles" */
}

/* HloInstruction::IsElementwise() opcodes (fusions and constants are checked separately). */
static const char *const ELEMENTWISE[] = {
    "abs",
    "add",
    "and",
    "atan2",
    "bitcast-convert",
    "cbrt",
    "ceil",
    "clamp",
    "clz",
    "compare",
    "complex",
    "convert",
    "copy",
    "cosine",
    "divide",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "imag",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "not",
    "or",
    "popcnt",
    "power",
    "real",
    "reduce-precision",
    "remainder",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "select",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "sign",
    "sine",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "xor",
};

int hlo_opcode_is_elementwise(pq_str opcode)
{
    for (size_t i = 0; i < sizeof ELEMENTWISE / sizeof ELEMENTWISE[0]; i++)
        if (pq_str_eq(opcode, ELEMENTWISE[i]))
            return 1;
    return 0;
}
