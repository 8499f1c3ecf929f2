// A collector that reads object layouts itself: the include check must name it.
#include "vm/object.h"
