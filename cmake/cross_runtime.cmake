# The runtime and kiln-rpc-server cross-built for aarch64 Linux (Debian's g++-aarch64-linux-gnu)
# into ${PROJECT_BINARY_DIR}/aarch64, for the qemu-aarch64 launcher and aarch64 boards. Only when
# the cross compiler is installed; the build is the runtime-only configuration, so it needs
# nothing else.
find_program(KILN_AARCH64_CXX aarch64-linux-gnu-g++)
if(NOT KILN_AARCH64_CXX)
  message(STATUS "aarch64 runtime: not built (no aarch64-linux-gnu-g++)")
  return()
endif()
include(ExternalProject)
set(KILN_AARCH64_DIR ${PROJECT_BINARY_DIR}/aarch64)
ExternalProject_Add(runtime_aarch64
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${KILN_AARCH64_DIR}
  CMAKE_GENERATOR Ninja
  CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/aarch64-linux-gnu.cmake
             -DCMAKE_BUILD_TYPE=Release -DKILN_RUNTIME_ONLY=ON -DKILN_BUILD_TESTS=OFF
             -DKILN_WERROR=${KILN_WERROR}
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS ${KILN_AARCH64_DIR}/bin/kiln-rpc-server)
set(KILN_AARCH64_SERVER ${KILN_AARCH64_DIR}/bin/kiln-rpc-server)
