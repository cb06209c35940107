// The Catch2 runner, compiled once per test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
