#ifndef SONGBOX_CLUA_SHIM_H
#define SONGBOX_CLUA_SHIM_H
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

// Lua's version macros are not imported by Swift; re-declared here.
static inline const char *songbox_lua_release(void) { return LUA_RELEASE; }
#endif
