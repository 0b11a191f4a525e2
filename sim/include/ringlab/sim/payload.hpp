// Payload: what a gradient buffer looks like on the wire. Element type (fp32, bf16, fp16, fp8, int8)
// and an optional compression, with the byte counts that compression puts on the wire.
//
// Compression models (what the collective builders in collectives.hpp emit):
//   none         wire bytes == dense bytes.
//   fp8 / int8   quantisation of the gradient to one byte per element before each send (Encode, reads
//                the dense chunk) and back after each receive (Decode). Reductions run in the
//                gradient's own precision: a reduce-scatter hop is decode -> reduce -> encode again.
//                Gather-type hops forward the encoded bytes and decode once per receiver.
//   topk(ratio)  sparsification: each rank keeps ceil(count * ratio) elements and sends them as
//                (value, int32 index) pairs, i.e. kept * (element size + 4) bytes. Sums of sparse
//                vectors are not sparse, so real systems (DGC, SparCML's sparse-sparse case, Horovod's
//                sparse path) all-gather the sparse parts and let every rank scatter-add them; that is
//                the model here: Encode (top-k selection over the dense buffer), an allgather of the
//                p sparse parts, one Decode (scatter-add) per part. Only AllReduce supports it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ringlab/topology/units.hpp"

namespace ringlab::sim {

enum class DataType : std::uint8_t { Fp32, Bf16, Fp16, Fp8, Int8, Fp64 };

/// Bytes per element: fp64 8, fp32 4, bf16/fp16 2, fp8/int8 1.
std::int64_t element_size(DataType type);
std::string_view to_string(DataType type);
/// The name nccl-tests prints in its type column: float, bfloat16, half, fp8_e4m3, int8.
std::string_view nccl_name(DataType type);
/// "fp32"/"float"/"float32", "bf16", "fp16"/"half", "fp8", "int8"; nullopt on a miss.
std::optional<DataType> find_data_type(std::string_view name);

enum class CompressionKind : std::uint8_t { None, Quantize, TopK };

struct Compression {
  CompressionKind kind = CompressionKind::None;
  DataType wire_type = DataType::Fp8;  ///< Quantize: element type on the wire (fp8 or int8)
  double ratio = 1.0;                  ///< TopK: fraction of elements kept, in (0, 1]

  static Compression none() { return {}; }
  static Compression quantize(DataType wire) { return {CompressionKind::Quantize, wire, 1.0}; }
  static Compression topk(double ratio) { return {CompressionKind::TopK, DataType::Fp8, ratio}; }
};

/// "none", "fp8", "int8", "topk:0.01" (also "topk(0.01)"); nullopt when malformed or the ratio is
/// outside (0, 1].
std::optional<Compression> parse_compression(std::string_view text);
/// Inverse of parse_compression: "none", "fp8", "int8", "topk:0.01".
std::string to_string(const Compression& c);

/// Index bytes sent with each value of a top-k sparse payload (int32 indices).
inline constexpr std::int64_t kTopKIndexBytes = 4;

struct Payload {
  DataType dtype = DataType::Fp32;
  Compression compression;

  std::int64_t element_bytes() const { return element_size(dtype); }
  bool quantized() const { return compression.kind == CompressionKind::Quantize; }
  bool sparse() const { return compression.kind == CompressionKind::TopK; }
  /// Bytes on the wire for a dense chunk of `dense` bytes (a whole number of elements) under
  /// quantisation; `dense` itself otherwise (top-k parts are sized by sparse_bytes).
  Bytes wire_bytes(Bytes dense) const;
  /// Top-k: bytes of one rank's sparse part for a dense buffer of `dense` bytes:
  /// ceil(count * ratio) * (element size + 4). Precondition: sparse().
  Bytes sparse_bytes(Bytes dense) const;
};

}  // namespace ringlab::sim
