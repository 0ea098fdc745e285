// Closed-form timing checks, timed by the program itself with rdcycle: 20 000 independent adds
// (a dual-issue core: 10 000 cycles), 5 000 dependent multiplies (5 000 × the IMul latency), and a
// function whose profile cycles the test compares with rdcycle around its call.
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
                     ".endr" ::: "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a5");
    unsigned long t1 = rdcycle();
    long m = argc + 2;
    __asm__ volatile(".rept 5000\n mul %0, %0, %0\n .endr" : "+r"(m));
    unsigned long t2 = rdcycle();
    long s = kernel(argc > 1 ? atol(argv[1]) : 20000);
    unsigned long t3 = rdcycle();
    printf("adds %lu\nmuls %lu\nkernel %lu\nresult %ld %ld\n", t1 - t0, t2 - t1, t3 - t2, s, m);
    return 0;
}
