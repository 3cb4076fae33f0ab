// The C half of songbox's Lua bridge: the state's life, its entry points and the prelude. See
// include/luashim.h for the rules, and luashim_*.c for the memory cap, the instruction budget,
// the values from Swift, the bridge to Swift and the sandbox.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: entry points

/// Runs `f` with `nargs` arguments from the stack under lua_pcall. Never raises.
static int sb_protected(lua_State *L, lua_CFunction f, int nargs) {
    if (!lua_checkstack(L, 2)) return LUA_ERRMEM;
    lua_pushcfunction(L, f);
    lua_insert(L, -(nargs + 1));
    return lua_pcall(L, nargs, 0, 0);
}

songbox_state *songbox_open(size_t memory_limit, int64_t instruction_limit,
                            songbox_dispatch_fn dispatch, songbox_output_fn output, void *context) {
    songbox_state *S = (songbox_state *)calloc(1, sizeof *S);
    if (S == NULL) return NULL;
    S->memory_limit = memory_limit;
    S->instruction_limit = instruction_limit;
    S->hook_interval = instruction_limit < 1000 ? (int)(instruction_limit > 0 ? instruction_limit : 1) : 1000;
    S->dispatch = dispatch;
    S->output = output;
    S->context = context;
    S->L = lua_newstate(sb_alloc, S);
    if (S->L == NULL) { free(S); return NULL; }
    lua_atpanic(S->L, sb_panic);
    lua_sethook(S->L, sb_hook, LUA_MASKCOUNT, S->hook_interval);
    return S;
}

void songbox_close(songbox_state *S) {
    if (S == NULL) return;
    // No Lua finalizers can exist (setmetatable refuses __gc), so closing runs no script code.
    lua_close(S->L);
    free(S->buffer);
    free(S);
}

lua_State *songbox_lua(songbox_state *S) { return S->L; }
songbox_state *songbox_owner(lua_State *L) { return sb_get(L); }

int songbox_setup(songbox_state *S, int sandbox) {
    lua_pushboolean(S->L, sandbox);
    return sb_protected(S->L, sb_setup_p, 1);
}

static int sb_add_path_p(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, PATHS_KEY);
    lua_pushstring(L, (const char *)lua_touserdata(L, 1));
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

int songbox_add_module_path(songbox_state *S, const char *folder) {
    lua_pushlightuserdata(S->L, (void *)folder);
    return sb_protected(S->L, sb_add_path_p, 1);
}

int songbox_register(songbox_state *S, const char *path, int function, int flags) {
    lua_State *L = S->L;
    if (!lua_checkstack(L, 4)) return LUA_ERRMEM;
    lua_pushlightuserdata(L, (void *)path);
    lua_pushinteger(L, function);
    lua_pushinteger(L, flags);
    return sb_protected(L, sb_register_p, 3);
}

// MARK: the prelude

static int sb_message_handler(lua_State *L);

/// Prelude helper `install(path, value)`: sets songbox.<path> = value (any Lua value).
static int sb_prelude_install(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, PENDING_KEY);
    lua_pushcfunction(L, sb_register_p);
    lua_pushlightuserdata(L, (void *)path);  // path stays on the stack at 1 meanwhile
    lua_pushinteger(L, SB_PENDING_VALUE);
    lua_pushinteger(L, 0);
    lua_call(L, 3, 0);
    return 0;
}

/// Prelude helper `keep(name, function)`: a function the host calls later by name.
static int sb_prelude_keep(lua_State *L) {
    luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_getfield(L, LUA_REGISTRYINDEX, HOST_KEY);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, HOST_KEY);
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_rawset(L, -3);
    return 0;
}

/// Under protection: pushes the prelude helpers for the chunk below them.
/// Prelude helper `where(fn)`: "file:line" where the Lua function `fn` was defined, or nil (a C
/// function): so a callback's error that names no place is told with its callback's.
static int sb_prelude_where(lua_State *L) {
    lua_Debug ar;
    if (!lua_isfunction(L, 1)) return 0;
    lua_settop(L, 1);
    if (!lua_getinfo(L, ">S", &ar) || ar.linedefined <= 0) return 0;
    lua_pushfstring(L, "%s:%d", ar.short_src, ar.linedefined);
    return 1;
}

static int sb_push_prelude_helpers_p(lua_State *L) {
    lua_pushcfunction(L, sb_prelude_install);
    lua_pushcfunction(L, sb_prelude_keep);
    lua_pushcfunction(L, sb_prelude_where);
    return 3;
}

int songbox_run_prelude(songbox_state *S, const char *bytes, size_t length, const char *name) {
    lua_State *L = S->L;
    int status = luaL_loadbufferx(L, bytes, length, name, "t");
    if (status != LUA_OK) return status;
    if (!lua_checkstack(L, 5)) { lua_pop(L, 1); return LUA_ERRMEM; }
    lua_pushcfunction(L, sb_push_prelude_helpers_p);
    status = lua_pcall(L, 0, 3, 0);                 // chunk, install, keep, where
    if (status != LUA_OK) { lua_remove(L, -2); return status; }
    lua_pushcfunction(L, sb_message_handler);
    lua_insert(L, -5);                               // handler, chunk, install, keep, where
    status = lua_pcall(L, 3, 0, lua_gettop(L) - 4);
    lua_remove(L, status == LUA_OK ? -1 : -2);       // the handler
    return status;
}

/// Under protection: [name as a C string] -> the host function kept under that name (or nil).
static int sb_get_host_p(lua_State *L) {
    const char *name = (const char *)lua_touserdata(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, HOST_KEY);
    if (lua_isnil(L, -1)) return 1;
    lua_getfield(L, -1, name);
    return 1;
}

int songbox_push_host(songbox_state *S, lua_State *L, const char *name) {
    (void)S;
    if (!lua_checkstack(L, 4)) return LUA_ERRMEM;
    lua_pushcfunction(L, sb_get_host_p);
    lua_pushlightuserdata(L, (void *)name);  // made a Lua string under protection
    int status = lua_pcall(L, 1, 1, 0);
    if (status == LUA_OK && !lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        lua_pushnil(L);  // the caller reports it: lua_pushfstring could raise here
        return LUA_ERRRUN;
    }
    return status;
}

int songbox_load(songbox_state *S, const char *bytes, size_t length, const char *name) {
    // lua_load runs the parser under protection: it returns a status and never raises.
    return luaL_loadbufferx(S->L, bytes, length, name, "t");
}

/// The message handler: the error message (or a description of the error object) + traceback.
static int sb_message_handler(lua_State *L) {
    const char *message = lua_tostring(L, 1);
    if (message == NULL) {
        // An error object: its __tostring text, where it was raised, and the traceback.
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
            // Where: the nearest Lua function (level 1 is `error` itself, a C function).
            lua_Debug ar;
            if (sb_nearest_lua(L, &ar)) lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
            else lua_pushliteral(L, "");
            lua_insert(L, -2);
            lua_concat(L, 2);
            message = lua_tostring(L, -1);
        } else {
            message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        }
    }
    luaL_traceback(L, L, message, 1);
    return 1;
}

/// Under protection: [function] -> pushes the arguments from the buffer and calls it.
static int sb_call_p(lua_State *L) {
    songbox_state *S = sb_get(L);
    int nargs = (int)lua_tointeger(L, 2);
    lua_settop(L, 1);
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    sb_push_buffer(L, S, nargs);
    lua_call(L, nargs, LUA_MULTRET);
    return lua_gettop(L);
}

int songbox_call(songbox_state *S, lua_State *L, int nargs) {
    if (!lua_checkstack(L, 3)) return LUA_ERRMEM;
    // A call back in from a host function (a smart playlist's function read by its own script)
    // is part of the outer entry call: it shares its instruction budget.
    if (S->calls == 0) {
        if (S->stop == SONGBOX_STOP_NONE) S->instructions_used = 0;
        S->refusals = 0;
    }
    int base = lua_gettop(L);  // the function
    lua_pushcfunction(L, sb_message_handler);
    lua_insert(L, base);                      // handler, function
    lua_pushcfunction(L, sb_call_p);          // a light C function: no allocation
    lua_insert(L, base + 1);                  // handler, call_p, function
    lua_pushinteger(L, nargs);                // handler, call_p, function, nargs
    S->calls++;
    int status = lua_pcall(L, 2, LUA_MULTRET, base);
    S->calls--;
    lua_remove(L, base);                      // results or message
    if (status != LUA_OK && S->memory_exceeded && S->stop == SONGBOX_STOP_NONE) {
        S->stop = SONGBOX_STOP_MEMORY;
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    }
    return status;
}

int songbox_stop_reason(songbox_state *S) { return S->stop; }
const char *songbox_stop_location(songbox_state *S) { return S->stop_location; }
const char *songbox_stop_traceback(songbox_state *S) { return S->stop_traceback; }
size_t songbox_memory_used(songbox_state *S) { return S->memory_used; }
size_t songbox_memory_limit(songbox_state *S) { return S->memory_limit; }
int64_t songbox_instructions_used(songbox_state *S) { return S->instructions_used; }
int64_t songbox_instruction_limit(songbox_state *S) { return S->instruction_limit; }
long songbox_imbalances(songbox_state *S) { return S->imbalances; }
long songbox_refusals(songbox_state *S) { return S->refusals; }

