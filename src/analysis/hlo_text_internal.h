/* hlo_text_internal.h - what hlo_text.c and hlo_text_sharding.c share: reading fields of a
 * serialized message (the instruction's HloInstructionProto bytes) and the sharding and mesh
 * replica group printers. Not part of the library's interface. */
#ifndef PQ_ANALYSIS_HLO_TEXT_INTERNAL_H
#define PQ_ANALYSIS_HLO_TEXT_INTERNAL_H
#include "core/buf.h"
#include "formats/pbwire.h"
#include "model/model.h"

#include <stdint.h>

enum { MAX_INTS = 256 };

/* The last occurrence of field NUM of MSG in *OUT; 0 when absent. */
int ht_field(pq_str msg, uint32_t num, pb_field *out);
/* The bytes of the last length-delimited field NUM of MSG; empty when absent. */
pq_str ht_field_bytes(pq_str msg, uint32_t num);
/* The last varint field NUM of MSG; DFLT when absent. */
int64_t ht_field_int(pq_str msg, uint32_t num, int64_t dflt);
/* Every value of the repeated integer field NUM of MSG (packed or not), at most MAX_INTS. */
uint32_t ht_field_ints(pq_str msg, uint32_t num, int64_t *out);

/* Appends HloSharding::ToString (no metadata) of the OpSharding S; DEPTH: tuple nesting. */
void hlo_text_sharding(buf *b, pq_str s, int depth);
/* Appends ", replica_groups=mesh[...] {...}" when RAW (an HloInstructionProto) has a mesh
 * axes replica group list; 0 (nothing appended) when it has none. */
int hlo_text_mesh_replica_groups(buf *b, pq_str raw);

#endif
