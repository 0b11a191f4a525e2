// Unit types and unit-string parsing.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "ringlab/topology/units.hpp"

using namespace ringlab;
using namespace ringlab::literals;

TEST_CASE("bandwidth strings: bits and bytes are never confused", "[units]") {
  CHECK(parse_bandwidth("400Gbps").bits_per_second() == Approx(400e9));
  CHECK(parse_bandwidth("400 Gb/s").bits_per_second() == Approx(400e9));
  CHECK(parse_bandwidth("50GB/s").bits_per_second() == Approx(400e9));
  CHECK(parse_bandwidth("50GBps").bytes_per_second() == Approx(50e9));
  CHECK(parse_bandwidth("25 GiB/s").bytes_per_second() == Approx(25.0 * 1024 * 1024 * 1024));
  CHECK(parse_bandwidth("125MBps").bits_per_second() == Approx(1e9));
  CHECK(parse_bandwidth("10Gbps") == 10_Gbps);
}

TEST_CASE("byte strings: SI and IEC prefixes", "[units]") {
  CHECK(parse_bytes("256MiB") == 256_MiB);
  CHECK(parse_bytes("1.5GB") == Bytes{1500000000});
  CHECK(parse_bytes("1e9B") == Bytes{1000000000});
  CHECK(parse_bytes("64 KiB") == 64_KiB);
  CHECK(parse_bytes("8", true) == 8_B);
  CHECK(parse_bytes("128M", true) == 128_MiB);
  CHECK(parse_bytes("8G", true) == 8_GiB);
}

TEST_CASE("duration strings", "[units]") {
  CHECK(parse_duration("1.5us") == Duration{1500000});
  CHECK(parse_duration("700ns") == 700_ns);
  CHECK(parse_duration("2 ms") == 2_ms);
  CHECK(parse_duration("250ps") == 250_ps);
  CHECK(parse_duration("0") == Duration{});
}

TEST_CASE("missing or unknown units are errors that say what was expected", "[units]") {
  CHECK_THROWS_WITH(parse_bandwidth("400"), Catch::Contains("missing unit") && Catch::Contains("400Gbps"));
  CHECK_THROWS_WITH(parse_bandwidth("400 furlongs"), Catch::Contains("unknown bandwidth unit 'furlongs'"));
  CHECK_THROWS_WITH(parse_bytes("256"), Catch::Contains("missing unit"));
  CHECK_THROWS_WITH(parse_bytes("256M"), Catch::Contains("unknown size unit 'M'"));
  CHECK_THROWS_WITH(parse_duration("1.5"), Catch::Contains("missing unit"));
  CHECK_THROWS_WITH(parse_duration("fast"), Catch::Contains("expected a duration"));
  CHECK_THROWS_AS(parse_bytes("-5MiB"), UnitError);
}

TEST_CASE("unit arithmetic: bytes over bandwidth is time", "[units]") {
  CHECK((1_GB / 8_GBps) == 125_ms);
  CHECK((100_Gbps * 1_s) == Bytes{12500000000});
  CHECK((1_MiB / Bandwidth::from_bytes_per_second(1048576.0)) == 1_s);
}

TEST_CASE("formatting round-trips through the parsers", "[units]") {
  for (Bytes b : {256_MiB, 8_B, 3_GiB, Bytes{1000}}) CHECK(parse_bytes(to_string(b)) == b);
  for (Bandwidth bw : {400_Gbps, 25_Gbps, 50_GBps}) CHECK(parse_bandwidth(to_string(bw)).bits_per_second() == Approx(bw.bits_per_second()));
  for (Duration d : {1500_ns, 2_ms, 250_ps, 3_s}) CHECK(parse_duration(to_string(d)) == d);
}

TEST_CASE("limits: sizes to 1PiB, rates from 1bps to 1e18bps, the clock to 2^63-1 ps", "[units][bad-input]") {
  CHECK(parse_bytes("1PiB") == Bytes{kMaxBytes});
  CHECK(parse_bytes("0", true) == Bytes{});
  CHECK_THROWS_WITH(parse_bytes("100000TiB", true), Catch::Contains("out of range: expected 0 to 1PiB"));
  CHECK_THROWS_WITH(parse_bytes("2PiB"), Catch::Contains("out of range"));
  CHECK(parse_bandwidth("1bps").bits_per_second() == 1.0);
  CHECK_THROWS_WITH(parse_bandwidth("0.5bps"), Catch::Contains("out of range: expected 1bps to 1e18bps"));
  CHECK_THROWS_WITH(parse_bandwidth("2e18bps"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_duration("1e7s"), Catch::Contains("out of range: expected at most 2^63-1 ps"));
  CHECK(parse_duration("9e6s") == 9000000_s);  // 104 days: inside the clock
}

TEST_CASE("time and byte arithmetic never wraps: it throws RangeError", "[units][bad-input]") {
  const Bandwidth one_bps = Bandwidth::from_bits_per_second(1.0);
  // 1 KiB at 1 bit/s is 8192 s: exact, far inside the clock.
  CHECK((1_KiB / one_bps) == 8192_s);
  // 1 GiB at 1 bit/s is 8.6e21 ps: past the clock, an error instead of a negative time.
  CHECK_THROWS_AS(1_GiB / one_bps, RangeError);
  CHECK_THROWS_WITH(1_GiB / one_bps, Catch::Contains("exceeds the clock's range"));
  CHECK_THROWS_AS(Duration::max() + 1_ps, RangeError);
  CHECK_THROWS_AS(Duration{-Duration::max().ps} - 2_ps, RangeError);
  CHECK_THROWS_AS(Duration::from_seconds(1e8), RangeError);
  CHECK_THROWS_AS(Duration::from_picoseconds(std::nan("")), RangeError);
  CHECK_THROWS_AS(1_s * std::int64_t(10000000), RangeError);
  CHECK_THROWS_AS(Bytes{kMaxBytes} * (std::int64_t(1) << 20), RangeError);
  CHECK_THROWS_WITH(Bytes{INT64_MAX} + 1_B, Catch::Contains("counters' range"));
  CHECK(Duration::max() - 1_ps == Duration{INT64_MAX - 1});
}
