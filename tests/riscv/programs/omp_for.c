// An OpenMP parallel-for on 4 threads: a dot product with a reduction and a scaled copy with a
// static schedule; the result printed.
#include <omp.h>
#include <stdio.h>

#define N 16384

static float a[N], b[N], c[N];

int main(void) {
    for (int i = 0; i < N; ++i) {
        a[i] = (float)(i % 13) * 0.25f;
        b[i] = (float)(i % 7) * 0.5f;
    }
    double dot = 0;
    int threads = 0;
#pragma omp parallel num_threads(4)
    {
#pragma omp single
        threads = omp_get_num_threads();
#pragma omp for reduction(+ : dot) schedule(static)
        for (int i = 0; i < N; ++i)
            dot += a[i] * b[i];
#pragma omp for schedule(static)
        for (int i = 0; i < N; ++i)
            c[i] = 2.0f * a[i] + b[i];
    }
    double sum = 0;
    for (int i = 0; i < N; ++i)
        sum += c[i];
    printf("threads %d dot %.2f sum %.2f\n", threads, dot, sum);
    return 0;
}
