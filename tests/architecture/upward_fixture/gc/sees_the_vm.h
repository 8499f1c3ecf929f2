// A collector that includes the interpreter: the include check must name it.
#include "vm/vm.h"
