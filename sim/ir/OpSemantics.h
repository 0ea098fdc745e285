// Functional semantics of the built-in op kinds, on an executor's registers (OpExecution): the
// engine supplies registers and memory bytes, the table's rows say what each kind computes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/ir/Op.h"

namespace tessim {

// What an op's semantics may touch: the engine's registers and, for loads and stores, the bytes
// moved. A register of the wrong file, or an op its semantics refuse, ends the run (fail()).
class OpExecution {
public:
    virtual ~OpExecution() = default;
    // Register r's elements; fails unless r is a vector register.
    virtual std::vector<double>& vector(std::uint8_t r) = 0;
    // Register r's value; fails unless r is a scalar register.
    virtual double& scalar(std::uint8_t r) = 0;
    // Bytes of one vector register (VLEN / 8).
    virtual unsigned registerBytes() const = 0;
    // Registers between two fields of a segment op (its LMUL group, 1 without groups).
    virtual unsigned fieldRegisters(const Op& op) const = 0;
    // A load's bytes as read from memory.
    virtual const std::uint8_t* loaded() const = 0;
    // The buffer a store's semantics fill with the bytes it writes.
    virtual std::vector<std::uint8_t>& stored() = 0;
    // Ends the run: "engine <name>: <what>".
    [[noreturn]] virtual void fail(const std::string& what) const = 0;

    // A vector op's source i: a vector register, or a scalar register splat over vl (.vf forms).
    const std::vector<double>& source(const Op& op, unsigned i);

private:
    std::array<std::vector<double>, 3> splat_;
};

namespace semantics {

void vload(const Op&, OpExecution&);
void vstore(const Op&, OpExecution&);
void sload(const Op&, OpExecution&);
void sstore(const Op&, OpExecution&);
void segmentLoad(const Op&, OpExecution&);
void segmentStore(const Op&, OpExecution&);
void fma(const Op&, OpExecution&);
void widenFma(const Op&, OpExecution&);
void mul(const Op&, OpExecution&);
void add(const Op&, OpExecution&);
void max(const Op&, OpExecution&);
void min(const Op&, OpExecution&);
void sub(const Op&, OpExecution&);
void divide(const Op&, OpExecution&);
void convert(const Op&, OpExecution&);
void reciprocalEstimate(const Op&, OpExecution&);
void broadcast(const Op&, OpExecution&);
void slide(const Op&, OpExecution&);
void gather(const Op&, OpExecution&);
void reduce(const Op&, OpExecution&);
void scalarAdd(const Op&, OpExecution&);
void scalarMul(const Op&, OpExecution&);
void scalarCompare(const Op&, OpExecution&);
void scalarShift(const Op&, OpExecution&);
void scalarDivide(const Op&, OpExecution&);
void scalarFma(const Op&, OpExecution&);
void scalarConvert(const Op&, OpExecution&);
void branch(const Op&, OpExecution&);
void setVectorLength(const Op&, OpExecution&);

// Helpers for semantics of new kinds: element i of v (0 past its end), and a result register
// of at least n elements whose elements past n keep their values (tail undisturbed).
inline double element(const std::vector<double>& v, std::size_t i) {
    return i < v.size() ? v[i] : 0.0;
}
std::vector<double> undisturbedTail(const std::vector<double>& old, std::size_t n);

}  // namespace semantics
}  // namespace tessim
