// Element types and the buffer layout of a case (see backend.hpp).
#include "backend.hpp"

namespace ringlab::validate {

std::int64_t element_bytes(ElementType type) {
  switch (type) {
    case ElementType::Float: return 4;
    case ElementType::Half: return 2;
    case ElementType::Bfloat16: return 2;
    case ElementType::Double: return 8;
    case ElementType::Int32: return 4;
  }
  return 4;
}

const char* nccl_tests_name(ElementType type) {
  switch (type) {
    case ElementType::Float: return "float";
    case ElementType::Half: return "half";
    case ElementType::Bfloat16: return "bfloat16";
    case ElementType::Double: return "double";
    case ElementType::Int32: return "int32";
  }
  return "float";
}

CheckShape Case::shape() const {
  return CheckShape{CheckedCollective(int(collective)), ranks, rank, root, block};
}

std::int64_t Case::input_offset() const { return collective == sim::Collective::AllGather ? rank * block : 0; }
std::int64_t Case::input_count() const { return collective == sim::Collective::AllGather ? block : count; }
std::int64_t Case::output_offset() const { return collective == sim::Collective::ReduceScatter ? rank * block : 0; }
std::int64_t Case::output_count() const { return collective == sim::Collective::ReduceScatter ? block : count; }

static_assert(int(sim::Collective::AllReduce) == int(CheckedCollective::AllReduce) &&
                  int(sim::Collective::ReduceScatter) == int(CheckedCollective::ReduceScatter) &&
                  int(sim::Collective::AllGather) == int(CheckedCollective::AllGather) &&
                  int(sim::Collective::Broadcast) == int(CheckedCollective::Broadcast) &&
                  int(sim::Collective::Reduce) == int(CheckedCollective::Reduce),
              "pattern.hpp numbers collectives as schedule.hpp does");

}  // namespace ringlab::validate
