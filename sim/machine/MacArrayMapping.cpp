#include "sim/machine/MacArrayMapping.h"

namespace tessim {

Dataflow dataflowFromName(const std::string& name) {
    return name == "os"   ? Dataflow::OutputStationary
           : name == "is" ? Dataflow::InputStationary
                          : Dataflow::WeightStationary;
}

SystolicMapping mapTile(unsigned rows, unsigned cols, Dataflow dataflow, std::uint64_t outPixels,
                        std::uint64_t filters, std::uint64_t window) {
    SystolicMapping m;
    switch (dataflow) {
    case Dataflow::OutputStationary:
        m.sr = outPixels;
        m.sc = filters;
        m.t = window;
        break;
    case Dataflow::WeightStationary:
        m.sr = window;
        m.sc = filters;
        m.t = outPixels;
        break;
    case Dataflow::InputStationary:
        m.sr = window;
        m.sc = outPixels;
        m.t = filters;
        break;
    }
    m.folds = ((m.sr + rows - 1) / rows) * ((m.sc + cols - 1) / cols);
    m.cyclesPerFold = dataflow == Dataflow::OutputStationary ? rows + cols + m.t - 2
                                                             : 2 * std::uint64_t{rows} + cols + m.t - 2;
    return m;
}

OperandTraffic operandTraffic(unsigned rows, unsigned cols, Dataflow dataflow, const MacTileArgs& a) {
    const std::uint64_t e = std::uint64_t{a.outH} * a.outW, k = std::uint64_t{a.channels} * a.kh * a.kw;
    const SystolicMapping map = mapTile(rows, cols, dataflow, e, a.filters, k);
    const std::uint64_t rowFolds = (map.sr + rows - 1) / rows, colFolds = (map.sc + cols - 1) / cols;
    OperandTraffic t;
    switch (dataflow) {
    case Dataflow::WeightStationary:
        t.weights = k * a.filters;
        t.input = e * k * colFolds;
        t.accumulatorWrite = e * a.filters * rowFolds * 4;
        break;
    case Dataflow::InputStationary:
        t.input = e * k;
        t.weights = k * a.filters * colFolds;
        t.accumulatorWrite = e * a.filters * rowFolds * 4;
        break;
    case Dataflow::OutputStationary:
        t.input = e * k * colFolds;
        t.weights = k * a.filters * rowFolds;
        t.accumulatorWrite = e * a.filters * 4;
        break;
    }
    if (e * k * a.filters == 0)
        return OperandTraffic{};
    if (a.accumulate)
        t.accumulatorRead = e * a.filters * 4;
    if (a.inArray) {
        t.inArrayBytes = t.accumulatorRead + t.accumulatorWrite;
        t.accumulatorRead = 0;
        t.accumulatorWrite = a.inArray == 2 ? e * a.filters * 4 : 0;
    }
    if (a.requantize)
        t.outputWrite = e * a.filters;
    return t;
}

std::uint64_t requantCycles(const MacTileArgs& a, unsigned cols) {
    if (!a.requantize)
        return 0;
    const std::uint64_t outputs = std::uint64_t{a.filters} * a.outH * a.outW;
    return (outputs + cols - 1) / cols;
}

}  // namespace tessim
