#include <catch2/catch.hpp>

#include <string>

#include "remat/graph/PrintableText.hpp"

using remat::graph::printableText;

TEST_CASE("printable text escapes what a terminal or XML would act on") {
  CHECK(printableText("layer1.0/conv1") == "layer1.0/conv1");
  CHECK(printableText("caf\u00e9 \u2192 \u03b1") == "caf\u00e9 \u2192 \u03b1");  // plain Unicode stays
  CHECK(printableText(std::string("a\x1b]0;owned\x07z", 12)) == "a\\x1B]0;owned\\x07z");
  CHECK(printableText(std::string("nul\0here", 8)) == "nul\\x00here");
  CHECK(printableText("two\nlines\r\tend") == "two\\x0Alines\\x0D\\x09end");
  CHECK(printableText("del\x7f") == "del\\u007F");
  CHECK(printableText("csi\xc2\x9b"
                      "2J") == "csi\\u009B2J");               // C1 CSI, as UTF-8
  CHECK(printableText("rtl\u202eevil") == "rtl\\u202Eevil");  // right-to-left override
  CHECK(printableText("bad\xff\xc3") == "bad\\xFF\\xC3");     // not UTF-8, and truncated
  CHECK(printableText("\xed\xa0\x80") == "\\xED\\xA0\\x80");  // a surrogate is not UTF-8
  const std::string once = printableText(std::string("\x1b\x9b\xc2\x9b", 4));
  CHECK(printableText(once) == once);
}

TEST_CASE("printable text elides the middle of long names, an escape counting as one character") {
  CHECK(printableText("abcdefghij", 10) == "abcdefghij");
  CHECK(printableText("abcdefghijk", 10) == "abcde\u2026hijk");
  CHECK(printableText("\x1b"
                      "bcdefghijk\x07",
                      6) == "\\x1Bbc\u2026k\\x07");
  CHECK(printableText("abc", 0) == "a\u2026");
  const std::string huge = "head" + std::string(100000, 'x') + "tail";
  const std::string shown = printableText(huge, 40);
  CHECK(shown.starts_with("headxxx"));
  CHECK(shown.ends_with("xxxtail"));
  CHECK(shown.size() == 39 + std::string("\u2026").size());
}
