# GoogleTest: LLVM's bundled copy, built in the LLVM tree (target llvm_gtest)
# with LLVM's flags (no RTTI, no exceptions), so it matches the MLIR libraries.
set(LLVM_GTEST_ROOT "${LLVM_BUILD_MAIN_SRC_DIR}/../third-party/unittest")
foreach(lib llvm_gtest llvm_gtest_main)
  if(NOT TARGET ${lib})
    add_library(${lib} STATIC IMPORTED)
    set_target_properties(${lib} PROPERTIES
      IMPORTED_LOCATION "${LLVM_LIBRARY_DIR}/lib${lib}.a")
  endif()
endforeach()
set_target_properties(llvm_gtest PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES
    "${LLVM_GTEST_ROOT}/googletest/include;${LLVM_GTEST_ROOT}/googlemock/include"
  INTERFACE_LINK_LIBRARIES "LLVMSupport;pthread")
set_target_properties(llvm_gtest_main PROPERTIES
  INTERFACE_LINK_LIBRARIES "llvm_gtest")
