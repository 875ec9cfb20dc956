// libebur128 (Debian libebur128-dev), the reference the loudness benchmarks compare against.
#include <ebur128.h>
