#include "trace/trace-hw_misc_dlb2.h"
