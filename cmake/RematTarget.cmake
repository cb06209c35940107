# One helper creates every layer's library so that all layers share warnings, include layout and naming:
#   remat_add_library(NAME graph SOURCES ... DEPS ...)  ->  target remat_graph, alias remat::graph,
# public headers under <layer>/include/remat/<name>/.
function(remat_add_library)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target remat_${ARG_NAME})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(remat::${ARG_NAME} ALIAS ${target})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  remat_set_warnings(${target})
  if(REMAT_SANITY_CHECKS)
    target_compile_definitions(${target} PUBLIC REMAT_SANITY_CHECKS=1)
  endif()
endfunction()

function(remat_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wno-missing-field-initializers)
endfunction()
