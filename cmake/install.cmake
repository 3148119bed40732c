# `cmake --install BUILD --component kiln --prefix PREFIX` lays out kiln for programs that embed it:
#   bin/       kiln, kiln-rpc-server
#   include/   kiln/... (the runtime's and the compiler's public headers, the C ABI)
#   lib/       libkiln_runtime.so (the core) and its parts (run-time ops, debug, generation loop,
#              RPC), found
#              beside each other; libkiln_support.a (what the C++ headers' inline code calls)
#              libkiln_compiler.so (the compiler, for programs that compile models)
#   lib/cmake/kiln/        find_package(kiln): imported targets kiln::runtime (the core; C and
#                          C++), kiln::runtime_ops, kiln::runtime_debug, kiln::generate,
#                          kiln::rpc, kiln::compiler
#   lib/pkgconfig/kiln-runtime.pc   the core for C programs: pkg-config --cflags --libs kiln-runtime
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)
set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

set_target_properties(kiln_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(kiln_runtime_ops PROPERTIES EXPORT_NAME runtime_ops)
set_target_properties(kiln_runtime_debug PROPERTIES EXPORT_NAME runtime_debug)
set_target_properties(kiln_generate PROPERTIES EXPORT_NAME generate)
set_target_properties(kiln_rpc PROPERTIES EXPORT_NAME rpc)
set_target_properties(kiln_support PROPERTIES EXPORT_NAME support)
set(installed_libraries kiln_runtime kiln_runtime_ops kiln_runtime_debug kiln_generate kiln_rpc
                        kiln_support)
if(TARGET kiln_compiler)
  set_target_properties(kiln_compiler PROPERTIES EXPORT_NAME compiler)
  list(APPEND installed_libraries kiln_compiler)
endif()
# The installed headers are found under the prefix, the build tree's under the source tree.
foreach(t ${installed_libraries})
  get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
  set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${KILN_INCLUDE_DIR}>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
endforeach()

install(TARGETS ${installed_libraries}
  EXPORT kilnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT kiln
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT kiln)
install(DIRECTORY ${KILN_INCLUDE_DIR}/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_CMAKE_DIR} COMPONENT kiln)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake.in [=[
@PACKAGE_INIT@
include(CMakeFindDependencyMacro)
find_dependency(Threads)
include("${CMAKE_CURRENT_LIST_DIR}/kilnTargets.cmake")
check_required_components(kiln)
]=])
configure_package_config_file(${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${KILN_CMAKE_DIR} COMPONENT kiln)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/kiln-runtime.pc.in [=[
prefix=@CMAKE_INSTALL_PREFIX@
libdir=${prefix}/@CMAKE_INSTALL_LIBDIR@
includedir=${prefix}/@CMAKE_INSTALL_INCLUDEDIR@

Name: kiln-runtime
Description: kiln's runtime core: loads and runs compiled kiln models (C ABI: kiln/runtime/c_api.h)
Version: @PROJECT_VERSION@
Libs: -L${libdir} -Wl,-rpath,${libdir} -lkiln_runtime
Cflags: -I${includedir}
]=])
# The prefix is the one given to `cmake --install --prefix`, read when installing.
install(CODE "
  set(CMAKE_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
  set(CMAKE_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
  set(PROJECT_VERSION ${PROJECT_VERSION})
  configure_file(${CMAKE_CURRENT_BINARY_DIR}/kiln-runtime.pc.in
                 \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/kiln-runtime.pc\" @ONLY)
" COMPONENT kiln)
install(TARGETS kiln-rpc-server RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT kiln)
if(TARGET kiln)
  set_target_properties(kiln PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS kiln RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT kiln)
endif()
