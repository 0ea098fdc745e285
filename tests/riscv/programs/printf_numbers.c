// static glibc printf of integers and doubles, every common conversion.
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

int main(void) {
    const long long ints[] = {0, 1, -1, 42, INT_MAX, INT_MIN, LLONG_MAX, LLONG_MIN, 1234567890123LL};
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; ++i)
        printf("%lld %llx %llo %20lld|%-8lld|%+lld\n", ints[i], (unsigned long long)ints[i],
               (unsigned long long)ints[i], ints[i], ints[i], ints[i]);
    const double ds[] = {0.0,        -0.0, 1.0 / 3.0, 2.0 / 3.0, 1e300, 1e-300,    4.9e-324,
                         123456.789, -2.5, 0.1,       M_PI,      M_E,   1.0 / 0.0, -1.0 / 0.0};
    for (unsigned i = 0; i < sizeof ds / sizeof ds[0]; ++i)
        printf("%.17g %e %f %a %10.3g\n", ds[i], ds[i], ds[i], ds[i], ds[i]);
    float f = 1.0f;
    for (int i = 0; i < 30; ++i)
        f = f * 1.37f - 0.11f;
    printf("%.9g %.9g %.9g\n", f, sqrtf(f), (double)f / 7.0);
    printf("%s %c %5.2s %" PRIu64 "\n", "str", 'x', "abcdef", (uint64_t)18446744073709551615ULL);
    return 0;
}
