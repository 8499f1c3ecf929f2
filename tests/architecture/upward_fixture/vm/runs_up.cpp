// A vm file that includes a collector: the include check must name it.
#include "gc/collector_x.h"
