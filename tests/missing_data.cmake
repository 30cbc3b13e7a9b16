# Run as a ctest (cmake -DWHAT=... -P missing_data.cmake) in place of a data-driven suite whose
# data is absent at configure time, so a missing folder is a red test, not a silently empty suite.
message(FATAL_ERROR "missing test data: ${WHAT} (set TOSAC_SHARED_DIR / install libonnx-testdata and re-run cmake)")
