# rvnpu firmware builds: rvnpu_add_firmware(name SOURCES ... [REV2] [RAM_SIZE bytes]
#   [DEFINES ...] [INCLUDE_DIRS ...]) cross-compiles an RV32IMF ELF to ${CMAKE_BINARY_DIR}/firmware/.
# The host compiler is never used: custom commands call clang + ld.lld (default) or Debian's
# riscv64-unknown-elf-gcc (-DNPK_FIRMWARE_TOOLCHAIN=gnu), with the SDK in sdk/rvnpu (spec §12).

include_guard(GLOBAL)

set(NPK_FIRMWARE_TOOLCHAIN "llvm" CACHE STRING
    "Toolchain for rvnpu firmware: llvm (clang + ld.lld) or gnu (riscv64-unknown-elf-gcc)")
set_property(CACHE NPK_FIRMWARE_TOOLCHAIN PROPERTY STRINGS llvm gnu)

get_filename_component(RVNPU_SDK_DIR "${CMAKE_CURRENT_LIST_DIR}/../sdk/rvnpu" ABSOLUTE)
set(RVNPU_SDK_DIR "${RVNPU_SDK_DIR}" CACHE INTERNAL "rvnpu firmware SDK directory")
set(RVNPU_FIRMWARE_DIR "${CMAKE_BINARY_DIR}/firmware" CACHE INTERNAL "where firmware ELFs go")

# Spec §12.1: rv32imf/ilp32f (never the C extension), freestanding, no libc, no libgcc.
set(_rvnpu_common_flags -march=rv32imf -mabi=ilp32f -O2 -g -Wall -Wextra -nostdlib -ffreestanding)
if(NPK_WERROR)
  list(APPEND _rvnpu_common_flags -Werror)
endif()

if(NPK_FIRMWARE_TOOLCHAIN STREQUAL "gnu")
  find_program(NPK_RVNPU_GCC NAMES riscv64-unknown-elf-gcc riscv64-elf-gcc)
  set(_rvnpu_cc "${NPK_RVNPU_GCC}")
  set(_rvnpu_cflags ${_rvnpu_common_flags})
  set(_rvnpu_tools_found FALSE)
  if(NPK_RVNPU_GCC)
    set(_rvnpu_tools_found TRUE)
  endif()
  set(_rvnpu_packages "gcc-riscv64-unknown-elf")
elseif(NPK_FIRMWARE_TOOLCHAIN STREQUAL "llvm" OR NPK_FIRMWARE_TOOLCHAIN STREQUAL "clang")
  find_program(NPK_RVNPU_CLANG NAMES clang clang-16 clang-15 clang-14)
  find_program(NPK_RVNPU_LLD NAMES ld.lld ld.lld-16 ld.lld-15 ld.lld-14)
  set(_rvnpu_cc "${NPK_RVNPU_CLANG}")
  set(_rvnpu_cflags --target=riscv32-unknown-elf ${_rvnpu_common_flags})
  set(_rvnpu_tools_found FALSE)
  if(NPK_RVNPU_CLANG AND NPK_RVNPU_LLD)
    set(_rvnpu_tools_found TRUE)
  endif()
  set(_rvnpu_packages "clang lld")
else()
  message(FATAL_ERROR "NPK_FIRMWARE_TOOLCHAIN must be llvm or gnu, not '${NPK_FIRMWARE_TOOLCHAIN}'")
endif()

# The link command line, minus objects and output; filled in after the probe below.
set(_rvnpu_link_extra "")

# Probe: build a complete firmware (crt0 + syscalls + a main) the way rvnpu_add_firmware will.
# A compiler that exists but lacks the RISC-V target, or a missing linker, fails here.
function(_rvnpu_probe out_ok out_link_extra)
  set(dir "${CMAKE_BINARY_DIR}/firmware/probe")
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${dir}/probe.c" "#include \"syscalls.h\"\nint main(void) { return puts(\"probe\") == 0 ? 0 : 1; }\n")
  set(objs "")
  foreach(src "${RVNPU_SDK_DIR}/crt0.S" "${RVNPU_SDK_DIR}/syscalls.c" "${dir}/probe.c")
    get_filename_component(base "${src}" NAME)
    execute_process(COMMAND "${_rvnpu_cc}" ${_rvnpu_cflags} -I "${RVNPU_SDK_DIR}" -c "${src}" -o "${dir}/${base}.o"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      set(${out_ok} FALSE PARENT_SCOPE)
      message(STATUS "rvnpu firmware: compiling ${base} failed (${rc}): ${err}")
      return()
    endif()
    list(APPEND objs "${dir}/${base}.o")
  endforeach()
  if(NPK_FIRMWARE_TOOLCHAIN STREQUAL "gnu")
    # GNU ld >= 2.39 warns about the (intended) RWX segment; silence it where supported.
    set(extra -Wl,--no-warn-rwx-segments)
    execute_process(COMMAND "${_rvnpu_cc}" ${_rvnpu_cflags} -T "${RVNPU_SDK_DIR}/link.ld" ${extra} ${objs} -o "${dir}/probe.elf"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT rc EQUAL 0)
      set(extra "")
      execute_process(COMMAND "${_rvnpu_cc}" ${_rvnpu_cflags} -T "${RVNPU_SDK_DIR}/link.ld" ${objs} -o "${dir}/probe.elf"
                      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    endif()
  else()
    set(extra "")
    execute_process(COMMAND "${NPK_RVNPU_LLD}" -T "${RVNPU_SDK_DIR}/link.ld" ${objs} -o "${dir}/probe.elf"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  endif()
  if(NOT rc EQUAL 0)
    set(${out_ok} FALSE PARENT_SCOPE)
    message(STATUS "rvnpu firmware: linking the probe failed (${rc}): ${err}")
    return()
  endif()
  set(${out_ok} TRUE PARENT_SCOPE)
  set(${out_link_extra} "${extra}" PARENT_SCOPE)
endfunction()

set(_rvnpu_ok FALSE)
if(_rvnpu_tools_found)
  _rvnpu_probe(_rvnpu_ok _rvnpu_link_extra)
endif()

set(NPK_RVNPU_FIRMWARE_USABLE ${_rvnpu_ok} CACHE INTERNAL "rvnpu firmware toolchain works")
set(RVNPU_FW_CC "${_rvnpu_cc}" CACHE INTERNAL "")
set(RVNPU_FW_CFLAGS "${_rvnpu_cflags}" CACHE INTERNAL "")
set(RVNPU_FW_LINK_EXTRA "${_rvnpu_link_extra}" CACHE INTERNAL "")

if(_rvnpu_ok)
  message(STATUS "rvnpu firmware: building with ${NPK_FIRMWARE_TOOLCHAIN} (${_rvnpu_cc})")
  add_custom_target(rvnpu_firmware ALL)
else()
  message(STATUS "rvnpu firmware: SKIPPED - no working ${NPK_FIRMWARE_TOOLCHAIN} RISC-V toolchain. "
                 "Install the Debian package(s) '${_rvnpu_packages}' to build the firmware "
                 "(-DNPK_FIRMWARE_TOOLCHAIN=gnu|llvm selects the toolchain).")
  add_custom_target(rvnpu_firmware
    COMMAND ${CMAKE_COMMAND} -E echo "rvnpu firmware toolchain unavailable: install ${_rvnpu_packages} and re-run cmake"
    COMMAND ${CMAKE_COMMAND} -E false)
endif()

function(rvnpu_add_firmware name)
  cmake_parse_arguments(FW "REV2" "RAM_SIZE" "SOURCES;DEFINES;INCLUDE_DIRS" ${ARGN})
  if(NOT FW_SOURCES)
    message(FATAL_ERROR "rvnpu_add_firmware(${name}): SOURCES is required")
  endif()
  if(NOT NPK_RVNPU_FIRMWARE_USABLE)
    return()
  endif()

  set(objdir "${RVNPU_FIRMWARE_DIR}/obj/${name}")
  set(elf "${RVNPU_FIRMWARE_DIR}/${name}.elf")
  file(MAKE_DIRECTORY "${objdir}")

  set(flags ${RVNPU_FW_CFLAGS} -I "${RVNPU_SDK_DIR}" -I "${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(inc IN LISTS FW_INCLUDE_DIRS)
    get_filename_component(inc "${inc}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags -I "${inc}")
  endforeach()
  if(FW_REV2)
    list(APPEND flags -DNPU_REV2)
  endif()
  foreach(def IN LISTS FW_DEFINES)
    list(APPEND flags "-D${def}")
  endforeach()

  # Header changes are tracked with compiler depfiles where CMake supports them (3.20+);
  # older CMake falls back to depending on every SDK header.
  file(GLOB sdk_headers "${RVNPU_SDK_DIR}/*.h")
  set(objs "")
  set(i 0)
  foreach(src "${RVNPU_SDK_DIR}/crt0.S" "${RVNPU_SDK_DIR}/syscalls.c" "${RVNPU_SDK_DIR}/mem.c" ${FW_SOURCES})
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(base "${src}" NAME)
    set(obj "${objdir}/${i}_${base}.o")
    math(EXPR i "${i} + 1")
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.20)
      cmake_policy(PUSH)
      cmake_policy(SET CMP0116 NEW)
      add_custom_command(OUTPUT "${obj}"
        COMMAND "${RVNPU_FW_CC}" ${flags} -MD -MF "${obj}.d" -c "${src}" -o "${obj}"
        DEPENDS "${src}" DEPFILE "${obj}.d"
        COMMENT "rvnpu firmware ${name}: ${base}" VERBATIM)
      cmake_policy(POP)
    else()
      add_custom_command(OUTPUT "${obj}"
        COMMAND "${RVNPU_FW_CC}" ${flags} -c "${src}" -o "${obj}"
        DEPENDS "${src}" ${sdk_headers}
        COMMENT "rvnpu firmware ${name}: ${base}" VERBATIM)
    endif()
    list(APPEND objs "${obj}")
  endforeach()

  set(ldflags -T "${RVNPU_SDK_DIR}/link.ld")
  if(FW_RAM_SIZE)
    set(ldflags ${ldflags} "--defsym=__rvnpu_ram_size=${FW_RAM_SIZE}")
  endif()
  if(NPK_FIRMWARE_TOOLCHAIN STREQUAL "gnu")
    list(TRANSFORM ldflags REPLACE "^--defsym" "-Wl,--defsym")
    set(link_cmd "${RVNPU_FW_CC}" ${RVNPU_FW_CFLAGS} ${ldflags} ${RVNPU_FW_LINK_EXTRA})
  else()
    set(link_cmd "${NPK_RVNPU_LLD}" ${ldflags})
  endif()
  add_custom_command(OUTPUT "${elf}"
    COMMAND ${link_cmd} ${objs} -o "${elf}"
    DEPENDS ${objs} "${RVNPU_SDK_DIR}/link.ld"
    COMMENT "rvnpu firmware ${name}: linking ${name}.elf" VERBATIM)
  add_custom_target(rvnpu_fw_${name} DEPENDS "${elf}")
  set_target_properties(rvnpu_fw_${name} PROPERTIES RVNPU_ELF "${elf}")
  add_dependencies(rvnpu_firmware rvnpu_fw_${name})
endfunction()

# rvnpu_weights_asm(out_var TEMPLATE blob PREFIX): configure TEMPLATE (an assembler file that
# .incbin's a shipped weights blob) into the build directory as <name>.S, with
# @<PREFIX>_WEIGHTS_FILE@ = the blob's path and @<PREFIX>_WEIGHTS_SHA256@ = its hash, so that new
# weights change the generated file and the firmware is rebuilt (CMake re-runs when the blob
# changes). Sets out_var to the generated file, for rvnpu_add_firmware(SOURCES ...).
function(rvnpu_weights_asm out_var template blob prefix)
  if(NOT EXISTS "${blob}")
    message(FATAL_ERROR "${blob} is missing (the README next to it says how to regenerate it)")
  endif()
  set(${prefix}_WEIGHTS_FILE "${blob}")
  file(SHA256 "${blob}" ${prefix}_WEIGHTS_SHA256)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${blob}")
  get_filename_component(name "${template}" NAME_WE)
  configure_file("${template}" "${CMAKE_CURRENT_BINARY_DIR}/${name}.S" @ONLY)
  set(${out_var} "${CMAKE_CURRENT_BINARY_DIR}/${name}.S" PARENT_SCOPE)
endfunction()
