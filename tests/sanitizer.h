// Whether this test binary runs under AddressSanitizer (the asan preset), for the few checks that
// cannot hold there: wall-clock bounds (code runs 5-20x slower) and address-space caps (ASan
// reserves terabytes of shadow memory). One definition for every suite that asks.
#pragma once

namespace mhla::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAsan = true; // g++ -fsanitize=address
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAsan = true; // clang -fsanitize=address
#else
inline constexpr bool kUnderAsan = false;
#endif
#else
inline constexpr bool kUnderAsan = false;
#endif

/// How much longer a bound "fails fast" may take: process starts and allocations under ASan are
/// several times slower.
inline constexpr long long kSlowdown = kUnderAsan ? 10 : 1;

} // namespace mhla::test
