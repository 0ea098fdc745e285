// Closed-form timing of RVV instructions, timed by the program with rdcycle (build with
// -march=rv64gcv): independent vfmacc.vv at e32 m1…m8 (enough register groups in flight that the
// unit's issue interval, not the latency, bounds them: n × the reciprocal throughput), dependent
// chains of vfmacc.vv (n × the latency), and an L1-resident vle32.v stream at m1…m8 (the
// load/store unit's rate per register group).
#include <stdio.h>

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

static float buffer[4096] __attribute__((aligned(64)));  // 16 KiB: in the 32 KiB L1 once touched

#define PART(name, body, ...)                                                                                \
    do {                                                                                                     \
        unsigned long start = rdcycle();                                                                     \
        __asm__ volatile(body ::__VA_ARGS__);                                                                \
        printf("%s %lu\n", name, rdcycle() - start);                                                         \
    } while (0)

int main(void) {
    for (int i = 0; i < 4096; ++i)
        buffer[i] = (float)i;
    // 800 instructions per part.
    __asm__ volatile("vsetvli t0, zero, e32, m1, ta, ma\n vmv.v.i v16, 1\n vmv.v.i v17, 1" ::: "t0");
    PART("fmacc_independent_m1",
         ".rept 100\n vfmacc.vv v8, v16, v17\n vfmacc.vv v9, v16, v17\n vfmacc.vv v10, v16, v17\n"
         " vfmacc.vv v11, v16, v17\n vfmacc.vv v12, v16, v17\n vfmacc.vv v13, v16, v17\n"
         " vfmacc.vv v14, v16, v17\n vfmacc.vv v15, v16, v17\n .endr");
    PART("fmacc_chain_m1", ".rept 800\n vfmacc.vv v8, v16, v17\n .endr");
    __asm__ volatile("vsetvli t0, zero, e32, m2, ta, ma" ::: "t0");
    PART("fmacc_independent_m2",
         ".rept 200\n vfmacc.vv v8, v16, v18\n vfmacc.vv v10, v16, v18\n vfmacc.vv v12, v16, v18\n"
         " vfmacc.vv v14, v16, v18\n .endr");
    PART("fmacc_chain_m2", ".rept 800\n vfmacc.vv v8, v16, v18\n .endr");
    __asm__ volatile("vsetvli t0, zero, e32, m4, ta, ma" ::: "t0");
    PART("fmacc_independent_m4", ".rept 400\n vfmacc.vv v8, v16, v20\n vfmacc.vv v12, v16, v20\n .endr");
    PART("fmacc_chain_m4", ".rept 800\n vfmacc.vv v8, v16, v20\n .endr");
    __asm__ volatile("vsetvli t0, zero, e32, m8, ta, ma" ::: "t0");
    PART("fmacc_independent_m8", ".rept 400\n vfmacc.vv v8, v24, v24\n vfmacc.vv v16, v24, v24\n .endr");
    PART("fmacc_chain_m8", ".rept 800\n vfmacc.vv v8, v24, v24\n .endr");

    // vle32.v from the L1: 800 loads per LMUL into alternating groups, addresses within 16 KiB.
    __asm__ volatile("vsetvli t0, zero, e32, m1, ta, ma" ::: "t0");
    PART("vle32_m1",
         ".rept 100\n vle32.v v8, (%0)\n vle32.v v9, (%0)\n vle32.v v10, (%0)\n vle32.v v11, (%0)\n"
         " vle32.v v12, (%0)\n vle32.v v13, (%0)\n vle32.v v14, (%0)\n vle32.v v15, (%0)\n .endr",
         "r"(buffer));
    __asm__ volatile("vsetvli t0, zero, e32, m2, ta, ma" ::: "t0");
    PART("vle32_m2",
         ".rept 200\n vle32.v v8, (%0)\n vle32.v v10, (%0)\n vle32.v v12, (%0)\n vle32.v v14, (%0)\n"
         " .endr",
         "r"(buffer + 1024));
    __asm__ volatile("vsetvli t0, zero, e32, m4, ta, ma" ::: "t0");
    PART("vle32_m4", ".rept 400\n vle32.v v8, (%0)\n vle32.v v12, (%0)\n .endr", "r"(buffer + 2048));
    __asm__ volatile("vsetvli t0, zero, e32, m8, ta, ma" ::: "t0");
    PART("vle32_m8", ".rept 400\n vle32.v v8, (%0)\n vle32.v v16, (%0)\n .endr", "r"(buffer + 3072));
    return 0;
}
