// Why a collection ran: vm::GcCause (vm/collector.h, where the VM names the cause
// when it calls collect()), under the names the gc side has always used.
#pragma once

#include "vm/collector.h"

namespace kith::gc {

using vm::GcCause;
using vm::gcCauseName;

}  // namespace kith::gc
