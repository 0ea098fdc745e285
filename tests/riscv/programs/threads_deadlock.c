// A deadlock: the main thread joins a thread that waits on a condition nobody signals.
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void* waiter(void* arg) {
    pthread_mutex_lock(&lock);
    pthread_cond_wait(&never, &lock);
    pthread_mutex_unlock(&lock);
    return arg;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, waiter, NULL);
    pthread_join(thread, NULL);
    puts("unreachable");
    return 0;
}
