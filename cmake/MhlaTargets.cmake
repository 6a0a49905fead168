# Helpers shared by core/, ui/, app/ and tests/.

# Each layer's headers are reachable as "<layer>/x.h" only through that layer's own include
# root, ${CMAKE_BINARY_DIR}/include/<layer>, which holds a single symlink <layer> ->
# ${CMAKE_SOURCE_DIR}/<layer>. The source root itself is never an include directory, so a
# target sees ui/ headers only if it links mhla_ui: `#include "ui/plotwidget.h"` in core/ does
# not compile.
function(mhla_include_root target layer)
  set(root ${CMAKE_BINARY_DIR}/include/${layer})
  file(MAKE_DIRECTORY ${root})
  file(REMOVE ${root}/${layer})
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${layer} ${root}/${layer} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${root})
endfunction()

# Sources are listed explicitly: adding a file is one line in its CMakeLists.txt. This check
# turns a forgotten line into a clear configure error instead of an undefined reference at
# link time (it reads the folder at configure time only; it never adds a source).
function(mhla_check_listed dir pattern)
  file(GLOB_RECURSE present RELATIVE ${dir} ${dir}/${pattern})
  set(missing "")
  foreach(f IN LISTS present)
    if(NOT f IN_LIST ARGN)
      list(APPEND missing ${f})
    endif()
  endforeach()
  if(missing)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${dir})
    list(JOIN missing " " missing)
    message(FATAL_ERROR "${rel}/: ${missing} not listed in ${rel}/CMakeLists.txt; add it there")
  endif()
endfunction()
