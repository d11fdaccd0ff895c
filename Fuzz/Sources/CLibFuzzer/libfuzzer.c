// libfuzzer.h declares what libFuzzer (linked by -sanitize=fuzzer) defines.
