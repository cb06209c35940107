// The Catch2 runner, compiled once (remat_catch_main) and linked into every test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
