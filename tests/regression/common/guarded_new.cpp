// Guarded global operator new/delete for the test executables that link this file: every block
// handed out is surrounded by kGuard bytes of 0xFF on either side. Read as a double, eight such
// bytes are a NaN (as an integer, -1), so a read just outside a std::vector's storage -- which in a
// plain build returns whatever the heap holds there, usually malloc's size field, a tiny finite
// double -- returns a NaN that propagates into the results, and an out-of-bounds read that a result
// would otherwise multiply by zero (a padding velocity slot has weight 0 and velocity 0) becomes
// visible. Writes into the guards are reported when the block is freed.
//
// Under AddressSanitizer the replacement is left out: ASan's own operator new puts poisoned red
// zones around every block and reports the access itself, with its stack.
#if defined(__SANITIZE_ADDRESS__)
#define UGKS_GUARDED_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UGKS_GUARDED_NEW 0
#endif
#endif
#ifndef UGKS_GUARDED_NEW
#define UGKS_GUARDED_NEW 1
#endif

#if UGKS_GUARDED_NEW
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

// A multiple of the default new alignment (16), so the block keeps malloc's alignment.
constexpr std::size_t kGuard = 64;
constexpr unsigned char kPattern = 0xFF;

void* guarded_alloc(std::size_t size) noexcept {
    if (size == 0) size = 1;
    if (size > static_cast<std::size_t>(-1) - 3 * kGuard) return nullptr;
    // [size, unused: kGuard][guard: kGuard][block: size][guard: kGuard]
    unsigned char* base = static_cast<unsigned char*>(std::malloc(3 * kGuard + size));
    if (!base) return nullptr;
    std::memcpy(base, &size, sizeof size);
    unsigned char* block = base + 2 * kGuard;
    std::memset(base + kGuard, kPattern, kGuard);
    std::memset(block + size, kPattern, kGuard);
    return block;
}

void guarded_free(void* p) noexcept {
    if (!p) return;
    unsigned char* block = static_cast<unsigned char*>(p);
    unsigned char* base = block - 2 * kGuard;
    std::size_t size;
    std::memcpy(&size, base, sizeof size);
    for (std::size_t k = 0; k < kGuard; ++k)
        if (base[kGuard + k] != kPattern || block[size + k] != kPattern) {
            std::fprintf(stderr,
                         "guarded_new: heap buffer overflow: a write into the guard %s a block of "
                         "%zu bytes at %p\n",
                         base[kGuard + k] != kPattern ? "before" : "after", size, p);
            std::abort();
        }
    std::free(base);
}

void* guarded_new(std::size_t size) {
    for (;;) {
        if (void* p = guarded_alloc(size)) return p;
        std::new_handler h = std::get_new_handler();
        if (!h) throw std::bad_alloc();
        h();
    }
}

void* guarded_new_nothrow(std::size_t size) noexcept {
    try {
        return guarded_new(size);
    } catch (...) {
        return nullptr;
    }
}

}  // namespace

void* operator new(std::size_t size) { return guarded_new(size); }
void* operator new[](std::size_t size) { return guarded_new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return guarded_new_nothrow(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return guarded_new_nothrow(size);
}
void operator delete(void* p) noexcept { guarded_free(p); }
void operator delete[](void* p) noexcept { guarded_free(p); }
void operator delete(void* p, std::size_t) noexcept { guarded_free(p); }
void operator delete[](void* p, std::size_t) noexcept { guarded_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { guarded_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { guarded_free(p); }
// The over-aligned forms (std::align_val_t) keep the library's definitions, which allocate and free
// on their own (aligned_alloc / free) and never reach these.
#endif
