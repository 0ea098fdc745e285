// Closed-form timing checks, timed by the program itself with rdcycle: 20 000 independent adds
// (a dual-issue core: 10 000 cycles), chains of dependent multiplies, divides and FP operations
// (n × the latency), independent multiplies (n × the multiplier's issue interval), and a function
// whose profile cycles the test compares with rdcycle around its call.
#include <stdio.h>
#include <stdlib.h>

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

__attribute__((noinline)) long kernel(long n) {
    long s = 0;
    for (long i = 0; i < n; ++i)
        s += i * 3 ^ (s >> 1);
    return s;
}

int main(int argc, char** argv) {
    unsigned long t0 = rdcycle();
    __asm__ volatile(".rept 2500\n"
                     "add t0, t0, a0\n add t1, t1, a0\n add t2, t2, a0\n add t3, t3, a0\n"
                     "add t4, t4, a0\n add t5, t5, a0\n add t6, t6, a0\n add a5, a5, a0\n"
                     ".endr" ::
                         : "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a5");
    unsigned long t1 = rdcycle();
    long m = argc + 2;
    __asm__ volatile(".rept 5000\n mul %0, %0, %0\n .endr" : "+r"(m));
    unsigned long t2 = rdcycle();
    long s = kernel(argc > 1 ? atol(argv[1]) : 20000);
    unsigned long t3 = rdcycle();
    printf("adds %lu\nmuls %lu\nkernel %lu\nresult %ld %ld\n", t1 - t0, t2 - t1, t3 - t2, s, m);

    // One part per line: its name and its cycles.
#define PART(name, body, ...)                                                                                \
    do {                                                                                                     \
        unsigned long start = rdcycle();                                                                     \
        __asm__ volatile(body : __VA_ARGS__);                                                                \
        printf("%s %lu\n", name, rdcycle() - start);                                                         \
    } while (0)
    long w = argc + 5, q = 1000000007L * (argc + 1), d = argc + 1;
    double x = 1.0 + argc, y = 1.0;
    float f = 1.0f + argc, g = 1.0f;
    PART("mulws", ".rept 1000\n mulw %0, %0, %0\n .endr", "+r"(w));
    PART("divs", ".rept 1000\n div %0, %0, %1\n .endr", "+r"(q) : "r"(d));
    PART("divws", ".rept 1000\n divw %0, %0, %1\n .endr", "+r"(q) : "r"(d));
    PART("independent_muls",
         ".rept 250\n mul t0, t0, %0\n mul t1, t1, %0\n mul t2, t2, %0\n mul t3, t3, %0\n .endr",
         : "r"(w)
         : "t0", "t1", "t2", "t3");
    PART("fadds_d", ".rept 1000\n fadd.d %0, %0, %1\n .endr", "+f"(x) : "f"(y));
    PART("fmadds_s", ".rept 1000\n fmadd.s %0, %0, %1, %1\n .endr", "+f"(f) : "f"(g));
    PART("fdivs_d", ".rept 1000\n fdiv.d %0, %0, %1\n .endr", "+f"(x) : "f"(y));
    PART("fsqrts_s", ".rept 1000\n fsqrt.s %0, %0\n .endr", "+f"(f));
    printf("values %ld %ld %g %g\n", w, q, x, (double)f);
    return 0;
}
