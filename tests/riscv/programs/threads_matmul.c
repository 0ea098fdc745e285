// A threaded matrix multiply, C = A·B (N×N doubles), rows split among the threads (argv[1],
// default 4); prints a checksum and a corner of C.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 40
#define MAX_THREADS 8

static double A[N][N], B[N][N], C[N][N];
static int threadCount = 4;

static void* rows(void* arg) {
    const long t = (long)arg;
    for (int i = (int)t; i < N; i += threadCount)
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int k = 0; k < N; ++k)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    return NULL;
}

int main(int argc, char** argv) {
    if (argc > 1)
        threadCount = atoi(argv[1]);
    if (threadCount < 1 || threadCount > MAX_THREADS)
        return 2;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            A[i][j] = (double)((i + 2 * j) % 11) - 5.0;
            B[i][j] = (double)((3 * i + j) % 7) * 0.5;
        }
    pthread_t threads[MAX_THREADS];
    for (long t = 1; t < threadCount; ++t)
        pthread_create(&threads[t], NULL, rows, (void*)t);
    rows((void*)0);
    for (long t = 1; t < threadCount; ++t)
        pthread_join(threads[t], NULL);
    double checksum = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            checksum += C[i][j] * (double)((i + j) % 5 + 1);
    printf("%d threads, checksum %.3f\n", threadCount, checksum);
    for (int i = 0; i < 3; ++i)
        printf("%8.2f %8.2f %8.2f\n", C[i][0], C[i][1], C[i][2]);
    return 0;
}
