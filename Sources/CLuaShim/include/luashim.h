#ifndef SONGBOX_LUASHIM_H
#define SONGBOX_LUASHIM_H
// The C side of songbox's Lua bridge: the allocator with a memory cap, the instruction-budget
// hook, the sandbox's C wrappers and the trampoline through which Lua calls Swift.
//
// Rule: no Lua error ever unwinds through a Swift frame. Swift calls only the functions below
// that are marked "never raises"; everything that can raise runs here in C, under lua_pcall.
#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

/// What a Swift bridge function returns to its trampoline (>= 0: that many results are encoded
/// in the state's value buffer).
enum {
    SONGBOX_RESULT_ERROR = -1,      // the buffer holds a message: raised with the caller's file:line
    SONGBOX_RESULT_ARG_ERROR = -2,  // the buffer holds int32 argument + message: luaL_argerror
    SONGBOX_RESULT_TYPE_ERROR = -3, // the buffer holds int32 argument + type name: luaL_typeerror
};

/// How an entry call ended (beyond Lua's LUA_OK, LUA_ERRRUN, LUA_ERRMEM, LUA_ERRERR).
enum {
    SONGBOX_STOP_NONE = 0,
    SONGBOX_STOP_INSTRUCTIONS = 1,
    SONGBOX_STOP_MEMORY = 2,
};

/// Flags of a registered function.
enum {
    /// Lua arguments are converted to one string (tostring, joined by spaces) and the caller's
    /// "file:line" is passed as a second argument (for log functions).
    SONGBOX_FUNCTION_MESSAGE = 1,
};

/// Value buffer tags (Swift encodes, C decodes and pushes).
enum {
    SONGBOX_TAG_NIL = 'n', SONGBOX_TAG_TRUE = 't', SONGBOX_TAG_FALSE = 'f',
    SONGBOX_TAG_INTEGER = 'i',  // int64, native byte order
    SONGBOX_TAG_NUMBER = 'd',   // double, native byte order
    SONGBOX_TAG_STRING = 's',   // uint32 length + bytes
    SONGBOX_TAG_ARRAY = 'a',    // uint32 count + values (nil leaves a hole)
    SONGBOX_TAG_TABLE = 'm',    // uint32 count + (string key, value) pairs
    // An array of tables whose keys come from one list, sent once (library tracks):
    // uint32 key count + keys (each uint32 length + bytes, no tag), uint32 record count + records,
    // each a uint8 field count + (uint8 key index, value) pairs. At most 255 keys.
    SONGBOX_TAG_RECORDS = 'r',
};

typedef int (*songbox_dispatch_fn)(void *context, lua_State *L, int function);
typedef void (*songbox_output_fn)(void *context, const char *bytes, size_t length);

typedef struct songbox_state songbox_state;

/// Creates a state (standard libraries opened, not yet sandboxed). NULL when out of memory.
/// Never raises.
songbox_state *songbox_open(size_t memory_limit, int64_t instruction_limit,
                            songbox_dispatch_fn dispatch, songbox_output_fn output, void *context);
/// Closes the Lua state and frees everything. Never raises.
void songbox_close(songbox_state *S);
lua_State *songbox_lua(songbox_state *S);
/// The songbox state a Lua state (or coroutine thread) belongs to. Never raises.
songbox_state *songbox_owner(lua_State *L);

/// Turns _G into the sandbox, creates the read-only `songbox` table and the module loader.
/// Returns a Lua status; on failure the message is on the stack. Never raises.
int songbox_setup(songbox_state *S, int sandbox);

/// Adds a folder `require` searches. Never raises (status returned, message on the stack).
int songbox_add_module_path(songbox_state *S, const char *folder);

/// Registers a Swift function (or, with function < 0, the value decoded from the buffer) at a
/// dotted path under `songbox`, creating namespaces on the way. Never raises.
int songbox_register(songbox_state *S, const char *path, int function, int flags);

/// Runs host Lua (text) with two helpers as `...`: `install(path, value)` sets songbox.<path> to
/// any Lua value (so the friendly API can be written in Lua), `keep(name, fn)` keeps a function
/// the host calls later with songbox_push_host. On failure the message is on the stack. Never raises.
int songbox_run_prelude(songbox_state *S, const char *bytes, size_t length, const char *name);

/// Pushes the function the prelude kept as `name` on thread `L` (the state's main thread, or the
/// coroutine running a host function that calls back in), ready for songbox_call. On failure the
/// message is on the stack instead. Never raises.
int songbox_push_host(songbox_state *S, lua_State *L, const char *name);

/// Loads a text chunk with chunk name `name` ("@path"). Never raises.
int songbox_load(songbox_state *S, const char *bytes, size_t length, const char *name);

/// Calls the function on top of thread `L`'s stack with the values encoded in the buffer, under a
/// traceback message handler and a fresh instruction budget (or, for a call back in from a host
/// function, the budget of the call it is part of). On success the results replace the function;
/// on failure, one string (message + traceback). Never raises.
int songbox_call(songbox_state *S, lua_State *L, int nargs);

/// Why the last call stopped (SONGBOX_STOP_*), and where ("file:line", may be empty).
int songbox_stop_reason(songbox_state *S);
const char *songbox_stop_location(songbox_state *S);
/// A traceback taken where the memory cap refused ("" when none). Never raises.
const char *songbox_stop_traceback(songbox_state *S);

/// Bytes the state holds, the cap, instructions run in the current/last call.
size_t songbox_memory_used(songbox_state *S);
size_t songbox_memory_limit(songbox_state *S);
int64_t songbox_instructions_used(songbox_state *S);
int64_t songbox_instruction_limit(songbox_state *S);
/// Bridge calls that left the Lua stack unbalanced (always 0 unless there is a bug).
long songbox_imbalances(songbox_state *S);
/// Allocations the memory cap refused during the current/last entry call.
long songbox_refusals(songbox_state *S);

/// The value buffer: Swift writes encoded values here before returning. Never raise.
void songbox_buffer_reset(songbox_state *S);
int songbox_buffer_append(songbox_state *S, const void *bytes, size_t length);
size_t songbox_buffer_length(songbox_state *S);

// Lua macros and calls Swift may use: they never raise.
static inline int songbox_gettop(lua_State *L) { return lua_gettop(L); }
static inline void songbox_settop(lua_State *L, int index) { lua_settop(L, index); }
static inline void songbox_pop(lua_State *L, int n) { lua_settop(L, -(n)-1); }
static inline int songbox_type(lua_State *L, int index) { return lua_type(L, index); }
static inline const char *songbox_typename(lua_State *L, int type) { return lua_typename(L, type); }
static inline int songbox_toboolean(lua_State *L, int index) { return lua_toboolean(L, index); }
static inline int songbox_isinteger(lua_State *L, int index) { return lua_isinteger(L, index); }
static inline int64_t songbox_tointeger(lua_State *L, int index) { return (int64_t)lua_tointegerx(L, index, NULL); }
static inline double songbox_tonumber(lua_State *L, int index) { return (double)lua_tonumberx(L, index, NULL); }
/// Only for values of type LUA_TSTRING (a number would be converted in place, which allocates).
static inline const char *songbox_tostringbytes(lua_State *L, int index, size_t *length) {
    return lua_type(L, index) == LUA_TSTRING ? lua_tolstring(L, index, length) : NULL;
}
static inline const void *songbox_topointer(lua_State *L, int index) { return lua_topointer(L, index); }
static inline int songbox_absindex(lua_State *L, int index) { return lua_absindex(L, index); }
static inline int songbox_checkstack(lua_State *L, int n) { return lua_checkstack(L, n); }
/// Raw traversal of a plain table (keys left by the previous call only).
static inline int songbox_next(lua_State *L, int index) { return lua_next(L, index); }
static inline int songbox_rawgeti(lua_State *L, int index, int64_t i) { return lua_rawgeti(L, index, (lua_Integer)i); }
static inline int64_t songbox_rawlen(lua_State *L, int index) { return (int64_t)lua_rawlen(L, index); }
static inline void songbox_pushnil(lua_State *L) { lua_pushnil(L); }
static inline int songbox_ok(void) { return LUA_OK; }
static inline int songbox_errmem(void) { return LUA_ERRMEM; }

#endif
