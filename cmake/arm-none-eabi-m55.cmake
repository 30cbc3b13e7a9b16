# Cross toolchain for the Cortex-M55 port (ports/cortex-m55): Debian's gcc-arm-none-eabi with
# newlib. Configure with
#   cmake -S . -B build-m55 -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi-m55.cmake
# which builds only the runtime library and the bare-metal runner (TOSAC_RUNTIME_ONLY).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m55)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy)
set(CMAKE_SIZE arm-none-eabi-size)
# No host run of a test program while configuring: it could not run here.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# -mfloat-abi=hard with the M55's FPU and MVE (Helium); newlib's matching multilib is
# thumb/v8-m.main+dp/hard. -ffunction-sections + --gc-sections keep unused operators out.
# -fno-if-conversion2: Debian 12's assembler (binutils 2.40) with MVE enabled rejects a
# conditional VCVT in an IT block ("vcvtne.f64.f32 d7,s0": syntax error, it reads VCVTN),
# which GCC's post-reload if-conversion emits in kernels/reduce.c.
# -Wno-format: here int32_t/uint32_t are long, so every "%d"/"%u" of one is a -Wformat error
# although int and long are the same 32-bit type for va_arg on this ABI; the host build checks
# every format, and no runtime format uses %ld/%lu (whose width would differ).
set(TOSAC_M55_FLAGS "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -fno-if-conversion2 -ffunction-sections -fdata-sections -Wno-format")
set(CMAKE_C_FLAGS_INIT "${TOSAC_M55_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${TOSAC_M55_FLAGS}")
set(CMAKE_C_FLAGS_RELEASE_INIT "-O2")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(TOSAC_RUNTIME_ONLY ON CACHE BOOL "Build only the runtime library (and the Cortex-M55 port)")
