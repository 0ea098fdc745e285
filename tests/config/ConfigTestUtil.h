#pragma once

#include "sim/config/ConfigError.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace tessim::config::test {

/// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::random_device random;
        const std::string name = std::string("tessim_config_") + (info != nullptr ? info->name() : "test") +
                                 "_" + std::to_string(::getpid()) + "_" + std::to_string(random());
        root_ = std::filesystem::temp_directory_path() / name;
        std::filesystem::create_directories(root_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(root_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// Writes `text` to `relative` (creating folders) and returns the full path.
    std::string write(const std::string& relative, const std::string& text) const {
        const std::filesystem::path file = root_ / relative;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << text;
        return file.string();
    }
    std::string path(const std::string& relative) const { return (root_ / relative).string(); }

private:
    std::filesystem::path root_;
};

/// Runs `action`, which must throw ConfigError, and returns the error.
template <class Action> ConfigError expectConfigError(Action&& action) {
    try {
        action();
    } catch (const ConfigError& error) {
        return error;
    }
    ADD_FAILURE() << "expected a ConfigError";
    return ConfigError(Location{}, "", "<no error thrown>");
}

/// Checks file, line, column and dotted key of an error in one go.
inline void expectAt(const ConfigError& error, const std::string& file, int line, int column,
                     const std::string& key) {
    EXPECT_EQ(error.location().file, file) << error.what();
    EXPECT_EQ(error.location().line, line) << error.what();
    EXPECT_EQ(error.location().column, column) << error.what();
    EXPECT_EQ(error.key(), key) << error.what();
}

}  // namespace tessim::config::test
