#pragma once

// Whether this test binary runs under AddressSanitizer (the asan preset, which CI runs after the dev
// build's tests). The sanitizer run is there for memory errors and undefined behaviour; the dev run
// checks the numbers. A test that repeats one check over many instances, each costing seconds under the
// sanitizers (CBC's allocations through ASan's allocator, in a forked child per solve), takes a sample
// of its instances there: the same code paths, fewer repetitions. Each such test says which sample.

// The build says so (REMAT_TEST_SANITIZED, tests/CMakeLists.txt) for every test binary of the sanitizer
// tree, including those whose own code it leaves uninstrumented, as the CLI tests': they start an
// instrumented `remat`, and the compiler's own flags would say false there. A test binary built outside
// that function falls back to the compiler's flags.
namespace remat::test {

#if defined(REMAT_TEST_SANITIZED)
inline constexpr bool kSanitized = true;
#elif defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace remat::test
