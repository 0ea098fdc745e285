// Seed 000's r-loop einsum (clang-14 --target=riscv64-linux-gnu -march=rv64gcv -O2 -static
// -pthread): Output[m][b][r] = Σ_k G_t[m][r][k] · Input[b][k], as the seed writes it:
//   rvv      RVV intrinsics over r, the core packed as G_t[m][r/vl][k][r%vl] so each core load is
//            unit-stride, the input broadcast per k (one thread);
//   scalar   the packed scalar loop nest, G_t[m][r][k] (one thread);
//   threads  the rvv loop nest with m split over 4 threads (pthreads), started before the clock,
//            released together by a barrier and timed to the barrier after the last slice.
// The results go to stdout (equal under qemu and tessim); the einsum's cycles, from rdcycle, to
// stderr. Arguments: mt bt rt K [rvv|scalar|threads] (rt a multiple of 8, the e32m1 vector
// length at VLEN 256). Before the einsum the program reads 2 MiB elsewhere, so that G_t and
// Input start in the DDR, as a generated kernel's operands do.
#include <pthread.h>
#include <riscv_vector.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4

static long mt = 16, bt = 4, rt = 16, kt = 16;
static float *G_t, *Input, *Output;
static pthread_barrier_t start, done;

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

// Rows m0 … m1 − 1 of the output; the sizes and arrays in locals, so that the loops keep them
// in registers (a vector store may alias the globals).
static void einsumVector(long m0, long m1) {
    const long B = bt, R = rt, K = kt;
    const float* G = G_t;
    const float* In = Input;
    float* Out = Output;
    for (long m = m0; m < m1; m++) {
        for (long b = 0; b < B; b++) {
            for (long r = 0; r < R;) {
                const size_t vl = vsetvl_e32m1(R - r);
                long c = m * R * K + r * K;
                vfloat32m1_t out = vfmv_v_f_f32m1(0.0f, vl);
                for (long k = 0; k < K; k++) {
                    const vfloat32m1_t core = vle32_v_f32m1(&G[c], vl);
                    const vfloat32m1_t in = vfmv_v_f_f32m1(In[b * K + k], vl);
                    out = vfmacc_vv_f32m1(out, core, in, vl);
                    c += vl;
                }
                vse32_v_f32m1(&Out[m * B * R + b * R + r], out, vl);
                r += vl;
            }
        }
    }
}

static void einsumScalar(void) {
    const long M = mt, B = bt, R = rt, K = kt;
    const float* G = G_t;
    const float* In = Input;
    float* Out = Output;
    for (long m = 0; m < M; m++)
        for (long b = 0; b < B; b++)
            for (long r = 0; r < R; r++) {
                float s = 0;
#pragma clang loop vectorize(disable)
                for (long k = 0; k < K; k++)
                    s += G[m * R * K + r * K + k] * In[b * K + k];
                Out[m * B * R + b * R + r] = s;
            }
}

static void* worker(void* arg) {
    const long t = (long)arg;
    pthread_barrier_wait(&start);
    einsumVector(t * mt / THREADS, (t + 1) * mt / THREADS);
    pthread_barrier_wait(&done);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc > 4) {
        mt = atol(argv[1]);
        bt = atol(argv[2]);
        rt = atol(argv[3]);
        kt = atol(argv[4]);
    }
    const char* mode = argc > 5 ? argv[5] : "rvv";
    G_t = malloc(sizeof(float) * mt * rt * kt);
    Input = malloc(sizeof(float) * bt * kt);
    Output = malloc(sizeof(float) * mt * bt * rt);
    if (!G_t || !Input || !Output || rt % 8)
        return 2;
    for (long i = 0; i < mt * rt * kt; ++i)
        G_t[i] = (float)((i * 7) % 13 - 6);
    for (long i = 0; i < bt * kt; ++i)
        Input[i] = (float)((i * 5) % 11 - 5);
    // Reads, not writes: the caches then hold clean lines of another array, as a cold cache would
    // hold none the operands need, and no write-back competes with the operands' reads.
    static volatile long evict[(2 << 20) / sizeof(long)];
    long evicted = 0;
    for (unsigned long i = 0; i < sizeof evict / sizeof evict[0]; i += 8)
        evicted += evict[i];
    if (evicted != 0)
        return 4;
    unsigned long cycles = 0;
    if (strcmp(mode, "threads") == 0) {
        pthread_t threads[THREADS];
        pthread_barrier_init(&start, NULL, THREADS);
        pthread_barrier_init(&done, NULL, THREADS);
        for (long t = 1; t < THREADS; ++t)
            if (pthread_create(&threads[t], NULL, worker, (void*)t) != 0)
                return 3;
        pthread_barrier_wait(&start);
        const unsigned long begin = rdcycle();
        einsumVector(0, mt / THREADS);
        pthread_barrier_wait(&done);
        cycles = rdcycle() - begin;
        for (long t = 1; t < THREADS; ++t)
            pthread_join(threads[t], NULL);
    } else {
        const unsigned long begin = rdcycle();
        if (strcmp(mode, "scalar") == 0)
            einsumScalar();
        else
            einsumVector(0, mt);
        cycles = rdcycle() - begin;
    }
    double sum = 0;
    for (long i = 0; i < mt * bt * rt; ++i)
        sum += Output[i] * (double)(i % 17 + 1);
    printf("einsum %ldx%ldx%ldx%ld %s checksum %.1f first %.1f last %.1f\n", mt, bt, rt, kt, mode, sum, Output[0],
           Output[mt * bt * rt - 1]);
    fprintf(stderr, "einsum_cycles %lu\n", cycles);
    return 0;
}
