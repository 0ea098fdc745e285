// A double-precision matrix multiply, its results printed to the last bit.
#include <stdio.h>

#define N 24
static double a[N][N], b[N][N], c[N][N];

int main(void) {
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            a[i][j] = (double)(i * N + j) / 7.0 - 3.0;
            b[i][j] = 1.0 / (1.0 + i + 2.0 * j);
        }
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < N; ++k)
            for (int j = 0; j < N; ++j)
                c[i][j] += a[i][k] * b[k][j];
    double trace = 0;
    for (int i = 0; i < N; ++i)
        trace += c[i][i];
    printf("trace %.17g\n", trace);
    for (int i = 0; i < N; i += 5)
        printf("%.17g %.17g %.17g\n", c[i][0], c[i][N / 2], c[i][N - 1]);
    float fa = 0;
    for (int i = 0; i < N; ++i)
        fa = __builtin_fmaf((float)a[i][i], (float)b[i][N - 1 - i], fa);
    printf("fma %.9g\n", fa);
    return 0;
}
