// String functions of static glibc (its vectorless RV64 versions), and input file reading.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int byName(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

int main(int argc, char** argv) {
    char buf[256];
    const char* words[] = {"tessim", "k1", "x60", "spacemit", "riscv", "vector", "banana", "pi"};
    qsort(words, 8, sizeof words[0], byName);
    buf[0] = '\0';
    for (int i = 0; i < 8; ++i) {
        strcat(buf, words[i]);
        strcat(buf, i < 7 ? "," : "");
    }
    printf("%s (%zu)\n", buf, strlen(buf));
    printf("%s|%s|%d|%d\n", strstr(buf, "riscv"), strchr(buf, 'x'), strncmp(buf, "banana", 6),
           memcmp("ab", "ac", 2) < 0);
    char copy[256];
    memset(copy, '#', sizeof copy);
    memcpy(copy + 3, buf, 20);
    memmove(copy + 5, copy + 3, 20);
    copy[30] = '\0';
    printf("%s\n", copy);
    snprintf(buf, sizeof buf, "%08.3f/%s/%ld", strtod("3.14159e2", 0), "end", strtol("0x7fff", 0, 16));
    printf("%s\n", buf);
    for (int i = 1; i < argc; ++i) {
        FILE* f = fopen(argv[i], "r");
        if (!f) {
            printf("%s: cannot open\n", argv[i]);
            continue;
        }
        unsigned long sum = 0, n = 0;
        int ch;
        while ((ch = fgetc(f)) != EOF) {
            sum = sum * 31 + (unsigned char)ch;
            ++n;
        }
        fclose(f);
        printf("%s: %lu bytes, hash %lx\n", argv[i], n, sum);
    }
    fprintf(stderr, "done\n");
    return 0;
}
