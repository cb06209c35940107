// graph::einsumShapes: ONNX Einsum equations against numpy's rules, each result worked out by hand.

#include <catch2/catch.hpp>

#include "remat/graph/Einsum.hpp"

using remat::graph::einsumShapes;
using Shape = std::vector<std::int64_t>;

TEST_CASE("Einsum: explicit outputs, spaces, contractions and transpositions", "[graph][einsum]") {
  auto e = einsumShapes("B G H I D, B G H J D -> B G H I J", {{16, 64, 2, 49, 32}, {16, 64, 2, 49, 32}});
  REQUIRE(e.error.empty());
  CHECK(e.output == Shape{16, 64, 2, 49, 49});
  CHECK(e.iterations == 16.0 * 64 * 2 * 49 * 49 * 32);
  e = einsumShapes("ij->ji", {{3, 5}});
  CHECK(e.output == Shape{5, 3});
  CHECK(e.iterations == 15);
  e = einsumShapes("ii->i", {{4, 4}});  // a diagonal
  CHECK(e.output == Shape{4});
  e = einsumShapes("i,i->", {{7}, {7}});  // a dot product: a scalar
  CHECK(e.output.empty());
  CHECK(e.iterations == 7);
  e = einsumShapes("ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}});
  CHECK(e.output == Shape{2, 5});
  CHECK(e.iterations == 2.0 * 3 * 4 * 5);
}

TEST_CASE("Einsum: implicit outputs are the labels used once, in character order", "[graph][einsum]") {
  auto e = einsumShapes("ij,jk", {{2, 3}, {3, 4}});
  CHECK(e.output == Shape{2, 4});
  e = einsumShapes("ba", {{2, 3}});  // transposed into character order
  CHECK(e.output == Shape{3, 2});
  e = einsumShapes("bij,bjd", {{5, 2, 3}, {5, 3, 4}});  // b twice: summed, not kept
  CHECK(e.output == Shape{4, 2});
  e = einsumShapes("Ab,bA", {{2, 3}, {3, 2}});  // every label twice: a scalar
  CHECK(e.output.empty());
}

TEST_CASE("Einsum: ellipses broadcast, and labelled axes of size 1 broadcast", "[graph][einsum]") {
  auto e = einsumShapes("...ij,...jk->...ik", {{8, 1, 2, 3}, {4, 3, 5}});
  REQUIRE(e.error.empty());
  CHECK(e.output == Shape{8, 4, 2, 5});
  CHECK(e.iterations == 8.0 * 4 * 2 * 3 * 5);
  e = einsumShapes("i...->...", {{3, 4, 5}});
  CHECK(e.output == Shape{4, 5});
  e = einsumShapes("...id->...d", {{2, 6, 8}});
  CHECK(e.output == Shape{2, 8});
  e = einsumShapes("i...j", {{2, 3, 4, 5}});  // implicit: the ellipsis first
  CHECK(e.output == Shape{3, 4, 2, 5});
  e = einsumShapes("bi,bi->bi", {{1, 3}, {6, 3}});
  CHECK(e.output == Shape{6, 3});
}

TEST_CASE("Einsum: equations that do not fit their operands say why", "[graph][einsum]") {
  auto why = [](std::string_view eq, const std::vector<Shape>& ops) { return einsumShapes(eq, ops).error; };
  CHECK(why("bid,bjd->bij", {{2, 6, 8}, {2, 5, 4}}) == "the label 'd' has sizes 8 and 4");
  CHECK(why("ij,jk->ik", {{2, 3}}) == "the equation has 2 operand terms for 1 operands");
  CHECK(why("ijk->i", {{2, 3}}) == "the term 'ijk' names 3 axes of an operand of rank 2");
  CHECK(why("ij...->i", {{2}}) == "the term 'ij...' names 2 axes of an operand of rank 1");
  CHECK(why("ij->ik", {{2, 3}}) == "the output label 'k' names no operand's axis");
  CHECK(why("ij->ii", {{2, 3}}) == "the output repeats the label 'i'");
  CHECK(why("i1->i", {{2, 3}}) == "the term 'i1' has a character other than letters and '...'");
  CHECK(why("..i->i", {{2, 3}}) == "the term '..i' has a character other than letters and '...'");
  CHECK(why("...i...->i", {{2, 3}}) == "the term '...i...' has two ellipses");
  CHECK(why("...i,...i->i", {{2, 3}, {4, 3}}) == "the axes under '...' do not broadcast");
  CHECK(why("->", {Shape{}}).empty());  // a scalar's empty term fits a rank-0 operand
  CHECK(why("i->", {Shape{}}) == "the term 'i' names 1 axes of an operand of rank 0");
}
