// Builds the RISC-V test programs with Debian's cross toolchain (gcc-riscv64-linux-gnu,
// libc6-dev-riscv64-cross; .ci/setup installs them) and runs them under qemu-riscv64, the
// functional reference, and under tessim.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "common/ProcessRunner.h"

namespace tessim::test {

constexpr const char* kRiscvCompiler = "riscv64-linux-gnu-gcc";
// The X60's scalar ISA (RVA22: rv64gc with Zba, Zbb, Zbs) as qemu-user runs it.
constexpr const char* kQemu = "qemu-riscv64 -cpu rv64,zba=true,zbb=true,zbs=true";
// With the V extension at the X60's VLEN (RVV 1.0, VLEN 256, ELEN 64).
constexpr const char* kQemuVector =
    "qemu-riscv64 -cpu rv64,zba=true,zbb=true,zbs=true,v=true,vext_spec=v1.0,vlen=256,elen=64";

// A scratch folder for one test process, removed at exit.
inline const std::string& scratchDirectory() {
    static const std::string dir = [] {
        std::string d =
            (std::filesystem::temp_directory_path() / ("tessim-riscv-" + std::to_string(::getpid())))
                .string();
        std::filesystem::create_directories(d);
        std::atexit([] {
            std::error_code e;
            std::filesystem::remove_all(
                std::filesystem::temp_directory_path() / ("tessim-riscv-" + std::to_string(::getpid())), e);
        });
        return d;
    }();
    return dir;
}

// Compiles tests/riscv/programs/<source> (or an absolute path) into a static executable;
// `flags` are added to the compiler's. Fails the test when the toolchain is missing.
inline std::string buildProgram(const std::string& source, const std::string& flags = "-O2 -static") {
    const std::string path =
        source[0] == '/' ? source : std::string(TESSIM_SOURCE_DIR) + "/tests/riscv/programs/" + source;
    const std::string out = scratchDirectory() + "/" + std::filesystem::path(source).stem().string() + "-" +
                            std::to_string(std::hash<std::string>{}(flags) % 100000);
    const auto r = runCommand(
        std::string(kRiscvCompiler) + " " +
        (flags.find("-march=") == std::string::npos ? "-march=rv64gc_zba_zbb_zbs " : "") + flags + " -o " +
        out + " " + path + (path.size() > 2 && path.substr(path.size() - 2) == ".c" ? " -lm" : ""));
    EXPECT_EQ(r.exitCode, 0) << "cannot build " << source << " (is " << kRiscvCompiler
                             << " installed? bash .ci/setup installs it)\n"
                             << r.err;
    return out;
}

// Compiles tests/riscv/programs/<source> with clang-14 (the RVV intrinsics), statically against
// the cross toolchain's glibc (with pthreads).
inline std::string buildClangProgram(const std::string& source) {
    const std::string path = std::string(TESSIM_SOURCE_DIR) + "/tests/riscv/programs/" + source;
    const std::string out =
        scratchDirectory() + "/" + std::filesystem::path(source).stem().string() + "-clang";
    const auto r = runCommand("clang-14 --target=riscv64-linux-gnu -march=rv64gcv -O2 -static -pthread -o " +
                              out + " " + path);
    EXPECT_EQ(r.exitCode, 0)
        << "cannot build " << source
        << " (are clang-14 and the cross glibc installed? bash .ci/setup installs them)\n"
        << r.err;
    return out;
}

inline ProcessResult runQemu(const std::string& program, const std::string& args = "") {
    return runCommand(std::string(kQemu) + " " + program + " " + args);
}

// `tessim run --target k1 --program`, the report written to `report` when given.
// `tessim`: the binary to run (the test's own by default; common/DocsBuild.h's docsTessim() for a
// long timing comparison whose figures the release build gives as well).
inline ProcessResult runProgram(const std::string& program, const std::string& args = "",
                                const std::string& report = "", const std::string& options = "",
                                const std::string& tessim = TESSIM_BINARY) {
    const std::string reportPath = report.empty() ? scratchDirectory() + "/report.json" : report;
    return runCommand(tessim + " run --target k1 --program " + program + " --report " + reportPath + " " +
                      options + (args.empty() ? "" : " -- " + args));
}

}  // namespace tessim::test
