// A back-end executes one collective case on this rank: buffers, initial values, one timed
// iteration, and the result check. The runner (runner.hpp) drives it through the size sweep; MPI
// (CPU buffers) and NCCL (GPU buffers) implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ringlab/sim/schedule.hpp"
#include "ringlab/topology/units.hpp"
#include "ringlab/validate/levels.hpp"
#include "ringlab/validate/pattern.hpp"

namespace ringlab::validate {

class World;

/// Element types by nccl-tests' names.
enum class ElementType : std::int32_t { Float, Half, Bfloat16, Double, Int32 };
std::int64_t element_bytes(ElementType type);
const char* nccl_tests_name(ElementType type);

/// One size of the sweep, as one rank runs it.
struct Case {
  sim::Collective collective = sim::Collective::AllReduce;
  ElementType type = ElementType::Float;
  int ranks = 1;
  int rank = 0;
  int root = 0;
  std::int64_t count = 0;  ///< elements of the whole array: all-reduce/broadcast/reduce count, ranks x block otherwise
  std::int64_t block = 0;  ///< elements per rank block (count / ranks for reduce-scatter and all-gather, else count)
  bool in_place = true;
  const sim::Schedule* schedule = nullptr;  ///< schedule mode: the program to execute (else the library's own call)
  const RankProgram* program = nullptr;     ///< this rank's levels of `schedule`

  CheckShape shape() const;
  /// Library mode, out of place: the whole-array elements the send and receive buffers hold.
  std::int64_t input_offset() const;
  std::int64_t input_count() const;
  std::int64_t output_offset() const;
  std::int64_t output_count() const;
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "nccl 2.28.3 (cuda 13.0)", "mpi (Open MPI v4.1.4)".
  virtual std::string engine() const = 0;
  /// "device 0 [0000:00:06] NVIDIA H100 80GB HBM3" or "cpu", for the rank listing.
  virtual std::string device() const = 0;
  /// Why `type` cannot run in `schedule` or library mode here; "" when it can.
  virtual std::string unsupported(ElementType type, bool schedule) const = 0;
  /// Allocates what `c` needs (reusing earlier buffers when large enough).
  virtual void prepare(const Case& c) = 0;
  /// Writes the initial values (pattern.hpp) into the buffers of `c`.
  virtual void fill(const Case& c) = 0;
  /// Runs `c` once and returns how long it took on this rank (from issue to completion).
  virtual Duration run(const Case& c) = 0;
  /// Elements of this rank's result that differ from the expected values.
  virtual std::int64_t count_wrong(const Case& c) = 0;
};

std::unique_ptr<Backend> make_mpi_backend(const World& world);
/// nullptr when this build has no NCCL back-end.
std::unique_ptr<Backend> make_nccl_backend(const World& world);
bool have_nccl_backend();

}  // namespace ringlab::validate
