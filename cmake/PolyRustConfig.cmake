# CMake package of polyrust. Point CMake at this folder and use one function:
#
#   find_package(PolyRust REQUIRED)            # -DPolyRust_DIR=/path/to/polyrust/cmake
#   add_executable(app app.c)
#   polyrust_enable(app)                        # plugin on for app's sources (at -O2/-O3)
#   polyrust_enable(app OPTIONS -polyrust-tiling=fixed -polyrust-tile-sizes=64,64)
#   polyrust_enable(app RUNTIME)                # also link polyrust_rt (profiling builds)
#   polyrust_enable(app PARALLEL)               # -fopenmp: parallel loops on OpenMP threads
#                                               # (libomp), OMP_NUM_THREADS of them
#   polyrust_enable(app PROFILE_GENERATE app-%p.polyprof.json)   # run 1: instrument, link
#                                               # the runtime; running app writes the profile
#   polyrust_enable(app PROFILE_USE app.polyprof)  # run 2: specialize from the profile
#   (both keywords at once: the specialized build is instrumented too, and its profile
#   says how often each run-time check passed)
#
# Sets PolyRust_PLUGIN (the plugin), PolyRust_PASS_PLUGIN (the copy of it named by its
# content that compile lines name) and PolyRust_RUNTIME (the static runtime), and refuses,
# with a message, a compiler the plugin cannot be loaded into (it needs clang 22).
#
# Compile lines name the plugin by its content (plugins/libpolyrust-<sha256>.so beside it,
# or in the build tree where that folder is not writable), so a launcher's cache
# (CMAKE_C_COMPILER_LAUNCHER=ccache or sccache), which hashes the command line, never
# hands out an object another plugin compiled, and a distcc worker without that very
# plugin cannot load it. A rebuilt plugin re-runs the configure step, which names the
# new copy; the targets that use it are compiled again.

get_filename_component(_polyrust_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

find_file(PolyRust_PLUGIN libpolyrust.so
  HINTS "${_polyrust_root}/target/release" "${_polyrust_root}/lib"
  NO_DEFAULT_PATH
  DOC "The polyrust pass plugin")
find_file(PolyRust_RUNTIME libpolyrust_rt.a
  HINTS "${_polyrust_root}/target/release" "${_polyrust_root}/lib"
  NO_DEFAULT_PATH
  DOC "The polyrust instrumentation runtime")

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PolyRust
  REQUIRED_VARS PolyRust_PLUGIN
  REASON_FAILURE_MESSAGE "libpolyrust.so was not found under ${_polyrust_root}: run scripts/setup there first")

# Sets out to the copy of PolyRust_PLUGIN named by its content (the name polyrust-cc
# --polyrust-plugin-path gives it), making the copy if it is missing.
function(_polyrust_plugin_by_content out)
  file(SHA256 "${PolyRust_PLUGIN}" digest)
  string(SUBSTRING "${digest}" 0 16 digest)
  get_filename_component(dir "${PolyRust_PLUGIN}" DIRECTORY)
  foreach(folder "${dir}/plugins" "${CMAKE_BINARY_DIR}/polyrust-plugins")
    set(copy "${folder}/libpolyrust-${digest}.so")
    if(NOT EXISTS "${copy}")
      # Copied under a temporary name and renamed, so that a parallel configure never
      # sees half a plugin.
      string(RANDOM LENGTH 8 tag)
      set(partial "${folder}/.libpolyrust-${tag}")
      # (Each step is its own execute_process: the COMMANDs of one run at once, as a pipe.)
      set(failed 0)
      foreach(step "make_directory;${folder}" "copy;${PolyRust_PLUGIN};${partial}"
          "rename;${partial};${copy}")
        if(NOT failed)
          execute_process(COMMAND "${CMAKE_COMMAND}" -E ${step}
            RESULT_VARIABLE failed OUTPUT_QUIET ERROR_QUIET)
        endif()
      endforeach()
      file(REMOVE "${partial}")
    endif()
    if(EXISTS "${copy}")
      set(${out} "${copy}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "PolyRust: cannot write a copy of ${PolyRust_PLUGIN} named by its content, neither in ${dir}/plugins nor in ${CMAKE_BINARY_DIR}/polyrust-plugins")
endfunction()

if(PolyRust_FOUND)
  _polyrust_plugin_by_content(PolyRust_PASS_PLUGIN)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${PolyRust_PLUGIN}" "${PolyRust_PASS_PLUGIN}")
endif()

function(polyrust_enable target)
  cmake_parse_arguments(PARSE_ARGV 1 _pr "RUNTIME;PARALLEL" "PROFILE_GENERATE;PROFILE_USE" "OPTIONS")
  if(_pr_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "polyrust_enable(${target}): unknown arguments '${_pr_UNPARSED_ARGUMENTS}'; expected OPTIONS <flags...>, RUNTIME, PARALLEL, PROFILE_GENERATE <file> or PROFILE_USE <file>")
  endif()
  if(DEFINED _pr_PROFILE_GENERATE)
    list(APPEND _pr_OPTIONS "-polyrust-profile-generate=${_pr_PROFILE_GENERATE}")
    set(_pr_RUNTIME TRUE)
  endif()
  if(DEFINED _pr_PROFILE_USE)
    get_filename_component(_pr_profile "${_pr_PROFILE_USE}" ABSOLUTE)
    if(NOT EXISTS "${_pr_profile}")
      message(WARNING "polyrust_enable(${target} PROFILE_USE): '${_pr_profile}' does not exist yet; ${target} is compiled without speculation until it does (build with PROFILE_GENERATE and run the program to make it)")
    endif()
    list(APPEND _pr_OPTIONS "-polyrust-profile-use=${_pr_profile}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "polyrust_enable: '${target}' is not a target")
  endif()
  foreach(lang C CXX)
    if(CMAKE_${lang}_COMPILER_LOADED)
      if(NOT CMAKE_${lang}_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_${lang}_COMPILER_VERSION MATCHES "^22\\.")
        message(FATAL_ERROR "polyrust_enable(${target}): the ${lang} compiler is ${CMAKE_${lang}_COMPILER_ID} ${CMAKE_${lang}_COMPILER_VERSION}; the polyrust plugin needs clang 22. Configure with -DCMAKE_${lang}_COMPILER=/usr/lib/llvm-22/bin/clang (clang++ for C++).")
      endif()
    endif()
  endforeach()
  target_compile_options(${target} PRIVATE "-fpass-plugin=${PolyRust_PASS_PLUGIN}")
  foreach(flag IN LISTS _pr_OPTIONS)
    if(NOT flag MATCHES "^-polyrust-")
      message(FATAL_ERROR "polyrust_enable(${target}): option '${flag}' is not a -polyrust-* option")
    endif()
    target_compile_options(${target} PRIVATE "SHELL:-mllvm ${flag}")
  endforeach()
  # -fopenmp marks the modules, which turns polyrust's threads on, and links libomp.
  if(_pr_PARALLEL)
    target_compile_options(${target} PRIVATE -fopenmp)
    target_link_options(${target} PRIVATE -fopenmp)
  endif()
  if(_pr_RUNTIME)
    if(NOT PolyRust_RUNTIME)
      message(FATAL_ERROR "polyrust_enable(${target} RUNTIME): libpolyrust_rt.a not found; run scripts/setup")
    endif()
    target_link_libraries(${target} PRIVATE "${PolyRust_RUNTIME}" pthread dl m)
  endif()
endfunction()
