# Install rules (included from the top-level CMakeLists.txt): the command, the static and shared
# library, the public headers, npukit.pc, the CMake package (npukit::npukit) and, under
# share/npukit, the rvnpu firmware SDK with its CMake helper and the SystemVerilog DPI-C
# package. Every installed file that names a path names it relative to itself, so the tree
# can be installed with
# `cmake --install build --prefix DIR` (what `make install PREFIX=DIR` does) and moved.
# Man pages and shell completion install from their own subdirectory, next to these rules.
include(CMakePackageConfigHelpers)

set(NPK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/npukit)
set(NPK_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/npukit)

install(TARGETS npukit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS npukit npukit_shared EXPORT npukitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/npukit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# The rvnpu SDK and its helper keep their relative layout (cmake/../sdk/rvnpu), which is how
# rvnpu_firmware.cmake finds the SDK in the source tree and in the installed one alike.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/rvnpu_firmware.cmake
        DESTINATION ${NPK_INSTALL_DATADIR}/cmake)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/rvnpu DESTINATION ${NPK_INSTALL_DATADIR}/sdk
        PATTERN CMakeLists.txt EXCLUDE)

# The DPI-C package for SystemVerilog testbenches (its C side is in the library, dpi.h): data for
# a simulator's command line, not a C header, so it goes under share/npukit/sv.
install(FILES ${PROJECT_SOURCE_DIR}/sv/npukit_dpi.sv DESTINATION ${NPK_INSTALL_DATADIR}/sv)

# CMake package: find_package(npukit) gives npukit::npukit (shared), npukit::npukit_static and
# the paths of the command, the SDK, the firmware helper and the DPI-C package.
install(EXPORT npukitTargets NAMESPACE npukit:: DESTINATION ${NPK_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/npukitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/npukitConfig.cmake INSTALL_DESTINATION ${NPK_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR NPK_INSTALL_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/npukitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/npukitConfig.cmake
              ${PROJECT_BINARY_DIR}/npukitConfigVersion.cmake
        DESTINATION ${NPK_INSTALL_CMAKEDIR})

# pkg-config: prefix is found from the .pc file's own place (${pcfiledir}).
set(NPK_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${NPK_INSTALL_PKGCONFIGDIR}")
  message(FATAL_ERROR "npukit: CMAKE_INSTALL_LIBDIR must be relative to the prefix (it is "
                      "'${CMAKE_INSTALL_LIBDIR}')")
endif()
file(RELATIVE_PATH NPK_PC_TO_PREFIX /p/${NPK_INSTALL_PKGCONFIGDIR} /p)
string(REGEX REPLACE "/$" "" NPK_PC_TO_PREFIX "${NPK_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/npukit.pc.in ${PROJECT_BINARY_DIR}/npukit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/npukit.pc DESTINATION ${NPK_INSTALL_PKGCONFIGDIR})
