#include "run/sweep/ReportMetrics.h"

#include <vector>

namespace tessim::sweep {
namespace {

using Json = nlohmann::ordered_json;

const Json* unwrap(const Json* value) {
    if (value && value->is_object()) {
        auto it = value->find("value");
        if (it != value->end() && !it->is_object())
            return &*it;
    }
    return value;
}

// "layers[2]" indexes an array; the longest dotted run of segments that names a key wins.
const Json* walk(const Json& node, const std::vector<std::string>& segments, size_t first) {
    if (first == segments.size())
        return &node;
    if (node.is_object()) {
        for (size_t last = segments.size(); last > first; --last) {
            std::string key = segments[first];
            for (size_t i = first + 1; i < last; ++i)
                key += "." + segments[i];
            auto it = node.find(key);
            if (it != node.end()) {
                if (const Json* found = walk(*it, segments, last))
                    return found;
            }
            // name[index]
            size_t open = key.find('[');
            if (last == first + 1 && open != std::string::npos && key.back() == ']') {
                auto arr = node.find(key.substr(0, open));
                if (arr != node.end() && arr->is_array()) {
                    size_t index = std::stoul(key.substr(open + 1, key.size() - open - 2));
                    if (index < arr->size()) {
                        if (const Json* found = walk((*arr)[index], segments, last))
                            return found;
                    }
                }
            }
        }
    }
    return nullptr;
}

}  // namespace

const Json* findMetric(const Json& report, const std::string& path) {
    std::vector<std::string> segments;
    size_t start = 0;
    for (size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1) {
        segments.push_back(path.substr(start, dot - start));
    }
    segments.push_back(path.substr(start));
    try {
        return unwrap(walk(report, segments, 0));
    } catch (const std::exception&) {
        return nullptr;  // a malformed index such as "a[x]"
    }
}

}  // namespace tessim::sweep
