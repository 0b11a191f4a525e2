// Strong unit types for ringlab: byte counts, simulated time and bandwidth.
//
// Simulated time is an integer count of picoseconds so that event ordering is exact and runs are
// reproducible. Bandwidth is stored in bits per second; the accessors say which unit they return,
// so bits and bytes never share a name. Only meaningful operators exist (Bytes / Bandwidth gives a
// Duration, Bandwidth * Duration gives Bytes, ...). Unit strings from files ("400Gbps", "50GB/s",
// "1.5us", "256MiB") are parsed by parse_bytes / parse_bandwidth / parse_duration, which throw
// UnitError on a missing or unknown unit.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringlab {

/// A byte count (message sizes, buffer offsets). Signed so that differences are safe.
struct Bytes {
  std::int64_t value = 0;
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t v) : value(v) {}
  constexpr std::int64_t count() const { return value; }
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes& operator+=(Bytes o) { value += o.value; return *this; }
  constexpr Bytes& operator-=(Bytes o) { value -= o.value; return *this; }
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{a.value + b.value}; }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes{a.value - b.value}; }
  friend constexpr Bytes operator*(Bytes a, std::int64_t k) { return Bytes{a.value * k}; }
  friend constexpr Bytes operator*(std::int64_t k, Bytes a) { return Bytes{a.value * k}; }
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
  static constexpr Duration from_seconds(double s) { return Duration{std::int64_t(std::llround(s * 1e12))}; }
  static constexpr Duration from_ns(double ns) { return Duration{std::int64_t(std::llround(ns * 1e3))}; }
  static constexpr Duration from_us(double us) { return Duration{std::int64_t(std::llround(us * 1e6))}; }
  static constexpr Duration max() { return Duration{INT64_MAX}; }
  constexpr std::int64_t picoseconds() const { return ps; }
  constexpr double seconds() const { return double(ps) * 1e-12; }
  constexpr double microseconds() const { return double(ps) * 1e-6; }
  constexpr double nanoseconds() const { return double(ps) * 1e-3; }
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration& operator+=(Duration o) { ps += o.ps; return *this; }
  constexpr Duration& operator-=(Duration o) { ps -= o.ps; return *this; }
  friend constexpr Duration operator+(Duration a, Duration b) { return Duration{a.ps + b.ps}; }
  friend constexpr Duration operator-(Duration a, Duration b) { return Duration{a.ps - b.ps}; }
  friend constexpr Duration operator*(Duration a, std::int64_t k) { return Duration{a.ps * k}; }
  friend constexpr Duration operator*(std::int64_t k, Duration a) { return Duration{a.ps * k}; }
  friend constexpr double operator/(Duration a, Duration b) { return double(a.ps) / double(b.ps); }
};

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
constexpr Duration operator/(Bytes b, Bandwidth bw) {
  return Duration{std::int64_t(std::llround(double(b.value) * 8.0 / bw.bits_per_second() * 1e12))};
}
/// Bytes moved at rate `bw` during `d` (fractional bytes are truncated).
constexpr Bytes operator*(Bandwidth bw, Duration d) {
  return Bytes{std::int64_t(bw.bytes_per_second() * d.seconds())};
}

/// Thrown by the parsers below; the message says what was expected. Callers that know the file and
/// JSON path wrap it into an InputError.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Parses a byte count: "256MiB", "1.5GB", "1e9B", "64 KiB", "8". A bare number is accepted only when
/// allow_bare_number is set (command-line sizes such as "--sizes 8:8G"); SI prefixes are powers of
/// 1000, IEC prefixes (KiB, MiB, GiB, TiB) powers of 1024. Single-letter suffixes K/M/G/T are
/// accepted only with allow_bare_number and mean powers of 1024, as nccl-tests' -b/-e do.
Bytes parse_bytes(std::string_view text, bool allow_bare_number = false);
/// Parses a rate: "400Gbps", "400 Gb/s", "50GB/s", "25 GiB/s", "125MBps". Lower-case b is bits,
/// upper-case B is bytes. A missing unit is an error.
Bandwidth parse_bandwidth(std::string_view text);
/// Parses a duration: "1.5us", "700ns", "2 ms", "0.1s", "250ps", "0" (zero needs no unit).
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
