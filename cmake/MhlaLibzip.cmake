# .npz archives (np.savez) are zip files: read as streams through Debian's libzip (libzip-dev).
# Found by hand: bookworm's libzip-config.cmake also imports the zipcmp/zipmerge/ziptool programs,
# which libzip-dev does not install, so find_package(libzip) fails without the "zipcmp" package.
# Included by the main project and by tests/fuzz (which compiles core/base/npy.cpp too).
if(NOT TARGET mhla_libzip)
  find_path(LIBZIP_INCLUDE_DIR zip.h REQUIRED)
  find_library(LIBZIP_LIBRARY zip REQUIRED)
  add_library(mhla_libzip INTERFACE IMPORTED)
  target_include_directories(mhla_libzip SYSTEM INTERFACE ${LIBZIP_INCLUDE_DIR})
  target_link_libraries(mhla_libzip INTERFACE ${LIBZIP_LIBRARY})
endif()
