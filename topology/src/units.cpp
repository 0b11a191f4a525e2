// Unit-string parsing and formatting for Bytes, Bandwidth and Duration.
#include "ringlab/topology/units.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace ringlab {
namespace {

struct Suffix {
  std::string_view text;
  double scale;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "12.5 GB/s" into the number 12.5 and the unit "GB/s". Throws UnitError if no number.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what) {
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data())
    throw UnitError("expected " + std::string(what) + ", got '" + std::string(text) + "'");
  return {value, trim(std::string_view(end, std::size_t(text.data() + text.size() - end)))};
}

template <std::size_t N>
const Suffix* find_suffix(const std::array<Suffix, N>& table, std::string_view unit) {
  for (const Suffix& s : table)
    if (s.text == unit) return &s;
  return nullptr;
}

constexpr double kKi = 1024.0;
constexpr std::array<Suffix, 12> kByteUnits{{{"B", 1},
                                             {"KB", 1e3},
                                             {"MB", 1e6},
                                             {"GB", 1e9},
                                             {"TB", 1e12},
                                             {"KiB", kKi},
                                             {"MiB", kKi * kKi},
                                             {"GiB", kKi * kKi * kKi},
                                             {"TiB", kKi * kKi * kKi * kKi},
                                             {"kB", 1e3},
                                             {"PB", 1e15},
                                             {"PiB", kKi * kKi * kKi * kKi * kKi}}};
// nccl-tests style size suffixes (-b 8 -e 128M): powers of 1024.
constexpr std::array<Suffix, 4> kShortByteUnits{{{"K", kKi}, {"M", kKi * kKi}, {"G", kKi * kKi * kKi},
                                                 {"T", kKi * kKi * kKi * kKi}}};
// Bits per second for each accepted spelling.
constexpr std::array<Suffix, 24> kRateUnits{{
    {"bps", 1},           {"b/s", 1},          {"Kbps", 1e3},        {"Kb/s", 1e3},
    {"kbps", 1e3},        {"Mbps", 1e6},       {"Mb/s", 1e6},        {"Gbps", 1e9},
    {"Gb/s", 1e9},        {"Tbps", 1e12},      {"Tb/s", 1e12},       {"Bps", 8},
    {"B/s", 8},           {"KBps", 8e3},       {"KB/s", 8e3},        {"MBps", 8e6},
    {"MB/s", 8e6},        {"GBps", 8e9},       {"GB/s", 8e9},        {"TBps", 8e12},
    {"TB/s", 8e12},       {"MiB/s", 8 * kKi * kKi}, {"GiB/s", 8 * kKi * kKi * kKi},
    {"KiB/s", 8 * kKi},
}};
constexpr std::array<Suffix, 6> kTimeUnits{{{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6},
                                            {"ms", 1e-3}, {"s", 1}}};

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

Bytes parse_bytes(std::string_view text, bool allow_bare_number) {
  constexpr std::string_view what = "a byte size with a unit such as \"256MiB\", \"1.5GB\" or \"1e9B\"";
  auto [value, unit] = split_number(text, what);
  double scale = 0;
  if (const Suffix* s = find_suffix(kByteUnits, unit)) {
    scale = s->scale;
  } else if (allow_bare_number && unit.empty()) {
    scale = 1;
  } else if (const Suffix* s2 = find_suffix(kShortByteUnits, unit); s2 && allow_bare_number) {
    scale = s2->scale;
  } else if (unit.empty()) {
    throw UnitError("missing unit in '" + std::string(trim(text)) + "': expected " + std::string(what));
  } else {
    throw UnitError("unknown size unit '" + std::string(unit) + "': expected B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB");
  }
  const double bytes = value * scale;
  if (!(bytes >= 0) || bytes > double(kMaxBytes))
    throw UnitError("size '" + std::string(trim(text)) + "' is out of range: expected 0 to 1PiB (2^50 bytes)");
  return Bytes{std::int64_t(std::llround(bytes))};
}

Bandwidth parse_bandwidth(std::string_view text) {
  constexpr std::string_view what = "a bandwidth with a unit such as \"400Gbps\", \"50GB/s\" or \"25 GiB/s\"";
  auto [value, unit] = split_number(text, what);
  if (unit.empty())
    throw UnitError("missing unit in '" + std::string(trim(text)) + "': expected " + std::string(what));
  const Suffix* s = find_suffix(kRateUnits, unit);
  if (!s)
    throw UnitError("unknown bandwidth unit '" + std::string(unit) +
                    "': expected bits (bps, Mbps, Gbps, Gb/s, ...) or bytes (MB/s, GB/s, GiB/s, GBps, ...) per second");
  const double bps = value * s->scale;
  if (bps > 0 && !(bps >= kMinBandwidthBps && bps <= kMaxBandwidthBps))
    throw UnitError("bandwidth '" + std::string(trim(text)) + "' is out of range: expected 1bps to 1e18bps");
  return Bandwidth::from_bits_per_second(bps);
}

Duration parse_duration(std::string_view text) {
  constexpr std::string_view what = "a duration with a unit such as \"1.5us\", \"700ns\" or \"2ms\"";
  auto [value, unit] = split_number(text, what);
  if (unit.empty()) {
    if (value == 0) return Duration{};
    throw UnitError("missing unit in '" + std::string(trim(text)) + "': expected " + std::string(what));
  }
  const Suffix* s = find_suffix(kTimeUnits, unit);
  if (!s) throw UnitError("unknown time unit '" + std::string(unit) + "': expected ps, ns, us, ms or s");
  const double ps = value * s->scale * 1e12;
  if (!(ps > -detail::kInt64Limit && ps < detail::kInt64Limit))
    throw UnitError("duration '" + std::string(trim(text)) +
                    "' is out of range: expected at most 2^63-1 ps (about 106 days) either way");
  return Duration{std::int64_t(std::llround(ps))};
}

std::string to_string(Bytes b) {
  const std::int64_t v = b.count();
  constexpr std::array<std::pair<std::int64_t, std::string_view>, 4> iec{
      {{1LL << 40, "TiB"}, {1LL << 30, "GiB"}, {1LL << 20, "MiB"}, {1LL << 10, "KiB"}}};
  for (auto [scale, name] : iec)
    if (v != 0 && v % scale == 0) return std::to_string(v / scale) + std::string(name);
  return std::to_string(v) + "B";
}

std::string to_string(Bandwidth bw) {
  const double bps = bw.bits_per_second();
  if (bps >= 1e9 && std::fmod(bps, 1e9) == 0) return format_number(bps / 1e9) + "Gbps";
  if (bps >= 1e9) return format_number(bw.gigabytes_per_second()) + "GB/s";
  if (bps >= 1e6) return format_number(bps / 1e6) + "Mbps";
  return format_number(bps) + "bps";
}

std::string to_string(Duration d) {
  const std::int64_t ps = d.picoseconds();
  const std::int64_t mag = ps < 0 ? -ps : ps;
  if (ps == 0) return "0";
  if (mag >= 1000000000000LL) return format_number(double(ps) * 1e-12) + "s";
  if (mag >= 1000000000LL) return format_number(double(ps) * 1e-9) + "ms";
  if (mag >= 1000000LL) return format_number(double(ps) * 1e-6) + "us";
  if (mag >= 1000LL) return format_number(double(ps) * 1e-3) + "ns";
  return std::to_string(ps) + "ps";
}

}  // namespace ringlab
