# `cmake --install build --prefix P` and CPack (issue 36): the dlsim binary, its libraries and headers with a
# CMake package (find_package(dlsim) gives dlsim::dlsim_core, dlsim::dlsim_train, ...), the example scenarios,
# the licence and notice; `cpack -G DEB` in the build folder makes a Debian package of the same.
# Data the binary needs (catalogs, calibrations) is compiled into it; nothing else is read at run time.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Every library target the build defines (some exist only with MPI), in dependency order.
set(_dlsim_libs dlsim_core dlsim_core_mpi dlsim_hw dlsim_model dlsim_cost dlsim_cost_learn dlsim_net dlsim_report
    dlsim_catalog dlsim_data dlsim_train dlsim_serve dlsim_gnn dlsim_cluster dlsim_plan dlsim_plan_mpi
    dlsim_plan_backend dlsim_studies dlsim_compress dlsim_recsys dlsim_mixprec dlsim_multitask dlsim_lrsched
    dlsim_rlhf dlsim_validate dlsim_repro dlsim_io dlsim_app)
set(DLSIM_INSTALLED_LIBS "")
foreach(_lib IN LISTS _dlsim_libs)
  if(TARGET ${_lib})
    list(APPEND DLSIM_INSTALLED_LIBS ${_lib})
  endif()
endforeach()

install(TARGETS dlsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${DLSIM_INSTALLED_LIBS} EXPORT dlsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/dlsim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT dlsimTargets NAMESPACE dlsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlsim)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dlsimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/dlsimConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlsim)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dlsimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dlsimConfig.cmake ${PROJECT_BINARY_DIR}/dlsimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dlsim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/scenarios DESTINATION ${CMAKE_INSTALL_DATADIR}/dlsim)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE ${PROJECT_SOURCE_DIR}/CITATION.cff
              ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME dlsim)
set(CPACK_PACKAGE_VENDOR "dlsim developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Data-aware simulator and planner for deep-learning training, serving and GPU clusters")
set(CPACK_PACKAGE_CONTACT "dlsim developers <dlsim@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the run-time libraries (yaml-cpp, GLPK, XGBoost, METIS, MPI) from dpkg-shlibdeps
include(CPack)
