/* hlo_text_dump.c - the test driver of tests/conformance/hlo_text_xla.sh: prints every
 * instruction of a serialized HloProto (the file named by its argument) as
 * src/analysis/hlo_text.c prints it, one "<name>\t<text>" line each, for hlo_text_xla.py to
 * compare with XLA's own text of the same module. Exit 1 when the file does not decode. */
#include "analysis/hlo_text.h"
#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hlo_text_dump HLO_PROTO\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t cap = 1 << 20, n = 0, k;
    uint8_t *data = malloc(cap);
    while (data && (k = fread(data + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *d = realloc(data, cap *= 2);
            if (!d)
                free(data);
            data = d;
        }
    }
    fclose(f);
    if (!data)
        return 1;
    arena a;
    arena_init(&a);
    hlo_module *m = NULL;
    int64_t off;
    const char *what;
    if (hlo_decode(data, n, data, &a, &m, &off, &what) != PQ_OK) {
        fprintf(stderr, "%s@%lld: %s\n", argv[1], (long long)off, what ? what : "");
        arena_release(&a);
        free(data);
        return 1;
    }
    buf b;
    buf_init(&b, NULL);
    for (uint32_t c = 0; c < m->ncomputations; c++)
        for (uint32_t i = 0; i < m->computations[c].ninstructions; i++) {
            const hlo_instruction *ins = &m->computations[c].instructions[i];
            b.n = 0;
            hlo_text_instruction(&b, m, ins);
            printf("%.*s\t%.*s\n", (int)ins->name.n, ins->name.p, (int)b.n, b.p);
        }
    buf_release(&b);
    arena_release(&a);
    free(data);
    return 0;
}
