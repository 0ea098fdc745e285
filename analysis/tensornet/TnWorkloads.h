// The simulated forms of a TT or TR layer and of its dense baseline, as `tessim run` command lines:
//   k1:  the layer as the TT einsum chain (kernel fc with `tt:` or `tr:`), cores in the plan's
//        order, a convolution's im2col first (`im2col:`, simulated); the dense baseline as the
//        dense fc layer over the same rows, or a convolution itself (conv2d: im2col + GEMM).
//   npu: the layer as a sequence of GEMMs on the MAC array, each a 1×1 conv2d layer (M rows as
//        h × w pixels, K channels, N filters). A ring runs its chains batched: the ring index is
//        extra filters of the first step, extra rows of the middle ones and extra channels of the
//        last, so every step is one GEMM of ring-rank times the work. The reshapes between steps are
//        taken as free (a DMA access pattern); the data are INT8 (the array's type), requantised
//        after each step. The dense baseline is the convolution itself (or the GEMM of an fc layer).
// On the npu a conv's TT/TR forms read its input as im2col rows, which the first GEMM's DMA gathers
// from the image (the column matrix's bytes counted, not its short runs).
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
ReproRun groupedDenseRun(const std::string& name, const std::string& target, const GroupedConv& conv);

}  // namespace tessim::tn
