#include "remat/viz/NodeLabel.hpp"

#include <vector>

#include "remat/graph/PrintableText.hpp"

namespace remat::viz {

namespace {

std::string shortenOnnxName(std::string_view name) {
  constexpr std::string_view kOutput = "_output_0";
  if (name.size() > kOutput.size() && name.substr(name.size() - kOutput.size()) == kOutput)
    name.remove_suffix(kOutput.size());
  if (name.find('/') == std::string_view::npos) return std::string(name);
  std::vector<std::string_view> parts;
  for (std::size_t at = 0; at <= name.size();) {
    std::size_t slash = name.find('/', at);
    if (slash == std::string_view::npos) slash = name.size();
    if (slash > at) parts.push_back(name.substr(at, slash - at));
    at = slash + 1;
  }
  std::string out;
  for (std::size_t k = parts.size() > 3 ? parts.size() - 3 : 0; k < parts.size(); ++k)
    out += (out.empty() ? "" : "/") + std::string(parts[k]);
  return out.empty() ? std::string(name) : out;
}

}  // namespace

std::string nodeLabel(std::string_view name) { return displayName(shortenOnnxName(name), kMaxLabelChars); }

std::string displayName(std::string_view name, std::size_t maxChars) { return graph::printableText(name, maxChars); }

}  // namespace remat::viz
