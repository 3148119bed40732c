# Compiler-side dependencies, all from Debian packages. The runtime never sees any of these.
find_package(LLVM CONFIG REQUIRED PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "kiln needs LLVM 19 (package llvm-19-dev); found ${LLVM_PACKAGE_VERSION}")
endif()
find_package(ONNX REQUIRED)
find_package(Protobuf REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(ZLIB REQUIRED)
