#ifndef SONGBOX_LUASHIM_INTERNAL_H
#define SONGBOX_LUASHIM_INTERNAL_H
// Between the shim's C files; not part of the module Swift imports.
#include "luashim.h"

// Every C file of the shim includes this first: a warning in songbox's C is a build error,
// without unsafe flags in Package.swift.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"

/// Charges `count` steps of a C loop to the instruction budget; raises the stop error when it is
/// exhausted. Only from C functions called by Lua.
void songbox_charge(lua_State *L, long count);

/// Sets find, match, gmatch and gsub in the table at `table` (the sandbox's `string`) to the
/// pattern functions of luapattern.c, which count their matching steps and charge them.
void songbox_install_patterns(lua_State *L, int table);
#endif
