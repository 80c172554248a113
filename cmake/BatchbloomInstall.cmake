include(CMakePackageConfigHelpers)

install(TARGETS batchbloom EXPORT batchbloomTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/batchbloom DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET batchbloom_cli)
  install(TARGETS batchbloom_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(BATCHBLOOM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/batchbloom)
install(EXPORT batchbloomTargets NAMESPACE batchbloom:: DESTINATION ${BATCHBLOOM_CMAKE_DIR})
configure_package_config_file(cmake/batchbloomConfig.cmake.in
  ${PROJECT_BINARY_DIR}/batchbloomConfig.cmake INSTALL_DESTINATION ${BATCHBLOOM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/batchbloomConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/batchbloomConfig.cmake ${PROJECT_BINARY_DIR}/batchbloomConfigVersion.cmake
        ${PROJECT_SOURCE_DIR}/cmake/BatchbloomCodecs.cmake DESTINATION ${BATCHBLOOM_CMAKE_DIR})
