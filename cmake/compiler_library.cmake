# libkiln_compiler.so: the compiler (the driver and the layers below it that are not the runtime)
# as one shared library, for programs that compile models themselves; installed as kiln::compiler
# (cmake/install.cmake). Its LLVM, ONNX and protobuf are its own dependencies, resolved when it
# loads; a program using it sees kiln's headers and the runtime only.
set(compiler_layers kiln_driver kiln_frontend_onnx kiln_transform kiln_kernel kiln_codegen_llvm
                    kiln_extension kiln_ir kiln_tir kiln_opdef kiln_support)
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/kiln_compiler_library.cc
     CONTENT "// libkiln_compiler.so is its layers' archives, whole: this file only names it.\n")
add_library(kiln_compiler SHARED ${PROJECT_BINARY_DIR}/kiln_compiler_library.cc)
# Every object of the layers, whole (CMake's WHOLE_ARCHIVE feature refuses archives that also come
# in as dependencies of one another); then the layers again for their own dependencies (LLVM,
# ONNX, protobuf), which are found by then.
set(whole_archives)
foreach(layer ${compiler_layers})
  list(APPEND whole_archives $<TARGET_FILE:${layer}>)
endforeach()
target_link_libraries(kiln_compiler PRIVATE -Wl,--whole-archive ${whole_archives}
                      -Wl,--no-whole-archive ${compiler_layers})
target_link_libraries(kiln_compiler PUBLIC kiln_runtime kiln_runtime_ops kiln_runtime_debug)
target_include_directories(kiln_compiler PUBLIC ${KILN_INCLUDE_DIR})
set_target_properties(kiln_compiler PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
  INSTALL_RPATH "$ORIGIN")
