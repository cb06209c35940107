#include "remat/graph/Einsum.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

namespace remat::graph {
namespace {

// One side of an equation's term: its letters in order, with the place of "..." among them (if any).
struct Term {
  std::string text;
  std::string letters;
  std::optional<std::size_t> ellipsisAt;  // how many letters come before "..."
};

// Parses a term of letters and at most one "...", or says why it cannot.
std::optional<Term> parseTerm(std::string_view s, std::string& error) {
  Term t;
  t.text = s;
  for (std::size_t k = 0; k < s.size();) {
    const char c = s[k];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      t.letters.push_back(c);
      ++k;
    } else if (s.substr(k, 3) == "...") {
      if (t.ellipsisAt) {
        error = "the term '" + std::string(s) + "' has two ellipses";
        return std::nullopt;
      }
      t.ellipsisAt = t.letters.size();
      k += 3;
    } else {
      error = "the term '" + std::string(s) + "' has a character other than letters and '...'";
      return std::nullopt;
    }
  }
  return t;
}

// Broadcasts b into a, both right-aligned; false where two sizes differ and neither is 1.
bool broadcastInto(std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (b.size() > a.size()) a.insert(a.begin(), b.size() - a.size(), 1);
  const std::size_t offset = a.size() - b.size();
  for (std::size_t k = 0; k < b.size(); ++k) {
    std::int64_t& x = a[offset + k];
    if (x == b[k] || b[k] == 1) continue;
    if (x != 1) return false;
    x = b[k];
  }
  return true;
}

}  // namespace

EinsumShapes einsumShapes(std::string_view equation, const std::vector<std::vector<std::int64_t>>& operands) {
  EinsumShapes out;
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (std::size_t from = 0;;) {
    const std::size_t comma = lhs.find(',', from);
    auto term = parseTerm(std::string_view(lhs).substr(from, comma - from), out.error);
    if (!term) return out;
    terms.push_back(std::move(*term));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (terms.size() != operands.size()) {
    out.error = "the equation has " + std::to_string(terms.size()) + " operand terms for " +
                std::to_string(operands.size()) + " operands";
    return out;
  }
  std::array<std::int64_t, 256> size{};
  size.fill(-1);
  std::array<int, 256> uses{};
  std::vector<std::int64_t> broadcast;  // the "..." axes
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    const std::vector<std::int64_t>& shape = operands[i];
    const std::size_t named = t.letters.size();
    if (t.ellipsisAt ? shape.size() < named : shape.size() != named) {
      out.error = "the term '" + t.text + "' names " + std::to_string(named) + " axes of an operand of rank " +
                  std::to_string(shape.size());
      return out;
    }
    const std::size_t spread = shape.size() - named;  // axes under "..."
    for (std::size_t k = 0; k < named; ++k) {
      const auto c = static_cast<unsigned char>(t.letters[k]);
      const std::size_t axis = t.ellipsisAt && k >= *t.ellipsisAt ? k + spread : k;
      const std::int64_t d = shape[axis];
      ++uses[c];
      if (size[c] < 0 || size[c] == 1) {
        if (size[c] < 0 || d != 1) size[c] = d;
      } else if (d != size[c] && d != 1) {
        out.error = "the label '" + std::string(1, char(c)) + "' has sizes " + std::to_string(size[c]) + " and " +
                    std::to_string(d);
        return out;
      }
    }
    if (t.ellipsisAt) {
      const auto first = shape.begin() + static_cast<std::ptrdiff_t>(*t.ellipsisAt);
      if (!broadcastInto(broadcast, std::vector<std::int64_t>(first, first + static_cast<std::ptrdiff_t>(spread)))) {
        out.error = "the axes under '...' do not broadcast";
        return out;
      }
    }
  }
  Term result;
  if (arrow != std::string::npos) {
    auto term = parseTerm(std::string_view(eq).substr(arrow + 2), out.error);
    if (!term) return out;
    result = std::move(*term);
    for (char c : result.letters) {
      if (size[static_cast<unsigned char>(c)] < 0) {
        out.error = "the output label '" + std::string(1, c) + "' names no operand's axis";
        return out;
      }
      if (std::count(result.letters.begin(), result.letters.end(), c) > 1) {
        out.error = "the output repeats the label '" + std::string(1, c) + "'";
        return out;
      }
    }
  } else {
    result.ellipsisAt = 0;
    for (std::size_t c = 0; c < uses.size(); ++c)
      if (uses[c] == 1) result.letters.push_back(static_cast<char>(c));
  }
  for (std::size_t k = 0; k <= result.letters.size(); ++k) {
    if (result.ellipsisAt == k) out.output.insert(out.output.end(), broadcast.begin(), broadcast.end());
    if (k < result.letters.size()) out.output.push_back(size[static_cast<unsigned char>(result.letters[k])]);
  }
  out.iterations = 1;
  for (std::int64_t d : size)
    if (d >= 0) out.iterations *= double(d);
  for (std::int64_t d : broadcast) out.iterations *= double(d);
  return out;
}

}  // namespace remat::graph
