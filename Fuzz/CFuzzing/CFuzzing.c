// See include/CFuzzing.h.

#include "CFuzzing.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) __attribute__((weak));

int cfuzzing_has_driver(void) { return LLVMFuzzerRunDriver != 0; }

int cfuzzing_run_driver(int *argc, char ***argv, cfuzzing_callback callback) {
    return LLVMFuzzerRunDriver == 0 ? -1 : LLVMFuzzerRunDriver(argc, argv, callback);
}
