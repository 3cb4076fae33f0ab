// The bridge: the trampoline every `songbox.*` function goes through to Swift (no Lua error ever
// crosses a Swift frame), and the read-only `songbox` tables it is registered in.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: the trampoline

/// Replaces the arguments with (message, "file:line"): tostring of each, joined by spaces.
static void sb_message_arguments(lua_State *L) {
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, ' ');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);  // n+1: message
    // Where: the nearest Lua function that called (through pcall, a C function, it would be '?').
    lua_Debug ar;
    if (sb_nearest_lua(L, &ar))
        lua_pushfstring(L, "%s:%d", ar.short_src, ar.currentline);
    else
        lua_pushliteral(L, "?");  // n+2: where
    lua_rotate(L, 1, 2);  // message, where, arguments...
    lua_settop(L, 2);
}

/// luaL_argerror, but a function called without a name (through pcall, say) is named by its
/// registered name (upvalue 3) instead of '?'.
static int sb_argerror(lua_State *L, int arg, const char *extra) {
    lua_Debug ar;
    const char *name = NULL;
    if (lua_getstack(L, 0, &ar)) {
        lua_getinfo(L, "n", &ar);
        name = ar.name;
        if (ar.namewhat != NULL && strcmp(ar.namewhat, "method") == 0) {
            arg--;
            if (arg == 0) return luaL_error(L, "calling '%s' on bad self (%s)", name, extra);
        }
    }
    if (name == NULL) name = lua_tostring(L, lua_upvalueindex(3));
    return luaL_error(L, "bad argument #%d to '%s' (%s)", arg, name ? name : "?", extra);
}

/// Every Swift function Lua can call is this C closure (upvalues: function number, flags, name).
/// Swift runs and returns a status; only then, back in C, may an error be raised.
int sb_trampoline(lua_State *L) {
    songbox_state *S = sb_get(L);
    // Once stopped, no songbox.* call succeeds, from any thread.
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    int function = (int)lua_tointeger(L, lua_upvalueindex(1));
    int flags = (int)lua_tointeger(L, lua_upvalueindex(2));
    if (flags & SONGBOX_FUNCTION_MESSAGE) sb_message_arguments(L);
    int top = lua_gettop(L);
    S->buffer_length = 0;
    int status = S->dispatch(S->context, L, function);  // the Swift frame: never raises
    if (lua_gettop(L) != top) {  // stack balance is a bridge invariant
        S->imbalances++;
        lua_settop(L, top);
        return luaL_error(L, "songbox internal error: unbalanced Lua stack in a bridge function");
    }
    if (status >= 0) {
        sb_push_buffer(L, S, status);
        return status;
    }
    int32_t arg = 0;
    const char *text = S->buffer;
    size_t length = S->buffer_length;
    if (status == SONGBOX_RESULT_ARG_ERROR || status == SONGBOX_RESULT_TYPE_ERROR) {
        memcpy(&arg, text, 4); text += 4; length -= 4;
    }
    if (status == SONGBOX_RESULT_TYPE_ERROR) {
        // Nothing may be pushed before the type of argument `arg` is read: it may be absent.
        char expected[64];
        snprintf(expected, sizeof expected, "%.*s", (int)length, text);
        const char *actual;
        if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING) actual = lua_tostring(L, -1);
        else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA) actual = "light userdata";
        else actual = luaL_typename(L, arg);
        return sb_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", expected, actual));
    }
    lua_pushlstring(L, text, length);
    if (status == SONGBOX_RESULT_ARG_ERROR) return sb_argerror(L, arg, lua_tostring(L, -1));
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
    return lua_error(L);
}

// MARK: the read-only songbox tables

static int sb_readonly(lua_State *L) {
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";
    return luaL_error(L, "%s is read-only (cannot set '%s')", lua_tostring(L, lua_upvalueindex(1)), key);
}

/// The iterator pairs(proxy) returns: next over the real table (upvalue 1), which the script
/// never gets (the loop's state value is the proxy).
static int sb_proxy_next(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_next(L, lua_upvalueindex(1))) return 2;
    lua_pushnil(L);
    return 1;
}

/// pairs(proxy) walks the real table without handing it out: `local _, t = pairs(songbox)`
/// gives the read-only proxy back, not a table a script could write.
static int sb_proxy_pairs(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, sb_proxy_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int sb_proxy_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/// Pushes a new namespace: an empty proxy whose metatable reads from a hidden real table.
void sb_new_namespace(lua_State *L, const char *name) {
    lua_newtable(L);                                  // real
    lua_newtable(L);                                  // real, proxy
    lua_createtable(L, 0, 5);                         // real, proxy, mt
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_pushcclosure(L, sb_readonly, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, -3);
    lua_pushcclosure(L, sb_proxy_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushvalue(L, -3);
    lua_pushcclosure(L, sb_proxy_len, 1);
    lua_setfield(L, -2, "__len");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);                          // real, proxy
    lua_getfield(L, LUA_REGISTRYINDEX, REAL_KEY);     // real, proxy, reals
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -4);
    lua_rawset(L, -3);                                // reals[proxy] = real
    lua_pop(L, 1);
    lua_remove(L, -2);                                // proxy
}

/// The real table behind a namespace proxy at `index` (pushed).
void sb_real_of(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_getfield(L, LUA_REGISTRYINDEX, REAL_KEY);
    lua_pushvalue(L, index);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}


int sb_register_p(lua_State *L) {
    songbox_state *S = sb_get(L);
    const char *path = lua_pushstring(L, (const char *)lua_touserdata(L, 1));
    lua_replace(L, 1);
    int function = (int)lua_tointeger(L, 2), flags = (int)lua_tointeger(L, 3);
    lua_getfield(L, LUA_REGISTRYINDEX, ROOT_KEY);  // 4: current real table
    const char *start = path;
    for (const char *dot; (dot = strchr(start, '.')) != NULL; start = dot + 1) {
        lua_pushlstring(L, start, (size_t)(dot - start));  // 5: component
        lua_pushvalue(L, 5);
        if (lua_rawget(L, 4) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushfstring(L, "songbox.%s", lua_pushlstring(L, path, (size_t)(dot - path)));
            sb_new_namespace(L, lua_tostring(L, -1));  // 5: component, 6: prefix, 7: name, 8: proxy
            lua_replace(L, 6);
            lua_settop(L, 6);
            lua_pushvalue(L, 5);
            lua_pushvalue(L, 6);
            lua_rawset(L, 4);
        } else if (!sb_is_namespace(L, -1)) {
            return luaL_error(L, "songbox.%s is not a namespace", lua_tostring(L, 5));
        }
        sb_real_of(L, -1);
        lua_replace(L, 4);
        lua_settop(L, 4);
    }
    lua_pushstring(L, start);
    if (function >= 0) {
        lua_pushinteger(L, function);
        lua_pushinteger(L, flags);
        lua_pushfstring(L, "songbox.%s", path);
        lua_pushcclosure(L, sb_trampoline, 3);
    } else if (function == SB_PENDING_VALUE) {
        lua_getfield(L, LUA_REGISTRYINDEX, PENDING_KEY);
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, PENDING_KEY);
    } else {
        sb_push_buffer(L, S, 1);
    }
    lua_rawset(L, 4);
    return 0;
}
