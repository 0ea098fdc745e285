#include "sim/config/Loader.h"

#include "sim/config/ConfigError.h"
#include "sim/config/TextFile.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;

namespace tessim::config {

namespace {

const char* const kIncludeKey = "include";

Location toLocation(const std::string& file, const YAML::Mark& mark) {
    if (mark.is_null() || mark.line < 0) {
        return Location{file, 0, 0};
    }
    return Location{file, mark.line + 1, mark.column + 1};
}

/// What one document may expand to. Aliases are copied, so a short file whose aliases nest
/// (an alias bomb) or an alias inside its own anchor (a cycle) would otherwise grow without bound.
constexpr int kMaxDepth = 256;
constexpr std::size_t kMaxNodes = 1'000'000;

struct Budget {
    int depth = 0;
    std::size_t nodes = 0;
};

/// Copies a yaml-cpp tree into our own. With `fixed`, every node gets that location instead of
/// its mark (values given on the command line).
Node convert(const YAML::Node& yaml, const std::string& file, const std::string& path,
             const std::optional<Location>& fixed, Budget& budget) {
    const Location where = fixed ? *fixed : toLocation(file, yaml.Mark());
    if (budget.depth >= kMaxDepth)
        throw ConfigError(
            where, path.size() > 80 ? path.substr(0, 80) + "..." : path,
            fmt::format("nested more than {} levels deep (or an alias inside its own anchor)", kMaxDepth));
    if (++budget.nodes > kMaxNodes)
        throw ConfigError(where, path,
                          fmt::format("more than {} values once aliases are expanded", kMaxNodes));
    struct Level {
        Budget& b;
        explicit Level(Budget& budget) : b(budget) { ++b.depth; }
        ~Level() { --b.depth; }
    } level(budget);
    Node node;
    switch (yaml.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: node = Node::makeNull(where); break;
    case YAML::NodeType::Scalar: node = Node::makeScalar(yaml.Scalar(), where); break;
    case YAML::NodeType::Sequence: {
        node = Node::makeSequence(where);
        std::size_t index = 0;
        for (const YAML::Node& item : yaml) {
            node.append(convert(item, file, indexPath(path, index++), fixed, budget));
        }
        break;
    }
    case YAML::NodeType::Map: {
        node = Node::makeMap(where);
        // Repeated keys found by hash, so a map with many keys loads in linear time.
        std::unordered_map<std::string, int> lineOfKey;
        for (const auto& pair : yaml) {
            const Location keyWhere = fixed ? *fixed : toLocation(file, pair.first.Mark());
            if (!pair.first.IsScalar()) {
                throw ConfigError(keyWhere, path, "map keys must be plain names");
            }
            const std::string key = pair.first.Scalar();
            const std::string childPath = joinPath(path, key);
            if (const auto previous = lineOfKey.find(key); previous != lineOfKey.end()) {
                throw ConfigError(
                    keyWhere, childPath,
                    fmt::format("duplicate key '{}' (first given at line {})", key, previous->second));
            }
            Node value = convert(pair.second, file, childPath, fixed, budget);
            // yaml-cpp marks an empty value ("key:" then a newline) at the next token.
            if (value.isNull() && !fixed &&
                (value.location().line == 0 || value.location().line != keyWhere.line)) {
                value.setLocation(keyWhere);
            }
            value.setKeyLocation(keyWhere);
            lineOfKey.emplace(key, value.keyLocation().line);
            node.appendNew(key, std::move(value));
        }
        break;
    }
    }
    node.setPath(path);
    return node;
}

/// Notes where each document's root node starts (where the document starts, for an empty one)
/// and ignores the rest of the events.
class DocumentCounter : public YAML::EventHandler {
public:
    std::vector<YAML::Mark> starts;
    void OnDocumentStart(const YAML::Mark& mark) override {
        starts.push_back(mark);
        rootPending_ = true;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
        node(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& mark) {
        if (rootPending_)
            starts.back() = mark;
        rootPending_ = false;
    }
    bool rootPending_ = false;
};

/// Where a quoted scalar starting at `open` (its quote) closes in `text`, or npos: `"` honours
/// backslash escapes, `'` doubled quotes.
std::size_t closingQuote(const std::string& text, std::size_t open) {
    const char q = text[open];
    for (std::size_t i = open + 1; i < text.size(); ++i) {
        if (q == '"' && text[i] == '\\') {
            ++i;
        } else if (text[i] == q) {
            if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
                ++i;
            else
                return i;
        }
    }
    return std::string::npos;
}

/// A quoted value that runs on over a line that reads like a key (`name:` at a line's start) has
/// lost its closing quote: YAML folds the following keys into it and the error would surface
/// later, elsewhere, as a missing key. Said at the quote instead. `tree` is bounded (converted).
void checkQuotedScalars(const YAML::Node& yaml, const std::string& text, const std::string& file) {
    if (yaml.IsMap() || yaml.IsSequence()) {
        for (const auto& item : yaml) {
            if (yaml.IsMap()) {
                checkQuotedScalars(item.second, text, file);
            } else {
                checkQuotedScalars(item, text, file);
            }
        }
        return;
    }
    const YAML::Mark m = yaml.Mark();
    if (!yaml.IsScalar() || yaml.Tag() != "!" || m.is_null() || m.pos < 0 ||
        static_cast<std::size_t>(m.pos) >= text.size())
        return;
    const auto open = static_cast<std::size_t>(m.pos);
    if (text[open] != '"' && text[open] != '\'')
        return;
    const std::size_t close = closingQuote(text, open);
    const std::size_t firstBreak = text.find('\n', open);
    if (firstBreak == std::string::npos || (close != std::string::npos && close < firstBreak))
        return;
    int line = m.line + 1;
    for (std::size_t at = firstBreak; at != std::string::npos && (close == std::string::npos || at < close);
         at = text.find('\n', at + 1)) {
        ++line;
        std::size_t i = at + 1;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        std::size_t j = i;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_' ||
                                   text[j] == '-' || text[j] == '.'))
            ++j;
        if (j > i && std::isalpha(static_cast<unsigned char>(text[i])) && j < text.size() && text[j] == ':' &&
            (j + 1 == text.size() || text[j + 1] == ' ' || text[j + 1] == '\n') &&
            (close == std::string::npos || j < close))
            throw ConfigError(
                toLocation(file, m), "",
                fmt::format("the quoted value opened here does not close on its line and runs on "
                            "over '{}:' at line {}: is its closing {} missing?",
                            text.substr(i, j - i), line, text[open] == '"' ? "\"" : "'"));
    }
}

Node parseDocument(const std::string& text, const std::string& file) {
    // Configuration text is UTF-8: other bytes would reach names and the JSON report.
    checkUtf8Text(text, file, "a configuration file is YAML text");
    try {
        // Documents are counted up to two: YAML::LoadAll collects empty documents without end
        // from some malformed flow collections (" {,:5, 5}\n, 5}").
        std::istringstream in(text);
        YAML::Parser parser(in);
        DocumentCounter counter;
        while (counter.starts.size() < 2 && parser.HandleNextDocument(counter)) {
        }
        if (counter.starts.empty()) {
            return Node::makeNull(Location{file, 1, 1});
        }
        if (counter.starts.size() > 1) {
            throw ConfigError(toLocation(file, counter.starts[1]), "",
                              "a configuration file must hold a single YAML document");
        }
        Budget budget;
        const YAML::Node yaml = YAML::Load(text);
        Node tree = convert(yaml, file, "", std::nullopt, budget);
        checkQuotedScalars(yaml, text, file);
        return tree;
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own limit (its message is "bad file"), met before ours in flow collections.
        throw ConfigError(toLocation(file, e.mark), "", "nested more than 256 levels deep");
    } catch (const YAML::Exception& e) {
        throw ConfigError(toLocation(file, e.mark), "", e.msg);
    }
}

/// Files being loaded, outermost first, to detect include cycles.
struct IncludeChain {
    std::vector<std::string> canonical;
    std::vector<std::string> shown;
};

/// Where an include was written; absent for the top-level file.
struct IncludeSite {
    Location where;
    std::string name;
};

std::string canonicalName(const std::string& path) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? fs::path(path).lexically_normal().string() : canonical.string();
}

std::string readFile(const std::string& path, const std::optional<IncludeSite>& site) {
    auto failure = [&](const std::string& reason) {
        if (site) {
            return ConfigError(site->where, kIncludeKey,
                               fmt::format("cannot open included file '{}' (looked for '{}'): {}", site->name,
                                           path, reason));
        }
        return ConfigError(Location{path, 0, 0}, "",
                           fmt::format("cannot open configuration file: {}", reason));
    };
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) {
        throw failure("no such file");
    }
    if (fs::is_directory(status)) {
        throw failure("it is a directory");
    }
    // A device or pipe (/dev/zero) would be read without end; configuration files are small.
    if (!fs::is_regular_file(status)) {
        throw failure("it is not a regular file");
    }
    constexpr std::uintmax_t kMaxFileBytes = 64u << 20;
    if (fs::file_size(path, ec) > kMaxFileBytes) {
        throw failure("larger than 64 MiB: not a configuration file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw failure("cannot be read");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Deep merge: maps merge key by key, anything else in `overlay` replaces what `base` had.
void mergeInto(Node& base, const Node& overlay) {
    for (const auto& [key, value] : overlay.entries()) {
        Node* existing = base.findMutable(key);
        if (existing != nullptr && existing->isMap() && value.isMap()) {
            mergeInto(*existing, value);
            existing->setLocation(value.location());
            existing->setKeyLocation(value.keyLocation());
        } else {
            base.set(key, value);
        }
    }
}

Node load(const std::string& text, const std::string& file, IncludeChain& chain);

Node loadIncluded(const std::string& file, const IncludeSite& site, IncludeChain& chain) {
    const std::string canonical = canonicalName(file);
    for (std::size_t i = 0; i < chain.canonical.size(); ++i) {
        if (chain.canonical[i] == canonical) {
            std::string cycle;
            for (std::size_t j = i; j < chain.shown.size(); ++j) {
                cycle += chain.shown[j] + " -> ";
            }
            throw ConfigError(site.where, kIncludeKey, fmt::format("include cycle: {}{}", cycle, file));
        }
    }
    const std::string text = readFile(file, site);
    chain.canonical.push_back(canonical);
    chain.shown.push_back(file);
    Node root = load(text, file, chain);
    chain.canonical.pop_back();
    chain.shown.pop_back();
    if (!root.isMap() && !root.isNull()) {
        throw ConfigError(
            site.where, kIncludeKey,
            fmt::format("included file '{}' must hold a map, got {}", site.name, root.kindName()));
    }
    return root;
}

std::vector<IncludeSite> includeSites(const Node& include) {
    const std::string expected = "expected a file name or a list of file names";
    std::vector<IncludeSite> sites;
    if (include.isScalar()) {
        sites.push_back({include.location(), include.scalar()});
    } else if (include.isSequence()) {
        for (const Node& item : include.items()) {
            if (!item.isScalar()) {
                throw ConfigError(item.location(), kIncludeKey,
                                  fmt::format("{}, got {}", expected, item.kindName()));
            }
            sites.push_back({item.location(), item.scalar()});
        }
    } else {
        throw ConfigError(include.location(), kIncludeKey,
                          fmt::format("{}, got {}", expected, include.kindName()));
    }
    return sites;
}

Node load(const std::string& text, const std::string& file, IncludeChain& chain) {
    Node root = parseDocument(text, file);
    const Node* include = root.isMap() ? root.find(kIncludeKey) : nullptr;
    if (include == nullptr) {
        return root;
    }
    const fs::path directory = fs::path(file).parent_path();
    Node merged = Node::makeMap(root.location());
    for (const IncludeSite& site : includeSites(*include)) {
        const fs::path name(site.name);
        const std::string resolved = name.is_absolute() ? name.lexically_normal().string()
                                                        : (directory / name).lexically_normal().string();
        mergeInto(merged, loadIncluded(resolved, site, chain));
    }
    root.erase(kIncludeKey);
    mergeInto(merged, root);
    return merged;
}

Node loadTopLevel(const std::string& text, const std::string& file) {
    IncludeChain chain;
    chain.canonical.push_back(canonicalName(file));
    chain.shown.push_back(file);
    return load(text, file, chain);
}

/// One step of a dotted key: a name, optionally followed by list indices ("layers[2]").
struct KeyStep {
    std::string name;
    std::vector<std::size_t> indices;
};

std::vector<KeyStep> parseKey(std::string_view dottedKey, const Location& where) {
    auto invalid = [&] {
        return ConfigError(where, std::string(dottedKey),
                           "invalid key: expected names separated by dots, like dram.size or "
                           "layers[0].name");
    };
    std::vector<KeyStep> steps;
    std::size_t start = 0;
    while (start <= dottedKey.size()) {
        const std::size_t dot = std::min(dottedKey.find('.', start), dottedKey.size());
        std::string_view part = dottedKey.substr(start, dot - start);
        KeyStep step;
        const std::size_t bracket = part.find('[');
        step.name = std::string(part.substr(0, bracket));
        if (step.name.empty() || step.name.find(']') != std::string::npos) {
            throw invalid();
        }
        part.remove_prefix(std::min(bracket, part.size()));
        while (!part.empty()) {
            const std::size_t close = part.find(']');
            if (part.front() != '[' || close == std::string_view::npos || close == 1) {
                throw invalid();
            }
            std::size_t index = 0;
            for (char c : part.substr(1, close - 1)) {
                if (c < '0' || c > '9') {
                    throw invalid();
                }
                index = index * 10 + static_cast<std::size_t>(c - '0');
            }
            step.indices.push_back(index);
            part.remove_prefix(close + 1);
        }
        steps.push_back(std::move(step));
        start = dot + 1;
    }
    return steps;
}

Node parseOverrideValue(std::string_view dottedKey, std::string_view value, const Location& where) {
    try {
        Budget budget;
        return convert(YAML::Load(std::string(value)), where.file, "", where, budget);
    } catch (const YAML::Exception& e) {
        throw ConfigError(where, std::string(dottedKey),
                          fmt::format("cannot parse value '{}': {}", value, e.msg));
    }
}

}  // namespace

Node loadYamlFile(const std::string& path) {
    return loadTopLevel(readFile(path, std::nullopt), path);
}

Node loadYamlString(std::string text, std::string pseudoFileName) {
    return loadTopLevel(text, pseudoFileName);
}

void applyOverride(Node& root, std::string_view dottedKey, std::string_view value, const Location& where) {
    const std::vector<KeyStep> steps = parseKey(dottedKey, where);
    Node replacement = parseOverrideValue(dottedKey, value, where);
    replacement.setKeyLocation(where);

    Node* current = &root;
    std::string walked;
    auto cannot = [&](const Node& blocker) {
        return ConfigError(where, std::string(dottedKey),
                           fmt::format("cannot set '{}': '{}' is {}, not a map", dottedKey,
                                       blocker.path().empty() ? "the root" : blocker.path(),
                                       blocker.kindName()));
    };
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const KeyStep& step = steps[s];
        const bool last = s + 1 == steps.size();
        if (!current->isMap() && !current->isNull()) {
            throw cannot(*current);
        }
        walked = joinPath(walked, step.name);
        if (last && step.indices.empty()) {
            current->set(step.name, std::move(replacement));
            return;
        }
        Node* next = current->findMutable(step.name);
        if (next == nullptr || (next->isNull() && step.indices.empty())) {
            if (!step.indices.empty()) {
                throw ConfigError(where, std::string(dottedKey),
                                  fmt::format("cannot set '{}': there is no list '{}'", dottedKey, walked));
            }
            Node level = Node::makeMap(where);
            level.setKeyLocation(where);
            current->set(step.name, std::move(level));
            next = current->findMutable(step.name);
        }
        for (std::size_t i = 0; i < step.indices.size(); ++i) {
            const std::size_t index = step.indices[i];
            Node* item = next->isSequence() ? next->itemMutable(index) : nullptr;
            if (item == nullptr) {
                const std::size_t size = next->isSequence() ? next->items().size() : 0;
                throw ConfigError(where, std::string(dottedKey),
                                  next->isSequence()
                                      ? fmt::format("cannot set '{}': index {} is past the end "
                                                    "of '{}', which has {} items",
                                                    dottedKey, index, walked, size)
                                      : fmt::format("cannot set '{}': '{}' is {}, not a list", dottedKey,
                                                    walked, next->kindName()));
            }
            walked = indexPath(walked, index);
            if (last && i + 1 == step.indices.size()) {
                replacement.setPath(item->path());
                *item = std::move(replacement);
                return;
            }
            next = item;
        }
        current = next;
    }
}

void applyOverride(Node& root, std::string_view assignment, const Location& where) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string_view::npos) {
        throw ConfigError(where, "",
                          fmt::format("expected key=value, like dram.size=2GiB, got '{}'", assignment));
    }
    applyOverride(root, assignment.substr(0, equals), assignment.substr(equals + 1), where);
}

Location commandLineLocation(int argIndex) {
    return Location{"<command line>", 1, argIndex};
}

}  // namespace tessim::config
