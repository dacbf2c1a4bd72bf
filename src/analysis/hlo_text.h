/* hlo_text.h - one HLO instruction as XLA's HloInstruction::ToString prints it with the
 * options XProf uses for its op expressions (xprof/utils/hlo_module_utils.h
 * UncachedExpression): no metadata, no backend_config, no infeed/outfeed config, operand
 * shapes printed, large constants elided. docs/internals/hlo_text.md lists what is printed. */
#ifndef PQ_ANALYSIS_HLO_TEXT_H
#define PQ_ANALYSIS_HLO_TEXT_H
#include "core/buf.h"
#include "formats/hlo.h"

/* Appends INS (an instruction of M, decoded by hlo_decode) to B, e.g.
 * "%copy.1 = bf16[] copy(bf16[] %args_0_.1)". Operands and called computations are looked
 * up in M by id; an id M does not hold prints as "%<unknown>". */
void hlo_text_instruction(buf *b, const hlo_module *m, const hlo_instruction *ins);

#endif
