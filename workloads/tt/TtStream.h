// The op stream of one thread of a tensor-train layer (TtSchedule.h): per register block the
// pointer set-up, per k step the operand loads and multiply-accumulates with the loop's counter,
// compare and back-edge, then the stores and the block loop; fork/join and a barrier per einsum.
#pragma once

#include <vector>

#include "sim/ir/OpStream.h"
#include "workloads/tt/TtSchedule.h"

namespace tessim::tt {

// Scalar registers the loops use: bookkeeping, the operand and sum pools, and as scalar code
// (vector_length 1) the block's operands.
unsigned scalarRegistersUsed(const TtParams& p);

// Vector registers beyond the block's (ttBlockRegisters): two where f16 cores are loaded as vectors
// (vle16 into them one core ahead, vfwcvt.f.f.v out of them), else none.
unsigned stagingRegisters(const TtParams& p);

// One stream per engine of the plan, in thread order.
std::vector<EngineStream> ttStreams(const TtParams& p);

}  // namespace tessim::tt
