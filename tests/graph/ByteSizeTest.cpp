#include <catch2/catch.hpp>

#include "remat/graph/ByteSize.hpp"

using remat::Bytes;
using remat::parseByteSize;

TEST_CASE("byte sizes parse with decimal and binary units") {
  CHECK(parseByteSize("1048576") == Bytes{1048576});
  CHECK(parseByteSize("2GiB") == Bytes{2LL << 30});
  CHECK(parseByteSize("2 gib") == Bytes{2LL << 30});
  CHECK(parseByteSize("1.5KiB") == Bytes{1536});
  CHECK(parseByteSize("3MB") == Bytes{3000000});
  CHECK(parseByteSize("7GB") == Bytes{7000000000LL});
  CHECK(parseByteSize("12B") == Bytes{12});
  CHECK(parseByteSize("0") == Bytes{0});
}

TEST_CASE("bad byte sizes are rejected") {
  CHECK_FALSE(parseByteSize(""));
  CHECK_FALSE(parseByteSize("-5"));
  CHECK_FALSE(parseByteSize("5XB"));
  CHECK_FALSE(parseByteSize("GiB"));
  CHECK_FALSE(parseByteSize("1.2.3GB"));
  CHECK_FALSE(parseByteSize("99999999999999999999"));
  CHECK_FALSE(parseByteSize("9000000TiB"));
}

TEST_CASE("byte sizes format with three significant digits") {
  CHECK(remat::formatByteSize(Bytes{512}) == "512 B");
  CHECK(remat::formatByteSize(Bytes{1536}) == "1.50 KiB");
  CHECK(remat::formatByteSize(Bytes{2LL << 30}) == "2.00 GiB");
  CHECK(remat::formatByteSize(Bytes{123LL << 20}) == "123 MiB");
}
