// Payload: element sizes, compression names and the bytes each compression puts on the wire.
#include <catch2/catch.hpp>

#include "ringlab/sim/payload.hpp"

using namespace ringlab;
using namespace ringlab::sim;
using namespace ringlab::literals;

TEST_CASE("payload: element sizes of the gradient types", "[payload]") {
  CHECK(element_size(DataType::Fp32) == 4);
  CHECK(element_size(DataType::Bf16) == 2);
  CHECK(element_size(DataType::Fp16) == 2);
  CHECK(element_size(DataType::Fp8) == 1);
  CHECK(element_size(DataType::Int8) == 1);
  CHECK(find_data_type("float") == DataType::Fp32);
  CHECK(find_data_type("bf16") == DataType::Bf16);
  CHECK(element_size(DataType::Fp64) == 8);
  CHECK(find_data_type("double") == DataType::Fp64);  // nccl-tests' -d double
  CHECK(nccl_name(DataType::Fp64) == "double");
  CHECK_FALSE(find_data_type("fp128"));
  for (DataType t : {DataType::Fp32, DataType::Bf16, DataType::Fp16, DataType::Fp8, DataType::Int8, DataType::Fp64})
    CHECK(find_data_type(to_string(t)) == t);
}

TEST_CASE("payload: compression names parse and print back", "[payload]") {
  CHECK(parse_compression("none")->kind == CompressionKind::None);
  CHECK(parse_compression("fp8")->wire_type == DataType::Fp8);
  CHECK(parse_compression("int8")->kind == CompressionKind::Quantize);
  const auto topk = parse_compression("topk:0.01");
  REQUIRE(topk);
  CHECK(topk->kind == CompressionKind::TopK);
  CHECK(topk->ratio == Approx(0.01));
  CHECK(parse_compression("topk(0.5)")->ratio == Approx(0.5));
  CHECK(to_string(*topk) == "topk:0.01");
  CHECK(to_string(*parse_compression("int8")) == "int8");
  CHECK_FALSE(parse_compression("topk:0"));
  CHECK_FALSE(parse_compression("topk:1.5"));
  CHECK_FALSE(parse_compression("topk"));
  CHECK_FALSE(parse_compression("gzip"));
}

TEST_CASE("payload: fp32 -> fp8 quantisation puts a quarter of the bytes on the wire", "[payload]") {
  Payload p;
  CHECK(p.wire_bytes(4_MiB) == 4_MiB);
  p.compression = Compression::quantize(DataType::Fp8);
  CHECK(p.wire_bytes(4_MiB) == 1_MiB);
  p.dtype = DataType::Bf16;
  p.compression = Compression::quantize(DataType::Int8);
  CHECK(p.wire_bytes(4_MiB) == 2_MiB);
}

TEST_CASE("payload: top-k sends count*ratio (value, int32 index) pairs", "[payload]") {
  Payload p;
  p.compression = Compression::topk(0.01);
  // 1 Mi fp32 elements, 1% kept = ceil(10485.76) = 10486 pairs of 4 + 4 bytes.
  CHECK(p.sparse_bytes(4_MiB) == Bytes{10486 * 8});
  p.dtype = DataType::Fp16;
  CHECK(p.sparse_bytes(2_MiB) == Bytes{10486 * 6});
  // At least one element survives.
  p.compression = Compression::topk(1e-9);
  CHECK(p.sparse_bytes(Bytes{64}) == Bytes{6});
}
