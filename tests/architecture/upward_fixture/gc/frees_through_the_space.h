// A collector that reaches past its view of the space to the space itself.
#include "vm/handle_table_space.h"
