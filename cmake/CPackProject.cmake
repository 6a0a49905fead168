# Read by cpack before it packages (CPACK_PROJECT_CONFIG_FILE).
if(CPACK_MHLA_ARCH STREQUAL "native" AND NOT "$ENV{MHLA_PACKAGE_NATIVE}" STREQUAL "1")
  message(FATAL_ERROR
    "This build is tuned for this machine's CPU (MHLA_ARCH=native): a package of it could die "
    "with an illegal instruction elsewhere. Package a portable build instead:\n"
    "  cmake --preset package && cmake --build build-package -j2 && (cd build-package && cpack -G DEB)\n"
    "(MHLA_PACKAGE_NATIVE=1 cpack ... overrides this check.)")
endif()
