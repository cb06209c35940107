#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace remat::graph {

/// Text from a graph file (a node's or the graph's name) as it can be shown anywhere: a terminal acts
/// on control sequences, XML forbids most control characters, and a drawn label must stay one line.
/// Every character that is not plain visible text becomes an escape: C0 control characters (tabs and
/// line breaks included) and bytes that are not UTF-8 as `\xHH`; DEL, the C1 control characters
/// (U+0080 to U+009F, which some terminals obey as well), the bidirectional embedding, override and
/// isolate controls (which reorder the text around them) and the noncharacters U+FFFE and U+FFFF as
/// `\uHHHH`. Everything else is kept. The result contains no character this escapes, so escaping it
/// again changes nothing.
[[nodiscard]] std::string printableText(std::string_view text);

/// printableText cut to at most `maxChars` characters (an escape counts as one) by keeping the head
/// and the tail around "…": names tend to differ at either end ("layer3.conv" and "layer3.relu"). Costs
/// one pass over `text` and builds only what it returns, so a name of megabytes is cheap. `maxChars`
/// below 2 counts as 2.
[[nodiscard]] std::string printableText(std::string_view text, std::size_t maxChars);

/// The most characters of a name quoted in a message (quotedName).
inline constexpr std::size_t kMessageNameChars = 200;

/// A node's or graph's name as messages quote it: 'name', escaped and cut by printableText to
/// kMessageNameChars, so that a message stays one readable line whatever the file holds (a NUL byte
/// would also end the message early once it travels as an exception's what()).
[[nodiscard]] std::string quotedName(std::string_view name);

}  // namespace remat::graph
