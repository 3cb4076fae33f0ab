// The sandbox: the standard library as scripts get it (wrapped print, load, setmetatable,
// coroutines, require...), set up once per state.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: sandbox wrappers

/// print: to the host's output, never to a file descriptor of its own.
static int sb_print(lua_State *L) {
    songbox_state *S = sb_get(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t length;
    const char *line = lua_tolstring(L, -1, &length);
    S->output(S->context, line, length);
    lua_pop(L, 1);
    return 0;
}

/// load: text chunks only, whatever mode the script asks for. Upvalue 1: the original load.
static int sb_load(lua_State *L) {
    int env_given = !lua_isnone(L, 4);  // load's env may be nil on purpose: keep it then
    lua_settop(L, 4);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (!env_given) lua_settop(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, env_given ? 4 : 3, LUA_MULTRET);
    return lua_gettop(L);
}

/// collectgarbage: only "count" (the collector cannot be stopped, tuned or forced).
static int sb_collectgarbage(lua_State *L) {
    const char *option = luaL_optstring(L, 1, "collect");
    if (strcmp(option, "count") != 0)
        return luaL_error(L, "collectgarbage(\"%s\") is not allowed in the sandbox (only \"count\")", option);
    int kb = lua_gc(L, LUA_GCCOUNT), bytes = lua_gc(L, LUA_GCCOUNTB);
    lua_pushnumber(L, (lua_Number)kb + ((lua_Number)bytes / 1024));
    return 1;
}

/// setmetatable: no __gc (a finalizer runs with hooks off, so a loop in it could not be stopped).
/// Upvalue 1: the original setmetatable.
static int sb_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "__gc metamethods are not allowed in the sandbox");
        lua_pop(L, 1);
    }
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

int sb_is_namespace(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE) return 0;
    index = lua_absindex(L, index);
    lua_getfield(L, LUA_REGISTRYINDEX, REAL_KEY);
    lua_pushvalue(L, index);
    int found = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return found;
}

/// rawset: as Lua's, but never on a `songbox` table.
static int sb_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (sb_is_namespace(L, 1)) return luaL_error(L, "songbox tables are read-only");
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/// string.rep: an empty result is returned at once (Lua would loop n times to build it).
static int sb_string_rep(lua_State *L) {
    size_t length = 0, separator = 0;
    luaL_checklstring(L, 1, &length);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (n <= 0 || length + separator == 0) { lua_pushliteral(L, ""); return 1; }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/// table.move: charged one instruction per element (its loop runs no Lua instructions).
static int sb_table_move(lua_State *L) {
    lua_Integer first = luaL_checkinteger(L, 2), last = luaL_checkinteger(L, 3);
    if (last >= first) sb_charge(L, (first <= 0 && last > LUA_MAXINTEGER + first) ? -1 : last - first + 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/// table.insert and table.remove: charged the table's length (they shift elements in C).
static int sb_table_shift(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    sb_charge(L, luaL_len(L, 1));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

// An error raised from a hook leaves hooks off (L->allowhook) until a pcall boundary restores
// them, and Lua runs a message handler or a coroutine's __close handlers before that. Our hook
// raises only once the state is stopped, so these wrappers run no script code when stopped.

/// xpcall's message handler (upvalue 1: the script's handler): not called once stopped.
static int sb_message_wrapper(lua_State *L) {
    if (sb_get(L)->stop != SONGBOX_STOP_NONE) return lua_gettop(L) ? 1 : 0;  // the error as is
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    return 1;
}

/// xpcall(f, handler, ...) with the handler wrapped. Upvalue 1: the original xpcall.
static int sb_xpcall(lua_State *L) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, sb_message_wrapper, 1);
    lua_replace(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/// coroutine.create, resume and close (upvalue 1: the original): once the state is stopped
/// no thread is made and none runs, and a resume that the stop ended raises the stop error in
/// the resumer instead of returning false to it (a tree of coroutines catching each other's
/// errors ran on for as long as it was let). A close is refused too: its __close handlers would
/// run with hooks off.
static int sb_coroutine_guard(lua_State *L) {
    songbox_state *S = sb_get(L);
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    return lua_gettop(L);
}

/// The function coroutine.wrap returns (upvalue 1: the coroutine), as Lua's auxwrap, except
/// that a coroutine that failed because the state was stopped is not closed.
static int sb_auxwrap(lua_State *L) {
    songbox_state *S = sb_get(L);
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int narg = lua_gettop(L), nres = 0;
    if (!lua_checkstack(co, narg)) return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, narg);
    int status = lua_resume(co, L, narg, &nres);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            return luaL_error(L, "too many results to resume");
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    lua_xmove(co, L, 1);  // the error
    if (lua_status(co) != LUA_OK && lua_status(co) != LUA_YIELD) {
        if (lua_resetthread(co) != LUA_OK) {  // closing failed: its error replaces the first
            lua_pop(L, 1);
            lua_xmove(co, L, 1);
        }
    }
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    if (lua_type(L, -1) == LUA_TSTRING) {  // add where the wrapped function was called
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_coroutine_wrap(lua_State *L) {
    songbox_state *S = sb_get(L);
    if (S->stop != SONGBOX_STOP_NONE) return sb_raise_stop(L, S);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, sb_auxwrap, 1);
    return 1;
}

/// require: Lua modules (text) from the configured folders, or the preloaded `songbox`.
static int sb_require(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);  // 2: loaded
    if (lua_getfield(L, 2, name) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    size_t length = strlen(name);
    int valid = length > 0 && name[0] != '.' && name[length - 1] != '.';
    for (size_t i = 0; valid && i < length; i++) {
        char c = name[i];
        valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                || (c == '.' && name[i + 1] != '.');
    }
    if (!valid) return luaL_error(L, "module '%s' not found: not a valid module name", name);
    const char *relative = luaL_gsub(L, name, ".", "/");  // 3
    lua_getfield(L, LUA_REGISTRYINDEX, PATHS_KEY);        // 4: folders
    lua_pushliteral(L, "");                               // 5: the files tried
    lua_Integer folders = (lua_Integer)lua_rawlen(L, 4);
    for (lua_Integer i = 1; i <= folders; i++) {
        static const char *const patterns[] = {"%s/%s.lua", "%s/%s/init.lua"};
        for (int k = 0; k < 2; k++) {
            lua_rawgeti(L, 4, i);
            const char *path = lua_pushfstring(L, patterns[k], lua_tostring(L, -1), relative);
            lua_remove(L, -2);  // 6: path
            struct stat info;
            if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
                lua_pushfstring(L, "%s\n\tno file '%s'", lua_tostring(L, 5), path);
                lua_replace(L, 5);
                lua_pop(L, 1);
                continue;
            }
            // Read the file into a userdata (counted under the memory cap).
            size_t size = (size_t)info.st_size;
            char *bytes = (char *)lua_newuserdatauv(L, size ? size : 1, 0);  // 7
            FILE *file = fopen(path, "rb");
            size_t got = file ? fread(bytes, 1, size, file) : 0;
            if (file) fclose(file);
            if (!file || got != size) return luaL_error(L, "cannot read module '%s' from '%s'", name, path);
            lua_pushfstring(L, "@%s", path);  // 8
            if (luaL_loadbufferx(L, bytes, size, lua_tostring(L, 8), "t") != LUA_OK)  // 9: chunk
                return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path, lua_tostring(L, -1));
            lua_pushvalue(L, 1);
            lua_pushvalue(L, 6);
            lua_call(L, 2, 1);  // 9: the module
            if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_pushboolean(L, 1); }
            lua_pushvalue(L, -1);
            lua_setfield(L, 2, name);
            return 1;
        }
    }
    return luaL_error(L, "module '%s' not found:%s", name, lua_tostring(L, 5));
}

// MARK: setup

static void sb_wrap(lua_State *L, int table, const char *name, lua_CFunction wrapper) {
    lua_getfield(L, table, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, table, name);
}

int sb_setup_p(lua_State *L) {
    int sandbox = (int)lua_toboolean(L, 1);
    luaL_openlibs(L);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, PATHS_KEY);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REAL_KEY);
    lua_pushglobaltable(L);  // 2: _G
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);  // 3: loaded

    lua_pushcfunction(L, sb_print);
    lua_setfield(L, 2, "print");
    if (sandbox) {
        static const char *const keep[] = {
            "_G", "_VERSION", "assert", "collectgarbage", "coroutine", "error", "getmetatable", "ipairs",
            "load", "math", "next", "os", "pairs", "pcall", "print", "rawequal", "rawget", "rawlen", "rawset",
            "require", "select", "setmetatable", "string", "table", "tonumber", "tostring", "type", "utf8",
            "xpcall", NULL};
        // Collect the names first: a table must not change while it is traversed.
        lua_newtable(L);  // 4: names to drop
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            lua_pop(L, 1);
            int kept = 0;
            if (lua_type(L, -1) == LUA_TSTRING)
                for (int i = 0; keep[i] && !kept; i++) kept = strcmp(keep[i], lua_tostring(L, -1)) == 0;
            if (!kept) { lua_pushvalue(L, -1); lua_rawseti(L, 4, (lua_Integer)lua_rawlen(L, 4) + 1); }
        }
        for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, 4); i <= n; i++) {
            lua_rawgeti(L, 4, i);
            lua_pushnil(L);
            lua_rawset(L, 2);
        }
        lua_settop(L, 3);
        // Loaded libraries: only what the sandbox shows.
        static const char *const unload[] = {"io", "debug", "package", LUA_OSLIBNAME, NULL};
        for (int i = 0; unload[i]; i++) { lua_pushnil(L); lua_setfield(L, 3, unload[i]); }
        // os: time and dates only.
        lua_getfield(L, 2, "os");  // 4: the full os
        lua_createtable(L, 0, 4);  // 5
        static const char *const os_keep[] = {"clock", "date", "difftime", "time", NULL};
        for (int i = 0; os_keep[i]; i++) { lua_getfield(L, 4, os_keep[i]); lua_setfield(L, 5, os_keep[i]); }
        lua_pushvalue(L, 5);
        lua_setfield(L, 2, "os");
        lua_setfield(L, 3, "os");
        lua_pop(L, 1);
        // string: no dump; rep guarded.
        lua_getfield(L, 2, "string");  // 4
        lua_pushnil(L);
        lua_setfield(L, 4, "dump");
        sb_wrap(L, 4, "rep", sb_string_rep);
        // find, match, gmatch, gsub: songbox's matcher, which charges its steps (luapattern.c).
        songbox_install_patterns(L, 4);
        lua_pop(L, 1);
        // math: the 5.4 set only, whether or not this liblua was built with LUA_COMPAT_MATHLIB,
        // so that every build offers scripts the same names.
        lua_getfield(L, 2, "math");  // 4
        static const char *const math_compat[] = {"atan2", "cosh", "frexp", "ldexp", "log10", "pow", "sinh", "tanh", NULL};
        for (int i = 0; math_compat[i]; i++) { lua_pushnil(L); lua_setfield(L, 4, math_compat[i]); }
        lua_pop(L, 1);
        lua_getfield(L, 2, "table");  // 4
        sb_wrap(L, 4, "move", sb_table_move);
        sb_wrap(L, 4, "insert", sb_table_shift);
        sb_wrap(L, 4, "remove", sb_table_shift);
        lua_pop(L, 1);
        sb_wrap(L, 2, "load", sb_load);
        sb_wrap(L, 2, "xpcall", sb_xpcall);
        lua_getfield(L, 2, "coroutine");  // 4
        sb_wrap(L, 4, "close", sb_coroutine_guard);
        sb_wrap(L, 4, "create", sb_coroutine_guard);
        sb_wrap(L, 4, "resume", sb_coroutine_guard);
        lua_pushcfunction(L, sb_coroutine_wrap);
        lua_setfield(L, 4, "wrap");
        lua_pop(L, 1);
        sb_wrap(L, 2, "setmetatable", sb_setmetatable);
        lua_pushcfunction(L, sb_collectgarbage);
        lua_setfield(L, 2, "collectgarbage");
        lua_pushcfunction(L, sb_rawset);
        lua_setfield(L, 2, "rawset");
        lua_pushcfunction(L, sb_require);
        lua_setfield(L, 2, "require");
    }
    // The songbox namespace: global and require "songbox".
    sb_new_namespace(L, "songbox");  // 4: proxy
    sb_real_of(L, 4);
    lua_setfield(L, LUA_REGISTRYINDEX, ROOT_KEY);
    lua_pushvalue(L, 4);
    lua_setfield(L, 2, "songbox");
    lua_setfield(L, 3, "songbox");
    return 0;
}

int sb_panic(lua_State *L) {
    const char *message = lua_tostring(L, -1);
    fprintf(stderr, "songbox: unprotected Lua error (a bug): %s\n", message ? message : "?");
    abort();
}
