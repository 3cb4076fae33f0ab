// The C half of songbox's Lua bridge. See include/luashim.h for the rules.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct songbox_state {
    lua_State *L;
    // Memory cap (custom allocator).
    size_t memory_used, memory_limit;
    int memory_exceeded;
    long refusals;  // allocations refused in the current entry call
    int calls;      // songbox_call frames running: a host function may call back into the state
    // The last refused request: Lua retries a failed allocation once after an emergency full
    // collection; the cap is exceeded only when that retry is refused too.
    const void *refused_block; size_t refused_old, refused_new;
    // Instruction budget (count hook), per entry call.
    int64_t instructions_used, instruction_limit;
    int hook_interval;
    int stop;  // SONGBOX_STOP_*: once set, the state runs no more Lua code
    char stop_location[LUA_IDSIZE + 24];
    // A traceback taken where the memory cap refused (Lua calls no message handler for a
    // memory error, so this is the only one there can be).
    char stop_traceback[1024];
    // Bridge to Swift.
    songbox_dispatch_fn dispatch;
    songbox_output_fn output;
    void *context;
    char *buffer; size_t buffer_length, buffer_capacity;
    long imbalances;
};

static const char *const REAL_KEY = "songbox.real";         // proxy -> real table
static const char *const ROOT_KEY = "songbox.root";         // the real `songbox` table
static const char *const PENDING_KEY = "songbox.pending";   // a prelude value on its way in
static const char *const HOST_KEY = "songbox.host";         // prelude functions the host calls
static const char *const PATHS_KEY = "songbox.module_paths";  // folders `require` searches

static songbox_state *sb_get(lua_State *L) {
    void *ud = NULL;
    (void)lua_getallocf(L, &ud);
    return (songbox_state *)ud;
}

// MARK: allocator

/// Records the running Lua function's file:line as where a limit was hit (main thread; it only
/// reads the call info, which the VM keeps current before any allocation). Up to Lua 5.4.4 a
/// growing stack is copied to a new block before the old one is freed, so the call info is valid
/// in the allocator; from 5.4.5 on its pointers are offsets meanwhile, so this is left out and
/// the error names the file without a line.
static void sb_record_location(songbox_state *S) {
#if LUA_VERSION_RELEASE_NUM > 50404
    (void)S;
    return;
#else
    lua_Debug ar;
    if (S->L == NULL) return;  // still inside lua_newstate
    S->stop_location[0] = 0;
    size_t used = (size_t)snprintf(S->stop_traceback, sizeof S->stop_traceback, "stack traceback:");
    // The innermost 16 levels: lua_getstack walks from the top each time, and a refusal in a
    // deep recursion must stay cheap.
    for (int level = 0; level < 16 && lua_getstack(S->L, level, &ar); level++) {
        if (!lua_getinfo(S->L, "Sl", &ar) || ar.currentline <= 0) continue;
        if (S->stop_location[0] == 0)
            snprintf(S->stop_location, sizeof S->stop_location, "%s:%d", ar.short_src, ar.currentline);
        if (used < sizeof S->stop_traceback) {
            int n = ar.what[0] == 'm'
                ? snprintf(S->stop_traceback + used, sizeof S->stop_traceback - used, "\n\t%s:%d: in main chunk",
                           ar.short_src, ar.currentline)
                : snprintf(S->stop_traceback + used, sizeof S->stop_traceback - used, "\n\t%s:%d: in function <%s:%d>",
                           ar.short_src, ar.currentline, ar.short_src, ar.linedefined);
            if (n > 0) used += (size_t)n;
        }
    }
#endif
}

static void *sb_alloc(void *ud, void *block, size_t old_size, size_t new_size) {
    songbox_state *S = (songbox_state *)ud;
    size_t old = block ? old_size : 0;
    if (new_size == 0) {
        free(block);
        S->memory_used -= old;
        return NULL;
    }
    // Once stopped no script code runs; the error path (the message, its traceback) may go a
    // little past the cap, so a memory-limit error says where it came from like any other.
    size_t limit = S->memory_limit + (S->stop != SONGBOX_STOP_NONE ? (size_t)1 << 20 : 0);
    if (new_size > old && S->memory_used - old + new_size > limit) {
        S->refusals++;
        if (S->stop == SONGBOX_STOP_NONE) sb_record_location(S);
        if (block == S->refused_block && old_size == S->refused_old && new_size == S->refused_new)
            S->memory_exceeded = 1;  // refused again after the emergency collection
        S->refused_block = block; S->refused_old = old_size; S->refused_new = new_size;
        return NULL;
    }
    void *result = realloc(block, new_size);
    if (result == NULL) return NULL;
    // (Shrinking, as the emergency collection does, does not make the last refusal moot.)
    if (new_size > old) { S->refused_block = NULL; S->refused_old = 0; S->refused_new = 0; }
    S->memory_used = S->memory_used - old + new_size;
    return result;
}

// MARK: instruction budget

static void sb_hook(lua_State *L, lua_Debug *ar);

/// The nearest Lua function on the stack (a frame with a current line): fills `ar`, returns 1;
/// 0 when there is none. What `FILE:LINE` names when a C function (pcall, error) is in between.
static int sb_nearest_lua(lua_State *L, lua_Debug *ar) {
    for (int level = 1; lua_getstack(L, level, ar); level++)
        if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) return 1;
    return 0;
}


/// Raises the stop error (only from C functions or the hook). The thread it is raised in then
/// raises again on every instruction: hooks are per thread in Lua 5.4, so each thread is made
/// to at its first contact with the stopped state (a hook firing, a resume, a bridge call).
static int sb_raise_stop(lua_State *L, songbox_state *S) {
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    // lua_pushfstring, not luaL_error: the location is the one recorded when the limit was hit.
    if (S->stop == SONGBOX_STOP_MEMORY)
        lua_pushfstring(L, "%s: memory limit of %d MB exceeded", S->stop_location,
                        (int)(S->memory_limit / (1024 * 1024)));
    else
        lua_pushfstring(L, "%s: instruction limit of %I exceeded", S->stop_location,
                        (lua_Integer)S->instruction_limit);
    return lua_error(L);
}

/// Marks the state stopped: from now on the hook raises on every instruction, so no pcall,
/// coroutine or callback can catch the error and go on.
static void sb_stop(lua_State *L, songbox_state *S, int reason, lua_Debug *ar) {
    S->stop = reason;
    if (reason == SONGBOX_STOP_MEMORY && S->stop_location[0] != 0) ar = NULL;  // the allocator recorded it
    if (reason == SONGBOX_STOP_INSTRUCTIONS) S->stop_location[0] = 0;
    lua_Debug local;
    if (ar == NULL && reason != SONGBOX_STOP_MEMORY) {
        // The nearest Lua function: a charged C function may be called through pcall, say.
        if (sb_nearest_lua(L, &local) || lua_getstack(L, 1, &local)) ar = &local;
    }
    if (ar != NULL && lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        snprintf(S->stop_location, sizeof S->stop_location, "%s:%d", ar->short_src, ar->currentline);
    else if (ar != NULL)
        snprintf(S->stop_location, sizeof S->stop_location, "%s", ar->short_src);
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_sethook(S->L, sb_hook, LUA_MASKCOUNT, 1);
}

static void sb_hook(lua_State *L, lua_Debug *ar) {
    songbox_state *S = sb_get(L);
    if (S->stop == SONGBOX_STOP_NONE) {
        S->instructions_used += S->hook_interval;
        if (S->memory_exceeded) sb_stop(L, S, SONGBOX_STOP_MEMORY, ar);
        else if (S->instructions_used > S->instruction_limit) sb_stop(L, S, SONGBOX_STOP_INSTRUCTIONS, ar);
        else return;
    }
    sb_raise_stop(L, S);
}

/// Charges work a C library function does in a loop of its own (no Lua instructions run).
static void sb_charge(lua_State *L, lua_Integer count) {
    songbox_state *S = sb_get(L);
    if (S->stop == SONGBOX_STOP_NONE) {
        if (count > 0) S->instructions_used += count;
        if (count < 0 || S->instructions_used > S->instruction_limit) sb_stop(L, S, SONGBOX_STOP_INSTRUCTIONS, NULL);
        else return;
    }
    sb_raise_stop(L, S);
}

void songbox_charge(lua_State *L, long count) { sb_charge(L, (lua_Integer)count); }

// MARK: values from the buffer

static uint32_t sb_read32(const char **p) { uint32_t v; memcpy(&v, *p, 4); *p += 4; return v; }

static void sb_push_records(lua_State *L, const char **p, int depth);

/// Pushes one value decoded from the buffer (Swift encoded it; lengths are trusted).
static void sb_push_value(lua_State *L, const char **p, int depth) {
    luaL_checkstack(L, 3, "value nesting too deep");
    char tag = **p; (*p)++;
    switch (tag) {
    case SONGBOX_TAG_NIL: lua_pushnil(L); break;
    case SONGBOX_TAG_TRUE: lua_pushboolean(L, 1); break;
    case SONGBOX_TAG_FALSE: lua_pushboolean(L, 0); break;
    case SONGBOX_TAG_INTEGER: { int64_t v; memcpy(&v, *p, 8); *p += 8; lua_pushinteger(L, (lua_Integer)v); break; }
    case SONGBOX_TAG_NUMBER: { double v; memcpy(&v, *p, 8); *p += 8; lua_pushnumber(L, (lua_Number)v); break; }
    case SONGBOX_TAG_STRING: { uint32_t n = sb_read32(p); lua_pushlstring(L, *p, n); *p += n; break; }
    case SONGBOX_TAG_ARRAY: {
        uint32_t n = sb_read32(p);
        lua_createtable(L, (int)n, 0);
        for (uint32_t i = 1; i <= n; i++) { sb_push_value(L, p, depth + 1); lua_rawseti(L, -2, (lua_Integer)i); }
        break;
    }
    case SONGBOX_TAG_TABLE: {
        uint32_t n = sb_read32(p);
        lua_createtable(L, 0, (int)n);
        for (uint32_t i = 0; i < n; i++) {
            sb_push_value(L, p, depth + 1);  // key
            sb_push_value(L, p, depth + 1);  // value
            lua_rawset(L, -3);
        }
        break;
    }
    case SONGBOX_TAG_RECORDS: sb_push_records(L, p, depth); break;
    default: luaL_error(L, "songbox internal error: bad value tag %d", (int)tag);
    }
}

/// Pushes a SONGBOX_TAG_RECORDS value (the tag read already): the keys are pushed once, below
/// the array, and each table takes them with lua_pushvalue, so no key string is made again; each
/// table is created with room for exactly its fields. Leaves only the array on the stack.
static void sb_push_records(lua_State *L, const char **p, int depth) {
    uint32_t key_count = sb_read32(p);
    luaL_checkstack(L, (int)key_count + 4, "too many record keys");
    int keys = lua_gettop(L) + 1;  // key i is at keys + i
    for (uint32_t i = 0; i < key_count; i++) {
        uint32_t n = sb_read32(p);
        lua_pushlstring(L, *p, n);
        *p += n;
    }
    uint32_t count = sb_read32(p);
    lua_createtable(L, (int)count, 0);
    for (uint32_t r = 1; r <= count; r++) {
        int fields = (unsigned char)*(*p)++;
        lua_createtable(L, 0, fields);
        for (int f = 0; f < fields; f++) {
            uint32_t key = (unsigned char)*(*p)++;
            if (key >= key_count) luaL_error(L, "songbox internal error: bad record key %d", (int)key);
            lua_pushvalue(L, keys + (int)key);
            char tag = **p;
            switch (tag) {  // the scalars records hold, inline; anything else as any value
            case SONGBOX_TAG_STRING: { (*p)++; uint32_t n = sb_read32(p); lua_pushlstring(L, *p, n); *p += n; break; }
            case SONGBOX_TAG_INTEGER: { int64_t v; memcpy(&v, *p + 1, 8); *p += 9; lua_pushinteger(L, (lua_Integer)v); break; }
            case SONGBOX_TAG_NUMBER: { double v; memcpy(&v, *p + 1, 8); *p += 9; lua_pushnumber(L, (lua_Number)v); break; }
            case SONGBOX_TAG_TRUE: (*p)++; lua_pushboolean(L, 1); break;
            case SONGBOX_TAG_FALSE: (*p)++; lua_pushboolean(L, 0); break;
            default: sb_push_value(L, p, depth + 1);
            }
            lua_rawset(L, -3);
        }
        lua_rawseti(L, -2, (lua_Integer)r);
    }
    lua_rotate(L, keys, 1);  // the array where the first key was
    lua_settop(L, keys);
}

/// Pushes `count` values from the buffer. Only from C, under protection.
static void sb_push_buffer(lua_State *L, songbox_state *S, int count) {
    const char *p = S->buffer;
    luaL_checkstack(L, count, "too many results");
    for (int i = 0; i < count; i++) sb_push_value(L, &p, 0);
}

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
static int sb_trampoline(lua_State *L) {
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

static int sb_is_namespace(lua_State *L, int index) {
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
static void sb_new_namespace(lua_State *L, const char *name) {
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
static void sb_real_of(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_getfield(L, LUA_REGISTRYINDEX, REAL_KEY);
    lua_pushvalue(L, index);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

/// `function` value of sb_register_p: the value stashed at PENDING_KEY (from the prelude).
#define SB_PENDING_VALUE (-2)

static int sb_register_p(lua_State *L) {
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

// MARK: setup

static void sb_wrap(lua_State *L, int table, const char *name, lua_CFunction wrapper) {
    lua_getfield(L, table, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, table, name);
}

static int sb_setup_p(lua_State *L) {
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

static int sb_panic(lua_State *L) {
    const char *message = lua_tostring(L, -1);
    fprintf(stderr, "songbox: unprotected Lua error (a bug): %s\n", message ? message : "?");
    abort();
}

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

void songbox_buffer_reset(songbox_state *S) { S->buffer_length = 0; }

int songbox_buffer_append(songbox_state *S, const void *bytes, size_t length) {
    if (S->buffer_length + length > S->buffer_capacity) {
        size_t capacity = S->buffer_capacity ? S->buffer_capacity : 256;
        while (capacity < S->buffer_length + length) capacity *= 2;
        char *grown = (char *)realloc(S->buffer, capacity);
        if (grown == NULL) return 0;
        S->buffer = grown;
        S->buffer_capacity = capacity;
    }
    memcpy(S->buffer + S->buffer_length, bytes, length);
    S->buffer_length += length;
    return 1;
}

size_t songbox_buffer_length(songbox_state *S) { return S->buffer_length; }
