// Linked into every executable of the sanitizer build (not a library: these definitions must win
// over AddressSanitizer's, which they call). SystemC 2.3.4 announces its coroutine switches to
// the sanitizer, but gives the main stack as (null, 0) and does not announce the switch away from
// a thread that ends. The sanitizer then runs with the wrong stack bounds, skips the clean-up of
// the frames a throw unwinds and misreports a later throw as an overflow in its own sigaltstack
// call. Here the main thread's real stack replaces (null, 0), and every throw and rethrow first
// tells the sanitizer which stack it runs on.
#include <dlfcn.h>
#include <pthread.h>

#include <unwind.h>

#include <cstddef>
#include <cstdio>
#include <typeinfo>

namespace {

using StartSwitch = void (*)(void**, const void*, std::size_t);
using FinishSwitch = void (*)(void*, const void**, std::size_t*);

struct StackBounds {
    const char* bottom = nullptr;
    std::size_t size = 0;
    bool holds(const void* p) const {
        const char* c = static_cast<const char*>(p);
        return bottom && c >= bottom && c < bottom + size;
    }
};

template <class F> F next(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

StackBounds mainThreadStack() {
    static const StackBounds bounds = [] {
        StackBounds b;
        pthread_attr_t attributes;
        void* bottom = nullptr;
        if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
            pthread_attr_getstack(&attributes, &bottom, &b.size);
            pthread_attr_destroy(&attributes);
        }
        b.bottom = static_cast<const char*>(bottom);
        return b;
    }();
    return bounds;
}

// The mapping that holds `p`: a coroutine stack is a mapping of its own (SystemC does not announce
// every switch between coroutines, so the stack a throw runs on is looked up here).
StackBounds stackHolding(const void* p) {
    const StackBounds main = mainThreadStack();
    if (main.holds(p))
        return main;
    StackBounds found;
    if (FILE* maps = std::fopen("/proc/self/maps", "r")) {
        unsigned long begin = 0, end = 0;
        char line[512];
        while (std::fgets(line, sizeof line, maps)) {
            if (std::sscanf(line, "%lx-%lx", &begin, &end) != 2)
                continue;
            const StackBounds mapping{reinterpret_cast<const char*>(begin), end - begin};
            if (mapping.holds(p)) {
                found = mapping;
                break;
            }
        }
        std::fclose(maps);
    }
    return found;
}

// Tells the sanitizer that the stack it runs on is the one holding this frame.
void announceCurrentStack() {
    char here;
    const StackBounds s = stackHolding(&here);
    static const auto start = next<StartSwitch>("__sanitizer_start_switch_fiber");
    static const auto finish = next<FinishSwitch>("__sanitizer_finish_switch_fiber");
    if (!start || !finish || !s.bottom)
        return;
    void* fakeStack = nullptr;
    start(&fakeStack, s.bottom, s.size);
    finish(fakeStack, nullptr, nullptr);
}

}  // namespace

extern "C" {

void __sanitizer_start_switch_fiber(void** fakeStackSave, const void* bottom, std::size_t size) {
    static const auto sanitizers = next<StartSwitch>(__func__);
    StackBounds target{static_cast<const char*>(bottom), size};
    if (!bottom)
        target = mainThreadStack();
    if (sanitizers)
        sanitizers(fakeStackSave, target.bottom, target.size);
}

[[noreturn]] void __cxa_throw(void* object, std::type_info* type, void (*destroy)(void*)) {
    using Throw = void (*)(void*, std::type_info*, void (*)(void*));
    static const auto thrower = next<Throw>(__func__);
    announceCurrentStack();
    thrower(object, type, destroy);
    __builtin_unreachable();
}

// std::rethrow_exception and `throw;` raise through these without __cxa_throw.
_Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception* exception) {
    using Raise = _Unwind_Reason_Code (*)(_Unwind_Exception*);
    static const auto raise = next<Raise>(__func__);
    announceCurrentStack();
    return raise(exception);
}

_Unwind_Reason_Code _Unwind_Resume_or_Rethrow(_Unwind_Exception* exception) {
    using Rethrow = _Unwind_Reason_Code (*)(_Unwind_Exception*);
    static const auto rethrow = next<Rethrow>(__func__);
    announceCurrentStack();
    return rethrow(exception);
}

}  // extern "C"
