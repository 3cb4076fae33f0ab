#ifndef SONGBOX_LUASHIM_INTERNAL_H
#define SONGBOX_LUASHIM_INTERNAL_H
// Between the shim's C files; not part of the module Swift imports.
#include "luashim.h"

/// Charges `count` steps of a C loop to the instruction budget; raises the stop error when it is
/// exhausted. Only from C functions called by Lua.
void songbox_charge(lua_State *L, long count);
#endif
