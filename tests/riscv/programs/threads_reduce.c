// A 4-thread pthreads reduction: each thread sums its slice, a barrier, then each adds its
// partial sum into the total under a mutex; the main thread joins them and prints.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define N 6000

static long values[N];
static long partial[THREADS];
static long total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;

static void* sum(void* arg) {
    const long t = (long)arg;
    long s = 0;
    for (long i = t * (N / THREADS); i < (t + 1) * (N / THREADS); ++i)
        s += values[i] * values[i] % 1009;
    partial[t] = s;
    pthread_barrier_wait(&barrier);  // every partial sum is written before any is added
    pthread_mutex_lock(&lock);
    total += partial[(t + 1) % THREADS];
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void) {
    for (long i = 0; i < N; ++i)
        values[i] = (i * 7919) % 10007;
    pthread_barrier_init(&barrier, NULL, THREADS);
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; ++t)
        if (pthread_create(&threads[t], NULL, sum, (void*)t) != 0)
            return 1;
    for (int t = 0; t < THREADS; ++t)
        pthread_join(threads[t], NULL);
    long check = 0;
    for (int t = 0; t < THREADS; ++t) {
        printf("thread %d: %ld\n", t, partial[t]);
        check += partial[t];
    }
    printf("total %ld (%s)\n", total, total == check ? "ok" : "wrong");
    return total == check ? 0 : 3;
}
