// A preloaded-library file that includes the command line: the include check must name it.
#include "cli/exit_codes.h"
