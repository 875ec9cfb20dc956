#include "CDSPKernels.h"
