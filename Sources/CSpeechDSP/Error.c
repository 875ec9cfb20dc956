// The thread-local error message of the C ABI (speechdsp.h): one buffer per thread, so two
// threads failing at once never see each other's message.

#include <stddef.h>
#include <string.h>

#include "speechdsp.h"

static _Thread_local char message[1024];

const char *sdsp_last_error(void) { return message; }

void sdsp__set_error(const char *text) {
    if (text == NULL) {
        message[0] = 0;
        return;
    }
    size_t n = strlen(text);
    if (n > sizeof message - 1) n = sizeof message - 1;
    memcpy(message, text, n);
    message[n] = 0;
}

// The layouts Python's ctypes mirrors (python/speechdsp/_native.py), checked at compile time.
_Static_assert(sizeof(sdsp_segment) == 24, "sdsp_segment layout");
_Static_assert(sizeof(sdsp_frontend_config) == 104, "sdsp_frontend_config layout");
_Static_assert(offsetof(sdsp_frontend_config, speech_boundaries) == 96, "sdsp_frontend_config layout");
_Static_assert(offsetof(sdsp_frontend_config, speech_blend) == 36, "sdsp_frontend_config layout");
_Static_assert(offsetof(sdsp_frontend_config, speech_min_seconds) == 64, "sdsp_frontend_config layout");
_Static_assert(sizeof(sdsp_frontend_result) == 32, "sdsp_frontend_result layout");
