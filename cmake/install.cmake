# Installation (cmake --install): headers, the compiler and runtime libraries (static, and
# shared unless TOSAC_SHARED_LIBS is OFF), the CLI, pkg-config files, a CMake package
# (find_package(tosac): tosac::tosac, tosac::runtime, tosac::tosac_shared, tosac::runtime_shared)
# and the man page.
include(CMakePackageConfigHelpers)

set(TOSAC_INSTALL_TARGETS tosac tosac_runtime tosac_cli)
if(TOSAC_SHARED_LIBS)
  # Both libraries are also built shared from the same objects (position-independent code).
  # A shared library exports only the API: the functions the public headers declare (a
  # version script generated from include/tosac/*.h); everything else stays internal.
  set_target_properties(tosac tosac_runtime PROPERTIES POSITION_INDEPENDENT_CODE ON)
  file(GLOB _tosac_headers ${PROJECT_SOURCE_DIR}/include/tosac/*.h)
  set(_tosac_syms "")
  foreach(_h ${_tosac_headers})
    file(STRINGS ${_h} _lines REGEX "^[A-Za-z_].*[ *][A-Za-z_][A-Za-z0-9_]*[ ]*\\(")
    foreach(_l ${_lines})
      if(NOT _l MATCHES "^(typedef|#)" AND _l MATCHES "[ *]([A-Za-z_][A-Za-z0-9_]*)[ ]*\\(")
        list(APPEND _tosac_syms "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES _tosac_syms)
  list(JOIN _tosac_syms ";\n    " _tosac_syms_text)
  file(WRITE ${PROJECT_BINARY_DIR}/tosac.map
       "{\n  global:\n    ${_tosac_syms_text};\n  local: *;\n};\n")
  add_library(tosac_runtime_shared SHARED $<TARGET_OBJECTS:tosac_runtime>)
  # libtosac.so holds the runtime too: the compiler uses runtime internals the runtime's own
  # shared library does not export.
  add_library(tosac_shared SHARED $<TARGET_OBJECTS:tosac> $<TARGET_OBJECTS:tosac_runtime>)
  target_link_libraries(tosac_runtime_shared PUBLIC m)
  target_link_libraries(tosac_shared PUBLIC PkgConfig::PROTOBUF_C m)
  foreach(_t tosac_runtime_shared tosac_shared)
    target_include_directories(${_t} PUBLIC ${TOSAC_PUBLIC_INCLUDES})
    target_link_options(${_t} PRIVATE "LINKER:--version-script=${PROJECT_BINARY_DIR}/tosac.map"
                        "LINKER:--no-undefined")
    set_target_properties(${_t} PROPERTIES VERSION ${PROJECT_VERSION}
                          SOVERSION ${PROJECT_VERSION_MAJOR} LINK_DEPENDS ${PROJECT_BINARY_DIR}/tosac.map)
  endforeach()
  set_target_properties(tosac_shared PROPERTIES OUTPUT_NAME tosac EXPORT_NAME tosac_shared)
  set_target_properties(tosac_runtime_shared PROPERTIES OUTPUT_NAME tosac_runtime
                        EXPORT_NAME runtime_shared)
  list(APPEND TOSAC_INSTALL_TARGETS tosac_shared tosac_runtime_shared)
endif()

install(TARGETS ${TOSAC_INSTALL_TARGETS} EXPORT tosacTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB _tosac_public ${PROJECT_SOURCE_DIR}/include/tosac/*.h)
install(FILES ${_tosac_public} ${PROJECT_BINARY_DIR}/include/tosac/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tosac)
install(EXPORT tosacTargets NAMESPACE tosac:: FILE tosacTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tosac)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tosacConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tosacConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tosac)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tosacConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tosacConfig.cmake ${PROJECT_BINARY_DIR}/tosacConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tosac)
# relocatable: the prefix is found from the .pc file's own directory
file(RELATIVE_PATH TOSAC_PC_REL "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
foreach(_pc tosac tosac-runtime)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/docs/tosac.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
