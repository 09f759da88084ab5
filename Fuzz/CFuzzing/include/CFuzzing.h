// libFuzzer's driver, when the fuzzing build links it (Scripts/fuzz.sh); a weak reference, so a
// plain build links without it and osprey-fuzz replays files instead.

#ifndef OSPREY_CFUZZING_H
#define OSPREY_CFUZZING_H

#include <stddef.h>
#include <stdint.h>

/// The function libFuzzer calls with each input.
typedef int (*cfuzzing_callback)(const uint8_t *data, size_t size);

/// Whether libFuzzer is linked in.
int cfuzzing_has_driver(void);
/// Runs libFuzzer's driver (LLVMFuzzerRunDriver) with the process's arguments; returns its exit
/// status, or -1 when libFuzzer is not linked in.
int cfuzzing_run_driver(int *argc, char ***argv, cfuzzing_callback callback);

#endif
