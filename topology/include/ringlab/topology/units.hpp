// Strong unit types for ringlab: byte counts, simulated time and bandwidth.
//
// Simulated time is an integer count of picoseconds so that event ordering is exact and runs are
// reproducible. Bandwidth is stored in bits per second; the accessors say which unit they return,
// so bits and bytes never share a name. Only meaningful operators exist (Bytes / Bandwidth gives a
// Duration, Bandwidth * Duration gives Bytes, ...). Unit strings from files ("400Gbps", "50GB/s",
// "1.5us", "256MiB") are parsed by parse_bytes / parse_bandwidth / parse_duration, which throw
// UnitError on a missing or unknown unit or a value outside the accepted range (kMaxBytes,
// kMinBandwidthBps..kMaxBandwidthBps, the clock's range).
//
// Limits: the clock holds up to 2^63-1 ps (about 106.75 days of simulated time) and byte counters up to
// 2^63-1 bytes. Arithmetic on Duration and Bytes, and every conversion into them, is checked: a result
// outside that range throws RangeError instead of wrapping, so no run ever reports a wrapped number.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringlab {

/// A quantity outside what the clock or a byte counter holds (a simulated time past 2^63-1 ps, a byte
/// count past 2^63-1). Commands turn it into an input error naming the setting that caused it.
class RangeError : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

namespace detail {
/// 2^63 as a double: doubles strictly inside (-2^63, 2^63) round to an int64_t.
inline constexpr double kInt64Limit = 9223372036854775808.0;
[[noreturn]] inline void throw_range(const char* what) { throw RangeError(what); }
constexpr std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_range(what);
  return r;
}
constexpr std::int64_t checked_sub(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) throw_range(what);
  return r;
}
constexpr std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_range(what);
  return r;
}
/// `v` rounded to the nearest integer; RangeError when it does not fit an int64_t (or is NaN).
constexpr std::int64_t checked_round(double v, const char* what) {
  if (!(v > -kInt64Limit && v < kInt64Limit)) throw_range(what);
  return std::llround(v);
}
inline constexpr const char* kClockRange =
    "simulated time exceeds the clock's range (2^63-1 ps, about 106 days)";
inline constexpr const char* kByteRange = "byte count exceeds the counters' range (2^63-1 bytes)";
}  // namespace detail

/// Largest byte size a unit string may give (1 PiB = 2^50 bytes): sums over many steps and ranks of a
/// message this size still fit the byte counters.
inline constexpr std::int64_t kMaxBytes = std::int64_t(1) << 50;

/// A byte count (message sizes, buffer offsets). Signed so that differences are safe.
struct Bytes {
  std::int64_t value = 0;
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t v) : value(v) {}
  constexpr std::int64_t count() const { return value; }
  constexpr auto operator<=>(const Bytes&) const = default;
  /// `v` bytes rounded to the nearest byte. Throws RangeError outside the counters' range.
  static constexpr Bytes from_double(double v) { return Bytes{detail::checked_round(v, detail::kByteRange)}; }
  constexpr Bytes& operator+=(Bytes o) { return *this = *this + o; }
  constexpr Bytes& operator-=(Bytes o) { return *this = *this - o; }
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{detail::checked_add(a.value, b.value, detail::kByteRange)}; }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes{detail::checked_sub(a.value, b.value, detail::kByteRange)}; }
  friend constexpr Bytes operator*(Bytes a, std::int64_t k) { return Bytes{detail::checked_mul(a.value, k, detail::kByteRange)}; }
  friend constexpr Bytes operator*(std::int64_t k, Bytes a) { return a * k; }
  /// Integer division (floor); use for splitting a buffer into equal parts.
  friend constexpr Bytes operator/(Bytes a, std::int64_t k) { return Bytes{a.value / k}; }
  friend constexpr double operator/(Bytes a, Bytes b) { return double(a.value) / double(b.value); }
};

/// A span of simulated time in integer picoseconds. Also used for absolute simulated time
/// (time since the simulation started).
struct Duration {
  std::int64_t ps = 0;
  constexpr Duration() = default;
  constexpr explicit Duration(std::int64_t picoseconds) : ps(picoseconds) {}
  /// Conversions from a real number, rounded to the nearest picosecond. Throw RangeError outside the
  /// clock's range.
  static constexpr Duration from_picoseconds(double ps) { return Duration{detail::checked_round(ps, detail::kClockRange)}; }
  static constexpr Duration from_seconds(double s) { return from_picoseconds(s * 1e12); }
  static constexpr Duration from_ns(double ns) { return from_picoseconds(ns * 1e3); }
  static constexpr Duration from_us(double us) { return from_picoseconds(us * 1e6); }
  static constexpr Duration max() { return Duration{INT64_MAX}; }
  constexpr std::int64_t picoseconds() const { return ps; }
  constexpr double seconds() const { return double(ps) * 1e-12; }
  constexpr double microseconds() const { return double(ps) * 1e-6; }
  constexpr double nanoseconds() const { return double(ps) * 1e-3; }
  constexpr auto operator<=>(const Duration&) const = default;
  /// Checked: a result outside the clock's range throws RangeError.
  constexpr Duration& operator+=(Duration o) { return *this = *this + o; }
  constexpr Duration& operator-=(Duration o) { return *this = *this - o; }
  friend constexpr Duration operator+(Duration a, Duration b) { return Duration{detail::checked_add(a.ps, b.ps, detail::kClockRange)}; }
  friend constexpr Duration operator-(Duration a, Duration b) { return Duration{detail::checked_sub(a.ps, b.ps, detail::kClockRange)}; }
  friend constexpr Duration operator*(Duration a, std::int64_t k) { return Duration{detail::checked_mul(a.ps, k, detail::kClockRange)}; }
  friend constexpr Duration operator*(std::int64_t k, Duration a) { return a * k; }
  friend constexpr double operator/(Duration a, Duration b) { return double(a.ps) / double(b.ps); }
};

/// Slowest and fastest link rate a unit string may give, in bits per second: 1 bit/s to 1 Ebit/s.
/// (A transfer at 1 bit/s that would outlast the clock is reported as a RangeError, not wrapped.)
inline constexpr double kMinBandwidthBps = 1.0;
inline constexpr double kMaxBandwidthBps = 1e18;

/// A data rate, stored in bits per second. Construct with from_bits_per_second /
/// from_bytes_per_second or the literals below; read with the accessor of the unit you need.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth from_bits_per_second(double bps) { return Bandwidth{bps}; }
  static constexpr Bandwidth from_bytes_per_second(double Bps) { return Bandwidth{Bps * 8.0}; }
  constexpr double bits_per_second() const { return bps_; }
  constexpr double bytes_per_second() const { return bps_ / 8.0; }
  /// Gigabits per second (1e9 bits/s).
  constexpr double gbps() const { return bps_ * 1e-9; }
  /// Gigabytes per second (1e9 bytes/s), the unit nccl-tests reports.
  constexpr double gigabytes_per_second() const { return bps_ / 8.0 * 1e-9; }
  constexpr auto operator<=>(const Bandwidth&) const = default;
  friend constexpr Bandwidth operator+(Bandwidth a, Bandwidth b) { return Bandwidth{a.bps_ + b.bps_}; }
  friend constexpr Bandwidth operator-(Bandwidth a, Bandwidth b) { return Bandwidth{a.bps_ - b.bps_}; }
  friend constexpr Bandwidth operator*(Bandwidth a, double k) { return Bandwidth{a.bps_ * k}; }
  friend constexpr Bandwidth operator*(double k, Bandwidth a) { return Bandwidth{a.bps_ * k}; }
  friend constexpr Bandwidth operator/(Bandwidth a, double k) { return Bandwidth{a.bps_ / k}; }
  friend constexpr double operator/(Bandwidth a, Bandwidth b) { return a.bps_ / b.bps_; }

 private:
  constexpr explicit Bandwidth(double bps) : bps_(bps) {}
  double bps_ = 0.0;
};

/// Time to move `b` bytes at rate `bw`, rounded to the nearest picosecond. Precondition: bw > 0.
/// Throws RangeError when the time exceeds the clock's range.
constexpr Duration operator/(Bytes b, Bandwidth bw) {
  return Duration::from_picoseconds(double(b.value) * 8.0 / bw.bits_per_second() * 1e12);
}
/// Bytes moved at rate `bw` during `d` (fractional bytes are truncated). Throws RangeError when the
/// count exceeds the counters' range.
constexpr Bytes operator*(Bandwidth bw, Duration d) {
  const double bytes = std::trunc(bw.bytes_per_second() * d.seconds());
  return Bytes::from_double(bytes);
}

/// Thrown by the parsers below; the message says what was expected. Callers that know the file and
/// JSON path wrap it into an InputError.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Parses a byte count from 0 to kMaxBytes: "256MiB", "1.5GB", "1e9B", "64 KiB", "8". A bare number is accepted only when
/// allow_bare_number is set (command-line sizes such as "--sizes 8:8G"); SI prefixes are powers of
/// 1000, IEC prefixes (KiB, MiB, GiB, TiB) powers of 1024. Single-letter suffixes K/M/G/T are
/// accepted only with allow_bare_number and mean powers of 1024, as nccl-tests' -b/-e do.
Bytes parse_bytes(std::string_view text, bool allow_bare_number = false);
/// Parses a rate: "400Gbps", "400 Gb/s", "50GB/s", "25 GiB/s", "125MBps". Lower-case b is bits,
/// upper-case B is bytes. A missing unit is an error, and so is a positive rate outside
/// kMinBandwidthBps..kMaxBandwidthBps (zero and negative rates are returned for the caller to reject).
Bandwidth parse_bandwidth(std::string_view text);
/// Parses a duration: "1.5us", "700ns", "2 ms", "0.1s", "250ps", "0" (zero needs no unit). A value
/// outside the clock's range (about +-106 days) is an error.
Duration parse_duration(std::string_view text);

/// Formats for humans and files; the output parses back with the parsers above.
std::string to_string(Bytes b);       // "256MiB", "1.5GB" style: exact IEC when divisible, else "123B"
std::string to_string(Bandwidth bw);  // "400Gbps" (bits for rates that are whole Gbps/Mbps), else "50GB/s"
std::string to_string(Duration d);    // "1.5us", "700ns", "2ms", "0"

namespace literals {
constexpr Bytes operator""_B(unsigned long long v) { return Bytes{std::int64_t(v)}; }
constexpr Bytes operator""_KiB(unsigned long long v) { return Bytes{std::int64_t(v) << 10}; }
constexpr Bytes operator""_MiB(unsigned long long v) { return Bytes{std::int64_t(v) << 20}; }
constexpr Bytes operator""_GiB(unsigned long long v) { return Bytes{std::int64_t(v) << 30}; }
constexpr Bytes operator""_KB(unsigned long long v) { return Bytes{std::int64_t(v) * 1000}; }
constexpr Bytes operator""_MB(unsigned long long v) { return Bytes{std::int64_t(v) * 1000000}; }
constexpr Bytes operator""_GB(unsigned long long v) { return Bytes{std::int64_t(v) * 1000000000}; }
constexpr Bandwidth operator""_Gbps(unsigned long long v) { return Bandwidth::from_bits_per_second(double(v) * 1e9); }
constexpr Bandwidth operator""_Gbps(long double v) { return Bandwidth::from_bits_per_second(double(v) * 1e9); }
constexpr Bandwidth operator""_Mbps(unsigned long long v) { return Bandwidth::from_bits_per_second(double(v) * 1e6); }
constexpr Bandwidth operator""_GBps(unsigned long long v) { return Bandwidth::from_bytes_per_second(double(v) * 1e9); }
constexpr Bandwidth operator""_GBps(long double v) { return Bandwidth::from_bytes_per_second(double(v) * 1e9); }
constexpr Duration operator""_ps(unsigned long long v) { return Duration{std::int64_t(v)}; }
constexpr Duration operator""_ns(unsigned long long v) { return Duration{std::int64_t(v) * 1000}; }
constexpr Duration operator""_ns(long double v) { return Duration::from_ns(double(v)); }
constexpr Duration operator""_us(unsigned long long v) { return Duration{std::int64_t(v) * 1000000}; }
constexpr Duration operator""_us(long double v) { return Duration::from_us(double(v)); }
constexpr Duration operator""_ms(unsigned long long v) { return Duration{std::int64_t(v) * 1000000000}; }
constexpr Duration operator""_s(unsigned long long v) { return Duration{std::int64_t(v) * 1000000000000}; }
}  // namespace literals

}  // namespace ringlab
