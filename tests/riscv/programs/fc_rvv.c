// Seed 000's dense fully connected layer y[b][o] = Σ_i x[b][i] · W[o][i] in C (clang-14
// --target=riscv64-linux-gnu -march=rv64gcv -O2 -static -pthread), as the generated `fc` kernel
// computes it (workloads/fc, plans fc/single-thread and fc/cluster):
//   rvv      RVV intrinsics over `in` at LMUL 2, register blocks of 2 batch rows × 4 outputs (8
//            accumulators, 2 x rows, 4 W rows: 28 of 32 vector registers), each block reduced
//            with vfredusum; blocks with batch rows inside, outputs outside (one thread);
//   scalar   the plain loop nest (one thread);
//   threads  the rvv blocks with the outputs split into 4 contiguous slices (pthreads), started
//            before the clock, released together by a barrier and timed to the barrier after
//            the last slice.
// The outputs' checksum goes to stdout (equal under qemu and tessim); the layer's cycles, from
// rdcycle, to stderr. Arguments: in out batch [rvv|scalar|threads] (out a multiple of 16, batch
// even). Before the layer the program reads 2 MiB elsewhere, so that W and x start in the DDR,
// as a generated kernel's operands do.
#include <pthread.h>
#include <riscv_vector.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4

static long in = 1024, out = 256, batch = 4;
static float *W, *x, *y;
static pthread_barrier_t start, done;

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

// Outputs o0 … o1 − 1 for every batch row, in blocks of 2 rows × 4 outputs.
static void fcVector(long o0, long o1) {
    const long I = in, O = out, B = batch;
    const float* w = W;
    const float* xs = x;
    float* ys = y;
    for (long o = o0; o < o1; o += 4) {
        for (long b = 0; b < B; b += 2) {
            const float* x0 = xs + b * I;
            const float* x1 = x0 + I;
            const float* w0 = w + o * I;
            const float* w1 = w0 + I;
            const float* w2 = w1 + I;
            const float* w3 = w2 + I;
            size_t vl = vsetvl_e32m2(I);
            vfloat32m2_t a0 = vle32_v_f32m2(x0, vl), a1 = vle32_v_f32m2(x1, vl);
            vfloat32m2_t c0 = vle32_v_f32m2(w0, vl), c1 = vle32_v_f32m2(w1, vl);
            vfloat32m2_t c2 = vle32_v_f32m2(w2, vl), c3 = vle32_v_f32m2(w3, vl);
            vfloat32m2_t s00 = vfmul_vv_f32m2(a0, c0, vl), s01 = vfmul_vv_f32m2(a0, c1, vl);
            vfloat32m2_t s02 = vfmul_vv_f32m2(a0, c2, vl), s03 = vfmul_vv_f32m2(a0, c3, vl);
            vfloat32m2_t s10 = vfmul_vv_f32m2(a1, c0, vl), s11 = vfmul_vv_f32m2(a1, c1, vl);
            vfloat32m2_t s12 = vfmul_vv_f32m2(a1, c2, vl), s13 = vfmul_vv_f32m2(a1, c3, vl);
            for (long i = vl; i < I; i += vl) {
                vl = vsetvl_e32m2(I - i);
                a0 = vle32_v_f32m2(x0 + i, vl);
                a1 = vle32_v_f32m2(x1 + i, vl);
                c0 = vle32_v_f32m2(w0 + i, vl);
                c1 = vle32_v_f32m2(w1 + i, vl);
                c2 = vle32_v_f32m2(w2 + i, vl);
                c3 = vle32_v_f32m2(w3 + i, vl);
                s00 = vfmacc_vv_f32m2(s00, a0, c0, vl);
                s10 = vfmacc_vv_f32m2(s10, a1, c0, vl);
                s01 = vfmacc_vv_f32m2(s01, a0, c1, vl);
                s11 = vfmacc_vv_f32m2(s11, a1, c1, vl);
                s02 = vfmacc_vv_f32m2(s02, a0, c2, vl);
                s12 = vfmacc_vv_f32m2(s12, a1, c2, vl);
                s03 = vfmacc_vv_f32m2(s03, a0, c3, vl);
                s13 = vfmacc_vv_f32m2(s13, a1, c3, vl);
            }
            vl = vsetvl_e32m2(I);
            const vfloat32m1_t zero = vfmv_v_f_f32m1(0.0f, 1);
            float* y0 = ys + b * O + o;
            float* y1 = y0 + O;
            y0[0] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s00, zero, vl));
            y0[1] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s01, zero, vl));
            y0[2] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s02, zero, vl));
            y0[3] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s03, zero, vl));
            y1[0] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s10, zero, vl));
            y1[1] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s11, zero, vl));
            y1[2] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s12, zero, vl));
            y1[3] = vfmv_f_s_f32m1_f32(vfredusum_vs_f32m2_f32m1(zero, s13, zero, vl));
        }
    }
}

static void fcScalar(void) {
    const long I = in, O = out, B = batch;
    for (long b = 0; b < B; ++b)
        for (long o = 0; o < O; ++o) {
            float s = 0;
#pragma clang loop vectorize(disable)
            for (long i = 0; i < I; ++i)
                s += x[b * I + i] * W[o * I + i];
            y[b * O + o] = s;
        }
}

static void* worker(void* arg) {
    const long t = (long)arg;
    pthread_barrier_wait(&start);
    fcVector(t * out / THREADS, (t + 1) * out / THREADS);
    pthread_barrier_wait(&done);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc > 3) {
        in = atol(argv[1]);
        out = atol(argv[2]);
        batch = atol(argv[3]);
    }
    const char* mode = argc > 4 ? argv[4] : "rvv";
    W = malloc(sizeof(float) * in * out);
    x = malloc(sizeof(float) * batch * in);
    y = malloc(sizeof(float) * batch * out);
    if (!W || !x || !y || in < 1 || out % 16 || batch % 2)
        return 2;
    for (long k = 0; k < in * out; ++k)
        W[k] = (float)((k * 7) % 13 - 6) * 0.125f;
    for (long k = 0; k < batch * in; ++k)
        x[k] = (float)((k * 5) % 11 - 5) * 0.25f;
    // Reads, not writes: the caches then hold clean lines of another array, as a cold cache would
    // hold none the operands need, and no write-back competes with the operands' reads.
    static volatile long evict[(2 << 20) / sizeof(long)];
    long evicted = 0;
    for (unsigned long k = 0; k < sizeof evict / sizeof evict[0]; k += 8)
        evicted += evict[k];
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
        fcVector(0, out / THREADS);
        pthread_barrier_wait(&done);
        cycles = rdcycle() - begin;
        for (long t = 1; t < THREADS; ++t)
            pthread_join(threads[t], NULL);
    } else {
        const unsigned long begin = rdcycle();
        if (strcmp(mode, "scalar") == 0)
            fcScalar();
        else
            fcVector(0, out);
        cycles = rdcycle() - begin;
    }
    double sum = 0;
    for (long k = 0; k < batch * out; ++k)
        sum += y[k] * (double)(k % 17 + 1);
    printf("fc %ldx%ldx%ld %s checksum %.4f first %.4f last %.4f\n", in, out, batch, mode, sum, y[0],
           y[batch * out - 1]);
    fprintf(stderr, "fc_cycles %lu\n", cycles);
    return 0;
}
