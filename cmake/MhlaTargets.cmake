# Helpers shared by core/, ui/, app/ and tests/.

# Each layer's headers are reachable as "<layer>/x.h" only through that layer's own include
# root, ${CMAKE_BINARY_DIR}/include/<layer>, which holds a single symlink <layer> ->
# ${CMAKE_SOURCE_DIR}/<layer>. The source root itself is never an include directory, so a
# target sees ui/ headers only if it links mhla_ui: `#include "ui/plot/plotwidget.h"` in core/ does
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

# For a target that compiles only part of the core (tests/fuzz): every core/<x>.cpp whose header
# a listed source includes (#include "core/x.h") must be listed too, unless it is named under
# TYPES_ONLY (the listed code uses only that header's types and inline functions). A new
# dependency of a listed file then stops the configure step with its name, instead of an
# undefined reference at link time.
#   mhla_check_core_closure(<core dir> LISTED <stem>... [TYPES_ONLY <stem>...])
function(mhla_check_core_closure coredir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LISTED;TYPES_ONLY")
  set(missing "")
  foreach(name IN LISTS arg_LISTED)
    file(STRINGS ${coredir}/${name}.cpp includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"core/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE ".*\"core/([^\"]+)\\.h\".*" "\\1" stem "${line}")
      if(EXISTS ${coredir}/${stem}.cpp AND NOT stem IN_LIST arg_LISTED
         AND NOT stem IN_LIST arg_TYPES_ONLY AND NOT stem IN_LIST missing)
        list(APPEND missing ${stem})
      endif()
    endforeach()
  endforeach()
  if(missing)
    list(JOIN missing " " missing)
    message(FATAL_ERROR "core/ sources included by the listed ones but not listed: ${missing}; "
                        "list them (or under TYPES_ONLY if only their types are used)")
  endif()
endfunction()

# The rooms of a layer, from the bottom up: a file in a room may include headers of its own room
# and of the rooms below it, never of a room above (arrows run one way, so there is no circle
# between rooms). Every source of the layer sits in one of the rooms. A new include that runs
# back up stops the configure step with the file, the line and the two rooms.
#   mhla_check_rooms(<layer dir> <layer name> <room>...)
function(mhla_check_rooms dir layer)
  set(rooms ${ARGN})
  set(problems "")
  file(GLOB_RECURSE sources RELATIVE ${dir} ${dir}/*.h ${dir}/*.cpp ${dir}/*.inc)
  foreach(f IN LISTS sources)
    string(REGEX MATCH "^[^/]+" room "${f}")
    list(FIND rooms "${room}" rank)
    if(rank EQUAL -1 OR NOT f MATCHES "/")
      list(APPEND problems "${layer}/${f} is in no room (rooms: ${rooms})")
      continue()
    endif()
    file(STRINGS ${dir}/${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"${layer}/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE ".*\"${layer}/([^/\"]+)[/\"].*" "\\1" target "${line}")
      list(FIND rooms "${target}" trank)
      if(trank EQUAL -1)
        list(APPEND problems "${layer}/${f}: ${line} names no room")
      elseif(trank GREATER rank)
        list(APPEND problems "${layer}/${f} (room ${room}) includes a room above it: ${line}")
      endif()
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " problems)
    message(FATAL_ERROR "the rooms of ${layer}/ (bottom up: ${rooms}) are out of order:\n  ${problems}")
  endif()
endfunction()
