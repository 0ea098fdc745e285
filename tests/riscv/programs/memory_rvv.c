// memcpy and memset as the loops a program would write (build with -march=rv64gcv): the RVV
// strip-mined loop `vsetvli e8,m<L>; vle8.v; vse8.v` at LMUL 1, 2, 4 and 8 (the board's `rvv_m<L>`
// columns), the scalar one (8-byte ld/sd) and the byte one (lbu/sb). Arguments:
// memcpy|memset[_m1|_m2|_m4|_m8]|memcpy_scalar|memset_scalar|memcpy_bytes|memset_bytes BYTES PASSES
// (memcpy and memset alone: LMUL 8). Prints the cycles of the first pass and the mean of the later
// ones (the buffers warm), from rdcycle.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

#define MAX_BYTES (8u << 20)
static unsigned char source[MAX_BYTES] __attribute__((aligned(4096)));
static unsigned char destination[MAX_BYTES] __attribute__((aligned(4096)));

// One copy and one fill per LMUL: the loops the board's `rvv_m<L>` columns time.
#define RVV_LOOPS(L)                                                                                    \
    static void copy_rvv_m##L(unsigned char* d, const unsigned char* s, unsigned long n) {             \
        __asm__ volatile("1:\n vsetvli t0, %2, e8, m" #L ", ta, ma\n vle8.v v8, (%1)\n vse8.v v8, (%0)\n" \
                         " add %1, %1, t0\n add %0, %0, t0\n sub %2, %2, t0\n bnez %2, 1b"               \
                         : "+r"(d), "+r"(s), "+r"(n)::"t0", "memory");                                  \
    }                                                                                                   \
    static void set_rvv_m##L(unsigned char* d, int value, unsigned long n) {                           \
        __asm__ volatile("vsetvli t0, zero, e8, m" #L ", ta, ma\n vmv.v.x v8, %2\n"                     \
                         "1:\n vsetvli t0, %1, e8, m" #L ", ta, ma\n vse8.v v8, (%0)\n"                 \
                         " add %0, %0, t0\n sub %1, %1, t0\n bnez %1, 1b"                               \
                         : "+r"(d), "+r"(n)                                                             \
                         : "r"(value)                                                                   \
                         : "t0", "memory");                                                             \
    }
RVV_LOOPS(1)
RVV_LOOPS(2)
RVV_LOOPS(4)
RVV_LOOPS(8)
static void copy_scalar(unsigned char* d, const unsigned char* s, unsigned long n) {
    __asm__ volatile("1:\n ld t0, 0(%1)\n sd t0, 0(%0)\n addi %1, %1, 8\n addi %0, %0, 8\n"
                     " addi %2, %2, -8\n bnez %2, 1b"
                     : "+r"(d), "+r"(s), "+r"(n)::"t0", "memory");
}
static void set_scalar(unsigned char* d, int value, unsigned long n) {
    unsigned long word = 0x0101010101010101ul * (unsigned char)value;
    __asm__ volatile("1:\n sd %2, 0(%0)\n addi %0, %0, 8\n addi %1, %1, -8\n bnez %1, 1b"
                     : "+r"(d), "+r"(n)
                     : "r"(word)
                     : "memory");
}

// The byte loops a plain C `while (n--) *d++ = *s++;` compiles to at -O2 without vectorisation
// (the board's `scalar` column): lbu/sb and two pointer increments per byte, the end compared.
static void copy_bytes(unsigned char* d, const unsigned char* s, unsigned long n) {
    unsigned char* end = d + n;
    __asm__ volatile("1:\n lbu t0, 0(%1)\n sb t0, 0(%0)\n addi %1, %1, 1\n addi %0, %0, 1\n bne %0, %2, 1b"
                     : "+r"(d), "+r"(s)
                     : "r"(end)
                     : "t0", "memory");
}
static void set_bytes(unsigned char* d, int value, unsigned long n) {
    unsigned char* end = d + n;
    __asm__ volatile("1:\n sb %2, 0(%0)\n addi %0, %0, 1\n bne %0, %1, 1b" : "+r"(d) : "r"(end), "r"(value) : "memory");
}

int main(int argc, char** argv) {
    if (argc != 4)
        return 2;
    const char* kind = argv[1];
    const unsigned long bytes = strtoul(argv[2], 0, 10), passes = strtoul(argv[3], 0, 10);
    if (bytes == 0 || bytes > MAX_BYTES || bytes % 8 || passes < 2)
        return 2;
    const int copies = !strncmp(kind, "memcpy", 6);
    // A memset has no source: filling one would leave its lines in the caches the passes use.
    if (copies)
        for (unsigned long i = 0; i < bytes; ++i)
            source[i] = (unsigned char)(i * 7);
    static const struct {
        const char* kind;
        void (*copy)(unsigned char*, const unsigned char*, unsigned long);
        void (*set)(unsigned char*, int, unsigned long);
    } loops[] = {{"memcpy", copy_rvv_m8, 0},        {"memcpy_m1", copy_rvv_m1, 0},  {"memcpy_m2", copy_rvv_m2, 0},
                 {"memcpy_m4", copy_rvv_m4, 0},     {"memcpy_m8", copy_rvv_m8, 0},  {"memcpy_scalar", copy_scalar, 0},
                 {"memcpy_bytes", copy_bytes, 0},   {"memset", 0, set_rvv_m8},      {"memset_m1", 0, set_rvv_m1},
                 {"memset_m2", 0, set_rvv_m2},      {"memset_m4", 0, set_rvv_m4},   {"memset_m8", 0, set_rvv_m8},
                 {"memset_scalar", 0, set_scalar},  {"memset_bytes", 0, set_bytes}};
    void (*copy)(unsigned char*, const unsigned char*, unsigned long) = 0;
    void (*set)(unsigned char*, int, unsigned long) = 0;
    for (unsigned i = 0; i < sizeof loops / sizeof loops[0]; ++i)
        if (!strcmp(kind, loops[i].kind)) {
            copy = loops[i].copy;
            set = loops[i].set;
        }
    if (!copy && !set)
        return 2;
    unsigned long first = 0, later = 0;
    for (unsigned long p = 0; p < passes; ++p) {
        const unsigned long start = rdcycle();
        if (copies)
            copy(destination, source, bytes);
        else
            set(destination, 7, bytes);
        const unsigned long cycles = rdcycle() - start;
        if (p == 0)
            first = cycles;
        else
            later += cycles;
    }
    if (copies ? memcmp(destination, source, bytes) : destination[bytes - 1] != 7)
        return 1;
    printf("first_pass %lu\nwarm_pass %.1f\nwarm_bytes_per_cycle %.3f\n", first, (double)later / (passes - 1),
           (double)bytes * (passes - 1) / later);
    return 0;
}
