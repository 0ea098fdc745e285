// Load streams timed with rdcycle: "chase <bytes>" follows a random cycle of 64 B lines over a
// buffer of that size (each load's address comes from the one before: the load-to-use latency of
// the level the buffer lives in), "stream <bytes>" reads the buffer with independent 8-byte loads
// (the rate of that level). Each first walks the buffer once, untimed, so it starts warm.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

int main(int argc, char** argv) {
    if (argc != 3)
        return 2;
    const unsigned long bytes = strtoul(argv[2], 0, 0), lines = bytes / 64;
    unsigned long* buf = aligned_alloc(4096, bytes);
    if (!buf)
        return 3;
    if (strcmp(argv[1], "chase") == 0) {
        // A random cyclic order of the lines (Sattolo's shuffle, a fixed LCG): line i points to the next.
        unsigned long* order = malloc(lines * sizeof *order);
        for (unsigned long i = 0; i < lines; ++i)
            order[i] = i;
        unsigned long seed = 88172645463325252UL;
        for (unsigned long i = lines - 1; i > 0; --i) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            unsigned long j = (seed >> 33) % i, t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (unsigned long i = 0; i < lines; ++i)
            buf[order[i] * 8] = (unsigned long)&buf[order[(i + 1) % lines] * 8];
        unsigned long* p = &buf[order[0] * 8];
        for (unsigned long i = 0; i < lines; ++i)
            p = (unsigned long*)*p;
        const unsigned long n = 20000;
        unsigned long start = rdcycle();
        for (unsigned long i = 0; i < n; ++i)
            __asm__ volatile("ld %0, 0(%0)" : "+r"(p));
        unsigned long cycles = rdcycle() - start;
        printf("cycles_per_load %.3f\nend %p\n", (double)cycles / n, (void*)p);
    } else {
        memset(buf, 1, bytes);
        // 64 loads of one 512 B block per iteration, nothing waiting for them.
        const unsigned long passes = 4, loads = passes * bytes / 8;
        unsigned long start = rdcycle();
        for (unsigned long pass = 0; pass < passes; ++pass)
            for (unsigned long* q = buf; q < buf + bytes / 8; q += 64)
                __asm__ volatile(".set offset, 0\n"
                                 ".rept 8\n"
                                 "ld t0, offset(%0)\n ld t1, offset+8(%0)\n ld t2, offset+16(%0)\n"
                                 "ld t3, offset+24(%0)\n ld t4, offset+32(%0)\n ld t5, offset+40(%0)\n"
                                 "ld t6, offset+48(%0)\n ld a7, offset+56(%0)\n"
                                 ".set offset, offset+64\n"
                                 ".endr\n"
                                 :
                                 : "r"(q)
                                 : "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a7", "memory");
        unsigned long cycles = rdcycle() - start;
        printf("cycles_per_load %.3f\n", (double)cycles / loads);
    }
    return 0;
}
