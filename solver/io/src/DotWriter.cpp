#include "remat/io/DotWriter.hpp"

#include "remat/graph/ByteSize.hpp"

#include <cstdio>
#include <string_view>

namespace remat::io {
namespace {

// A DOT quoted string. In DOT only \" is an escape inside quotes, but labels interpret \n, \l, \r and
// \\; escaping every backslash keeps labels literal and keeps distinct names distinct as ids.
std::string dotQuoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (b < 0x20 || b == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
    } else
      out += c;
  }
  return out + "\"";
}

}  // namespace

std::string writeDot(const graph::ComputeGraph& g) {
  std::string out = "digraph " + dotQuoted(g.name()) + " {\n";
  out += "  rankdir=TB;\n";
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (const graph::Node& n : g.nodes()) {
    const bool isOp = n.kind == graph::NodeKind::Op;
    const std::string what =
        isOp ? (n.op.empty() ? std::string("op") : n.op) : std::string(graph::nodeKindName(n.kind));
    const std::string label = n.name + "\n" + what + " " + formatByteSize(n.bytes);
    out += "  " + dotQuoted(n.name) + " [shape=" + (isOp ? "box" : "ellipse") + ", label=" + dotQuoted(label);
    if (!isOp) out += ", style=filled, fillcolor=\"#eeeeee\"";
    out += "];\n";
  }
  for (std::uint32_t v = 0; v < g.size(); ++v)
    for (graph::NodeId w : g.successors(graph::NodeId{v}))
      out += "  " + dotQuoted(g.node(graph::NodeId{v}).name) + " -> " + dotQuoted(g.node(w).name) + ";\n";
  out += "}\n";
  return out;
}

}  // namespace remat::io
