// A dense fully connected layer y[b][o] = Σ_i x[b][i] · W[o][i] as plain C, left to a compiler:
// the stand-in for a compiler's dense baseline (configs/papers/k1-ttd.yaml, `compiled_baselines`,
// compiles it with each baseline's command and runs it with `tessim run --target k1 --program`).
// Arguments: in out batch threads (defaults 784 300 1 1). The outputs are split into `threads`
// contiguous slices (pthreads), started before the clock, released together by a barrier and
// timed to the barrier after the last slice. Before the layer the program reads 2 MiB elsewhere,
// so that W and x start in the DDR, as a generated kernel's operands do.
// stdout: the outputs' checksum (equal under qemu and tessim for the same executable);
// stderr: "fc_cycles N", the layer's cycles on the main thread's core (rdcycle).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 8

static long in = 784, out = 300, batch = 1, threads = 1;
static float *W, *x, *y;
static pthread_barrier_t start, done;

static inline unsigned long rdcycle(void) {
    unsigned long c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

// The loop nest as written, for the compiler to vectorise, unroll or leave alone.
static void fc(long o0, long o1) {
    const long I = in, O = out, B = batch;
    const float* restrict w = W;
    const float* restrict xs = x;
    float* restrict ys = y;
    for (long o = o0; o < o1; ++o)
        for (long b = 0; b < B; ++b) {
            float s = 0.0f;
            for (long i = 0; i < I; ++i)
                s += w[o * I + i] * xs[b * I + i];
            ys[b * O + o] = s;
        }
}

static void* worker(void* arg) {
    const long t = (long)arg;
    pthread_barrier_wait(&start);
    fc(t * out / threads, (t + 1) * out / threads);
    pthread_barrier_wait(&done);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc > 4) {
        in = atol(argv[1]);
        out = atol(argv[2]);
        batch = atol(argv[3]);
        threads = atol(argv[4]);
    }
    if (in < 1 || out < 1 || batch < 1 || threads < 1 || threads > MAX_THREADS || threads > out) {
        fprintf(stderr, "usage: fc_dense in out batch threads (threads 1..%d, at most out)\n", MAX_THREADS);
        return 2;
    }
    W = malloc(sizeof(float) * in * out);
    x = malloc(sizeof(float) * batch * in);
    y = malloc(sizeof(float) * batch * out);
    if (!W || !x || !y)
        return 3;
    // Counters, not divisions: setting up a large layer costs a few instructions per weight.
    for (long k = 0, v = 0; k < in * out; ++k, v = v == 12 ? 0 : v + 1)
        W[k] = (float)(v - 6) * 0.125f;
    for (long k = 0, v = 0; k < batch * in; ++k, v = v == 10 ? 0 : v + 1)
        x[k] = (float)(v - 5) * 0.25f;
    // Reads, not writes: the caches then hold clean lines of another array, as a cold cache would
    // hold none the operands need, and no write-back competes with the operands' reads.
    static volatile long evict[(2 << 20) / sizeof(long)];
    long evicted = 0;
    for (unsigned long k = 0; k < sizeof evict / sizeof evict[0]; k += 8)
        evicted += evict[k];
    if (evicted != 0)
        return 4;
    pthread_t started[MAX_THREADS];
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    pthread_barrier_init(&done, NULL, (unsigned)threads);
    for (long t = 1; t < threads; ++t)
        if (pthread_create(&started[t], NULL, worker, (void*)t) != 0)
            return 3;
    pthread_barrier_wait(&start);
    const unsigned long begin = rdcycle();
    fc(0, out / threads);
    pthread_barrier_wait(&done);
    const unsigned long cycles = rdcycle() - begin;
    for (long t = 1; t < threads; ++t)
        pthread_join(started[t], NULL);
    double sum = 0;
    for (long k = 0; k < batch * out; ++k)
        sum += y[k] * (double)(k % 17 + 1);
    printf("fc %ldx%ldx%ld on %ld threads: checksum %.4f first %.4f last %.4f\n", in, out, batch, threads,
           sum, y[0], y[batch * out - 1]);
    fprintf(stderr, "fc_cycles %lu\n", cycles);
    return 0;
}
