#include "remat/io/DotWriter.hpp"

#include <cstdio>
#include <string_view>

namespace remat::io {
namespace {

// A DOT quoted string. In DOT only \" is an escape inside quotes, but labels interpret \n, \l, \r and
// \\; escaping every backslash keeps labels literal and keeps distinct names distinct as ids.
std::string quoted(std::string_view text) {
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

// Bytes with a binary unit: "512 B", "1.5 KiB", "3.0 GiB".
std::string humanBytes(std::int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int unit = -1;
  while (v >= 1024.0 && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

const char* kindWord(graph::NodeKind k) {
  switch (k) {
    case graph::NodeKind::Input:
      return "input";
    case graph::NodeKind::Param:
      return "param";
    case graph::NodeKind::Op:
      return "op";
  }
  return "op";
}

}  // namespace

std::string writeDot(const graph::ComputeGraph& g) {
  std::string out = "digraph " + quoted(g.name()) + " {\n";
  out += "  rankdir=TB;\n";
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (const graph::Node& n : g.nodes()) {
    const bool isOp = n.kind == graph::NodeKind::Op;
    const std::string what = isOp ? (n.op.empty() ? std::string("op") : n.op) : std::string(kindWord(n.kind));
    const std::string label = n.name + "\n" + what + " " + humanBytes(n.bytes.value);
    out += "  " + quoted(n.name) + " [shape=" + (isOp ? "box" : "ellipse") + ", label=" + quoted(label);
    if (!isOp) out += ", style=filled, fillcolor=\"#eeeeee\"";
    out += "];\n";
  }
  for (std::uint32_t v = 0; v < g.size(); ++v)
    for (graph::NodeId w : g.successors(graph::NodeId{v}))
      out += "  " + quoted(g.node(graph::NodeId{v}).name) + " -> " + quoted(g.node(w).name) + ";\n";
  out += "}\n";
  return out;
}

}  // namespace remat::io
