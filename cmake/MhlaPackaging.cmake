# Debian package: from a build configured with the `package` preset (portable CPU target,
# /usr prefix), `cpack -G DEB` in the build folder (or `cpack --preset deb` from the source
# folder) writes mhla-lab_<version>_amd64.deb. Its Depends are computed by dpkg-shlibdeps
# (from dpkg-dev, which build-essential brings) from the libraries the binary links, plus the
# few run-time needs a linker cannot see, listed below with their reasons.
set(CPACK_PACKAGE_NAME mhla-lab)
set(CPACK_PACKAGE_VENDOR "MHLA Lab")
set(CPACK_PACKAGE_CONTACT "MHLA Lab maintainers <mhla@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
  "MHLA Lab learns one layer of multi-head linear attention exactly, by least squares on a
cubic feature map, and computes the certificate (the smallest eigenvalue of the data's
second moment) that tells when every model fitting the data computes the same function.
The desktop app shows it live; the command line (solve, figures, bench) runs headless;
the Python module mhla_lab runs experiments and the feature map from NumPy.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)               # mhla-lab_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)                # Depends from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)         # no shared libraries of its own
# Loaded at run time, so invisible to dpkg-shlibdeps:
#  - fonts-dejavu-core: the font every figure's text is drawn with (Qt finds it through
#    fontconfig; headless `mhla-lab figures` needs a font and has no desktop to bring one);
#  - the Qt platform plugins (xcb for the window, offscreen for `figures` and the headless
#    default run) ship in libqt6gui6 and the SVG icon engine in libqt6svg6, which the binary
#    links, so they need no line here.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core")
# The Python module (app/python/, docs/python.md), where Debian's python3 finds it
# (/usr/lib/python3/dist-packages; the file name carries the ABI, e.g. cpython-311-x86_64). It
# is of use only with the python3 it was built for and NumPy: Recommends, so that the app and
# the command line install without Python.
set(MHLA_PYTHON_INSTALL_DIR lib/python3/dist-packages CACHE STRING
  "Where the Python module mhla_lab is installed, relative to the prefix")
if(TARGET mhla_lab)
  install(TARGETS mhla_lab LIBRARY DESTINATION ${MHLA_PYTHON_INSTALL_DIR})
  get_target_property(_mhla_pyver mhla_lab MHLA_PYTHON_VERSION) # e.g. 3.11
  string(REGEX REPLACE "^3\\.([0-9]+)$" "\\1" _mhla_pyminor "${_mhla_pyver}")
  math(EXPR _mhla_pyminor_next "${_mhla_pyminor} + 1")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "python3 (>= ${_mhla_pyver}), python3 (<< 3.${_mhla_pyminor_next}), python3-numpy")
endif()
# A portable x86-64 binary is built for x86-64-v2: on an older CPU, refuse to install (Debian's
# isa-support check) instead of dying later with an illegal instruction.
if(MHLA_ARCH STREQUAL "portable" AND _mhla_x86)
  set(CPACK_DEBIAN_PACKAGE_PREDEPENDS "sse4.2-support")
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# A -march=native binary would die with an illegal instruction on another CPU: cpack stops.
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/CPackProject.cmake)
set(CPACK_MHLA_ARCH ${MHLA_ARCH})
include(CPack)
