// The simulated forms of a TT or TR layer and of its dense baseline, as `tessim run` command lines:
//   k1:  the layer as the TT einsum chain (kernel fc with `tt:` or `tr:`), cores in the plan's
//        order; the dense baseline as the dense fc layer over the same rows (im2col rows for a conv).
//   npu: the layer as a sequence of GEMMs on the MAC array, each a 1×1 conv2d layer (M rows as
//        h × w pixels, K channels, N filters). A ring runs its chains batched: the ring index is
//        extra filters of the first step, extra rows of the middle ones and extra channels of the
//        last, so every step is one GEMM of ring-rank times the work. The reshapes between steps are
//        taken as free (a DMA access pattern); the data are INT8 (the array's type), requantised
//        after each step. The dense baseline is the convolution itself (or the GEMM of an fc layer).
// A conv's TT/TR forms read its input as im2col rows; making them is not simulated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/reproduce/Reproduction.h"
#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/TnLayer.h"

namespace tessim::tn {

struct Gemm {
    std::uint64_t m = 0, k = 0, n = 0;  // rows, contracted, columns
};

// The GEMMs of a plan on a MAC array (ring chains batched, see above).
std::vector<Gemm> planGemms(const ContractionPlan& plan);

// The targets a layer can be simulated on.
bool tnTargetSupported(const std::string& target);

// The run of the layer in the plan's order, and of its dense baseline, on the target, as library
// workloads with overrides (`fc` with workload.tt / workload.tr on k1; `resnet18` with its
// workload.layers replaced on npu), so the command line is the whole description. Throws
// std::invalid_argument when the target is not k1 or npu, or a GEMM exceeds the conv2d limits.
ReproRun layerRun(const std::string& name, const std::string& target, const TnLayer& layer,
                  const ContractionPlan& plan);
ReproRun denseRun(const std::string& name, const std::string& target, const TnLayer& layer);

// A grouped convolution (not factorised) and how it is simulated on a target.
struct GroupedConv {
    std::string name;
    std::uint64_t h = 0, w = 0, channels = 0, filters = 0, k = 0, stride = 1, pad = 0, groups = 1;
};
struct ScaledRun {
    ReproRun run;
    std::uint64_t times = 1;  // the run's time and energy count this many times
};
// npu: the grouped conv itself, once. k1 (no grouped kernel): one group's dense im2col fc layer
// (in channels/groups·k·k, out filters/groups, batch the output pixels), `groups` times.
ScaledRun groupedDenseRun(const std::string& name, const std::string& target, const GroupedConv& conv);

}  // namespace tessim::tn
