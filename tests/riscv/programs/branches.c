// A loop of 20 000 iterations whose one conditional branch follows a pseudo-random bit
// ("random": about half of them mispredicted by any predictor) or a fixed one ("regular": learnt
// at once), timed with rdcycle. The loop is written in assembly so that the compiler cannot turn
// the branch into arithmetic; both variants execute the same instructions.
#include <stdio.h>
#include <string.h>

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

int main(int argc, char** argv) {
    const int random = argc > 1 && strcmp(argv[1], "random") == 0;
    // The LCG's multiplier; "regular" masks the tested bit off, so the branch always falls through.
    unsigned long x = 12345, count = 0, n = 20000, mask = random ? 1UL << 40 : 0;
    const unsigned long a = 6364136223846793005UL, c = 1442695040888963407UL;
    unsigned long start = rdcycle();
    __asm__ volatile("1:\n"
                     "  mul %0, %0, %3\n"
                     "  add %0, %0, %4\n"
                     "  and t0, %0, %5\n"
                     "  beqz t0, 2f\n"
                     "  addi %1, %1, 1\n"
                     "2:\n"
                     "  addi %2, %2, -1\n"
                     "  bnez %2, 1b\n"
                     : "+r"(x), "+r"(count), "+r"(n)
                     : "r"(a), "r"(c), "r"(mask)
                     : "t0");
    unsigned long cycles = rdcycle() - start;
    printf("loop %lu\ncount %lu\n", cycles, count);
    return 0;
}
