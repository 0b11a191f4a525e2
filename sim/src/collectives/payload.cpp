// Payload: element sizes, compression parsing and wire byte counts.
#include "ringlab/sim/payload.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <sstream>

namespace ringlab::sim {
namespace {

struct DataTypeRow {
  DataType type;
  std::string_view name;
  std::int64_t bytes;  ///< element size in bytes (IEEE 754 / OCP FP8 formats)
};

constexpr std::array<DataTypeRow, 6> kDataTypes{{
    {DataType::Fp32, "fp32", 4},
    {DataType::Bf16, "bf16", 2},
    {DataType::Fp16, "fp16", 2},
    {DataType::Fp8, "fp8", 1},
    {DataType::Int8, "int8", 1},
    {DataType::Fp64, "fp64", 8},
}};

std::optional<double> parse_ratio(std::string_view text) {
  double value = 0;
  // std::from_chars for double is available in libstdc++ 11+.
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  if (!(value > 0.0 && value <= 1.0)) return std::nullopt;
  return value;
}

}  // namespace

std::int64_t element_size(DataType type) { return kDataTypes[std::size_t(type)].bytes; }
std::string_view to_string(DataType type) { return kDataTypes[std::size_t(type)].name; }

std::string_view nccl_name(DataType type) {
  switch (type) {
    case DataType::Fp32: return "float";
    case DataType::Bf16: return "bfloat16";
    case DataType::Fp16: return "half";
    case DataType::Fp8: return "fp8_e4m3";
    case DataType::Int8: return "int8";
    case DataType::Fp64: return "double";
  }
  return "float";
}

std::optional<DataType> find_data_type(std::string_view name) {
  for (const DataTypeRow& row : kDataTypes)
    if (row.name == name) return row.type;
  if (name == "float" || name == "float32") return DataType::Fp32;
  if (name == "half" || name == "float16") return DataType::Fp16;
  if (name == "bfloat16") return DataType::Bf16;
  if (name == "double" || name == "float64") return DataType::Fp64;
  return std::nullopt;
}

std::optional<Compression> parse_compression(std::string_view text) {
  if (text == "none" || text.empty()) return Compression::none();
  if (text == "fp8") return Compression::quantize(DataType::Fp8);
  if (text == "int8") return Compression::quantize(DataType::Int8);
  constexpr std::string_view kTopK = "topk";
  if (text.substr(0, kTopK.size()) != kTopK) return std::nullopt;
  std::string_view rest = text.substr(kTopK.size());
  if (rest.size() >= 2 && rest.front() == '(' && rest.back() == ')')
    rest = rest.substr(1, rest.size() - 2);
  else if (!rest.empty() && rest.front() == ':')
    rest.remove_prefix(1);
  else
    return std::nullopt;
  const std::optional<double> ratio = parse_ratio(rest);
  if (!ratio) return std::nullopt;
  return Compression::topk(*ratio);
}

std::string to_string(const Compression& c) {
  switch (c.kind) {
    case CompressionKind::None: return "none";
    case CompressionKind::Quantize: return std::string(to_string(c.wire_type));
    case CompressionKind::TopK: {
      std::ostringstream out;
      out << "topk:" << c.ratio;
      return out.str();
    }
  }
  return "none";
}

Bytes Payload::wire_bytes(Bytes dense) const {
  if (!quantized()) return dense;
  return Bytes{dense.count() / element_bytes() * element_size(compression.wire_type)};
}

Bytes Payload::sparse_bytes(Bytes dense) const {
  assert(sparse());
  const std::int64_t count = dense.count() / element_bytes();
  const auto kept = std::max<std::int64_t>(1, std::int64_t(std::ceil(double(count) * compression.ratio)));
  return Bytes{kept * (element_bytes() + kTopKIndexBytes)};
}

}  // namespace ringlab::sim
