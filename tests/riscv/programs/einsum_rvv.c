// Seed 000's r-loop einsum with RVV intrinsics (clang-14 --target=riscv64-linux-gnu
// -march=rv64gcv -O2 -static): Output[m][b][r] = Σ_k G_t[m][r][k] · Input[b][k], the core packed
// as G_t[m][r/vl][k][r%vl] so each core load is unit-stride, the input broadcast per k. The
// results go to stdout (equal under qemu and tessim); the einsum's cycles, from rdcycle, to stderr.
// Arguments: mt bt rt K (rt a multiple of 8, the e32m1 vector length at VLEN 256). Before the
// einsum the program writes 2 MiB elsewhere, so that G_t and Input start in the DDR, as a
// generated kernel's operands do.
#include <riscv_vector.h>
#include <stdio.h>
#include <stdlib.h>

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

int main(int argc, char** argv) {
    const long mt = argc > 4 ? atol(argv[1]) : 16, bt = argc > 4 ? atol(argv[2]) : 4;
    const long rt = argc > 4 ? atol(argv[3]) : 16, kt = argc > 4 ? atol(argv[4]) : 16;
    float* G_t = malloc(sizeof(float) * mt * rt * kt);
    float* Input = malloc(sizeof(float) * bt * kt);
    float* Output = malloc(sizeof(float) * mt * bt * rt);
    if (!G_t || !Input || !Output || rt % 8)
        return 2;
    for (long i = 0; i < mt * rt * kt; ++i)
        G_t[i] = (float)((i * 7) % 13 - 6);
    for (long i = 0; i < bt * kt; ++i)
        Input[i] = (float)((i * 5) % 11 - 5);
    static volatile long evict[(2 << 20) / sizeof(long)];
    for (unsigned long i = 0; i < sizeof evict / sizeof evict[0]; i += 8)
        evict[i] = (long)i;
    const unsigned long start = rdcycle();
    for (long m = 0; m < mt; m++) {
        for (long b = 0; b < bt; b++) {
            for (long r = 0; r < rt;) {
                const size_t vl = vsetvl_e32m1(rt - r);
                long c = m * rt * kt + r * kt;
                vfloat32m1_t out = vfmv_v_f_f32m1(0.0f, vl);
                for (long k = 0; k < kt; k++) {
                    const vfloat32m1_t core = vle32_v_f32m1(&G_t[c], vl);
                    const vfloat32m1_t in = vfmv_v_f_f32m1(Input[b * kt + k], vl);
                    out = vfmacc_vv_f32m1(out, core, in, vl);
                    c += vl;
                }
                vse32_v_f32m1(&Output[m * bt * rt + b * rt + r], out, vl);
                r += vl;
            }
        }
    }
    const unsigned long cycles = rdcycle() - start;
    double sum = 0;
    for (long i = 0; i < mt * bt * rt; ++i)
        sum += Output[i] * (double)(i % 17 + 1);
    printf("einsum %ldx%ldx%ldx%ld checksum %.1f first %.1f last %.1f\n", mt, bt, rt, kt, sum, Output[0],
           Output[mt * bt * rt - 1]);
    fprintf(stderr, "einsum_cycles %lu\n", cycles);
    return 0;
}
