// A quicksort of pseudo-random integers (its own, not qsort), checked and summarised.
#include <stdio.h>
#include <stdlib.h>

static void quicksort(long* a, long lo, long hi) {
    while (lo < hi) {
        long pivot = a[lo + (hi - lo) / 2], i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                ++i;
            while (a[j] > pivot)
                --j;
            if (i <= j) {
                long t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (j - lo < hi - i) {
            quicksort(a, lo, j);
            lo = i;
        } else {
            quicksort(a, i, hi);
            hi = j;
        }
    }
}

int main(int argc, char** argv) {
    long n = argc > 1 ? strtol(argv[1], 0, 10) : 5000;
    long* a = malloc(sizeof(long) * n);
    unsigned long x = 88172645463325252UL;
    for (long i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a[i] = (long)(x % 1000003) - 500000;
    }
    quicksort(a, 0, n - 1);
    long sorted = 1, sum = 0;
    for (long i = 0; i < n; ++i) {
        sum += a[i] * (i % 7);
        if (i && a[i - 1] > a[i])
            sorted = 0;
    }
    printf("n=%ld sorted=%ld min=%ld max=%ld median=%ld weighted=%ld\n", n, sorted, a[0], a[n - 1], a[n / 2],
           sum);
    free(a);
    return sorted ? 0 : 1;
}
