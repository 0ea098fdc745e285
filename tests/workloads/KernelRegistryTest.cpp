// The kernel registry and per-kernel plan look-up: names resolve in the kernel's plan directory,
// paths still work, and a plan of another kernel is a clear error.
#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "run/pipeline/ConfigLibrary.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "workloads/KernelRegistry.h"
#include "workloads/WorkloadFactory.h"

namespace tessim {
namespace {

config::Node workloadOf(const std::string& kernel) {
    return config::loadYamlString("kernel: " + kernel + "\n", "workload.yaml");
}

std::string planError(const std::string& name, const config::Node& workload) {
    try {
        resolvePlanPath(name, workload);
    } catch (const config::ConfigError& e) {
        return e.what();
    }
    return "";
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(KernelRegistry, EveryRowHasAUniqueNameAndAFactory) {
    std::set<std::string> rows;
    for (const auto& k : kernelRegistry()) {
        EXPECT_TRUE(rows.insert(k.rowName()).second) << k.rowName();
        EXPECT_NE(k.make, nullptr) << k.name;
        EXPECT_FALSE(k.description.empty()) << k.name;
        ASSERT_NE(findKernel(k.name), nullptr) << k.name;
        EXPECT_EQ(findKernel(k.name)->name, k.name);
        // A kernel of several rows names each variant; one of a single row needs none.
        std::size_t rowsOfKernel = 0;
        for (const auto& other : kernelRegistry())
            rowsOfKernel += other.name == k.name;
        EXPECT_EQ(k.variant.empty(), rowsOfKernel == 1) << k.rowName();
    }
    // kernelNames() lists the kernels, each once, in the order of their first rows.
    std::vector<std::string> names;
    for (const auto& k : kernelRegistry())
        if (std::find(names.begin(), names.end(), k.name) == names.end())
            names.push_back(k.name);
    EXPECT_EQ(kernelNames(), names);
    EXPECT_EQ(findKernel("no-such-kernel"), nullptr);
}

TEST(KernelRegistry, EveryLibraryWorkloadNamesARegisteredKernel) {
    const auto workloads = listLibrary(LibraryKind::Workload);
    ASSERT_FALSE(workloads.empty());
    for (const auto& w : workloads) {
        const config::Node node = config::loadYamlFile(w.path);
        const config::Node* kernel = node.find("kernel");
        ASSERT_TRUE(kernel && kernel->isScalar()) << w.path;
        EXPECT_NE(findKernel(kernel->scalar()), nullptr) << w.path << ": " << kernel->scalar();
    }
}

// A workload that the row serves: its kernel, with the row's first workload key.
config::Node workloadFor(const KernelEntry& k) {
    std::string yaml = "kernel: " + k.name + "\n";
    if (!k.workloadKeys.empty())
        yaml += k.workloadKeys.front() + ": {}\n";
    return config::loadYamlString(yaml, "workload.yaml");
}

// Every listed plan is found by its directory-qualified name, and by its bare name for a workload
// of every row whose plan directory holds it; and every plan directory belongs to a row.
TEST(PlanLookup, EveryListedPlanIsFoundByNameThroughItsRows) {
    const auto plans = listLibrary(LibraryKind::Plan);
    ASSERT_FALSE(plans.empty());
    for (const auto& plan : plans) {
        EXPECT_EQ(resolvePlanPath(plan.name, config::Node()), plan.path) << plan.name;
        const std::string directory = plan.name.substr(0, plan.name.find('/'));
        const std::string name = plan.name.substr(plan.name.find('/') + 1);
        std::size_t rows = 0;
        for (const auto& k : kernelRegistry()) {
            if (k.planDirectory != directory)
                continue;
            EXPECT_EQ(resolvePlanPath(name, workloadFor(k)), plan.path) << k.rowName() << " " << plan.name;
            ++rows;
        }
        EXPECT_GT(rows, 0u) << plan.name << ": no registry row has its directory";
    }
}

TEST(KernelRegistry, EveryRowIsTheOneItsWorkloadAndStrategySelect) {
    for (const auto& k : kernelRegistry()) {
        const config::Node workload = workloadFor(k);
        if (k.strategies.empty()) {
            EXPECT_EQ(selectKernel(workload, config::Node()), &k) << k.rowName();
            continue;
        }
        for (const auto& strategy : k.strategies) {
            const config::Node plan = config::loadYamlString("strategy: " + strategy + "\n", "plan.yaml");
            EXPECT_EQ(selectKernel(workload, plan), &k) << k.rowName() << " " << strategy;
        }
    }
    // A strategy that no row of the kernel takes names them all, at the plan's key.
    try {
        selectKernel(workloadOf("conv2d"), config::loadYamlString("strategy: winograd\n", "plan.yaml"));
        ADD_FAILURE() << "no error";
    } catch (const config::ConfigError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("plan.yaml:1:11"), std::string::npos) << m;
        EXPECT_NE(m.find("'naive'"), std::string::npos) << m;
        EXPECT_NE(m.find("'shuffle'"), std::string::npos) << m;
        EXPECT_NE(m.find("'im2col'"), std::string::npos) << m;
    }
}

TEST(PlanLookup, ANameIsFoundInTheKernelsPlanDirectory) {
    EXPECT_TRUE(endsWith(resolvePlanPath("double-buffer", workloadOf("conv2d")),
                         "configs/plans/conv2d/double-buffer.yaml"));
    EXPECT_TRUE(
        endsWith(resolvePlanPath("two-cores", workloadOf("dot")), "configs/plans/vector/two-cores.yaml"));
}

TEST(PlanLookup, APathOrADirectoryQualifiedNameStillWorks) {
    const std::string path = std::string(TESSIM_SOURCE_DIR) + "/configs/plans/conv2d/naive.yaml";
    EXPECT_EQ(resolvePlanPath(path, workloadOf("axpy")), path);
    EXPECT_TRUE(endsWith(resolvePlanPath("conv2d/naive", config::Node()), "configs/plans/conv2d/naive.yaml"));
    const std::string e = planError("conv2d/nope", config::Node());
    EXPECT_NE(e.find("no plan named 'nope' in "), std::string::npos) << e;
    EXPECT_NE(e.find("conv2d/ (its plans: double-buffer, im2col, naive, rvv-im2col, seed-bands, shuffle, "
                     "static-single)"),
              std::string::npos)
        << e;
    EXPECT_NE(planError("elsewhere/nope", config::Node()).find("plan file 'elsewhere/nope' does not exist"),
              std::string::npos);
}

TEST(PlanLookup, WithoutAWorkloadAUniqueNameIsFound) {
    EXPECT_TRUE(endsWith(resolvePlanPath("static-single", config::Node()), "conv2d/static-single.yaml"));
    EXPECT_NE(planError("no-such-plan", config::Node()).find("known: conv2d/double-buffer"),
              std::string::npos);
}

TEST(PlanLookup, APlanOfAnotherKernelIsAnErrorListingThisKernelsPlans) {
    const std::string e = planError("double-buffer", workloadOf("axpy"));
    EXPECT_NE(e.find("kernel 'axpy' has no plan named 'double-buffer'"), std::string::npos) << e;
    EXPECT_NE(e.find("plans/vector/: two-cores"), std::string::npos) << e;
    EXPECT_NE(e.find("is a plan of conv2d, onnx (conv2d/double-buffer)"), std::string::npos) << e;
    const std::string s = planError("naive", workloadOf("scalesim"));
    EXPECT_NE(s.find("it takes no plans"), std::string::npos) << s;
}

TEST(PlanLookup, PlansAreListedAsDirectorySlashName) {
    std::set<std::string> names;
    for (const auto& e : listLibrary(LibraryKind::Plan))
        names.insert(e.name);
    for (const char* n : {"conv2d/naive", "conv2d/static-single", "conv2d/double-buffer", "vector/two-cores"})
        EXPECT_EQ(names.count(n), 1u) << n;
}

}  // namespace
}  // namespace tessim
